"""project.toml's schema: which keys each section takes, and the check that cleans each value.

A check returns the cleaned value or raises InvalidValue with the reason (without file or key);
hclbuild.project.config turns it into one line naming the file, the line and the key.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from hclbuild.c_names import C_IDENTIFIER
from hclbuild.errors import ConfigError
from hclbuild.hls_interface import (
    ARRAY_MODES,
    FLOW_TARGETS,
    M_AXI_OFFSETS,
    MAX_AXI_BURST,
    SCALAR_MODES,
    STORAGE_TYPES,
    STREAM_MODES,
)
from hclbuild.project.layout import is_project_name
from hclbuild.render.thresholds import parse_thresholds
from hclbuild.runtime.vitis import NAMES as FRONT_END_NAMES

HLS_TOOLS = ("auto", *FRONT_END_NAMES)  # [hls] tool
TOP_ASSEMBLIES = ("monolithic", "blackbox")

# sane ranges: 2 GHz to 1 MHz; a second to a week (select() overflowed on 1e300 s); a size bounds
# loops whose counters the emitted C++ declares as int
CLOCK_PERIOD_RANGE_NS = (0.5, 1000.0, "ns")
TIMEOUT_RANGE_S = (1.0, 604800.0, "s")
MAX_SIZE = 2**31 - 1

# a part is spliced into Tcl (`set_part {...}`) and the cfg file, so no spaces, braces or quotes
PART_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
VITIS_VERSION = re.compile(r"^20[0-9][0-9]\.[0-9]$")


# (section, key) -> (checker, default or None). Each checker returns the cleaned value or raises
# InvalidValue with the reason, which _load_config turns into one line naming file, line and key.


class InvalidValue(Exception):
    """A value failed its check; the message says why (without file or key)."""


def toml_text(value: object) -> str:
    """A value as it is spelled in TOML, for messages: "text", true, 1.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def type_name(value: object) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "table"}.get(
        type(value), type(value).__name__
    )


def _string(pattern: re.Pattern[str], what: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str):
            raise InvalidValue(f"must be a string, got {type_name(value)} {toml_text(value)}")
        if not pattern.fullmatch(value):
            raise InvalidValue(f"must be {what}, got {toml_text(value)}")
        return value

    return check


def _project_name(value: object) -> str:
    # project names become folder names and doit task names (`csim:<project>/<func>`)
    if not isinstance(value, str):
        raise InvalidValue(f"must be a string, got {type_name(value)} {toml_text(value)}")
    if not is_project_name(value):
        raise InvalidValue(f"must be a name of letters, digits, '_', '-' and '.', got {toml_text(value)}")
    return value


def _number(*, positive: bool, within: tuple[float, float, str] | None = None) -> Callable[[object], float]:
    """A TOML number (int or float) as a float; `within` = (lowest, highest, unit) bounds it."""

    def check(value: object) -> float:
        # TOML booleans are not numbers, even though Python's bool is an int
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidValue(f"must be a number, got {type_name(value)} {toml_text(value)}")
        number = float(value)
        if not math.isfinite(number):
            raise InvalidValue(f"must be finite, got {toml_text(value)}")
        if positive and number <= 0:
            raise InvalidValue(f"must be > 0, got {toml_text(value)}")
        if not positive and number < 0:
            raise InvalidValue(f"must be >= 0, got {toml_text(value)}")
        if within is not None and not within[0] <= number <= within[1]:
            low, high, unit = within
            raise InvalidValue(f"must be from {low:g} to {high:g} ({unit}), got {toml_text(value)}")
        return number

    return check


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue(f"must be an integer, got {type_name(value)} {toml_text(value)}")
    # numpy's default_rng rejects negative seeds
    if value < 0:
        raise InvalidValue(f"must be >= 0, got {toml_text(value)}")
    return value


