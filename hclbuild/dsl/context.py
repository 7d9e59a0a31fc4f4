"""Process-wide DSL settings (hcl.init) and the active tracing context."""

from __future__ import annotations

from hclbuild.dsl.diagnostics import set_mode as set_warnings_mode
from hclbuild.dsl.trace import drop_module_program
from hclbuild.dsl.types import DType, Int, parse_dtype

_default_dtype: DType = Int(32)


def init(init_dtype: object = None, raise_assert_exception: bool = True, warnings: str = "default") -> None:
    """hcl.init(init_dtype=Int(32)): set the default dtype of placeholders, computes and asarray,
    and start a new module-level algorithm (what was written at module level so far is dropped).
    warnings="error" makes hclbuild's trace-time warnings errors (CI), "ignore" silences them."""
    global _default_dtype
    set_warnings_mode(warnings)
    _default_dtype = Int(32) if init_dtype is None else parse_dtype(init_dtype)
    drop_module_program()


def reset_default_dtype() -> None:
    """Back to HeteroCL's default dtype, keeping any module-level algorithm already written."""
    global _default_dtype
    _default_dtype = Int(32)


def current_default_dtype() -> DType:
    return _default_dtype
