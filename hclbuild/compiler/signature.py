"""Read FunctionSignatures from func.func ops of the IR contract (docs/IR.md, "Functions")."""

from __future__ import annotations

from mlir import ir

from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import CompileError, DTypeError
from hclbuild.schedule.signature import ArgSpec, FunctionSignature

__all__ = ["ArgSpec", "FunctionSignature", "signature_of", "top_signature"]


def signature_of(func_op: ir.Operation | ir.OpView) -> FunctionSignature:
    """The signature of a func.func from hcl.arg_names, hcl.arg_types, hcl.ret_type and its type."""
    operation = func_op.operation
    if operation.name != "func.func":
        raise CompileError(f"signature_of: expected a func.func, got {operation.name}")
    attributes = operation.attributes
    name = ir.StringAttr(attributes["sym_name"]).value
    function_type = ir.FunctionType(ir.TypeAttr(attributes["function_type"]).value)
    inputs = list(function_type.inputs)
    arg_names = _string_list(attributes, "hcl.arg_names", name)
    arg_types = _string_list(attributes, "hcl.arg_types", name)
    if not len(arg_names) == len(arg_types) == len(inputs):
        raise CompileError(
            f"@{name}: {len(inputs)} arguments but {len(arg_names)} hcl.arg_names"
            f" and {len(arg_types)} hcl.arg_types"
        )
    streams = _stream_directions(attributes, len(inputs), name)
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
        if "hcl.ret_type" not in attributes:
            raise CompileError(f"@{name}: returns a value but has no hcl.ret_type attribute")
        ret = _dtype(ir.StringAttr(attributes["hcl.ret_type"]).value, f"@{name} result")
        _check_element(ret, results[0], f"@{name} result")
    return FunctionSignature(name, args, ret)


def top_signature(module: ir.Module) -> FunctionSignature:
    """The signature of the module's `hcl.top` function."""
    tops = [
        op
        for op in module.body.operations
        if op.operation.name == "func.func" and "hcl.top" in op.operation.attributes
    ]
    if len(tops) != 1:
        raise CompileError(f"the module has {len(tops)} functions marked hcl.top, expected exactly one")
    return signature_of(tops[0])


def _string_list(attributes: ir.OpAttributeMap, key: str, func_name: str) -> list[str]:
    if key not in attributes:
        raise CompileError(f"@{func_name}: missing the {key} attribute (docs/IR.md)")
    try:
        return [ir.StringAttr(item).value for item in ir.ArrayAttr(attributes[key])]
    except (ValueError, TypeError):
        raise CompileError(f"@{func_name}: {key} must be an array of strings") from None


def _stream_directions(attributes: ir.OpAttributeMap, count: int, func_name: str) -> list[str]:
    """ "read"/"write"/"" per argument, from the optional hcl.arg_streams ("<direction>:<depth>")."""
    if "hcl.arg_streams" not in attributes:
        return [""] * count
    entries = _string_list(attributes, "hcl.arg_streams", func_name)
    if len(entries) != count or any(e and e.split(":")[0] not in ("read", "write") for e in entries):
        raise CompileError(
            f"@{func_name}: hcl.arg_streams must hold one '' or '<read|write>:<depth>' per argument"
        )
    return [e.split(":")[0] if e else "" for e in entries]


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
