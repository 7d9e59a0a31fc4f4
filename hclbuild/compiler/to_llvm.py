"""Lower an IR-contract MLIR module (docs/IR.md) to LLVM IR text for hclbuild.runtime.llvm."""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith
from mlir.dialects.llvm import translate_module_to_llvmir
from mlir.passmanager import PassManager

from hclbuild.code_units import CodeUnit
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.context import new_context
from hclbuild.compiler.dense import dense_array
from hclbuild.compiler.passes.dealloc import dealloc_allocs
from hclbuild.compiler.passes.print_calls import define_print_functions
from hclbuild.compiler.passes.split_llvm_units import split_llvm_units
from hclbuild.compiler.work_estimate import function_work
from hclbuild.errors import CompileError

# convert-math-to-funcs first: math.ipowi (and fpowi) have no LLVM/libm lowering of their own.
# arith-expand turns floordivsi/ceildivsi/ceildivui into plain arith ops for convert-to-llvm.
# math-to-llvm before math-to-libm: intrinsics where LLVM has them, libm calls for the rest
# (erf, cbrt, tanh...), see TOOLCHAIN.md section 1.
LOWERING_PASSES: tuple[str, ...] = (
    "lower-affine",
    "convert-math-to-funcs",
    "arith-expand",
    "expand-strided-metadata",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-scf-to-cf",
    "convert-to-llvm",
    "reconcile-unrealized-casts",
)

# MLIR-level clean-up before lowering; the heavy optimisation is LLVM's O2/O3 in the runtime.
# affine-raise-from-memref turns the builder's memref.load/store with arith index math into affine
# accesses, which lower-affine folds into one affine expression per subscript: LLVM then vectorises
# loops it left scalar before (PolyBench gemm's split j loop ran 4-8x faster; every suite kernel
# gave bit-identical results). Loop-invariant loads leave the loops first. affine-super-vectorize
# was tried too and is not used: 8x on gemm but 2-6x slower on 2mm/3mm/conv_pool, whose column
# counts are not multiples of the vector (masked transfers).
# They run on functions that are optimised at all (not the optnone ones of a reference build).
CLEANUP_PASSES: tuple[str, ...] = ("canonicalize", "cse")
VECTORISE_PASSES: tuple[str, ...] = (
    "affine-raise-from-memref",
    "affine-loop-invariant-code-motion",
    "canonicalize",
)

# With run_once, memref.alloc goes through MLIR's generic allocation functions, which the module
# defines before lowering (finalize-memref-to-llvm then calls them) as calloc/free: every buffer of
# the reference starts zeroed, so golden vectors of buffers a function only writes depend on the
# design and the seed alone, not on what malloc returned.
_GENERIC_ALLOC = "finalize-memref-to-llvm{use-generic-functions=1}"
_ZEROED_ALLOC = """
llvm.func @calloc(i64, i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func internal @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
  %one = llvm.mlir.constant(1 : i64) : i64
  %zeroed = llvm.call @calloc(%one, %size) : (i64, i64) -> !llvm.ptr
  llvm.return %zeroed : !llvm.ptr
}
llvm.func internal @_mlir_memref_to_llvm_free(%buffer: !llvm.ptr) {
  llvm.call @free(%buffer) : (!llvm.ptr) -> ()
  llvm.return
}
"""

# With run_once, a function making at most this many memory accesses per run is compiled without
# optimisation (LLVM `optnone`): O3 would cost more than the run (see work_estimate).
RUN_ONCE_OPTNONE_WORK = 1 << 16


def lower_to_llvm_units(
    module: ir.Module | ir.Operation, opt_level: int = 2, run_once: bool = False, in_place: bool = False
) -> list[CodeUnit]:
    """The code units of an IR-contract module (one per function, hclbuild.code_units), lowered and
    split in MLIR (passes/split_llvm_units.py); public functions get `_mlir_ciface_<name>` entry points.

    The module is verified, then copied into a fresh Context, so the caller's module is unchanged;
    with in_place (an ir.Module the caller no longer needs) it is lowered itself, without the copy.
    opt_level 0 lowers as is; 1 and above run integer range folding (bounds checks that cannot
    fire go away), canonicalize and cse first (LLVM O2/O3 comes later, in hclbuild.runtime.llvm).
    run_once (the reference run) marks functions doing little work `optnone` and zero-fills every
    allocation. Any failure raises CompileError with the MLIR diagnostic.
    """
    lowered = _lower(module, opt_level, run_once, in_place)
    with lowered.context:
        return split_llvm_units(lowered)


def lower_to_llvm_ir(
    module: ir.Module | ir.Operation, opt_level: int = 2, run_once: bool = False, in_place: bool = False
) -> str:
    """The whole module as one LLVM IR text (to read, or to run as one unit); see lower_to_llvm_units."""
    lowered = _lower(module, opt_level, run_once, in_place)
    with lowered.context:
        try:
            return translate_module_to_llvmir(lowered.operation)
        except (ir.MLIRError, RuntimeError, ValueError) as err:
            raise CompileError(_format("to_llvm: translation to LLVM IR failed", err)) from None


