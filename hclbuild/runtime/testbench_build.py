"""g++ builds of a C simulation testbench that compile only what no build compiled before.

A testbench links three kinds of object, each kept in an ObjectCache (csim_cache) under a key that
digests the compiler, the flags and every byte g++ reads:

- the harness (hclbuild_tb.cpp: reading data/, comparing, the JSON line), the same bytes in every
  folder: with the build's cache it is compiled once per compiler and flags for the whole build;
- the function's own testbench (tb_<func>.cpp: its argument table and the call), small, compiled
  in ONE g++ run with the function's own definition (`#include "tb_<func>.cpp"` after the unit):
  every g++ run pays its start, the precompiled headers' load and the assembler again, which cost
  as much as the small testbench itself (BENCHMARKS.md "csim"); when the definition's object is
  already cached on its own (its top's csim made it) the testbench is compiled alone instead;
- the design, one unit per function definition of `<func>.cpp` (csim_units): a top links the
  objects of the outlined functions it contains when their csims made them (or makes them for
  those csims), and a change to one function recompiles that function's unit only. A file not in
  the emitter's shape, or whose units do not compile alone, is compiled whole, as `make csim` does.

g++ ignores `#pragma HLS` lines, so they are left out of every key: after a pragma change (pipeline
II, unroll, partition, interface) nothing compiles again. With the build's cache, a function
header's preprocessor lines (<cstdint>, <cmath>, the ap_types headers) are precompiled once per
flags (csim_cache.precompiled_prelude) and forced in first (`-include`), so an object never depends
on whether the precompiled form was used (its key leaves it out): g++ reads the text where the
precompiled form does not fit, and one it cannot read at all is removed and the build redone
without it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hclbuild import tool_processes
from hclbuild.atomic import temporary_beside, write_text_atomic
from hclbuild.runtime.csim_cache import (
    ObjectCache,
    content_key,
    drop_precompiled,
    file_identity,
    headers_identity,
    precompiled_prelude,
    prelude_of,
)
from hclbuild.runtime.csim_units import design_units, gxx_view

HARNESS_HEADER, HARNESS_SOURCE = "hclbuild_tb.h", "hclbuild_tb.cpp"
HARNESS_STEM = "hclbuild_tb"
# the testbench and the function's own definition in one g++ run (False: one run each, as before;
# bench/csim_speed.py measures both ways)
ONE_COMPILE = True
FAST_LINK = True  # gold where installed (fast_linker); False: the default linker
HARNESS_LEVEL = "-O1"  # it loops over every element of every vector: worth its one compile
DEFAULT_LEVEL = "-O1"
CACHE_IN_FOLDER = "cache"  # in the executable's folder (out/) when the build gives no cache
# g++'s words for a precompiled header it cannot read (truncated or overwritten on disk)
_PCH_UNREADABLE = re.compile(r"PCH file|precompiled header")


@dataclass(frozen=True)
class Toolchain:
    """The compiler, the flags every compile shares (no -O level: each object has its own) and the
    flags that reach the ap_types headers, for the sources that include them."""

    compiler: str
    flags: tuple[str, ...]
    ap_flags: tuple[str, ...] = ()
    ap_include: Path | None = None


@dataclass(frozen=True)
class ObjectJob:
    """One object of a testbench: what g++ compiles (`source`, a file of the folder, or `text`, a
    unit given on stdin), with which flags, under which key; `prelude` is what it may read
    precompiled."""

    stem: str
    what: str  # how compile.log names it
    flags: tuple[str, ...]
    key: str
    source: str | None = None
    text: bytes | None = None
    prelude: str | None = None
    in_folder: bool = False  # `text` includes files of the folder: g++ runs there


class _Jobs:
    """Makes the ObjectJobs of one function folder: the keys' shared parts are read once."""

    def __init__(self, folder: Path, func: str, toolchain: Toolchain, levels: Mapping[str, str]):
        self.folder, self.func, self.toolchain, self.levels = folder, func, toolchain, levels
        self.compiler = file_identity(toolchain.compiler)
        self.ap_headers = headers_identity(toolchain.ap_include) if toolchain.ap_flags else []
        header = folder / f"{func}.h"
        self.header = header.read_bytes() if header.is_file() else b""
        self.prelude = prelude_of(self.header.decode("utf-8", errors="replace"))

    def make(
        self, stem: str, what: str, flags: Sequence[str], parts: Sequence[bytes], **how: Any
    ) -> ObjectJob:
        uses_ap = bool(set(self.toolchain.ap_flags) & set(flags))
        identity = [self.compiler, self.ap_headers if uses_ap else [], list(flags)]
        return ObjectJob(stem, what, tuple(flags), content_key(identity, parts), **how)

    def level(self, function: str) -> str:
        return self.levels.get(function, DEFAULT_LEVEL)

    def design_flags(self, function: str) -> list[str]:
        return [*self.toolchain.flags, self.level(function), *self.toolchain.ap_flags]

    def all(self) -> list[ObjectJob]:
        """The harness, the function's testbench, then the design's units (or its whole file)."""
        folder, func = self.folder, self.func
        harness_header = (folder / HARNESS_HEADER).read_bytes()
        jobs = [
            # no ap_types header in it: one object for every function of the build
            self.make(
                HARNESS_STEM,
                HARNESS_SOURCE,
                [*self.toolchain.flags, HARNESS_LEVEL],
                [(folder / HARNESS_SOURCE).read_bytes(), harness_header],
                source=HARNESS_SOURCE,
            ),
            self.make(
                f"tb_{func}",
                f"tb_{func}.cpp",
                self.design_flags(func),
                [gxx_view((folder / f"tb_{func}.cpp").read_bytes()), self.header, harness_header],
                source=f"tb_{func}.cpp",
                prelude=self.prelude,
            ),
        ]
        units = design_units(func, (folder / f"{func}.cpp").read_bytes(), self.header)
        if units is None:
            return [*jobs, self.whole_design()]
        return jobs + [
            self.make(
                unit.function,
                f"{unit.function} ({func}.cpp)",
                self.design_flags(unit.function),
                [unit.text],
                text=unit.text,
                prelude=self.prelude,
            )
            for unit in units
        ]

    def joined(self, jobs: Sequence[ObjectJob]) -> list[ObjectJob] | None:
        """`jobs` (from `all`) with the function's testbench and its own definition's unit as one
        object, compiled in one g++ run; None when the design is compiled whole."""
        func = self.func
        testbench = next(job for job in jobs if job.stem == f"tb_{func}")
        own = next((job for job in jobs if job.stem == func and job.text is not None), None)
        if own is None or own.text is None:
            return None
        harness_header = (self.folder / HARNESS_HEADER).read_bytes()
        # the unit first: its header lines set AP_INT_MAX_W before ap_int.h, as the header does
        text = own.text + f'#include "tb_{func}.cpp"\n'.encode()
        both = self.make(
            f"tb_{func}+{func}",
            f"tb_{func}.cpp + {func} ({func}.cpp)",
            self.design_flags(func),
            [own.text, gxx_view((self.folder / f"tb_{func}.cpp").read_bytes()), self.header, harness_header],
            text=text,
            prelude=self.prelude,
            in_folder=True,
        )
        return [both if job is testbench else job for job in jobs if job is not own]

    def whole_design(self) -> ObjectJob:
        """The design file compiled whole in its folder, at its function's level."""
        return self.make(
            self.func,
            f"{self.func}.cpp",
            self.design_flags(self.func),
            [gxx_view((self.folder / f"{self.func}.cpp").read_bytes()), self.header],
            source=f"{self.func}.cpp",
            prelude=self.prelude,
        )


