"""Read FunctionSignatures from func.func ops of the IR contract (docs/IR.md, "Functions")."""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import CompileError, DTypeError
from hclbuild.schedule.signature import ArgSpec, FunctionSignature

__all__ = ["ArgSpec", "FunctionSignature", "signature_of", "top_signature"]


def signature_of(func_op: ir.Operation | ir.OpView) -> FunctionSignature:
    """The signature of a func.func from hcl.arg_names, hcl.arg_types, hcl.ret_type and its type."""
    operation = func_op.operation
    if operation.name != "func.func":
        raise CompileError(f"signature_of: expected a func.func, got {operation.name}")
    name = upstream.symbol_name(operation)
    function_type = upstream.function_type(operation)
    inputs = list(function_type.inputs)
    arg_names = _required(attrs.arg_names, operation, attrs.ARG_NAMES, name)
    arg_types = _required(attrs.arg_types, operation, attrs.ARG_TYPES, name)
    if not len(arg_names) == len(arg_types) == len(inputs):
        raise CompileError(
            f"@{name}: {len(inputs)} arguments but {len(arg_names)} hcl.arg_names"
            f" and {len(arg_types)} hcl.arg_types"
        )
    streams = _stream_directions(operation, len(inputs), name)
    args = []
    for arg_name, type_name, mlir_type, stream in zip(arg_names, arg_types, inputs, streams):
        dtype = _dtype(type_name, f"@{name} argument '{arg_name}'")
        if isinstance(mlir_type, ir.MemRefType):
            element, shape = mlir_type.element_type, tuple(_dim(dim) for dim in mlir_type.shape)
        else:
            element, shape = mlir_type, ()
        _check_element(dtype, element, f"@{name} argument '{arg_name}'")
        args.append(ArgSpec(arg_name, dtype, shape, stream))
    results = list(function_type.results)
    if len(results) > 1:
        raise CompileError(
            f"@{name}: returns {len(results)} values, the IR contract allows at most one scalar"
        )
    ret = None
    if results:
        ret_type = attrs.ret_type(operation)
        if ret_type is None:
            raise CompileError(f"@{name}: returns a value but has no {attrs.RET_TYPE} attribute")
        ret = _dtype(ret_type, f"@{name} result")
        _check_element(ret, results[0], f"@{name} result")
    return FunctionSignature(name, args, ret)


def top_signature(module: ir.Module) -> FunctionSignature:
    """The signature of the module's `hcl.top` function."""
    tops = attrs.top_functions(module)
    if len(tops) != 1:
        raise CompileError(f"the module has {len(tops)} functions marked hcl.top, expected exactly one")
    return signature_of(tops[0])


def _required(
    read: Callable[[ir.Operation], list[str] | None], op: ir.Operation, key: str, func_name: str
) -> list[str]:
    try:
        values = read(op)
    except CompileError as err:
        raise CompileError(f"@{func_name}: {err}") from None
    if values is None:
        raise CompileError(f"@{func_name}: missing the {key} attribute (docs/IR.md)")
    return values


def _stream_directions(op: ir.Operation, count: int, func_name: str) -> list[str]:
    """ "read"/"write"/"" per argument, from the optional hcl.arg_streams."""
    where = f"@{func_name}"
    ports = attrs.arg_streams(op, where)
    if ports is None:
        return [""] * count
    if len(ports) != count:
        raise CompileError(
            f"{where}: {attrs.ARG_STREAMS} must hold one '' or '<read|write>:<depth>' per argument"
        )
    return [port.direction if port is not None else "" for port in ports]


def _dtype(type_name: str, where: str) -> DType:
    try:
        return parse_dtype(type_name)
    except DTypeError as err:
        raise CompileError(f"{where}: {err}") from None


def _dim(dim: int) -> int:
    # MLIR spells a dynamic size as INT64_MIN; ArgSpec uses -1
    return -1 if dim == ir.ShapedType.get_dynamic_size() else dim


def _check_element(dtype: DType, mlir_type: ir.Type, where: str) -> None:
    """The dtype name must describe the MLIR element type (same width, int vs float)."""
    if str(mlir_type) != dtype.mlir:
        raise CompileError(f"{where}: dtype {dtype.name} does not match the MLIR type {mlir_type}")
