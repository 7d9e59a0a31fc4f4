"""Issue 34 section 1: a comparison the type of its operand decides is warned about at the user's
line, once a place; hcl.init(warnings="error"), `hclbuild -W error` and $HCLBUILD_WARNINGS=error
make it an error."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import hclbuild as hcl
from hclbuild.errors import APIError, TypeLimitsWarning, WarningError


def _absolute_difference() -> None:
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        return hcl.compute((8,), lambda i: hcl.select(A[i] - A[0] < 0, A[0] - A[i], A[i] - A[0]), name="D")

    hcl.create_schedule([A], kernel)


LINE = _absolute_difference.__code__.co_firstlineno + 4  # the compute's line


def test_unsigned_difference_below_zero_is_warned_once_at_the_users_line(monkeypatch) -> None:
    monkeypatch.delenv("HCLBUILD_WARNINGS", raising=False)
    hcl.init(hcl.UInt(8))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _absolute_difference()
        _absolute_difference()  # traced again: the same place is not warned twice
    limits = [w for w in seen if issubclass(w.category, TypeLimitsWarning)]
    assert len(limits) == 1
    assert (limits[0].filename, limits[0].lineno) == (__file__, LINE)
    assert str(limits[0].message).startswith(
        "comparison of an unsigned UInt(32) expression < 0 is always false"
    )


@pytest.mark.parametrize(
    ("dtype", "condition", "text"),
    [
        (hcl.UInt(8), lambda x: x >= 0, "UInt(8) expression >= 0 is always true"),
        (hcl.UInt(8), lambda x: 0 > x, "UInt(8) expression < 0 is always false"),
        (hcl.UInt(8), lambda x: x > 255, "UInt(8) expression > 255 is always false"),
        (hcl.UInt(8), lambda x: x == -1, "UInt(8) expression == -1 is always false"),
        (hcl.UFixed(8, 4), lambda x: x < -0.5, "UFixed(8, 4) expression < -0.5 is always false"),
    ],
)
def test_decided_comparisons(monkeypatch, dtype, condition, text) -> None:
    monkeypatch.delenv("HCLBUILD_WARNINGS", raising=False)
    hcl.init(dtype)
    A = hcl.placeholder((4,), "A")
    with pytest.warns(TypeLimitsWarning, match=text.replace("(", r"\(").replace(")", r"\)")):
        hcl.create_schedule(
            [A], lambda A: hcl.compute((4,), lambda i: hcl.select(condition(A[i]), 1, 0), name="C")
        )


@pytest.mark.parametrize(
    "condition", [lambda x: x < 1, lambda x: x <= 0, lambda x: x != 0, lambda x: x > 254]
)
def test_comparisons_the_value_decides_are_not_warned(monkeypatch, condition) -> None:
    monkeypatch.delenv("HCLBUILD_WARNINGS", raising=False)
    hcl.init(hcl.UInt(8))
    A = hcl.placeholder((4,), "A")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hcl.create_schedule(
            [A], lambda A: hcl.compute((4,), lambda i: hcl.select(condition(A[i]), 1, 0), name="C")
        )
    B = hcl.placeholder((4,), "B", hcl.Int(8))  # signed: x < 0 means something
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hcl.create_schedule([B], lambda B: hcl.compute((4,), lambda i: hcl.select(B[i] < 0, 1, 0), name="C"))


def test_init_warnings_error_raises_naming_the_line(monkeypatch) -> None:
    monkeypatch.delenv("HCLBUILD_WARNINGS", raising=False)
    hcl.init(hcl.UInt(8), warnings="error")
    try:
        with pytest.raises(WarningError) as caught:
            _absolute_difference()
    finally:
        hcl.init()
    assert str(caught.value).startswith(
        f"{__file__}:{LINE}: comparison of an unsigned UInt(32) expression < 0"
    )


def test_environment_error_and_bad_modes(monkeypatch) -> None:
    monkeypatch.setenv("HCLBUILD_WARNINGS", "error")
    hcl.init(hcl.UInt(8))
    with pytest.raises(WarningError):
        _absolute_difference()
    with pytest.raises(
        APIError, match=r"hcl.init\(warnings=...\): 'loud' is not one of default, error, ignore"
    ):
        hcl.init(warnings="loud")
    hcl.init()


KERNEL = """import hclbuild as hcl


def schedule():
    hcl.init(hcl.UInt(8))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        return hcl.compute((8,), lambda i: hcl.select(A[i] - A[0] < 0, A[0] - A[i], A[i] - A[0]), name="D")

    return hcl.create_schedule([A], kernel, name="top")
"""


@pytest.mark.parametrize("how", ["warn", "-W error", "env"])
def test_cli_warns_or_fails_in_one_line(tmp_path: Path, how: str) -> None:
    project = tmp_path / "sob"
    project.mkdir()
    (project / "kernel.py").write_text(KERNEL)
    env = {k: v for k, v in __import__("os").environ.items() if k != "HCLBUILD_WARNINGS"}
    flags = ["-W", "error"] if how == "-W error" else []
    if how == "env":
        env["HCLBUILD_WARNINGS"] = "error"
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", *flags, "build", str(project)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    where = f"{project / 'kernel.py'}:9: "
    if how == "warn":
        assert proc.returncode == 0, proc.stderr
        # the kernel is traced in a task's process, whose output doit passes on
        shown = proc.stdout + proc.stderr
        assert (
            f"{where}TypeLimitsWarning: comparison of an unsigned UInt(32) expression < 0 is always false"
            in shown
        )
    else:
        assert proc.returncode == 1
        errors = [line for line in proc.stderr.splitlines() if line.startswith("hclbuild: error:")]
        assert len(errors) == 1 and errors == proc.stderr.strip().splitlines()
        assert errors[0].startswith(f"hclbuild: error: {where}")
        assert errors[0].endswith("(TypeLimitsWarning as an error)")
