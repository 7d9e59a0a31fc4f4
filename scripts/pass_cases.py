"""Write the IR-in/IR-out pass cases, tests/passes/<pass>/<case>.mlir, from small kernels.

    python scripts/pass_cases.py            # rewrite every case; review `git diff tests/passes`
    python scripts/pass_cases.py --check    # exit 1 naming each case whose file would change

Each kernel goes through the real flow (project.flow.compile_design: compile_schedule, the
reference lowering, to_llvm) with every pass wrapped so that it records the module text it is
given and its arguments; a case takes the input of one call of its pass, optionally with changed
arguments or an edited input (the refusal cases), and its expected text is what running the pass
on that input gives now (tests/pass_ir_helpers.run_case, what tests/compiler/test_pass_ir.py runs).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hclbuild as hcl  # noqa: E402
from hclbuild.atomic import write_text_atomic  # noqa: E402
from hclbuild.compiler import pipeline, to_llvm  # noqa: E402
from hclbuild.compiler.passes import outline_axis as outline_axis_module  # noqa: E402
from hclbuild.compiler.upstream_attrs import symbol_name  # noqa: E402
from hclbuild.errors import HCLError  # noqa: E402
from hclbuild.project import flow, lowering  # noqa: E402
from hclbuild.project.layout import BuildLayout  # noqa: E402
from hclbuild.schedule.outlines import StageRange, StageSet  # noqa: E402
from tests.pass_ir_helpers import CASES_DIR, PassCase, run_case  # noqa: E402

# ---- the kernels ------------------------------------------------------------------------------


def stream_chain() -> Any:
    """A -> B -> C -> D, B streamed to C, each stage its own function; named `main` (reserved_top)."""
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        C = hcl.compute((4,), lambda i: B[i] * 2, "C")
        return hcl.compute((4,), lambda i: C[i] - 3, "D")

    s = hcl.create_schedule([A], kernel, name="main")
    s.to(kernel.B, s[kernel.C], depth=2)
    s.outline(kernel.B)
    s.outline(kernel.C)
    s.outline(kernel.D)
    return s


def gather_divide() -> Any:
    """B[i] = A[Idx[i]] / Idx[i]: a subscript and a divisor the compiler cannot bound; one print."""
    A, Idx = hcl.placeholder((8,), "A"), hcl.placeholder((4,), "Idx")

    def kernel(A: Any, Idx: Any) -> Any:
        hcl.print(A[0], "%d\n")
        return hcl.compute((4,), lambda i: A[Idx[i]] / Idx[i], "B")

    return hcl.create_schedule([A, Idx], kernel)


def scratch_buffer() -> Any:
    """T, a buffer local to the top, then B from it: to_llvm's dealloc frees T."""
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        T = hcl.compute((4,), lambda i: A[i] * A[i], "T")
        return hcl.compute((4,), lambda i: T[i] + T[3 - i], "B")

    return hcl.create_schedule([A], kernel)


def window_sum() -> Any:
    """B[x] = A[x] + A[x+1] + A[x+2], A reused through a shift register."""
    A = hcl.placeholder((6,), "A")

    def kernel(A: Any) -> Any:
        return hcl.compute((4,), lambda x: A[x] + A[x + 1] + A[x + 2], "B")

    s = hcl.create_schedule([A], kernel)
    s.reuse_at(A, s[kernel.B], kernel.B.axis[0])
    return s


def line_then_window() -> Any:
    """A 2x2 window sum: a line buffer, then a window buffer on it (the fill loops fuse)."""
    A = hcl.placeholder((4, 4), "A")

    def kernel(A: Any) -> Any:
        r, c = hcl.reduce_axis(0, 2, "r"), hcl.reduce_axis(0, 2, "c")
        return hcl.compute((3, 3), lambda y, x: hcl.sum(A[y + r, x + c], axis=[r, c]), name="B")

    s = hcl.create_schedule([A], kernel)
    line = s.reuse_at(A, s[kernel.B], kernel.B.axis[0], "LB")
    s.reuse_at(line, s[kernel.B], kernel.B.axis[1], "WB")
    return s


def row_buffer() -> Any:
    """A 2x3 by 3x2 product whose output row is accumulated in a buffer."""
    A, B = hcl.placeholder((2, 3), "A"), hcl.placeholder((3, 2), "B")

    def kernel(A: Any, B: Any) -> Any:
        k = hcl.reduce_axis(0, 3, "k")
        return hcl.compute((2, 2), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), "C")

    s = hcl.create_schedule([A, B], kernel)
    s.buffer_at(kernel.C, s[kernel.C], kernel.C.axis[0])
    return s


