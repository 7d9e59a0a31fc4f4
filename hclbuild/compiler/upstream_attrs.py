"""MLIR's own attributes that hclbuild reads or sets, behind typed functions.

The counterpart of hclbuild.compiler.attrs for what upstream dialects define: the inherent
attributes of func, affine, arith and memref ops (a symbol's name, a call's callee, loop bounds,
a constant's value...) and the llvm dialect's function attributes to_llvm sets. With these two
modules no other hclbuild module spells an attribute name or touches `.attributes`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from mlir import ir

Op: TypeAlias = ir.Operation | ir.OpView

# inherent attributes of func.func: to_llvm keeps these and drops the rest (hcl.*), so
# func-to-llvm does not carry them onto llvm.func
_FUNC_INHERENT = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"})
# the attributes of an affine.for that hold its upper bound (unify compares loops without them)
UPPER_BOUND_ATTRIBUTES = frozenset({"upperBoundMap", "operandSegmentSizes"})
_LLVM_PREFIX = "llvm."
_C_INTERFACE = "llvm.emit_c_interface"
# func-to-llvm keeps `llvm.passthrough` on the llvm.func as a plain attribute; LLVM IR export reads
# `passthrough`
_FUNC_PASSTHROUGH = "llvm.passthrough"
_LLVM_PASSTHROUGH = "passthrough"
_LOCAL_LINKAGES = (
    "private",
    "internal",
    "linkonce",
    "linkonce_odr",
    "weak",
    "weak_odr",
    "available_externally",
)


def _attributes(op: Op) -> ir.OpAttributeMap:
    return op.operation.attributes


def _put(op: Op, key: str, build: Callable[[], ir.Attribute]) -> None:
    """Set attribute `key` to what `build` makes in the op's own context (callers need none active)."""
    with op.operation.context:
        _attributes(op)[key] = build()


# ---- symbols and functions ----------------------------------------------------------------------------
def symbol_name(op: Op) -> str:
    """The `sym_name` of a function or global."""
    return ir.StringAttr(_attributes(op)["sym_name"]).value


def has_symbol(op: Op) -> bool:
    return "sym_name" in _attributes(op)


def symbols(module: ir.Module) -> dict[str, ir.Operation]:
    """The module's top-level symbols (functions, globals) by name."""
    return {symbol_name(op): op.operation for op in module.body.operations if has_symbol(op)}


def set_symbol_name(op: Op, name: str) -> None:
    _put(op, "sym_name", lambda: ir.StringAttr.get(name))


def is_public(op: Op) -> bool:
    """Whether a symbol is public (no `sym_visibility`, or "public")."""
    attributes = _attributes(op)
    return "sym_visibility" not in attributes or ir.StringAttr(attributes["sym_visibility"]).value == "public"


def set_private(op: Op) -> None:
    _put(op, "sym_visibility", lambda: ir.StringAttr.get("private"))


def function_type(op: Op) -> ir.FunctionType:
    """The type of a func.func."""
    return ir.FunctionType(ir.TypeAttr(_attributes(op)["function_type"]).value)


def set_function_type(op: Op, value: ir.FunctionType) -> None:
    _put(op, "function_type", lambda: ir.TypeAttr.get(value))


def callee(op: Op) -> str:
    """The function a func.call names."""
    return ir.FlatSymbolRefAttr(_attributes(op)["callee"]).value


def set_callee(op: Op, name: str) -> None:
    _put(op, "callee", lambda: ir.FlatSymbolRefAttr.get(name))


# ---- arith ----------------------------------------------------------------------------------------------
def constant_value(op: Op) -> ir.Attribute:
    """The `value` of an arith.constant."""
    return _attributes(op)["value"]


def compare_predicate(op: Op) -> int:
    """The predicate number of an arith.cmpi / arith.cmpf."""
    return ir.IntegerAttr(_attributes(op)["predicate"]).value


# ---- affine ---------------------------------------------------------------------------------------------
def loop_step(op: Op) -> int:
    """The step of an affine.for."""
    return ir.IntegerAttr(_attributes(op)["step"]).value


def lower_bound_map(op: Op) -> ir.AffineMap:
    return ir.AffineMapAttr(_attributes(op)["lowerBoundMap"]).value


def upper_bound_map(op: Op) -> ir.AffineMap:
    return ir.AffineMapAttr(_attributes(op)["upperBoundMap"]).value


def set_upper_bound_map(op: Op, value: ir.AffineMap) -> None:
    _put(op, "upperBoundMap", lambda: ir.AffineMapAttr.get(value))


def set_lower_bound_map(op: Op, value: ir.AffineMap) -> None:
    _put(op, "lowerBoundMap", lambda: ir.AffineMapAttr.get(value))


def unsigned_compare(op: Op) -> bool:
    """Whether an scf.for compares its variable unsigned (`unsignedCmp`)."""
    return "unsignedCmp" in _attributes(op)


