"""g++ builds of a C simulation testbench that redo only what changed.

Each source (the testbench, the design file) is compiled to its own object, named by a digest of
everything that goes into it as g++ reads it, and an object of that name is reused. g++ ignores
`#pragma HLS` lines, so they are left out of the digest: after a pragma change (pipeline II,
unroll, partition, interface) nothing compiles again, and after any other change to the design
file only it does. With a `pch_root`, the ap_types headers a function's header includes
are precompiled once per build folder, when a second function asks for them, and shared by every
function after: parsing ap_int.h/ap_fixed.h is 1.6 s of each compile, whatever the design.

Nothing half-written is trusted: objects and precompiled headers are written under temporary
names (atomic.py's pattern, so a sweep removes what a killed g++ left) and renamed into place.
The precompiled header is the text of the function header's own include lines, forced in first
(`-include`), so a result never depends on whether it was used: g++ reads the text where the
precompiled form does not fit, and one it cannot read at all is removed and the build redone
without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hclbuild import tool_processes
from hclbuild.atomic import sweep_stale_temps, temporary_beside, write_text_atomic

PRELUDE = "hclbuild_prelude.h"  # the precompiled header: a function header's preprocessor lines
# g++'s words for a precompiled header it cannot read (truncated or overwritten on disk)
_PCH_UNREADABLE = re.compile(r"PCH file|precompiled header")
_AP_HEADER = ('#include "ap_', '#include "hls_', "#include <ap_", "#include <hls_")
# a Vitis directive line, which g++ ignores (-Wno-unknown-pragmas); not `#pragma GCC ...`, which it reads
_HLS_PRAGMA = re.compile(rb"[ \t]*#[ \t]*pragma[ \t]+HLS\b", re.IGNORECASE)


def build_testbench(
    folder: Path,
    command: list[str],
    sources: list[Path],
    header: Path,
    include: Path | None,
    executable: str,
    log: Path,
    timeout: float,
    pch_root: str | Path | None = None,
) -> subprocess.CompletedProcess | None:
    """Compile each source to its own object in the executable's folder, then link; the failed g++
    run, or None. `command` is the compiler and its flags; everything runs in `folder`.

    An object is named by a digest of the compiler, the command, the source, the function's header
    (the only local file either source includes) and the ap_types headers.
    """
    out_dir = str(Path(executable).parent)
    header_bytes = gxx_view(header.read_bytes()) if header.is_file() else b""
    lines: list[str] = []
    # what every key shares: compiler and ap_types headers, stat'ed once (XILINX_HLS/include is large)
    toolchain = [_identity(command[0]), _headers_identity(include)]
    prelude = _prelude(header_bytes.decode("utf-8", errors="replace"))
    forced = None
    if pch_root is not None and prelude is not None:
        try:
            forced = _precompiled(Path(pch_root).resolve(), command, toolchain, prelude, timeout, lines)
        except OSError as exc:  # a cache that cannot be written (read-only, full) only costs time
            lines.append(f"# ap_types headers: not precompiled ({exc.strerror or exc})\n")
    compile_command = [*command, "-include", forced] if forced is not None else command
    shared = json.dumps([toolchain, compile_command[1:]]).encode()
    objects: list[str] = []
    for source in sources:
        digest = hashlib.sha256(shared)
        digest_parts(digest, (source.name.encode(), gxx_view(source.read_bytes()), header_bytes))
        name = f"{source.stem}-{digest.hexdigest()[:20]}.o"
        target = folder / out_dir / name
        objects.append(f"{out_dir}/{name}")
        if target.is_file():
            lines.append(f"# {source.name}: unchanged, {out_dir}/{name} reused\n")
            continue
        for stale in (folder / out_dir).glob(f"{source.stem}-*.o"):
            stale.unlink(missing_ok=True)
        temp = temporary_beside(target)
        argv = [
            *compile_command,
            "-c",
            source.name,
            "-o",
            str(temp.relative_to(folder)),
        ]  # g++ runs in folder
        # the log names the object, not its temporary: the same build logs the same text
        logged = " ".join(argv[:-1]) + f" {out_dir}/{name}\n"
        try:
            done = _gxx(argv, folder, timeout)
        except subprocess.TimeoutExpired:
            temp.unlink(missing_ok=True)
            write_text_atomic(log, "".join(lines) + logged + "(timed out)\n")
            raise
        except BaseException:  # interrupted: no half object stays for a sweep to find
            temp.unlink(missing_ok=True)
            raise
        lines.append(logged + done.stdout + done.stderr)
        if done.returncode != 0:
            temp.unlink(missing_ok=True)
            if forced is not None and _PCH_UNREADABLE.search(done.stderr):  # damaged: drop it, go without
                shutil.rmtree(Path(forced).parent, ignore_errors=True)
                return build_testbench(folder, command, sources, header, include, executable, log, timeout)
            write_text_atomic(log, "".join(lines))
            return done
        os.replace(temp, target)
    argv = [command[0], *objects, "-o", executable]
    done = _gxx(argv, folder, timeout)
    lines.append(" ".join(argv) + "\n" + done.stdout + done.stderr)
    write_text_atomic(log, "".join(lines))
    return done if done.returncode != 0 else None


def digest_parts(digest: Any, parts: Iterable[bytes]) -> None:
    """Feed each part to `digest` after its length, so that parts never run into one another."""
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)


def gxx_view(source: bytes) -> bytes:
    """A source without its `#pragma HLS` lines: what g++ makes an object of. Two sources with one
    view compile to the same object: without -g no line number reaches it, and the generated code
    names no __LINE__. A line joined to another by a backslash is kept."""
    kept = []
    continued = False  # the line before ended in a backslash: this one is part of it
    for line in source.splitlines(keepends=True):
        joins = line.rstrip(b"\r\n").endswith(b"\\")
        if continued or joins or not _HLS_PRAGMA.match(line):
            kept.append(line)
        continued = joins
    return b"".join(kept)


def _prelude(header: str) -> str | None:
    """The preprocessor lines of a generated header between its include guard and its first
    declaration, when they include an ap_types or hls header (else nothing is worth precompiling)."""
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
    if not any(line.startswith(_AP_HEADER) for line in prelude):
        return None
    return "\n".join(prelude).strip() + "\n"


def _precompiled(
    pch_root: Path, command: list[str], toolchain: list[Any], prelude: str, timeout: float, lines: list[str]
) -> str | None:
    """The path of `prelude` as a header beside its precompiled form under pch_root (made once per
    prelude, compiler and flags), for `-include`; None when g++ cannot precompile it."""
    key = hashlib.sha256(json.dumps([toolchain, command[1:], prelude]).encode()).hexdigest()[:20]
    folder = pch_root / key
    if (folder / f"{PRELUDE}.gch").is_file():
        lines.append(f"# ap_types headers: precompiled in {folder}\n")
        return str(folder / PRELUDE)
    # precompiling costs about what two plain parses do, so it pays from the second function of a
    # build folder on: the first only leaves word that its headers were wanted
    wanted = pch_root / f"{key}.wanted"
    if not wanted.is_file():
        write_text_atomic(wanted, prelude)
        return None
    sweep_stale_temps(pch_root)
    temp = temporary_beside(folder)
    temp.mkdir()
    (temp / PRELUDE).write_text(prelude, encoding="utf-8")
    argv = [*command, "-x", "c++-header", PRELUDE, "-o", f"{PRELUDE}.gch"]
    try:
        done = _gxx(argv, temp, timeout)
    except subprocess.TimeoutExpired:
        done = None
    except BaseException:  # interrupted: the 80 MB half-made header goes now, not at the next run's sweep
        shutil.rmtree(temp, ignore_errors=True)
        raise
    if done is None or done.returncode != 0:
        shutil.rmtree(temp, ignore_errors=True)
        reason = "timed out" if done is None else (done.stderr.strip().splitlines() or ["failed"])[0]
        lines.append(f"# ap_types headers: not precompiled ({reason}); each source reads them\n")
        return None
    try:
        os.rename(temp, folder)  # atomic; a parallel csim that made the same one first wins
    except OSError:
        shutil.rmtree(temp, ignore_errors=True)
    lines.append(" ".join(argv) + f"  # in {folder}\n")
    return str(folder / PRELUDE)


def _identity(path: str) -> list[Any]:
    """What names a compiler or header for a cache key: its real path, size and modification time."""
    real = os.path.realpath(path)
    info = os.stat(real)
    return [real, info.st_size, info.st_mtime_ns]


def _headers_identity(include: Path | None) -> list[Any]:
    """_identity of every file in the ap_types folder and its etc/ (ap_int.h includes etc/...)."""
    if include is None:
        return []
    found = []
    for folder in (include, include / "etc"):
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        found += [_identity(entry.path) for entry in entries if entry.is_file()]
    return found


def _gxx(argv: list[str], folder: Path, timeout: float) -> subprocess.CompletedProcess:
    # C locale: ASCII quotes and English messages, the same on every machine; a group of its own, so
    # that an interrupt or a timeout stops cc1plus too, not only the driver
    return tool_processes.run(
        argv, cwd=folder, timeout=timeout, env={**os.environ, "LC_ALL": "C"}, errors="replace"
    )


__all__ = ["PRELUDE", "build_testbench", "digest_parts", "gxx_view"]
