"""hcl.print: printf from the design, in the LLVM reference run and in C simulation (never in
synthesis: the C++ guards it with #ifndef __SYNTHESIS__).

Each value is converted to the C type its conversion in the format asks for (%d: int, %u/%x: unsigned,
%ld/%lld: long/long long, %f/%e/%g: double), so the LLVM call and the C++ printf agree on every
argument's type; a format without conversions prints text only. Without a format, integers print
as %d (%lld beyond 32 bits) and everything else as %.3f, each followed by a space and a newline
(HeteroCL's default). A tensor prints all its elements between brackets, one row of the last
dimension a line, each element with the format if one is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hclbuild.dsl.compound import Var
from hclbuild.dsl.expr import Cast, Expr, as_expr, compare
from hclbuild.dsl.stmt import For, If, Print
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.trace import active_program, record
from hclbuild.dsl.types import DType, Float, Index, Int, UInt
from hclbuild.errors import APIError

_CONVERSION = re.compile(
    r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?"
    r"(?P<length>hh|h|ll|l|j|z|t|L)?(?P<kind>[diouxXeEfFgGaAcspn%])"
)


@dataclass(frozen=True)
class Conversion:
    """One argument a printf format reads: its C type."""

    c_type: str  # "int" "unsigned" "long" "unsigned long" "long long" "unsigned long long" "double"

    @property
    def dtype(self) -> DType:
        """The DSL dtype a value is converted to before the call (same width and sign as c_type)."""
        if self.c_type == "double":
            return Float(64)
        bits = 32 if self.c_type in ("int", "unsigned") else 64
        return UInt(bits) if self.c_type.startswith("unsigned") else Int(bits)


def conversions(fmt: str) -> list[Conversion]:
    """The arguments a printf format reads, in order; APIError for what cannot be passed (%s, %n, *)."""
    found = []
    for match in _CONVERSION.finditer(fmt):
        kind, length = match.group("kind"), match.group("length") or ""
        if kind == "%":
            continue
        if (
            kind in "spn"
            or "*" in (match.group("width") or "") + (match.group("precision") or "")
            or length in ("j", "z", "t", "L")
        ):
            raise APIError(f"hcl.print: the conversion {match.group(0)!r} cannot print a DSL value")
        if kind in "eEfFgGaA":
            found.append(Conversion("double"))
            continue
        unsigned = kind in "ouxX"
        base = {"": "int", "hh": "int", "h": "int", "l": "long", "ll": "long long"}[length]
        found.append(
            Conversion(
                f"unsigned {base}" if unsigned and base != "int" else ("unsigned" if unsigned else base)
            )
        )
    return found


def _default_format(values: list[Expr]) -> str:
    """HeteroCL's: each value on a line of its own, followed by a space."""
    parts = []
    for value in values:
        dtype = value.dtype
        if dtype.is_int or dtype.is_index:
            parts.append("%lld \n" if dtype.bits > 32 else "%d \n")
        else:
            parts.append("%.3f \n")
    return "".join(parts)


def _print_values(values: list[Expr], fmt: str) -> None:
    specs = conversions(fmt)
    if len(values) < len(specs):
        raise APIError(f"hcl.print: the format {fmt!r} reads {len(specs)} values, {len(values)} given")
    # extra values are dropped, as printf ignores them
    args = tuple(Cast(spec.dtype, value) for spec, value in zip(specs, values))
    record(Print(fmt, args))


def _print_tensor(tensor: Tensor, fmt: str) -> None:
    """Nested loops printing every element between brackets, as numpy and MLIR's printMemref (so
    HeteroCL) do: `[[0, 1, 2],` a row a line, ` [3, 4, 5]]`; `fmt` prints one element (default %d,
    %g)."""
    program = active_program()
    dtype = tensor.dtype
    element = fmt or ("%g" if dtype.is_float or dtype.is_fixed else ("%lld" if dtype.bits > 32 else "%d"))
    reads = len(conversions(element))
    if reads != 1:
        raise APIError(
            f"hcl.print: a tensor's format prints one element at a time; {fmt!r} reads {reads} values"
        )
    loops = [
        For(Var(n, 0, extent), as_expr(0, Index()), as_expr(extent, Index()), 1, name=n)
        for n, extent in ((program.auto_name("print_i"), extent) for extent in tensor.shape)
    ]
    value = as_expr(tensor[tuple(loop.var for loop in loops)])
    for depth, (loop, extent) in enumerate(zip(loops, tensor.shape)):
        if depth + 1 < len(loops):
            loop.body.extend([Print("[", ()), loops[depth + 1], Print("]", ())])
            separator = ",\n" + " " * (depth + 1)
        else:
            loop.body.append(Print(element, (Cast(conversions(element)[0].dtype, value),)))
            separator = ", "
        loop.body.append(If(compare("lt", loop.var, extent - 1), [Print(separator, ())]))
    record(Print("[", ()))
    record(loops[0])
    record(Print("]\n", ()))


def print_(vals: object, format_str: str = "") -> None:
    """hcl.print(vals, format_str=""): printf the values (a value, a tuple or list of them, or a
    whole tensor) with a C format."""
    if not isinstance(format_str, str):
        raise APIError(f"hcl.print: the format must be a string, got {type(format_str).__name__}")
    format_str = format_str.split("\0", 1)[0]  # printf reads a format up to its first NUL
    if isinstance(vals, Tensor) and not vals.is_scalar:
        _print_tensor(vals, format_str)
        return
    items = list(vals) if isinstance(vals, (tuple, list)) else [vals]
    values = [as_expr(item) for item in items]
    if any(v.dtype.is_struct for v in values):
        raise APIError("hcl.print: print the fields of a struct, not the struct")
    _print_values(values, format_str or (_default_format(values) if values else ""))
