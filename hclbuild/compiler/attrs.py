"""The IR contract's attributes: the one place that names them, reads them and writes them.

Every attribute hclbuild puts on an op is `hcl.`-prefixed and listed in ATTRIBUTES (docs/IR.md's
attribute table is generated from that list and a test keeps the two equal). Passes, the builder,
the emitter, to_llvm and the estimator read and write attributes only through the functions here,
as typed values and small records (ArrayPartition, LoopDirectives, StreamPort, AxisSite); a test
fails if any other hclbuild module touches `.attributes`. The attributes MLIR's own ops carry
(sym_name, callee, function_type, loop bounds...) are read here too, at the end of the module, so
no other module spells an attribute name at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from mlir import ir

from hclbuild.errors import CompileError

# ArrayPartition and LoopDirectives are this module's records too (the docstring): re-exported
from hclbuild.schedule.directives import PARTITION_KINDS
from hclbuild.schedule.directives import ArrayPartition as ArrayPartition
from hclbuild.schedule.directives import LoopDirectives as LoopDirectives

PREFIX = "hcl."

# ---- the names (docs/IR.md) -----------------------------------------------------------------------
# functions
TOP = "hcl.top"
OUTLINED = "hcl.outlined"
DEF = "hcl.def"
STAGES = "hcl.stages"
OUTLINE_AXIS = "hcl.outline_axis"
ARG_NAMES = "hcl.arg_names"
ARG_TYPES = "hcl.arg_types"
RET_TYPE = "hcl.ret_type"
ARG_PARTITIONS = "hcl.arg_partitions"
ARG_STREAMS = "hcl.arg_streams"
SCALAR_ARGS = "hcl.scalar_args"
PRINT_FORMAT = "hcl.print"
# loops and stages
STAGE_NAME = "hcl.op_name"
NESTED_STAGE = "hcl.nested_stage"
LOOP_NAME = "hcl.loop_name"
PIPELINE_II = "hcl.pipeline_ii"
UNROLL = "hcl.unroll"
PARALLEL = "hcl.parallel"
DATAFLOW = "hcl.dataflow"
MAX_TRIP = "hcl.max_trip"
REUSE_FILL = "hcl.reuse_fill"
# buffers
NAME = "hcl.name"
DTYPE = "hcl.dtype"
PARTITION = "hcl.partition"
STORAGE_TYPE = "hcl.storage_type"
STREAM = "hcl.stream"
ZERO_INIT = "hcl.zero_init"
# values
FIXED = "hcl.fixed"


@dataclass(frozen=True)
class AttributeSpec:
    """One attribute of the contract: its name, the ops that carry it, its value, what it means."""

    name: str
    holders: str
    value: str
    meaning: str


ATTRIBUTES: tuple[AttributeSpec, ...] = (
    AttributeSpec(TOP, "func.func", "unit", "the design's public top function"),
    AttributeSpec(OUTLINED, "func.func", "unit", "a function the outline passes made"),
    AttributeSpec(DEF, "func.func", "unit", "a `@def_` function"),
    AttributeSpec(
        STAGES, "func.func, func.call", "array of string", "the stages an outlined function / call holds"
    ),
    AttributeSpec(
        OUTLINE_AXIS, "func.func", "{stage, loop}", "the loop whose body `outline(stage, axis=loop)` outlined"
    ),
    AttributeSpec(ARG_NAMES, "func.func", "array of string", "a C identifier per argument"),
    AttributeSpec(ARG_TYPES, "func.func", "array of string", "the DSL dtype name of each argument's element"),
    AttributeSpec(RET_TYPE, "func.func", "string", "the DSL dtype name of the returned scalar"),
    AttributeSpec(
        ARG_PARTITIONS, "func.func", "array of array of partition", "the partitions of each argument"
    ),
    AttributeSpec(
        ARG_STREAMS, "func.func", 'array of string: "" or stream port', "the arguments taken as hls::stream"
    ),
    AttributeSpec(
        SCALAR_ARGS, "func.func", "array of string", "the one-element arguments passed to C by value"
    ),
    AttributeSpec(PRINT_FORMAT, "func.func (declaration)", "string", "the printf format of an hcl.print"),
    AttributeSpec(
        STAGE_NAME, "stage root (affine.for, func.call)", "string", "the stage a top-level op is the root of"
    ),
    AttributeSpec(NESTED_STAGE, "affine.for", "string", "the root of a stage nested in another stage's body"),
    AttributeSpec(LOOP_NAME, "affine.for, scf.for, scf.while", "string", "the loop's name (its C label)"),
    AttributeSpec(PIPELINE_II, "loop", "i32", "`#pragma HLS pipeline II=n`"),
    AttributeSpec(UNROLL, "loop", "i32", "`#pragma HLS unroll` (0) or `unroll factor=n`"),
    AttributeSpec(PARALLEL, "loop", "unit", "`s[S].parallel(loop)`; the HLS emitter refuses it"),
    AttributeSpec(DATAFLOW, "func.func, loop", "unit", "`#pragma HLS dataflow`"),
    AttributeSpec(MAX_TRIP, "scf.for", "i32", "`#pragma HLS loop_tripcount max=n` of a runtime trip count"),
    AttributeSpec(
        REUSE_FILL, "affine.for", "i64", "reuse_at's mark of a buffer-fill loop (never leaves the compiler)"
    ),
    AttributeSpec(NAME, "memref.alloc, memref.get_global", "string", "the tensor's name"),
    AttributeSpec(DTYPE, "memref.alloc, memref.get_global", "string", "the DSL dtype name of the elements"),
    AttributeSpec(
        FIXED,
        "arith ops",
        "string",
        "the fixed-point dtype whose raw bits the integer result is (the HLS emitter writes ap_fixed from it)",
    ),
    AttributeSpec(
        PARTITION, "memref.alloc, memref.get_global", "array of partition", "the buffer's partitions"
    ),
    AttributeSpec(
        STORAGE_TYPE,
        "memref.alloc",
        "string",
        "the RAM of a local (`s.bind_storage`): ram_1p, ram_2p, ram_t2p",
    ),
    AttributeSpec(STREAM, "memref.alloc", "i64", "a stream (`s.to`) and its FIFO depth"),
    AttributeSpec(ZERO_INIT, "memref.alloc", "unit", "declared `= {}` in C++ (a shift register or window)"),
)

# attributes that name things rather than describe structure (comparisons of function bodies skip
# them), and the records of which stages an outlined call replaced (unify compares without them too)
NAMING = frozenset({STAGE_NAME, LOOP_NAME, NAME})
OUTLINE_RECORDS = frozenset({STAGES, OUTLINE_AXIS})

Op: TypeAlias = ir.Operation | ir.OpView


def _attributes(op: Op) -> ir.OpAttributeMap:
    return op.operation.attributes


def _put(op: Op, key: str, build: Callable[[], ir.Attribute]) -> None:
    """Set attribute `key` to what `build` makes in the op's own context (callers need none active)."""
    with op.operation.context:
        _attributes(op)[key] = build()