def build_testbench(
    folder: Path,
    func: str,
    toolchain: Toolchain,
    levels: Mapping[str, str],
    executable: str,
    log_path: Path,
    timeout: float,
    cache_root: str | Path | None = None,
    *,
    precompile: bool = True,
) -> subprocess.CompletedProcess | None:
    """Compile what the cache lacks, link `executable` (relative to `folder`); the failed g++ run,
    or None. `levels` gives the -O level of each function's unit (default -O1); the function's own
    testbench takes its function's. Raises subprocess.TimeoutExpired.

    Without `cache_root` the objects live in the folder's out/cache/, and the ones this build did
    not link are removed; with it, every function of the build shares them (and precompiled
    headers)."""
    out_dir = folder / Path(executable).parent
    shared = cache_root is not None
    cache = ObjectCache(
        Path(cache_root).resolve() if cache_root is not None else out_dir / CACHE_IN_FOLDER, shared
    )
    lines: list[str] = []
    planner = _Jobs(folder, func, toolchain, levels)
    separate = jobs = planner.all()
    joined = planner.joined(jobs) if ONE_COMPILE else None
    if joined is not None:
        both = next(job for job in joined if job.in_folder)
        parts_cached = [cache.lookup(job.stem, job.key) is not None for job in jobs if job not in joined]
        # one run makes both, unless one of them is cached alone (the other then compiles alone)
        if cache.lookup(both.stem, both.key) is not None or not any(parts_cached):
            jobs = joined
    missing = [job for job in jobs if not _reused(cache, job, folder, lines)]
    forced = _precompile(cache, toolchain, missing, timeout, lines) if shared and precompile else {}
    failed = _compile(folder, toolchain, cache, missing, forced, timeout, lines)
    if failed and forced and any(_PCH_UNREADABLE.search(done.stderr) for _, done in failed):
        for path in set(forced.values()):
            drop_precompiled(path)  # damaged: drop it and go without
        return build_testbench(
            folder, func, toolchain, levels, executable, log_path, timeout, cache_root, precompile=False
        )
    if failed and all(job.text is not None for job, _ in failed):
        # a unit that does not compile alone: the whole file, whose errors name its own lines
        lines.append(f"# {func}.cpp: its functions did not compile one by one; compiled whole\n")
        whole = planner.whole_design()
        jobs = [job for job in separate if job.text is None] + [whole]
        again = [
            job for job in jobs if job.source != HARNESS_SOURCE and not _reused(cache, job, folder, lines)
        ]
        failed = _compile(folder, toolchain, cache, again, forced, timeout, lines)
    if failed:
        write_text_atomic(log_path, "".join(lines))
        return failed[0][1]
    objects = [cache.path(job.stem, job.key) for job in jobs]
    target = folder / executable
    temp = temporary_beside(target)
    argv = [toolchain.compiler, *fast_linker(), *map(str, objects), "-o", str(temp)]
    done = _gxx(argv, folder, timeout)
    if done.returncode != 0 and fast_linker():  # gold refused: the default linker says why, or links
        argv = [toolchain.compiler, *map(str, objects), "-o", str(temp)]
        done = _gxx(argv, folder, timeout)
    lines.append(" ".join(argv[:-1]) + f" {executable}\n" + done.stdout + done.stderr)
    write_text_atomic(log_path, "".join(lines))
    if done.returncode != 0:
        temp.unlink(missing_ok=True)
        return done
    os.replace(temp, target)
    cache.keep_only(objects)
    return None


