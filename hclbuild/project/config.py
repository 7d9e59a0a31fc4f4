"""What a project is: `projects/<name>/kernel.py` plus an optional `project.toml`, validated.

project.toml (every key optional; unknown sections or keys are errors, so a typo never silently
falls back to a default):

    [project]
    name = "gemm"                      # default: the folder name
    top = "top"                        # the design's top function (create_schedule name)

    [hls]
    part = "xcu250-figd2104-2L-e"      # default: Alveo U250, a common Vitis HLS target part
    clock_period_ns = 10.0             # default 10 ns (100 MHz), Vitis HLS's own default
    flow_target = "vivado"             # "vivado" (IP catalog) or "vitis" (kernel .xo)

    [csim]
    rtol = 1e-5                        # float outputs: |actual - expected| <= atol + rtol * |expected|
    atol = 1e-6                        # integer and fixed-point outputs are always compared bit-exactly

    [reference]
    seed = 0                           # seed of the random inputs of the LLVM reference run

    [sizes]                            # optional problem sizes that kernel.py may read
    N = 64
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ConfigError

PROJECT_FILE = "project.toml"
KERNEL_FILE = "kernel.py"

DEFAULT_PART = "xcu250-figd2104-2L-e"
DEFAULT_CLOCK_PERIOD_NS = 10.0
FLOW_TARGETS = ("vivado", "vitis")

_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# project names become folder names and doit task names (`csim:<project>/<func>`)
_PROJECT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
# a part is spliced into Tcl (`set_part {...}`) and the cfg file, so no spaces, braces or quotes
_PART_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class ProjectConfig:
    """The validated contents of one project.toml, with defaults filled in."""

    name: str
    top: str = "top"
    part: str = DEFAULT_PART
    clock_period_ns: float = DEFAULT_CLOCK_PERIOD_NS
    flow_target: str = "vivado"
    rtol: float = 1e-5
    atol: float = 1e-6
    seed: int = 0
    sizes: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-able dict of every setting (for doit's config_changed)."""
        return asdict(self)


@dataclass(frozen=True)
class Project:
    """A project folder: its name, folder, kernel.py and validated configuration."""

    name: str
    dir: Path
    kernel_path: Path
    config: ProjectConfig

    @property
    def toml_path(self) -> Path:
        """The project's project.toml (it may not exist: all settings have defaults)."""
        return self.dir / PROJECT_FILE


# ---- schema -----------------------------------------------------------------------------
# (section, key) -> (checker, default or None). Each checker returns the cleaned value or raises
# _Invalid with the reason, which _load_config turns into one line naming file, line and key.


class _Invalid(Exception):
    """A value failed its check; the message says why (without file or key)."""


