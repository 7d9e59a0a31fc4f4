"""C simulation without Vitis: g++ builds a function's testbench and top file, runs it on data/.

The testbench (templates/tb.cpp.j2) does the comparison and ends its output with one line
`HCLBUILD_CSIM {json}`; this module builds it, runs it, reads that line and writes the result to
`build/<name>/csim/<func>.json` atomically. It never trusts an exit status or a summary alone:
both must agree that the outputs matched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import CsimError, ToolError
from hclbuild.project.atomic import write_text_atomic
from hclbuild.runtime.aptypes import ap_types_include_dir

GXX = "g++"
# -fwrapv: signed overflow wraps as in ap_int and the LLVM reference, instead of being UB;
# -Wno-unused-label: the emitter labels every loop for Vitis reports
GXX_FLAGS: tuple[str, ...] = ("-std=c++17", "-O1", "-fwrapv", "-Wall", "-Wno-unknown-pragmas",
                              "-Wno-unused-label")
# ap_private leaves words uninitialized on purpose and g++ 12 reports it from inside every inlined
# ap_int/ap_fixed operation; without these the real warnings drown
AP_GXX_FLAGS: tuple[str, ...] = ("-Wno-uninitialized", "-Wno-maybe-uninitialized")
OUT_DIR = "out"  # inside the function folder: the executable, compile.log and actual_<arg>.bin
SUMMARY_PREFIX = "HCLBUILD_CSIM "
DEFAULT_TIMEOUT = 600.0
_ERROR_LINES_SHOWN = 3

_AP_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:ap_\w+|hls_\w+)\.h[>"]', re.MULTILINE)
_GXX_ERROR = re.compile(r"^\S.*?:\d+(?::\d+)?: (?:fatal )?error: ")


def needs_ap_include(*sources: str) -> bool:
    """True when a source includes ap_*.h or hls_*.h, so g++ needs the ap_types folder."""
    return any(_AP_INCLUDE.search(text) for text in sources)


def testbench_name(func: str) -> str:
    """File name of a function's testbench."""
    return f"tb_{func}.cpp"


@dataclass(frozen=True)
class FirstMismatch:
    """The first differing element: argument, flat index, expected and actual values."""

    arg: str
    index: int
    expected: Any
    actual: Any


