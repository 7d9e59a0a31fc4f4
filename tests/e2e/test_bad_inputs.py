"""The bad-input catalogue: malformed input of every kind, each in its own subprocess.

Each case must end with exit status 1 (never a signal, never a hang) and print one line that
names the bad thing, and must leave no partial file: no temporary, no empty file, no unparsable
JSON below build/, and no build/ at all in the folder it ran from unless the case built there.
DSL, schedule and built-function cases run a snippet under a harness that turns an HCLError into
`error: <message>` and exit status 1 (what a user's script sees is the same exception); project,
command-line and tool cases run the real `hclbuild` command.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 180

HARNESS = """
import sys, numpy as np
import hclbuild as hcl
from hclbuild.errors import HCLError
try:
    exec(compile(sys.argv[1], "<case>", "exec"), {"hcl": hcl, "np": np})
except HCLError as exc:
    print("error: " + str(exc), file=sys.stderr)
    sys.exit(1)
print("no error", file=sys.stderr)
sys.exit(0)
"""

ONE_STAGE = (
    "A = hcl.placeholder((4,), 'A')\ndef k(A): return hcl.compute((4,), lambda i: A[i] + 1, name='C')\n"
    "s = hcl.create_schedule([A], k)\n"
)
TWO_D = (
    "A = hcl.placeholder((4, 4), 'A')\ndef k(A): return hcl.compute((4, 4), lambda i, j: A[i, j], name='C')\n"
    "s = hcl.create_schedule([A], k)\n"
)
DIVIDE = (
    "A = hcl.placeholder((4,), 'A'); B = hcl.placeholder((4,), 'B')\n"
    "s = hcl.create_schedule([A, B], lambda A, B: hcl.compute((4,), lambda i: A[i] / B[i], name='Q'))\n"
    "f = hcl.build(s)\n"
)

# name -> (snippet, text the one-line message must contain)
SNIPPETS: dict[str, tuple[str, str]] = {
    "an unsigned comparison always false under warnings='error'": (
        "hcl.init(hcl.UInt(8), warnings='error')\nA = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: hcl.select(A[i] - A[0] < 0, 1, 0)))",
        "<case>:3: comparison of an unsigned UInt(32) expression < 0 is always false",
    ),
    "an unknown warnings mode": ("hcl.init(warnings='loud')", "'loud' is not one of default, error, ignore"),
    "negative shape": ("hcl.placeholder((-1,), 'A')", "placeholder A: shape dimensions must be positive"),
    "fractional shape": (
        "hcl.placeholder((2.5,), 'A')",
        "shape must be a tuple of positive integers, got (2.5,)",
    ),
    "zero-width dtype name": ("hcl.placeholder((4,), 'A', 'int0')", "bit width 0 is out of range"),
    "unknown dtype name": ("hcl.placeholder((4,), 'A', 'floatX')", "unknown data type 'floatX'"),
    "Int(0)": ("hcl.Int(0)", "Int: bit width 0 is out of range [1, 2047]"),
    "Int(2048)": ("hcl.Int(2048)", "Int: bit width 2048 is out of range [1, 2047]"),
    "Fixed fraction wider than the type": ("hcl.Fixed(8, 9)", "Fixed fraction: bit width 9 is out of range"),
    "Float(16)": ("hcl.Float(16)", "Float(16): only Float(32) and Float(64)"),
    "fcompute arity": (
        "A = hcl.placeholder((4, 4), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4, 4), lambda i: A[i, 0], name='C'))",
        "compute 'C': fcompute takes 1 argument(s) but the shape has 2 dimension(s)",
    ),
    "too many subscripts": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i, 0], name='C'))",
        "tensor 'A' has 1 dimensions, indexed with 2",
    ),
    "too few subscripts in arithmetic": (
        "B = hcl.placeholder((4, 4), 'B')\n"
        "hcl.create_schedule([B], lambda B: hcl.compute((4,), lambda i: B[i] + 1, "
        "name='C'))",
        "tensor 'B' has 2 dimensions, indexed with 1 in 'add'",
    ),
    "too few subscripts as a value": (
        "B = hcl.placeholder((4, 4), 'B')\n"
        "hcl.create_schedule([B], lambda B: hcl.compute((4,), lambda i: B[i], name='C'))",
        "tensor 'B' has 2 dimensions, indexed with 1: index every dimension",
    ),
    "inputs not placeholders": (
        "hcl.create_schedule([1, 2], lambda a, b: None)",
        "create_schedule: inputs must be a list of hcl.placeholder tensors",
    ),
    "algorithm returns a number": (
        "A = hcl.placeholder((4,), 'A'); hcl.create_schedule([A], lambda A: 5)",
        "the algorithm returned int, expected tensors",
    ),
    "zero-size compute": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((0,), lambda i: A[i], name='C'))",
        "compute 'C': shape dimensions must be positive, got (0,)",
    ),
    "unknown stage": (ONE_STAGE + "s['nope']", "schedule 'top' has no stage 'nope' (stages: C)"),
    "split by 0": (
        ONE_STAGE + "s[k.C].split(k.C.axis[0], 0)",
        "split('i'): factor must be a positive int, got 0",
    ),
    "tile by 0": (
        TWO_D + "s[k.C].tile(k.C.axis[0], k.C.axis[1], 0, 2)",
        "factor must be a positive int, got 0",
    ),
    "negative unroll": (
        ONE_STAGE + "s[k.C].unroll(k.C.axis[0], -2)",
        "unroll: factor must be an int >= 0, got -2",
    ),
    "pipeline II 0": (
        ONE_STAGE + "s[k.C].pipeline(k.C.axis[0], initiation_interval=0)",
        "pipeline: initiation_interval must be an int >= 1, got 0",
    ),
    "reorder names a loop twice": (
        TWO_D + "s[k.C].reorder(k.C.axis[0], k.C.axis[0])",
        "reorder: a loop is named twice in ['i', 'i']",
    ),
    "fuse non-adjacent loops": (
        "A = hcl.placeholder((4, 4, 4), 'A')\n"
        "def k(A): return hcl.compute((4, 4, 4), lambda i, j, l: A[i, j, l], name='C')\n"
        "s = hcl.create_schedule([A], k); s[k.C].fuse(k.C.axis[0], k.C.axis[2])",
        "fuse: loops ['i', 'l'] must be adjacent and outermost first",
    ),
    "loop of another stage": (
        "A = hcl.placeholder((4,), 'A')\n"
        "def k(A):\n    B = hcl.compute((4,), lambda i: A[i], name='B')\n"
        "    return hcl.compute((4,), lambda i: B[i], name='C')\n"
        "s = hcl.create_schedule([A], k); s[k.B].split(k.C.axis[0], 2)",
        "stage 'B': loop 'i' belongs to stage 'C'",
    ),
    "partition dim out of range": (
        ONE_STAGE + "s.partition(A, dim=3)",
        "partition: dim 3 out of range for 'A' of shape (4,)",
    ),
    "outline a stage twice": (
        ONE_STAGE + "s.outline(k.C); s.outline(k.C); hcl.lower(s)",
        "stage 'C' is outlined twice",
    ),
    "outline name not a C identifier": (
        ONE_STAGE + "s.outline(k.C, name='fc-1')",
        "outline: name 'fc-1' must be a C identifier (letters, digits and '_', not first a digit)",
    ),
    "outline name of the top": (
        ONE_STAGE + "s.outline(k.C, name='top')",
        "outline: name 'top' is already the design's top function",
    ),
    "outline name given twice": (
        "A = hcl.placeholder((4,), 'A')\n"
        "def k(A):\n    B = hcl.compute((4,), lambda i: A[i], name='B')\n"
        "    return hcl.compute((4,), lambda i: B[i], name='C')\n"
        "s = hcl.create_schedule([A], k); s.outline(k.B, name='f'); s.outline(k.C, name='f')",
        "outline: name 'f' is already the function of stage(s) B",
    ),
    "tensor name with a newline": (
        "hcl.placeholder((4,), 'A\\nB')",
        "placeholder: name 'A\\nB' must be a non-empty string of printable characters",
    ),
    "s.to a device": (
        "A = hcl.placeholder((4,), 'A')\n"
        "def k(A):\n    B = hcl.compute((4,), lambda i: A[i], name='B')\n"
        "    return hcl.compute((4,), lambda i: B[i], name='C')\n"
        "s = hcl.create_schedule([A], k); s.to(k.B, 'fifo'); hcl.lower(s)",
        "s.to(tensor, 'fifo'): moving data to a device or the host is not implemented",
    ),
    "unknown build target": (ONE_STAGE + "hcl.build(s, target='fpga')", "build: unknown target 'fpga'"),
    "build of a non-schedule": (
        "hcl.build(42)",
        "build: expected a schedule from hcl.create_schedule, got int",
    ),
    "reversed bit slice": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][4:2], name='C'))",
        "bit slice [4:2]: the lower bound is above the upper one (use .reverse() to reverse bits)",
    ),
    "bit slice past the width": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][2:40], name='C'))",
        "bit slice [2:40] is out of range for Int(32) (hi is exclusive)",
    ),
    "empty bit slice": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][3:3], name='C'))",
        "bit slice [3:3] is empty: hi is exclusive, so x[k:k+1] (or x[k]) is bit k",
    ),
    "placeholder of more than 2**63 - 1 elements": (
        "hcl.placeholder((2**40, 2**40), 'A')",
        "placeholder A: shape (1099511627776, 1099511627776) has 1208925819614629174706176 elements, "
        "more than 2**63 - 1",
    ),
    "hcl.all of nothing": ("hcl.all()", "hcl.all needs at least one condition"),
    "cast to a 2048-bit int": (
        "A = hcl.placeholder((4,), 'A')\n"
        "hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: hcl.cast('int2048', A[i]),"
        " name='C'))",
        "Int: bit width 2048 is out of range",
    ),
    "asarray with an unknown dtype": ("hcl.asarray(np.zeros(3), 'blah')", "unknown data type 'blah'"),
    "reduce_axis bound not an int": (
        "hcl.reduce_axis(0, 'x', 'r')",
        "reduce_axis bounds must be Python ints, got 'x'",
    ),
    "tensor used as a value": (
        "A = hcl.placeholder((4,), 'A')\n"
        "def k(A):\n    with hcl.while_(A):\n        pass\nhcl.create_schedule([A], k)",
        "tensor 'A' used as a value: index it, e.g. A[i]",
    ),
    "string in an expression": (
        "A = hcl.placeholder((4,), 'A')\nhcl.create_schedule([A], lambda A: hcl.update(A, lambda i: 'x'))",
        "cannot use str 'x' in a DSL expression",
    ),
    "constant 0 divisor": (
        "A = hcl.placeholder((4,), 'A')\nhcl.build(hcl.create_schedule([A], lambda A: "
        "hcl.compute((4,), lambda i: A[i] / 0, name='C')))",
        "stage C: division by the constant 0",
    ),
    "constant subscript past the end": (
        "A = hcl.placeholder((4,), 'A')\nhcl.build(hcl.create_schedule([A], "
        "lambda A: hcl.compute((4,), lambda i: A[4] + i, name='C')))",
        "stage C reads A outside its shape (4,): subscript 0 is the constant 4",
    ),
    # the built function
    "too few arguments": (
        ONE_STAGE + "hcl.build(s)(np.zeros(4, np.int32))",
        "expected 2 arguments (A, C), got 1",
    ),
    "wrong shape": (ONE_STAGE + "hcl.build(s)(np.zeros(5, np.int32), np.zeros(4, np.int32))", "shape"),
    "wrong dtype": (ONE_STAGE + "hcl.build(s)(np.zeros(4, np.float64), np.zeros(4, np.int32))", "dtype"),
    "not contiguous": (
        ONE_STAGE + "hcl.build(s)(np.zeros(8, np.int32)[::2], np.zeros(4, np.int32))",
        "contiguous",
    ),
    "runtime division by zero": (
        DIVIDE + "f(np.ones(4, np.int32), np.array([1, 0, 1, 1], np.int32), np.zeros(4, np.int32))",
        "function top, stage Q divides by zero",
    ),
    "most negative int divided by -1": (
        DIVIDE + "f(np.full(4, -2**31, np.int32), np.full(4, -1, np.int32), np.zeros(4, np.int32))",
        "stage Q divides the most negative 32-bit integer by -1",
    ),
}

KERNEL = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((4,), "B")
    return hcl.create_schedule([A, B], lambda A, B: hcl.compute((4,), lambda i: A[i] + B[i], name="C"))
"""

