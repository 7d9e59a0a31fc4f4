"""What s.outline and s[stage].outline record, and the StageFunction handle they return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class OutlineRequest:
    groups: list[Any]  # each: ("set", [stage names]) or ("range", start, end)
    unify: bool


@dataclass(frozen=True)
class AxisOutline:
    """s[stage].outline(axis=...): the body below loop `axis` becomes a function.

    `unify` is False, True (share any earlier outlined function that fits) or a function's name.
    """

    stage: str
    axis: str
    unify: bool | str = False


@dataclass
class StageFunction:
    """What s.outline returns: the name of the function a group becomes."""

    name: str
    stages: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"StageFunction({self.name!r})"
