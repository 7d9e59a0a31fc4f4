"""The real Vitis reports in ../shared/fixtures/vitis_reports (2018.3-2024.1).

Only CI and the development machine have ../shared; a user's fresh clone does not, so a test
that reads one of them skips with the reason (tests/data/reports covers every parser branch)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "vitis_reports"


def real_report(relative: str) -> Path:
    """FIXTURES / relative, or a skip naming it when it is not there."""
    path = FIXTURES / relative
    if not path.is_file():
        pytest.skip(f"{path} is missing (shared/ must sit beside the repository)")
    return path
