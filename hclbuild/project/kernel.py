"""Loading a project's kernel.py: its schedule(), and optionally inputs(rng) and model(*inputs).

Each of them that declares a parameter named `sizes` gets the project's problem sizes (a
`Sizes` from project.toml's [sizes]) as that keyword argument: `def schedule(sizes)`,
`def inputs(rng, sizes)`, `def model(A, B, sizes)`.

Importing a kernel runs the user's DSL code only (pure Python, no MLIR), so task discovery can
trace it to learn the function names; the build does so in a child process (traced_functions), as
compile and the reference run do. Any exception becomes a one-line ConfigError naming the
project, the kernel file and the line that raised.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from hclbuild.compiler.passes.reserved_top import c_top_name
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.dsl.context import init, reset_default_dtype
from hclbuild.errors import ConfigError, HCLError
from hclbuild.project.config import Project
from hclbuild.project.knobs import KnobError, Knobs, KnobSpace, check_space, resolve_knobs
from hclbuild.runtime.isolate import run_isolated
from hclbuild.schedule.schedule import Schedule
from hclbuild.schedule.tracing import missing_stage_error

ENTRY_POINT = "schedule"
SIZES_PARAMETER = "sizes"
KNOBS_PARAMETER = "knobs"
SPACE_FUNCTION = "space"  # kernel.py's def space(sizes): the knobs, where project.toml has no [explore]


def _parameters(fn: Any) -> set[str]:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins and some C callables have no signature
        return set()


def _call_entry(project: Project, fn: Any, *args: Any, knobs: Knobs | None = None) -> Any:
    """fn(*args), plus sizes=project.sizes when fn declares a `sizes` parameter (and knobs= when
    given and fn declares `knobs`)."""
    parameters = _parameters(fn)
    keywords: dict[str, Any] = {}
    if SIZES_PARAMETER in parameters:
        keywords[SIZES_PARAMETER] = project.sizes
    if knobs is not None and KNOBS_PARAMETER in parameters:
        keywords[KNOBS_PARAMETER] = knobs
    return fn(*args, **keywords)


def knob_space(project: Project, module: ModuleType) -> tuple[KnobSpace, str]:
    """The project's knobs and where they are declared: project.toml's [explore] or kernel.py's
    space(sizes); ({}, "") when it declares none."""
    declared = getattr(module, SPACE_FUNCTION, None)
    if project.config.explore and callable(declared):
        raise ConfigError(
            f"{project.name}: knobs are declared twice, in project.toml [explore] and kernel.py "
            f"{SPACE_FUNCTION}(): keep one"
        )
    if project.config.explore:
        return {name: tuple(values) for name, values in project.config.explore.items()}, "project.toml"
    if not callable(declared):
        return {}, ""
    try:
        table = _call_entry(project, declared)
    except (Exception, SystemExit) as exc:
        raise _one_line(project, exc, f"{SPACE_FUNCTION}()") from None
    if not isinstance(table, dict):
        raise ConfigError(
            f"{project.kernel_path}: {SPACE_FUNCTION}() returned {type(table).__name__}, expected a dict "
            "of knob name -> list of values"
        )
    try:
        return check_space(table), f"kernel.py {SPACE_FUNCTION}()"
    except KnobError as exc:
        raise ConfigError(f"{project.kernel_path}: {SPACE_FUNCTION}() knob {exc.key!r} {exc}") from None


def chosen_knobs(project: Project, module: ModuleType) -> Knobs:
    """The knob values schedule() receives: project.toml's [knobs], else each knob's first value."""
    space, where = knob_space(project, module)
    if not space:
        if project.config.knobs:
            name = next(iter(project.config.knobs))
            raise ConfigError(
                f"{project.toml_path}: knobs.{name} is set, but the project declares no knobs "
                f"([explore] in project.toml or kernel.py {SPACE_FUNCTION}())"
            )
        return Knobs({})
    parameters = _parameters(getattr(module, ENTRY_POINT))
    if KNOBS_PARAMETER not in parameters:
        raise ConfigError(
            f"{project.kernel_path}: {ENTRY_POINT}() takes no `{KNOBS_PARAMETER}` argument, but "
            f"{where} declares knobs ({', '.join(space)}): write def {ENTRY_POINT}(sizes, {KNOBS_PARAMETER})"
        )
    return Knobs(resolve_knobs(space, project.config.knobs, f"{project.toml_path} [knobs]"))


def _where(exc: BaseException, kernel_path: Path) -> str:
    """`<file>:<line>` of the deepest frame in the user's project folder (kernel.py or a sibling
    module), else the kernel's path."""
    frames = traceback.extract_tb(exc.__traceback__)
    folder = kernel_path.parent.resolve()
    for frame in reversed(frames):
        try:
            if Path(frame.filename).resolve().parent == folder:
                return f"{frame.filename}:{frame.lineno}"
        except OSError:
            continue
    return str(kernel_path)


def _one_line(project: Project, exc: BaseException, doing: str) -> ConfigError:
    """`<file>:<line>: <doing> failed: <exception>: <message>`, as a compiler names a line."""
    where = _where(exc, project.kernel_path)
    # kernel.edges of a stage that does not exist: what s["edges"] says, not a bare AttributeError
    exc = missing_stage_error(exc) or exc
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return ConfigError(f"{where}: {doing} failed: {type(exc).__name__}: {message}")


