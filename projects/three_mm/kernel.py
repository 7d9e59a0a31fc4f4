"""3MM (PolyBench): E = A @ B, F = C @ D, G = E @ F, each product its own function.

`s.outline([E], [F], [G])` (lists of stages) gives Stage_E, Stage_F and Stage_G; E and F do not
depend on each other, so an HLS engineer could later put the top in a dataflow region.

Schedule: every product accumulates in i, k, j order (its reduction axis between i and j), so
the pipelined j loop writes a different output element every iteration and carries no
floating-point add. Expected II = 1 on each j loop: one read of the right-hand matrix and one
read plus one write of the output element per iteration, within one dual-port BRAM each.
"""

import numpy as np

import hclbuild as hcl


def _matmul(X, Y, rows, inner, cols, name):
    r = hcl.reduce_axis(0, inner, f"{name}_k")
    return hcl.compute((rows, cols), lambda i, j: hcl.sum(X[i, r] * Y[r, j], axis=r), name=name)


def schedule(sizes):
    """The algorithm and its schedule."""
    NI, NJ, NK, NL, NM = sizes.NI, sizes.NJ, sizes.NK, sizes.NL, sizes.NM
    hcl.init(hcl.Float())
    A = hcl.placeholder((NI, NK), "A")
    B = hcl.placeholder((NK, NJ), "B")
    C = hcl.placeholder((NJ, NM), "C")
    D = hcl.placeholder((NM, NL), "D")

    def kernel(A, B, C, D):
        E = _matmul(A, B, NI, NK, NJ, "E")
        F = _matmul(C, D, NJ, NM, NL, "F")
        return _matmul(E, F, NI, NJ, NL, "G")

    s = hcl.create_schedule([A, B, C, D], kernel, name="top")
    for stage in (kernel.E, kernel.F, kernel.G):
        i, j, k = s[stage].axis
        s[stage].reorder(i, k, j)
        s[stage].pipeline(j)
    s.outline([kernel.E], [kernel.F], [kernel.G])
    return s


def model(A, B, C, D):
    """numpy model of G."""
    return (A.astype(np.float64) @ B) @ (C.astype(np.float64) @ D)
