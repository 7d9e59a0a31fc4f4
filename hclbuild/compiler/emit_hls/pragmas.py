"""`#pragma HLS` lines of the HLS emitter, read from IR attributes (docs/IR.md).

Three places get pragmas: the top of a function body (function_pragmas: interfaces from
interfaces.py, inline off, dataflow, argument partitions), right after a local array's declaration
(buffer_pragmas) and the top of a loop body (loop_pragmas). A new pragma kind (streams) is one more
case in the function for its place.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from mlir import ir

from hclbuild.compiler.emit_hls.c_types import CSignature
from hclbuild.compiler.emit_hls.interfaces import FunctionInterfaces
from hclbuild.errors import CompileError

_PARTITION_TYPES = ("complete", "block", "cyclic")


def function_pragmas(
    func: ir.Operation,
    signature: CSignature,
    interfaces: FunctionInterfaces | None = None,
    *,
    inline_off: bool = False,
    local: Collection[str] = (),
    unpartitioned: Mapping[str, str] | None = None,
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
    if "dataflow" in func.attributes:
        pragmas.append("#pragma HLS dataflow")
    where = f"@{signature.name}"
    for arg, partitions in zip(signature.args, arg_partitions(func, len(signature.args), where)):
        if arg.name in local or not partitions:
            continue
        if unpartitioned and arg.name in unpartitioned:
            pragmas.append(f"// {arg.name} is not partitioned here: {unpartitioned[arg.name]}")
            continue
        pragmas += partition_pragmas(arg.name, partitions, len(arg.shape), f"{where}: {arg.name}")
    return pragmas


def buffer_pragmas(attributes: ir.OpAttributeMap, name: str, rank: int, where: str) -> list[str]:
    """The pragmas following the declaration of local array `name`: its hcl.partition entries."""
    partitions = (
        [ir.StringAttr(s).value for s in ir.ArrayAttr(attributes["hcl.partition"])]
        if "hcl.partition" in attributes
        else []
    )
    return partition_pragmas(name, partitions, rank, where)


def stream_pragmas(name: str, depth: int) -> list[str]:
    """The pragma following the declaration of a local hls::stream: its FIFO depth."""
    return [f"#pragma HLS stream variable={name} depth={depth}"]


def loop_pragmas(op: ir.Operation) -> list[str]:
    """The pragmas opening a loop body: pipeline, unroll, dataflow."""
    attributes = op.attributes
    pragmas = []
    if "pipeline_ii" in attributes:
        pragmas.append(f"#pragma HLS pipeline II={ir.IntegerAttr(attributes['pipeline_ii']).value}")
    if "unroll" in attributes:
        factor = ir.IntegerAttr(attributes["unroll"]).value
        pragmas.append("#pragma HLS unroll" if factor == 0 else f"#pragma HLS unroll factor={factor}")
    if "dataflow" in attributes:
        pragmas.append("#pragma HLS dataflow")
    if "hcl.max_trip" in attributes:  # a runtime trip count: tells csynth its bound (docs/IR.md)
        pragmas.append(f"#pragma HLS loop_tripcount max={ir.IntegerAttr(attributes['hcl.max_trip']).value}")
    return pragmas


def arg_partitions(func: ir.Operation, count: int, where: str) -> list[list[str]]:
    attributes = func.attributes
    if "hcl.arg_partitions" not in attributes:
        return [[] for _ in range(count)]
    per_arg = [
        [ir.StringAttr(s).value for s in ir.ArrayAttr(a)]
        for a in ir.ArrayAttr(attributes["hcl.arg_partitions"])
    ]
    if len(per_arg) != count:
        raise CompileError(f"{where}: hcl.arg_partitions has {len(per_arg)} entries for {count} arguments")
    return per_arg


def partition_pragmas(name: str, partitions: list[str], rank: int, where: str) -> list[str]:
    """`#pragma HLS array_partition` lines from "<type>:<dim>:<factor>" strings (dim 0 = all)."""
    pragmas = []
    for text in partitions:
        parts = text.split(":")
        if (
            len(parts) != 3
            or parts[0] not in _PARTITION_TYPES
            or not parts[1].isdigit()
            or not parts[2].isdigit()
        ):
            raise CompileError(
                f"{where}: malformed partition '{text}' (expected '<complete|block|cyclic>:<dim>:<factor>')"
            )
        kind, dim, factor = parts[0], int(parts[1]), int(parts[2])
        if dim > rank:
            raise CompileError(f"{where}: partition '{text}' names dimension {dim} of a rank-{rank} array")
        if kind == "complete":
            pragmas.append(f"#pragma HLS array_partition variable={name} complete dim={dim}")
        elif factor < 1:
            raise CompileError(f"{where}: partition '{text}' needs a factor >= 1")
        else:
            pragmas.append(f"#pragma HLS array_partition variable={name} {kind} dim={dim} factor={factor}")
    return pragmas
