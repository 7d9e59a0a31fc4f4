"""Share one outlined function between bodies that differ only in constant loop bounds (HeteroCL unify).

Two functions unify when their bodies are the same ops on the same values, with the same
attributes (names aside), except for the constant upper bounds of affine.for loops. Each bound
that differs becomes a trailing `index` argument `<loop>_bound` of the shared function, its loop
running to that argument; every call passes its own bound. Memref arguments must match exactly:
no widening of one tensor to another's shape, which would change its strides in C.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import affine, arith
from mlir.dialects import func as func_d

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.affine_access import body_block, body_ops, constant_extent, loop_name, walk
from hclbuild.compiler.passes.outline import callee_name, functions, symbol_name, unique_names
from hclbuild.errors import APIError

_IGNORED = attrs.NAMING | attrs.OUTLINE_RECORDS


def _bound_argument(loop: ir.Operation, fn: ir.Operation) -> int | None:
    """The index of the function argument a loop of `fn` runs to, if its bound is one."""
    upper = upstream.upper_bound_map(loop)
    operands = list(loop.operands)
    if upper.n_inputs != 1 or len(operands) != 1 or not isinstance(operands[0], ir.BlockArgument):
        return None
    arg = operands[0]
    return arg.arg_number if arg.owner == body_block(fn) else None


def _compare(target: ir.Operation, candidate: ir.Operation) -> list[tuple[ir.Operation, int]] | None:
    """The loops of `target` whose bound must become (or already is) an argument, with the
    candidate's trip count for each; None when the bodies differ otherwise."""
    t_args, c_args = list(body_block(target).arguments), list(body_block(candidate).arguments)
    if len(t_args) < len(c_args) or [a.type for a in t_args[: len(c_args)]] != [a.type for a in c_args]:
        return None
    if (attrs.arg_types(target) or [])[: len(c_args)] != (attrs.arg_types(candidate) or []):
        return None
    mapping: dict[ir.Value, ir.Value] = dict(zip(t_args, c_args))
    t_ops, c_ops = list(walk(target))[1:], list(walk(candidate))[1:]
    if len(t_ops) != len(c_ops):
        return None
    bounds: list[tuple[ir.Operation, int]] = []
    for t, c in zip(t_ops, c_ops):
        if t.name != c.name or len(t.results) != len(c.results) or len(t.regions) != len(c.regions):
            return None
        skip_operands = False
        if t.name == "affine.for":
            extent = constant_extent(c)
            if extent is None or upstream.lower_bound_map(t) != upstream.lower_bound_map(c):
                return None
            argument = _bound_argument(t, target)
            if argument is not None or constant_extent(t) != extent:
                if argument is None and constant_extent(t) is None:
                    return None
                bounds.append((t, extent))
            skip_operands = True
        if not skip_operands:
            t_operands, c_operands = list(t.operands), list(c.operands)
            if len(t_operands) != len(c_operands):
                return None
            for tv, cv in zip(t_operands, c_operands):
                if tv not in mapping or mapping[tv] != cv:
                    return None
        if _attrs(t) != _attrs(c):
            return None
        for tr, cr in zip(t.results, c.results):
            if tr.type != cr.type:
                return None
            mapping[tr] = cr
        for t_region, c_region in zip(t.regions, c.regions):
            t_blocks, c_blocks = list(t_region.blocks), list(c_region.blocks)
            if len(t_blocks) != len(c_blocks):
                return None
            for tb, cb in zip(t_blocks, c_blocks):
                if [a.type for a in tb.arguments] != [a.type for a in cb.arguments]:
                    return None
                mapping.update(zip(tb.arguments, cb.arguments))
    return bounds


def _attrs(op: ir.Operation) -> list[tuple[str, str]]:
    ignored = _IGNORED | upstream.UPPER_BOUND_ATTRIBUTES if op.name == "affine.for" else _IGNORED
    return attrs.structural_attributes(op, ignored)


