"""Compiled objects and precompiled headers of C simulation, kept by the content that made them.

    <root>/objects/<stem>-<key>.o          an object; <key> digests what g++ read and how
    <root>/objects/<stem>-<key>.o.sha256   the digest of the object's own bytes
    <root>/pch/<key>/hclbuild_prelude.h    a header prelude beside its precompiled form (.gch)
    <root>/pch/<key>.wanted                a prelude asked for once, not precompiled yet

The root is the build's (`build/.csim/`, shared by every function of every project of the build) or,
without one, the function's own `out/cache/`. An object's key is a digest of the compiler and the
ap_types headers (path, size, mtime), the flags and every byte g++ reads of the sources, so a
stale object has another name. Nothing half-written is trusted: an object is written under a
temporary name and renamed into place after its digest; an object whose bytes no longer match the
digest (damaged on disk, or its digest missing) is compiled again before anything links it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hclbuild.atomic import sweep_stale_temps, temporary_beside, write_text_atomic

OBJECTS, PCH = "objects", "pch"
PRELUDE = "hclbuild_prelude.h"  # the precompiled header: a function header's preprocessor lines
DIGEST_SUFFIX = ".sha256"
# a shared cache keeps the most recently used objects; every edit of a function adds one
SHARED_OBJECT_LIMIT = 4000


def digest_parts(digest: Any, parts: Iterable[bytes]) -> None:
    """Feed each part to `digest` after its length, so that parts never run into one another."""
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)


def content_key(identity: Any, parts: Iterable[bytes]) -> str:
    """The key of what one compile reads: `identity` (JSON: compiler, headers, flags) and the bytes."""
    digest = hashlib.sha256(json.dumps(identity).encode())
    digest_parts(digest, parts)
    return digest.hexdigest()[:24]


def file_identity(path: str | Path) -> list[Any]:
    """What names a compiler or header for a cache key: its real path, size and modification time."""
    real = os.path.realpath(path)
    info = os.stat(real)
    return [real, info.st_size, info.st_mtime_ns]


def headers_identity(include: Path | None) -> list[Any]:
    """file_identity of every file in the ap_types folder and its etc/ (ap_int.h includes etc/...)."""
    if include is None:
        return []
    found = []
    for folder in (include, include / "etc"):
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        found += [file_identity(entry.path) for entry in entries if entry.is_file()]
    return found


_SWEPT: set[Path] = set()  # cache roots this process has swept of a killed writer's temporaries


class ObjectCache:
    """Objects by key under `root`/objects; `shared` when other folders' csims use it too.

    The first cache of a root in a process removes what killed writers left there (an object g++
    was writing, a header it was precompiling): no task project's sweep walks the build's cache,
    and a build starts no task before the tools of a SIGKILLed one are dead (tool_processes), so
    their temporaries are final by then. Once per process: the root may hold thousands of objects."""

    def __init__(self, root: Path, shared: bool):
        self.folder = root / OBJECTS
        self.shared = shared
        if root not in _SWEPT:
            sweep_stale_temps(root)
            _SWEPT.add(root)

    def path(self, stem: str, key: str) -> Path:
        return self.folder / f"{stem}-{key}.o"

    def lookup(self, stem: str, key: str) -> Path | None:
        """The object of `key` when its bytes are the ones its digest names, else None."""
        target = self.path(stem, key)
        try:
            data = target.read_bytes()
            recorded = target.with_name(target.name + DIGEST_SUFFIX).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return None
        if hashlib.sha256(data).hexdigest() != recorded.strip():
            return None
        if self.shared:
            try:
                os.utime(target)  # recently used: the last one pruned
            except OSError:
                return None
        return target

    def temporary(self, stem: str, key: str) -> Path:
        """A temporary name for g++ to write the object of `key` to (then `keep` it)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        return temporary_beside(self.path(stem, key))

    def keep(self, temp: Path, stem: str, key: str) -> Path:
        """Move a finished object into place, its digest first: an object without its digest is
        never used, one with is whole."""
        target = self.path(stem, key)
        write_text_atomic(
            target.with_name(target.name + DIGEST_SUFFIX), hashlib.sha256(temp.read_bytes()).hexdigest()
        )
        os.replace(temp, target)
        return target

    def keep_only(self, used: Iterable[Path], limit: int = SHARED_OBJECT_LIMIT) -> None:
        """Drop what a build no longer needs: in a folder's own cache every object `used` did not
        name; in a shared one the least recently used beyond `limit`."""
        try:
            objects = [entry for entry in os.scandir(self.folder) if entry.name.endswith(".o")]
        except OSError:
            return
        if self.shared:
            if len(objects) <= limit:
                return  # the common case
            objects.sort(key=lambda entry: entry.stat().st_mtime_ns)
            stale = objects[: len(objects) - limit * 3 // 4]
        else:
            names = {Path(path).name for path in used}
            stale = [entry for entry in objects if entry.name not in names]
        for entry in stale:
            Path(entry.path).unlink(missing_ok=True)
            Path(entry.path + DIGEST_SUFFIX).unlink(missing_ok=True)
        sweep_stale_temps(self.folder)


def prelude_of(header: str) -> str | None:
    """The preprocessor lines of a generated header between its include guard and its first
    declaration: what every source of the function reads first, and what is worth precompiling."""
    lines = header.splitlines()
    try:
        start = next(k for k, line in enumerate(lines) if line.startswith("#define HCLBUILD_")) + 1
    except StopIteration:
        return None
    prelude = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("#"):
            break
        prelude.append(line)
    if not any(line.startswith("#include") for line in prelude):
        return None
    return "\n".join(prelude).strip() + "\n"


def precompiled_prelude(
    root: Path,
    command: list[str],
    identity: Any,
    prelude: str,
    uses: int,
    run: Callable[[list[str], Path], subprocess.CompletedProcess | None],
    log: list[str],
) -> str | None:
    """The path of `prelude` as a header beside its precompiled form under root/pch (made once per
    prelude, compiler and flags), for `-include`; None when it is not made (yet) or cannot be.

    Precompiling costs about what two plain parses of the headers do, so it is made when this
    build compiles `uses` >= 2 sources with it, or a build before asked for it once already.
    `run(argv, cwd)` runs g++ and gives None when it timed out."""
    folder_root = root / PCH
    key = content_key([identity, command[1:], prelude], ())
    folder = folder_root / key
    if (folder / f"{PRELUDE}.gch").is_file():
        log.append(f"# headers: precompiled in {folder}\n")
        return str(folder / PRELUDE)
    wanted = folder_root / f"{key}.wanted"
    if uses < 2 and not wanted.is_file():
        write_text_atomic(wanted, prelude)
        return None
    sweep_stale_temps(folder_root)
    temp = temporary_beside(folder)
    temp.mkdir(parents=True)
    (temp / PRELUDE).write_text(prelude, encoding="utf-8")
    argv = [*command, "-x", "c++-header", PRELUDE, "-o", f"{PRELUDE}.gch"]
    try:
        done = run(argv, temp)
    except BaseException:  # interrupted: the 80 MB half-made header goes now, not at the next run's sweep
        shutil.rmtree(temp, ignore_errors=True)
        raise
    if done is None or done.returncode != 0:
        shutil.rmtree(temp, ignore_errors=True)
        reason = "timed out" if done is None else (done.stderr.strip().splitlines() or ["failed"])[0]
        log.append(f"# headers: not precompiled ({reason}); each source reads them\n")
        return None
    try:
        os.rename(temp, folder)  # atomic; a parallel csim that made the same one first wins
    except OSError:
        shutil.rmtree(temp, ignore_errors=True)
    log.append(" ".join(argv) + f"  # in {folder}\n")
    return str(folder / PRELUDE)


def drop_precompiled(forced: str) -> None:
    """Remove a precompiled header g++ could not read (truncated or overwritten on disk)."""
    shutil.rmtree(Path(forced).parent, ignore_errors=True)


__all__ = [
    "PRELUDE",
    "ObjectCache",
    "content_key",
    "digest_parts",
    "drop_precompiled",
    "file_identity",
    "headers_identity",
    "precompiled_prelude",
    "prelude_of",
]
