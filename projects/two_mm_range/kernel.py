"""2MM from HeteroCL's outlining proposal, E = (A @ B) @ C + D, with both products outlined
together as a start..end range of stages.

`s.outline(kernel.out_AB, kernel.out_ABC)` makes one function, Stage_out_AB_out_ABC, of every
stage on the dataflow paths from out_AB to out_ABC; out_AB, produced and consumed only inside it,
becomes a local array of that function instead of an argument. Compare two_mm, which outlines
each product alone.

Schedule: both products accumulate in i, k, j order (the reduction axis k between i and j), so
the pipelined j loop writes a different element every iteration and no floating-point add is
carried from one iteration to the next. Expected II = 1 on every j loop: per iteration one read
of the right-hand matrix, one read and one write of the accumulator element, which fit the two
ports of one BRAM; the left-hand element is invariant in j.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule; hclbuild calls this to build the project."""
    NI, NJ, NK, NL = sizes.NI, sizes.NJ, sizes.NK, sizes.NL
    hcl.init(hcl.Float())
    A = hcl.placeholder((NI, NK), "A")
    B = hcl.placeholder((NK, NJ), "B")
    C = hcl.placeholder((NJ, NL), "C")
    D = hcl.placeholder((NI, NL), "D")

    def kernel(A, B, C, D):
        k = hcl.reduce_axis(0, NK, "k")
        m = hcl.reduce_axis(0, NJ, "m")
        out_AB = hcl.compute((NI, NJ), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name="out_AB")
        out_ABC = hcl.compute((NI, NL), lambda i, j: hcl.sum(out_AB[i, m] * C[m, j], axis=m), name="out_ABC")
        return hcl.compute((NI, NL), lambda i, j: out_ABC[i, j] + D[i, j], name="E")

    s = hcl.create_schedule([A, B, C, D], kernel, name="top")
    for stage in (kernel.out_AB, kernel.out_ABC):
        i, j, r = s[stage].axis
        s[stage].reorder(i, r, j)
        s[stage].pipeline(j)
    s[kernel.E].pipeline(kernel.E.axis[1])
    s.outline(kernel.out_AB, kernel.out_ABC)
    return s


def model(A, B, C, D):
    """The numpy model the LLVM reference is checked against."""
    return (A.astype(np.float64) @ B @ C + D).astype(np.float32)
