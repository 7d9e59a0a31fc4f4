"""One standalone module per function (the function plus its transitive callees, and the constant
globals they read) for `ir/<func>.mlir`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir.ir import InsertionPoint, Location, Module, Operation, WalkOrder, WalkResult

from hclbuild.compiler.passes.outline import callee_name, functions, symbol_name
from hclbuild.compiler.upstream_attrs import global_symbol
from hclbuild.errors import CompileError


def call_graph(module: Module) -> dict[str, list[str]]:
    """For each function of the module, the functions it calls, in first-call order."""
    return {symbol_name(f): _callees(f) for f in functions(module)}


def _callees(func_op: Operation) -> list[str]:
    callees: list[str] = []

    def visit(op: Operation) -> WalkResult:
        if op.name == "func.call":
            name = callee_name(op)
            if name not in callees:
                callees.append(name)
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return callees


def callees_first(graph: dict[str, list[str]], root: str) -> list[str]:
    """`root` and everything it calls transitively, each callee before its callers."""
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in order or name in visiting:
            return
        if name not in graph:
            raise CompileError(f"split_functions: @{root} reaches a call to @{name}, which has no definition")
        visiting.add(name)
        for callee in graph[name]:
            visit(callee)
        visiting.discard(name)
        order.append(name)

    visit(root)
    return order


def function_modules(module: Module) -> dict[str, str]:
    """For each defined function, the text of a module holding it and its transitive callees.

    The text depends only on those functions (aliases such as #map are numbered per module),
    so an unchanged function gives a byte-identical file and its downstream tasks stay up to date.
    """
    graph = call_graph(module)
    by_name = {symbol_name(f): f for f in functions(module)}
    constants = {
        symbol_name(op.operation): op.operation
        for op in module.body.operations
        if op.operation.name == "memref.global"
    }
    texts: dict[str, str] = {}
    with Location.unknown(module.context):
        for name, func_op in by_name.items():
            if not func_op.regions[0].blocks:
                continue  # a declaration (hcl_probe) only travels with its callers
            standalone = Module.create()
            members = callees_first(graph, name)
            # the constant globals (hcl.const_tensor) the functions read come first, in module order
            used = set().union(*(_globals_read(by_name[m]) for m in members))
            for symbol, constant in constants.items():
                if symbol in used:
                    constant.clone(ip=InsertionPoint(standalone.body))
            for member in members:
                by_name[member].clone(ip=InsertionPoint(standalone.body))
            texts[name] = str(standalone)
    return texts


def _globals_read(func_op: Operation) -> set[str]:
    found: set[str] = set()

    def visit(op: Operation) -> WalkResult:
        if op.name == "memref.get_global":
            found.add(global_symbol(op))
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return found


@dataclass(frozen=True)
class SplitFunctionsPass:
    """Pass form of `function_modules`."""

    name: ClassVar[str] = "split_functions"

    def run(self, module: Module) -> dict[str, str]:
        """The standalone module text of each function, by function name."""
        return function_modules(module)