def _string(op: Op, key: str) -> str | None:
    attributes = _attributes(op)
    return ir.StringAttr(attributes[key]).value if key in attributes else None


def _set_string(op: Op, key: str, value: str) -> None:
    _put(op, key, lambda: ir.StringAttr.get(value))


def _int(op: Op, key: str) -> int | None:
    attributes = _attributes(op)
    return ir.IntegerAttr(attributes[key]).value if key in attributes else None


def _set_int(op: Op, key: str, value: int, width: int = 32) -> None:
    _put(op, key, lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(width), int(value)))


def _strings(op: Op, key: str) -> list[str] | None:
    attributes = _attributes(op)
    if key not in attributes:
        return None
    try:
        return [ir.StringAttr(item).value for item in ir.ArrayAttr(attributes[key])]
    except (ValueError, TypeError):
        raise CompileError(f"{key} must be an array of strings, got {attributes[key]}") from None


def _string_array(values: Iterable[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.StringAttr.get(v) for v in values])


def _flag(op: Op, key: str) -> bool:
    return key in _attributes(op)


def _set_flag(op: Op, key: str, on: bool = True) -> None:
    attributes = _attributes(op)
    if on:
        _put(op, key, ir.UnitAttr.get)
    elif key in attributes:
        del attributes[key]


def _drop(op: Op, key: str) -> None:
    attributes = _attributes(op)
    if key in attributes:
        del attributes[key]


# ---- function kinds ----------------------------------------------------------------------------------
def is_top(op: Op) -> bool:
    """Whether `op` is the design's top function (hcl.top)."""
    return _flag(op, TOP)


def mark_top(op: Op) -> None:
    _set_flag(op, TOP)


def is_outlined(op: Op) -> bool:
    """Whether `op` is a function an outline pass made (hcl.outlined)."""
    return _flag(op, OUTLINED)


