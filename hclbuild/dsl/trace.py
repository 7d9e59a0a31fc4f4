"""The tracing state: which function body is being recorded, and where statements go."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # the recorder is the DSL's lowest module: statements and tensors record into it
    from hclbuild.dsl.stmt import Stmt
    from hclbuild.dsl.tensor import Tensor


@dataclass(eq=False)
class Scope:
    """One function under construction: the algorithm itself, or a def_ function body."""

    name: str
    params: list[Any] = field(default_factory=list)  # Tensor or ScalarParam, in order
    allocs: list[Tensor] = field(default_factory=list)  # tensors created in this function
    body: list[Stmt] = field(default_factory=list)
    stack: list[list[Stmt]] = field(default_factory=list)
    return_depth: int = 0  # > 0 inside a compute body or a def_ body: hcl.return_ is legal

    def __post_init__(self) -> None:
        self.stack.append(self.body)


class Program:
    """Everything one create_schedule traced: the top scope, def_ functions, stage names."""

    def __init__(self, name: str):
        self.name = name
        self.top = Scope(name)
        self.functions: list[Any] = []  # TracedFunction, in the order they were first traced
        self.function_keys: dict[Any, Any] = {}
        self.in_progress: set[Any] = set()
        self.used_names: set[str] = set()
        self.stages: dict[str, Any] = {}  # top-level stage name -> StageStmt
        self.counters: dict[str, int] = {}
        self.duplicates: dict[str, int] = {}  # base name -> next suffix tried by unique_name
        self.dtype_overrides: dict[str, Any] = {}  # tensor name -> DType (a scheme's downsize/quantize)
        self.def_handles: dict[str, Any] = {}  # def_ function name -> its FunctionHandle (kernel.<name>)

    def unique_name(self, base: str) -> str:
        """base if unused, else base_0, base_1, ... (HeteroCL's UniqueName; C identifiers later)."""
        name = base
        k = self.duplicates.get(base, 0)
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.duplicates[base] = k
        self.used_names.add(name)
        return name

    def auto_name(self, kind: str) -> str:
        k = self.counters.get(kind, 0)
        self.counters[kind] = k + 1
        return self.unique_name(f"{kind}_{k}")


_programs: list[Program] = []
_scopes: list[Scope] = []
# The algorithm written at module level (HeteroCL's global AST scope): DSL calls made while no
# create_schedule(..., func) is tracing land here; create_schedule(tensors) with no func takes it,
# and hcl.init() and every create_schedule start a new one.
_module_program: Program | None = None
# the module-level algorithm create_schedule took last, kept as it was written: create_schedule of
# its tensors again (a notebook cell run twice) schedules a fresh copy of it
_taken_program: Program | None = None


def module_program() -> Program:
    """The module-level algorithm being written (made on first use)."""
    global _module_program
    if _module_program is None:
        _module_program = Program("top")
    return _module_program


def take_module_program() -> Program | None:
    """The module-level algorithm written so far (None if nothing was), and start a new one."""
    global _module_program, _taken_program
    program, _module_program = _module_program, None
    if program is not None and program.top.body:
        _taken_program = program
    return program


def retake_module_program() -> Program | None:
    """The module-level algorithm create_schedule took last, if hcl.init() has not dropped it."""
    return _taken_program


def drop_module_program() -> None:
    """hcl.init(): the algorithm written so far, and the one taken last, are forgotten."""
    global _module_program, _taken_program
    _module_program = _taken_program = None


def copy_for_schedule(program: Program) -> Program:
    """A Program to schedule, sharing `program`'s statements and tensors (a schedule never changes
    them) but with its own names and parameters: each create_schedule of one algorithm names its
    top, arguments and buffers afresh."""
    clone = copy.copy(program)
    clone.top = copy.copy(program.top)
    clone.top.params = list(program.top.params)
    clone.used_names = set(program.used_names)
    clone.counters = dict(program.counters)
    clone.duplicates = dict(program.duplicates)
    return clone


def active_program() -> Program:
    return _programs[-1] if _programs else module_program()


def active_scope() -> Scope:
    return _scopes[-1] if _scopes else module_program().top


def tracing() -> bool:
    """True while a function body is traced (create_schedule's func, a def_ body)."""
    return bool(_scopes)


def record(stmt: Stmt) -> None:
    """Append stmt to the statement list being recorded."""
    active_scope().stack[-1].append(stmt)


@contextmanager
def recording_into(stmts: list[Stmt]) -> Iterator[list[Stmt]]:
    scope = active_scope()
    scope.stack.append(stmts)
    try:
        yield stmts
    finally:
        scope.stack.pop()


@contextmanager
def program_scope(program: Program) -> Iterator[Program]:
    _programs.append(program)
    _scopes.append(program.top)
    try:
        yield program
    finally:
        _scopes.pop()
        _programs.pop()


@contextmanager
def function_scope(scope: Scope) -> Iterator[Scope]:
    _scopes.append(scope)
    try:
        yield scope
    finally:
        _scopes.pop()


def at_scope_top() -> bool:
    """True when statements go straight into the function body (a new stage is top-level)."""
    scope = active_scope()
    return len(scope.stack) == 1