def producer_in_consumer() -> Any:
    """B computed inside C's inner loop."""
    A = hcl.placeholder((2, 3), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((2, 3), lambda i, j: A[i, j] + 1, "B")
        return hcl.compute((2, 3), lambda i, j: B[i, j] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    return s


def independent_stages() -> Any:
    """B and C both read A and not each other; B computed at C's inner loop fuses the two nests."""
    A = hcl.placeholder((2, 3), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((2, 3), lambda i, j: A[i, j] + 1, "B")
        C = hcl.compute((2, 3), lambda i, j: A[i, j] * 2, "C")
        return hcl.compute((2, 3), lambda i, j: B[i, j] + C[i, j], "D")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    return s


def two_row_loops() -> Any:
    """Two loop nests whose bodies differ only in a bound, outlined at the rows and unified."""
    A, B, C = (hcl.placeholder((2, 4), n) for n in "ABC")

    def kernel(A: Any, B: Any, C: Any) -> None:
        with hcl.for_(0, 2, name="rows1") as i, hcl.for_(0, 3, name="cols1") as j:
            B[i, j] = A[i, j] * 2
        with hcl.for_(0, 2, name="rows2") as i, hcl.for_(0, 4, name="cols2") as j:
            C[i, j] = A[i, j] * 2

    s = hcl.create_schedule([A, B, C], kernel)
    s["rows2"].outline(axis="rows2", unify=s["rows1"].outline(axis="rows1"))
    return s


def colour_planes() -> Any:
    """gray[y][x] = rgb[0][y][x] + rgb[1][y][x] + rgb[2][y][x] pipelined at II=1: 3 reads, 2 ports."""
    rgb = hcl.placeholder((3, 2, 4), "rgb")

    def kernel(rgb: Any) -> Any:
        return hcl.compute((2, 4), lambda y, x: rgb[0, y, x] + rgb[1, y, x] + rgb[2, y, x], "gray")

    s = hcl.create_schedule([rgb], kernel)
    s[kernel.gray].pipeline(kernel.gray.axis[1])
    return s


def row_times_matrix() -> Any:
    """C[i][j] += A[i][k] * B[k][j] with j pipelined inside k: A[i][k] does not change in j."""
    A, B, C = hcl.placeholder((2, 3), "A"), hcl.placeholder((3, 4), "B"), hcl.placeholder((2, 4), "C")

    def kernel(A: Any, B: Any, C: Any) -> None:
        with (
            hcl.for_(0, 2, tag="S", name="i") as i,
            hcl.for_(0, 3, name="k") as k,
            hcl.for_(0, 4, name="j") as j,
        ):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]

    s = hcl.create_schedule([A, B, C], kernel)
    s["S"].pipeline(s["S"].axis[2])
    return s


def divide_by_zero() -> Any:
    A = hcl.placeholder((4,), "A")
    return hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i] / 0, "B"))


def subscript_outside() -> Any:
    A = hcl.placeholder((4,), "A")
    return hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[3] + A[4], "B"))


KERNELS: dict[str, Callable[[], Any]] = {
    k.__name__: k
    for k in (
        stream_chain,
        gather_divide,
        scratch_buffer,
        window_sum,
        line_then_window,
        row_buffer,
        producer_in_consumer,
        independent_stages,
        two_row_loops,
        colour_planes,
        row_times_matrix,
        divide_by_zero,
        subscript_outside,
    )
}


# ---- the cases --------------------------------------------------------------------------------


def _replaced(old: str, new: str) -> Callable[[str], str]:
    """The input with its one `old` written `new`."""

    def edit(text: str) -> str:
        if text.count(old) != 1:
            raise SystemExit(f"pass_cases: {old!r} is not in the input once")
        return text.replace(old, new)

    return edit


def _with_probe_declared(text: str) -> str:
    """The input with an @hcl_probe of another signature than instrument's already declared."""
    head, _, rest = text.partition("\n")
    return f"{head}\n  func.func private @hcl_probe(i32)\n{rest}"


@dataclass(frozen=True)
class Case:
    """A case: the pass's `nth` call while `kernel` compiles, its arguments updated by `args`."""

    pass_name: str
    name: str
    kernel: str
    nth: int = 0
    args: dict[str, Any] = field(default_factory=dict)
    edit: Callable[[str], str] | None = None