def mark_outlined(op: Op) -> None:
    _set_flag(op, OUTLINED)


def mark_def(op: Op) -> None:
    """Mark a `@def_` function (hcl.def)."""
    _set_flag(op, DEF)


def top_functions(module: ir.Module) -> list[ir.Operation]:
    """The func.func ops carrying hcl.top (one in a valid design)."""
    return [op.operation for op in module.body.operations if op.operation.name == "func.func" and is_top(op)]


# ---- outlining records ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class AxisSite:
    """The loop whose body `s[stage].outline(axis=loop)` made a function of."""

    stage: str
    loop: str


def outlined_stages(op: Op) -> list[str] | None:
    """The stages an outlined function or its call holds (hcl.stages), None when absent."""
    return _strings(op, STAGES)


def set_outlined_stages(op: Op, stages: Sequence[str]) -> None:
    _put(op, STAGES, lambda: _string_array(stages))


def copy_outlined_stages(source: Op, target: Op) -> None:
    """Carry hcl.stages from one call to the call that replaces it."""
    stages = outlined_stages(source)
    if stages is not None:
        set_outlined_stages(target, stages)


def outline_axis(op: Op) -> AxisSite | None:
    """The loop an axis-outlined function is the body of (hcl.outline_axis), None otherwise."""
    attributes = _attributes(op)
    if OUTLINE_AXIS not in attributes:
        return None
    entries = ir.DictAttr(attributes[OUTLINE_AXIS])
    return AxisSite(ir.StringAttr(entries["stage"]).value, ir.StringAttr(entries["loop"]).value)


def set_outline_axis(op: Op, site: AxisSite) -> None:
    _put(
        op,
        OUTLINE_AXIS,
        lambda: ir.DictAttr.get(
            {"stage": ir.StringAttr.get(site.stage), "loop": ir.StringAttr.get(site.loop)}
        ),
    )


# ---- signatures -----------------------------------------------------------------------------------------
def arg_names(op: Op) -> list[str] | None:
    """One C identifier per argument (hcl.arg_names), None when absent."""
    return _strings(op, ARG_NAMES)


def set_arg_names(op: Op, names: Sequence[str]) -> None:
    _put(op, ARG_NAMES, lambda: _string_array(names))


def arg_types(op: Op) -> list[str] | None:
    """The DSL dtype name of each argument's element (hcl.arg_types), None when absent."""
    return _strings(op, ARG_TYPES)


def set_arg_types(op: Op, dtypes: Sequence[str]) -> None:
    _put(op, ARG_TYPES, lambda: _string_array(dtypes))


def ret_type(op: Op) -> str | None:
    """The DSL dtype name of a function's result (hcl.ret_type), None when absent."""
    return _string(op, RET_TYPE)


def set_ret_type(op: Op, dtype: str) -> None:
    _set_string(op, RET_TYPE, dtype)


# ---- partitions: "<kind>:<dim>:<factor>" in the IR, ArrayPartition everywhere else -------------------
def format_partition(partition: ArrayPartition) -> str:
    return f"{partition.kind}:{partition.dim}:{partition.factor}"


def parse_partition(text: str, where: str = "") -> ArrayPartition:
    """The record of one partition string; CompileError naming `where` when it is malformed."""
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in PARTITION_KINDS or not parts[1].isdigit() or not parts[2].isdigit():
        raise CompileError(
            f"{where or 'partition'}: malformed partition '{text}' "
            "(expected '<complete|block|cyclic>:<dim>:<factor>')"
        )
    return ArrayPartition(parts[0], int(parts[1]), int(parts[2]))


def _partition_array(partitions: Iterable[ArrayPartition]) -> ir.ArrayAttr:
    return _string_array(format_partition(p) for p in partitions)


def buffer_partitions(op: Op, where: str = "") -> list[ArrayPartition]:
    """The partitions of an alloc or get_global (hcl.partition), [] when none."""
    return [parse_partition(text, where) for text in _strings(op, PARTITION) or []]


def set_buffer_partitions(op: Op, partitions: Sequence[ArrayPartition]) -> None:
    """hcl.partition on a buffer; nothing when `partitions` is empty."""
    if partitions:
        _put(op, PARTITION, lambda: _partition_array(partitions))


def storage_type(op: Op) -> str | None:
    """The RAM a local is bound to (hcl.storage_type), None for the tool's choice."""
    return _string(op, STORAGE_TYPE)


