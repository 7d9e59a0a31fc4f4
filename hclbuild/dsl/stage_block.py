"""`with hcl.Stage("name"):` HeteroCL's older way to make imperative code a named stage."""

from __future__ import annotations

from typing import Any

from hclbuild.dsl.stmt import StageStmt
from hclbuild.dsl.tensor import check_name
from hclbuild.dsl.trace import active_program, active_scope, at_scope_top, record, recording_into


class StageBlock:
    """What hcl.Stage(name) is inside an algorithm: the statements of the with-block become one
    imperative stage (schedulable as s[kernel.name], its for_ loops as stage.axis / stage.<loop>)."""

    def __init__(self, name: str | None = None, *_: Any, **__: Any):
        if name is not None:
            check_name(name, "hcl.Stage")
        self.requested = name
        self.stmt: StageStmt | None = None
        self._recording: Any = None

    def __enter__(self) -> StageBlock:
        program = active_program()
        name = program.unique_name(self.requested) if self.requested else program.auto_name("stage")
        self.stmt = StageStmt(name, "imperative", [])
        record(self.stmt)
        if at_scope_top() and active_scope() is program.top:
            program.stages[name] = self.stmt
        self._recording = recording_into(self.stmt.body)
        self._recording.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._recording.__exit__(*exc)

    @property
    def name(self) -> str:
        return self.stmt.name if self.stmt is not None else (self.requested or "")
