"""The QoR estimate against real Vitis reports (issue 26): the calibration table as a test.

The targets are asserted over calibration/'s cases that are not held out, through
bench/calibration.py (which also writes the table to BENCHMARKS.md). They skip, saying so, while
hclbuild.compiler.estimate does not exist. Estimating is cheap (no C simulation here: the ports'
csim is tests/project/test_calibration_ports.py, marked slow)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from calibration import (
    MAX_LATENCY_RATIO,
    MAX_MEDIAN_DSP_ERROR,
    MAX_MEDIAN_LATENCY_ERROR,
    MIN_II_MATCH,
    MIN_SPEARMAN,
    CalibrationCase,
    CaseResult,
    compare,
    load_cases,
    run_calibration,
    spearman,
    summarize,
)
from hclbuild.project.config import load_project

CASES = load_cases()
REPORT_KEYS = {
    "format", "provenance", "tool", "vitis_version", "part", "flow_target", "top", "directives",
    "clock_ns", "latency", "interval", "resources", "modules", "loops",
}  # fmt: skip
LOOP_KEYS = {"name", "module", "port_loops", "trip_count", "ii", "iteration_latency", "latency", "pipelined"}
OPTIONAL_LOOP_KEYS = {"comparable"}


# ---- the calibration set itself ------------------------------------------------------------------


def test_the_set_holds_the_ported_reports() -> None:
    sources = {case.source for case in CASES}
    assert "lap" in sources
    assert len([c for c in CASES if c.source == "lap"]) == 11
    assert len([c for c in CASES if c.source == "hlsfactory"]) == 12
    assert len([c for c in CASES if c.source == "hlsfactory_gemm_repro"]) == 10
    assert len([c for c in CASES if c.source == "gaussian"]) == 1
    # the held-out cases come from elsewhere and are not asserted against
    assert {c.source for c in CASES if c.held_out} == {"heldout"}
    # a comparison left out of the targets says why
    for case in CASES:
        if not case.latency_comparable or not all(loop.comparable for loop in case.loops):
            assert case.port_differences, case.label


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_each_report_is_complete_and_agrees_with_its_project(case: CalibrationCase) -> None:
    data = json.loads((case.folder / "vitis.json").read_text())
    assert set(data) >= REPORT_KEYS, sorted(REPORT_KEYS - set(data))
    provenance = data["provenance"]
    assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"])
    # the csynth report, or HLSFactory's summary of it (hlsfactory_gemm_repro publishes only that)
    assert provenance["report"].endswith(("csynth.xml", "data_hls.json"))
    assert re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", provenance["repository"])
    for loop in data["loops"]:
        assert LOOP_KEYS <= set(loop) <= LOOP_KEYS | OPTIONAL_LOOP_KEYS, loop["name"]
        assert loop["port_loops"] and all(label.startswith("l_") for label in loop["port_loops"])
        assert (loop["ii"] is not None) == loop["pipelined"], loop["name"]
    # the port is built for what the report was synthesized for
    config = load_project(case.folder).config
    assert config.part == data["part"]
    assert config.clock_period_ns == data["clock_ns"]["target"]
    assert config.vitis_version == data["vitis_version"]
    assert config.flow_target == data["flow_target"]
    assert config.top == data["top"]


# ---- the comparison's arithmetic, on hand-made estimate records ----------------------------------


def _case(**overrides: object) -> CalibrationCase:
    lap_fir = next(c for c in CASES if c.label == "lap/fir")
    fields = {**lap_fir.__dict__, **overrides}
    return CalibrationCase(**fields)  # type: ignore[arg-type]


def test_compare_matches_loops_by_port_label_and_measures_errors() -> None:
    case = next(
        c for c in CASES if c.label == "lap/2mm"
    )  # two flattened pipelined nests, 1030 cycles, 60 DSP
    estimate = {
        "latency_max": 1133,
        "resources": {"DSP": 45},
        "loops": [
            {"label": "l_i_i", "ii": None},  # the outer loop of the first nest, not pipelined
            {"label": "l_i_j", "ii": 5},  # the first nest's pipelined loop: Vitis's II
            {"label": "l_i2_j2", "ii": 4},  # the second nest: one off
        ],
    }
    result = compare(case, estimate)
    assert result.estimated_latency == 1133
    assert result.latency_error == pytest.approx(103 / 1030)
    assert result.latency_ratio == pytest.approx(1.1)
    assert result.dsp_error == pytest.approx(15 / 60)
    assert [
        (loop.vitis.name, loop.estimated_label, loop.estimated_ii, loop.matches) for loop in result.loops
    ] == [
        ("VITIS_LOOP_15_1_VITIS_LOOP_16_2", "l_i_j", 5, True),
        ("VITIS_LOOP_22_4_VITIS_LOOP_23_5", "l_i2_j2", 4, False),
    ]


def test_a_missing_estimate_is_a_miss_not_a_pass() -> None:
    result = compare(next(c for c in CASES if c.label == "lap/fir"), {"loops": []})
    assert result.latency_error == float("inf")
    assert [loop.matches for loop in result.loops] == [False]
    assert result.dsp_error is None
    # a report without a latency (a run-time trip count) has no latency error at all
    unbounded = compare(next(c for c in CASES if c.label == "lap/if_loop_1"), {"latency_max": 400})
    assert unbounded.latency_error is None


def test_what_the_port_cannot_reproduce_is_left_out_of_the_targets() -> None:
    # gemm's copy-in nest writes four buffers in one loop, the port's four stages four loops
    gemm = compare(next(c for c in CASES if c.label == "hlsfactory/gemm_0f87ed52"), {"latency_max": 16670})
    assert gemm.latency_error is None and gemm.latency_ratio is None
    # atax's y_out is a FIFO in the original: its write loop's II 2 is not the port's to match
    atax = next(c for c in CASES if c.label == "hlsfactory/atax_36b6a539")
    compared = [loop.vitis.name for loop in compare(atax, {"loops": []}).loops]
    assert compared == ["lprd_2", "lp1", "lp3_lp4"]
    assert [loop.name for loop in atax.loops if not loop.comparable] == ["lpwr_1"]


def test_spearman_ranks_with_ties_and_refuses_constant_lists() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)
    assert spearman([5, 5], [1, 2]) is None
    assert spearman([1], [1]) is None


def test_summary_medians_worst_ratio_and_rankings() -> None:
    def result(kernel: str, name: str, vitis: int, estimated: int, dsp: int, est_dsp: int) -> CaseResult:
        case = _case(kernel=kernel, name=name, latency_worst=vitis, dsp=dsp, loops=())
        return CaseResult(case=case, estimated_latency=estimated, estimated_dsp=est_dsp, loops=())

    results = [
        result("k", "a", 100, 110, 10, 10),  # +10 %
        result("k", "b", 200, 190, 0, 2),  # -5 %, DSP 200 % off (no DSP in Vitis)
        result("k", "c", 400, 1000, 4, 5),  # 2.5x, DSP 25 %
        result("m", "d", 50, 50, 3, 3),  # exact, alone in its kernel
    ]
    summary = summarize(results)
    assert summary.cases == 4
    assert summary.median_latency_error == pytest.approx((0.05 + 0.10) / 2)
    assert summary.worst_latency_ratio == pytest.approx(2.5)
    assert summary.median_dsp_error == pytest.approx((0.0 + 0.25) / 2)
    assert summary.spearman_by_kernel == {"k": pytest.approx(1.0)}


# ---- the targets ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def calibration_results() -> list[CaseResult]:
    return run_calibration(c for c in CASES if not c.held_out)


def _misses(results: list[CaseResult], wrong: object) -> str:
    return "; ".join(
        f"{r.case.label}: Vitis {r.case.latency_worst}, estimate {r.estimated_latency}"
        for r in results
        if wrong(r)  # type: ignore[operator]
    )


def test_median_latency_error_is_at_most_ten_percent(calibration_results: list[CaseResult]) -> None:
    summary = summarize(calibration_results)
    assert summary.median_latency_error is not None
    assert summary.median_latency_error <= MAX_MEDIAN_LATENCY_ERROR, _misses(
        calibration_results, lambda r: (r.latency_error or 0) > MAX_MEDIAN_LATENCY_ERROR
    )


def test_no_case_is_off_by_more_than_twice(calibration_results: list[CaseResult]) -> None:
    off = [
        r
        for r in calibration_results
        if r.latency_ratio is not None and not (1 / MAX_LATENCY_RATIO <= r.latency_ratio <= MAX_LATENCY_RATIO)
    ]
    assert not off, _misses(off, lambda r: True)


def test_ii_equals_vitis_on_ninety_percent_of_pipelined_loops(calibration_results: list[CaseResult]) -> None:
    summary = summarize(calibration_results)
    assert summary.pipelined_loops > 0
    wrong = [
        f"{r.case.label} {loop.vitis.name}: Vitis {loop.vitis.ii}, estimate {loop.estimated_ii} "
        f"({loop.estimated_label or 'no loop ' + '/'.join(loop.vitis.port_loops)})"
        for r in calibration_results
        for loop in r.loops
        if not loop.matches
    ]
    assert summary.ii_match_fraction >= MIN_II_MATCH, "; ".join(wrong)


def test_median_dsp_error_is_at_most_twenty_percent(calibration_results: list[CaseResult]) -> None:
    summary = summarize(calibration_results)
    assert summary.median_dsp_error is not None
    wrong = [
        f"{r.case.label}: Vitis {r.case.dsp}, estimate {r.estimated_dsp}"
        for r in calibration_results
        if (r.dsp_error or 0) > MAX_MEDIAN_DSP_ERROR
    ]
    assert summary.median_dsp_error <= MAX_MEDIAN_DSP_ERROR, "; ".join(wrong)


def test_design_points_of_a_kernel_rank_as_in_vitis(calibration_results: list[CaseResult]) -> None:
    summary = summarize(calibration_results)
    low = {k: v for k, v in summary.spearman_by_kernel.items() if v is not None and v < MIN_SPEARMAN}
    assert not low, low