# name -> (files of the project folder "p", text the one-line message must contain)
PROJECTS: dict[str, tuple[dict[str, str], str]] = {
    "kernel.py syntax error": ({"kernel.py": "def schedule(:\n"}, "kernel.py"),
    "kernel.py without schedule()": ({"kernel.py": "import hclbuild as hcl\n"}, "schedule"),
    "schedule() raises": (
        {"kernel.py": "def schedule():\n    raise ValueError('boom')\n"},
        "p/kernel.py:2: schedule() failed: ValueError: boom",
    ),
    # SystemExit is no Exception: hclbuild ended with the kernel's status and no word
    "kernel.py calls sys.exit()": (
        {"kernel.py": "import sys\nsys.exit(3)\n"},
        "p/kernel.py:2: importing kernel.py failed: SystemExit: 3",
    ),
    "schedule() calls sys.exit()": (
        {"kernel.py": "def schedule():\n    raise SystemExit(0)\n"},
        "p/kernel.py:2: schedule() failed: SystemExit: 0",
    ),
    "inputs() calls sys.exit()": (
        {"kernel.py": KERNEL + "\ndef inputs(rng):\n    raise SystemExit('no data')\n"},
        "p/kernel.py:12: inputs() failed: SystemExit: no data",
    ),
    "schedule() returns a number": ({"kernel.py": "def schedule():\n    return 3\n"}, "schedule"),
    # kernel.py's code runs in a child of the build (hclbuild.project.kernel.traced_functions), so none
    # of these ends or hangs the build itself
    "kernel.py calls os._exit()": (
        {"kernel.py": "import os\nos._exit(3)\n"},
        "p: tracing kernel.py exited with status 3 before it returned (os._exit() in kernel.py?)",
    ),
    "schedule() calls os.abort()": (
        {"kernel.py": "import os\ndef schedule():\n    os.abort()\n"},
        "p: tracing kernel.py died with SIGABRT (abort(): os.abort() or a failed assertion in native code)",
    ),
    "schedule() never returns": (
        {
            "kernel.py": "def schedule():\n    while True:\n        pass\n",
            "project.toml": "[reference]\ntimeout = 1\n",
        },
        "p: tracing kernel.py did not finish within 1 s and was stopped",
    ),
    "a thread kernel.py starts calls os._exit()": (
        {
            "kernel.py": "import os, threading, time\n"
            "threading.Thread(target=lambda: os._exit(4)).start()\ntime.sleep(5)\n" + KERNEL
        },
        "p: tracing kernel.py exited with status 4 before it returned (os._exit() in kernel.py?)",
    ),
    # HeteroCL's stage handle of a stage the algorithm does not have: what s["edges"] says, not a bare
    # "AttributeError: 'function' object has no attribute 'edges'"
    "stage handle of no stage": (
        {
            "kernel.py": "import hclbuild as hcl\n\ndef schedule():\n    A = hcl.placeholder((4,), 'A')\n"
            "    def kernel(A):\n        return hcl.compute((4,), lambda i: A[i] + 1, name='C')\n"
            "    s = hcl.create_schedule([A], kernel)\n    s.outline(kernel.edges)\n    return s\n"
        },
        "APIError: schedule 'top' has no stage 'edges' (stages: C)",
    ),
    "kernel.py imports a missing module": (
        {"kernel.py": "import no_such_module_here\n" + KERNEL},
        "no_such_module_here",
    ),
    "project.toml not TOML": ({"kernel.py": KERNEL, "project.toml": "[hls\n"}, "project.toml"),
    "project.toml unknown section": ({"kernel.py": KERNEL, "project.toml": "[fpga]\nx = 1\n"}, "fpga"),
    "project.toml unknown key": ({"kernel.py": KERNEL, "project.toml": "[hls]\nspeed = 1\n"}, "speed"),
    "project.toml clock is a string": (
        {"kernel.py": KERNEL, "project.toml": "[hls]\nclock_period_ns = 'fast'\n"},
        "clock_period_ns",
    ),
    "project.toml clock of 10 ps": (
        {"kernel.py": KERNEL, "project.toml": "[hls]\nclock_period_ns = 0.01\n"},
        "hls.clock_period_ns must be from 0.5 to 1000 (ns), got 0.01",
    ),
    "project.toml timeout beyond a week": (
        {"kernel.py": KERNEL, "project.toml": "[reference]\ntimeout = 1e300\n"},
        "reference.timeout must be from 1 to 604800 (s), got 1e+300",
    ),
    "project.toml size beyond a C int": (
        {"kernel.py": KERNEL, "project.toml": "[sizes]\nN = 4294967296\n"},
        "sizes.N must be at most 2147483647 (loops count in C int), got 4294967296",
    ),
    "project.toml part with Tcl metacharacters": (
        {"kernel.py": KERNEL, "project.toml": "[hls]\npart = 'xc7z020 [exec rm -rf ~]'\n"},
        "part",
    ),
    "project.toml name with a space": (
        {"kernel.py": KERNEL, "project.toml": "[project]\nname = 'my proj'\n"},
        "name",
    ),
    "project.toml top is not the schedule's": (
        {"kernel.py": KERNEL, "project.toml": "[project]\ntop = 'other'\n"},
        "other",
    ),
    "project.toml m_axi depth below the element count": (
        {"kernel.py": KERNEL, "project.toml": "[interface.A]\nprotocol = 'm_axi'\ndepth = 2\n"},
        "argument A of @top: m_axi depth 2 is less than the 4 elements of int32_t A[4]",
    ),
    # the settings applied to nothing: the design was synthesized with the defaults, and csim passed
    "project.toml interface of an unknown function": (
        {"kernel.py": KERNEL, "project.toml": "[interface.Stage_nope.A]\nprotocol = 'm_axi'\n"},
        "project.toml [interface.Stage_nope.A]: the design has no function 'Stage_nope' (functions: top;",
    ),
    "project.toml memory_gb is a string": (
        {"kernel.py": KERNEL, "project.toml": "[reference]\nmemory_gb = 'lots'\n"},
        "reference.memory_gb must be a number, got string",
    ),
    "inputs() returns one array for two inputs": (
        {"kernel.py": KERNEL + "\ndef inputs(rng):\n    return [np.zeros(4, np.int32)]\n"},
        "inputs() returned 1 arrays, the design has 2 inputs",
    ),
    "inputs() wrong shape": (
        {
            "kernel.py": KERNEL + "\ndef inputs(rng):\n"
            "    return [np.zeros(5, np.int32), np.zeros(4, np.int32)]\n"
        },
        "inputs() gave A shape (5,), expected",
    ),
    "model() disagrees": (
        {"kernel.py": KERNEL + "\ndef model(A, B):\n    return A - B\n"},
        "numpy model and LLVM reference disagree on C[",
    ),
    "model() wrong shape": (
        {"kernel.py": KERNEL + "\ndef model(A, B):\n    return np.zeros(3)\n"},
        "model() output C has shape (3,), expected (4,)",
    ),
    "model() dict names no argument": (
        {"kernel.py": KERNEL + "\ndef model(A, B):\n    return {'c': A - B}\n"},
        "model() returned c, not an argument of the design (its arguments: A, B, C)",
    ),
    "model() list for a design without outputs": (
        {
            "kernel.py": KERNEL.replace(
                'hcl.compute((4,), lambda i: A[i] + B[i], name="C")',
                'hcl.update(B, lambda i: A[i] + B[i], name="C")',
            )
            + "\ndef model(A, B):\n    return A + B\n"
        },
        "model() returned 1 arrays for 0 outputs (the design updates its arguments in place: return a dict",
    ),
    "subscript past the end at run time": (
        {"kernel.py": KERNEL.replace("A[i] + B[i]", "A[i + 1] + B[i]")},
        "stage C reads A outside its shape (4,): subscript 0 is 4",
    ),
    "division by zero in the reference": (
        {
            "kernel.py": KERNEL.replace("A[i] + B[i]", "A[i] / B[i]")
            + "\ndef inputs(rng):\n    return [np.ones(4), np.zeros(4)]\n"
        },
        "p: function top, stage C divides by zero",
    ),
}

