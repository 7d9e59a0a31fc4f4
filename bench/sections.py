"""BENCHMARKS.md as `## ` sections: a partial rerun replaces its sections and keeps the others."""

from __future__ import annotations

import re


def sections_of(lines: list[str]) -> dict[str, list[str]]:
    """`## title` -> the section's lines (the heading included); the header before the first is left out."""
    found: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("## "):
            found[line] = []
        if found:
            found[next(reversed(found))].append(line)
    return found


def merge_sections(
    rerun: dict[str, list[str]], earlier_lines: list[str]
) -> tuple[dict[str, list[str]], list[str]]:
    """The sections of the new file and the titles kept from the earlier one.

    The earlier file's order stays and a rerun section replaces its old copy in place. A kept
    section gets one line naming the run that measured it, taken from the earlier file's
    "Written by" line, since its seconds are that day's VM speed; a section kept twice keeps its
    first such line."""
    written = next((line for line in earlier_lines if line.startswith("Written by ")), "")
    run = re.search(r" on (\S+ \S+ UTC), commit (\w+)", written)
    provenance = (
        f"_Kept from the run of {run[1]} at commit {run[2]}, not rerun since._"
        if run
        else "_Kept from an earlier run, not rerun since._"
    )
    merged: dict[str, list[str]] = {}
    kept: list[str] = []
    for title, lines in sections_of(earlier_lines).items():
        if title in rerun:
            merged[title] = rerun[title]
            continue
        kept.append(title[3:])
        # a section that names its own measurement (`_Measured by ...`) is dated already
        said = any(line.startswith(("_Kept from ", "_Measured by ")) for line in lines)
        merged[title] = lines if said else [title, "", provenance, *lines[1:]]
    merged.update((title, lines) for title, lines in rerun.items() if title not in merged)
    return merged, kept
