"""What may become of hclbuild's trace-time warnings, and the variable that chooses it for a run.

Apart from dsl.diagnostics (which shows the warnings) because the CLI reads these on doit's no-op
path, where importing the DSL (and with it numpy) would cost a second of every `doit` run.
"""

from __future__ import annotations

WARNINGS_ENV = "HCLBUILD_WARNINGS"
MODES = ("default", "error", "ignore")

__all__ = ["MODES", "WARNINGS_ENV"]
