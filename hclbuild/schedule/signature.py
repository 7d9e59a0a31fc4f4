"""The signatures of a design's functions (its top and what it outlines) in DSL types, as the compiler
reads them from the IR and the runtime, testbenches and golden files use them (no MLIR here)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import APIError


@dataclass(frozen=True)
class ArgSpec:
    """One function argument: a memref of `shape` (-1 = dynamic) or a scalar (shape ()).

    `stream` is "read" or "write" for a memref the function takes as an hls::stream (the
    sequence of its elements, in FIFO order), "" otherwise.
    """

    name: str
    dtype: DType
    shape: tuple[int, ...]
    stream: str = ""

    def __post_init__(self) -> None:
        # callers pass lists from JSON or MLIR; a tuple keeps the spec hashable and comparable
        object.__setattr__(self, "shape", tuple(int(dim) for dim in self.shape))

    @property
    def is_scalar(self) -> bool:
        return self.shape == ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: {"name", "dtype" (dtype name), "shape" (list)}, plus "stream" when set."""
        data: dict[str, Any] = {"name": self.name, "dtype": self.dtype.name, "shape": list(self.shape)}
        if self.stream:
            data["stream"] = self.stream
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> ArgSpec:
        """Read what to_json wrote (the dict or its JSON text)."""
        fields: dict[str, Any] = json.loads(data) if isinstance(data, str) else data
        try:
            return cls(
                str(fields["name"]),
                parse_dtype(fields["dtype"]),
                tuple(fields["shape"]),
                str(fields.get("stream", "")),
            )
        except (KeyError, TypeError) as err:
            raise APIError(f"ArgSpec.from_json: malformed argument spec {data!r} ({err})") from None


@dataclass(frozen=True)
class FunctionSignature:
    """A callable function: its symbol name, its arguments in order and its scalar result (or None)."""

    name: str
    args: list[ArgSpec]
    ret: DType | None = None

    @property
    def arg_names(self) -> list[str]:
        return [arg.name for arg in self.args]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: {"name", "args" (list of ArgSpec dicts), "ret" (dtype name or null)}."""
        return {
            "name": self.name,
            "args": [arg.to_json() for arg in self.args],
            "ret": self.ret.name if self.ret is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> FunctionSignature:
        """Read what to_json wrote (the dict or its JSON text)."""
        fields: dict[str, Any] = json.loads(data) if isinstance(data, str) else data
        try:
            ret = fields.get("ret")
            return cls(
                str(fields["name"]),
                [ArgSpec.from_json(arg) for arg in fields["args"]],
                parse_dtype(ret) if ret is not None else None,
            )
        except (KeyError, TypeError, AttributeError) as err:
            raise APIError(f"FunctionSignature.from_json: malformed signature {data!r} ({err})") from None