CASES: tuple[Case, ...] = (
    Case("outline", "three_groups", "stream_chain"),
    Case(
        "outline",
        "unknown_stage",
        "stream_chain",
        args={"groups": [["X"]], "unify": [False], "names": ["Stage_X"]},
    ),
    Case("outline_axis", "rows", "two_row_loops"),
    Case("outline_axis", "unknown_loop", "two_row_loops", args={"axis": "rows9"}),
    Case("unify", "loop_bound_argument", "two_row_loops"),
    Case("unify", "not_outlined", "two_row_loops", args={"target": "Stage_rows9"}),
    Case("compute_at", "inner_loop", "producer_in_consumer"),
    Case(
        "compute_at",
        "producer_after_consumer",
        "producer_in_consumer",
        args={"producer": "C", "consumer": "B"},
    ),
    Case("fuse_at", "inner_loop", "independent_stages"),
    Case("fuse_at", "no_such_stage", "independent_stages", args={"producer": "Z"}),
    Case("reuse_at", "shift_register", "window_sum"),
    Case("reuse_at", "line_buffer", "line_then_window"),
    Case("reuse_at", "window_buffer", "line_then_window", nth=1),
    Case("reuse_at", "no_such_tensor", "window_sum", args={"target": "Z"}),
    Case("fuse_fill_loops", "line_and_window", "line_then_window"),
    Case("buffer_at", "output_row", "row_buffer"),
    Case("buffer_at", "no_such_tensor", "row_buffer", args={"target": "Z"}),
    Case("stream", "b_to_c", "stream_chain"),
    Case("stream", "design_input", "stream_chain", args={"tensor": "A"}),
    Case("annotate_stream_arguments", "b_to_c", "stream_chain"),
    Case("constant_divisor", "divisor_unknown", "gather_divide"),
    Case("constant_divisor", "by_zero", "divide_by_zero"),
    Case("constant_subscript", "in_bounds", "scratch_buffer"),
    Case("constant_subscript", "outside", "subscript_outside"),
    Case("common_values", "square_read_once", "scratch_buffer"),
    Case("common_values", "row_of_a", "row_times_matrix"),
    Case("hoist_invariant_loads", "row_of_a", "row_times_matrix"),
    Case("hoist_invariant_loads", "every_load_varies", "colour_planes"),
    Case("parallel_reads", "colour_planes", "colour_planes"),
    Case("parallel_reads", "ports_suffice", "row_times_matrix"),
    Case("verify", "outlined_chain", "stream_chain"),
    Case(
        "verify",
        "stage_left_behind",
        "stream_chain",
        edit=_replaced('hcl.loop_name = "i", hcl.op_name = "D"', 'hcl.loop_name = "i", hcl.op_name = "C"'),
    ),
    Case("reserved_top", "main", "stream_chain"),
    Case("reserved_top", "kept", "scratch_buffer"),
    Case("split_functions", "outlined_chain", "stream_chain"),
    Case("instrument", "outlined_calls", "stream_chain"),
    Case("instrument", "probe_declared_otherwise", "stream_chain", edit=_with_probe_declared),
    Case("stream_check", "b_to_c", "stream_chain"),
    Case("bounds_check", "gather", "gather_divide"),
    Case("checked_division", "divisor_unknown", "gather_divide"),
    Case("print_calls", "one_print", "gather_divide"),
    Case("dealloc", "scratch", "scratch_buffer"),
    Case("split_llvm_units", "outlined_chain", "stream_chain"),
)


# ---- recording the input of each pass ---------------------------------------------------------

Calls = dict[str, list[tuple[str, dict[str, Any]]]]


def _json(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, StageSet):
        return list(value.stages)
    if isinstance(value, StageRange):
        return {"range": [value.start, value.end]}
    raise TypeError(f"pass_cases: cannot write argument {value!r}; give the case plain arguments")