def _lower(module: ir.Module | ir.Operation, opt_level: int, run_once: bool, in_place: bool) -> ir.Module:
    """The module (a copy, unless in_place) lowered to the LLVM dialect and verified."""
    if not isinstance(opt_level, int) or not 0 <= opt_level <= 3:
        raise CompileError(f"to_llvm: opt_level must be 0..3, got {opt_level!r}")
    operation = module.operation
    _verify(operation, "to_llvm: the module does not verify")
    if in_place:
        if not isinstance(module, ir.Module):
            raise CompileError("to_llvm: in_place lowering needs an ir.Module")
        copy = module
    else:
        # debug info keeps the caller's locations in diagnostics of the copy
        text = operation.get_asm(enable_debug_info=True, assume_verified=True)
        try:
            copy = ir.Module.parse(text, new_context())
        except ir.MLIRError as err:
            raise CompileError(_format("to_llvm: cannot re-parse the module", err)) from None
    with copy.context, ir.Location.unknown():
        define_print_functions(copy)  # before the hcl.* attributes are dropped
        _prepare_functions(copy)
        if run_once and opt_level >= 1:
            _mark_light_functions(copy)
        if opt_level >= 1:
            _prepare_for_vectorising(copy)
        dealloc_allocs(copy)  # malloc'd buffers of the design would leak on every call
        _widen_to_containers(copy)
        if run_once and _allocates(copy):
            _define_zeroed_alloc(copy)
        _verify(copy.operation, "to_llvm: internal error, the prepared module does not verify")
        passes = (CLEANUP_PASSES if opt_level >= 1 else ()) + LOWERING_PASSES
        if run_once:
            at = passes.index("expand-strided-metadata") + 1
            passes = passes[:at] + (_GENERIC_ALLOC,) + passes[at:]
        pipeline = f"builtin.module({', '.join(passes)})"
        manager = PassManager.parse(pipeline)
        # verified once after the pipeline, not after each of its ~12 passes (0.06-0.1 s of a
        # 200-function lowering); translation below needs verified LLVM-dialect IR either way
        manager.enable_verifier(False)
        try:
            manager.run(copy.operation)
        except ir.MLIRError as err:
            raise CompileError(_format("to_llvm: lowering to the LLVM dialect failed", err)) from None
        _check_llvm_dialect_only(copy)  # names an op left unlowered, before the verifier's message
        _verify(copy.operation, "to_llvm: internal error, the lowered module does not verify")
        _passthrough_attributes(copy)
    return copy


def _allocates(module: ir.Module) -> bool:
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        found = op.name == "memref.alloc"
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _define_zeroed_alloc(module: ir.Module) -> None:
    """The generic allocation functions as calloc/free wrappers, at the module's start (see _ZEROED_ALLOC)."""
    helpers = ir.Module.parse(_ZEROED_ALLOC, module.context)
    point = ir.InsertionPoint.at_block_begin(module.body)
    for op in helpers.body.operations:
        op.operation.clone(ip=point)


def _verify(operation: ir.Operation, summary: str) -> None:
    """Raise CompileError with the first diagnostic when the module does not verify."""
    try:
        operation.verify()
    except ir.MLIRError as err:
        raise CompileError(_format(summary, err)) from None


def _prepare_functions(module: ir.Module) -> None:
    """Mark public functions for C-interface wrappers and drop hclbuild attributes from functions."""
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        upstream.keep_only_inherent(op)
        is_declaration = len(op.regions[0].blocks) == 0
        if upstream.is_public(op) and not is_declaration:
            upstream.mark_c_interface(op)


def _mark_light_functions(module: ir.Module) -> None:
    """`optnone noinline` on every function whose static work is at most RUN_ONCE_OPTNONE_WORK."""
    work = function_work(module)
    for op in module.body.operations:
        op = op.operation
        if (
            op.name == "func.func"
            and work.get(upstream.symbol_name(op), 0) <= RUN_ONCE_OPTNONE_WORK
            and op.regions[0].blocks
        ):
            upstream.set_passthrough(op, ["optnone", "noinline"])


def _prepare_for_vectorising(module: ir.Module) -> None:
    """VECTORISE_PASSES on every function with a body that is not marked optnone."""
    pipeline = PassManager.parse(f"func.func({', '.join(VECTORISE_PASSES)})")
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and op.regions[0].blocks and not upstream.has_passthrough(op):
            try:
                pipeline.run(op)
            except ir.MLIRError as err:
                raise CompileError(
                    _format("to_llvm: preparing a function for vectorisation failed", err)
                ) from None


def _passthrough_attributes(module: ir.Module) -> None:
    """func-to-llvm keeps `llvm.passthrough` as a plain attribute; LLVM IR export wants `passthrough`."""
    for op in module.body.operations:
        if op.operation.name == "llvm.func":
            upstream.export_passthrough(op)


