"""HeteroCL's tutorials and samples that assert numbers, written here from what they check: the
numbers hclbuild gives, and where they differ from HeteroCL's recorded ones, why (docs/dsl.md,
"Fixed-point modes")."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hclbuild as hcl

# ---- tutorial 05: a tanh quantized into Fixed(10, 8) by a scheme ----------------------------------


def _quantized_tanh(dtype: hcl.DType, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tanh in float, then the same algorithm with its output quantized by a scheme to `dtype`."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((values.size,))

    def algorithm(A):
        return hcl.compute(A.shape, lambda x: hcl.tanh(A[x]), "B")

    in_float = hcl.asarray(values)
    exact = hcl.asarray(np.zeros(values.size))
    hcl.build(hcl.create_schedule([A], algorithm))(in_float, exact)
    scheme = hcl.create_scheme([A], algorithm)
    scheme.quantize(algorithm.B, dtype)
    quantized = hcl.asarray(np.zeros(values.size), dtype=dtype)
    hcl.build(hcl.create_schedule_from_scheme(scheme))(in_float, quantized)
    return exact.asnumpy(), quantized.asnumpy()


def test_tutorial_05s_truncation_toward_zero_is_ap_trn_zero() -> None:
    values = np.random.default_rng(5).random(10) * 2 - 1
    exact, quantized = _quantized_tanh(hcl.Fixed(10, 8, quantization="AP_TRN_ZERO"), values)
    assert (exact < 0).any() and (exact > 0).any()
    # the tutorial's own check
    assert np.array_equal(quantized, np.trunc(exact * 256) / 256)


def test_tutorial_05_with_the_default_mode_truncates_toward_minus_infinity() -> None:
    values = np.random.default_rng(5).random(10) * 2 - 1
    exact, quantized = _quantized_tanh(hcl.Fixed(10, 8), values)
    assert np.array_equal(quantized, np.floor(exact * 256) / 256)
    assert not np.array_equal(quantized, np.trunc(exact * 256) / 256)


# ---- the cordic sample: sin and cos by rotations in Fixed(b, b - 2), 60 steps --------------------

# the sample's table: atan(2**-k) written with 20 decimal places (so its last entries keep few digits,
# which shows in its numbers)
ATANS = [float(f"{math.atan(2.0**-k):.20f}") for k in range(63)]
GAIN = 0.6072529350088812561694
STEPS = 60


def _cordic_schedule(dtype: hcl.DType):
    hcl.init(dtype)
    X = hcl.placeholder((1,), "X")
    Y = hcl.placeholder((1,), "Y")
    C = hcl.placeholder((63,), "C")
    theta = hcl.placeholder((1,), "theta")
    N = hcl.placeholder((), "N", hcl.Int(32))

    def cordic(X, Y, C, theta, N):
        T = hcl.compute((1,), lambda _: 0, "T", X.dtype)
        angle = hcl.compute((1,), lambda _: 0, "angle", X.dtype)

        def rotate(step):
            with hcl.if_(theta[0] > angle[0]):
                T[0] = X[0] - (Y[0] >> step)
                Y[0] = Y[0] + (X[0] >> step)
                X[0] = T[0]
                angle[0] = angle[0] + C[step]
            with hcl.else_():
                T[0] = X[0] + (Y[0] >> step)
                Y[0] = Y[0] - (X[0] >> step)
                X[0] = T[0]
                angle[0] = angle[0] - C[step]

        hcl.mutate((N,), rotate, "calc")

    return hcl.create_schedule([X, Y, C, theta, N], cordic)


def _rms_errors(sin_cos: list[tuple[float, float]]) -> tuple[float, float]:
    """The sample's figure: the RMS of the relative errors in percent over 1..89 degrees."""
    sin_err = cos_err = 0.0
    for degrees, (s, c) in zip(range(1, 90), sin_cos):
        angle = math.radians(degrees)
        sin_err += (abs((math.sin(angle) - s) / math.sin(angle)) * 100) ** 2
        cos_err += (abs((math.cos(angle) - c) / math.cos(angle)) * 100) ** 2
    return math.sqrt(sin_err / 89), math.sqrt(cos_err / 89)


def _cordic_model(bits: int, shift_mask: int | None = None) -> tuple[float, float]:
    """The rotations on raw ints: a shift by the width or more leaves the sign (ap_fixed), or, with
    `shift_mask`, shifts by the amount masked (what an x86 build does with LLVM's undefined shift)."""
    frac = bits - 2

    def wrap(raw: int) -> int:
        raw &= (1 << bits) - 1
        return raw - (1 << bits) if raw >> (bits - 1) else raw

    def fixed(value: float) -> int:
        return wrap(math.floor(value * 2**frac))

    def shr(raw: int, amount: int) -> int:
        return raw >> (amount & shift_mask if shift_mask is not None else amount)

    table = [fixed(a) for a in ATANS]
    results = []
    for degrees in range(1, 90):
        theta, x, y, angle = fixed(math.radians(degrees)), fixed(GAIN), 0, 0
        for step in range(STEPS):
            sign = 1 if theta > angle else -1
            x, y = wrap(x - sign * shr(y, step)), wrap(y + sign * shr(x, step))
            angle = wrap(angle + sign * table[step])
        results.append((y / 2**frac, x / 2**frac))
    return _rms_errors(results)


