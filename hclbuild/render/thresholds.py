"""The QoR thresholds of `hclbuild report --fail-on` and project.toml's `[ci] fail_on`.

    latency>+5%,DSP>+10%,csim

Each item is a metric that may not grow by more than the percent given (latency: the worst case
in cycles; interval: the initiation interval; DSP, BRAM, FF, LUT: resources), or `csim`: every
function must pass C simulation. A function whose csim failed fails the check whether or not
`csim` is listed. Standard library only: project.config reads it on every doit run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hclbuild.errors import ConfigError

# the names an item may use -> the metric of render.summary.Figures
METRIC_NAMES = {
    "latency": "latency",
    "interval": "interval",
    "ii": "interval",
    "dsp": "DSP",
    "bram": "BRAM_18K",
    "bram_18k": "BRAM_18K",
    "ff": "FF",
    "lut": "LUT",
}
CSIM = "csim"
_ITEM = re.compile(r"^([A-Za-z_0-9]+)\s*>\s*\+?\s*([0-9]+(?:\.[0-9]*)?)\s*%$")


@dataclass(frozen=True)
class Threshold:
    """`metric` may grow by at most `percent` percent (metric CSIM: every csim must pass)."""

    metric: str
    percent: float = 0.0
    text: str = ""


def parse_thresholds(text: str) -> tuple[Threshold, ...]:
    """The thresholds of a --fail-on string; ConfigError naming the item that is not one."""
    found = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if item.lower() == CSIM:
            found.append(Threshold(CSIM, 0.0, CSIM))
            continue
        match = _ITEM.match(item)
        if match is None or match.group(1).lower() not in METRIC_NAMES:
            names = ", ".join(sorted({"latency", "interval", "DSP", "BRAM", "FF", "LUT"}))
            raise ConfigError(
                f"fail-on item {item!r}: expected METRIC>+N% (METRIC one of {names}) or csim, "
                'as in "latency>+5%,DSP>+10%,csim"'
            )
        found.append(Threshold(METRIC_NAMES[match.group(1).lower()], float(match.group(2)), item))
    if not found:
        raise ConfigError('fail-on is empty: give items such as "latency>+5%,DSP>+10%,csim"')
    return tuple(found)
