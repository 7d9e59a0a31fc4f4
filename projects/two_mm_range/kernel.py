"""2MM (PolyBench) with both products outlined together as a start..end range of stages:
tmp = alpha * A @ B, then D = beta * D + tmp @ C.

`s.outline(kernel.tmp, kernel.prod)` makes one function, Stage_tmp_prod, of every stage on the
dataflow paths from tmp to prod; tmp, produced and consumed only inside it, becomes a local
array of that function instead of an argument. Compare two_mm, which outlines each product alone.

Schedule: both products accumulate in i, k, j order (the reduction axis k between i and j), so
the pipelined j loop writes a different element every iteration and no floating-point add is
carried from one iteration to the next. Expected II = 1 on every j loop: per iteration one read
of the right-hand matrix, one read and one write of the accumulator element, which fit the two
ports of one BRAM; the left-hand element is invariant in j.
"""

import numpy as np

import hclbuild as hcl

ALPHA, BETA = 1.5, 1.2


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
        tmp = hcl.compute((NI, NJ), lambda i, j: hcl.sum(ALPHA * A[i, k] * B[k, j], axis=k), name="tmp")
        prod = hcl.compute((NI, NL), lambda i, j: hcl.sum(tmp[i, m] * C[m, j], axis=m), name="prod")
        hcl.update(D, lambda i, j: BETA * D[i, j] + prod[i, j], name="D_out")

    s = hcl.create_schedule([A, B, C, D], kernel, name="top")
    for stage in (kernel.tmp, kernel.prod):
        i, j, r = s[stage].axis
        s[stage].reorder(i, r, j)
        s[stage].pipeline(j)
    s[kernel.D_out].pipeline(kernel.D_out.axis[1])
    s.outline(kernel.tmp, kernel.prod)
    return s


def model(A, B, C, D):
    """The numpy model the LLVM reference is checked against."""
    tmp = np.float32(ALPHA) * A.astype(np.float64) @ B
    return {"D": np.float32(BETA) * D + tmp @ C}