# name -> (hclbuild arguments, text the one-line message must contain); run in an empty folder
COMMANDS: dict[str, tuple[list[str], str]] = {
    "no such path": (["csim", "nowhere"], "nowhere: no such project or folder"),
    "folder without projects": (["build", "."], "no project (a folder with kernel.py) under ."),
    "new with a space in the name": (["new", "my proj"], "'my proj' is not a valid project name"),
    "new with shell metacharacters": (["new", "a;rm -rf x"], "is not a valid project name"),
    "list of no project": (["list", "nowhere"], "nowhere: no such project or folder"),
    "clean of no project": (["clean", "nowhere"], "nowhere: no such project or folder"),
}


def check_no_partial_files(folder: Path) -> None:
    for path in folder.rglob("*"):
        assert not path.name.endswith(".tmp"), f"temporary left behind: {path}"
        if path.is_file() and path.suffix == ".json":
            json.loads(path.read_text())  # complete, not half-written
        if path.is_file() and "build" in path.relative_to(folder).parts:
            assert path.stat().st_size > 0 or path.name.startswith("."), f"empty file {path}"


def run(cwd: Path, argv: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        check=False,
    )
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    return proc


def assert_one_line_error(proc: subprocess.CompletedProcess, fragment: str) -> None:
    assert proc.returncode == 1, f"exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if fragment in line]
    assert lines, f"no line names {fragment!r}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_dsl_and_built_function(tmp_path: Path, name: str) -> None:
    snippet, fragment = SNIPPETS[name]
    proc = run(tmp_path, ["-c", HARNESS, textwrap.dedent(snippet)])
    assert_one_line_error(proc, fragment)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert list(tmp_path.iterdir()) == []  # nothing written, least of all a build/ here


