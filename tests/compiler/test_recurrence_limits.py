"""Pipelined loops whose II a loop-carried recurrence forbids are named when the design compiles
(compiler/recurrence_limits.py): the chain, its cycles and the II it gives, in one line."""

from __future__ import annotations

from pathlib import Path

import hclbuild as hcl
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.recurrence_limits import recurrence_limited_loops
from hclbuild.project.config import load_project
from hclbuild.project.kernel import kernel_schedule

REPO = Path(__file__).resolve().parents[2]


def _limits(s) -> list[str]:
    return [limit.message for limit in recurrence_limited_loops(compile_schedule(s).module)]


def _project_limits(name: str) -> list[str]:
    return _limits(kernel_schedule(load_project(REPO / "projects" / name)))


def _running_sum(dtype, partition: bool = False):
    """acc[0] += A[i] pipelined on i: the accumulator is carried from each iteration to the next."""
    hcl.init(dtype)
    A = hcl.placeholder((16,), "A")
    acc = hcl.placeholder((2,), "acc")

    def kernel(A, acc):
        def add(i):
            acc[0] = acc[0] + A[i]

        hcl.mutate((16,), add, name="sum")

    s = hcl.create_schedule([A, acc], kernel)
    s[kernel.sum].pipeline(kernel.sum.axis[0])
    if partition:
        s.partition(acc, hcl.Partition.Complete)
    return s


def _shifted(offset: int):
    """B[i + offset] = B[i] * 3 pipelined on i: a dependence at distance `offset` (none when <= 0)."""
    hcl.init(hcl.Float())
    B = hcl.placeholder((40,), "B")

    def kernel(B):
        def step(i):
            B[i + 4 + offset] = B[i + 4] * 3.0

        hcl.mutate((30,), step, name="shift")

    s = hcl.create_schedule([B], kernel)
    s[kernel.shift].pipeline(kernel.shift.axis[0])
    return s


def test_seidel_2d_as_it_was_is_named_with_its_chain() -> None:
    """The column loop of seidel_2d, asked II=1 (the project asked it before issue 33): A[i][j-1]
    is the previous iteration's A[i][j], through an add and the division by 9."""
    assert _limits_of_seidel(ii=1) == [
        "top: loop l_time_x asks II=1; the recurrence through A "
        "(fadd 4 + fdiv 12 + store/load 3 = 19 cycles) gives II=19"
    ]


def _limits_of_seidel(ii: int) -> list[str]:
    """seidel_2d's sweep (projects/seidel_2d) at a small size, pipelined at `ii`."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((8, 8), "A")

    def kernel(A):
        def point(y, x):
            i, j = y + 1, x + 1
            A[i, j] = (
                A[i - 1, j - 1]
                + A[i - 1, j]
                + A[i - 1, j + 1]
                + A[i, j]
                + A[i, j + 1]
                + A[i + 1, j - 1]
                + A[i + 1, j]
                + A[i + 1, j + 1]
                + A[i, j - 1]
            ) / 9.0

        def step(t):
            hcl.mutate((6, 6), point, name="sweep")

        hcl.mutate((2,), step, name="time")

    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.time.sweep].pipeline(kernel.time.sweep.axis[1], initiation_interval=ii)
    return _limits(s)


def test_seidel_at_the_ii_its_recurrence_allows_is_silent() -> None:
    assert _limits_of_seidel(ii=19) == []
    assert _limits_of_seidel(ii=18) == [
        "top: loop l_time_x asks II=18; the recurrence through A "
        "(fadd 4 + fdiv 12 + store/load 3 = 19 cycles) gives II=19"
    ]


def test_the_seidel_project_asks_the_ii_it_can_have() -> None:
    assert _project_limits("seidel_2d") == []


def test_an_integer_accumulator_in_ram_pays_the_round_trip_and_in_registers_nothing() -> None:
    assert _limits(_running_sum(hcl.Int(32))) == [
        "top: loop l_sum_i asks II=1; the recurrence through acc (store/load 3 = 3 cycles) gives II=3"
    ]
    # partitioned completely: two registers, and an integer add chains within the cycle
    assert _limits(_running_sum(hcl.Int(32), partition=True)) == []


def test_a_float_accumulator_in_registers_still_waits_for_its_adder() -> None:
    assert _limits(_running_sum(hcl.Float(), partition=True)) == [
        "top: loop l_sum_i asks II=1; the recurrence through acc (fadd 4 = 4 cycles) gives II=4"
    ]


def test_the_distance_divides_the_chain() -> None:
    assert _limits(_shifted(1)) == [
        "top: loop l_shift_i asks II=1; the recurrence through B (fmul 3 + store/load 3 = 6 cycles) gives II=6"
    ]
    assert _limits(_shifted(3)) == [
        "top: loop l_shift_i asks II=1; the recurrence through B "
        "(fmul 3 + store/load 3 = 6 cycles over 3 iterations) gives II=2"
    ]
    assert _limits(_shifted(6)) == []  # 6 cycles over 6 iterations: II=1
    assert _limits(_shifted(0)) == []  # read and written in one iteration: nothing carried
    assert _limits(_shifted(-1)) == []  # each iteration reads what the next one overwrites


def test_digitrec_and_the_other_examples_are_silent() -> None:
    """digitrec's knn_update writes knn_mat at a column known at run time, in the row of its own
    iteration (no other iteration's row); its max_id is set at the top of every iteration.
    conv_relu's sum_acc starts at 0 under the same `if` as its reads. Neither is carried."""
    assert _project_limits("digitrec") == []
    assert _project_limits("conv_relu") == []
