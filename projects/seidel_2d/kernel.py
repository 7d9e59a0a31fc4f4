"""Seidel 2-D (PolyBench): TSTEPS Gauss-Seidel sweeps of a 9-point average, in place on A.

The time loop is `hcl.mutate((TSTEPS,), ...)` holding one in-place sweep (an `hcl.mutate` over
the interior points, `kernel.time.sweep`). In place means every point reads its left,
upper-left, upper and upper-right neighbours already updated in this sweep; the numpy model
reproduces that by updating wavefronts 2i + j = w, whose points depend only on earlier
wavefronts, with the kernel's order of additions, so it agrees bit for bit.

Schedule: the sweep is pipelined on its column loop at II=19, the II it can have. A[i, j] needs
A[i, j-1], written by the previous iteration, so that recurrence sets the II whatever the memory:
the sum adds the eight other neighbours first and A[i, j-1] last (PolyBench adds it fourth), so
only one float add (4 cycles at 250 MHz) and the division by 9 (12) are on it, plus the store and
the next iteration's load of A (3): 19 cycles, which hclbuild's recurrence check reports for any
smaller II (compiler/recurrence_limits.py). Asking II=1 would only make every csynth report a
violation. A stays unpartitioned: at II=19 its two ports serve the nine reads and one write of an
iteration (5 cycles of port time), and a cyclic partition of the top's ap_memory argument, with
nothing unrolled, would split the IP's one RAM port into nine for no gain. A reuse buffer does not
apply: the values it would hold change under it.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    TSTEPS, N = sizes.TSTEPS, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")

    def kernel(A):
        def point(y, x):
            i, j = y + 1, x + 1
            A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j] + A[i, j + 1]
                       + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1] + A[i, j - 1]) / 9.0

        def step(t):
            hcl.mutate((N - 2, N - 2), point, name="sweep")

        hcl.mutate((TSTEPS,), step, name="time")

    s = hcl.create_schedule([A], kernel, name="top")
    # the recurrence through A (fadd + fdiv + store/load = 19 cycles) allows no less: see above
    s[kernel.time.sweep].pipeline(kernel.time.sweep.axis[1], initiation_interval=19)
    return s


def model(A, sizes):
    """numpy model: wavefronts 2i + j = w of the in-place sweep, in float32."""
    A = A.copy()
    n = A.shape[0]
    # the kernel's order of additions: A[i, j-1] last
    offsets = [(-1, -1), (-1, 0), (-1, 1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1), (0, -1)]
    for _ in range(sizes.TSTEPS):
        for w in range(3, 3 * (n - 2) + 1):
            i = np.arange(max(1, (w - (n - 2) + 1) // 2), min(n - 2, (w - 1) // 2) + 1)
            j = w - 2 * i
            total = A[i - 1, j - 1].copy()
            for di, dj in offsets[1:]:
                total += A[i + di, j + dj]
            A[i, j] = total / np.float32(9.0)
    return {"A": A}