def _flow_target(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidValue(f"must be a string, got {type_name(value)} {toml_text(value)}")
    if value not in FLOW_TARGETS:
        raise InvalidValue(f'must be "vivado" or "vitis", got {toml_text(value)}')
    return value


def _choice(*allowed: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str):
            raise InvalidValue(f"must be a string, got {type_name(value)} {toml_text(value)}")
        if value not in allowed:
            raise InvalidValue(
                f"must be one of {', '.join(json.dumps(a) for a in allowed)}, got {toml_text(value)}"
            )
        return value

    return check


def check_size(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue(f"must be an integer, got {type_name(value)} {toml_text(value)}")
    if value <= 0:
        raise InvalidValue(f"must be > 0, got {toml_text(value)}")
    if value > MAX_SIZE:
        raise InvalidValue(f"must be at most {MAX_SIZE} (loops count in C int), got {toml_text(value)}")
    return value


def _fail_on(value: object) -> str:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        value = ",".join(value)
    if not isinstance(value, str):
        raise InvalidValue(
            f"must be a string or a list of strings, got {type_name(value)} {toml_text(value)}"
        )
    try:
        parse_thresholds(value)
    except ConfigError as exc:
        raise InvalidValue(f"is not valid: {exc}") from None
    return value


SCHEMA: dict[str, dict[str, tuple[str, Any]]] = {
    # section -> key -> (field name in ProjectConfig, checker)
    "project": {
        "name": ("name", _project_name),
        "top": ("top", _string(C_IDENTIFIER, "a C identifier")),
    },
    "hls": {
        "part": ("part", _string(PART_NAME, "a part name like 'xcu250-figd2104-2L-e'")),
        "clock_period_ns": ("clock_period_ns", _number(positive=True, within=CLOCK_PERIOD_RANGE_NS)),
        "clock_uncertainty_ns": ("clock_uncertainty_ns", _number(positive=False)),
        "flow_target": ("flow_target", _flow_target),
        "tool": ("hls_tool", _choice(*HLS_TOOLS)),
        "vitis_version": ("vitis_version", _string(VITIS_VERSION, 'a Vitis release like "2024.2"')),
        "top_assembly": ("top_assembly", _choice(*TOP_ASSEMBLIES)),
    },
    "csim": {
        "rtol": ("rtol", _number(positive=False)),
        "atol": ("atol", _number(positive=False)),
    },
    "ci": {"fail_on": ("ci_fail_on", _fail_on)},
    "reference": {
        "seed": ("seed", _seed),
        "timeout": ("reference_timeout", _number(positive=True, within=TIMEOUT_RANGE_S)),
        "memory_gb": ("reference_memory_gb", _number(positive=True)),
    },
}
FREE_SECTIONS = ("sizes", "interface", "explore", "knobs")


def _integer(minimum: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidValue(f"must be an integer, got {type_name(value)} {toml_text(value)}")
        if value < minimum:
            raise InvalidValue(f"must be >= {minimum}, got {toml_text(value)}")
        return value

    return check


def _burst_length(value: object) -> int:
    beats = _integer(1)(value)
    if beats > MAX_AXI_BURST:
        raise InvalidValue(f"must be at most {MAX_AXI_BURST} (one AXI4 burst), got {toml_text(value)}")
    return beats


def _storage_type(value: object) -> str:
    # Vitis spells the types in either case (RAM_2P, ram_2p); the pragma is written in lower case
    if not isinstance(value, str) or value.lower() not in STORAGE_TYPES:
        options = ", ".join(f'"{name.upper()}"' for name in STORAGE_TYPES)
        raise InvalidValue(f"must be one of {options}, got {toml_text(value)}")
    return value.lower()


def _widen_bits(value: object) -> int:
    bits = _integer(8)(value)
    if bits > 1024 or bits & (bits - 1):
        # an m_axi port widens to a power of two from a byte to 1024 bits
        raise InvalidValue(f"must be a power of two from 8 to 1024, got {toml_text(value)}")
    return bits


INTERFACE_CHECKS = {
    "protocol": _choice(*dict.fromkeys((*ARRAY_MODES, *SCALAR_MODES, *STREAM_MODES))),
    "bundle": _string(C_IDENTIFIER, "a C identifier"),
    "depth": _integer(1),
    "offset": _choice(*M_AXI_OFFSETS),
    "latency": _integer(0),
    "max_widen_bitwidth": _widen_bits,
    "max_read_burst_length": _burst_length,
    "max_write_burst_length": _burst_length,
    "storage_type": _storage_type,
}
