"""The stamp of a task's result file, saved as doit values when the task passes, and the uptodate
that compares it: doit itself checks only that a target exists, so a damaged result (truncated,
edited, another function's) had been trusted.

Like doit's own check of a file dependency, the file's status comes first and its bytes only when
the status differs: a build folder restored from a CI artifact has new inodes and times but the same
bytes, and stays up to date."""

from __future__ import annotations

import hashlib
import os
from typing import Any

# the doit values under which a task whose StepAction has a `stamped` result saves that file's
# stamp and digest
RESULT_STAMP = "result_stamp"
RESULT_DIGEST = "result_digest"


def result_stamp(path: str) -> str | None:
    """inode:size:mtime:ctime of a result file, which any write changes (an atomic rewrite the
    inode, an edit in place the times; the ctime cannot be set back); None when it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return f"{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"


def result_digest(path: str) -> str | None:
    """The SHA-256 of a result file's bytes, None when it cannot be read."""
    try:
        with open(path, "rb") as result:
            return hashlib.sha256(result.read()).hexdigest()
    except OSError:
        return None


def result_values(path: str) -> dict[str, str | None]:
    """What a passing task saves as its doit values, compared by result_untouched on the next run."""
    return {RESULT_STAMP: result_stamp(path), RESULT_DIGEST: result_digest(path)}


def result_untouched(task: Any, values: dict[str, Any]) -> bool:
    """The uptodate of a task with a stamped result (csim:<p>/<func>): its result file holds what its
    last passing run wrote. A stamp first, not a read of the file: reading and checking the 71 results
    of projects/ took about 7 ms of every no-op `doit csim` (BENCHMARKS.md, no-op runs)."""
    path = task.targets[0]
    stamp = values.get(RESULT_STAMP)
    if stamp is not None and stamp == result_stamp(path):
        return True
    digest = values.get(RESULT_DIGEST)
    return digest is not None and digest == result_digest(path)
