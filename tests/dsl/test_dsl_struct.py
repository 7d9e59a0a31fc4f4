"""hcl.Struct on the LLVM backend against numpy: fields packed into one unsigned integer (first
field lowest), D[x].fa reads and writes, tuples building struct values, struct placeholders and
asarray through numpy structured arrays, scalars of struct type, nested structs; and the other
dtype names HeteroCL code uses (DType.fracs / .exponent, hcl.Index)."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import DTypeError

ABC = {"fa": hcl.Int(8), "fb": hcl.Fixed(13, 11), "fc": hcl.Float()}


def test_struct_type_is_packed_uint_with_typed_fields():
    stype = hcl.Struct({"fa": hcl.Int(8), "fb": "fixed13_11", "fc": hcl.Float()})
    assert stype.bits == 8 + 13 + 32 and stype.name == "uint53"
    assert stype.fa == hcl.Int(8) and stype["fb"] == hcl.Fixed(13, 11) and stype.fc == hcl.Float()
    assert stype.field("fc") == (21, hcl.Float())
    assert stype == hcl.Struct(ABC) and stype != hcl.UInt(53)
    assert repr(stype) == "Struct({'fa': Int(8), 'fb': Fixed(13, 11), 'fc': Float(32)})"
    with pytest.raises(DTypeError, match="'fd' is not a field"):
        stype["fd"]
    with pytest.raises(DTypeError, match="field name 'dtype'"):
        hcl.Struct({"dtype": hcl.Int(8)})
    with pytest.raises(DTypeError, match="more than 2047"):
        hcl.Struct({"a": hcl.Int(2000), "b": hcl.Int(100)})


def test_fields_from_a_tuple_and_back(run, rng):
    A = hcl.placeholder((8,), "A", dtype=hcl.Int(8))
    B = hcl.placeholder((8,), "B", dtype=hcl.Fixed(13, 11))
    C = hcl.placeholder((8,), "C", dtype=hcl.Float())

    def kernel(A, B, C):
        stype = hcl.Struct(ABC)
        D = hcl.compute(A.shape, lambda x: (A[x], B[x], C[x]), "D", dtype=stype)
        assert (
            D[0].fa.dtype == hcl.Int(8)
            and D[0].fb.dtype == hcl.Fixed(13, 11)
            and D[0].fc.dtype == hcl.Float()
        )
        return (
            hcl.compute(A.shape, lambda x: D[x].fa, "E", dtype=hcl.Int(8)),
            hcl.compute(A.shape, lambda x: D[x].fb, "F", dtype=hcl.Fixed(13, 11)),
            hcl.compute(A.shape, lambda x: D[x].fc, "G", dtype=hcl.Float()),
            D,
        )

    a = hcl.asarray(rng.integers(-128, 128, 8), hcl.Int(8))
    b = hcl.asarray(rng.uniform(-2, 2, 8), hcl.Fixed(13, 11))
    c = hcl.asarray(rng.standard_normal(8), hcl.Float())
    outs = [
        hcl.asarray(np.zeros(8), dt) for dt in (hcl.Int(8), hcl.Fixed(13, 11), hcl.Float(), hcl.Struct(ABC))
    ]
    hcl.build(hcl.create_schedule([A, B, C], kernel))(a, b, c, *outs)
    for got, want in zip(outs, (a, b, c)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    packed = outs[3].asnumpy()  # a structured array with one column per field
    assert packed.dtype.names == ("fa", "fb", "fc")
    np.testing.assert_array_equal(packed["fb"], b.asnumpy())
    raw_b = [int(v) & 0x1FFF for v in np.floor(b.asnumpy() * 2**11).astype(np.int64)]
    raw = [
        int(v) & 0xFF | (rb << 8) | (int(c.storage.view(np.uint32)[k]) << 21)
        for k, (v, rb) in enumerate(zip(a.asnumpy(), raw_b))
    ]
    assert [int(v) for v in outs[3].storage] == raw


def test_writing_one_field_keeps_the_others(run, rng):
    stype = hcl.Struct({"x": hcl.UInt(4), "y": hcl.Int(12), "z": hcl.UInt(8)})
    D = hcl.placeholder((6,), "D", dtype=stype)

    def kernel(D):
        with hcl.for_(0, 6) as i:
            D[i].y = D[i].y * 2 - 1
            D[i].x = i

    values = np.zeros(6, dtype=[("x", "u1"), ("y", "i2"), ("z", "u1")])
    values["x"] = rng.integers(0, 16, 6)
    values["y"] = rng.integers(-1000, 1000, 6)
    values["z"] = rng.integers(0, 256, 6)
    d = hcl.asarray(values, stype)
    hcl.build(hcl.create_schedule([D], kernel))(d)
    got = d.asnumpy()
    np.testing.assert_array_equal(got["x"], np.arange(6))
    np.testing.assert_array_equal(got["y"], stype.y.wrap_int(0) + (values["y"].astype(np.int64) * 2 - 1))
    np.testing.assert_array_equal(got["z"], values["z"])


def test_struct_scalar_from_an_int_and_a_nested_struct(run):
    def kernel():
        inner = hcl.Struct({"x": hcl.UInt(8), "y": hcl.UInt(8)})
        xy = hcl.scalar(0x1234, "xy", dtype=inner).v
        nested = hcl.scalar(0xABCDEF, "nested", dtype=hcl.Struct({"lo": hcl.UInt(8), "hi": inner})).v
        z = hcl.compute((5,), lambda i: 0, "z", dtype=hcl.UInt(32))
        z[0] = xy.y
        z[1] = xy.x
        z[2] = nested.hi.y
        z[3] = nested.hi.x
        z[4] = xy.x[0:4].reverse()
        assert xy.y.dtype == hcl.UInt(8) and nested.hi.dtype == inner
        return z

    out = run(hcl.create_schedule([], kernel))
    np.testing.assert_array_equal(out, [0x12, 0x34, 0xAB, 0xCD, 0b0010])


def test_struct_fields_as_bit_slice_bounds(run):
    # HeteroCL's test_struct_get_op: (B[x].binary)[0 : B[x].upper_idx]
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        stype = hcl.Struct({"binary": hcl.Int(8), "upper_idx": hcl.Int(8)})
        B = hcl.compute(A.shape, lambda x: (A[x], 5), "B", dtype=stype)
        return hcl.compute(A.shape, lambda x: (B[x].binary)[0 : B[x].upper_idx], "C")

    out = run(hcl.create_schedule([A], kernel), np.array([0b11010110, 0b10011100], dtype=np.int32))
    np.testing.assert_array_equal(out, [0b10110, 0b11100])


def test_asarray_of_packed_ints_and_errors():
    stype = hcl.Struct({"x": "uint8", "y": "int8"})
    got = hcl.asarray([0x1234, 0xFF80], stype).asnumpy()
    assert got.tolist() == [(0x34, 0x12), (0x80, -1)]
    with pytest.raises(DTypeError, match="structured array"):
        hcl.asarray(np.array([1.5, 2.5]), stype)
    with pytest.raises(DTypeError, match="no field 'y'"):
        hcl.asarray(np.zeros(2, dtype=[("x", "u1")]), stype)


def test_heterocl_dtype_attribute_names():
    assert (hcl.Float(32).fracs, hcl.Float(32).exponent, hcl.Float(32).bits) == (23, 8, 32)
    assert (hcl.Float(64).fracs, hcl.Float(64).exponent) == (52, 11)
    assert hcl.Fixed(12, 5).fracs == 5 and hcl.Int(7).fracs == 0
    with pytest.raises(AttributeError, match="no exponent"):
        hcl.Int(8).exponent
    with pytest.raises(DTypeError, match="fraction"):
        hcl.Fixed(1000, 800)  # at most 255 fraction bits, as in HeteroCL


def test_cast_to_index_reads_a_float_as_a_subscript(run):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        b = hcl.scalar(2, "b")
        first = hcl.cast(hcl.Index(), hcl.power(b.v, 1.0) + 0.5)  # 2.5 -> 2
        second = hcl.cast(hcl.Index(), hcl.exp(1.5))  # 4.48 -> 4
        return hcl.compute((1,), lambda _: A[first] + A[second], "B")

    out = run(hcl.create_schedule([A], kernel), np.arange(10, 70, 10, dtype=np.int32))
    assert out.tolist() == [30 + 50]
