"""Each value the DSL computes once is computed once: MLIR's common subexpression elimination.

The builder lowers an expression tree as it is written, so a sub-expression used twice is built
twice: `hcl.select(gx < 0, -gx, gx)` with `gx` a sum of six window reads made 18 loads and three
copies of the sum, which HLS turns into 18 memory reads an iteration (more ports than the design
asks for) unless its own optimisations catch them. MLIR's `cse` merges equal operations, loads
included where no write can come between them (it checks the memory effects of what lies between),
so the reference and the emitted C++ both compute each value once, from the same IR.
"""

from __future__ import annotations

from mlir import ir
from mlir.passmanager import PassManager


def merge_common_values(module: ir.Module) -> None:
    """Run MLIR's cse on `module` in place."""
    with module.context:
        PassManager.parse("builtin.module(cse)").run(module.operation)


__all__ = ["merge_common_values"]
