"""2MM from HeteroCL's outlining proposal: E = (A @ B) @ C + D, with both products outlined.

Each outlined stage becomes its own Vitis HLS project (Stage_out_AB, Stage_out_ABC), next to
the whole design (top), so the products synthesize separately and in parallel.
"""

import numpy as np

import hclbuild as hcl

P, Q, R, S = 16, 22, 18, 24


def schedule():
    """The algorithm and its schedule; hclbuild calls this to build the project."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((P, Q), "A")
    B = hcl.placeholder((Q, R), "B")
    C = hcl.placeholder((R, S), "C")
    D = hcl.placeholder((P, S), "D")

    def kernel(A, B, C, D):
        r = hcl.reduce_axis(0, Q, "r")
        k = hcl.reduce_axis(0, R, "k")
        out_AB = hcl.compute((P, R), lambda x, y: hcl.sum(A[x, r] * B[r, y], axis=r), name="out_AB")
        out_ABC = hcl.compute((P, S), lambda x, y: hcl.sum(out_AB[x, k] * C[k, y], axis=k), name="out_ABC")
        return hcl.compute((P, S), lambda x, y: out_ABC[x, y] + D[x, y], name="E")

    s = hcl.create_schedule([A, B, C, D], kernel, name="top")
    s[kernel.out_AB].pipeline(kernel.out_AB.axis[1])
    s[kernel.out_ABC].pipeline(kernel.out_ABC.axis[1])
    s.outline(kernel.out_AB)
    s.outline(kernel.out_ABC)
    return s


def model(A, B, C, D):
    """The numpy model the LLVM reference is checked against."""
    return (A.astype(np.float64) @ B @ C + D).astype(np.float32)
