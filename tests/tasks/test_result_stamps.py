"""csim:<p>/<func>'s uptodate (hclbuild.tasks.result_stamps): the result file's status first, its
bytes only when the status differs. tests/project/test_stale_results.py runs the damaged results
through doit; these pin the cases a status alone decides wrongly."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

from hclbuild.tasks.result_stamps import RESULT_DIGEST, RESULT_STAMP, result_untouched, result_values

RESULT = '{"func": "Stage_X", "pass": true, "compile_seconds": 0.61}\n'


def _task(path: Path) -> SimpleNamespace:
    return SimpleNamespace(targets=[str(path)])


def test_the_file_a_passing_run_wrote_is_up_to_date(tmp_path: Path) -> None:
    result = tmp_path / "Stage_X.json"
    result.write_text(RESULT)
    values = result_values(str(result))
    assert values[RESULT_DIGEST] == hashlib.sha256(RESULT.encode()).hexdigest()
    assert result_untouched(_task(result), values) is True


def test_an_edit_that_keeps_size_and_time_is_seen(tmp_path: Path) -> None:
    result = tmp_path / "Stage_X.json"
    result.write_text(RESULT)
    values = result_values(str(result))
    before = result.stat()
    result.write_text(RESULT.replace("true", "TRUE"))  # same size
    os.utime(result, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old modification time
    assert result.stat().st_size == before.st_size and result.stat().st_mtime_ns == before.st_mtime_ns
    assert result_untouched(_task(result), values) is False


def test_the_same_bytes_restored_elsewhere_stay_up_to_date(tmp_path: Path) -> None:
    # a build folder brought back from a CI artifact: new inode and times, the same bytes
    result = tmp_path / "Stage_X.json"
    result.write_text(RESULT)
    values = result_values(str(result))
    saved = tmp_path / "artifact.json"
    shutil.copyfile(result, saved)
    result.unlink()
    shutil.copyfile(saved, result)
    assert values[RESULT_STAMP] != result_values(str(result))[RESULT_STAMP]
    assert result_untouched(_task(result), values) is True


def test_a_missing_result_or_no_record_of_one_runs_the_task(tmp_path: Path) -> None:
    result = tmp_path / "Stage_X.json"
    result.write_text(RESULT)
    values = result_values(str(result))
    assert result_untouched(_task(result), {}) is False  # a state database from before the stamps
    result.unlink()
    assert result_untouched(_task(result), values) is False
    assert result_values(str(result)) == {RESULT_STAMP: None, RESULT_DIGEST: None}