def _record_function(calls: Calls, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    parameters = inspect.signature(function)

    def recorded(module: Any, *args: Any, **kwargs: Any) -> Any:
        bound = parameters.bind(module, *args, **kwargs)
        bound.apply_defaults()
        given = {k: _json(v) for k, v in list(bound.arguments.items())[1:]}
        calls.setdefault(name, []).append((str(module), given))
        return function(module, *args, **kwargs)

    return recorded


def _record_class(calls: Calls, name: str, cls: type) -> Callable[..., Any]:
    def make(*args: Any, **kwargs: Any) -> Any:
        instance = cls(*args, **kwargs)
        fields = {f.name: _json(getattr(instance, f.name)) for f in dataclasses.fields(instance)}
        if fields.pop("partitions", []):
            raise TypeError(f"pass_cases: {name} with partitions; the cases write none")

        class Recorded:
            def run(self, module: Any) -> Any:
                calls.setdefault(name, []).append((str(module), fields))
                return instance.run(module)

        return Recorded()

    return make


def _record_unify(calls: Calls, function: Callable[..., Any]) -> Callable[..., Any]:
    def recorded(module: Any, candidate: Any, call: Any, target_name: str | None) -> Any:
        args = {"candidate": symbol_name(candidate), "target": target_name}
        calls.setdefault("unify", []).append((str(module), args))
        return function(module, candidate, call, target_name)

    return recorded


def _record_reserved_top(calls: Calls, function: Callable[..., Any]) -> Callable[..., Any]:
    def recorded(design: Any) -> Any:
        calls.setdefault("reserved_top", []).append((str(design.module), {"top": design.top}))
        return function(design)

    return recorded


# (module, attribute, case pass name): the functions the flow calls, where it looks them up
RECORDED_FUNCTIONS = (
    (pipeline, "check_constant_divisors", "constant_divisor"),
    (pipeline, "check_constant_subscripts", "constant_subscript"),
    (pipeline, "outline_stages", "outline"),
    (pipeline, "annotate_stream_arguments", "annotate_stream_arguments"),
    (pipeline, "fuse_fill_loops", "fuse_fill_loops"),
    (pipeline, "merge_common_values", "common_values"),
    (pipeline, "hoist_invariant_loads", "hoist_invariant_loads"),
    (pipeline, "partition_parallel_reads", "parallel_reads"),
    (pipeline, "verify_module", "verify"),
    (flow, "function_modules", "split_functions"),
    (lowering, "instrument_calls", "instrument"),
    (lowering, "stream_checks", "stream_check"),
    (lowering, "bounds_check", "bounds_check"),
    (lowering, "check_divisions", "checked_division"),
    (to_llvm, "define_print_functions", "print_calls"),
    (to_llvm, "dealloc_allocs", "dealloc"),
    (to_llvm, "split_llvm_units", "split_llvm_units"),
)
RECORDED_CLASSES = (
    (pipeline, "OutlineAxisPass", "outline_axis"),
    (pipeline, "ReuseAtPass", "reuse_at"),
    (pipeline, "BufferAtPass", "buffer_at"),
    (pipeline, "ComputeAtPass", "compute_at"),
    (pipeline, "FuseAtPass", "fuse_at"),
    (pipeline, "StreamPass", "stream"),
)


@contextlib.contextmanager
def _recording(calls: Calls) -> Iterator[None]:
    saved = []
    replacements = [(m, a, _record_function(calls, n, getattr(m, a))) for m, a, n in RECORDED_FUNCTIONS]
    replacements += [(m, a, _record_class(calls, n, getattr(m, a))) for m, a, n in RECORDED_CLASSES]
    replacements.append(
        (outline_axis_module, "unify_with", _record_unify(calls, outline_axis_module.unify_with))
    )
    replacements.append((flow, "rename_reserved_top", _record_reserved_top(calls, flow.rename_reserved_top)))
    try:
        for module, attribute, replacement in replacements:
            saved.append((module, attribute, getattr(module, attribute)))
            setattr(module, attribute, replacement)
        yield
    finally:
        for module, attribute, original in saved:
            setattr(module, attribute, original)


def pass_inputs(kernel: str) -> Calls:
    """The module text and arguments of every pass call while `kernel` goes through the flow."""
    calls: Calls = {}
    hcl.init()
    schedule = KERNELS[kernel]()
    # a refusal case's kernel stops at the refusing pass: the passes before it were recorded
    with tempfile.TemporaryDirectory() as build, _recording(calls), contextlib.suppress(HCLError):
        flow.compile_design(schedule, BuildLayout(build, kernel), kernel)
    return calls


def build_cases() -> dict[Path, str]:
    """The text of every case file, by path."""
    recorded: dict[str, Calls] = {}
    files: dict[Path, str] = {}
    for case in CASES:
        if case.kernel not in recorded:
            recorded[case.kernel] = pass_inputs(case.kernel)
        calls = recorded[case.kernel].get(case.pass_name, [])
        if len(calls) <= case.nth:
            raise SystemExit(
                f"pass_cases: {case.kernel} calls {case.pass_name} {len(calls)} times, no call {case.nth}"
            )
        source, args = calls[case.nth]
        args = {**args, **case.args}
        if case.edit is not None:
            source = case.edit(source)
        expected, refused = run_case(case.pass_name, args, source)
        text = PassCase(case.pass_name, args, source, expected, refused).text()
        files[CASES_DIR / case.pass_name / f"{case.name}.mlir"] = text
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a case would change")
    options = parser.parse_args(argv)
    files = build_cases()
    stale = sorted(p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text)
    unknown = sorted(set(CASES_DIR.glob("*/*.mlir")) - set(files))
    if options.check:
        for path in stale + unknown:
            print(
                f"{path.relative_to(ROOT)}: {'not written by this script' if path in unknown else 'would change'}"
            )
        return 1 if stale or unknown else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, files[path])
        print(f"wrote {path.relative_to(ROOT)}")
    for path in unknown:
        print(f"{path.relative_to(ROOT)}: not written by this script (remove it if its case is gone)")
    print(f"{len(files)} cases, {len(stale)} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
