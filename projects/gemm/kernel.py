"""GEMM (PolyBench): C = alpha * A @ B + beta * C, in place on C.

Schedule, as an HLS engineer writes it: the product accumulates in i, k, j order (the reduction
axis k moved between i and j), so the pipelined j loop updates a different prod[i, j] every
iteration and carries no dependence through the floating-point adder. Expected II = 1 on j in
both stages: each iteration reads B[k, j] once and reads and writes prod[i, j] once, which one
dual-port BRAM serves; A[i, k] is invariant in j. j is unrolled by 2 with B and prod partitioned
cyclically by 2 on their column dimension, so each of the two banks still sees one read (B) or
one read and one write (prod) per cycle.

Knobs (project.toml [explore]; `hclbuild explore projects/gemm`): the unroll factor of j, the
cyclic partition factor of B and prod, and the II asked of the pipelined loop. The build uses
[knobs] (unroll 2, partition 2, II 1: the schedule above). Partition 1 gives no partition, and
hclbuild then partitions B and prod itself by the factor the unrolled lanes' accesses need
(compiler/passes/parallel_reads.py): it estimates as the smallest factor that keeps the II; a
factor smaller than that (8 lanes, partition 2) keeps the user's and raises the II (ports).
"""

import numpy as np

import hclbuild as hcl

ALPHA, BETA = 1.5, 1.2


def schedule(sizes, knobs):
    """The algorithm and its schedule."""
    NI, NJ, NK = sizes.NI, sizes.NJ, sizes.NK
    hcl.init(hcl.Float())
    A = hcl.placeholder((NI, NK), "A")
    B = hcl.placeholder((NK, NJ), "B")
    C = hcl.placeholder((NI, NJ), "C")

    def kernel(A, B, C):
        k = hcl.reduce_axis(0, NK, "k")
        prod = hcl.compute((NI, NJ), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name="prod")
        hcl.update(C, lambda i, j: ALPHA * prod[i, j] + BETA * C[i, j], name="scale")

    s = hcl.create_schedule([A, B, C], kernel, name="top")
    i, j, k = s[kernel.prod].axis
    s[kernel.prod].reorder(i, k, j)
    if knobs.unroll > 1:
        jo, ji = s[kernel.prod].split(j, knobs.unroll)
        s[kernel.prod].pipeline(jo, knobs.ii)
        s[kernel.prod].unroll(ji)
    else:
        s[kernel.prod].pipeline(j, knobs.ii)
    if knobs.partition > 1:
        s.partition(B, hcl.Partition.Cyclic, dim=2, factor=knobs.partition)
        s.partition(kernel.prod, hcl.Partition.Cyclic, dim=2, factor=knobs.partition)
    s[kernel.scale].pipeline(kernel.scale.axis[1])
    s.outline(kernel.prod)
    return s


def model(A, B, C):
    """numpy model: the updated C."""
    return {"C": np.float32(ALPHA) * (A @ B) + np.float32(BETA) * C}
