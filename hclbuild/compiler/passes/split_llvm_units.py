"""One LLVM code unit per function of a lowered (LLVM dialect) module, split in MLIR.

Each function that other objects can call becomes a module of its own: declarations of the
functions it calls, its own copies (internal) of the local helpers it calls (MLIR's math helpers,
the reference's zeroing allocator) and of the constant globals it reads (format strings, constant
tensors), then its body; that module is translated to LLVM IR text. An unchanged function gives
byte-identical text, so its object stays cached (hclbuild.runtime.llvm_objects). A module with a
global that is not constant stays one unit: functions would otherwise each write their own copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import llvm
from mlir.dialects.llvm import translate_module_to_llvmir

from hclbuild.code_units import CodeUnit
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.errors import CompileError

CIFACE_PREFIX = "_mlir_ciface_"


def _references(op: ir.Operation) -> list[str]:
    """The symbols `op` refers to (calls, global addresses), in first-use order."""
    found: list[str] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        name = upstream.referenced_symbol(inner)
        if name is not None and name not in found:
            found.append(name)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _translate(module: ir.Module, name: str) -> str:
    try:
        return translate_module_to_llvmir(module.operation)
    except (ir.MLIRError, RuntimeError, ValueError) as err:
        raise CompileError(f"to_llvm: translation of @{name} to LLVM IR failed: {err}") from None


def split_llvm_units(module: ir.Module) -> list[CodeUnit]:
    """The code units of a module in the LLVM dialect, in module order."""
    symbols = upstream.symbols(module)
    functions = {name: op for name, op in symbols.items() if op.name == "llvm.func"}
    defined = {name for name, op in functions.items() if len(op.regions[0].blocks)}
    local = {name for name in defined if upstream.has_local_linkage(functions[name])}
    globals_ = {name: op for name, op in symbols.items() if op.name == "llvm.mlir.global"}
    exported = [name for name in functions if name in defined and name not in local]
    if any(not upstream.is_constant_global(op) for op in globals_.values()) or len(exported) <= 1:
        return [_whole_module(module, functions, exported, defined)]
    order = list(symbols)
    units = []
    with module.context, ir.Location.unknown():
        for name in exported:
            function = functions[name]
            needed: list[str] = []  # helpers and globals, transitively through the helpers
            todo = _references(function)
            while todo:
                symbol = todo.pop(0)
                if symbol == name or symbol in needed or symbol not in symbols:
                    continue
                needed.append(symbol)
                if symbol in local:
                    todo += _references(functions[symbol])
            unit = ir.Module.create()
            point = ir.InsertionPoint(unit.body)
            externals = []
            for symbol in sorted(needed, key=order.index):
                op = symbols[symbol]
                if symbol in globals_ or symbol in local:
                    copy = op.clone(ip=point)
                    if symbol in local:
                        upstream.set_internal_linkage(copy)
                elif symbol in defined:
                    llvm.LLVMFuncOp(symbol, upstream.llvm_function_type(op), ip=point)
                    externals.append(symbol)
                else:
                    op.clone(ip=point)  # a declaration already (libc, libm, hcl_probe)
                    externals.append(symbol)
            function.clone(ip=point)
            units.append(
                CodeUnit(
                    name,
                    _translate(unit, name),
                    light=upstream.is_optnone(function),
                    defines=(name,),
                    externals=tuple(externals),
                    entry=name.startswith(CIFACE_PREFIX),
                )
            )
    return units


def _whole_module(
    module: ir.Module, functions: dict[str, ir.Operation], exported: list[str], defined: set[str]
) -> CodeUnit:
    light = bool(defined) and all(upstream.is_optnone(functions[name]) for name in defined)
    name = exported[0] if len(exported) == 1 else "<module>"
    return CodeUnit(
        name,
        _translate(module, name),
        light=light,
        defines=tuple(exported),
        externals=tuple(name for name in functions if name not in defined),
        entry=any(name.startswith(CIFACE_PREFIX) for name in exported),
    )


@dataclass(frozen=True)
class SplitLLVMUnitsPass:
    """Pass form of `split_llvm_units`."""

    name: ClassVar[str] = "split_llvm_units"

    def run(self, module: ir.Module) -> list[CodeUnit]:
        """The code units of the module (which is left as it is)."""
        return split_llvm_units(module)


__all__ = ["CIFACE_PREFIX", "SplitLLVMUnitsPass", "split_llvm_units"]