@pytest.mark.parametrize("name", list(PROJECTS))
def test_project_files(tmp_path: Path, name: str) -> None:
    files, fragment = PROJECTS[name]
    folder = tmp_path / "p"
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run(elsewhere, ["-m", "hclbuild.cli", "csim", str(folder)])
    assert_one_line_error(proc, fragment)
    assert list(elsewhere.iterdir()) == []  # build/ went beside the project, not into the current folder
    check_no_partial_files(tmp_path)
    summary = tmp_path / "build" / "p" / "reports" / "summary.json"
    if summary.exists():
        states = {f["state"] for f in json.loads(summary.read_text())["functions"].values()}
        assert "pass" not in states


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_line(tmp_path: Path, name: str) -> None:
    argv, fragment = COMMANDS[name]
    proc = run(tmp_path, ["-m", "hclbuild.cli", *argv])
    assert_one_line_error(proc, fragment)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("hclbuild: error: ")
    assert list(tmp_path.iterdir()) == []


def test_new_over_an_existing_project(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text("# mine\n")
    proc = run(tmp_path, ["-m", "hclbuild.cli", "new", "p"])
    assert_one_line_error(proc, "p: already a project (kernel.py exists); nothing written")
    assert (tmp_path / "p" / "kernel.py").read_text() == "# mine\n"


@pytest.mark.parametrize("runner", ["hclbuild", "doit"])
def test_a_project_folder_named_with_a_space(tmp_path: Path, runner: str) -> None:
    """Refused up front, as `hclbuild new` refuses the name: its tasks were named `compile:my sobel`."""
    folder = tmp_path / "projects" / "my sobel"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    if runner == "hclbuild":
        proc = run(tmp_path, ["-m", "hclbuild.cli", "csim", "projects/my sobel"])
    else:
        (tmp_path / "dodo.py").write_text(
            "from pathlib import Path\nfrom hclbuild.tasks import all_tasks, doit_config\n"
            "DOIT_CONFIG = doit_config(Path('build').resolve())\n"
            "def task_hclbuild():\n    yield from all_tasks(Path('projects').resolve(), Path('build').resolve())\n"
        )
        proc = run(tmp_path, ["-m", "doit", "csim"])
    assert_one_line_error(proc, f"{folder}: 'my sobel' is not a valid project name")
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert not any((tmp_path / "build").glob("*/"))  # no build/<name>/, no task ran
    check_no_partial_files(tmp_path)


def test_build_dir_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text(KERNEL)
    (tmp_path / "taken").write_text("a file\n")
    proc = run(tmp_path, ["-m", "hclbuild.cli", "build", "p", "--build-dir", "taken"])
    assert_one_line_error(proc, "taken")


@pytest.mark.parametrize(
    ("build_dir", "fragment"),
    [
        ("projects", "projects: the build folder would be a folder of projects (it holds {p})"),
        ("projects/p", "projects/p: the build folder would be inside project folder {p}"),
        ("projects/p/build", "projects/p/build: the build folder would be inside project folder {p}"),
    ],
)
def test_a_build_folder_among_the_projects(tmp_path: Path, build_dir: str, fragment: str) -> None:
    """Issue 34 section 2: `--build-dir projects` made build/p/ the project folder itself."""
    folder = tmp_path / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    proc = run(tmp_path, ["-m", "hclbuild.cli", "csim", "projects/p", "--build-dir", build_dir])
    assert_one_line_error(proc, fragment.format(p=folder))
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert sorted(path.name for path in folder.iterdir()) == ["kernel.py"]  # nothing written there


@pytest.mark.parametrize("runner", ["hclbuild", "doit"])
def test_a_second_project_of_the_same_name(tmp_path: Path, runner: str) -> None:
    """Issue 34 section 2: two folders' projects `p` built into one build/p/ mixed their hls/ folders."""
    for side in ("a", "b"):
        (tmp_path / side / "p").mkdir(parents=True)
        (tmp_path / side / "p" / "kernel.py").write_text(KERNEL)
    first = run(tmp_path, ["-m", "hclbuild.cli", "build", "a/p", "--build-dir", "out"])
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "out" / "p" / ".hclbuild-project").read_text() == f"{tmp_path / 'a' / 'p'}\n"
    before = {path: path.stat().st_mtime_ns for path in (tmp_path / "out" / "p").rglob("*")}
    if runner == "hclbuild":
        proc = run(tmp_path, ["-m", "hclbuild.cli", "build", "b/p", "--build-dir", "out"])
    else:
        (tmp_path / "dodo.py").write_text(
            "from pathlib import Path\nfrom hclbuild.tasks import tasks_for, doit_config\n"
            "DOIT_CONFIG = doit_config(Path('out').resolve())\n"
            "def task_hclbuild():\n    yield from tasks_for([Path('b/p').resolve()], Path('out').resolve())\n"
        )
        proc = run(tmp_path, ["-m", "doit", "build"])
    assert_one_line_error(
        proc,
        f"hclbuild: error: {tmp_path / 'out' / 'p'}/ is the build of project 'p' of {tmp_path / 'a' / 'p'}, "
        f"not of {tmp_path / 'b' / 'p'}: give one another [project] name",
    )
    # a's build untouched (b's plan in out/.plans/ is keyed by its folder, no part of out/p/)
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "out" / "p").rglob("*")} == before


