"""Names of outlined functions, given when s.outline() is called and used unchanged by compile,
planning, task names, [interface.<func>.<arg>] tables and CI matrices.

`s.outline(..., name="fc1")` names a function: a C identifier that no C++ keyword, the design's
top, a def_ function or another outlined function already is. Without a name, a group of stages
is `Stage_<stage>_<stage>...` made a C identifier (stage names may be any printable string), with
`_1`, `_2`, ... when that is taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hclbuild.c_names import CPP_RESERVED, is_c_identifier, sanitize, unique
from hclbuild.errors import APIError


def default_function_name(stages: Sequence[str]) -> str:
    """`Stage_<a>_<b>` of the stages a group names (a range: its start and end), as a C identifier."""
    return sanitize("Stage_" + "_".join(stages))


class FunctionNames:
    """The function names of one schedule: its top, its def_ functions and each outlined group's."""

    def __init__(self, top: str, def_functions: Iterable[str]) -> None:
        self._top = top
        self._def_functions = set(def_functions)
        self._owners: dict[str, str] = {}  # outlined function -> the stages it was named for

    def propose(self, requested: object, stages: Sequence[str], pending: Sequence[str] = ()) -> str:
        """The name a group of `stages` gets (`requested`, or the default when it is None), beside
        the names `pending` that the same s.outline() call proposed; nothing is claimed yet."""
        if requested is None:
            return unique(default_function_name(stages), lambda name: self._taken(name) or name in pending)
        if not is_c_identifier(requested):
            raise APIError(
                f"outline: name {requested!r} must be a C identifier (letters, digits and '_', not first a "
                "digit): it names the C++ function, its folder and its doit tasks"
            )
        name = str(requested)
        if name in CPP_RESERVED:
            raise APIError(f"outline: name {name!r} is a C++ keyword or a name the generated code uses")
        if name == self._top:
            raise APIError(f"outline: name {name!r} is already the design's top function")
        if name in self._def_functions:
            raise APIError(f"outline: name {name!r} is already a def_ function")
        if name in self._owners:
            raise APIError(f"outline: name {name!r} is already the function of stage(s) {self._owners[name]}")
        if name in pending:
            raise APIError(f"outline: name {name!r} is given to two groups")
        return name

    def claim(self, name: str, stages: Sequence[str]) -> None:
        """Record that `name` is the function of `stages` (after the outline was recorded)."""
        self._owners[name] = ", ".join(stages)

    def _taken(self, name: str) -> bool:
        return name == self._top or name in self._def_functions or name in self._owners


def requested_names(name: object, groups: int) -> list[object]:
    """outline's name= as one entry per group: a string (or None) for one group, a list for several."""
    if groups == 1 and not isinstance(name, (list, tuple)):
        return [name]
    if name is None:
        return [None] * groups
    if not isinstance(name, (list, tuple)) or len(name) != groups:
        raise APIError(f"outline: {groups} groups need a list of {groups} names, got {name!r}")
    return list(name)


__all__ = ["FunctionNames", "default_function_name", "requested_names"]
