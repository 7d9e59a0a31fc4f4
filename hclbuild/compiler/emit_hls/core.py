"""The state every op handler of the HLS emitter works on: one func.func's C lines, its SSA values
bound to C locals, literals and arrays, the views of a value at a signedness, and op dispatch.

Op handlers are methods of mixins on EmitterCore (scalar_ops, memory_loops, ...), each module with
one table from op name to handler; assembly.FunctionEmitter combines the mixins and merges the
tables. A new op kind is one method and one table entry in the module of its concern.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from mlir import ir

from hclbuild.compiler.emit_hls.c_types import CArg, CppUses, CSignature, CType, Names, const_view, ctype_of
from hclbuild.compiler.emit_hls.pragmas import CURRENT_SYNTAX, PragmaSyntax
from hclbuild.compiler.emit_hls.value_names import index_name
from hclbuild.compiler.hls_types import c_type
from hclbuild.compiler.passes.stream import stream_depth
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import CompileError

# A handler is a method of one of the handler mixins (ScalarOps, MemoryLoopOps...) called on the
# FunctionEmitter that combines them all: no class this module can name is a subclass of every one
# of them, so the emitter argument is left untyped here.
Handler = Callable[[Any, ir.Operation], None]

# ops without side effects: skipped when nothing uses their results
_PURE_DIALECTS = ("arith.", "math.")
_PURE_OPS = frozenset(
    {"memref.load", "affine.load", "affine.apply", "memref.alloc", "memref.alloca", "memref.get_global"}
)
_FOLDED_CASTS = frozenset(
    {"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui"}
)
_TERMINATORS = frozenset({"affine.yield", "scf.yield", "scf.condition"})


# ---- per-function state ----------------------------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    """How an SSA scalar reads in C: a local or literal (`expr`), or an integer constant (`const`)."""

    ctype: CType
    expr: str = ""
    const: int | None = None


@dataclass(frozen=True)
class Memory:
    """A C array standing for a memref: its name and its element dtype."""

    name: str
    dtype: DType
    rank: int
    read_only: bool = False  # a static const array (hcl.const_tensor)
    stream: bool = False  # an hls::stream: loads are read(), stores write()
    scalar: bool = False  # a one-element local declared as a C scalar (value_names.is_scalar_buffer)

    @property
    def c_type(self) -> str:
        return c_type(self.dtype)


@dataclass
class Carried:
    """A C local holding a loop-carried / if-result value across a region boundary."""

    name: str
    ctype: CType


class EmitterCore:
    """One func.func being emitted as C++: output lines, names, and what each SSA value reads as."""

    # op name -> handler(emitter, op); filled by the class that combines the handler mixins
    HANDLERS: ClassVar[dict[str, Handler]] = {}

    if TYPE_CHECKING:

        def _write_store(self, store: ir.Operation, memory: Memory, text: str) -> None: ...  # MemoryLoopOps

        def _raw_bits(self, value: ir.Value, source: str, dtype: DType, base: str) -> None: ...  # FixedOps

        def _fixed_source(  # FixedOps
            self, value: ir.Value, element: str, name: str, local: bool = False, cheap: bool = False
        ) -> bool: ...

    def __init__(self, func: ir.Operation, signature: CSignature, signatures: dict[str, CSignature]):
        self.func = func
        self.signatures = signatures
        self.lines: list[str] = []
        self.signature = signature
        self.func_name = self.signature.name
        self.names = Names(set(self.signatures) | {arg.name for arg in self.signature.args})
        self.values: dict[ir.Value, Scalar] = {}
        # fixed-point values written as ap_fixed (fixed_ops.FixedValue); those whose raw bits an
        # integer op reads are in `values` too
        self.fixed: dict[ir.Value, Any] = {}
        self.memories: dict[ir.Value, Memory] = {}
        self.labels: set[str] = set()
        self.stages: list[str] = []
        self.indent = 0
        self.temp_count = 0
        self.unstaged_temps = 0  # temporaries outside every stage: stages number theirs after them
        self.dead = _dead_ops(self.func)
        self.prints: dict[str, str] = {}  # hcl.print declarations of the module: name -> format
        # arrays that must stay one RAM (passed to an RTL blackbox), with the reason, for the comment
        # that replaces their partition pragmas
        self.unpartitioned: dict[ir.Value, str] = {}
        self.pragma_syntax: PragmaSyntax = CURRENT_SYNTAX  # the target release's spelling
        # a constant operand given a typed local (_materialize_constant_operand): where its
        # declaration goes, the constant and the local's name; written when a handler first reads it
        self._pending_local: dict[ir.Value, tuple[int, int, Scalar, str]] = {}
        # the headers and macros what this function writes needs (assembly makes the includes)
        self.uses = CppUses()
        # the op _emit_ops emits after the current one, and stores already written by _define
        self._next_op: ir.Operation | None = None
        self._done_stores: set[ir.Operation] = set()
        # scalar locals whose declaration waits for their first store (the declared value)
        self._deferred_scalars: set[ir.Value] = set()

    # ---- output --------------------------------------------------------------------------------

    def _line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def _temp(self) -> str:
        # numbered from 0 in each stage (MemoryLoopOps._label): a change in one stage does not
        # renumber another's temporaries
        name = self.names.fresh(f"v{self.temp_count}")
        self.temp_count += 1
        if not self.stages:
            self.unstaged_temps = self.temp_count
        return name

    def _where(self, what: str) -> str:
        return f"@{self.func_name}: {what}"

    def _fail(self, op: ir.Operation, message: str) -> CompileError:
        return CompileError(f"@{self.func_name}: {op.name}: {message}")

    # ---- values --------------------------------------------------------------------------------

    def _scalar(self, value: ir.Value) -> Scalar:
        pending = self._pending_local.pop(value, None)
        if pending is not None:
            self._declare_local_constant(*pending)
        try:
            return self.values[value]
        except KeyError:
            raise CompileError(
                self._where(f"value of type {value.type} is not a scalar the emitter knows")
            ) from None

    def _memory(self, value: ir.Value) -> Memory:
        try:
            return self.memories[value]
        except KeyError:
            raise CompileError(self._where(f"memref value of type {value.type} has no C array")) from None

    def _define(self, result: ir.Value, ctype: CType, expr: str, name: str | None = None) -> None:
        """Declare `T name = expr;` (`name` from the design, else `vN`): the declared type is what
        truncates to the IR width. A value whose one use is a store right after it is written
        straight into the stored element (`E[y][x] = ...;`, `conv_sum = conv_sum + v5;`)."""
        if self._store_directly(result, ctype, expr):
            return
        if name is None and ctype.kind == "index":
            name = index_name(expr)
        name = self.names.fresh(name) if name is not None else self._temp()
        self._line(f"{self.uses.spell(ctype)} {name} = {expr};")
        self.values[result] = Scalar(ctype, name)

    def _store_directly(self, result: ir.Value, ctype: CType, expr: str) -> bool:
        uses = list(result.uses)
        store = self._next_op
        if len(uses) != 1 or store is None or uses[0].owner.operation != store:
            return False
        if store.name not in ("memref.store", "affine.store") or uses[0].operand_number != 0:
            return False
        memory = self.memories.get(store.operands[1])
        if memory is None or memory.stream or memory.dtype.is_fixed:
            return False
        # the element's type must be the local's (a narrower or wider one would convert differently)
        if memory.c_type != ctype.spelling and memory.c_type != ctype.with_sign(not ctype.signed).spelling:
            return False
        if ctype.kind == "int" and (ctype.is_bool or ctype.is_ap):
            return False
        self._write_store(store, memory, expr)
        self._done_stores.add(store)
        return True

    def _view(self, value: ir.Value, signed: bool | None = None) -> str:
        """The value as an expression of its own width, seen signed/unsigned (None: as declared)."""
        scalar = self._scalar(value)
        ctype = scalar.ctype
        if scalar.const is not None:
            return const_view(scalar.const, ctype, signed, self.uses)
        if ctype.kind == "index" and signed is False:
            return f"(unsigned){scalar.expr}"
        if ctype.kind != "int" or signed is None or (signed == ctype.signed and not ctype.is_bool):
            return scalar.expr
        if ctype.is_bool:
            return f"({scalar.expr} ? -1 : 0)" if signed else scalar.expr
        return f"({self.uses.spell(ctype.with_sign(signed))}){scalar.expr}"

    def _typed_view(self, value: ir.Value, ctype: CType) -> str:
        """The value as exactly `ctype` (same width): ap types mixed in ?: must match exactly."""
        scalar = self._scalar(value)
        text = self._view(value, ctype.signed if ctype.kind == "int" and not ctype.is_bool else None)
        if scalar.const is not None and ctype.is_ap:
            return f"({self.uses.spell(ctype)}){text}"
        return text

    def _result_type(self, result: ir.Value, operands: list[ir.Value]) -> CType:
        """Sign-agnostic ops: unsigned when an operand (not a constant) is unsigned."""
        ctype = ctype_of(result.type)
        if ctype.kind != "int" or ctype.is_bool:
            return ctype
        unsigned = any(
            not self.values[v].ctype.signed
            and self.values[v].const is None
            and not self.values[v].ctype.is_bool
            for v in operands
            if v in self.values
        )
        return ctype.with_sign(not unsigned)

    def _native(self, value: ir.Value, signed: bool) -> str:
        """The value as a C integer (int64_t/uint64_t range) even when it is an ap type beyond 64 bits."""
        text = self._view(value, signed)
        ctype = self._scalar(value).ctype
        if ctype.is_ap and ctype.bits > 64 and self._scalar(value).const is None:
            return f"({text}).to_{'int64' if signed else 'uint64'}()"
        return text

    # ---- blocks and dispatch -------------------------------------------------------------------------

    def _emit_ops(self, block: ir.Block) -> ir.Operation | None:
        """Emit the ops of a block; returns its region terminator (yield/condition), unemitted."""
        terminator = None
        operations = [op.operation for op in block.operations if op.operation not in self.dead]
        for position, operation in enumerate(operations):
            if operation.name in _TERMINATORS:
                terminator = operation
                continue
            if operation in self._done_stores:
                continue
            self._next_op = operations[position + 1] if position + 1 < len(operations) else None
            handler = self._handler(operation)
            if handler is None:
                raise self._fail(operation, "the HLS emitter does not support this op")
            saved = self._materialize_constant_operand(operation)
            try:
                handler(self, operation)
            except CompileError as err:
                if str(err).startswith("@"):
                    raise
                raise self._fail(operation, str(err)) from None
            # a handler that folded the op without reading the local (x < x) never declared it
            self._pending_local.clear()
            self.values.update(saved)
        return terminator

    def _handler(self, operation: ir.Operation) -> Handler | None:
        """The handler of an op (FixedOps chooses its own for the ops it writes as ap_fixed)."""
        return self.HANDLERS.get(operation.name)

    def _materialize_constant_operand(self, op: ir.Operation) -> dict[ir.Value, Scalar]:
        """An arith/math op on constants only: give its first operand a typed local; returns the old binding.

        C would fold the literals itself, in its own types (`4294967295U | -5` is 32 bits, not i33)
        and with overflow warnings; a local makes the op compute at the IR width like any other.
        The local is declared (before the handler's lines) only when the handler reads it.
        """
        operands = list(op.operands)
        if not op.name.startswith(_PURE_DIALECTS) or op.name in _FOLDED_CASTS or not operands:
            return {}
        constants = [
            s for s in (self.values.get(v) for v in operands) if s is not None and s.const is not None
        ]
        if len(constants) != len(operands):
            return {}
        first, scalar = operands[0], constants[0]
        name = self._temp()
        self._pending_local[first] = (len(self.lines), self.indent, scalar, name)
        self.values[first] = Scalar(scalar.ctype, name)
        return {first: scalar}

    def _declare_local_constant(self, at: int, indent: int, scalar: Scalar, name: str) -> None:
        """`T vN = literal;` of a materialized constant, at the line where its op began."""
        assert scalar.const is not None
        literal = const_view(scalar.const, scalar.ctype, None, self.uses)
        if scalar.ctype.kind == "index":
            literal = f"(int){literal}"
        self.lines.insert(at, "  " * indent + f"{self.uses.spell(scalar.ctype)} {name} = {literal};")

    def _bind_argument(self, arg: CArg, value: ir.Value) -> None:
        dtype = parse_dtype(arg.dtype)
        if arg.is_array:
            rank = len(ir.MemRefType(value.type).shape)
            self.memories[value] = Memory(arg.name, dtype, rank, stream=bool(arg.stream))
            return
        if isinstance(value.type, ir.MemRefType):  # a one-element memref taken by value: never stored
            self.memories[value] = Memory(arg.name, dtype, 1, scalar=True)
            return
        ctype = ctype_of(value.type, dtype.is_signed)
        if arg.c_type == ctype.spelling or not has_uses(value):
            self.values[value] = Scalar(ctype, arg.name)
            return
        if dtype.is_fixed and self._fixed_source(value, arg.name, arg.name, local=True):
            return
        # fixed-point (or ap_int<1>) parameters the body reads the bits of: a local of the IR type
        if dtype.is_fixed:
            self._raw_bits(value, arg.name, dtype, f"{arg.name}_bits")
            return
        name = self.names.fresh(f"{arg.name}_bits")
        self._line(f"{self.uses.spell(ctype)} {name} = {arg.name};")
        self.values[value] = Scalar(ctype, name)


# ---- handler tables --------------------------------------------------------------------------


def with_args(method: Callable[..., None], *args: object) -> Handler:
    """A table entry for a handler method that takes leading arguments: method(emitter, *args, op)."""
    return lambda emitter, op: method(emitter, *args, op)


def merge_handlers(*tables: dict[str, Handler]) -> dict[str, Handler]:
    """One table from the tables of several modules; an op claimed twice is a bug in the emitter."""
    merged: dict[str, Handler] = {}
    for table in tables:
        for name, handler in table.items():
            if name in merged:
                raise CompileError(f"the HLS emitter registers two handlers for {name}")
            merged[name] = handler
    return merged


# ---- IR helpers ------------------------------------------------------------------------------


def walk(operation: ir.Operation) -> Iterator[ir.Operation]:
    """Every op nested in `operation`, in program order (pre-order)."""
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation
                yield from walk(op.operation)


def has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)


def _dead_ops(func: ir.Operation) -> set[ir.Operation]:
    """Side-effect-free ops whose results nothing (alive) reads, found in one reverse sweep."""
    dead: set[ir.Operation] = set()
    for op in reversed(list(walk(func))):
        pure = op.name.startswith(_PURE_DIALECTS) or op.name in _PURE_OPS
        if not pure or not len(op.results) or (op.name == "memref.load" and stream_depth(op.operands[0])):
            continue  # a stream load is a read(): it takes a value from the FIFO, used or not
        if all(
            use.owner.operation in dead
            or use.owner.name == "memref.dealloc"
            or _stream_subscript(use)
            or self_compare(use)
            for r in op.results
            for use in r.uses
        ):
            dead.add(op)
    return dead


def self_compare(use: ir.OpOperand) -> bool:
    """An integer compare of a value with itself: the emitter knows its answer and reads neither side
    (a local declared only for it would be unused, which g++ -Werror refuses)."""
    owner = use.owner
    return owner.name == "arith.cmpi" and owner.operands[0] == owner.operands[1]


def _stream_subscript(use: ir.OpOperand) -> bool:
    """A subscript of a stream access: read() and write() take none, so it is not computed."""
    owner = use.owner
    if owner.name == "memref.load":
        return use.operand_number >= 1 and stream_depth(owner.operands[0]) is not None
    if owner.name == "memref.store":
        return use.operand_number >= 2 and stream_depth(owner.operands[1]) is not None
    return False
