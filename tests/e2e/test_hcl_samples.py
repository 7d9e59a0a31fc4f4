"""Small equivalents of HeteroCL's sample applications (kmeans, smith_waterman, cordic, digitrec,
fft, gemm), written for this repository: the DSL forms each sample relies on, against numpy."""

from __future__ import annotations

import numpy as np

import hclbuild as hcl


def test_kmeans_like_nested_stages_pipelined_and_partitioned(rng):
    N, K, D, ITERS = 12, 3, 4, 3
    points = hcl.placeholder((N, D), "points")
    means = hcl.placeholder((K, D), "means")
    labels = hcl.placeholder((N,), "labels")

    def kmeans(points, means, labels):
        def loop_kernel(_):
            with hcl.for_(0, N, name="n") as n:
                min_dist = hcl.scalar(100000)
                new_label = hcl.scalar(labels[n])
                with hcl.for_(0, K) as k:
                    dist = hcl.scalar(0)
                    with hcl.for_(0, D) as d:
                        diff = hcl.scalar(points[n, d] - means[k, d], "temp")
                        dist.v += diff.v * diff.v
                    with hcl.if_(dist.v < min_dist.v):
                        min_dist.v = dist.v
                        new_label[0] = k
                labels[n] = new_label
            num_k = hcl.compute((K,), lambda x: 0, "num_k")
            sum_k = hcl.compute((K, D), lambda x, y: 0, "sum_k")

            def calc_sum(n):
                num_k[labels[n]] += 1
                with hcl.for_(0, D) as d:
                    sum_k[labels[n], d] += points[n, d]

            hcl.mutate((N,), calc_sum, "calc_sum")
            hcl.update(means, lambda k, d: sum_k[k, d] // num_k[k], "update_mean")

        hcl.mutate((ITERS,), loop_kernel, "main_loop")

    s = hcl.create_schedule([points, means, labels], kmeans)
    main = kmeans.main_loop
    s[main].pipeline(main.n)
    s[main.num_k].unroll(0)
    s[main.calc_sum].pipeline(0)
    s[main.update_mean].unroll(1)
    s.partition(main.sum_k, dim=0)
    target = hcl.Platform.aws_f1
    s.to([points, means], target.xcel, burst_len=16)
    s.to([main.means, main.labels], target.host, burst_len=16)
    code = hcl.build(s, target=target.config(compiler="vitis", mode="debug"))
    assert "#pragma HLS pipeline II=1" in code and "#pragma HLS array_partition variable=sum_k" in code

    # numpy model, the same arithmetic (ints, floor division, first minimum wins)
    pts = rng.integers(0, 20, (N, D)).astype(np.int32)
    mns = pts[:K].copy()
    lab = np.zeros(N, np.int32)
    exp_m, exp_l = mns.copy(), lab.copy()
    for _ in range(ITERS):
        for n in range(N):
            dists = ((pts[n] - exp_m) ** 2).sum(axis=1)
            best = 100000
            for k in range(K):
                if dists[k] < best:
                    best, exp_l[n] = dists[k], k
        for k in range(K):
            members = pts[exp_l == k]
            exp_m[k] = members.sum(axis=0) // len(members)
    hcl.build(s)(pts, mns, lab)
    np.testing.assert_array_equal(lab, exp_l)
    np.testing.assert_array_equal(mns, exp_m)


def test_smith_waterman_like_batch_of_rows_with_nested_tensors(rng):
    num, width = 6, 8
    dtype = hcl.UFixed(3)  # HeteroCL: fracs default to 0
    seqs = hcl.placeholder((num, width), "seqs", dtype)
    outs = hcl.placeholder((num, width), "outs", dtype)

    def per_row(seq, out):
        best = hcl.scalar(0, "best")
        prefix = hcl.compute((width,), lambda x: 0, "prefix")

        def scan(i):
            with hcl.if_(seq[i] > best.v):
                best.v = seq[i]
            prefix[i] = best.v

        hcl.mutate((width,), scan, "scan")
        with hcl.Stage("T"):
            tick = hcl.scalar(width - 1, "tick")
            with hcl.while_(tick.v >= 0):
                out[tick.v] = prefix[tick.v]
                tick.v -= 1

    def batch(seqs, outs):
        hcl.mutate((num,), lambda t: per_row(seqs[t], outs[t]), "B")

    scheme = hcl.create_scheme([seqs, outs], batch)
    scheme.downsize([batch.B.prefix], hcl.Int(16))
    s = hcl.create_schedule_from_scheme(scheme)
    assert s[batch.B.prefix].stmt.output.dtype == hcl.Int(16)
    o, p = s[batch.B].split(batch.B.axis[0], factor=4)
    s[batch.B].pipeline(o)
    s[batch.B].parallel(p)
    values = rng.integers(0, 8, (num, width))
    a = hcl.asarray(values, dtype)
    out = hcl.asarray(np.zeros((num, width)), dtype)
    hcl.build(s)(a, out)
    np.testing.assert_array_equal(out.asnumpy(), np.maximum.accumulate(values, axis=1))


def test_cordic_like_fixed_point_steps_with_a_runtime_count():
    hcl.init(hcl.Fixed(16, 12))
    X = hcl.placeholder((1,), "X")
    N = hcl.placeholder((), "N", hcl.Int(32))

    def shrink(X, N):
        def step(k):
            X[0] = X[0] - (X[0] >> (k + 1))

        hcl.mutate((N,), step, "calc")

    f = hcl.build(hcl.create_schedule([X, N], shrink))
    for count in (0, 3, 9):
        x = hcl.asarray(np.array([1.5]), hcl.Fixed(16, 12))
        f(x, count)
        raw = int(1.5 * 4096)
        for k in range(count):
            raw -= raw >> (k + 1)
        assert x.asnumpy()[0] == raw / 4096


def test_digitrec_like_popcount_with_a_downsized_nested_scalar(rng):
    hcl.init(hcl.UInt(49))
    test_image = hcl.placeholder((), "test_image")
    train = hcl.placeholder((3, 5), "train")

    def knn(test_image, train):
        def popcount(num):
            out = hcl.scalar(0, "out")
            with hcl.for_(0, train.type.bits) as i:
                out.v += num[i]
            return out.v

        diff = hcl.compute(train.shape, lambda x, y: train[x][y] ^ test_image, "diff")
        return hcl.compute(diff.shape, lambda x, y: popcount(diff[x][y]), "dist")

    scheme = hcl.create_scheme([test_image, train], knn)
    scheme.downsize([knn.dist, knn.dist.out], hcl.UInt(6))
    s = hcl.create_schedule_from_scheme(scheme)
    images = rng.integers(0, 1 << 49, (3, 5), dtype=np.uint64)
    probe = int(rng.integers(0, 1 << 49))
    dist = hcl.asarray(np.zeros((3, 5)), hcl.UInt(6))
    hcl.build(s)(np.int64(probe), hcl.asarray(images, hcl.UInt(49)), dist)
    expected = [[bin(int(v) ^ probe).count("1") for v in row] for row in images]
    np.testing.assert_array_equal(dist.asnumpy(), expected)


def test_fft_like_loops_with_runtime_bounds_and_steps(rng):
    hcl.init(hcl.Float())
    L = 16
    X = hcl.placeholder((L,), "X")
    F = hcl.placeholder((L,), "F")

    def strided(X, F):
        with hcl.Stage("Out"):
            one = hcl.scalar(1, dtype="int32")
            with hcl.for_(0, 3) as stage:
                pts = one[0] << (stage + 1)
                with hcl.for_(0, pts / 2) as j, hcl.for_(j, L, pts) as i:
                    F[i] = F[i] + X[i] * (stage + 1)

    s = hcl.create_schedule([X, F], strided)
    x = rng.random(L).astype(np.float32)
    f = np.zeros(L, np.float32)
    hcl.build(s)(x, f)
    expected = np.zeros(L, np.float32)
    for stage in range(3):
        pts = 1 << (stage + 1)
        for j in range(pts // 2):
            for i in range(j, L, pts):
                expected[i] += x[i] * (stage + 1)
    np.testing.assert_allclose(f, expected, rtol=1e-6)


def test_gemm_like_tiling_with_axes_fixed_at_creation(rng):
    m = n = k = 16
    hcl.init(hcl.Float())
    A = hcl.placeholder((m, k), "A")
    B = hcl.placeholder((k, n), "B")

    def kernel(A, B):
        r = hcl.reduce_axis(0, k, "k")
        return hcl.compute((m, n), lambda x, y: hcl.sum(A[x, r] * B[r, y], axis=r), "out_matrix")

    s = hcl.create_schedule([A, B], kernel)
    out = kernel.out_matrix
    y0, y1 = s[out].split(out.axis[0], factor=8)
    x0, x1 = s[out].split(out.axis[1], factor=8)
    s[out].reorder(y0, x0, y1, x1)
    a, b = rng.random((m, k), np.float32), rng.random((k, n), np.float32)
    c = np.zeros((m, n), np.float32)
    hcl.build(s)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)
