"""hclbuild's warnings at trace time: where in the user's code, once a place, or as errors.

A warning names the user's file and line (the first frame outside the hclbuild package), is shown
once for that place however often the algorithm is traced, and becomes a WarningError (one line,
exit status 1 under the CLI) when `hcl.init(warnings="error")` or `$HCLBUILD_WARNINGS=error` asks:
CI can refuse a kernel that compiles to something other than what it says.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from hclbuild.errors import APIError, HCLWarning, WarningError
from hclbuild.warning_modes import MODES, WARNINGS_ENV

_PACKAGE = str(Path(__file__).resolve().parents[1])
_mode = "default"
_shown: set[tuple[str, int, str]] = set()


def set_mode(mode: str) -> None:
    """hcl.init(warnings=mode): "default" (shown once a place), "error" or "ignore"."""
    global _mode
    _mode = check_mode(mode, "hcl.init(warnings=...)")


def check_mode(mode: object, what: str) -> str:
    if mode not in MODES:
        raise APIError(f"{what}: {mode!r} is not one of {', '.join(MODES)}")
    return str(mode)


def current_mode() -> str:
    """The stricter of hcl.init's mode and $HCLBUILD_WARNINGS ("error" wins, then "default")."""
    env = os.environ.get(WARNINGS_ENV, "").strip() or "default"
    env = check_mode(env, f"${WARNINGS_ENV}")
    for mode in ("error", "default"):
        if mode in (env, _mode):
            return mode
    return "ignore"


def user_location() -> tuple[str, int]:
    """File and line of the innermost frame outside hclbuild (the user's code being traced)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not str(Path(filename).resolve()).startswith(_PACKAGE + os.sep) and not filename.startswith(
            "<frozen"
        ):
            return filename, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return "<unknown>", 0


def warn(category: type[HCLWarning], message: str) -> None:
    """Warn about the user's current line, once a place; raise WarningError in "error" mode."""
    mode = current_mode()
    if mode == "ignore":
        return
    filename, line = user_location()
    if mode == "error":
        raise WarningError(f"{filename}:{line}: {message} ({category.__name__} as an error)")
    key = (filename, line, message)
    if key in _shown:
        return
    _shown.add(key)
    warnings.warn_explicit(message, category, filename, line)
