"""What an exploration leaves in build/<p>/explore/ and what --apply does with it.

    points.json   every point it evaluated: knobs, status, estimated latency and resources
    pareto.json   how it searched, and the non-dominated points numbered 1.. (what --apply takes)
    pareto.md     the same front as a table (hclbuild.render.pareto)
    pareto.png    latency against each resource (matplotlib, where installed)

`apply_point` writes one front point's knobs into project.toml's [knobs], changing only the lines
of those knobs (or adding the table), so the diff is exactly the chosen values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_bytes_atomic, write_text_atomic
from hclbuild.errors import ConfigError, HCLError, HCLNotImplementedError
from hclbuild.project.config import Project, load_config
from hclbuild.project.explore_points import ESTIMATED, PointResult
from hclbuild.project.knobs import KnobValue, toml_value
from hclbuild.project.layout import BuildLayout
from hclbuild.render.pareto import pareto_markdown, pareto_png

KNOBS_TABLE = "knobs"
SYNTHESIZED = "synthesized"
CSYNTH_LABEL = "Vitis HLS csynth"  # what labels a csynth figure, in pareto.json and pareto.md


@dataclass(frozen=True)
class CsynthFigures:
    """What Vitis HLS csynth reported for a copy's top function (its report's top-level figures:
    worst-case latency, interval and resources with every instance below it), or why there are
    none (`status` then says so and `problem` gives the reason in one line)."""

    status: str  # SYNTHESIZED, "failed" or "not run"
    latency: int | None = None
    interval: int | None = None
    resources: dict[str, int] = field(default_factory=dict)
    version: str | None = None  # the Vitis release the report names
    report: str | None = None  # the report's path
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": CSYNTH_LABEL, "status": self.status}
        if self.status == SYNTHESIZED:
            data.update(
                latency=self.latency,
                interval=self.interval,
                resources=self.resources,
                vitis_version=self.version,
                report=self.report,
            )
        else:
            data["problem"] = self.problem
        return data


@dataclass(frozen=True)
class FrontChecks:
    """What the front points' own builds said (hclbuild.project.explore_front), by point key: the
    csim verdict with --csim, the csynth figures with --csynth."""

    csim: Mapping[str, str] | None = None
    csynth: Mapping[str, CsynthFigures] | None = None

    def passed(self) -> bool:
        """Every csim asked for passed and every csynth asked for wrote its report."""
        return all(verdict == "pass" for verdict in (self.csim or {}).values()) and all(
            figures.status == SYNTHESIZED for figures in (self.csynth or {}).values()
        )


@dataclass(frozen=True)
class Exploration:
    """One exploration's outcome: how it searched and the points it evaluated."""

    project: Project
    method: str  # "exhaustive" or "nsga2"
    seed: int
    space_size: int
    objectives: tuple[str, ...]
    results: tuple[PointResult, ...]
    front: tuple[PointResult, ...]

    def summary(self) -> dict[str, Any]:
        config = self.project.config
        return {
            "project": self.project.name,
            "method": self.method,
            "seed": self.seed,
            "space_size": self.space_size,
            "evaluated": len(self.results),
            "estimated": sum(r.status == ESTIMATED for r in self.results),
            "objectives": list(self.objectives),
            "part": config.part,
            "clock_ns": config.clock_period_ns,
            "label": "estimated",
        }


def _row(result: PointResult, number: int | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "key": result.key,
        "knobs": result.knobs,
        "status": result.status,
        "latency": result.latency,
        "interval": result.interval,
        "resources": result.resources,
    }
    if result.error is not None:
        row["error"] = result.error
    if number is not None:
        row = {"n": number, **row}
    return row


def front_rows(exploration: Exploration, checks: FrontChecks | None = None) -> list[dict[str, Any]]:
    """The front's rows, numbered from 1, with each point's csim verdict and csynth figures (under
    "csynth", labelled so, beside the estimate's) when they were asked for."""
    rows = [_row(result, number) for number, result in enumerate(exploration.front, start=1)]
    checks = checks or FrontChecks()
    for row in rows:
        if checks.csim is not None and row["key"] in checks.csim:
            row["csim"] = checks.csim[row["key"]]
        if checks.csynth is not None and row["key"] in checks.csynth:
            row["csynth"] = checks.csynth[row["key"]].to_json()
    return rows


def write_exploration(
    layout: BuildLayout, exploration: Exploration, checks: FrontChecks | None = None
) -> list[Path]:
    """points.json, pareto.json, pareto.md and (with matplotlib) pareto.png; returns what it wrote."""
    summary = exploration.summary()
    points = [_row(result) for result in exploration.results]
    front = front_rows(exploration, checks)
    numbered = {row["key"]: row["n"] for row in front}
    failed = [row for row in points if row["status"] != ESTIMATED]
    write_text_atomic(layout.explore_points, json.dumps({**summary, "points": points}, indent=1) + "\n")
    write_text_atomic(layout.pareto_json, json.dumps({**summary, "front": front}, indent=1) + "\n")
    write_text_atomic(
        layout.pareto_markdown, pareto_markdown(exploration.project.name, summary, front, failed)
    )
    written = [layout.explore_points, layout.pareto_json, layout.pareto_markdown]
    drawn = [{**row, "n": numbered.get(row["key"])} for row in points]
    resources = [name for name in exploration.objectives if name not in ("latency", "interval")]
    try:
        picture = pareto_png(exploration.project.name, drawn, front, resources)
    except HCLNotImplementedError:
        return written  # no matplotlib: the table says it all
    write_bytes_atomic(layout.pareto_png, picture)
    return [*written, layout.pareto_png]


