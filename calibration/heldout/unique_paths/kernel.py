"""unique_paths (ataryan4561/unique_paths: Vivado HLS 2019.1, xc7z020, 10 ns), ported to the DSL as a
held-out case: a kernel from outside the calibration sources, to check that the model generalises.

The original counts the monotone lattice paths of an n x m grid by dynamic programming in a local
dp[100][100] (partitioned completely on its first dimension): Loop 1 sets dp[i][0] = 1 for i < n,
Loop 2 dp[0][i] = 1 for i < m, Loop 3/3.1 (i < n, j < m) skips (0, 0) and sets dp[i][j] =
dp[i-1][j] (if i >= 1) + dp[i][j-1] (if j >= 1); it returns dp[n-1][m-1] through a pointer. n and m
are read at run time, so Vivado HLS knew no trip count (its report has no latency, only the loops'
II and depth). Its directives: pipeline and unroll factor 2 on Loop 1, Loop 2 and Loop 3.1, dp
partitioned completely on dim 1, s_axilite ports for n, m and the result.

Not the same: the DSL schedules (pipelines, unrolls) only loops of constant bounds, so each loop
here runs to dp's bound, 100, with its run-time bound (i < n, j < m) as a guard around the body:
trip counts of 100 where Vivado HLS knew none, the same body, dependences and ports, so the loops'
II is what to compare. The C's `continue` on (0, 0) is part of that guard (the same control
flow). dp is a compute of zeros (the DSL has no uninitialised local tensor), a nest the original
does not have and that has no figure to compare with. The block protocol is ap_ctrl_hs, not
s_axilite.
"""

import math

import numpy as np

import hclbuild as hcl

N = 100


def schedule():
    """The algorithm and the original's directives."""
    hcl.init(hcl.Int(32))
    n = hcl.placeholder((), "n")
    m = hcl.placeholder((), "m")

    def unique_paths(n, m):
        ans = hcl.scalar(0, "ans")
        dp = hcl.compute((N, N), lambda i, j: 0, "dp")
        with hcl.Stage("Loop1"):
            with hcl.for_(0, N, name="row") as i:
                with hcl.if_(i < n):
                    dp[i, 0] = 1
        with hcl.Stage("Loop2"):
            with hcl.for_(0, N, name="col") as i:
                with hcl.if_(i < m):
                    dp[0, i] = 1
        with hcl.Stage("Loop3"):
            with hcl.for_(0, N, name="i") as i:
                with hcl.for_(0, N, name="j") as j:
                    with hcl.if_(hcl.and_(i < n, j < m, hcl.or_(i != 0, j != 0))):
                        r = hcl.scalar(0, "r")
                        l = hcl.scalar(0, "l")
                        with hcl.if_(i - 1 >= 0):
                            r.v = dp[i - 1, j]
                        with hcl.if_(j - 1 >= 0):
                            l.v = dp[i, j - 1]
                        dp[i, j] = r.v + l.v
        ans.v = dp[n - 1, m - 1]
        return ans

    s = hcl.create_schedule([n, m], unique_paths, name="unique_paths")
    for stage, loop in (
        (unique_paths.Loop1, unique_paths.Loop1.row),
        (unique_paths.Loop2, unique_paths.Loop2.col),
        (unique_paths.Loop3, unique_paths.Loop3.j),
    ):
        s[stage].pipeline(loop)
        s[stage].unroll(loop, factor=2)
    s.partition(unique_paths.dp, hcl.Partition.Complete, dim=1)
    return s


def inputs(rng):
    """A grid of at most 16 x 16: C(30, 15) paths still fit an int32."""
    return [np.int32(rng.integers(1, 17)), np.int32(rng.integers(1, 17))]


def model(n, m):
    """The number of monotone paths: C(n + m - 2, n - 1)."""
    rows, cols = _value(n), _value(m)
    return {"ans": np.array([math.comb(rows + cols - 2, rows - 1)])}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array), as an int."""
    return int(np.asarray(scalar).reshape(-1)[0])