def _calls_of(module: ir.Module, name: str) -> list[ir.Operation]:
    return [op for op in walk(module.operation) if op.name == "func.call" and callee_name(op) == name]


def _recall(call: ir.Operation, callee: str, operands: list[ir.Value]) -> ir.Operation:
    """The call again, to `callee` with `operands`, keeping its hcl.stages."""
    with ir.InsertionPoint(call), call.location:
        new = func_d.CallOp([], callee, operands).operation
    attrs.copy_outlined_stages(call, new)
    call.erase()
    return new


def _add_bound_argument(module: ir.Module, target: ir.Operation, loop: ir.Operation) -> int:
    """Make `loop` of `target` run to a new trailing index argument; the callers pass its old bound."""
    old_bound = constant_extent(loop)
    block = body_block(target)
    index = ir.IndexType.get()
    argument = block.add_argument(index, ir.Location.unknown())
    function_type = upstream.function_type(target)
    upstream.set_function_type(
        target, ir.FunctionType.get(list(function_type.inputs) + [index], list(function_type.results))
    )
    names = unique_names((attrs.arg_names(target) or []) + [f"{loop_name(loop) or 'loop'}_bound"])
    attrs.set_arg_names(target, names)
    attrs.set_arg_types(target, (attrs.arg_types(target) or []) + ["index"])
    partitions = attrs.arg_partitions(target)
    if partitions is not None:
        attrs.set_arg_partitions(target, partitions + [[]])
    with ir.InsertionPoint(loop), loop.location:
        new = affine.AffineForOp(0, argument, 1)
    attrs.copy_contract_attributes(loop, new)
    with ir.InsertionPoint(new.body):
        terminator = affine.AffineYieldOp([]).operation
    for op in body_ops(body_block(loop)):
        op.move_before(terminator)
    body_block(loop).arguments[0].replace_all_uses_with(new.induction_variable)
    loop.erase()
    for call in _calls_of(module, symbol_name(target)):
        with ir.InsertionPoint(call), call.location:
            bound = arith.ConstantOp(index, old_bound).result
        _recall(call, symbol_name(target), list(call.operands) + [bound])
    return argument.arg_number


def unify_with(
    module: ir.Module, candidate: ir.Operation, call: ir.Operation, target_name: str | None
) -> str:
    """Call an earlier outlined function instead of `candidate` when they unify; the callee's name.

    With `target_name` the candidate must unify with that function (APIError otherwise); without,
    the first earlier `hcl.outlined` function that fits is taken, else the candidate stays.
    """
    earlier = [f for f in functions(module) if attrs.is_outlined(f) and f != candidate]
    if target_name is not None:
        earlier = [f for f in earlier if symbol_name(f) == target_name]
        if not earlier:
            raise APIError(f"outline: unify names @{target_name}, which is not an outlined function")
    for target in earlier:
        bounds = _compare(target, candidate)
        if bounds is None:
            continue
        extra: dict[int, int] = {}
        for loop, extent in bounds:
            argument = _bound_argument(loop, target)
            if argument is None:
                argument = _add_bound_argument(module, target, loop)
            extra[argument] = extent
        n_args = len(list(body_block(candidate).arguments))
        operands = list(call.operands)
        with ir.InsertionPoint(call), call.location:
            for k in range(n_args, len(list(body_block(target).arguments))):
                if k not in extra:
                    raise APIError(
                        f"outline: @{symbol_name(target)} takes argument {k} that the body of "
                        f"@{symbol_name(candidate)} cannot give"
                    )
                operands.append(arith.ConstantOp(ir.IndexType.get(), extra[k]).result)
        name = symbol_name(target)
        _recall(call, name, operands)
        candidate.erase()
        return name
    if target_name is not None:
        raise APIError(
            f"outline: @{symbol_name(candidate)} cannot unify with @{target_name}: their bodies "
            "differ beyond constant loop bounds, or their arguments differ"
        )
    return symbol_name(candidate)


__all__ = ["unify_with"]
