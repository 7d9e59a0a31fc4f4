"""DSL dtypes -> Vitis HLS C++ types, shared by the emitter and the testbench templates."""

from __future__ import annotations

from hclbuild.dsl.types import DType, parse_dtype

_STANDARD_WIDTHS = (8, 16, 32, 64)


def c_type(dtype: DType | str) -> str:
    """The C++ type of one element: int32_t/uint8_t/float/double where the width is standard,
    bool for uint1, ap_int<n>/ap_uint<n>/ap_fixed<w,i>/ap_ufixed<w,i> otherwise."""
    dt = parse_dtype(dtype)
    if dt.is_float:
        return "float" if dt.bits == 32 else "double"
    if dt.is_index:
        return "int64_t"
    if dt.kind == "uint" and dt.bits == 1:
        return "bool"
    if dt.is_int:
        if dt.bits in _STANDARD_WIDTHS:
            return f"{'int' if dt.is_signed else 'uint'}{dt.bits}_t"
        return f"ap_{'int' if dt.is_signed else 'uint'}<{dt.bits}>"
    return f"ap_{'fixed' if dt.is_signed else 'ufixed'}<{dt.bits}, {dt.int_bits}>"


def ap_family(dtype: DType | str) -> str | None:
    """ "int" when c_type(dtype) is ap_int/ap_uint, "fixed" for ap_fixed/ap_ufixed, None for C types."""
    dt = parse_dtype(dtype)
    if dt.is_float or dt.is_index or (dt.kind == "uint" and dt.bits == 1):
        return None
    if dt.is_int:
        return None if dt.bits in _STANDARD_WIDTHS else "int"
    return "fixed"


def needs_ap_types(dtype: DType | str) -> bool:
    """True when c_type(dtype) is an ap_* type, so the file must include ap_int.h/ap_fixed.h."""
    return ap_family(dtype) is not None