@dataclass
class CsimResult:
    """The outcome of one C simulation, as written to csim/<func>.json."""

    project: str
    func: str
    passed: bool
    compared: int = 0
    mismatches: int = 0
    max_abs_err: float | str = 0.0
    max_rel_err: float | str = 0.0
    first_mismatch: FirstMismatch | None = None
    mismatch_lines: list[str] = field(default_factory=list)
    args: list[dict] = field(default_factory=list)
    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    exit_code: int | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-able dict (the csim/<func>.json document)."""
        data = asdict(self)
        # "pass" first: it is what a reader of csim/<func>.json looks for
        return {"project": data.pop("project"), "func": data.pop("func"), "pass": data.pop("passed"), **data}

    @property
    def summary(self) -> str:
        """One line: what passed or what went wrong, naming project and function."""
        head = f"{self.project}/{self.func}: csim"
        if self.error:
            return f"{head} failed: {self.error}"
        if self.passed:
            return f"{head} passed ({self.compared} elements, max abs err {self.max_abs_err})"
        text = f"{head} failed: {self.mismatches} of {self.compared} elements differ"
        if self.first_mismatch:
            m = self.first_mismatch
            text += f"; first {m.arg}[{m.index}] expected={m.expected} actual={m.actual}"
        return text

    def check(self) -> CsimResult:
        """Raise CsimError (one line) unless the simulation passed; returns self otherwise."""
        if not self.passed:
            raise CsimError(self.summary)
        return self


def _first_error_lines(output: str) -> list[str]:
    lines = [line for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if _GXX_ERROR.match(line)]
    if not errors:
        errors = [line for line in lines if "error" in line.lower() or "undefined reference" in line]
    return errors or lines[:1]


def _write_result(out_json: Path, result: CsimResult) -> None:
    write_text_atomic(out_json, json.dumps(result.as_dict(), indent=2) + "\n")


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def run_csim(func_dir: str | Path, out_json: str | Path, timeout: float = DEFAULT_TIMEOUT, *,
             project: str | None = None, gxx: str = GXX,
             ap_include_dir: str | Path | None = None) -> CsimResult:
    """Compile `tb_<func>.cpp` + `<func>.cpp` with g++, run the testbench on data/, write out_json.

    `func_dir` is `build/<name>/hls/<func>/`; the project name defaults to `<name>`. A compile
    failure raises ToolError with g++'s first error line verbatim (after writing out_json). A run
    that mismatches, crashes or times out returns a failed CsimResult; call `.check()` to raise.
    """
    folder = Path(func_dir)
    func = folder.name
    project_name = project if project is not None else folder.resolve().parent.parent.name
    out_path = Path(out_json)
    head = f"{project_name}/{func}"

    tb_file, top_file, header_file = folder / testbench_name(func), folder / f"{func}.cpp", folder / f"{func}.h"
    for required in (tb_file, top_file, folder / "data" / "manifest.json"):
        if not required.is_file():
            raise CsimError(f"{head}: {required} not found (the function's HLS folder is incomplete)")
    sources = [tb_file.read_text(encoding="utf-8", errors="replace"),
               top_file.read_text(encoding="utf-8", errors="replace")]
    if header_file.is_file():
        sources.append(header_file.read_text(encoding="utf-8", errors="replace"))

    compiler = shutil.which(gxx)
    if compiler is None:
        raise ToolError(f"{head}: {gxx} not found on PATH (C simulation needs a C++ compiler)")
    command = [compiler, *GXX_FLAGS, "-I."]
    if needs_ap_include(*sources):
        include = Path(ap_include_dir) if ap_include_dir is not None else ap_types_include_dir()
        if include is None:
            raise ToolError(f"{head}: the sources include ap_*.h/hls_*.h but no ap_types headers were found "
                            "(install hls4ml or set XILINX_HLS)")
        command += [*AP_GXX_FLAGS, "-isystem", str(include)]
    executable = f"{OUT_DIR}/tb_{func}"
    command += [tb_file.name, top_file.name, "-o", executable]
    (folder / OUT_DIR).mkdir(exist_ok=True)

    result = CsimResult(project=project_name, func=func, passed=False)
    started = time.monotonic()
    try:
        # C locale: ASCII quotes and English messages, the same on every machine
        compiled = subprocess.run(command, cwd=folder, capture_output=True, text=True, errors="replace",
                                  timeout=timeout, env={**os.environ, "LC_ALL": "C"}, check=False)
    except subprocess.TimeoutExpired:
        result.compile_seconds = time.monotonic() - started
        result.error = f"g++ timed out after {timeout:g} s"
        _write_result(out_path, result)
        raise ToolError(f"{head}: {result.error}") from None
    result.compile_seconds = round(time.monotonic() - started, 3)
    log = folder / OUT_DIR / "compile.log"
    write_text_atomic(log, " ".join(command) + "\n" + compiled.stdout + compiled.stderr)
    if compiled.returncode != 0:
        errors = _first_error_lines(compiled.stderr + compiled.stdout)
        first = errors[0] if errors else "(no output)"
        more = len(errors) - 1
        extra = f" (+{more} more error{'s' if more != 1 else ''})" if more > 0 else ""
        result.exit_code = compiled.returncode
        result.error = f"g++ failed (exit {compiled.returncode}): {first}"
        result.mismatch_lines = errors[:_ERROR_LINES_SHOWN]
        _write_result(out_path, result)
        raise ToolError(f"{head}: g++ failed (exit {compiled.returncode}): {first}{extra}; full output in {log}")

    started = time.monotonic()
    try:
        ran = subprocess.run([f"./{executable}", "data", OUT_DIR], cwd=folder, capture_output=True,
                             text=True, errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        result.run_seconds = round(time.monotonic() - started, 3)
        result.error = f"testbench timed out after {timeout:g} s"
        _write_result(out_path, result)
        return result
    result.run_seconds = round(time.monotonic() - started, 3)
    result.exit_code = ran.returncode
    _apply_output(result, ran.stdout, ran.stderr, ran.returncode)
    _write_result(out_path, result)
    return result


def _apply_output(result: CsimResult, stdout: str, stderr: str, returncode: int) -> None:
    """Fill `result` from the testbench's output and exit status."""
    result.mismatch_lines = [line for line in stdout.splitlines() if line.startswith("MISMATCH ")]
    summaries = [line for line in stdout.splitlines() if line.startswith(SUMMARY_PREFIX)]
    summary: dict[str, Any] | None = None
    if summaries:
        try:
            summary = json.loads(summaries[-1][len(SUMMARY_PREFIX):])
        except ValueError:
            summary = None
    if returncode < 0:
        result.error = f"testbench killed by {_signal_name(-returncode)}"
        return
    if summary is None:
        last = (stderr.strip().splitlines() or stdout.strip().splitlines() or ["no output"])[-1]
        result.error = f"testbench printed no HCLBUILD_CSIM summary (exit {returncode}): {last}"
        return
    if summary.get("error"):
        result.error = str(summary["error"])
        return
    result.compared = int(summary.get("compared", 0))
    result.mismatches = int(summary.get("mismatches", 0))
    result.max_abs_err = summary.get("max_abs_err", 0.0)
    result.max_rel_err = summary.get("max_rel_err", 0.0)
    result.args = list(summary.get("args", []))
    first = summary.get("first_mismatch")
    if first:
        result.first_mismatch = FirstMismatch(arg=first["arg"], index=int(first["index"]),
                                              expected=first["expected"], actual=first["actual"])
    claimed = bool(summary.get("pass"))
    # the exit status and the summary must agree; either alone could hide a failure
    if claimed != (returncode == 0):
        result.error = f"testbench summary says pass={claimed} but it exited with status {returncode}"
        return
    result.passed = claimed and result.mismatches == 0