def _toml_text(value: object) -> str:
    """A value as it is spelled in TOML, for messages: "text", true, 1.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _type_name(value: object) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(value), type(value).__name__)


def _string(pattern: re.Pattern[str], what: str):
    def check(value: object) -> str:
        if not isinstance(value, str):
            raise _Invalid(f"must be a string, got {_type_name(value)} {_toml_text(value)}")
        if not pattern.match(value):
            raise _Invalid(f"must be {what}, got {_toml_text(value)}")
        return value

    return check


def _number(*, positive: bool):
    def check(value: object) -> float:
        # TOML booleans are not numbers, even though Python's bool is an int
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _Invalid(f"must be a number, got {_type_name(value)} {_toml_text(value)}")
        number = float(value)
        if not math.isfinite(number):
            raise _Invalid(f"must be finite, got {_toml_text(value)}")
        if positive and number <= 0:
            raise _Invalid(f"must be > 0, got {_toml_text(value)}")
        if not positive and number < 0:
            raise _Invalid(f"must be >= 0, got {_toml_text(value)}")
        return number

    return check


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"must be an integer, got {_type_name(value)} {_toml_text(value)}")
    # numpy's default_rng rejects negative seeds
    if value < 0:
        raise _Invalid(f"must be >= 0, got {_toml_text(value)}")
    return value


def _flow_target(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"must be a string, got {_type_name(value)} {_toml_text(value)}")
    if value not in FLOW_TARGETS:
        raise _Invalid(f'must be "vivado" or "vitis", got {_toml_text(value)}')
    return value


def _size(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"must be an integer, got {_type_name(value)} {_toml_text(value)}")
    if value <= 0:
        raise _Invalid(f"must be > 0, got {_toml_text(value)}")
    return value


_SCHEMA: dict[str, dict[str, tuple[str, Any]]] = {
    # section -> key -> (field name in ProjectConfig, checker)
    "project": {
        "name": ("name", _string(_PROJECT_NAME, "a name of letters, digits, '_', '-' and '.'")),
        "top": ("top", _string(_C_IDENTIFIER, "a C identifier")),
    },
    "hls": {
        "part": ("part", _string(_PART_NAME, "a part name like 'xcu250-figd2104-2L-e'")),
        "clock_period_ns": ("clock_period_ns", _number(positive=True)),
        "flow_target": ("flow_target", _flow_target),
    },
    "csim": {
        "rtol": ("rtol", _number(positive=False)),
        "atol": ("atol", _number(positive=False)),
    },
    "reference": {
        "seed": ("seed", _seed),
    },
}
_FREE_SECTIONS = ("sizes",)


def _line_of(text: str, section: str, key: str | None) -> int | None:
    """1-based line of `key` inside `[section]` (or of the header when key is None), if found."""
    current = ""  # top-level keys come before any [section] header
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[\s*([A-Za-z0-9_.-]+)\s*\]", stripped)
        if header:
            current = header.group(1)
            if key is None and current == section:
                return number
            continue
        if key is not None and current == section and re.match(rf"^\"?{re.escape(key)}\"?\s*=", stripped):
            return number
    return None


def _where(path: Path, text: str, section: str, key: str | None) -> str:
    line = _line_of(text, section, key)
    return f"{path}:{line}" if line is not None else str(path)


def load_config(toml_path: str | Path, default_name: str | None = None) -> ProjectConfig:
    """Read and validate one project.toml; a missing file gives all defaults."""
    path = Path(toml_path)
    name = default_name if default_name is not None else path.parent.name
    if not path.exists():
        return ProjectConfig(name=_default_name(path, name))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = str(exc)
        position = re.search(r"\s*\(at line (\d+), column (\d+)\)$", reason)
        if position:
            reason = reason[: position.start()]
            raise ConfigError(f"{path}:{position.group(1)}:{position.group(2)}: invalid TOML: {reason}") from None
        raise ConfigError(f"{path}: invalid TOML: {reason}") from None

    values: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    for section, table in data.items():
        if section in _FREE_SECTIONS:
            if not isinstance(table, dict):
                raise ConfigError(f"{_where(path, text, '', section)}: {section} must be a table [{section}]")
            for key, value in table.items():
                if not _C_IDENTIFIER.match(key):
                    raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key}: "
                                      "size names must be C identifiers")
                try:
                    sizes[key] = _size(value)
                except _Invalid as exc:
                    raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key} {exc}") from None
            continue
        known = ", ".join(f"[{s}]" for s in (*_SCHEMA, *_FREE_SECTIONS))
        if not isinstance(table, dict):
            raise ConfigError(f"{_where(path, text, '', section)}: unknown top-level key {section} "
                              f"(settings belong in the sections {known})")
        if section not in _SCHEMA:
            raise ConfigError(f"{_where(path, text, section, None)}: unknown section [{section}] "
                              f"(expected {known})")
        schema = _SCHEMA[section]
        for key, value in table.items():
            if key not in schema:
                known = ", ".join(schema)
                raise ConfigError(f"{_where(path, text, section, key)}: unknown key {section}.{key} "
                                  f"(expected {known})")
            field_name, check = schema[key]
            try:
                values[field_name] = check(value)
            except _Invalid as exc:
                raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key} {exc}") from None
    if "name" not in values:
        values["name"] = _default_name(path, name)
    return ProjectConfig(**values, sizes=sizes)


def _default_name(path: Path, name: str) -> str:
    if not _PROJECT_NAME.match(name):
        raise ConfigError(f"{path}: project.name is not set and the folder name {name!r} is not a valid "
                          "project name (letters, digits, '_', '-', '.')")
    return name


def load_project(path: str | Path) -> Project:
    """Load `projects/<name>/` (or its project.toml): kernel.py must exist, project.toml is optional."""
    given = Path(path)
    project_dir = given.parent if given.name == PROJECT_FILE else given
    if not project_dir.is_dir():
        raise ConfigError(f"{project_dir}: project folder not found")
    kernel_path = project_dir / KERNEL_FILE
    if not kernel_path.is_file():
        raise ConfigError(f"{kernel_path}: file not found (every project needs a {KERNEL_FILE})")
    folder_name = project_dir.resolve().name
    config = load_config(project_dir / PROJECT_FILE, default_name=folder_name)
    return Project(name=config.name, dir=project_dir, kernel_path=kernel_path, config=config)