def access_map(op: Op) -> ir.AffineMap:
    """The subscript map of an affine.load / affine.store / affine.apply."""
    return ir.AffineMapAttr(_attributes(op)["map"]).value


# ---- memref globals --------------------------------------------------------------------------------------
def global_symbol(op: Op) -> str:
    """The memref.global a memref.get_global reads."""
    return ir.FlatSymbolRefAttr(_attributes(op)["name"]).value


def global_type(op: Op) -> ir.MemRefType:
    """The memref type of a memref.global."""
    return ir.MemRefType(ir.TypeAttr(_attributes(op)["type"]).value)


def set_global_type(op: Op, value: ir.MemRefType) -> None:
    _put(op, "type", lambda: ir.TypeAttr.get(value))


def constant_global_value(op: Op) -> ir.Attribute | None:
    """The initial value of a memref.global that is `constant` (a read-only table), else None (a
    writable global, or a constant one only declared)."""
    attributes = _attributes(op)
    return attributes["initial_value"] if "constant" in attributes and "initial_value" in attributes else None


def module_global(func: Op, symbol: str) -> ir.Operation | None:
    """The memref.global `symbol` of the module that holds `func`, None when it has none."""
    for region in func.parent.regions:
        for block in region.blocks:
            for candidate in block.operations:
                if candidate.operation.name == "memref.global" and symbol_name(candidate) == symbol:
                    return candidate.operation
    return None


def global_initial_value(op: Op) -> ir.Attribute:
    """The dense initial value of a memref.global."""
    return _attributes(op)["initial_value"]


def set_global_initial_value(op: Op, value: ir.Attribute) -> None:
    _attributes(op)["initial_value"] = value


# ---- the llvm dialect's function attributes (to_llvm) --------------------------------------------------
def keep_only_inherent(op: Op) -> None:
    """Drop every attribute of a func.func that is neither inherent nor llvm.* (hclbuild's hcl.*)."""
    attributes = _attributes(op)
    for name in list(attributes.keys()):
        if name not in _FUNC_INHERENT and not name.startswith(_LLVM_PREFIX):
            del attributes[name]


def mark_c_interface(op: Op) -> None:
    """Ask func-to-llvm for a `_mlir_ciface_<name>` wrapper of this function."""
    _put(op, _C_INTERFACE, ir.UnitAttr.get)


def set_passthrough(op: Op, flags: list[str]) -> None:
    """LLVM function attributes (`optnone`, `noinline`) for a func.func to carry through lowering."""
    _put(op, _FUNC_PASSTHROUGH, lambda: ir.ArrayAttr.get([ir.StringAttr.get(f) for f in flags]))


def has_passthrough(op: Op) -> bool:
    return _FUNC_PASSTHROUGH in _attributes(op)


def is_optnone(op: Op) -> bool:
    """Whether an llvm.func (after export_passthrough) is marked `optnone`."""
    attributes = _attributes(op)
    return _LLVM_PASSTHROUGH in attributes and any(
        ir.StringAttr(flag).value == "optnone" for flag in ir.ArrayAttr(attributes[_LLVM_PASSTHROUGH])
    )


def has_local_linkage(op: Op) -> bool:
    """Whether another object file cannot link to this llvm.func (internal, private, linkonce...: each
    object that uses it needs its own copy)."""
    attributes = _attributes(op)
    if "linkage" not in attributes:
        return False
    with op.operation.context:
        local = [ir.Attribute.parse(f"#llvm.linkage<{name}>") for name in _LOCAL_LINKAGES]
    return attributes["linkage"] in local


def set_internal_linkage(op: Op) -> None:
    _put(op, "linkage", lambda: ir.Attribute.parse("#llvm.linkage<internal>"))


def llvm_function_type(op: Op) -> ir.TypeAttr:
    """The `!llvm.func<...>` type of an llvm.func, as its attribute (to declare the function elsewhere)."""
    return ir.TypeAttr(_attributes(op)["function_type"])


def is_constant_global(op: Op) -> bool:
    """Whether an llvm.mlir.global is read-only."""
    return "constant" in _attributes(op)


def referenced_symbol(op: Op) -> str | None:
    """The function an llvm.call calls or the global an llvm.mlir.addressof takes, else None."""
    attributes = _attributes(op)
    for key in ("callee", "global_name"):
        if key in attributes:
            return ir.FlatSymbolRefAttr(attributes[key]).value
    return None


def export_passthrough(op: Op) -> None:
    """On an llvm.func: move `llvm.passthrough` to the `passthrough` LLVM IR export reads."""
    attributes = _attributes(op)
    if _FUNC_PASSTHROUGH in attributes:
        attributes[_LLVM_PASSTHROUGH] = attributes[_FUNC_PASSTHROUGH]
        del attributes[_FUNC_PASSTHROUGH]
