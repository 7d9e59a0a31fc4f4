"""Memory customizations and streams as schedule records: reuse_at, buffer_at, compute_at, s.to.

Pure data, no MLIR. Each primitive is checked against the traced program when it is called (a
tensor the stage does not read, a stage that does not consume the producer: APIError naming the
stage and the tensor) and recorded; the compiler applies the records in call order, after the
loop nests are built and before outlining (hclbuild.compiler.passes.reuse_at and friends).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from hclbuild.dsl import compound
from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType
from hclbuild.errors import APIError


class BufferTensor(Tensor):
    """The tensor a reuse_at or buffer_at returns: a local buffer the compiler creates.

    Its shape follows from the stage's accesses and is known once the schedule is lowered
    (`shape` is None before); it can be partitioned (s.partition) and be the target of a further
    reuse_at (a line buffer's window buffer), not indexed in the algorithm.
    """

    def __init__(self, name: str, dtype: DType, kind: str, stage: str, source: Tensor):
        # no shape until the schedule is lowered (above); Tensor's shape is a tuple everywhere else
        super().__init__(name, None, dtype, kind)  # type: ignore[arg-type]
        self.owner_stage = stage  # the stage whose accesses the buffer serves
        self.source = source  # the tensor it buffers (itself a BufferTensor for a window buffer)

    @property
    def ndim(self) -> int:
        if self.shape is None:
            raise APIError(
                f"buffer {self.name!r}: its shape is known only after hcl.lower(s) or hcl.build(s)"
            )
        return len(self.shape)

    def __getitem__(self, key: object) -> Any:
        raise APIError(
            f"{self.name!r} is a {self.kind} buffer made by the schedule; the algorithm cannot index it"
        )

    def __setitem__(self, key: object, value: object) -> None:
        raise APIError(
            f"{self.name!r} is a {self.kind} buffer made by the schedule; the algorithm cannot index it"
        )

    def __repr__(self) -> str:
        return f"BufferTensor({self.name!r}, {self.kind}, shape={self.shape})"


@dataclass(frozen=True)
class ReuseAt:
    """s.reuse_at(target, stage, axis): `buffer` holds the part of `target` that loop `axis` reuses."""

    target: Tensor
    stage: str
    axis: str
    buffer: BufferTensor


@dataclass(frozen=True)
class BufferAt:
    """s.buffer_at(target, stage, axis): `buffer` holds the slice of `target` one `axis` iteration uses."""

    target: Tensor
    stage: str
    axis: str
    buffer: BufferTensor


@dataclass(frozen=True)
class ComputeAt:
    """s[producer].compute_at(s[consumer], axis): the producer's nest moves into `axis` of the consumer."""

    producer: str
    consumer: str
    axis: str
    tensor: Tensor  # what the producer writes and the consumer reads


@dataclass(frozen=True)
class StreamTo:
    """s.to(tensor, s[dst], depth=N): `tensor` is a FIFO from stage `src` to stage `dst`."""

    tensor: Tensor
    src: str
    dst: str
    depth: int


MemoryRecord = ReuseAt | BufferAt | ComputeAt | StreamTo


# ---- what a stage reads and writes (the traced program, not the IR) ---------------------------


def _visit(node: Any, found: dict[str, set[int]]) -> None:
    if isinstance(node, (list, tuple)):
        for item in node:
            _visit(item, found)
        return
    if isinstance(node, E.Load):
        found["read"].add(id(node.tensor))
    elif isinstance(node, (S.Store, S.StoreBits)):
        found["write"].add(id(node.tensor))
    elif isinstance(node, (compound.Call, S.CallStmt)):
        for arg in node.args:
            if isinstance(arg, Tensor):  # a def_ function may read and write its tensor arguments
                found["read"].add(id(arg))
                found["write"].add(id(arg))
            else:
                _visit(arg, found)
        return  # the callee's body is its own function
    if not is_dataclass(node) or isinstance(node, (Tensor, type)):
        return
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (list, tuple)) or (
            is_dataclass(value) and not isinstance(value, (Tensor, type))
        ):
            _visit(value, found)


def tensor_uses(stage: S.StageStmt) -> dict[str, set[int]]:
    """{"read": ids of tensors the stage reads, "write": ids it writes} (def_ arguments count as both)."""
    found: dict[str, set[int]] = {"read": set(), "write": set()}
    _visit(stage.body, found)
    return found


def reads(stage: S.StageStmt, tensor: Tensor) -> bool:
    return id(tensor) in tensor_uses(stage)["read"]


def writes(stage: S.StageStmt, tensor: Tensor) -> bool:
    return id(tensor) in tensor_uses(stage)["write"]
