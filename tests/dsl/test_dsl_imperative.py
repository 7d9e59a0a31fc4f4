"""Imperative DSL code on the LLVM backend against numpy: if_/elif_/else_, for_, while_, return_."""

from __future__ import annotations

import numpy as np

import hclbuild as hcl

# ---- if_ / elif_ / else_ -------------------------------------------------------------------


def test_if_elif_else_inside_compute(run, rng):
    A = hcl.placeholder((20,), "A")

    def kernel(A):
        def body(i):
            with hcl.if_(A[i] > 10):
                hcl.return_(1)
            with hcl.elif_(A[i] > 0):
                hcl.return_(2)
            with hcl.elif_(A[i] == 0):
                hcl.return_(3)
            with hcl.else_():
                hcl.return_(A[i] * 10)

        return hcl.compute((20,), body, "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-20, 21, 20, dtype=np.int32)
    a[:3] = [0, 10, 11]
    expected = np.select([a > 10, a > 0, a == 0], [1, 2, 3], a * 10)
    np.testing.assert_array_equal(run(s, a), expected)


def test_if_else_inside_mutate_stores(run, rng):
    A = hcl.placeholder((4, 5), "A")

    def kernel(A):
        B = hcl.compute((4, 5), lambda i, j: 0, "B")

        def body(i, j):
            with hcl.if_(hcl.and_(A[i, j] >= 0, j % 2 == 0)):
                B[i, j] = A[i, j]
            with hcl.else_():
                B[i, j] = -A[i, j] - 1

        hcl.mutate((4, 5), body, "M")
        return B

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-9, 10, (4, 5), dtype=np.int32)
    jj = np.indices((4, 5))[1]
    np.testing.assert_array_equal(run(s, a), np.where((a >= 0) & (jj % 2 == 0), a, -a - 1))


def test_if_elif_else_at_algorithm_level(rng):
    A = hcl.placeholder((3,), "A")
    B = hcl.placeholder((3,), "B")

    def kernel(A, B):
        with hcl.if_(A[0] > A[1]):
            B[0] = 1
        with hcl.elif_(A[1] > A[2]):
            B[0] = 2
        with hcl.else_():
            B[0] = 3
        with hcl.if_(A[2] < 0):
            B[2] = A[2] * 100

    s = hcl.create_schedule([A, B], kernel)
    fn = hcl.build(s)
    for a in ([5, 1, 0], [0, 5, 1], [0, 1, -2], [1, 1, 1]):
        a = np.array(a, dtype=np.int32)
        b = np.full(3, 7, dtype=np.int32)
        fn(a, b)
        first = 1 if a[0] > a[1] else 2 if a[1] > a[2] else 3
        np.testing.assert_array_equal(b, [first, 7, a[2] * 100 if a[2] < 0 else 7])


# ---- for_ -----------------------------------------------------------------------------------


def test_for_with_step(run):
    A = hcl.placeholder((20,), "A")

    def kernel(A):
        B = hcl.compute((20,), lambda i: 0, "B")
        with hcl.for_(1, 18, step=3) as i:
            B[i] = A[i] + 100
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.arange(20, dtype=np.int32) * 2
    expected = np.zeros(20, dtype=np.int32)
    expected[1:18:3] = a[1:18:3] + 100
    np.testing.assert_array_equal(run(s, a), expected)


def test_for_with_negative_step_counts_down(run):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        B = hcl.compute((10,), lambda i: -1, "B")
        k = hcl.scalar(0, "k")
        # visit 9, 7, 5, 3, 1 and record the visiting order
        with hcl.for_(9, 0, step=-2) as i:
            B[i] = k.v * 1000 + A[i]
            k.v = k.v + 1
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.arange(10, dtype=np.int32) + 50
    expected = np.full(10, -1)
    for order, i in enumerate(range(9, 0, -2)):
        expected[i] = order * 1000 + a[i]
    np.testing.assert_array_equal(run(s, a), expected)


def test_for_with_negative_step_down_to_negative_bound(run):
    A = hcl.placeholder((1,), "A")

    def kernel(A):
        total = hcl.scalar(0, "total")
        with hcl.for_(4, -5, step=-3) as i:
            total.v = total.v * 10 + (i + 5)
        return hcl.compute((1,), lambda x: total.v, "B")

    s = hcl.create_schedule([A], kernel)
    expected = 0
    for i in range(4, -5, -3):  # 4, 1, -2
        expected = expected * 10 + (i + 5)
    np.testing.assert_array_equal(run(s, np.zeros(1, np.int32)), [expected])


def test_for_with_dynamic_bounds_from_scalar_and_tensor(run):
    A = hcl.placeholder((16,), "A")
    N = hcl.placeholder((2,), "N")

    def kernel(A, N):
        hi = hcl.scalar(N[1], "hi")
        total = hcl.scalar(0, "total")
        with hcl.for_(N[0], hi.v) as i:
            total.v = total.v + A[i]
        down = hcl.scalar(0, "down")
        with hcl.for_(hi.v - 1, N[0] - 1, step=-2) as i:
            down.v = down.v * 2 + A[i]
        return hcl.compute((2,), lambda x: hcl.select(x == 0, total.v, down.v), "B")

    s = hcl.create_schedule([A, N], kernel)
    fn = hcl.build(s)
    a = np.arange(16, dtype=np.int32) % 5 - 2
    for lo, hi in ((2, 11), (0, 16), (7, 7), (9, 3)):
        out = np.zeros(2, dtype=np.int32)
        fn(a, np.array([lo, hi], dtype=np.int32), out)
        down = 0
        for i in range(hi - 1, lo - 1, -2):
            down = down * 2 + int(a[i])
        assert out.tolist() == [int(a[lo:hi].sum()), down], (lo, hi)


