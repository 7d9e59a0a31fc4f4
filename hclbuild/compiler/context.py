"""The one way hclbuild makes an MLIR context: without MLIR's own thread pool.

doit already runs one task per core, and a context's threads (the parallel verifier, nested
pass managers) compete with the other tasks for those cores. Measured on the 200-stage chain
build with 2 cores: 4.25-4.65 s single-threaded against 4.34-4.86 s with MLIR's threads, and
less CPU.
"""

from __future__ import annotations

from mlir import ir


def new_context() -> ir.Context:
    """A fresh MLIR context that runs passes and verification on the calling thread only."""
    context = ir.Context()
    context.enable_multithreading(False)
    return context