def fast_linker() -> tuple[str, ...]:
    """g++'s flags for gold where it is installed: it links a testbench in about a third of the
    default linker's time (0.017 s against 0.051 s here), which is a tenth of a small csim."""
    return _gold() if FAST_LINK else ()


@functools.cache
def _gold() -> tuple[str, ...]:
    return ("-fuse-ld=gold",) if shutil.which("ld.gold") else ()


def _reused(cache: ObjectCache, job: ObjectJob, folder: Path, lines: list[str]) -> bool:
    found = cache.lookup(job.stem, job.key)
    if found is not None:
        lines.append(f"# {job.what}: unchanged, {_shown(found, folder)} reused\n")
    return found is not None


def _precompile(
    cache: ObjectCache, toolchain: Toolchain, missing: list[ObjectJob], timeout: float, lines: list[str]
) -> dict[tuple[str, tuple[str, ...]], str]:
    """The precompiled prelude to force into each (prelude, flags) of the jobs to compile."""
    uses: dict[tuple[str, tuple[str, ...]], int] = {}
    for job in missing:
        if job.prelude is not None:
            uses[(job.prelude, job.flags)] = uses.get((job.prelude, job.flags), 0) + 1
    forced = {}
    for (prelude, flags), count in uses.items():
        uses_ap = bool(set(toolchain.ap_flags) & set(flags))
        identity = [
            file_identity(toolchain.compiler),
            headers_identity(toolchain.ap_include) if uses_ap else [],
        ]

        def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess | None:
            try:
                return _gxx(argv, cwd, timeout)
            except subprocess.TimeoutExpired:
                return None

        try:
            made = precompiled_prelude(
                cache.folder.parent, [toolchain.compiler, *flags], identity, prelude, count, run, lines
            )
        except OSError as exc:  # a cache that cannot be written (read-only, full) only costs time
            lines.append(f"# headers: not precompiled ({exc.strerror or exc})\n")
            made = None
        if made is not None:
            forced[(prelude, flags)] = made
    return forced


