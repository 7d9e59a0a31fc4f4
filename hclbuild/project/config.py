"""What a project is: `projects/<name>/kernel.py` plus an optional `project.toml`, validated.

project.toml (every key optional; unknown sections or keys are errors, so a typo never silently
falls back to a default):

    [project]
    name = "gemm"                      # default: the folder name
    top = "top"                        # the design's top function (create_schedule name)

    [hls]
    part = "xcu250-figd2104-2L-e"      # default: Alveo U250, a common Vitis HLS target part
    clock_period_ns = 10.0             # default 10 ns (100 MHz), Vitis HLS's own default; 0.5 to 1000
    clock_uncertainty_ns = 1.25        # the margin HLS schedules to (default: Vitis's, 27 % of the
                                       # period); 0 up to the period
    flow_target = "vivado"             # "vivado" (IP catalog) or "vitis" (kernel .xo)
    tool = "auto"                      # "vitis_hls", "vitis-run" or "v++"; auto: the first found
    vitis_version = "2025.1"           # spells hls_config.cfg's keys for that release (default:
                                       # the 2025.1+ spelling)
    top_assembly = "monolithic"        # or "blackbox": csynth of the top takes each outlined
                                       # function's RTL as a blackbox instead of its C

    [interface.A]                      # argument A of the design's top (default per flow_target:
    protocol = "m_axi"                 # vitis m_axi + s_axilite, vivado ap_memory + ap_none)
    bundle = "gmem0"                   # also depth, latency, max_widen_bitwidth, offset
    [interface.Stage_C.A]              # argument A of the outlined function Stage_C's own project
    latency = 2

    [csim]
    rtol = 1e-5                        # float outputs: |actual - expected| <= atol + rtol * |expected|
    atol = 1e-6                        # integer and fixed-point outputs are always compared bit-exactly

    [reference]
    seed = 0                           # seed of the random inputs of the LLVM reference run
    timeout = 600                      # seconds it (or tracing kernel.py) may run before it is stopped
                                       # (a loop that never ends); 1 to 604800 (a week)
    memory_gb = 16                     # the most its tensors may take (default: the memory available)

    [ci]
    fail_on = "latency>+5%,DSP>+10%,csim"   # `hclbuild report --compare BASE` fails (exit 1) when a
                                       # function crosses one (see hclbuild.render.thresholds)

    [sizes]                            # optional problem sizes, passed to kernel.py (see Sizes), each
                                       # 1 to 2**31 - 1
    dataset = "SMALL"                  # which [sizes.<NAME>] table to use (default: the first one)
    TSTEPS = 20                        # a size set here is the same in every dataset
    [sizes.SMALL]                      # named datasets (PolyBench's SMALL, MEDIUM, ...): each
    N = 120                            # defines the same names
    [sizes.MEDIUM]
    N = 400

    [explore]                          # schedule knobs and the values `hclbuild explore` tries
    unroll_k = [1, 2, 4, 8]            # (see hclbuild.project.knobs; or kernel.py's space(sizes))
    [knobs]                            # the values a normal build passes to schedule(knobs=...)
    unroll_k = 4                       # (default: each [explore] list's first value)
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hclbuild.c_names import is_c_identifier
from hclbuild.errors import ConfigError
from hclbuild.hls_interface import (
    OVERRIDE_KEYS,
)
from hclbuild.project.config_schema import (
    FREE_SECTIONS,
    INTERFACE_CHECKS,
    SCHEMA,
    InvalidValue,
    check_size,
    toml_text,
    type_name,
)
from hclbuild.project.knobs import KnobError, check_chosen, check_space
from hclbuild.project.layout import KERNEL_FILE, PROJECT_FILE, is_project_name
from hclbuild.project.named_values import NamedValues
from hclbuild.project.plans import ProjectPlan

DEFAULT_PART = "xcu250-figd2104-2L-e"
DEFAULT_CLOCK_PERIOD_NS = 10.0
TOP_INTERFACE = ""  # the key of [interface.<arg>] settings in ProjectConfig.interfaces: the design's top


@dataclass(frozen=True)
class ProjectConfig:
    """The validated contents of one project.toml, with defaults filled in."""

    name: str
    top: str = "top"
    part: str = DEFAULT_PART
    clock_period_ns: float = DEFAULT_CLOCK_PERIOD_NS
    clock_uncertainty_ns: float | None = None  # None: Vitis's default margin
    flow_target: str = "vivado"
    hls_tool: str = "auto"
    vitis_version: str | None = None
    top_assembly: str = "monolithic"
    # [interface]: function name (TOP_INTERFACE for the design's top) -> argument -> settings
    interfaces: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-6
    seed: int = 0
    reference_timeout: float = 600.0  # seconds
    reference_memory_gb: float | None = None  # None: what the machine has available when it runs
    sizes: dict[str, int] = field(default_factory=dict)  # the chosen dataset's sizes plus the common ones
    dataset: str = ""  # the chosen [sizes.<NAME>] table, "" when the project defines none
    ci_fail_on: str = ""  # [ci] fail_on: the thresholds of `report --compare`, "" for none
    # [explore]: knob -> the values an exploration tries (a list, so the config stays plain JSON)
    explore: dict[str, list[Any]] = field(default_factory=dict)
    knobs: dict[str, Any] = field(default_factory=dict)  # [knobs]: the values a build uses

    __hash__ = None  # type: ignore[assignment]  # dicts inside

    def to_json(self) -> dict[str, Any]:
        """Every setting as plain JSON data (a stored plan's "config"), nested dicts copied."""
        return {item.name: copy.deepcopy(getattr(self, item.name)) for item in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProjectConfig:
        """The configuration to_json wrote (validated when it was loaded from project.toml)."""
        return cls(**data)


class Sizes(NamedValues[int]):
    """A project's problem sizes, as kernel.py receives them: `sizes["N"]` or `sizes.N`.

    kernel.py's schedule(), inputs(rng) and model(*inputs) get them as the keyword argument
    `sizes` when they declare a parameter of that name. A name the project.toml does not set is a
    ConfigError naming it, not a silent default.
    """

    def __init__(self, values: Mapping[str, int], dataset: str = ""):
        super().__init__(values)
        self.dataset = dataset

    def _missing(self, key: str, known: str) -> ConfigError:
        table = f"[sizes.{self.dataset}] or [sizes]" if self.dataset else "[sizes]"
        return ConfigError(f"project.toml {table} sets no size {key!r} (sizes: {known})")

    def __repr__(self) -> str:
        dataset = f", dataset={self.dataset!r}" if self.dataset else ""
        return f"Sizes({self._values!r}{dataset})"


@dataclass(frozen=True)
class Project:
    """A project folder: its name, folder, kernel.py and validated configuration."""

    name: str
    dir: Path
    kernel_path: Path
    config: ProjectConfig

    @classmethod
    def from_plan(cls, plan: ProjectPlan) -> Project:
        """The project a plan describes, with the configuration as it was validated when planned."""
        config = ProjectConfig.from_json(plan.config)
        folder = Path(plan.folder)
        return cls(config.name, folder, folder / KERNEL_FILE, config)

    @property
    def toml_path(self) -> Path:
        """The project's project.toml (it may not exist: all settings have defaults)."""
        return self.dir / PROJECT_FILE

    @property
    def sizes(self) -> Sizes:
        """The problem sizes kernel.py receives (the chosen dataset plus the common sizes)."""
        return Sizes(self.config.sizes, self.config.dataset)


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


def load_config(
    toml_path: str | Path, default_name: str | None = None, dataset: str | None = None
) -> ProjectConfig:
    """Read and validate one project.toml; a missing file gives all defaults.

    dataset picks a [sizes.<dataset>] table instead of the file's own choice (benchmarks use it).
    """
    path = Path(toml_path)
    name = default_name if default_name is not None else path.parent.name
    if not path.exists():
        if dataset is not None:
            raise ConfigError(
                f"{path}: dataset {dataset!r} was asked for, but the project has no project.toml"
            )
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
            raise ConfigError(
                f"{path}:{position.group(1)}: invalid TOML: {reason} (column {position.group(2)})"
            ) from None
        raise ConfigError(f"{path}: invalid TOML: {reason}") from None

    values: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    chosen = ""
    for section, table in data.items():
        if section in FREE_SECTIONS:
            if not isinstance(table, dict):
                raise ConfigError(f"{_where(path, text, '', section)}: {section} must be a table [{section}]")
            if section == "sizes":
                sizes, chosen = _sizes(path, text, table, dataset)
            elif section == "interface":
                values["interfaces"] = _interfaces(path, text, table)
            continue
        known = ", ".join(f"[{s}]" for s in (*SCHEMA, *FREE_SECTIONS))
        if not isinstance(table, dict):
            raise ConfigError(
                f"{_where(path, text, '', section)}: unknown top-level key {section} "
                f"(settings belong in the sections {known})"
            )
        if section not in SCHEMA:
            raise ConfigError(
                f"{_where(path, text, section, None)}: unknown section [{section}] (expected {known})"
            )
        schema = SCHEMA[section]
        for key, value in table.items():
            if key not in schema:
                known = ", ".join(schema)
                raise ConfigError(
                    f"{_where(path, text, section, key)}: unknown key {section}.{key} (expected {known})"
                )
            field_name, check = schema[key]
            try:
                values[field_name] = check(value)
            except InvalidValue as exc:
                raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key} {exc}") from None
    if dataset is not None and "sizes" not in data:
        raise ConfigError(
            f"{path}: dataset {dataset!r} was asked for, but the project has no [sizes.{dataset}]"
        )
    uncertainty = values.get("clock_uncertainty_ns")
    period = values.get("clock_period_ns", DEFAULT_CLOCK_PERIOD_NS)
    if uncertainty is not None and uncertainty >= period:
        raise ConfigError(
            f"{_where(path, text, 'hls', 'clock_uncertainty_ns')}: hls.clock_uncertainty_ns must be less "
            f"than the clock period ({period:g} ns), got {uncertainty:g}"
        )
    if "name" not in values:
        values["name"] = _default_name(path, name)
    values.update(_knob_tables(path, text, data))
    return ProjectConfig(**values, sizes=sizes, dataset=chosen)


def _knob_tables(path: Path, text: str, data: dict[str, Any]) -> dict[str, Any]:
    """[explore] and [knobs] (hclbuild.project.knobs): a [knobs] value must be one of its [explore]
    list's; without [explore] here, kernel.py's space() is checked against [knobs] when it loads."""
    section = "explore"
    try:
        space = check_space(data.get("explore", {})) if "explore" in data else None
        section = "knobs"
        chosen = check_chosen(data.get("knobs", {}), space)
    except KnobError as exc:
        raise ConfigError(f"{_where(path, text, section, exc.key)}: {section}.{exc.key} {exc}") from None
    return {"explore": {k: list(v) for k, v in (space or {}).items()}, "knobs": chosen}


def _size_values(path: Path, text: str, section: str, table: dict[str, Any]) -> dict[str, int]:
    sizes = {}
    for key, value in table.items():
        if not is_c_identifier(key):
            raise ConfigError(
                f"{_where(path, text, section, key)}: {section}.{key}: size names must be C identifiers"
            )
        try:
            sizes[key] = check_size(value)
        except InvalidValue as exc:
            raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key} {exc}") from None
    return sizes


