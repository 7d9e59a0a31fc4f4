"""Readers of the values in HLS reports, shared by every parser of this package.

A value the tool reports as `undef` (data-dependent latency, unknown trip count) is None.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError

Number = int | float

_TIME_UNITS_NS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_UNDEF_WORDS = {"", "undef", "-", "na", "n/a"}


@dataclass(frozen=True)
class Span:
    """A value reported as one number or as a min..max range; an end that is undef is None."""

    min: Number | None
    max: Number | None

    def __str__(self) -> str:
        if self.min == self.max:
            return _format_number(self.min, "undef")
        return f"{_format_number(self.min, 'undef')} ~ {_format_number(self.max, 'undef')}"


def _format_number(value: Any, none: str = "-") -> str:
    # Latency cells pass none="undef": with a csynth report present, a missing latency is data-dependent.
    if value is None:
        return none
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e15 else str(value)
    return str(value)


def _load_xml(path: Path) -> ET.Element:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ToolError(f"{path}: cannot read HLS report ({err.strerror or err})") from None
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise ToolError(f"{path}: not an HLS csynth report (XML parse error: {err})") from None
    # Reports carry no namespaces today; stripping any keeps the plain paths below valid if one appears.
    for elem in root.iter():
        if isinstance(elem.tag, str) and "}" in elem.tag:
            elem.tag = elem.tag.split("}", 1)[1]
    return root


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise ToolError(f"{path}: cannot read {what} ({err.strerror or err})") from None


def _text(elem: ET.Element, path: str) -> str | None:
    found = elem.find(path)
    if found is None or found.text is None:
        return None
    text = found.text.strip()
    return text or None


def _number(text: str | None) -> Number | None:
    if text is None or text.strip().lower() in _UNDEF_WORDS:
        return None
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _int(text: str | None) -> int | None:
    value = _number(text)
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value


def _float(text: str | None) -> float | None:
    value = _number(text)
    return None if value is None else float(value)


def _range_ends(elem: ET.Element) -> tuple[ET.Element | None, ET.Element | None] | None:
    """The <min>/<max> children of a value written as <range><min/><max/></range> or bare min/max."""
    holder = elem.find("range")
    if holder is None:
        holder = elem
    low, high = holder.find("min"), holder.find("max")
    if low is None and high is None:
        return None
    return low, high


def _span(elem: ET.Element | None) -> Span | None:
    """A count written as "7", "1 ~ 99", <range><min/><max/></range> or undef."""
    if elem is None:
        return None
    ends = _range_ends(elem)
    if ends is not None:
        low, high = (_number(end.text) if end is not None else None for end in ends)
    else:
        text = (elem.text or "").strip()
        parts = text.split("~")
        if len(parts) > 2:
            return None
        low, high = _number(parts[0]), _number(parts[-1])
    if low is None and high is None:
        return None
    return Span(low, high)


def _time_ns(text: str | None, default_unit: str) -> float | None:
    """A duration such as "2.627 ms", "0.150 us" or a bare number in the report's unit, in ns."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*([-+0-9.eE]+)\s*([a-zA-Z]*)\s*", text)
    if match is None:
        return None
    factor = _TIME_UNITS_NS.get((match.group(2) or default_unit).lower())
    value = _number(match.group(1))
    if factor is None or value is None:
        return None
    # Rounding keeps "2.627 ms" as 2627000.0 instead of a binary-fraction neighbour.
    return round(float(value) * factor, 6)


def _time_span(elem: ET.Element | None, default_unit: str) -> Span | None:
    if elem is None:
        return None
    ends = _range_ends(elem)
    if ends is not None:
        low, high = (_time_ns(end.text, default_unit) if end is not None else None for end in ends)
    else:
        parts = (elem.text or "").split("~")
        if len(parts) > 2:
            return None
        low, high = _time_ns(parts[0], default_unit), _time_ns(parts[-1], default_unit)
    if low is None and high is None:
        return None
    return Span(low, high)
