"""The QoR estimate's rules, one small DSL kernel each (issue 26): a reduction's recurrence, a
port-bound II, a partitioned array, an unrolled loop, automatic pipelining of a pragma-less loop,
a dataflow-free sequence, and the record's JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

import hclbuild as hcl
from hclbuild.compiler.estimate import FunctionEstimate, estimate_module
from hclbuild.compiler.estimate.devices import part_family
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.errors import HCLNotImplementedError
from hclbuild.project.config import load_project
from hclbuild.project.kernel import kernel_schedule
from hclbuild.runtime.report.estimate import estimate_from_dict

PART = "xczu9eg-ffvb1156-2-i"


def _estimate(schedule: hcl.Schedule, version: str = "2023.2", clock_ns: float = 10.0) -> FunctionEstimate:
    module = compile_schedule(schedule).module
    estimates = estimate_module(module, part=PART, clock_ns=clock_ns, vitis_version=version)
    return estimates[schedule.name]


def _loop(estimate: FunctionEstimate, label: str):  # type: ignore[no-untyped-def]
    return next(loop for loop in estimate.loops if loop.label == label)


def _dot(pipeline: bool, unroll: int = 0, partition: int = 0) -> hcl.Schedule:
    hcl.init(hcl.Float())
    a = hcl.placeholder((256,), "a")
    b = hcl.placeholder((256,), "b")

    def dot(a, b):
        total = hcl.scalar(0, "total")
        with hcl.Stage("S"), hcl.for_(0, 256, name="k") as k:
            total.v = total.v + a[k] * b[k]
        out = hcl.compute((1,), lambda x: total.v, "out")
        return out

    s = hcl.create_schedule([a, b], dot, name="dot")
    if pipeline:
        s[dot.S].pipeline(dot.S.k)
    if unroll:
        s[dot.S].unroll(dot.S.k, factor=unroll)
    if partition:
        s.partition(a, hcl.Partition.Cyclic, dim=1, factor=partition)
        s.partition(b, hcl.Partition.Cyclic, dim=1, factor=partition)
    return s


def test_a_float_reduction_is_bound_by_its_fadd_recurrence() -> None:
    estimate = _estimate(_dot(pipeline=True))
    loop = _loop(estimate, "l_S_k")
    # fadd takes 4 cycles at 10 ns on UltraScale+: the next iteration waits for the sum
    assert (loop.ii_requested, loop.ii) == (1, 4)
    assert loop.limited_by == "recurrence through total: fadd 4 cycles"
    assert loop.latency == 255 * 4 + loop.iteration_latency


def test_unrolled_lanes_chain_the_recurrence_and_share_the_ports() -> None:
    # four lanes: four chained fadds on the recurrence (16 cycles) and four reads of a and b each
    loop = _loop(_estimate(_dot(pipeline=True, unroll=4)), "l_S_k")
    assert loop.trip_count == 64
    assert loop.ii == 16
    assert loop.limited_by == "recurrence through total: 4 fadd 16 cycles"


def test_a_partitioned_argument_gives_each_read_a_bank() -> None:
    hcl.init(hcl.Int(32))
    a = hcl.placeholder((99,), "a")

    def blur(a):
        return hcl.compute((97,), lambda i: a[i] + a[i + 1] + a[i + 2], "b")

    # three reads of a an iteration; hclbuild partitions a cyclically in two (parallel_reads), so
    # a[i] and a[i + 1] are in different banks and a[i + 2] shares one port of a[i]'s: II 1
    s = hcl.create_schedule([a], blur, name="blur")
    s[blur.b].pipeline(blur.b.axis[0])
    loop = _loop(_estimate(s), "l_b_i")
    assert (loop.ii, loop.limited_by) == (1, "requested II=1")
    assert loop.latency == 96 + loop.iteration_latency


def test_each_unrolled_lane_of_a_split_with_a_remainder_has_its_own_address() -> None:
    """70 split by 8: the lane's index is computed (jo * 8 + ji, under an `if < 70`), and every lane
    had taken lane 0's address, so eight reads of `a` were one and no port limit was seen (gemm's
    partition knob changed no estimated figure)."""
    hcl.init(hcl.Float())
    a = hcl.placeholder((70,), "a")

    def triple(a):
        return hcl.compute((70,), lambda j: a[j] * 3, "b")

    s = hcl.create_schedule([a], triple, name="triple")
    jo, ji = s[triple.b].split(triple.b.axis[0], 8)
    s[triple.b].pipeline(jo)
    s[triple.b].unroll(ji)
    s.partition(a, hcl.Partition.Cyclic, dim=1, factor=2)  # 4 reads a bank; b is partitioned for its writes
    loop = _loop(_estimate(s), "l_b_j_outer")
    assert (loop.trip_count, loop.ii) == (9, 2)
    assert loop.limited_by == "memory port of a (one bank): 4 reads per iteration on 2 ports"


def test_a_loop_without_directives_is_pipelined_as_vitis_does() -> None:
    estimate = _estimate(_dot(pipeline=False))
    loop = _loop(estimate, "l_S_k")
    assert loop.ii_requested == 1 and loop.ii == 4
    # Vivado HLS pipelines nothing by itself
    old = _loop(_estimate(_dot(pipeline=False), version="2019.1"), "l_S_k")
    assert old.ii is None and old.limited_by == "not pipelined"
    assert old.latency is not None and old.latency > loop.latency


def test_a_short_inner_loop_is_unrolled_into_its_pipelined_parent() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((100, 8), "A")

    def rows(A):
        out = hcl.compute((100,), lambda i: 0, "out")
        with hcl.Stage("S"), hcl.for_(0, 100, name="i") as i, hcl.for_(0, 8, name="j") as j:
            out[i] = out[i] + A[i, j]
        return out

    s = hcl.create_schedule([A], rows, name="rows")
    estimate = _estimate(s)
    outer = _loop(estimate, "l_S_i")
    assert outer.ii == 4  # the 8 reads of A's row on 2 ports
    assert all(loop.label != "l_S_j" for loop in estimate.loops)
    assert estimate.resources.DSP == 0


def test_json_round_trip_and_the_reader_agree() -> None:
    estimate = _estimate(_dot(pipeline=True))
    data = estimate.to_json()
    assert FunctionEstimate.from_json(data) == FunctionEstimate.from_json(
        FunctionEstimate.from_json(data).to_json()
    )
    report = estimate_from_dict(data, "test")
    assert report.latency_max == estimate.latency_max
    assert report.loops[0].limited_by == estimate.loops[0].limited_by
    assert set(data["resources"]) == {"DSP", "BRAM_18K", "FF", "LUT"}


def test_parts_map_to_families_and_m_axi_is_refused_by_name() -> None:
    assert part_family("xc7k160t-fbg484-1") == "7series"
    assert part_family("xck26-sfvc784-2LV-c") == "ultrascale_plus"
    assert part_family("xcu250-figd2104-2L-e") == "ultrascale_plus"
    assert part_family("xcvc1902-vsva2197-2MP-e-S") == "versal"
    with pytest.raises(HCLNotImplementedError, match="xx123"):
        part_family("xx123")
    module = compile_schedule(_dot(pipeline=True)).module
    with pytest.raises(HCLNotImplementedError, match=r"m_axi argument.*a, b of dot"):
        estimate_module(module, part=PART, clock_ns=10.0, m_axi={"dot": ["b", "a"]})


def test_a_pipeline_at_ii_n_shares_its_cores_from_vitis_2023() -> None:
    # four lanes: 4 fmul (3 DSP each) and 4 fadd (2 each) in a pipeline the recurrence holds at II 16
    shared = _estimate(_dot(pipeline=True, unroll=4), version="2023.2")
    assert shared.resources.DSP == 3 + 2
    apart = _estimate(_dot(pipeline=True, unroll=4), version="2022.2")
    assert apart.resources.DSP == 4 * 3 + 4 * 2


def test_a_dataflow_region_takes_its_slowest_process_plus_the_others_fill() -> None:
    # projects/stream_pipeline: gray -> blur -> binarize, outlined, joined by streams, in a dataflow top
    module = compile_schedule(
        kernel_schedule(load_project(Path(__file__).resolve().parents[2] / "projects" / "stream_pipeline"))
    ).module
    estimates = estimate_module(module, part=PART, clock_ns=10.0, vitis_version="2023.2")
    gray, blur, binarize = (estimates[f"Stage_{name}"] for name in ("gray", "blur", "binarize"))
    top = estimates["top"]
    slowest = max(gray, blur, binarize, key=lambda e: e.latency_max or 0)
    assert slowest is blur
    assert top.interval == blur.latency_max

    def fill(process: FunctionEstimate) -> int:
        longest = max(process.loops, key=lambda loop: loop.latency or 0)
        return process.latency_max - longest.latency + longest.iteration_latency  # type: ignore[operator]

    assert top.latency_max == blur.latency_max + fill(gray) + fill(binarize)
    assert top.latency_max < gray.latency_max + blur.latency_max + binarize.latency_max


def test_outlined_calls_on_the_same_arrays_run_one_after_another() -> None:
    """Found on resnet20: the top's calls were timed like independent operators, all from cycle
    0, so the top's latency was its slowest callee's instead of their sum (Vitis runs the calls of
    a region without dataflow in order; the second reads what the first writes)."""
    hcl.init(hcl.Float())
    a = hcl.placeholder((64,), "a")

    def chain(a):
        b = hcl.compute((64,), lambda i: a[i] * 2.0, "b")
        c = hcl.compute((64,), lambda i: b[i] + 1.0, "c")
        return c

    s = hcl.create_schedule([a], chain, name="chain")
    s.outline([s[chain.b]], [s[chain.c]])
    module = compile_schedule(s).module
    estimates = estimate_module(module, part=PART, clock_ns=10.0, vitis_version="2023.2")
    callees = [name for name in estimates if name != "chain"]
    assert len(callees) == 2
    total = sum(estimates[name].latency_max or 0 for name in callees)
    assert estimates["chain"].latency_max is not None
    assert total <= estimates["chain"].latency_max <= total + 4


GAUSS = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]


def _taps(constant_address: bool) -> hcl.Schedule:
    """A pipelined loop reading coeff[3][3] (a constant table) in a 3 x 3 tap nest it unrolls: at
    the taps' own constant addresses, or at the pipelined loop's variable (coeff[r][x])."""
    hcl.init(hcl.Int(32))
    a = hcl.placeholder((3,), "a")

    def taps(a):
        coeff = hcl.const_tensor(GAUSS, "coeff", hcl.Int(32))
        out = hcl.compute((3,), lambda i: 0, "out")
        with hcl.Stage("S"), hcl.for_(0, 3, name="r") as r:
            v = hcl.scalar(a[r], "v")
            total = hcl.scalar(0, "total")
            with hcl.for_(0, 3, name="y") as y, hcl.for_(0, 3, name="x") as x:
                total.v = total.v + v.v * (coeff[y, x] if constant_address else coeff[r, x])
            out[r] = total.v
        return out

    s = hcl.create_schedule([a], taps, name="taps")
    s[taps.S].pipeline(taps.S.r)
    return s


def test_a_constant_table_read_at_constant_addresses_is_folded_into_constants() -> None:
    # after the unroll every coeff[y][x] is an element: no port (9 reads on 2 ports would give II 5),
    # and the multiplies by 1, 2 and 4 are shifts (9 32x32 multipliers would take 27 DSP)
    estimate = _estimate(_taps(constant_address=True), version="2020.2")
    loop = _loop(estimate, "l_S_r")
    assert (loop.ii, loop.limited_by) == (1, "requested II=1")
    assert estimate.resources.DSP == 0
    assert estimate.resources.BRAM_18K == 0


def test_a_constant_table_read_at_a_loop_variable_keeps_its_ports() -> None:
    # coeff[r][x]: the address moves with r, so the table is a ROM: the lanes read 3 addresses (one per
    # x, the same for every y) on its 2 ports, and the 9 multipliers (32 x 32, 3 DSP each) stay
    estimate = _estimate(_taps(constant_address=False), version="2020.2")
    loop = _loop(estimate, "l_S_r")
    assert (loop.ii, loop.limited_by) == (2, "memory port of coeff: 3 reads per iteration on 2 ports")
    assert estimate.resources.DSP == 9 * 3


def _table_sum(constant_address: bool) -> hcl.Schedule:
    """a[i] plus an element of a 1024-word constant table (32 Kb: two 18 Kb blocks as a ROM)."""
    hcl.init(hcl.Int(32))
    a = hcl.placeholder((1024,), "a")

    def table_sum(a):
        table = hcl.const_tensor(list(range(1024)), "table", hcl.Int(32))
        return hcl.compute((1024,), lambda i: a[i] + table[5 if constant_address else i], "out")

    return hcl.create_schedule([a], table_sum, name="table_sum")


def test_a_constant_table_only_read_at_constant_addresses_takes_no_bram() -> None:
    # 2020.2: Vitis does not partition the table by itself (from 2023.1 it would, into registers)
    assert _estimate(_table_sum(constant_address=True), version="2020.2").resources.BRAM_18K == 0
    assert _estimate(_table_sum(constant_address=False), version="2020.2").resources.BRAM_18K == 2