def _cordic_run(bits: int, quantization: str = "AP_TRN") -> tuple[float, float]:
    dtype = hcl.Fixed(bits, bits - 2, quantization=quantization)
    f = hcl.build(_cordic_schedule(dtype))
    results = []
    for degrees in range(1, 90):
        X, Y = hcl.asarray(np.array([GAIN]), dtype), hcl.asarray(np.array([0]), dtype)
        C, theta = hcl.asarray(np.array(ATANS), dtype), hcl.asarray(np.array([math.radians(degrees)]), dtype)
        f(X, Y, C, theta, STEPS)
        results.append((float(Y.asnumpy()[0]), float(X.asnumpy()[0])))
    return _rms_errors(results)


@pytest.mark.parametrize("bits", [6, 14, 34, 62])
def test_cordic_gives_the_rotations_of_ap_fixed(bits: int) -> None:
    assert _cordic_run(bits) == _cordic_model(bits)


def test_cordic_matches_heterocls_numbers_from_34_bits_in_either_truncation() -> None:
    # HeteroCL's recorded RMS errors (percent) for Fixed(34, 32) and Fixed(62, 60)
    recorded = {34: (1.17000308922e-06, 1.21115462165e-06), 62: (8.20801944862e-15, 4.94154683061e-14)}
    for bits, want in recorded.items():
        for quantization in ("AP_TRN", "AP_TRN_ZERO"):
            assert np.allclose(_cordic_run(bits, quantization), want)


def test_heterocls_narrow_cordic_numbers_are_its_shifts_masked_to_5_bits() -> None:
    """Below 34 bits HeteroCL recorded large errors (Fixed(6, 4): 206.2% and 179.6%): its values sat in
    32-bit registers where x86 masks a shift amount to 5 bits; the 60 steps shift by up to 59."""
    assert np.allclose(_cordic_model(6, shift_mask=31), (206.226840616, 179.610387213))
    assert np.allclose(_cordic_model(10, shift_mask=31), (1190.25124092, 1197.15702025))
    assert _cordic_model(6) != _cordic_model(6, shift_mask=31)


def test_heterocls_float_to_fixed_host_conversion_is_ap_trn_zero() -> None:
    """HeteroCL's dtype tests model hcl.asarray into Fixed(b, b - 2) as int(value * 2**frac) wrapped."""
    values = np.random.default_rng(7).random(100) * 10 - 5
    for bits in range(2, 66, 4):
        dtype = hcl.Fixed(bits, bits - 2, quantization="AP_TRN_ZERO")
        scale = 2 ** (bits - 2)
        raw = [int(v * scale) % (1 << bits) for v in values]
        want = [(r - (1 << bits) if r >> (bits - 1) else r) / scale for r in raw]
        assert hcl.asarray(values, dtype=dtype).asnumpy().tolist() == want


# ---- tutorial 04: loop handles of one schedule used on the next ------------------------------------


def test_tutorial_04s_split_handles_reorder_a_new_schedule(run) -> None:
    A = hcl.placeholder((10, 100), "A")

    def two_stage(A):
        B = hcl.compute(A.shape, lambda x, y: A[x, y] + 1, "B")
        return hcl.compute(A.shape, lambda x, y: B[x, y] + 1, "C")

    s = hcl.create_schedule([A], two_stage)
    x_out, x_in = s[two_stage.B].split(two_stage.B.axis[0], 5)
    s = hcl.create_schedule([A], two_stage)  # a new schedule: the split is not in it
    s[two_stage.B].reorder(two_stage.B.axis[1], x_out, x_in)
    nests = hcl.get_affine_loop_nests(s.top_func)
    assert [loop["name"] for loop in nests[0]] == ["y", "x.outer", "x.inner"]
    assert [loop["name"] for loop in nests[1]] == ["x", "y"]
    a = np.arange(1000, dtype=np.int32).reshape(10, 100)
    np.testing.assert_array_equal(run(s, a), a + 2)
    # and a fuse's handle likewise
    fused = hcl.create_schedule([A], two_stage)
    handle = fused[two_stage.C].fuse(two_stage.C.axis[0], two_stage.C.axis[1])
    again = hcl.create_schedule([A], two_stage)
    again[two_stage.C].pipeline(handle)
    assert [loop["name"] for loop in hcl.get_affine_loop_nests(again.top_func)[1]] == ["x_y_fused"]