def set_storage_type(op: Op, value: str | None) -> None:
    """hcl.storage_type on an alloc; nothing when `value` is None."""
    if value is not None:
        _set_string(op, STORAGE_TYPE, value)


def arg_partitions(op: Op, where: str = "") -> list[list[ArrayPartition]] | None:
    """The partitions of each argument of a function (hcl.arg_partitions), None when absent."""
    attributes = _attributes(op)
    if ARG_PARTITIONS not in attributes:
        return None
    return [
        [parse_partition(ir.StringAttr(text).value, where) for text in ir.ArrayAttr(per_arg)]
        for per_arg in ir.ArrayAttr(attributes[ARG_PARTITIONS])
    ]


def set_arg_partitions(op: Op, per_arg: Sequence[Sequence[ArrayPartition]]) -> None:
    """hcl.arg_partitions on a function when any argument is partitioned; dropped otherwise."""
    if any(per_arg):
        _put(op, ARG_PARTITIONS, lambda: ir.ArrayAttr.get([_partition_array(p) for p in per_arg]))
    else:
        _drop(op, ARG_PARTITIONS)


# ---- streams: "<read|write>:<depth>" per argument in the IR, StreamPort everywhere else --------------
STREAM_DIRECTIONS = ("read", "write")


@dataclass(frozen=True)
class StreamPort:
    """An argument a function takes as an hls::stream: whether it reads or writes it, its depth."""

    direction: str
    depth: int


def _parse_stream(text: str, where: str) -> StreamPort | None:
    if not text:
        return None
    direction, _, depth = text.partition(":")
    if direction not in STREAM_DIRECTIONS or not depth.isdigit():
        raise CompileError(f"{where}: {ARG_STREAMS} must hold one '' or '<read|write>:<depth>' per argument")
    return StreamPort(direction, int(depth))


def arg_streams(op: Op, where: str = "") -> list[StreamPort | None] | None:
    """The stream port of each argument (None for an array argument); None when no argument is one."""
    entries = _strings(op, ARG_STREAMS)
    if entries is None:
        return None
    return [_parse_stream(text, where or ARG_STREAMS) for text in entries]


def set_arg_streams(op: Op, ports: Sequence[StreamPort | None]) -> None:
    """hcl.arg_streams when any argument is a stream; nothing otherwise."""
    if any(port is not None for port in ports):
        entries = [f"{p.direction}:{p.depth}" if p is not None else "" for p in ports]
        _put(op, ARG_STREAMS, lambda: _string_array(entries))


def scalar_args(op: Op) -> list[str]:
    """The names of the arguments (0-d placeholders, memref<1xT>, only read) that C takes by value."""
    return _strings(op, SCALAR_ARGS) or []


def set_scalar_args(op: Op, names: Sequence[str]) -> None:
    """hcl.scalar_args when any argument is one; removed otherwise."""
    if names:
        _put(op, SCALAR_ARGS, lambda: _string_array(names))
    elif SCALAR_ARGS in _attributes(op):
        del _attributes(op)[SCALAR_ARGS]


def buffer_stream_depth(op: Op) -> int | None:
    """The FIFO depth of a stream alloc (hcl.stream), None for plain memory."""
    return _int(op, STREAM)


def set_buffer_stream_depth(op: Op, depth: int) -> None:
    _set_int(op, STREAM, depth, 64)


# ---- dataflow, prints ------------------------------------------------------------------------------------
def is_dataflow(op: Op) -> bool:
    """Whether a function or loop carries hcl.dataflow."""
    return _flag(op, DATAFLOW)


def mark_dataflow(op: Op, on: bool = True) -> None:
    _set_flag(op, DATAFLOW, on)


def print_format(op: Op) -> str | None:
    """The printf format of an hcl.print declaration, None for any other function."""
    return _string(op, PRINT_FORMAT)


def set_print_format(op: Op, fmt: str) -> None:
    _set_string(op, PRINT_FORMAT, fmt)


# ---- stages and loops -------------------------------------------------------------------------------------
def stage_name(op: Op) -> str | None:
    """The stage a top-level op is the root of (hcl.op_name), None for any other op."""
    return _string(op, STAGE_NAME)


def set_stage_name(op: Op, name: str) -> None:
    _set_string(op, STAGE_NAME, name)


def clear_stage_name(op: Op) -> None:
    """The op is no stage root any more (compute_at moved it into its consumer)."""
    _drop(op, STAGE_NAME)