def _compile(
    folder: Path,
    toolchain: Toolchain,
    cache: ObjectCache,
    jobs: list[ObjectJob],
    forced: Mapping[tuple[str, tuple[str, ...]], str],
    timeout: float,
    lines: list[str],
) -> list[tuple[ObjectJob, subprocess.CompletedProcess]]:
    """Compile `jobs` into the cache, side by side on the machine's cores; the failed ones."""
    if not jobs:
        return []
    try:
        cache.folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot make the object cache {cache.folder}: {exc.strerror or exc}") from None

    def one(job: ObjectJob) -> tuple[ObjectJob, subprocess.CompletedProcess, str]:
        temp = cache.temporary(job.stem, job.key)
        include = forced.get((job.prelude, job.flags)) if job.prelude is not None else None
        argv = [toolchain.compiler, *job.flags, *(["-include", include] if include else [])]
        if job.in_folder:  # joined: on stdin, in the folder, whose tb_<func>.cpp it includes
            # (-iquote is no flag of the key or of the precompiled header: it only finds the folder)
            argv += ["-iquote", ".", "-x", "c++", "-", "-c", "-o", str(temp)]
            cwd, text = folder, job.text
        elif job.source is not None:  # g++ runs in the folder, so its messages name the folder's files
            argv += ["-c", job.source, "-o", str(temp)]
            cwd, text = folder, None
        else:  # a unit reads nothing of the folder: g++ runs in the cache, on stdin
            argv += ["-x", "c++", "-", "-c", "-o", str(temp)]
            cwd, text = cache.folder, job.text
        try:
            done = _gxx(argv, cwd, timeout, text)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        # the log names the object, not its temporary: the same build logs the same text
        logged = " ".join(argv[:-1]) + f" {_shown(cache.path(job.stem, job.key), folder)}\n"
        if done.returncode == 0:
            cache.keep(temp, job.stem, job.key)
        else:
            temp.unlink(missing_ok=True)
        return job, done, logged + done.stdout + done.stderr

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers == 1:
        results = [one(job) for job in jobs]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, jobs))
    lines += [text for _, _, text in results]
    return [(job, done) for job, done, _ in results if done.returncode != 0]


def _shown(path: Path, folder: Path) -> str:
    """A path as compile.log shows it: relative to the function folder when inside it."""
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def _gxx(
    argv: list[str], folder: Path, timeout: float, text: bytes | None = None
) -> subprocess.CompletedProcess:
    # C locale: ASCII quotes and English messages, the same on every machine; a group of its own, so
    # that an interrupt or a timeout stops cc1plus too, not only the driver
    done = tool_processes.run(
        argv, cwd=folder, timeout=timeout, input=text, env={**os.environ, "LC_ALL": "C"}, text=False
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", errors="replace"),
        done.stderr.decode("utf-8", errors="replace"),
    )


__all__ = ["HARNESS_HEADER", "HARNESS_SOURCE", "Toolchain", "build_testbench", "gxx_view"]
