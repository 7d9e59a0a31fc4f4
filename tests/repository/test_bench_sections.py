"""bench/sections.py: a partial `bench/run_all.py` rerun keeps the other sections, in place, saying
which run measured them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from sections import merge_sections, sections_of

EARLIER = """# Benchmarks

Written by `python bench/run_all.py` on 2026-12-02 07:31 UTC, commit 18178c8: AMD EPYC, 2 cores.

## Compile scaling

old compile
## No-op runs

old noop

## Dask

_Kept from the run of 2026-11-30 10:00 UTC at commit abc1234, not rerun since._

old dask
""".splitlines()


def test_a_rerun_section_replaces_its_old_copy_in_place_and_kept_ones_name_their_run() -> None:
    rerun = sections_of(["## No-op runs", "", "new noop", ""])
    merged, kept = merge_sections(rerun, EARLIER)
    assert kept == ["Compile scaling", "Dask"]
    assert [line for lines in merged.values() for line in lines] == [
        "## Compile scaling",
        "",
        "_Kept from the run of 2026-12-02 07:31 UTC at commit 18178c8, not rerun since._",
        "",
        "old compile",
        "## No-op runs",
        "",
        "new noop",
        "",
        # kept a second time: the run that measured it is still the first one
        "## Dask",
        "",
        "_Kept from the run of 2026-11-30 10:00 UTC at commit abc1234, not rerun since._",
        "",
        "old dask",
    ]


def test_a_section_new_to_the_file_comes_after_the_earlier_ones() -> None:
    merged, kept = merge_sections(sections_of(["## Reference", "new"]), ["Written by nobody", "## Old", "x"])
    assert list(merged) == ["## Old", "## Reference"]
    assert merged["## Old"] == ["## Old", "", "_Kept from an earlier run, not rerun since._", "x"]
    assert kept == ["Old"]


def test_a_kept_section_that_names_its_own_measurement_gets_no_second_date() -> None:
    earlier = ["Written by `x` on 2026-12-05 20:41 UTC, commit d18f7fd: AMD EPYC.", "## csim"]
    earlier += ["", "_Measured by `python bench/run_all.py csim` on 2026-12-05 15:09 UTC._", "", "figures"]
    merged, kept = merge_sections(sections_of(["## Other", "new"]), earlier)
    assert kept == ["csim"]
    assert merged["## csim"] == earlier[1:]