def test_projects_of_different_build_folders(tmp_path: Path) -> None:
    """Issue 34 section 2: one build-folder rule (beside each project folder); two projects whose
    build folders differ are refused, whatever command names them, before anything is written."""
    for side in ("a", "b"):
        (tmp_path / side / "p").mkdir(parents=True)
        (tmp_path / side / "p" / "kernel.py").write_text(KERNEL)
    for command in ("build", "clean"):
        proc = run(tmp_path, ["-m", "hclbuild.cli", command, "a/p", "b/p"])
        assert_one_line_error(
            proc,
            f"hclbuild: error: the projects would build in different folders ({tmp_path / 'a' / 'build'}, "
            f"{tmp_path / 'b' / 'build'}): choose one with --build-dir",
        )
    assert sorted(path.name for path in tmp_path.rglob("*")) == ["a", "b", "kernel.py", "kernel.py", "p", "p"]


@pytest.mark.parametrize(
    ("written", "owner", "fragment"),
    [
        ("{not json", None, "p/.hclbuild-written.json: unreadable list of what hclbuild wrote"),
        (
            '{"format": "hclbuild-written", "tasks": {"x": ["../../p/kernel.py"]}}',
            None,
            "not hclbuild's list",
        ),
        ("", "/elsewhere/p", "p/ is the build of project 'p' of /elsewhere/p, not of {p}"),
    ],
    ids=["unreadable", "leaving the build", "of another folder's project"],
)
def test_clean_that_cannot_know_what_hclbuild_wrote(
    tmp_path: Path, written: str, owner: str | None, fragment: str
) -> None:
    """`hclbuild clean` removes only what build/<p>/.hclbuild-written.json lists: without a list it
    can trust, or in the build of another folder's project, it removes nothing."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text(KERNEL)
    build = tmp_path / "build" / "p"
    (build / "ir").mkdir(parents=True)
    (build / "ir" / "top.mlir").write_text("module {}\n")
    if written:
        (build / ".hclbuild-written.json").write_text(written)
    if owner is not None:
        (build / ".hclbuild-project").write_text(owner + "\n")
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    proc = run(tmp_path, ["-m", "hclbuild.cli", "clean", "p"])
    assert_one_line_error(proc, fragment.format(p=tmp_path / "p"))
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before


def _read_only_build_folder(folder: Path, argv: list[str]) -> subprocess.CompletedProcess:
    """argv (python's) run in `folder` with its build/ a read-only file system: a tmpfs mounted in a
    mount namespace of the command's own (tests run as root, which no folder's mode stops)."""
    (folder / "build").mkdir(exist_ok=True)
    for unshare in (["unshare", "-m"], ["unshare", "-rm"]):
        probe = subprocess.run(
            [*unshare, "sh", "-c", "mount -t tmpfs -o ro tmpfs build"],
            cwd=folder,
            capture_output=True,
            check=False,
        )
        if probe.returncode == 0:
            break
    else:
        pytest.skip("no read-only mount possible here (unshare -m and unshare -rm both refused)")
    command = " ".join(shlex.quote(arg) for arg in [sys.executable, *argv])
    proc = subprocess.run(
        [*unshare, "sh", "-c", f"mount -t tmpfs -o ro tmpfs build && exec {command}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    return proc


UNWRITABLE = "the build folder cannot be written (a read-only file system)"


@pytest.mark.parametrize(
    "argv", [["-m", "hclbuild.cli", "csim", "projects/p"], ["-m", "doit"]], ids=["hclbuild", "doit"]
)
def test_a_read_only_build_folder_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    # plain doit printed sqlite3's traceback ("unable to open database file"); hclbuild named a temporary
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "projects" / "p" / "kernel.py").write_text(KERNEL)
    shutil.copy(REPO / "dodo.py", tmp_path / "dodo.py")
    proc = _read_only_build_folder(tmp_path, argv)
    assert_one_line_error(proc, f"hclbuild: error: {tmp_path / 'build'}: {UNWRITABLE}")
    assert proc.stderr.count("\n") == 1
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == []  # the folder under the mount


def test_a_build_folder_that_is_a_file_is_one_line_under_doit(tmp_path: Path) -> None:
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "projects" / "p" / "kernel.py").write_text(KERNEL)
    shutil.copy(REPO / "dodo.py", tmp_path / "dodo.py")
    (tmp_path / "build").write_text("a file where the build folder goes\n")
    proc = run(tmp_path, ["-m", "doit"])
    assert_one_line_error(
        proc, f"hclbuild: error: {tmp_path / 'build'}: cannot make the build folder: File exists"
    )
    assert proc.stderr.count("\n") == 1
    assert (tmp_path / "build").read_text() == "a file where the build folder goes\n"


def test_missing_gxx_is_a_failed_csim(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text(KERNEL)
    proc = run(tmp_path, ["-m", "hclbuild.cli", "csim", "p"], env={"PATH": str(tmp_path / "no-tools")})
    assert_one_line_error(proc, "p/top: g++ not found on PATH (C simulation needs a C++ compiler)")
    check_no_partial_files(tmp_path)
    assert json.loads((tmp_path / "build" / "p" / "csim" / "top.json").read_text())["pass"] is False


def test_the_catalogue_has_fifty_distinct_inputs() -> None:
    cases = len(SNIPPETS) + len(PROJECTS) + len(COMMANDS) + 11  # + the eleven tests and cases above
    assert cases >= 50
