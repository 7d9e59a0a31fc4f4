"""memref.get_global of an hcl.const_tensor as a C++ `static const` array with its values, in the
function that reads it (every function reading one has its own get_global, docs/IR.md)."""

from __future__ import annotations

import numpy as np
from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.dense import dense_array
from hclbuild.compiler.emit_hls.c_types import (
    CppUses,
    c_int,
    check_element,
    float_literal,
    memref_shape,
    parse_dtype_at,
    wide_literal,
)
from hclbuild.compiler.emit_hls.core import EmitterCore, Handler, Memory
from hclbuild.compiler.emit_hls.pragmas import buffer_pragmas
from hclbuild.dsl.types import DType
from hclbuild.errors import CompileError, HCLNotImplementedError

# a fixed-point constant is written as the double it equals: exact up to 53 significant bits
_EXACT_DOUBLE_BITS = 53


class ConstantOps(EmitterCore):
    """The handler of memref.get_global (registered in CONSTANT_HANDLERS below)."""

    def _get_global(self, op: ir.Operation) -> None:
        symbol = upstream.global_symbol(op)
        base = attrs.buffer_name(op) or symbol
        where = self._where(f"{op.name} '{base}'")
        memref_type = ir.MemRefType(op.results[0].type)
        dtype_name = attrs.buffer_dtype(op)
        if dtype_name is None:
            raise self._fail_where(where, f"has no {attrs.DTYPE} attribute")
        dtype = parse_dtype_at(dtype_name, where)
        check_element(dtype, memref_type.element_type, where)
        shape = memref_shape(memref_type, where)
        values = dense_array(upstream.global_initial_value(self._global(symbol, where))).reshape(shape)
        name = self.names.fresh(base)
        dims = "".join(f"[{dim}]" for dim in shape)
        self._line(
            f"static const {self.uses.c_type(dtype)} {name}{dims} = {_initializer(values, dtype, where, self.uses)};"
        )
        for pragma in buffer_pragmas(op, name, len(shape), where, self.pragma_syntax):
            self._line(pragma)
        self.memories[op.results[0]] = Memory(name, dtype, len(memref_type.shape), read_only=True)

    def _global(self, symbol: str, where: str) -> ir.Operation:
        found = upstream.module_global(self.func, symbol)
        if found is None:
            raise self._fail_where(where, f"no memref.global @{symbol} in the module")
        return found

    def _fail_where(self, where: str, message: str) -> Exception:
        return CompileError(f"{where}: {message}")


def _literal(value: np.number | int | float, dtype: DType, where: str, uses: CppUses) -> str:
    if dtype.is_float:
        return float_literal(float(value), dtype.bits)
    raw = int(value)
    if dtype.bits == 1:
        return "true" if raw & 1 else "false"
    if dtype.is_fixed:
        if dtype.bits > _EXACT_DOUBLE_BITS:
            raise HCLNotImplementedError(
                f"{where}: constant fixed-point tensors wider than {_EXACT_DOUBLE_BITS} bits"
            )
        return repr(dtype.wrap_int(raw) / 2**dtype.frac)
    value = dtype.wrap_int(raw)
    if -(2**63) <= value < 2**63:
        return c_int(value)
    return wide_literal(value, dtype.bits, uses)


def _initializer(values: np.ndarray, dtype: DType, where: str, uses: CppUses) -> str:
    """`{{1, 2}, {3, 4}}`: nested braces per dimension."""
    if values.ndim == 1:
        return "{" + ", ".join(_literal(v, dtype, where, uses) for v in values) + "}"
    return "{" + ", ".join(_initializer(row, dtype, where, uses) for row in values) + "}"


CONSTANT_HANDLERS: dict[str, Handler] = {"memref.get_global": ConstantOps._get_global}
