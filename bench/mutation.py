"""Mutation testing with mutmut: does the suite fail when the code is changed a little?

    python bench/mutation.py                      # everything [tool.mutmut] names (hours)
    python bench/mutation.py --only 'hclbuild/project/golden.py' --tests tests/project/test_golden_bits.py

[tool.mutmut] in pyproject.toml mutates hclbuild/compiler/passes, runtime, project and tasks. The
run happens in a scratch copy of the repository (its git files), so mutmut's `mutants/` folder
and state never touch the work tree; `--only` narrows what is mutated (mutmut's only_mutate
globs) and `--tests` the tests it runs, for a bounded run. Prints mutmut's results: every
surviving mutant is a change no test noticed, to triage by hand (`mutmut show NAME` in the
scratch folder prints its diff). Not part of CI: one mutant costs a run of the tests covering it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def scratch_copy(target: Path) -> None:
    """The repository's tracked and new (not ignored) files, copied to target."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        source = REPO / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)


def narrow(pyproject: Path, only: list[str], tests: list[str]) -> None:
    """Rewrite [tool.mutmut]'s only_mutate / tests_dir in the scratch copy's pyproject.toml."""
    text = pyproject.read_text()
    if only:
        text = re.sub(r"(?m)^only_mutate = .*$", "only_mutate = " + _toml_list(only), text)
    if tests:
        text = re.sub(
            r"(?m)^pytest_add_cli_args_test_selection = .*$",
            "pytest_add_cli_args_test_selection = " + _toml_list(tests),
            text,
        )
    pyproject.write_text(text)


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in items) + "]"


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--only", action="append", default=[], help="a glob of files to mutate (repeatable)")
    args.add_argument(
        "--tests", action="append", default=[], help="a test file or folder to run (repeatable)"
    )
    args.add_argument("--max-children", type=int, default=2, help="mutants tested at once")
    args.add_argument("--keep", action="store_true", help="keep the scratch folder and print its path")
    options = args.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hclbuild-mutation-"))
    try:
        scratch_copy(scratch)
        narrow(scratch / "pyproject.toml", options.only, options.tests)
        mutmut = [sys.executable, "-m", "mutmut"]
        subprocess.run(
            [*mutmut, "run", "--max-children", str(options.max_children)], cwd=scratch, check=False
        )
        results = subprocess.run(
            [*mutmut, "results", "--all", "true"], cwd=scratch, capture_output=True, text=True, check=False
        )
        print(results.stdout, end="")
        counts: dict[str, int] = {}
        for line in results.stdout.splitlines():
            if ":" in line:
                status = line.rsplit(":", 1)[1].strip()
                counts[status] = counts.get(status, 0) + 1
        print("mutants by status:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none")
        if options.keep:
            print(f"scratch folder: {scratch}")
        return 0
    finally:
        if not options.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