# modules imported from a project's folder (its kernel's siblings) by load_kernel
_PROJECT_MODULES: set[str] = set()


def _is_below(path: str | None, folder: str) -> bool:
    return path is not None and Path(path).resolve().is_relative_to(folder)


def _forget_project_modules() -> None:
    """Drop the sibling modules earlier kernels imported: one process loads many projects, and
    `from helpers import X` in the next one must find its own helpers.py, not the cached one."""
    for name in _PROJECT_MODULES:
        sys.modules.pop(name, None)
    _PROJECT_MODULES.clear()


def load_kernel(project: Project) -> ModuleType:
    """Import projects/<name>/kernel.py as a fresh module (its folder importable while it loads)."""

    init()  # one process builds many projects: start each from HeteroCL's default dtype
    module_name = f"hclbuild_kernel_{project.name.replace('-', '_').replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, project.kernel_path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{project.name}: cannot import {project.kernel_path}")
    module = importlib.util.module_from_spec(spec)
    folder = str(project.kernel_path.parent.resolve())
    _forget_project_modules()
    before = set(sys.modules)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    # SystemExit too: a kernel.py that calls sys.exit() (a script's habit) ended hclbuild silently
    except (Exception, SystemExit) as exc:
        raise _one_line(project, exc, "importing kernel.py") from None
    finally:
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
        _PROJECT_MODULES.update(
            name
            for name in set(sys.modules) - before - {module_name}
            if _is_below(getattr(sys.modules[name], "__file__", None), folder)
        )
    if not callable(getattr(module, ENTRY_POINT, None)):
        raise ConfigError(f"{project.name}: kernel.py defines no {ENTRY_POINT}() returning the schedule")
    return module


def kernel_schedule(project: Project, module: ModuleType | None = None) -> Any:
    """Call kernel.schedule() and check it returned an hcl schedule."""

    module = module or load_kernel(project)
    knobs = chosen_knobs(project, module)
    # not init(): an algorithm written at kernel.py's module level must survive until schedule()
    reset_default_dtype()
    try:
        schedule = _call_entry(project, getattr(module, ENTRY_POINT), knobs=knobs)
    except (Exception, SystemExit) as exc:
        raise _one_line(project, exc, f"{ENTRY_POINT}()") from None
    if not isinstance(schedule, Schedule):
        raise ConfigError(
            f"{project.name}: kernel.py {ENTRY_POINT}() returned {type(schedule).__name__}, "
            "expected the schedule from hcl.create_schedule"
        )
    if schedule.name != project.config.top:
        raise ConfigError(
            f"{project.name}: the schedule is named {schedule.name!r} but project.toml says top = "
            f"{project.config.top!r}"
        )
    return schedule


def traced_functions(project: Project) -> list[str]:
    """design_functions of kernel.py's schedule, traced in a child process (runtime.isolate).

    kernel.py's code never runs in the build's own process: an os._exit() or os.abort() in it
    (in any thread it starts) ends the child, one line naming the project; a loop that never ends
    is stopped at [reference] timeout; a thread it leaves running ends with the child."""
    return run_isolated(
        _functions_of_kernel,
        project,
        what=f"{project.name}: tracing kernel.py",
        timeout=project.config.reference_timeout,
    )


def _functions_of_kernel(project: Project) -> list[str]:
    return design_functions(kernel_schedule(project), project.name)


def design_functions(schedule: Any, project_name: str) -> list[str]:
    """The functions that get their own HLS project: the top, then outlined functions in the order
    compile makes them (axis outlines first, then s.outline groups), each once.

    Names follow from the schedule alone, except where `unify=True` lets a body share any earlier
    function it matches: only compiling tells, so such a schedule is compiled here (its errors
    named after the project, as the compile task's are)."""
    names = _outlined_names(schedule)
    if names is None:
        try:
            names = compile_schedule(schedule).outlined
        except HCLError as exc:
            raise type(exc)(f"{project_name}: {exc}") from None
    outlined = list(dict.fromkeys(names))
    # the top's name in C++, as compile renames it (a design named `main`: main() is the testbench's)
    return [c_top_name(schedule.name, outlined), *outlined]


def _outlined_names(schedule: Any) -> list[str] | None:
    """Outlined function names as compile_schedule makes them, or None when a unify=True may share."""
    names = []
    for axis_request in schedule.axis_outlines:
        if axis_request.unify is True:
            return None
        # unify=<function>: the body joins that function (compile refuses it when it cannot)
        names.append(axis_request.unify or axis_request.function)
    for request in schedule.outlines:
        if request.unify:
            return None
        names.extend(request.names)  # s.outline() named each group's function, as compile names it
    return names


def call_optional(project: Project, module: ModuleType, name: str, *args: Any) -> Any:
    """kernel.<name>(*args) when the kernel defines it, else None; errors become one line."""
    fn = getattr(module, name, None)
    if fn is None:
        return None
    try:
        return _call_entry(project, fn, *args)
    except (Exception, SystemExit) as exc:
        raise _one_line(project, exc, f"{name}()") from None
