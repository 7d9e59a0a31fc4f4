"""Exception classes of hclbuild; every error the user can see derives from HCLError."""

from __future__ import annotations


class HCLError(Exception):
    """Base class of every hclbuild error; the CLI and doit tasks print it as one line."""


class APIError(HCLError):
    """The DSL or schedule API was called with arguments it does not accept."""


class DTypeError(HCLError):
    """A data type is unknown, unsupported here, or does not fit the operation."""


class CompileError(HCLError):
    """The compiler produced or was given IR that fails verification or cannot be lowered."""


class ToolError(HCLError):
    """An external tool (g++, vitis_hls, v++) failed or is missing."""


class ConfigError(HCLError):
    """A project's files (project.toml, kernel.py) are missing or invalid."""


class CsimError(HCLError):
    """A C simulation compiled but its outputs differ from the golden outputs."""


class DivisionError(HCLError, ArithmeticError):
    """A kernel run divided by zero (or the most negative integer by -1); the message names the stage."""


class BoundsError(HCLError, IndexError):
    """A kernel run indexed a tensor outside its shape; the message names the stage, tensor and subscript."""


class HCLNotImplementedError(HCLError, NotImplementedError):
    """A documented feature that hclbuild does not implement yet; the message names it."""


class MLIRLimitationError(HCLError):
    """HeteroCL-compatible name: a construct the MLIR flow cannot express."""


class HCLWarning(UserWarning):
    """Base class of hclbuild's warnings; `hcl.init(warnings="error")`, `hclbuild -W error` or
    `$HCLBUILD_WARNINGS=error` make each one a WarningError instead."""


class TypeLimitsWarning(HCLWarning):
    """A comparison that the range of its operand's type decides (`x < 0` on an unsigned x),
    as g++'s -Wtype-limits says."""


class WarningError(HCLError):
    """A warning raised as an error (warnings="error")."""
