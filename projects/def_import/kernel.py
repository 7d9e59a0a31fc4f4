"""The program that segfaulted HeteroCL's LLVM backend and vanished from its HLS output: a @def_
function imported at module level. Here it is a function of its own in the C++ and in the IR.

Its sizes are fixed (10 x 10): the @def_ decorator in submodule.py declares its argument shapes
at import time, before any project.toml is read. Schedule: the add is pipelined on its inner
loop; one read of A and one read and one write of B per iteration, expected II = 1.
"""

from submodule import submodule  # module-level import: the failing case

import hclbuild as hcl


def schedule():
    """The algorithm and its schedule."""
    hcl.init()
    A = hcl.placeholder((10, 10), name="A")
    B = hcl.placeholder((10, 10), name="B")

    def algo(A, B):
        submodule(A)
        hcl.update(B, lambda i, j: B[i, j] + A[i, j], name="add")

    s = hcl.create_schedule([A, B], func=algo, name="top")
    s[algo.add].pipeline(algo.add.axis[1])
    return s


def model(A, B):
    """A is incremented in place, then added to B."""
    return {"A": A + 1, "B": B + A + 1}
