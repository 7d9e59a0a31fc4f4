"""numpy == LLVM == g++ for HeteroCL's bit operations, types and data operations (issue #10, items
3-5), through the real flow as tests/e2e/test_kernels_csim.py runs it: build + verify -> LLVM reference
run checked against the numpy model -> golden vectors -> emitted C++ and testbench compiled with
g++ -> bit-exact compare. Each kernel packs several features, so the suite stays a few compiles."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dsl_helpers import bits_of, reversed_bits
from flow_helpers import check_numpy_llvm_cpp

import hclbuild as hcl
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, emit_design_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design
from hclbuild.runtime.csim import run_csim

KERNELS: dict[str, Callable[[], tuple[Any, Callable | None, Callable | None]]] = {}


def kernel(fn: Callable[[], tuple[Any, Callable | None, Callable | None]]):
    KERNELS[fn.__name__] = fn
    return fn


# ---- item 3: bit operations -------------------------------------------------------------------


@kernel
def bits_with_expression_bounds():
    A = hcl.placeholder((8,), "A", dtype=hcl.UInt(16))
    L = hcl.placeholder((8,), "L")

    def algo(A, L):
        nib = hcl.compute((8, 4), lambda i, j: A[i][4 * j : 4 * j + 4], "nib", dtype=hcl.UInt(4))
        win = hcl.compute((8,), lambda i: A[i][L[i] : L[i] + 3], "win", dtype=hcl.UInt(3))
        low = hcl.compute((8,), lambda i: A[i][0 : L[i]], "low", dtype=hcl.UInt(16))
        rev = hcl.compute((8,), lambda i: A[i][2:13].reverse(), "rev", dtype=hcl.UInt(11))
        out = hcl.compute((8,), lambda i: A[i], "out", dtype=hcl.UInt(16))
        with hcl.for_(0, 8) as i:
            out[i][L[i] : L[i] + 3] = 0b101
            out[i][L[i] + 5] = 1
            (out[i] + 1)[0] = 1  # a temporary: changes nothing
        return nib, win, low, rev, out

    def inputs(rng):
        return [rng.integers(0, 2**16, 8), np.array([0, 2, 11, 13, 14, 16, -1, 7])]

    def model(a, lo):
        a = [int(v) for v in a]
        nib = [[bits_of(v, 4 * j, 4 * j + 4, 16) for j in range(4)] for v in a]
        win = [bits_of(v, x, x + 3, 16) for v, x in zip(a, lo)]
        low = [bits_of(v, 0, x, 16) for v, x in zip(a, lo)]
        rev = [reversed_bits(bits_of(v, 2, 13, 16), 11) for v in a]
        out = []
        for v, x in zip(a, lo):
            if 0 <= x < 16:
                mask = (0b111 << x) & 0xFFFF
                v = (v & ~mask & 0xFFFF) | ((0b101 << x) & mask)
            if 0 <= x + 5 < 16:
                v |= 1 << (x + 5)
            out.append(v)
        return [np.array(r) for r in (nib, win, low, rev, out)]

    return hcl.create_schedule([A, L], algo), inputs, model


# ---- item 4: types ------------------------------------------------------------------------------


@kernel
def struct_fields_packed_in_memory():
    stype = hcl.Struct({"fa": hcl.Int(8), "fb": hcl.Fixed(13, 11), "fc": hcl.Float()})
    A = hcl.placeholder((6,), "A", dtype=hcl.Int(8))
    B = hcl.placeholder((6,), "B", dtype=hcl.Fixed(13, 11))
    C = hcl.placeholder((6,), "C", dtype=hcl.Float())
    P = hcl.placeholder((6,), "P", dtype=stype)  # a struct argument: ap_uint<53> in C++

    def algo(A, B, C, P):
        D = hcl.compute(A.shape, lambda x: (A[x], B[x], C[x]), "D", dtype=stype)
        with hcl.for_(0, 6) as i:
            D[i].fa = D[i].fa + P[i].fa
            P[i].fc = P[i].fc * 2.0
        sums = hcl.compute(A.shape, lambda x: D[x].fb + P[x].fb, "sums", dtype=hcl.Fixed(14, 11))
        return D, sums

    def inputs(rng):
        packed = [int(v) for v in rng.integers(0, 2**53, 6, dtype=np.uint64)]
        return [
            rng.integers(-128, 128, 6),
            rng.uniform(-2, 2, 6),
            rng.standard_normal(6),
            np.array(packed, dtype=object),
        ]

    def model(a, b, c, p):
        fb = hcl.asarray(b, hcl.Fixed(13, 11)).asnumpy()
        pv = hcl.asarray(p, stype).asnumpy()
        d = np.zeros(6, dtype=pv.dtype)
        d["fa"] = [hcl.Int(8).wrap_int(int(x) + int(y)) for x, y in zip(a, pv["fa"])]
        d["fb"], d["fc"] = fb, np.asarray(c, np.float32)
        pv["fc"] = pv["fc"] * np.float32(2.0)
        # below the DSL a struct is its packed uint53: the reference compares those bits
        return {
            "D": hcl.asarray(d, stype).storage,
            "sums": fb + pv["fb"],
            "P": hcl.asarray(pv, stype).storage,
        }

    return hcl.create_schedule([A, B, C, P], algo), inputs, model


@kernel
def wide_ints_to_2047_bits():
    hcl.init(hcl.UInt(32))
    A, B = hcl.placeholder((6,), "A"), hcl.placeholder((6,), "B")
    big, sbig, mid = hcl.UInt(2047), hcl.Int(2047), hcl.Int(1100)

    def algo(A, B):
        D = hcl.compute(A.shape, lambda x: (hcl.cast(big, A[x]) << 2000) + B[x] * B[x], "D", dtype=big)
        Q = hcl.compute(A.shape, lambda x: D[x] // (B[x] + 1) + D[x] % (A[x] + 3), "Q", dtype=big)
        S = hcl.compute(
            A.shape, lambda x: hcl.cast(sbig, D[x]) / -7 - hcl.cast(sbig, D[x] >> 1990), "S", dtype=sbig
        )
        M = hcl.compute(
            A.shape, lambda x: hcl.cast(mid, hcl.cast(hcl.Float(64), A[x]) * 1e290) - 3, "M", dtype=mid
        )
        F = hcl.compute(A.shape, lambda x: hcl.cast(hcl.Float(64), M[x] >> 900), "F", dtype=hcl.Float(64))
        return D, Q, S, M, F

    def model(a, b):
        # B[x] * B[x] is a uint32 product (C promotion), then added at 2047 bits
        d = [((int(x) << 2000) + ((int(y) * int(y)) & 0xFFFFFFFF)) & ((1 << 2047) - 1) for x, y in zip(a, b)]
        q = [(v // (int(y) + 1) + v % (int(x) + 3)) & ((1 << 2047) - 1) for v, x, y in zip(d, a, b)]

        def signed(v, bits):
            v &= (1 << bits) - 1
            return v - (1 << bits) if v >> (bits - 1) else v

        def tdiv(x, y):
            return abs(x) // abs(y) * (1 if (x >= 0) == (y > 0) else -1)

        s = [signed(tdiv(signed(v, 2047), -7) - (v >> 1990), 2047) for v in d]
        m = [signed(int(float(x) * 1e290) - 3, 1100) for x in a]
        f = [float(v >> 900) for v in m]
        return [np.array(r, dtype=object) for r in (d, q, s, m)] + [np.array(f)]

    return (
        hcl.create_schedule([A, B], algo),
        lambda rng: [rng.integers(0, 2**31, 6), rng.integers(0, 2**31, 6)],
        model,
    )


# ---- item 5: data operations -----------------------------------------------------------------------


@kernel
def fixed_point_division():
    """HeteroCL's test_fixed_division, in ap_fixed's arithmetic: the quotient keeps the dividend's
    fraction bits and truncates toward zero (it had been an HCLNotImplementedError, and so had a
    fixed-point value divided by a float)."""
    A = hcl.placeholder((8,), "A", dtype=hcl.Fixed(12, 6))
    B = hcl.placeholder((8,), "B", dtype=hcl.Fixed(10, 4))
    U = hcl.placeholder((8,), "U", dtype=hcl.UFixed(8, 5))
    N = hcl.placeholder((8,), "N", dtype=hcl.Int(8))

    def algo(A, B, U, N):
        q = hcl.compute((8,), lambda i: A[i] / B[i], "q", dtype=hcl.Fixed(24, 6))
        uq = hcl.compute((8,), lambda i: U[i] / B[i], "uq", dtype=hcl.Fixed(20, 5))
        nq = hcl.compute((8,), lambda i: N[i] / U[i], "nq", dtype=hcl.Int(16))
        fq = hcl.compute((8,), lambda i: A[i] / N[i], "fq", dtype=hcl.Fixed(12, 6))
        lq = hcl.compute((8,), lambda i: A[i] / -3, "lq", dtype=hcl.Fixed(12, 6))
        flt = hcl.compute((8,), lambda i: A[i] / hcl.cast(hcl.Float(), N[i]), "flt", dtype=hcl.Float())
        return q, uq, nq, fq, lq, flt

    def inputs(rng):
        b = rng.integers(-480, 480, 8)
        b[b == 0] = 5
        n = rng.integers(-100, 100, 8)
        n[n == 0] = -1
        return [
            hcl.asarray(rng.integers(-2048, 2048, 8) / 64, hcl.Fixed(12, 6)),
            hcl.asarray(b / 16, hcl.Fixed(10, 4)),
            hcl.asarray(rng.integers(1, 256, 8) / 32, hcl.UFixed(8, 5)),
            hcl.asarray(n, hcl.Int(8)),
        ]

    def model(a, b, u, n):
        def raw(values, frac):
            return [round(v * 2**frac) for v in values]

        def tdiv(x, y):
            q = abs(x) // abs(y)
            return q if (x >= 0) == (y >= 0) else -q

        a6, b4, u5, n0 = raw(a, 6), raw(b, 4), raw(u, 5), raw(n, 0)
        q = [tdiv(x << 4, y) / 64 for x, y in zip(a6, b4)]
        uq = [tdiv(x << 4, y) / 32 for x, y in zip(u5, b4)]
        nq = [tdiv(x << 5, y) for x, y in zip(n0, u5)]
        fq = [tdiv(x, y) / 64 for x, y in zip(a6, n0)]
        lq = [tdiv(x, -3) / 64 for x in a6]  # -3 takes A's fraction bits: the same quotient
        flt = (np.asarray(a, np.float32) / np.asarray(n, np.float32)).astype(np.float32)
        return [np.array(v) for v in (q, uq, nq, fq, lq)] + [flt]

    return hcl.create_schedule([A, B, U, N], algo), inputs, model


@kernel
def fixed_compared_with_float_literals():
    """A float literal beside a fixed-point value in a comparison is its exact value, as ap_fixed's
    comparison with a double is (it had been rounded down to the value's fraction bits first)."""
    X = hcl.placeholder((16,), "X", dtype=hcl.Fixed(16, 8))

    def algo(X):
        ge = hcl.compute((16,), lambda i: hcl.select(X[i] >= 0.3, 1, 0), "ge", dtype=hcl.Int(8))
        eq = hcl.compute((16,), lambda i: hcl.select(X[i] == 0.296875, 1, 0), "eq", dtype=hcl.Int(8))
        lt = hcl.compute((16,), lambda i: hcl.select(X[i] < -0.3, 1, 0), "lt", dtype=hcl.Int(8))
        ne = hcl.compute((16,), lambda i: hcl.select(X[i] != 0.3, 1, 0), "ne", dtype=hcl.Int(8))
        return ge, eq, lt, ne

    raw = np.array([75, 76, 77, -76, -77, -78, 0, 1, 255, -255, 128, -128, 300, -300, 76, 77])

    def inputs(rng):
        return [hcl.asarray(raw / 256, hcl.Fixed(16, 8))]

    def model(x):
        x = np.asarray(x, np.float64)
        return [np.array(c, np.int8) for c in (x >= 0.3, x == 0.296875, x < -0.3, x != 0.3)]

    return hcl.create_schedule([X], algo), inputs, model


@kernel
def select_with_float_literals():
    """hcl.select of an integer and a float literal passes the integer through unchanged (through
    float32, 2**31 - 1 had been stored as -2**31), in the reference and in the C++."""
    A = hcl.placeholder((8,), "A", dtype=hcl.Int(32))
    P = hcl.placeholder((8,), "P", dtype=hcl.UInt(8))

    def algo(A, P):
        kept = hcl.compute((8,), lambda i: hcl.select(A[i] > 0, A[i], 0.5), "kept", dtype=hcl.Int(32))
        wide = hcl.compute((8,), lambda i: hcl.select(A[i] > 0, 0.25, A[i]), "wide", dtype=hcl.Float(64))
        pix = hcl.compute((8,), lambda i: hcl.select(P[i] > 9, P[i], 2.5), "pix", dtype=hcl.Float(32))
        return kept, wide, pix

    a = np.array([2**31 - 1, -(2**31), 16777217, -16777217, 5, -5, 0, 123456789])

    def inputs(rng):
        return [a.astype(np.int32), rng.integers(0, 256, 8).astype(np.uint8)]

    def model(a, p):
        return [
            np.where(a > 0, a, 0).astype(np.int32),
            np.where(a > 0, 0.25, a.astype(np.float64)),
            np.where(p > 9, p, 2.5).astype(np.float32),
        ]

    return hcl.create_schedule([A, P], algo), inputs, model


@kernel
def struct_tensor_through_a_def_function():
    """A tensor of structs passed to a def_ function keeps its fields there (its parameter had been
    the packed integer: "Load of type UInt(24) has no attribute 'a'")."""
    stype = hcl.Struct({"a": hcl.Int(8), "b": hcl.UInt(4), "c": hcl.Fixed(12, 4)})
    A = hcl.placeholder((6,), "A", dtype=hcl.Int(8))
    C = hcl.placeholder((6,), "C", dtype=hcl.Fixed(12, 4))

    def algo(A, C):
        D = hcl.compute((6,), lambda i: (A[i], i + 3, C[i]), "D", dtype=stype)

        @hcl.def_()
        def bump(D, i):
            D[i].a = D[i].a + 1
            D[i].c = D[i].c * 2

        with hcl.for_(0, 6) as i:
            bump(D, i)
        return hcl.compute((6,), lambda i: hcl.cast(hcl.Int(32), D[i].c) + D[i].a * D[i].b, "E")

    def inputs(rng):
        return [
            hcl.asarray(rng.integers(-128, 128, 6), hcl.Int(8)),
            hcl.asarray(rng.integers(-1000, 1000, 6) / 16, hcl.Fixed(12, 4)),
        ]

    def model(a, c):
        bumped = (a.astype(np.int64) + 129) % 256 - 128
        doubled = np.floor(c * 2 * 16) % 4096
        doubled = np.where(doubled >= 2048, doubled - 4096, doubled) / 16
        return [np.trunc(doubled).astype(np.int64) + bumped * (np.arange(6) + 3)]

    return hcl.create_schedule([A, C], algo), inputs, model


@kernel
def pack_unpack_bitcast():
    A = hcl.placeholder((4, 16), "A", dtype=hcl.UInt(2))
    F = hcl.placeholder((4,), "F", dtype=hcl.Float())

    def algo(A, F):
        words = hcl.pack(A, axis=1, dtype=hcl.UInt(32), name="words")
        halves = hcl.unpack(words, axis=1, factor=2, dtype=hcl.Int(16), name="halves")
        bits = hcl.bitcast(F, hcl.UInt(32))
        back = hcl.compute(
            (4,), lambda i: hcl.bitcast(bits[i] ^ 0x80000000, hcl.Float()), "back", dtype=hcl.Float()
        )
        logic = hcl.compute(
            (4,),
            lambda i: (
                hcl.select(hcl.and_(), 1, 0)
                + hcl.select(hcl.or_(F[i] > 0), 2, 0)
                + hcl.select(hcl.or_(), 4, 0)
            ),
            "logic",
        )
        return words, halves, bits, back, logic

    def model(a, f):
        a = np.asarray(a, dtype=np.uint64)
        words = sum(a[:, k] << np.uint64(2 * k) for k in range(16)).astype(np.uint32)
        f32 = np.asarray(f, np.float32)
        return [
            words[:, None],
            words.view(np.int16).reshape(4, 2),
            f32.view(np.uint32),
            -f32,
            1 + 2 * (f32 > 0),
        ]

    return (
        hcl.create_schedule([A, F], algo),
        lambda rng: [rng.integers(0, 4, (4, 16)), rng.standard_normal(4)],
        model,
    )


PRINTED = "row 0 sum 6\nrow 1 sum 3\n"


@kernel
def constants_copies_and_prints():
    A = hcl.placeholder((2, 3), "A")

    @hcl.def_()
    def add_second_row(X, Y):
        with hcl.for_(0, 3) as j:
            Y[j] = Y[j] + X[1, j]

    def algo(A):
        table = hcl.const_tensor([[1, 2, 3], [4, 5, -6]], "table")
        gains = hcl.const_tensor([0.5, -1.25, 3.0], "gains", dtype=hcl.Fixed(8, 4))
        wide = hcl.const_tensor([2**150 + 3, -5, 7], "wide", dtype=hcl.Int(200))
        acc = hcl.copy([7, 8, 9], "acc")
        add_second_row(table, acc)  # a const array passed to a function that only reads it
        with hcl.for_(0, 2) as i:
            hcl.print((i, table[i, 0] + table[i, 1] + table[i, 2] + i * 0), "row %d sum %d\n")
        return hcl.compute(
            (2, 3),
            lambda i, j: (
                A[i, j] * table[i, j]
                + acc[j]
                + hcl.cast(hcl.Int(32), gains[j] * 4)
                + hcl.cast(hcl.Int(32), wide[j] >> 148)
            ),
            "B",
        )

    def model(a):
        table = np.array([[1, 2, 3], [4, 5, -6]])
        acc = np.array([7, 8, 9]) + table[1]
        return a * table + acc + np.array([2, -5, 12]) + np.array([4, -1, 0])

    return hcl.create_schedule([A], algo), None, model


@kernel
def large_constant_tables():
    """Tables of more than 100 elements, which MLIR prints in hex (the LLVM lowering had failed on
    them with "unsupported operand type(s) for &: 'str' and 'int'" in every odd width)."""
    n = 150
    values = np.arange(n) * 37 % 101 - 50
    A = hcl.placeholder((n,), "A")
    kinds = [
        ("narrow", hcl.Int(6)),
        ("odd", hcl.UInt(17)),
        ("bits", hcl.UInt(1)),
        ("wide", hcl.Int(100)),
        ("word", hcl.Int(32)),
        ("fixed", hcl.Fixed(12, 4)),
    ]

    def algo(A):
        tables = [
            hcl.const_tensor(values * 3 if name == "wide" else values, name, dtype=dtype)
            for name, dtype in kinds
        ]
        total = tables[0][0] * 0
        return hcl.compute(
            (n,),
            lambda i: (
                A[i] + sum((hcl.cast(hcl.Int(32), t[i] * (k + 1)) for k, t in enumerate(tables)), total)
            ),
            "B",
        )

    def model(a):
        narrow = (values + 32) % 64 - 32
        odd = values % (1 << 17)
        return a + narrow + 2 * odd + 3 * (values & 1) + 4 * (values * 3) + 5 * values + 6 * values

    return hcl.create_schedule([A], algo), None, model


# ---- the test -----------------------------------------------------------------------------------

# g++ takes tens of seconds on 2047-bit ap_int division: run with the slow tests
SLOW = {"wide_ints_to_2047_bits"}
KERNEL_NAMES = [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(KERNELS)]


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_numpy_llvm_and_hls_cpp_agree(name: str, tmp_path: Path) -> None:
    hcl.init()
    schedule, inputs_fn, model_fn = KERNELS[name]()
    check_numpy_llvm_cpp(schedule, name, tmp_path, inputs_fn, model_fn, seed=3)


def test_printed_text_in_c_simulation(tmp_path: Path) -> None:
    """The testbench binary csim built prints what hcl.print prints, then its own summary."""
    hcl.init()
    schedule, inputs_fn, model_fn = KERNELS["constants_copies_and_prints"]()
    layout = BuildLayout(tmp_path, "prints")
    config = ProjectConfig(name="prints", seed=3)
    manifest = compile_design(schedule, layout, "prints").design
    reference_design(layout, "prints", config, inputs_fn, model_fn)
    top = manifest.top
    emit_design_function(layout, config, top)
    assert run_csim(layout.hls_dir(top), layout.csim_json(top), project="prints").passed
    folder = layout.hls_dir(top)
    done = subprocess.run(
        [str(folder / "out" / f"tb_{top}"), str(folder / "data"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.startswith(PRINTED) and "HCLBUILD_CSIM " in done.stdout
    code = (folder / f"{top}.cpp").read_text()
    assert re.search(
        r'#ifndef __SYNTHESIS__\n +std::printf\("row %d sum %d\\n", \(int\)v\d+, \(int\)v\d+\);\n#endif', code
    )
