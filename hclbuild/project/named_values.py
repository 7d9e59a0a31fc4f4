"""A read-only mapping whose entries are also attributes: what kernel.py's functions receive as
`sizes` (project.toml [sizes]) and `knobs` (the chosen design point), `sizes.N` or `sizes["N"]`.

A name that is not there is the project's mistake, so it is a ConfigError saying where the names
come from (each subclass words it), never an AttributeError or a silent default.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from hclbuild.errors import ConfigError

Value = TypeVar("Value")


class NamedValues(Mapping[str, Value]):
    def __init__(self, values: Mapping[str, Value]) -> None:
        self._values = dict(values)

    def _missing(self, key: str, known: str) -> ConfigError:
        """The error for a name that is not there; `known` lists the names that are ("none")."""
        raise NotImplementedError

    def __getitem__(self, key: str) -> Value:
        try:
            return self._values[key]
        except KeyError:
            raise self._missing(key, ", ".join(self._values) or "none") from None

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):  # pickling and copying look up dunders before __init__ ran
            raise AttributeError(key)
        return self[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


__all__ = ["NamedValues"]
