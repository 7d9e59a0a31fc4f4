"""Check a module before any backend runs: MLIR verification, call targets and outlined stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir.ir import MLIRError, Module, Operation, WalkOrder, WalkResult

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.outline import callee_name, functions, symbol_name
from hclbuild.errors import CompileError


def verify_module(module: Module) -> None:
    """Raise CompileError (one line naming the function) unless the module is well formed.

    Checks that every `func.call` names a `func.func` of the module with the same signature,
    that the module passes MLIR's verifier, and that no function other than the outlined one
    still holds a stage named in some `hcl.stages`.
    """
    defined = {symbol_name(f): f for f in functions(module)}
    # our call checks run before MLIR's verifier, which would report a missing callee less clearly
    for caller in functions(module):
        for call in _calls(caller):
            _check_call(symbol_name(caller), call, defined)
    try:
        module.operation.verify()
    except MLIRError as err:
        raise CompileError(f"verify: {_diagnostic(err)}") from None
    _check_stages_gone(functions(module))


def _calls(func_op: Operation) -> list[Operation]:
    found: list[Operation] = []

    def visit(op: Operation) -> WalkResult:
        if op.name == "func.call":
            found.append(op)
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return found


def _check_call(caller: str, call: Operation, defined: dict[str, Operation]) -> None:
    callee = callee_name(call)
    if callee not in defined:
        raise CompileError(f"verify: call from @{caller} to @{callee}: no definition")
    expected = upstream.function_type(defined[callee])
    got_inputs = [str(v.type) for v in call.operands]
    got_results = [str(r.type) for r in call.results]
    want_inputs = [str(t) for t in expected.inputs]
    want_results = [str(t) for t in expected.results]
    if got_inputs != want_inputs or got_results != want_results:
        raise CompileError(
            f"verify: signature mismatch: call from @{caller} to @{callee} passes "
            f"({', '.join(got_inputs)}) -> ({', '.join(got_results)}), @{callee} takes "
            f"({', '.join(want_inputs)}) -> ({', '.join(want_results)})"
        )


def _check_stages_gone(functions_: list[Operation]) -> None:
    """A stage moved into an outlined function must not remain in any other function."""
    holder: dict[str, str] = {}
    for func_op in functions_:
        for stage in attrs.outlined_stages(func_op) or []:
            holder.setdefault(stage, symbol_name(func_op))
    if not holder:
        return
    for func_op in functions_:
        name = symbol_name(func_op)
        for stage in _op_names(func_op):
            if holder.get(stage, name) != name:
                raise CompileError(
                    f"verify: stage '{stage}' was outlined into @{holder[stage]} but is still in @{name}"
                )


def _op_names(func_op: Operation) -> list[str]:
    found: list[str] = []

    def visit(op: Operation) -> WalkResult:
        stage = attrs.stage_name(op)
        if stage is not None:
            found.append(stage)
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return found


def _diagnostic(err: MLIRError) -> str:
    """The first MLIR error diagnostic as one line: location and message."""
    diagnostics = getattr(err, "error_diagnostics", None) or []
    if diagnostics:
        first = diagnostics[0]
        return f"{first.location}: {first.message}".replace("\n", " ")
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[-1] if lines else type(err).__name__


@dataclass(frozen=True)
class VerifyPass:
    """Pass form of `verify_module`."""

    name: ClassVar[str] = "verify"

    def run(self, module: Module) -> None:
        """Verify `module`; CompileError if it is not well formed."""
        verify_module(module)