def nested_stage(op: Op) -> str | None:
    """The stage a loop nested in another stage's body is the root of (hcl.nested_stage)."""
    return _string(op, NESTED_STAGE)


def set_nested_stage(op: Op, name: str) -> None:
    _set_string(op, NESTED_STAGE, name)


def loop_name(op: Op) -> str | None:
    """The name of a loop (hcl.loop_name), None when it has none."""
    return _string(op, LOOP_NAME)


def set_loop_name(op: Op, name: str) -> None:
    _set_string(op, LOOP_NAME, name)


def loop_directives(op: Op) -> LoopDirectives:
    """The pragmas of a loop: pipeline II, unroll factor, parallel, dataflow."""
    return LoopDirectives(
        pipeline_ii=_int(op, PIPELINE_II),
        unroll=_int(op, UNROLL),
        parallel=_flag(op, PARALLEL),
        dataflow=_flag(op, DATAFLOW),
    )


def set_loop_directives(op: Op, directives: LoopDirectives) -> None:
    """Write a loop's pragmas; a field at its default removes that attribute."""
    for key, value in ((PIPELINE_II, directives.pipeline_ii), (UNROLL, directives.unroll)):
        if value is None:
            _drop(op, key)
        else:
            _set_int(op, key, value)
    _set_flag(op, PARALLEL, directives.parallel)
    _set_flag(op, DATAFLOW, directives.dataflow)


def max_trip(op: Op) -> int | None:
    """The most trips a runtime-bounded loop makes (hcl.max_trip), None when not given."""
    return _int(op, MAX_TRIP)


def set_max_trip(op: Op, trips: int) -> None:
    _set_int(op, MAX_TRIP, trips)


def reuse_fill(op: Op) -> int | None:
    """reuse_at's mark on a buffer-fill loop: the position it fills, None on other loops."""
    return _int(op, REUSE_FILL)


def set_reuse_fill(op: Op, position: int) -> None:
    _set_int(op, REUSE_FILL, position, 64)


def clear_reuse_fill(op: Op) -> None:
    _drop(op, REUSE_FILL)


# ---- buffers ---------------------------------------------------------------------------------------------
def buffer_name(op: Op) -> str | None:
    """The tensor name of an alloc or get_global (hcl.name), None when it has none."""
    return _string(op, NAME)


def set_buffer_name(op: Op, name: str) -> None:
    _set_string(op, NAME, name)


def buffer_dtype(op: Op) -> str | None:
    """The DSL dtype name of an alloc's or get_global's elements (hcl.dtype), None when absent."""
    return _string(op, DTYPE)


def set_buffer_dtype(op: Op, dtype: str) -> None:
    _set_string(op, DTYPE, dtype)


def fixed_type(op: Op) -> str | None:
    """The fixed-point dtype name an arith op's integer result is the raw bits of (hcl.fixed)."""
    return _string(op, FIXED)


def set_fixed_type(op: Op, dtype: str) -> None:
    _set_string(op, FIXED, dtype)


def is_zero_init(op: Op) -> bool:
    """Whether an alloc is declared `= {}` in C++ (hcl.zero_init)."""
    return _flag(op, ZERO_INIT)


def mark_zero_init(op: Op) -> None:
    _set_flag(op, ZERO_INIT)


# ---- whole-op views ------------------------------------------------------------------------------------
def structural_attributes(op: Op, ignore: frozenset[str] = NAMING) -> list[tuple[str, str]]:
    """(name, printed value) of every attribute of `op` not in `ignore`, sorted: with the default,
    what makes two ops interchangeable when unifying functions."""
    attributes = _attributes(op)
    return sorted((name, str(value)) for name, value in attributes.items() if name not in ignore)


def copy_contract_attributes(source: Op, target: Op) -> None:
    """Give `target` every hcl.* attribute of `source` (a loop rebuilt with other bounds)."""
    for name, value in _attributes(source).items():
        if name.startswith(PREFIX):
            _attributes(target)[name] = value


def all_attributes(op: Op) -> dict[str, str]:
    """Every attribute of `op` as name -> printed value (equality of pure ops)."""
    return {name: str(value) for name, value in _attributes(op).items()}


def markdown_table() -> str:
    """The attribute table of docs/IR.md, generated from ATTRIBUTES."""
    rows = ["| attribute | on | value | meaning |", "|---|---|---|---|"]
    rows += [f"| `{a.name}` | {a.holders} | {a.value} | {a.meaning} |" for a in ATTRIBUTES]
    return "\n".join(rows) + "\n"
