"""create_schedule: a HeteroCL algorithm traced into a Schedule (from a function, or from what was
written at module level since hcl.init()), and the stage handles it hangs on the algorithm function."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.trace import (
    Program,
    copy_for_schedule,
    program_scope,
    retake_module_program,
    take_module_program,
)
from hclbuild.errors import APIError
from hclbuild.schedule.schedule import Schedule

# the class of schedule the functions below make: Schedule, or hclbuild.api's (which adds s.module)
ScheduleT = TypeVar("ScheduleT", bound=Schedule)


def create_schedule(
    inputs: object,
    func: Callable[..., Any] | None = None,
    name: str | None = None,
    *,
    schedule_class: type[ScheduleT],
) -> ScheduleT:
    """hcl.create_schedule(inputs, func=None, name=None): trace func(*inputs) into a schedule.

    Without func, the algorithm is what was written at module level since hcl.init() (or the last
    create_schedule), and `inputs` lists every argument of the design in order, outputs included.
    The schedule is a `schedule_class` (hclbuild.api's adds s.module, which compiles it).
    """
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, Tensor) for t in inputs):
        raise APIError("create_schedule: inputs must be a list of hcl.placeholder tensors")
    if func is not None and not callable(func):
        raise APIError("create_schedule: func must be callable")
    top_name = name or "top"
    if not top_name.isidentifier():
        raise APIError(f"create_schedule: name {top_name!r} must be a C identifier")
    module_level = take_module_program()  # HeteroCL drops it when func is given, as here
    if func is None:
        return _module_level_schedule(module_level, list(inputs), top_name, schedule_class)
    return trace_schedule(list(inputs), func, top_name, {}, schedule_class)


def trace_schedule(
    inputs: list[Tensor],
    func: Callable[..., Any],
    name: str | None,
    dtypes: dict[str, Any],
    schedule_class: type[ScheduleT],
) -> ScheduleT:
    """Trace func(*inputs) into a schedule; tensors named in `dtypes` are made with those dtypes
    (a scheme's downsize/quantize)."""
    top_name = name or "top"
    program = Program(top_name)
    program.dtype_overrides.update(dtypes)
    program.used_names.add(top_name)
    for k, tensor in enumerate(inputs):
        if tensor.kind != "placeholder":
            raise APIError(f"create_schedule: input {k} ({tensor.name!r}) is not a placeholder")
        _name_argument(program, tensor)
    with program_scope(program):
        program.top.params.extend(inputs)
        result = func(*inputs)
    outputs: list[Tensor] = []
    returned = result if isinstance(result, (list, tuple)) else ([] if result is None else [result])
    for item in returned:
        if not isinstance(item, Tensor):
            raise APIError(f"create_schedule: the algorithm returned {type(item).__name__}, expected tensors")
        if any(item is t for t in inputs) or any(item is t for t in outputs):
            continue
        outputs.append(item)
    schedule = schedule_class(program, list(inputs), outputs, func)
    aliases = [
        (stage.stmt.alias, stage)
        for stage in schedule.stages.values()
        if stage.stmt.alias and stage.stmt.alias not in schedule.stages and stage.name not in schedule.parents
    ]
    # hcl.local buffers (no stage: kernel.T is the tensor, for s.partition / s.bind_storage), then
    # def_ functions: a stage of the same name keeps the attribute
    locals_ = [(t.name, t) for t in program.top.allocs if t.kind == "local"]
    for stage_name, stage in [*locals_, *program.def_handles.items(), *schedule.stages.items(), *aliases]:
        # builtins and bound methods take no attributes; s["name"] still works
        with contextlib.suppress(AttributeError, TypeError):
            setattr(func, stage_name, stage)
    with contextlib.suppress(TypeError):  # not every callable can be weakly referenced
        _STAGE_HOLDERS[func] = (schedule.name, tuple(schedule.stages))
    return schedule


# algorithm function -> (schedule name, its stages): a Python function's attribute lookup cannot be
# changed, so `kernel.edges` of a missing stage raises a bare AttributeError; missing_stage_error
# turns it into the message s["edges"] gives
_STAGE_HOLDERS: weakref.WeakKeyDictionary[Callable[..., Any], tuple[str, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)


def missing_stage_error(exc: BaseException) -> APIError | None:
    """`schedule 'top' has no stage 'edges' (stages: ...)` for the AttributeError of `kernel.edges`
    on an algorithm function that create_schedule traced (HeteroCL's stage handles); else None."""
    if not isinstance(exc, AttributeError) or exc.name is None:
        return None
    if not callable(exc.obj):
        return None
    try:
        held = _STAGE_HOLDERS.get(exc.obj)
    except TypeError:  # an object that cannot be weakly referenced is no algorithm function
        return None
    if held is None:
        return None
    name, stages = held
    return APIError(f"schedule {name!r} has no stage {exc.name!r} (stages: {', '.join(stages)})")


def _name_argument(program: Program, tensor: Tensor) -> None:
    if not tensor.name:
        tensor.name = program.auto_name("placeholder")
    elif tensor.name in program.used_names:
        raise APIError(f"create_schedule: two inputs are named {tensor.name!r}")
    else:
        program.used_names.add(tensor.name)


def _module_level_schedule(
    program: Program | None, tensors: list[Tensor], top_name: str, schedule_class: type[ScheduleT]
) -> ScheduleT:
    """create_schedule([A, B]) with no func: the listed tensors (placeholders and tensors the
    module-level algorithm computed) are the arguments, in order; the design returns nothing.

    Nothing written since the last create_schedule: the algorithm that one took, again."""
    if program is None or not program.top.body:
        program = retake_module_program()
    if program is None:
        raise APIError(
            "create_schedule: received an empty algorithm (no function given and nothing "
            "written at module level since hcl.init())"
        )
    program = copy_for_schedule(program)
    if top_name in program.used_names:
        raise APIError(f"create_schedule: name {top_name!r} is already a stage or tensor of the algorithm")
    program.name = program.top.name = top_name
    program.used_names.add(top_name)
    local = {id(t) for t in program.top.allocs}
    seen: set[int] = set()
    for k, tensor in enumerate(tensors):
        if id(tensor) in seen:
            raise APIError(f"create_schedule: tensor {tensor.name!r} is listed twice")
        seen.add(id(tensor))
        if tensor.kind == "placeholder":
            _name_argument(program, tensor)
        elif id(tensor) not in local:
            raise APIError(
                f"create_schedule: argument {k} ({tensor.name!r}) is neither a placeholder nor "
                "a tensor computed at module level since hcl.init()"
            )
    program.top.params.extend(tensors)
    return schedule_class(program, tensors, [], None)