def _sizes(path: Path, text: str, table: dict[str, Any], dataset: str | None) -> tuple[dict[str, int], str]:
    """[sizes]: common sizes, `dataset = "NAME"` and [sizes.NAME] tables -> (the chosen sizes, NAME)."""
    common = {k: v for k, v in table.items() if not isinstance(v, dict) and k != "dataset"}
    sizes = _size_values(path, text, "sizes", common)
    tables = {k: v for k, v in table.items() if isinstance(v, dict)}
    named = {}
    for name, values in tables.items():
        section = f"sizes.{name}"
        if not is_c_identifier(name):
            raise ConfigError(
                f"{_where(path, text, section, None)}: [{section}]: dataset names must be C identifiers"
            )
        named[name] = _size_values(path, text, section, values)
        for key in named[name]:
            if key in sizes:
                raise ConfigError(
                    f"{_where(path, text, section, key)}: {section}.{key} is also set in [sizes]; "
                    "set it in one place"
                )
    first = next(iter(named), None)
    for name, values in named.items():
        if first is not None and set(values) != set(named[first]):
            differ = sorted(set(values) ^ set(named[first]))[0]
            raise ConfigError(
                f"{_where(path, text, f'sizes.{name}', None)}: [sizes.{name}] and [sizes.{first}] "
                f"must set the same sizes (only one of them sets {differ})"
            )
    chosen = table.get("dataset", first)
    if "dataset" in table and not isinstance(chosen, str):
        raise ConfigError(
            f"{_where(path, text, 'sizes', 'dataset')}: sizes.dataset must be a string, got "
            f"{type_name(chosen)} {toml_text(chosen)}"
        )
    if dataset is not None:
        chosen = dataset
    if chosen is None:
        return sizes, ""
    if chosen not in named:
        known = ", ".join(named) or "none"
        line = _where(path, text, "sizes", "dataset" if dataset is None else None)
        raise ConfigError(f"{line}: there is no dataset [sizes.{chosen}] (datasets: {known})")
    return {**sizes, **named[chosen]}, chosen


