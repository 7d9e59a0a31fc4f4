"""Memory, loop and call handlers of the HLS emitter: memref/affine buffers and accesses, affine and
scf loops and conditionals (with loop-carried values as C locals), func.call and func.return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir

from hclbuild.c_names import sanitize, unique
from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.emit_hls.c_types import (
    INDEX,
    CArg,
    CType,
    c_int,
    check_element,
    ctype_of,
    default_dtype,
    memref_shape,
    parse_dtype_at,
)
from hclbuild.compiler.emit_hls.core import Carried, EmitterCore, Handler, Memory, Scalar, has_uses, walk
from hclbuild.compiler.emit_hls.pragmas import buffer_pragmas, loop_pragmas, stream_pragmas
from hclbuild.compiler.emit_hls.value_names import (
    ancestor_in,
    is_scalar_buffer,
    load_name,
    readable_in_place,
)
from hclbuild.compiler.passes.stream import stream_depth
from hclbuild.dsl.types import DType, parse_dtype

_STORES = frozenset({"memref.store", "affine.store"})
# casts of a literal fold into the literal: they declare nothing
_CONSTANT_CASTS = frozenset({"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast"})
_LOOPS = frozenset({"affine.for", "scf.for", "scf.while"})


class MemoryLoopOps(EmitterCore):
    """Handlers of memref/affine/scf/func ops (registered in MEMORY_LOOP_HANDLERS below)."""

    if TYPE_CHECKING:

        def _print_call(self, op: ir.Operation, fmt: str) -> None: ...  # PrintOps, in FunctionEmitter

        # FixedOps, in FunctionEmitter
        def _fixed_load(self, op: ir.Operation, memory: Memory, element: str, name: str) -> None: ...

        def _fixed_stored(self, op: ir.Operation, operand: int, dtype: DType) -> str: ...

        def _fixed_call_result(self, result: ir.Value, returned: str, dtype: DType) -> None: ...

    # ---- memory --------------------------------------------------------------------------------

    def _alloc(self, op: ir.Operation) -> None:
        result = op.results[0]
        memref_type = ir.MemRefType(result.type)
        base = attrs.buffer_name(op) or "buf"
        where = self._where(f"{op.name} '{base}'")
        shape = memref_shape(memref_type, where)
        dtype_name = attrs.buffer_dtype(op)
        if dtype_name is not None:
            dtype = parse_dtype_at(dtype_name, where)
            check_element(dtype, memref_type.element_type, where)
        else:
            dtype = default_dtype(memref_type.element_type, where)
        name = self.names.fresh(base)
        depth = stream_depth(result)
        if depth is not None:
            self.uses.stream = True
            self._line(f"hls::stream<{self.uses.c_type(dtype)}> {name};")
            for pragma in stream_pragmas(name, depth):
                self._line(pragma)
            self.memories[result] = Memory(name, dtype, len(memref_type.shape), stream=True)
            return
        zero = " = {}" if attrs.is_zero_init(op) else ""
        pragmas = buffer_pragmas(op, name, len(shape), where, self.pragma_syntax)
        if not pragmas and result not in self.unpartitioned and is_scalar_buffer(result):
            self._scalar_local(op, name, dtype, zero)
            return
        self._line(f"{self.uses.c_type(dtype)} {name}{''.join(f'[{dim}]' for dim in shape)}{zero};")
        if pragmas and result in self.unpartitioned:
            pragmas = [f"// {name} is not partitioned here: {self.unpartitioned[result]}"]
        for pragma in pragmas:
            self._line(pragma)
        if not self._is_read(result):
            # a dead stage's buffer: kept as the user wrote it (Vitis drops the logic), and marked
            # used so that g++ -Werror does not stop on unused-but-set-variable
            self._line(f"(void){name};  // written, never read")
        self.memories[result] = Memory(name, dtype, len(memref_type.shape))

    def _scalar_local(self, op: ir.Operation, name: str, dtype: DType, zero: str) -> None:
        """A one-element local as a C scalar, declared where its first store is when every other
        use follows that store in the same C block (`float conv_sum = 0.0f;` in the loop body)."""
        result = op.results[0]
        self.memories[result] = Memory(name, dtype, 0, scalar=True)
        first = self._first_use(result)
        if not zero and first is not None and first.name in _STORES and self._dominates_uses(first, result):
            self._deferred_scalars.add(result)
            return
        self._line(f"{self.uses.c_type(dtype)} {name}{zero or ' = {}'};")
        if not self._is_read(result):
            self._line(f"(void){name};  // written, never read")

    def _first_use(self, value: ir.Value) -> ir.Operation | None:
        """The use of `value` that comes first in program order."""
        users = {use.owner.operation for use in value.uses if use.owner.name != "memref.dealloc"}
        for operation in walk(self.func):
            if operation in users:
                return operation
        return None

    def _dominates_uses(self, store: ir.Operation, value: ir.Value) -> bool:
        """Every use of `value` is after `store` in its C block or nested in an op after it (a
        one-trip loop is no C block: the store in one stands for the loop)."""
        anchor = store
        while (
            anchor.parent is not None
            and one_trip(anchor.parent.operation)
            and only_stores(anchor.parent.operation)
        ):
            anchor = anchor.parent.operation
        block = anchor.block
        for use in value.uses:
            owner = use.owner.operation
            if owner == store or owner.name == "memref.dealloc":
                continue
            ancestor = ancestor_in(owner, block)
            if ancestor is None or not anchor.is_before_in_block(ancestor):
                return False
        return True

    def _is_read(self, buffer: ir.Value) -> bool:
        """True when an emitted op reads the buffer (a load, a call taking it); stores only write it."""
        for use in buffer.uses:
            owner = use.owner.operation
            if owner in self.dead or owner.name == "memref.dealloc":
                continue
            if owner.name in _STORES and use.operand_number == 1:
                continue
            return True
        return False

    def _dealloc(self, op: ir.Operation) -> None:
        """Local arrays end with their scope: nothing to emit."""

    def _subscripts(self, op: ir.Operation, memory: Memory, indices: list[ir.Value]) -> str:
        if op.name.startswith("affine."):
            affine_map = upstream.access_map(op)
            dims = [self._view(v) for v in indices[: affine_map.n_dims]]
            symbols = [self._view(v) for v in indices[affine_map.n_dims :]]
            texts = [self._affine_expr(expr, dims, symbols, op) for expr in affine_map.results]
        else:
            texts = [self._view(v) for v in indices]
        if memory.scalar:
            return ""
        if memory.rank == 0:
            texts = ["0"]
        return "".join(f"[{text}]" for text in texts)

    def _load(self, op: ir.Operation) -> None:
        memory = self._memory(op.operands[0])
        result = op.results[0]
        ctype = ctype_of(result.type, memory.dtype.is_signed)
        name = f"{memory.name}_read"
        if memory.stream:  # FIFO order: the reference run checked that this is the element read
            element = f"{memory.name}.read()"
        else:
            subscripts = self._subscripts(op, memory, list(op.operands)[1:])
            element = f"{memory.name}{subscripts}"
            name = load_name(memory.name, subscripts[1:-1].split("][") if subscripts else [])
        if memory.dtype.is_fixed:
            self._fixed_load(op, memory, element, name)
            return
        if memory.scalar and ctype.spelling == memory.c_type and readable_in_place(op, op.operands[0]):
            self.values[result] = Scalar(ctype, memory.name)  # no store before its readers: the local itself
            return
        self._define(result, ctype, element, name)

    def _store(self, op: ir.Operation) -> None:
        value = op.operands[0]
        memory = self._memory(op.operands[1])
        if memory.stream:
            self._stream_write(op, memory, value)
            return
        self._write_store(op, memory, self._stored_text(op, 0, memory.dtype))

    def _stored_text(self, op: ir.Operation, operand: int, dtype: DType) -> str:
        """The C++ of the value `op` stores (writes, passes, returns) as `dtype`: a local converts on
        assignment; a literal is spelled for it (FixedOps writes fixed-point values)."""
        if dtype.is_fixed:
            return self._fixed_stored(op, operand, dtype)
        value = op.operands[operand]
        constant = value in self.values and self._scalar(value).const is not None
        return self._view(value, dtype.is_signed if dtype.is_integral_bits and constant else None)

    def _write_store(self, store: ir.Operation, memory: Memory, text: str) -> None:
        buffer = store.operands[1]
        if buffer in self._deferred_scalars:
            self._deferred_scalars.discard(buffer)
            self._line(f"{self.uses.c_type(memory.dtype)} {memory.name} = {text};")
            return
        element = f"{memory.name}{self._subscripts(store, memory, list(store.operands)[2:])}"
        self._line(f"{element} = {text};")

    def _stream_write(self, store: ir.Operation, memory: Memory, value: ir.Value) -> None:
        """`B.write(v)`; a literal in the element's type (the stream's write takes nothing else)."""
        constant = value in self.values and self._scalar(value).const is not None
        text = self._stored_text(store, 0, memory.dtype)
        if constant:
            text = f"({self.uses.c_type(memory.dtype)}){text}"
        self._line(f"{memory.name}.write({text});")

    def _affine_apply(self, op: ir.Operation) -> None:
        affine_map = upstream.access_map(op)
        operands = [self._view(v) for v in op.operands]
        dims, symbols = operands[: affine_map.n_dims], operands[affine_map.n_dims :]
        self._define(op.results[0], INDEX, self._affine_expr(affine_map.results[0], dims, symbols, op))

    def _affine_expr(self, expr: ir.AffineExpr, dims: list[str], symbols: list[str], op: ir.Operation) -> str:
        """C text of an affine expression; mod and floordiv round toward minus infinity."""
        if isinstance(expr, ir.AffineConstantExpr):
            return c_int(expr.value)
        if isinstance(expr, ir.AffineDimExpr):
            return dims[expr.position]
        if isinstance(expr, ir.AffineSymbolExpr):
            return symbols[expr.position]
        lhs = self._affine_expr(expr.lhs, dims, symbols, op)
        rhs = self._affine_expr(expr.rhs, dims, symbols, op)
        if isinstance(expr, ir.AffineAddExpr):
            return f"({lhs} + {rhs})"
        if isinstance(expr, ir.AffineMulExpr):
            return f"({lhs} * {rhs})"
        if not isinstance(expr.rhs, ir.AffineConstantExpr) or expr.rhs.value <= 0:
            raise self._fail(op, f"affine expression {expr} needs a positive constant divisor")
        if isinstance(expr, ir.AffineModExpr):
            return f"((({lhs} % {rhs}) + {rhs}) % {rhs})"
        if isinstance(expr, ir.AffineFloorDivExpr):
            return f"(({lhs} - ((({lhs} % {rhs}) + {rhs}) % {rhs})) / {rhs})"
        return f"(({lhs} + {rhs} - 1 - (((({lhs} + {rhs} - 1) % {rhs}) + {rhs}) % {rhs})) / {rhs})"

    # ---- loops and conditionals ----------------------------------------------------------------

    def _affine_for(self, op: ir.Operation) -> None:
        view = op.opview
        if one_trip(op):
            self._one_trip_body(op)
            return
        lower = self._affine_bound(op, upstream.lower_bound_map(op), list(view.lowerBoundOperands))
        upper = self._affine_bound(op, upstream.upper_bound_map(op), list(view.upperBoundOperands))
        step = upstream.loop_step(op)
        self._for_loop(op, INDEX, lower, upper, c_int(step), step == 1, "<", list(view.inits))

    def _one_trip_body(self, op: ir.Operation) -> None:
        """A loop of one iteration (an hcl.scalar's init, an imperative stage's wrapper): its body
        with the induction variable as its one value, in a C block of its own unless it only stores."""
        stage = attrs.stage_name(op)
        if stage is not None:
            self.stages.append(sanitize(stage))
            self.temp_count = self.unstaged_temps
            self._line(f"// stage {stage}")
        block = op.regions[0].blocks[0]
        lower = upstream.lower_bound_map(op).results[0]
        self.values[block.arguments[0]] = Scalar(INDEX, const=ir.AffineConstantExpr(lower).value)
        braces = not only_stores(op)
        if braces:
            self._line("{")
            self.indent += 1
            self.names.push()
        self._emit_ops(block)
        if braces:
            self.names.pop()
            self.indent -= 1
            self._line("}")
        if stage is not None:
            self.stages.pop()

    def _affine_bound(self, op: ir.Operation, affine_map: ir.AffineMap, operands: list[ir.Value]) -> str:
        if len(affine_map.results) != 1:
            raise self._fail(op, f"bound {affine_map} has several results (max/min bounds are not supported)")
        texts = [self._view(v) for v in operands]
        return self._affine_expr(
            affine_map.results[0], texts[: affine_map.n_dims], texts[affine_map.n_dims :], op
        )

    def _scf_for(self, op: ir.Operation) -> None:
        lower, upper, step = list(op.operands)[:3]
        iv_type = ctype_of(lower.type, not upstream.unsigned_compare(op))
        signed = None if iv_type.kind == "index" else iv_type.signed
        compare = "<"
        bound = self._view(upper, signed)
        if iv_type.kind == "index" and upstream.unsigned_compare(op):
            bound = self._view(upper, False)
        unit_step = self._scalar(step).const == 1
        self._for_loop(
            op,
            iv_type,
            self._view(lower, signed),
            bound,
            self._view(step),
            unit_step,
            compare,
            list(op.operands)[3:],
        )

    def _for_loop(
        self,
        op: ir.Operation,
        iv_type: CType,
        lower: str,
        upper: str,
        step: str,
        unit_step: bool,
        compare: str,
        inits: list[ir.Value],
    ) -> None:
        """`label: for (T i = lo; i < hi; i += step) {` with pragmas, body and loop-carried values."""
        block = op.regions[0].blocks[0]
        iv, region_args = block.arguments[0], list(block.arguments)[1:]
        carried = self._carry_in(region_args, list(op.results), inits)
        label, pushed = self._label(op)
        self.names.push()
        iv_name = self.names.fresh(_loop_name(op) or "i")
        self.values[iv] = Scalar(iv_type, iv_name)
        condition = f"{iv_name} {compare} {upper}"
        if iv_type.kind == "index" and upper.startswith("(unsigned)"):
            condition = f"(unsigned){iv_name} {compare} {upper}"
        increment = f"{iv_name}++" if unit_step else f"{iv_name} += {step}"
        self._line(
            f"{label}: for ({self.uses.spell(iv_type)} {iv_name} = {lower}; {condition}; {increment}) {{"
        )
        self._loop_body(op, block, carried)
        if pushed:
            self.stages.pop()

    def _loop_body(self, op: ir.Operation, block: ir.Block, carried: list[Carried | None]) -> None:
        self.indent += 1
        for pragma in loop_pragmas(op, self._where_loop()):
            self._line(pragma)
        terminator = self._emit_ops(block)
        if terminator is not None:
            self._assign_carried(carried, list(terminator.operands))
        self.indent -= 1
        self.names.pop()
        self._line("}")

    def _scf_while(self, op: ir.Operation) -> None:
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        state = self._carry_in(list(before.arguments), [None] * len(before.arguments), list(op.operands))
        # the values scf.condition forwards are both the loop results and the after-region arguments
        forwarded = self._carry_in(list(after.arguments), list(op.results), [None] * len(after.arguments))
        label, pushed = self._label(op)
        simple = len(list(before.operations)) == 1 and not before.arguments and not after.arguments
        self.names.push()
        if simple:
            condition = next(iter(before.operations)).operation
            self._line(f"{label}: while ({self._view(condition.operands[0])}) {{")
        else:
            self._line(f"{label}: while (true) {{")
        self.indent += 1
        for pragma in loop_pragmas(op, self._where_loop()):
            self._line(pragma)
        if not simple:
            condition = self._emit_ops(before)
            if condition is None:  # the verifier requires it; the emitter reads its operands
                raise self._fail(op, "its before region does not end in scf.condition")
            self._assign_carried(forwarded, list(condition.operands)[1:])
            self._line(f"if (!{self._view(condition.operands[0])}) break;")
        terminator = self._emit_ops(after)
        if terminator is not None:
            self._assign_carried(state, list(terminator.operands))
        self.indent -= 1
        self.names.pop()
        self._line("}")
        if pushed:
            self.stages.pop()

    def _scf_if(self, op: ir.Operation) -> None:
        results = list(op.results)
        carried = self._carry_in([None] * len(results), results, [None] * len(results))
        self._line(f"if ({self._view(op.operands[0])}) {{")
        self._branch(op.regions[0], carried)
        else_region = op.regions[1]
        if len(else_region.blocks) and _has_content(else_region.blocks[0], carried):
            self._line("} else {")
            self._branch(else_region, carried)
        self._line("}")

    def _branch(self, region: ir.Region, carried: list[Carried | None]) -> None:
        self.indent += 1
        self.names.push()
        terminator = self._emit_ops(region.blocks[0])
        if terminator is not None:
            self._assign_carried(carried, list(terminator.operands))
        self.names.pop()
        self.indent -= 1

    def _carry_in(self, region_args: list, results: list, inits: list) -> list[Carried | None]:
        """Declare one local per carried value that something reads; bind region args and results to it."""
        carried: list[Carried | None] = []
        for arg, result, init in zip(region_args, results, inits):
            used = [v for v in (arg, result) if v is not None and has_uses(v)]
            if not used:
                carried.append(None)
                continue
            if init is not None:
                ctype = self._scalar(init).ctype
            else:
                ctype = ctype_of(used[0].type)
            name = self._temp()
            initial = f" = {self._typed_view(init, ctype)}" if init is not None else ""
            self._line(f"{self.uses.spell(ctype)} {name}{initial};")
            for value in (arg, result):
                if value is not None:
                    self.values[value] = Scalar(ctype, name)
            carried.append(Carried(name, ctype))
        return carried

    def _assign_carried(self, carried: list[Carried | None], operands: list[ir.Value]) -> None:
        """Assign yielded values to the carried locals, all at once (a yield may swap them)."""
        pending = [(c, self._typed_view(v, c.ctype)) for c, v in zip(carried, operands) if c is not None]
        pending = [(c, text) for c, text in pending if text != c.name]
        if len(pending) > 1:
            staged = []
            for c, text in pending:
                temp = self._temp()
                self._line(f"{self.uses.spell(c.ctype)} {temp} = {text};")
                staged.append((c, temp))
            pending = staged
        for c, text in pending:
            self._line(f"{c.name} = {text};")

    def _where_loop(self) -> str:
        """Where a loop is, for messages: its function and stage."""
        return self._where(f"stage {self.stages[-1]}") if self.stages else f"@{self.func_name}"

    def _label(self, op: ir.Operation) -> tuple[str, bool]:
        """`l_<stage>_<loop>` unique in the function; pushes the stage when the loop is a stage root."""
        stage = attrs.stage_name(op)
        pushed = stage is not None
        if stage is not None:
            self.stages.append(sanitize(stage))
            self.temp_count = self.unstaged_temps  # each stage numbers its own temporaries
        loop = sanitize(_loop_name(op) or "loop")
        base = f"l_{self.stages[-1]}_{loop}" if self.stages else f"l_{loop}"
        label = unique(base, self.labels)
        self.labels.add(label)
        return label, pushed

    # ---- calls ---------------------------------------------------------------------------------

    def _call(self, op: ir.Operation) -> None:
        callee = upstream.callee(op)
        if callee in self.prints:
            self._print_call(op, self.prints[callee])
            return
        signature = self.signatures.get(callee)
        if signature is None:
            raise self._fail(op, f"calls @{callee}, which has no body in the module")
        args = [
            self._call_argument(op, k, param, value)
            for k, (param, value) in enumerate(zip(signature.args, op.operands))
        ]
        call = f"{callee}({', '.join(args)})"
        results = list(op.results)
        if not results or not has_uses(results[0]):
            self._line(f"{call};")
            return
        ret_dtype = parse_dtype(signature.ret_dtype)
        ctype = ctype_of(results[0].type, ret_dtype.is_signed)
        if signature.ret_c_type == ctype.spelling:
            self._define(results[0], ctype, call)
            return
        returned = self._temp()
        self._line(f"{self.uses.c_type(ret_dtype)} {returned} = {call};")
        if ret_dtype.is_fixed:
            self._fixed_call_result(results[0], returned, ret_dtype)
            return
        self._define(results[0], ctype, returned)

    def _call_argument(self, op: ir.Operation, index: int, param: CArg, value: ir.Value) -> str:
        if param.is_array:
            memory = self._memory(value)
            if memory.stream != bool(param.stream):
                kinds = ("stream", "array") if memory.stream else ("array", "stream")
                raise self._fail(op, f"passes {kinds[0]} '{memory.name}' as {kinds[1]} '{param.name}'")
            if memory.c_type != param.c_type:
                raise self._fail(
                    op, f"passes {memory.c_type} array '{memory.name}' as {param.c_type} '{param.name}'"
                )
            if memory.read_only:
                # the builder checked that the callee never writes this argument
                return f"const_cast<{self.uses.c_type(param.dtype)}(*){''.join(f'[{d}]' for d in param.shape[1:])}>({memory.name})"
            return memory.name
        if isinstance(value.type, ir.MemRefType):
            # a by-value argument passed on (passes/scalar_args.py): the caller's own by-value argument
            return self._memory(value).name
        dtype = parse_dtype(param.dtype)
        if dtype.is_fixed:
            return self._stored_text(op, index, dtype)
        return self._view(value, dtype.is_signed if dtype.is_integral_bits else None)

    def _return(self, op: ir.Operation) -> None:
        operands = list(op.operands)
        if not operands:
            return  # func.return ends the function body: a void function just falls off its end
        ret_dtype = parse_dtype(self.signature.ret_dtype)
        if ret_dtype.is_fixed:
            text = self._stored_text(op, 0, ret_dtype)
        else:
            text = self._view(operands[0], ret_dtype.is_signed if ret_dtype.is_integral_bits else None)
        self._line(f"return {text};")


def one_trip(op: ir.Operation) -> bool:
    """An affine.for of one iteration with nothing on it (no pragma, no carried value): it is
    emitted as its body (`acc = 0;`, not `for (int x = 0; x < 1; x++) acc[x] = 0;`)."""
    if op.name != "affine.for" or len(op.results) or len(op.operands):
        return False
    lower, upper = upstream.lower_bound_map(op), upstream.upper_bound_map(op)
    if len(lower.results) != 1 or len(upper.results) != 1:
        return False
    if not isinstance(lower.results[0], ir.AffineConstantExpr) or not isinstance(
        upper.results[0], ir.AffineConstantExpr
    ):
        return False
    trips = ir.AffineConstantExpr(upper.results[0]).value - ir.AffineConstantExpr(lower.results[0]).value
    if not 0 < trips <= upstream.loop_step(op) or loop_pragmas(op, ""):
        return False
    # a stage's own loop of extent 1 (a batch axis) keeps its label: reports and directives name it
    nested_loop = any(inner.name in _LOOPS for inner in walk(op))
    return (_loop_name(op) or "").endswith("_stage") or not nested_loop


def only_stores(op: ir.Operation) -> bool:
    """A loop body that only stores (declares no local): emitted without a C block of its own."""
    body = [inner.operation for inner in op.regions[0].blocks[0].operations]
    return all(
        inner.name in _STORES
        or inner.name in ("affine.yield", "arith.constant")
        or (inner.name in _CONSTANT_CASTS and inner.operands[0].owner.name == "arith.constant")
        for inner in body
    )


def _loop_name(op: ir.Operation) -> str | None:
    return attrs.loop_name(op)


def _has_content(block: ir.Block, carried: list[Carried | None]) -> bool:
    """Whether an else block does anything: ops besides the yield, or a yield to a used result."""
    operations = list(block.operations)
    return len(operations) > 1 or any(c is not None for c in carried)


MEMORY_LOOP_HANDLERS: dict[str, Handler] = {
    "memref.alloc": MemoryLoopOps._alloc,
    "memref.alloca": MemoryLoopOps._alloc,
    "memref.dealloc": MemoryLoopOps._dealloc,
    "memref.load": MemoryLoopOps._load,
    "memref.store": MemoryLoopOps._store,
    "affine.load": MemoryLoopOps._load,
    "affine.store": MemoryLoopOps._store,
    "affine.apply": MemoryLoopOps._affine_apply,
    "affine.for": MemoryLoopOps._affine_for,
    "scf.for": MemoryLoopOps._scf_for,
    "scf.while": MemoryLoopOps._scf_while,
    "scf.if": MemoryLoopOps._scf_if,
    "func.call": MemoryLoopOps._call,
    "func.return": MemoryLoopOps._return,
}