def _check_llvm_dialect_only(module: ir.Module) -> None:
    """Raise CompileError on the first op the lowering left behind.

    translate_module_to_llvmir crashes the process (not an exception) on such a module.
    """
    leftover: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name != "builtin.module" and not op.name.startswith("llvm."):
            leftover.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if not leftover:
        return
    # a cast left over only marks the boundary to the op that really was not lowered
    real = [op for op in leftover if op.name != "builtin.unrealized_conversion_cast"]
    op = (real or leftover)[0]
    raise CompileError(f"to_llvm: {op.name} at {op.location} has no LLVM lowering")


def _widen_to_containers(module: ir.Module) -> None:
    """Give memrefs of odd-width integers their host container as element type (i3 -> i8,
    i24 -> i32, i96 -> i128, i200 -> i256), with extui before stores and trunci after loads.

    MLIR 22's memref-to-LLVM lowering asserts (aborting the process) on stores of sub-byte
    elements. And translation folds an alloc's byte size with LLVM's default data layout, where an
    i96 element takes 12 bytes, while the JIT indexes it with the host's (16 bytes on x86-64): the
    buffer would overflow its malloc. Container widths (hclbuild.dsl.types storage_bits: 8..64, then
    multiples of 128) have one size under every layout, and one element per container,
    zero-extended, is exactly the host layout, so the widened code reads and writes the same bytes.
    Constant globals (hcl.const_tensor) are widened with their values.
    """
    values: list[ir.Value] = []
    functions: list[ir.Operation] = []
    # loads and stores with their container type, found before any memref changes type
    loads: list[tuple[ir.Operation, ir.Type]] = []
    stores: list[tuple[ir.Operation, ir.Type]] = []
    globals_: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.func":
            functions.append(op)
        if op.name == "memref.global" and _container(upstream.global_type(op)):
            globals_.append(op)
        for region in op.regions:
            for block in region.blocks:
                values.extend(arg for arg in block.arguments if _container(arg.type))
        values.extend(result for result in op.results if _container(result.type))
        if op.name in ("memref.load", "affine.load") and _container(op.operands[0].type):
            loads.append((op, _container(op.operands[0].type)))
        if op.name in ("memref.store", "affine.store") and _container(op.operands[1].type):
            stores.append((op, _container(op.operands[1].type)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    for op in functions:
        function_type = upstream.function_type(op)
        inputs = [_widened(t) for t in function_type.inputs]
        results = [_widened(t) for t in function_type.results]
        upstream.set_function_type(op, ir.FunctionType.get(inputs, results))
    for op in globals_:
        # hcl.const_tensor values, zero-extended into their containers like every such buffer
        narrow = upstream.global_type(op)
        width = ir.IntegerType(narrow.element_type).width
        wide = _container(narrow)
        raw = dense_array(upstream.global_initial_value(op)) & ((1 << width) - 1)
        text = np.array2string(
            np.asarray(raw, dtype=object),
            separator=", ",
            threshold=raw.size + 1,
            max_line_width=2**31,
            formatter={"all": str},
        )
        shaped = ir.RankedTensorType.get(narrow.shape, wide)
        upstream.set_global_type(op, _widened(narrow))
        upstream.set_global_initial_value(op, ir.Attribute.parse(f"dense<{text}> : {shaped}"))
    for value in values:
        value.set_type(_widened(value.type))
    for op, container in loads:
        loaded = op.results[0]
        narrow_type = loaded.type
        loaded.set_type(container)
        with ir.InsertionPoint.after(op), op.location:
            narrowed = arith.TruncIOp(narrow_type, loaded)
        loaded.replace_all_uses_except(narrowed.result, narrowed.operation)
    for op, container in stores:
        stored = op.operands[0]
        with ir.InsertionPoint(op), op.location:
            widened = arith.ExtUIOp(container, stored)
        op.replace_uses_of_with(stored, widened.result)


def _container(mlir_type: ir.Type) -> ir.Type | None:
    """The element type a memref of an odd-width integer is widened to (None: it stays as it is)."""
    if not isinstance(mlir_type, ir.MemRefType):
        return None
    element = mlir_type.element_type
    if not isinstance(element, ir.IntegerType):
        return None
    width = element.width
    container = next((w for w in (8, 16, 32, 64) if width <= w), -(-width // 128) * 128)
    return None if width == container else ir.IntegerType.get_signless(container)


def _widened(mlir_type: ir.Type) -> ir.Type:
    container = _container(mlir_type)
    if container is None:
        return mlir_type
    return ir.MemRefType.get(mlir_type.shape, container, mlir_type.layout, mlir_type.memory_space)


def _format(summary: str, err: Exception) -> str:
    """One summary line with the first diagnostic, then the full diagnostic text."""
    diagnostics = getattr(err, "error_diagnostics", None) or []
    if diagnostics:
        first = diagnostics[0]
        head = f"{summary}: {first.location}: {first.message}".replace("\n", " ")
    else:
        lines = [line for line in str(err).splitlines() if line.strip()]
        head = f"{summary}: {lines[-1].strip() if lines else type(err).__name__}"
    return f"{head}\n{err}"
