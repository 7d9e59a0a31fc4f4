"""Schedule knobs: the values `schedule(sizes, knobs)` receives, and the space an exploration covers.

A project declares its knobs in project.toml or in kernel.py, not both:

    [explore]                       # each knob and the values an exploration tries
    unroll_k = [1, 2, 4, 8]
    ii = [1, 2]
    [knobs]                         # the values a normal build uses (default: each list's first)
    unroll_k = 4

or `def space(sizes)` in kernel.py returning the same mapping (for values computed from sizes).
Knob names are C identifiers; values are integers, numbers, booleans or short names (letters,
digits, `_ . + -`), one type a knob, each once in its list. A point of the space is named by its
key, `unroll_k-4,ii-1` in declaration order: the explore task of that point, `explore:<p>@<key>`,
and its file build/<p>/explore/points/<key>.json.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Mapping

from hclbuild.errors import ConfigError
from hclbuild.project.named_values import NamedValues

KnobValue = int | float | bool | str
KnobSpace = dict[str, tuple[KnobValue, ...]]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# a value is spelled into task names and file names (the point's key)
_NAME_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_TYPE_NAMES = {bool: "boolean", int: "integer", float: "float", str: "string"}


class KnobError(Exception):
    """A knob declaration is invalid: `key` names the knob, the message says why (no file or line)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(reason)
        self.key = key


def _spelled(value: object) -> str:
    """A value as TOML spells it: "text", true, 1.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _type_name(value: object) -> str:
    return _TYPE_NAMES.get(type(value), "array" if isinstance(value, list) else type(value).__name__)


def check_value(name: str, value: object) -> KnobValue:
    """One knob value as the space holds it; KnobError when it cannot be one."""
    if isinstance(value, float) and not math.isfinite(value):
        raise KnobError(name, f"values must be finite, got {value!r}")
    if isinstance(value, str) and not _NAME_VALUE.match(value):
        raise KnobError(
            name, f"string values must be names (letters, digits, _ . + -), got {_spelled(value)}"
        )
    if not isinstance(value, (bool, int, float, str)):
        raise KnobError(name, f"values must be integers, numbers, booleans or names, got {_type_name(value)}")
    return value


def check_space(table: Mapping[str, object]) -> KnobSpace:
    """[explore] (or what kernel.py's space() returned) as a space: name -> its values."""
    space: KnobSpace = {}
    for name, values in table.items():
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise KnobError(str(name), f"knob names must be C identifiers, got {name!r}")
        if not isinstance(values, (list, tuple)) or not values:
            raise KnobError(name, f"must be a non-empty list of values, got {_spelled(values)}")
        checked = tuple(check_value(name, value) for value in values)
        kinds = {type(value) for value in checked}
        if len(kinds) > 1 and kinds != {int, float}:
            raise KnobError(name, f"values must all be of one type, got {', '.join(map(_spelled, checked))}")
        for index, value in enumerate(checked):
            if _listed(value, checked[:index]):
                raise KnobError(name, f"lists {_spelled(value)} twice")
        space[name] = checked
    return space


def check_chosen(chosen: Mapping[str, object], space: KnobSpace | None) -> dict[str, KnobValue]:
    """[knobs]: each a value of its knob's list when the space is known here (else checked once
    kernel.py's space() is, see resolve_knobs)."""
    values: dict[str, KnobValue] = {}
    for name, value in chosen.items():
        values[name] = check_value(name, value)
        if space is None:
            continue
        if name not in space:
            known = ", ".join(space) or "none"
            raise KnobError(name, f"is no knob of [explore] (knobs: {known})")
        if not _listed(values[name], space[name]):
            raise KnobError(
                name,
                f"= {_spelled(value)} is not one of [explore] {name} = [{', '.join(map(_spelled, space[name]))}]",
            )
    return values


def _listed(value: KnobValue, values: tuple[KnobValue, ...]) -> bool:
    # 1 and true are different knob values, though Python's 1 == True
    return any((type(value) is type(v) and value == v) or _numbers(value, v) for v in values)


def _numbers(a: KnobValue, b: KnobValue) -> bool:
    return not isinstance(a, (bool, str)) and not isinstance(b, (bool, str)) and float(a) == float(b)


def resolve_knobs(space: KnobSpace, chosen: Mapping[str, KnobValue], where: str) -> dict[str, KnobValue]:
    """The values a build uses: [knobs], then each other knob's first value; `where` names the
    declaration in errors ("project.toml [knobs]", "kernel.py space()")."""
    try:
        values = check_chosen(chosen, space)
    except KnobError as exc:
        raise ConfigError(f"{where}: knobs.{exc.key} {exc}") from None
    return {name: values.get(name, options[0]) for name, options in space.items()}


def point_key(values: Mapping[str, KnobValue]) -> str:
    """`unroll_k-4,ii-1`: the name of a point (its task and its file), knobs in declaration order."""
    return ",".join(f"{name}-{_key_text(value)}" for name, value in values.items())


def _key_text(value: KnobValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def space_size(space: KnobSpace) -> int:
    """How many points the space holds."""
    return math.prod(len(values) for values in space.values())


def all_points(space: KnobSpace) -> Iterator[dict[str, KnobValue]]:
    """Every point of the space, the first knob varying slowest."""
    names = list(space)
    for combination in itertools.product(*space.values()):
        yield dict(zip(names, combination))


def toml_value(value: KnobValue) -> str:
    """A knob value spelled in TOML (for [knobs] that --apply writes)."""
    return _spelled(value)


class Knobs(NamedValues[KnobValue]):
    """The knob values schedule() receives as its keyword argument `knobs`: `knobs.unroll_k` or
    `knobs["unroll_k"]`. A knob the project does not declare is a ConfigError naming it."""

    def _missing(self, key: str, known: str) -> ConfigError:
        return ConfigError(
            f"no knob {key!r} is declared ([explore] in project.toml or kernel.py space(); knobs: {known})"
        )

    def __repr__(self) -> str:
        return f"Knobs({self._values!r})"