def _interfaces(path: Path, text: str, table: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """[interface.<arg>] (the design's top) and [interface.<function>.<arg>] tables, each value
    checked; whether the argument exists and its protocol fits it is checked when it is emitted."""
    result: dict[str, dict[str, dict[str, Any]]] = {}
    for name, value in table.items():
        section = f"interface.{name}"
        if not isinstance(value, dict) or not value:
            raise ConfigError(
                f"{_where(path, text, 'interface', name)}: [{section}] must be a table of settings "
                f"({', '.join(OVERRIDE_KEYS)}) or of argument tables"
            )
        if all(isinstance(v, dict) for v in value.values()):
            # [interface.<function>.<arg>]: a function is a C identifier, an argument is named as
            # kernel.py named it (any printable string: [interface.f."A A"])
            if not is_c_identifier(name):
                raise ConfigError(
                    f"{_where(path, text, section, None)}: [{section}]: {name!r} is not a C identifier"
                )
            for arg, settings in value.items():
                if not arg.isprintable():
                    raise ConfigError(
                        f"{_where(path, text, f'{section}.{arg}', None)}: [{section}.{arg}]: "
                        f"{arg!r} is not a printable name"
                    )
                result.setdefault(name, {})[arg] = _interface_settings(
                    path, text, f"{section}.{arg}", settings
                )
        else:
            if not name.isprintable():
                raise ConfigError(
                    f"{_where(path, text, section, None)}: [{section}]: {name!r} is not a printable name"
                )
            result.setdefault(TOP_INTERFACE, {})[name] = _interface_settings(path, text, section, value)
    return result


def _interface_settings(path: Path, text: str, section: str, settings: dict[str, Any]) -> dict[str, Any]:
    checked = {}
    for key, value in settings.items():
        if key not in INTERFACE_CHECKS:
            raise ConfigError(
                f"{_where(path, text, section, key)}: unknown key {section}.{key} "
                f"(expected {', '.join(OVERRIDE_KEYS)})"
            )
        try:
            checked[key] = INTERFACE_CHECKS[key](value)
        except InvalidValue as exc:
            raise ConfigError(f"{_where(path, text, section, key)}: {section}.{key} {exc}") from None
    if not checked:
        raise ConfigError(f"{_where(path, text, section, None)}: [{section}] sets nothing")
    return checked


def _default_name(path: Path, name: str) -> str:
    if not is_project_name(name):
        raise ConfigError(
            f"{path}: project.name is not set and the folder name {name!r} is not a valid "
            "project name (letters, digits, '_', '-', '.')"
        )
    return name


def load_project(path: str | Path, dataset: str | None = None) -> Project:
    """Load `projects/<name>/` (or its project.toml): kernel.py must exist, project.toml is optional.

    dataset selects the [sizes.<dataset>] table (default: the one project.toml chooses).
    """
    given = Path(path)
    project_dir = given.parent if given.name == PROJECT_FILE else given
    if not project_dir.is_dir():
        raise ConfigError(f"{project_dir}: project folder not found")
    kernel_path = project_dir / KERNEL_FILE
    if not kernel_path.is_file():
        raise ConfigError(f"{kernel_path}: file not found (every project needs a {KERNEL_FILE})")
    folder_name = project_dir.resolve().name
    config = load_config(project_dir / PROJECT_FILE, default_name=folder_name, dataset=dataset)
    return Project(name=config.name, dir=project_dir, kernel_path=kernel_path, config=config)
