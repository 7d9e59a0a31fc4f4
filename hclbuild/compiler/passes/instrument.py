"""Probe every call to an outlined function for golden-vector capture (reference builds only).

Around each `func.call` to an `hcl.outlined` function in the `hcl.top` function, and for each
memref argument k of the call, the pass inserts `func.call @hcl_probe(site, 0, k, ptr)` before the
call and `func.call @hcl_probe(site, 1, k, ptr)` after it, ptr being the buffer's aligned address.
The runtime binds `hcl_probe` to a Python callback that copies the buffers (docs/IR.md). An integer
or index argument of at most 64 bits is probed before the call with its value (raw bits) in place
of the pointer: `func.call @hcl_probe(site, 0, k, value)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mlir.dialects import arith, memref
from mlir.dialects import func as func_d
from mlir.ir import (
    FunctionType,
    IndexType,
    InsertionPoint,
    IntegerAttr,
    IntegerType,
    Location,
    MemRefType,
    Module,
    Operation,
    ShapedType,
    Value,
    WalkOrder,
    WalkResult,
)

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.outline import (
    callee_name,
    dtype_of_type,
    find_top_function,
    functions,
    symbol_name,
)
from hclbuild.errors import APIError, CompileError
from hclbuild.probes import PHASE_AFTER, PHASE_BEFORE, PROBE_FUNCTION

ProbeArg = tuple[str, str, tuple[int, ...]]


@dataclass(frozen=True)
class ProbeSite:
    """One probed call: its site id, the callee, and per call argument (name, dtype name, shape).

    `args[k]` describes argument k of the call (shape () for a scalar, probed by value when it is an integer;
    -1 for a dynamic dimension). `stages` are the stage names the call stands for.
    """

    site: int
    callee: str
    args: tuple[ProbeArg, ...]
    stages: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        # JSON gives lists; tuples keep the site hashable and comparable
        args = tuple((str(n), str(d), tuple(int(x) for x in s)) for n, d, s in self.args)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "stages", tuple(self.stages))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: site, callee, stages, args as {"name", "dtype", "shape"} dicts."""
        return {
            "site": self.site,
            "callee": self.callee,
            "stages": list(self.stages),
            "args": [{"name": n, "dtype": d, "shape": list(s)} for n, d, s in self.args],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> ProbeSite:
        """Read what to_json wrote (the dict or its JSON text)."""
        fields: dict[str, Any] = json.loads(data) if isinstance(data, str) else data
        try:
            args = [(a["name"], a["dtype"], a["shape"]) for a in fields["args"]]
            return cls(
                int(fields["site"]), str(fields["callee"]), tuple(args), tuple(fields.get("stages", ()))
            )
        except (KeyError, TypeError, ValueError) as err:
            raise APIError(f"ProbeSite.from_json: malformed probe site {data!r} ({err})") from None


def instrument_calls(module: Module) -> list[ProbeSite]:
    """Insert hcl_probe calls around each outlined-function call of the top function (in place).

    Pass a clone: the instrumented module is for reference runs only. Site ids follow program order.
    """
    top = find_top_function(module, "instrument")
    defined = {symbol_name(f): f for f in functions(module)}
    calls: list[Operation] = []

    def visit(op: Operation) -> WalkResult:
        if op.name == "func.call":
            callee = defined.get(callee_name(op))
            if callee is not None and attrs.is_outlined(callee):
                calls.append(op)
        return WalkResult.ADVANCE

    top.walk(visit, WalkOrder.PRE_ORDER)
    if not calls:
        return []
    _declare_probe(module, defined)
    return [_instrument(site, call, defined[callee_name(call)]) for site, call in enumerate(calls)]


def _declare_probe(module: Module, defined: dict[str, Operation]) -> None:
    """Add `func.func private @hcl_probe(i64, i64, i64, i64)` unless the module already has it."""
    ctx = module.context
    i64 = IntegerType.get_signless(64, ctx)
    want = FunctionType.get([i64] * 4, [], ctx)
    existing = defined.get(PROBE_FUNCTION)
    if existing is not None:
        if upstream.function_type(existing) != want:
            raise CompileError(f"instrument: @{PROBE_FUNCTION} exists with another signature")
        return
    with InsertionPoint(module.body), Location.unknown(ctx):
        probe = func_d.FuncOp(PROBE_FUNCTION, want, visibility="private")
    attrs.set_arg_names(probe, ["site", "phase", "arg", "ptr"])
    attrs.set_arg_types(probe, ["int64"] * 4)


def _instrument(site: int, call: Operation, callee: Operation) -> ProbeSite:
    ctx = call.context
    i64 = IntegerType.get_signless(64, ctx)
    names = attrs.arg_names(callee) or []
    types = attrs.arg_types(callee) or []
    operands = list(call.operands)
    args: list[ProbeArg] = []
    for k, value in enumerate(operands):
        name = names[k] if k < len(names) else f"arg{k}"
        dtype = types[k] if k < len(types) else dtype_of_type(value.type)
        args.append((name, dtype, _shape(value)))
    probed = [k for k, value in enumerate(operands) if isinstance(value.type, MemRefType)]
    # scalars (the loop indices of an axis-outlined body) are probed by value, before the call
    scalars = [
        k
        for k, value in enumerate(operands)
        if isinstance(value.type, IndexType)
        or (isinstance(value.type, IntegerType) and IntegerType(value.type).width <= 64)
    ]

    with Location.unknown(ctx):
        with InsertionPoint(call):
            site_id, before, after = (_i64(n, i64) for n in (site, PHASE_BEFORE, PHASE_AFTER))
            arg_ids = {k: _i64(k, i64) for k in probed + scalars}
            pointers = {k: _pointer(operands[k], i64) for k in probed}
            for k in probed:
                func_d.CallOp([], PROBE_FUNCTION, [site_id, before, arg_ids[k], pointers[k]])
            for k in scalars:
                func_d.CallOp([], PROBE_FUNCTION, [site_id, before, arg_ids[k], _as_i64(operands[k], i64)])
        with InsertionPoint.after(call):
            # the buffers do not move during the call, so the pointers taken before stay valid
            for k in probed:
                func_d.CallOp([], PROBE_FUNCTION, [site_id, after, arg_ids[k], pointers[k]])
    # a unified callee holds other stages than the ones this call replaces: the call says which
    stages = attrs.outlined_stages(call)
    if stages is None:
        stages = attrs.outlined_stages(callee)
    stage_names = tuple(stages or ())
    return ProbeSite(site, symbol_name(callee), tuple(args), stage_names)


def _i64(value: int, i64: IntegerType) -> Value:
    return arith.ConstantOp(i64, IntegerAttr.get(i64, value)).result


def _as_i64(value: Value, i64: IntegerType) -> Value:
    """A scalar argument's bits in an i64 (index cast, or zero-extended: the probe keeps raw bits)."""
    if isinstance(value.type, IndexType):
        return arith.IndexCastOp(i64, value).result
    if IntegerType(value.type).width < 64:
        return arith.ExtUIOp(i64, value).result
    return value


def _pointer(buffer: Value, i64: IntegerType) -> Value:
    address = memref.ExtractAlignedPointerAsIndexOp(buffer, results=[IndexType.get()]).result
    return arith.IndexCastOp(i64, address).result


def _shape(value: Value) -> tuple[int, ...]:
    if not isinstance(value.type, MemRefType):
        return ()
    dynamic = ShapedType.get_dynamic_size()
    return tuple(-1 if d == dynamic else int(d) for d in value.type.shape)


@dataclass(frozen=True)
class InstrumentPass:
    """Pass form of `instrument_calls`."""

    name: ClassVar[str] = "instrument"

    def run(self, module: Module) -> list[ProbeSite]:
        """Instrument `module` in place; return the probe sites."""
        return instrument_calls(module)


__all__ = ["InstrumentPass", "ProbeSite", "instrument_calls"]
