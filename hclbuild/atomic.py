"""Atomic file writes: an interrupted build never leaves a half file that a later build trusts.

A leaf module (it imports nothing of hclbuild), so every layer, runtime and project alike, may use it.
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

# itertools.count is implemented in C, so next() on it is safe from several threads
_counter = itertools.count(1)


def temporary_beside(target: Path) -> Path:
    """A fresh temporary name beside `target`, `.<name>.<pid>.<n>.tmp`: in the same directory, so
    os.replace/os.rename onto target stays within one file system; pid + counter keep concurrent
    writers (doit -n 2) apart; sweep_stale_temps removes it if its process dies first."""
    return target.with_name(f".{target.name}.{os.getpid()}.{next(_counter)}.tmp")


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then os.replace it into place.

    The rename is atomic, so a killed build leaves the old file or the new one, never half of
    one. No fsync: build products are derived data, and one fsync per file (a few ms each, two
    per write) made a 200-function build spend most of its time waiting for the disk."""
    target = Path(path)
    temp = temporary_beside(target)
    # mode 0o666 minus the umask, like open(): mkstemp's 0o600 would leave generated files private
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(temp, flags, 0o666)
    except FileNotFoundError:  # the folder is made only when missing: a mkdir per write adds up
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, flags, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """write_bytes_atomic of `text` encoded as UTF-8 (newlines written as given)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_text_new(path: str | Path, text: str) -> None:
    """Write a file that must not exist yet, whole or not at all: FileExistsError leaves a file that
    appeared meanwhile as it is (a hard link, unlike a rename, never replaces its target)."""
    target = Path(path)
    temp = temporary_beside(target)
    with open(temp, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    try:
        os.link(temp, target)
    except FileExistsError as exc:
        raise FileExistsError(exc.errno, exc.strerror, str(target)) from None
    finally:
        temp.unlink()


def write_if_changed(path: str | Path, data: bytes | str) -> bool:
    """Atomically write `data` only when the file's bytes differ; True when it wrote.

    Unchanged files keep their mtime, so make and doit timestamps of untouched per-function
    files do not move.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if holds_bytes(path, payload):
        return False
    write_bytes_atomic(path, payload)
    return True


def holds_bytes(path: str | Path, data: bytes) -> bool:
    """`path` exists and holds exactly `data` (its size is compared first)."""
    target = Path(path)
    try:
        return target.stat().st_size == len(data) and target.read_bytes() == data
    except FileNotFoundError:
        return False


def link_if_changed(source: str | Path, path: str | Path) -> bool:
    """Make `path` hold `source`'s bytes as a hard link to it; True when it changed `path`.

    The link is made under a temporary name and renamed into place, so `path` is the old file or
    the new one, never half of one; a file system that refuses links gets a copy. A `path` that is
    already `source`, or holds the same bytes, is kept with its mtime. Nothing here writes into a
    file in place, so a link never carries a later write from one folder into the other.
    """
    src, target = Path(source), Path(path)
    wanted = src.stat()
    try:
        have = target.stat()
        if (have.st_dev, have.st_ino) == (wanted.st_dev, wanted.st_ino):
            return False
        if have.st_size == wanted.st_size and target.read_bytes() == src.read_bytes():
            return False
    except FileNotFoundError:
        pass
    temp = temporary_beside(target)
    try:
        try:
            os.link(src, temp)
        except OSError:  # another file system, or one without hard links (EXDEV, EPERM, EMLINK)
            shutil.copyfile(src, temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a killed writer whose parent died too stays a zombie until init reaps it (some container
    # inits never do): kill(pid, 0) still succeeds, but it will write nothing more
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs (macOS): trust kill()
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def sweep_stale_temps(folder: str | Path, including_mine: bool = False, recursive: bool = True) -> list[Path]:
    """Delete temporary files that a killed writer left below folder (only in it, not `recursive`);
    returns what it removed.

    A temporary is `.<name>.<pid>.<n>.tmp` (a file, or a folder being filled before its rename);
    one whose process still runs (a parallel doit worker writing right now) is kept, except this
    process's own with `including_mine` (it is ending, and will write nothing more).
    """
    removed: list[Path] = []
    root = Path(folder)
    if not root.is_dir():
        return removed
    mine = str(os.getpid())
    for temp in root.rglob(".*.tmp") if recursive else root.glob(".*.tmp"):
        parts = temp.name.rsplit(".", 3)
        if len(parts) != 4 or not parts[1].isdigit():
            continue
        if not (including_mine and parts[1] == mine) and _alive(int(parts[1])):
            continue
        if temp.is_dir():
            shutil.rmtree(temp, ignore_errors=True)
        else:
            temp.unlink(missing_ok=True)
        removed.append(temp)
    return removed