def test_nested_for_inside_compute_body(run, rng):
    A = hcl.placeholder((6, 8), "A")

    def kernel(A):
        def body(i):
            acc = hcl.scalar(0, "acc")
            with hcl.for_(0, 8) as j, hcl.if_(A[i, j] > 0):
                acc.v = acc.v + A[i, j]
            return acc.v

        return hcl.compute((6,), body, "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-10, 10, (6, 8), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), np.where(a > 0, a, 0).sum(axis=1))


# ---- while_ --------------------------------------------------------------------------------


def test_while_counter_until_condition(run):
    A = hcl.placeholder((1,), "A")

    def kernel(A):
        B = hcl.compute((10,), lambda i: 0, "B")
        c = hcl.scalar(0, "c")
        with hcl.while_(c.v < A[0]):
            B[c.v] = c.v * c.v
            c.v = c.v + 1
        return B

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    for n in (0, 1, 6, 10):
        out = np.zeros(10, dtype=np.int32)
        fn(np.array([n], dtype=np.int32), out)
        expected = np.where(np.arange(10) < n, np.arange(10) ** 2, 0)
        np.testing.assert_array_equal(out, expected)


def test_while_collatz_steps_per_element(run):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        def body(i):
            x = hcl.scalar(A[i], "x")
            steps = hcl.scalar(0, "steps")
            with hcl.while_(x.v != 1):
                with hcl.if_(x.v % 2 == 0):
                    x.v = x.v / 2
                with hcl.else_():
                    x.v = x.v * 3 + 1
                steps.v = steps.v + 1
            return steps.v

        return hcl.compute((6,), body, "B")

    s = hcl.create_schedule([A], kernel)

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    a = np.array([1, 2, 3, 6, 7, 27], dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), [collatz(int(n)) for n in a])


# ---- return_ -------------------------------------------------------------------------------


def test_first_return_wins(run, rng):
    A = hcl.placeholder((16,), "A")

    def kernel(A):
        def body(i):
            with hcl.if_(A[i] > 5):
                hcl.return_(1)
            with hcl.if_(A[i] > 2):
                hcl.return_(2)
            hcl.return_(3)
            hcl.return_(4)  # never reached

        return hcl.compute((16,), body, "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(0, 10, 16, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), np.where(a > 5, 1, np.where(a > 2, 2, 3)))


def test_return_from_inside_for_finds_first_match(run, rng):
    A = hcl.placeholder((5, 12), "A")

    def kernel(A):
        def body(i):
            with hcl.for_(0, 12) as j, hcl.if_(A[i, j] > 7):
                hcl.return_(j)
            hcl.return_(-1)

        return hcl.compute((5,), body, "first")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(0, 10, (5, 12), dtype=np.int32)
    a[4] = 0  # no match in the last row
    expected = [int(np.argmax(row > 7)) if (row > 7).any() else -1 for row in a]
    np.testing.assert_array_equal(run(s, a), expected)


def test_statements_after_a_taken_return_do_not_run(run):
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        side = hcl.compute((4,), lambda i: 0, "side")

        def body(i):
            with hcl.if_(A[i] < 0):
                hcl.return_(-1)
            side[i] = 1  # only for elements that did not return
            hcl.return_(A[i] * 2)

        B = hcl.compute((4,), body, "B")
        return B, side

    s = hcl.create_schedule([A], kernel)
    a = np.array([-3, 4, 0, -1], dtype=np.int32)
    b, side = run(s, a)
    np.testing.assert_array_equal(b, np.where(a < 0, -1, a * 2))
    np.testing.assert_array_equal(side, (a >= 0).astype(np.int32))


def test_return_in_update_converts_to_tensor_dtype(run):
    A = hcl.placeholder((5,), "A", dtype=hcl.Float(32))

    def kernel(A):
        B = hcl.compute((5,), lambda i: 0, "B", dtype=hcl.UInt(8))

        def body(i):
            with hcl.if_(A[i] < 0):
                hcl.return_(0)
            hcl.return_(A[i] * 100)

        hcl.update(B, body, "U")
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.array([-1.0, 0.5, 1.27, 2.0, 2.559], dtype=np.float32)
    expected = np.where(a < 0, 0, np.trunc(a * np.float32(100)).astype(np.int64) & 0xFF)
    np.testing.assert_array_equal(run(s, a), expected)


def test_while_with_return_stops(run):
    A = hcl.placeholder((5,), "A")

    def kernel(A):
        def body(i):
            k = hcl.scalar(0, "k")
            with hcl.while_(k.v < 100):
                with hcl.if_(k.v * k.v >= A[i]):
                    hcl.return_(k.v)
                k.v = k.v + 1
            hcl.return_(-1)

        return hcl.compute((5,), body, "isqrt_ceil")

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 1, 10, 81, 20000], dtype=np.int32)
    expected = [next((k for k in range(100) if k * k >= v), -1) for v in a]
    np.testing.assert_array_equal(run(s, a), expected)
