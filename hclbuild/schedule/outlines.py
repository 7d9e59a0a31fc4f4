"""What s.outline and s[stage].outline record, and the StageFunction handle they return."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StageSet:
    """A group of s.outline: these stages become one function."""

    stages: tuple[str, ...]


@dataclass(frozen=True)
class StageRange:
    """s.outline(start, end): the two stages and every stage on a dataflow path between them."""

    start: str
    end: str

    @property
    def stages(self) -> tuple[str, ...]:
        """The two stages named (the ones between are known once the program is analysed)."""
        return (self.start, self.end)


OutlineGroup = StageSet | StageRange


@dataclass
class OutlineRequest:
    groups: list[OutlineGroup]
    unify: bool
    names: list[str] = field(default_factory=list)  # each group's function (function_names)


@dataclass(frozen=True)
class AxisOutline:
    """s[stage].outline(axis=...): the body below loop `axis` becomes a function.

    `unify` is False, True (share any earlier outlined function that fits) or a function's name.
    """

    stage: str
    axis: str
    unify: bool | str = False
    function: str = ""  # the function it makes (when unify does not name one to join)


@dataclass
class StageFunction:
    """What s.outline returns: the name of the function a group becomes."""

    name: str
    stages: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"StageFunction({self.name!r})"
