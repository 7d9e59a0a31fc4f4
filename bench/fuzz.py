"""Differential fuzzing at volume: `python bench/fuzz.py --count N` generates N random programs
(tests/fuzz/stages.py), runs each through the numpy model, hcl.build and csim of every function,
and prints how many ran and how many disagreed, by kind. Programs that did not agree are saved
(their repr, evaluable with tests.fuzz.program's names) for shrinking into regression tests.

Run it at low priority on a shared machine: `nice -n 19 python bench/fuzz.py --count 2000`.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.fuzz.differential import run_program
from tests.fuzz.stages import programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="programs to run (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed (default 0)")
    parser.add_argument("--max-stages", type=int, default=4)
    parser.add_argument("--no-csim", action="store_true", help="numpy vs hcl.build only (fast)")
    parser.add_argument(
        "--save",
        type=Path,
        default=Path("/tmp/hclbuild-fuzz"),
        help="folder for the programs that did not agree",
    )
    args = parser.parse_args(argv)
    args.save.mkdir(parents=True, exist_ok=True)
    counts: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    functions = 0
    started = time.monotonic()

    @seed(args.seed)
    @settings(
        max_examples=args.count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(programs(max_stages=args.max_stages))
    def one(program) -> None:
        nonlocal functions
        with tempfile.TemporaryDirectory(prefix="hclbuild-fuzz-") as folder:
            outcome = run_program(program, Path(folder), csim=not args.no_csim)
        counts[outcome.kind] += 1
        functions += outcome.functions
        if not outcome.ok:
            path = args.save / f"{outcome.kind.replace('!=', '-vs-')}_{counts[outcome.kind]}.txt"
            path.write_text(f"# {outcome}\n{program!r}\n", encoding="utf-8")
            examples[outcome.kind].append(f"{outcome} ({path})")
        done = sum(counts.values())
        if done % 50 == 0:
            print(f"  {done} programs, {time.monotonic() - started:.0f} s: {dict(counts)}", flush=True)

    one()
    total = sum(counts.values())
    bad = total - counts["agree"]
    print(
        f"programs run: {total}; functions simulated: {functions}; disagreements: {bad}; "
        f"{time.monotonic() - started:.0f} s"
    )
    for kind, number in counts.most_common():
        print(f"  {kind}: {number}")
        for line in examples.get(kind, [])[:5]:
            print(f"      {line[:300]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
