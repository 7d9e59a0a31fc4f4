"""The program that segfaulted HeteroCL's LLVM backend and vanished from its HLS output: a @def_
function imported at module level. Here it is a function of its own in the C++ and in the IR."""

import numpy as np
from submodule import submodule  # module-level import: the failing case

import hclbuild as hcl


def schedule():
    """The algorithm and its schedule."""
    hcl.init()
    A = hcl.placeholder((10, 10), name="A")
    B = hcl.placeholder((10, 10), name="B")

    def algo(A, B):
        submodule(A)
        hcl.update(B, lambda *args: B[args] + A[args])

    return hcl.create_schedule([A, B], func=algo, name="top")


def model(A, B):
    """A is incremented in place, then added to B."""
    return {"A": A + 1, "B": B + A + 1}