def read_front(layout: BuildLayout) -> list[dict[str, Any]]:
    """The front rows of the last exploration's pareto.json; ConfigError when there is none."""
    try:
        data = json.loads(layout.pareto_json.read_text(encoding="utf-8"))
        return list(data["front"])
    except FileNotFoundError:
        raise ConfigError(
            f"{layout.pareto_json}: no exploration of {layout.project_name} yet (run hclbuild explore first)"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{layout.pareto_json}: cannot read it ({exc})") from None


def chosen_point(layout: BuildLayout, number: int) -> dict[str, KnobValue]:
    """The knobs of front point `number` (pareto.md's n); ConfigError naming the choices otherwise."""
    front = read_front(layout)
    for row in front:
        if row.get("n") == number:
            return dict(row["knobs"])
    raise ConfigError(
        f"{layout.pareto_markdown}: no point {number} on the Pareto front (points 1 to {len(front)})"
    )


def apply_point(project: Project, knobs: Mapping[str, KnobValue]) -> str:
    """Write `knobs` into project.toml's [knobs]; returns the new text. Only the lines of the knobs
    change (or a [knobs] table is added at the end); the result is checked as project.toml is."""
    path = project.toml_path
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    new_text = with_knobs(text, knobs)
    scratch = path.with_name(f".{path.name}.apply")
    try:
        write_text_atomic(scratch, new_text)
        load_config(scratch, default_name=project.config.name)
    except HCLError as exc:
        raise ConfigError(f"{path}: --apply would make it invalid: {exc}") from None
    finally:
        scratch.unlink(missing_ok=True)
    write_text_atomic(path, new_text)
    return new_text


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\"-]+)\s*\]\s*(#.*)?$")


def with_knobs(text: str, knobs: Mapping[str, KnobValue]) -> str:
    """project.toml's text with [knobs] holding `knobs` (with_table)."""
    return with_table(text, KNOBS_TABLE, knobs)


def with_table(text: str, table: str, values: Mapping[str, KnobValue]) -> str:
    """project.toml's text with [table] holding `values`: each key's line in the table rewritten in
    place (its comment kept), keys the table lacks added after its last line, no table: one added."""
    lines = text.splitlines(keepends=True)
    start = next(
        (i for i, line in enumerate(lines) if (m := _HEADER.match(line)) and m.group(1) == table), None
    )
    if start is None:
        body = "".join(f"{name} = {toml_value(value)}\n" for name, value in values.items())
        separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{separator}[{table}]\n{body}"
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    missing = dict(values)
    for index in range(start + 1, end):
        match = re.match(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)([^#\n]*?)(\s*#.*)?(\r?\n)?$", lines[index])
        if match and match.group(2) in missing:
            value = toml_value(missing.pop(match.group(2)))
            indent, name, equals, _, comment, newline = match.groups()
            lines[index] = f"{indent}{name}{equals}{value}{comment or ''}{newline or ''}"
    if missing:
        last = end
        while last > start + 1 and not lines[last - 1].strip():
            last -= 1  # after the table's last setting, before the blank lines that end it
        if last > 0 and not lines[last - 1].endswith("\n"):
            lines[last - 1] += "\n"
        lines[last:last] = [f"{name} = {toml_value(value)}\n" for name, value in missing.items()]
    return "".join(lines)


def front_table(rows: Sequence[Mapping[str, Any]], objectives: Sequence[str]) -> list[str]:
    """The terminal's summary of a front: one line a point, `n  knobs  objectives`."""
    lines = []
    for row in rows:
        figures = [
            f"{name} {row['latency'] if name == 'latency' else row['interval'] if name == 'interval' else row['resources'].get(name)}"
            for name in objectives
        ]
        csim = f"  csim {row['csim']}" if "csim" in row else ""
        lines.append(f"  {row['n']:>3}  {row['key']}  {', '.join(figures)}{csim}")
        if "csynth" in row:
            lines.append(f"       {csynth_line(row['csynth'], objectives)}")
    return lines


def csynth_line(csynth: Mapping[str, Any], objectives: Sequence[str]) -> str:
    """`csynth (Vitis HLS 2025.1): latency 1234, DSP 5, ...`, or `csynth failed: <reason>`: a
    point's csynth figures as the terminal shows them, under its estimated ones."""
    if csynth["status"] != SYNTHESIZED:
        return f"csynth {csynth['status']}: {csynth.get('problem')}"
    figures = [
        f"{name} {csynth['latency'] if name == 'latency' else csynth['interval'] if name == 'interval' else csynth['resources'].get(name)}"
        for name in objectives
    ]
    return f"csynth (Vitis HLS {csynth.get('vitis_version') or 'report'}): {', '.join(figures)}"
