"""The probe contract between the reference build's passes and the reference run.

Every check the reference build inserts is a call `hcl_probe(i64 site, i64 phase, i64 a, i64 b)`:
the passes emit them (compiler/passes/instrument.py, bounds_check.py, checked_division.py,
stream_check.py), and the reference run reads them back (project/reference.py's reference_design,
runtime/fifo.py, api.build). A leaf module, so that the reference run, which imports no MLIR, and
the passes that build with MLIR name the same symbol and the same numbers.
"""

from __future__ import annotations

PROBE_FUNCTION = "hcl_probe"
# an outlined call's argument before and after the call: (call site, phase, argument, address or bits)
PHASE_BEFORE, PHASE_AFTER = 0, 1
PHASE_OUT_OF_BOUNDS = 2  # (check, phase, dimension, index): the access was skipped
PHASE_DIVISION = 3  # (check, phase, kind, 0): the division was skipped
PHASE_STREAM_WRITE, PHASE_STREAM_READ = 4, 5  # (check, phase, element, address)

__all__ = [
    "PHASE_AFTER",
    "PHASE_BEFORE",
    "PHASE_DIVISION",
    "PHASE_OUT_OF_BOUNDS",
    "PHASE_STREAM_READ",
    "PHASE_STREAM_WRITE",
    "PROBE_FUNCTION",
]
