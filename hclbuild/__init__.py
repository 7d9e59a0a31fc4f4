"""hclbuild: a HeteroCL-compatible DSL compiled through MLIR into per-function Vitis HLS projects.

`import hclbuild as hcl` gives HeteroCL's public surface. The names are imported on first use
(PEP 562): `import hclbuild.tasks`, which doit does on every run, must not pay for the DSL and
numpy; nothing imports MLIR until a schedule is lowered or built.
"""

from __future__ import annotations

import importlib
from typing import Any

from hclbuild.errors import (
    APIError,
    BoundsError,
    CompileError,
    ConfigError,
    DTypeError,
    HCLError,
    HCLNotImplementedError,
    MLIRLimitationError,
    ToolError,
)

# public name -> the module defining it
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("Schedule", "build", "create_schedule", "create_schedule_from_scheme", "estimate", "lower"),
        "hclbuild.api",
    ),
    **dict.fromkeys(("Array", "asarray"), "hclbuild.dsl.array"),
    "init": "hclbuild.dsl.context",
    **dict.fromkeys(("bitcast", "cast_np", "const_tensor", "copy", "pack", "unpack"), "hclbuild.dsl.dataops"),
    "print_": "hclbuild.dsl.printing",
    "def_": "hclbuild.dsl.functions",
    **dict.fromkeys(
        ("break_", "elif_", "else_", "for_", "if_", "return_", "while_"), "hclbuild.dsl.imperative"
    ),
    **dict.fromkeys(
        (
            "abs",
            "all_of",
            "and_",
            "any_of",
            "cast",
            "compute",
            "cos",
            "exp",
            "log",
            "log2",
            "log10",
            "max",
            "min",
            "mutate",
            "not_",
            "local",
            "or_",
            "placeholder",
            "power",
            "reduce_axis",
            "reducer",
            "scalar",
            "select",
            "sin",
            "sqrt",
            "sum",
            "tan",
            "tanh",
            "update",
        ),
        "hclbuild.dsl.operations",
    ),
    **dict.fromkeys(
        (
            "Fixed",
            "Float",
            "Index",
            "Int",
            "Struct",
            "UFixed",
            "UInt",
            "get_bitwidth",
            "get_fractional_bitwidth",
        ),
        "hclbuild.dsl.types",
    ),
    **dict.fromkeys(("Partition", "Stage", "StageFunction"), "hclbuild.schedule.schedule"),
    "Platform": "hclbuild.platform",
    **dict.fromkeys(("Scheme", "create_scheme"), "hclbuild.schedule.scheme"),
    "get_affine_loop_nests": "hclbuild.compiler.loop_nests",
    # HeteroCL users import from these modules: hcl.operation, hcl.report
    **dict.fromkeys(("operation", "report"), ""),
}
# other names of the same thing
# HeteroCL's names (hcl.local(init, name, dtype), its older hcl.scalar, is hcl.local given a number)
# hcl.all / hcl.any (HeteroCL's names) stay out of __all__: `from hclbuild import *` must not
# replace Python's all() and any() in the importing module
_ALIASES = {
    "all": "all_of",
    "any": "any_of",
    "customize": "create_schedule",
    "print": "print_",
}
# HeteroCL names hclbuild does not have: what to write instead, so a tutorial's kernel fails in words
_MISSING = {
    "IO": "hcl.IO (HeteroCL's data-movement modes) is not implemented; between stages "
    "s.to(tensor, s[stage], depth=N) makes an hls::stream without a mode",
    "assert_": "hcl.assert_ is not implemented; check the result in the project's model() instead",
}


class _MissingName(HCLNotImplementedError, AttributeError):
    """A HeteroCL name hclbuild does not implement (an AttributeError too, so hasattr() stays False)."""


def package_version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    # importlib.metadata costs ~10 ms to import, so only a caller that asks for the version pays it
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hclbuild")
    except PackageNotFoundError:  # a source tree on sys.path that was never pip-installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return package_version()
    target = _ALIASES.get(name, name)
    module = _LAZY.get(target)
    if module is None:
        if name in _MISSING:
            raise _MissingName(_MISSING[name])
        raise AttributeError(f"module 'hclbuild' has no attribute {name!r}")
    if module:
        value = getattr(importlib.import_module(module), target)
    else:
        value = importlib.import_module(f"hclbuild.{target}")
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_ALIASES))


__all__ = [
    "APIError",
    "Array",
    "BoundsError",
    "CompileError",
    "ConfigError",
    "DTypeError",
    "Fixed",
    "Float",
    "HCLError",
    "HCLNotImplementedError",
    "Index",
    "Int",
    "MLIRLimitationError",
    "Partition",
    "Schedule",
    "Stage",
    "StageFunction",
    "Struct",
    "ToolError",
    "UFixed",
    "UInt",
    "abs",
    "and_",
    "asarray",
    "bitcast",
    "break_",
    "build",
    "cast",
    "cast_np",
    "compute",
    "const_tensor",
    "copy",
    "cos",
    "create_schedule",
    "def_",
    "elif_",
    "else_",
    "estimate",
    "exp",
    "for_",
    "get_bitwidth",
    "get_fractional_bitwidth",
    "if_",
    "init",
    "log",
    "log2",
    "log10",
    "lower",
    "max",
    "min",
    "mutate",
    "not_",
    "or_",
    "pack",
    "placeholder",
    "power",
    "print",
    "reduce_axis",
    "reducer",
    "return_",
    "scalar",
    "select",
    "sin",
    "sqrt",
    "sum",
    "tan",
    "tanh",
    "unpack",
    "update",
    "while_",
]
__all__ += [
    "Platform",
    "Scheme",
    "create_schedule_from_scheme",
    "create_scheme",
    "customize",
    "get_affine_loop_nests",
    "local",
    "operation",
    "report",
]
