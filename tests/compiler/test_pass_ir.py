"""Every compiler pass, IR in and IR out: tests/passes/<pass>/<case>.mlir, one test each.

A case holds the module the real flow gives the pass (a small kernel of scripts/pass_cases.py
compiled up to just before it), the pass's arguments, and the exact text the pass must print
(the module after it, then what it returned) or the exact one-line error it must refuse with;
the format is in tests/pass_ir_helpers.py. As MLIR's lit tests and xDSL's pass tests do, this
checks each pass alone, without the passes after it or a run.

After a deliberate change of a pass or of the IR the builder makes, regenerate the cases and
review the diff:

    python scripts/pass_cases.py && git diff tests/passes

(`python scripts/pass_cases.py --check` exits 1 naming each case that would change.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pass_ir_helpers import CASES_DIR, RUNNERS, PassCase, case_paths, run_case

CASES = case_paths()


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(CASES_DIR).with_suffix("")) for p in CASES])
def test_pass_gives_the_expected_ir(path: Path) -> None:
    case = PassCase.read(path)
    assert case.pass_name == path.parent.name
    got, refused = run_case(case.pass_name, case.args, case.source)
    assert refused == case.refused, got
    assert got == case.expected


def test_every_pass_has_a_case() -> None:
    assert sorted({p.parent.name for p in CASES}) == sorted(RUNNERS)
