"""`#pragma HLS` lines of the HLS emitter, read from IR attributes (docs/IR.md).

Three places get pragmas: the top of a function body (function_pragmas: interfaces from
interfaces.py, inline off, dataflow, argument partitions), right after a local array's declaration
(buffer_pragmas) and the top of a loop body (loop_pragmas). A new pragma kind (streams) is one more
case in the function for its place.

Pragmas are spelled for the Vitis release the project targets (PragmaSyntax, from project.toml's
`[hls] vitis_version`): UG1399 names the partition type with `type=` from 2022.2 on, and before
that as a bare word (`cyclic factor=2 dim=2`). Every other pragma the emitter writes is spelled
the same in every release from 2020.2.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.emit_hls.c_types import CSignature
from hclbuild.compiler.emit_hls.interfaces import FunctionInterfaces
from hclbuild.errors import CompileError, HCLNotImplementedError

# UG1399 2022.2 "pragma HLS array_partition": `type=<type> factor=<int> dim=<int>`; 2020.2 to 2022.1:
# `<type> factor=<int> dim=<int>`
TYPED_PARTITION_SINCE = (2022, 2)
_RELEASE = re.compile(r"(20\d\d)\.(\d)")


@dataclass(frozen=True)
class PragmaSyntax:
    """How pragmas are spelled for one Vitis release (None: the current one)."""

    release: tuple[int, int] | None = None

    @property
    def typed_partition(self) -> bool:
        """Whether array_partition names its type as `type=<type>` (2022.2 on)."""
        return self.release is None or self.release >= TYPED_PARTITION_SINCE


CURRENT_SYNTAX = PragmaSyntax()


def pragma_syntax(vitis_version: str | None) -> PragmaSyntax:
    """The spelling for a release named like "2022.1" (project.toml's vitis_version); None: current."""
    if vitis_version is None:
        return CURRENT_SYNTAX
    match = _RELEASE.fullmatch(vitis_version)
    if match is None:
        raise CompileError(f"Vitis version {vitis_version!r}: expected YEAR.N such as 2024.2")
    return PragmaSyntax((int(match.group(1)), int(match.group(2))))


def function_pragmas(
    func: ir.Operation,
    signature: CSignature,
    interfaces: FunctionInterfaces | None = None,
    *,
    inline_off: bool = False,
    local: Collection[str] = (),
    unpartitioned: Mapping[str, str] | None = None,
    syntax: PragmaSyntax = CURRENT_SYNTAX,
) -> list[str]:
    """The pragmas opening a function body: interfaces (a file's top only), `inline off`, dataflow,
    then the partitions of each array argument.

    `local` names arguments worked on through a partitioned local copy (local_copies.py): their
    partitions go on the copy. `unpartitioned` maps an argument to the reason it stays one array
    (it is passed to an RTL blackbox): a comment says so instead of the partition pragma.
    """
    pragmas = interfaces.pragmas() if interfaces is not None else []
    if inline_off:
        # keep the function a module of its own: Vitis inlines small functions by default
        pragmas.append("#pragma HLS inline off")
    if attrs.is_dataflow(func):
        pragmas.append("#pragma HLS dataflow")
    where = f"@{signature.name}"
    for arg, partitions in zip(signature.args, arg_partitions(func, len(signature.args), where)):
        if arg.name in local or not partitions:
            continue
        if unpartitioned and arg.name in unpartitioned:
            pragmas.append(f"// {arg.name} is not partitioned here: {unpartitioned[arg.name]}")
            continue
        pragmas += partition_pragmas(arg.name, partitions, len(arg.shape), f"{where}: {arg.name}", syntax)
    return pragmas


def buffer_pragmas(
    op: ir.Operation, name: str, rank: int, where: str, syntax: PragmaSyntax = CURRENT_SYNTAX
) -> list[str]:
    """The pragmas following the declaration of local array `name`: its hcl.partition entries, then
    the RAM it is bound to (hcl.storage_type)."""
    pragmas = partition_pragmas(name, attrs.buffer_partitions(op, where), rank, where, syntax)
    storage = attrs.storage_type(op)
    if storage is not None:
        pragmas.append(f"#pragma HLS bind_storage variable={name} type={storage}")
    return pragmas


def stream_pragmas(name: str, depth: int) -> list[str]:
    """The pragma following the declaration of a local hls::stream: its FIFO depth."""
    return [f"#pragma HLS stream variable={name} depth={depth}"]


def loop_pragmas(op: ir.Operation, where: str) -> list[str]:
    """The pragmas opening a loop body: pipeline, unroll, dataflow, loop_tripcount.

    `parallel` is refused (HCLNotImplementedError naming `where`): Vitis HLS has no parallel pragma,
    and guessing one (a full unroll replicates the body as many times as the loop runs) would change
    the hardware silently; HeteroCL's own emitter drops it without a word (docs/schedule.md).
    """
    directives = attrs.loop_directives(op)
    if directives.parallel:
        loop = attrs.loop_name(op) or "?"
        raise HCLNotImplementedError(
            f"{where}: parallel({loop}) has no Vitis HLS pragma; use unroll({loop}) to replicate the "
            f"loop body, or pipeline({loop}) to overlap its iterations"
        )
    pragmas = []
    if directives.pipeline_ii is not None:
        pragmas.append(f"#pragma HLS pipeline II={directives.pipeline_ii}")
    if directives.unroll is not None:
        factor = directives.unroll
        pragmas.append("#pragma HLS unroll" if factor == 0 else f"#pragma HLS unroll factor={factor}")
    if directives.dataflow:
        pragmas.append("#pragma HLS dataflow")
    trips = attrs.max_trip(op)
    if trips is not None:  # a runtime trip count: tells csynth its bound (docs/IR.md)
        pragmas.append(f"#pragma HLS loop_tripcount max={trips}")
    return pragmas


def arg_partitions(func: ir.Operation, count: int, where: str) -> list[list[ArrayPartition]]:
    per_arg = attrs.arg_partitions(func, where)
    if per_arg is None:
        return [[] for _ in range(count)]
    if len(per_arg) != count:
        raise CompileError(
            f"{where}: {attrs.ARG_PARTITIONS} has {len(per_arg)} entries for {count} arguments"
        )
    return per_arg


def partition_pragmas(
    name: str,
    partitions: Sequence[ArrayPartition],
    rank: int,
    where: str,
    syntax: PragmaSyntax = CURRENT_SYNTAX,
) -> list[str]:
    """`#pragma HLS array_partition` lines (dim 0 = all dimensions), in UG1399's order of options."""
    pragmas = []
    for partition in partitions:
        text = attrs.format_partition(partition)
        if partition.dim > rank:
            raise CompileError(
                f"{where}: partition '{text}' names dimension {partition.dim} of a rank-{rank} array"
            )
        if partition.kind != "complete" and partition.factor < 1:
            raise CompileError(f"{where}: partition '{text}' needs a factor >= 1")
        kind = f"type={partition.kind}" if syntax.typed_partition else partition.kind
        factor = "" if partition.kind == "complete" else f" factor={partition.factor}"
        pragmas.append(f"#pragma HLS array_partition variable={name} {kind}{factor} dim={partition.dim}")
    return pragmas
