"""Golden vector files and atomic writes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from hclbuild import atomic
from hclbuild.atomic import link_if_changed, write_bytes_atomic, write_if_changed, write_text_atomic
from hclbuild.dsl.storage import to_storage
from hclbuild.dsl.types import Fixed, Float, Int, UFixed, UInt
from hclbuild.errors import APIError, CsimError, DTypeError
from hclbuild.project.golden import (
    link_golden,
    manifest_text,
    read_vectors,
    stored_vectors,
    write_golden,
    write_vectors,
)

# ---- atomic writes ------------------------------------------------------------------------------


def test_write_bytes_atomic_creates_parents_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.bin"
    write_bytes_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.bin"]


def test_write_text_atomic_replaces(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    write_text_atomic(target, "old\n")
    write_text_atomic(target, "new ✓\n")
    assert target.read_text(encoding="utf-8") == "new ✓\n"


def test_atomic_file_mode_follows_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "f", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o644


def test_failed_write_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_write_if_changed_keeps_mtime_for_same_bytes(tmp_path: Path) -> None:
    target = tmp_path / "f.cpp"
    assert write_if_changed(target, "int x;\n") is True
    os.utime(target, (1_000_000_000, 1_000_000_000))
    assert write_if_changed(target, "int x;\n") is False
    assert write_if_changed(target, b"int x;\n") is False
    assert target.stat().st_mtime == 1_000_000_000
    assert write_if_changed(target, "int y;\n") is True
    assert target.stat().st_mtime != 1_000_000_000
    assert target.read_text() == "int y;\n"


# ---- golden vectors -----------------------------------------------------------------------------

DTYPES = {
    "int8": (Int(8), [-128, -1, 0, 127]),
    "uint4": (UInt(4), [0, 1, 9, 15]),
    "int12": (Int(12), [-2048, -1, 0, 2047]),
    "int32": (Int(32), [-(2**31), -1, 0, 2**31 - 1]),
    "uint64": (UInt(64), [0, 1, 2**63, 2**64 - 1]),
    "int100": (Int(100), [-(2**99), -1, 0, 2**99 - 1]),
    "uint128": (UInt(128), [0, 1, 2**64, 2**128 - 1]),
    "fixed16_8": (Fixed(16, 8), [-128.0, -0.00390625, 1.5, 127.99609375]),
    "ufixed10_4": (UFixed(10, 4), [0.0, 0.0625, 12.5, 63.9375]),
    "float32": (Float(32), [-1.5, 0.0, 3.25, float("inf")]),
    "float64": (Float(64), [-1e300, 0.0, 1 / 3, float("nan")]),
}


@pytest.mark.parametrize("name", DTYPES)
def test_round_trip(tmp_path: Path, name: str) -> None:
    dtype, values = DTYPES[name]
    source = np.array(values, dtype=object if dtype.bits > 64 and not dtype.is_float else None)
    if dtype.is_fixed:
        source = np.array(values, dtype=np.float64)
    array = to_storage(source, dtype).reshape(2, 2)
    write_vectors(tmp_path, {"x": (array, dtype)}, kind="out")
    vectors = read_vectors(tmp_path)
    assert vectors.inputs == {}
    got, got_dtype = vectors.outputs["x"]
    assert got_dtype == dtype
    assert got.shape == (2, 2) and got.dtype == dtype.np_storage
    assert got.tobytes() == array.tobytes()


def test_bytes_are_little_endian_zero_extended_containers(tmp_path: Path) -> None:
    t12, t100 = Int(12), Int(100)
    write_vectors(
        tmp_path,
        {
            "a": (to_storage(np.array([-1, 5]), t12), t12),
            "w": (to_storage(np.array([-1], dtype=object), t100), t100),
        },
    )
    assert (tmp_path / "in_a.bin").read_bytes() == bytes([0xFF, 0x0F, 0x05, 0x00])
    # low 64 bits first, then the high 36 bits of the 100
    assert (tmp_path / "in_w.bin").read_bytes() == b"\xff" * 8 + bytes(
        [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 0, 0]
    )


def test_sign_extended_containers_are_normalized(tmp_path: Path) -> None:
    t12 = Int(12)
    write_vectors(tmp_path, {"a": (np.array([-1], dtype=np.int16), t12)})
    assert (tmp_path / "in_a.bin").read_bytes() == bytes([0xFF, 0x0F])


def test_manifest_lists_vectors_in_argument_order(tmp_path: Path) -> None:
    t16, tf = Fixed(16, 8), Float(32)
    write_golden(
        tmp_path,
        {"b": (to_storage(np.zeros((2, 3)), t16), t16), "a": (np.ones(4, np.float32), tf)},
        {"b": (to_storage(np.ones((2, 3)), t16), t16)},
    )
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format"] == "hclbuild-golden" and manifest["version"] == 1
    assert manifest["byte_order"] == "little"
    assert [e["name"] for e in manifest["in"]] == ["b", "a"]
    first = dict(manifest["in"][0])
    assert len(first.pop("sha256")) == 64
    assert first == {
        "name": "b",
        "file": "in_b.bin",
        "shape": [2, 3],
        "dtype": "fixed16_8",
        "bits": 16,
        "container_bytes": 2,
        "count": 6,
        "c_type": "ap_fixed<16, 8>",
    }
    assert manifest["in"][1]["c_type"] == "float"
    assert [e["file"] for e in manifest["out"]] == ["out_b.bin"]


def test_writing_is_deterministic_and_keeps_mtimes(tmp_path: Path) -> None:
    t = Int(32)
    arrays = {"a": (np.arange(5, dtype=np.int32), t)}
    paths = write_golden(tmp_path, arrays, arrays)
    snapshot = {p: p.read_bytes() for p in paths}
    for p in paths:
        os.utime(p, (1_000_000_000, 1_000_000_000))
    assert write_golden(tmp_path, arrays, arrays) == paths
    assert {p: p.read_bytes() for p in paths} == snapshot
    assert all(p.stat().st_mtime == 1_000_000_000 for p in paths)


def test_writing_one_kind_keeps_the_other(tmp_path: Path) -> None:
    t = Int(32)
    write_vectors(tmp_path, {"a": (np.arange(3, dtype=np.int32), t)}, kind="in")
    write_vectors(tmp_path, {"a": (np.arange(3, dtype=np.int32) * 2, t)}, kind="out")
    vectors = read_vectors(tmp_path)
    assert list(vectors.inputs) == ["a"] and list(vectors.outputs) == ["a"]
    assert vectors.outputs["a"][0].tolist() == [0, 2, 4]


def test_stale_vectors_are_removed(tmp_path: Path) -> None:
    t = Int(8)
    write_vectors(tmp_path, {"old": (np.zeros(2, np.int8), t), "a": (np.zeros(2, np.int8), t)})
    write_vectors(tmp_path, {"a": (np.zeros(2, np.int8), t)})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in_a.bin", "manifest.json"]


def test_scalar_vector(tmp_path: Path) -> None:
    t = Int(32)
    write_vectors(tmp_path, {"k": (np.array(-7, dtype=np.int32), t)})
    value, _ = read_vectors(tmp_path).inputs["k"]
    assert value.shape == () and int(value) == -7


def test_wrong_container_is_dtype_error(tmp_path: Path) -> None:
    with pytest.raises(DTypeError, match=r"in_a\.bin: expected a int16 container array for int12"):
        write_vectors(tmp_path, {"a": (np.zeros(3, np.int64), Int(12))})
    with pytest.raises(DTypeError, match=r"in_f\.bin: expected a float32 array for float32, got float64"):
        write_vectors(tmp_path, {"f": (np.zeros(3), Float(32))})
    assert not (tmp_path / "manifest.json").exists()


def test_bad_kind_and_name(tmp_path: Path) -> None:
    with pytest.raises(APIError, match=r"^golden vector kind must be 'in' or 'out', got 'inout'$"):
        write_vectors(tmp_path, {}, kind="inout")
    with pytest.raises(APIError, match=r"^golden vector name '\.\./a' is not a C identifier$"):
        write_vectors(tmp_path, {"../a": (np.zeros(1, np.int8), Int(8))})


def test_truncated_file_is_detected(tmp_path: Path) -> None:
    t = Int(32)
    write_vectors(tmp_path, {"a": (np.arange(4, dtype=np.int32), t)})
    (tmp_path / "in_a.bin").write_bytes(b"\x00" * 12)
    with pytest.raises(CsimError) as info:
        read_vectors(tmp_path)
    assert str(info.value) == f"{tmp_path / 'in_a.bin'}: 12 bytes, manifest says 4 x 4 = 16"


def test_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(CsimError) as info:
        read_vectors(tmp_path)
    assert str(info.value) == f"{tmp_path / 'manifest.json'}: golden vector manifest not found"


# ---- linked vector folders (hls/<func>/data/ from golden/<func>/) ---------------------------------


def test_link_if_changed_links_keeps_and_replaces(tmp_path: Path) -> None:
    source, target = tmp_path / "golden.bin", tmp_path / "data" / "golden.bin"
    source.write_bytes(b"1234")
    target.parent.mkdir()
    assert link_if_changed(source, target) is True
    assert target.stat().st_ino == source.stat().st_ino and target.read_bytes() == b"1234"
    assert link_if_changed(source, target) is False  # already the same file
    # equal bytes in another file stay, mtime and all
    target.unlink()
    target.write_bytes(b"1234")
    os.utime(target, ns=(10**18, 10**18))
    assert link_if_changed(source, target) is False and target.stat().st_mtime_ns == 10**18
    # a rewritten source (write_bytes_atomic: a new file) is linked again; the old link is replaced,
    # never written through
    assert link_if_changed(source, target) is False
    write_bytes_atomic(source, b"5678")
    assert link_if_changed(source, target) is True
    assert target.read_bytes() == b"5678" and target.stat().st_ino == source.stat().st_ino
    assert sorted(p.name for p in target.parent.iterdir()) == ["golden.bin"]


def test_link_if_changed_copies_where_links_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, target = tmp_path / "a.bin", tmp_path / "b.bin"
    source.write_bytes(b"abc")

    def refuse(*_args, **_kwargs):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(atomic.os, "link", refuse)
    assert link_if_changed(source, target) is True
    assert target.read_bytes() == b"abc" and target.stat().st_ino != source.stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]


def test_linked_folder_equals_a_written_one_under_new_names(tmp_path: Path) -> None:
    t = Fixed(12, 4)
    a = to_storage(np.array([[1.5, -2.25], [3.0, 0.0625]]), t)
    golden, linked, written = tmp_path / "golden", tmp_path / "linked", tmp_path / "written"
    write_golden(golden, {"main": (a, t), "k": (np.int32(7), Int(32))}, {"main": (a + 1, t)})
    inputs, outputs = stored_vectors(golden)
    assert [(v.shape, v.dtype) for v in inputs.values()] == [((2, 2), t), ((), Int(32))]
    # the C side renames `main` (C++'s main is the testbench's)
    paths = link_golden(linked, {"main_": inputs["main"], "k": inputs["k"]}, {"main_": outputs["main"]})
    assert [p.name for p in paths] == ["in_main_.bin", "in_k.bin", "out_main_.bin", "manifest.json"]
    write_golden(written, {"main_": (a, t), "k": (np.int32(7), Int(32))}, {"main_": (a + 1, t)})
    for name in ("in_main_.bin", "in_k.bin", "out_main_.bin", "manifest.json"):
        assert (linked / name).read_bytes() == (written / name).read_bytes(), name
    assert (linked / "in_main_.bin").stat().st_ino == (golden / "in_main.bin").stat().st_ino
    back = read_vectors(linked)
    assert np.array_equal(back.outputs["main_"][0], a + 1)


def test_stored_vectors_check_sizes(tmp_path: Path) -> None:
    write_vectors(tmp_path, {"a": (np.arange(4, dtype=np.int32), Int(32))})
    (tmp_path / "in_a.bin").write_bytes(b"\x00" * 12)
    with pytest.raises(CsimError) as info:
        stored_vectors(tmp_path)
    assert str(info.value) == f"{tmp_path / 'in_a.bin'}: 12 bytes, manifest says 4 x 4 = 16"
    (tmp_path / "in_a.bin").unlink()
    with pytest.raises(CsimError) as info:
        stored_vectors(tmp_path)
    assert str(info.value) == f"{tmp_path / 'in_a.bin'}: golden vector file not found"


def test_golden_and_emitted_data_are_named_after_the_c_names_and_linked(tmp_path: Path) -> None:
    import hclbuild as hcl
    from hclbuild.project.config import ProjectConfig
    from hclbuild.project.flow import compile_design, emit_design_function
    from hclbuild.project.layout import BuildLayout
    from hclbuild.project.reference import reference_design

    hcl.init(hcl.Int(16))
    A = hcl.placeholder((4,), "main")  # C++'s main is the testbench's: the C argument is renamed

    def kernel(main):
        return hcl.compute((4,), lambda i: main[i] * 3, "B")

    s = hcl.create_schedule([A], kernel)
    s.outline(kernel.B)
    layout = BuildLayout(tmp_path, "linked")
    config = ProjectConfig(name="linked", seed=3)
    compile_design(s, layout, "linked")
    reference_design(layout, "linked", config)
    emit_design_function(layout, config, "Stage_B")
    golden, data = layout.golden_dir("Stage_B"), layout.hls_data_dir("Stage_B")
    names = [entry["name"] for entry in json.loads((data / "manifest.json").read_text())["in"]]
    # golden/ is named after the C names too: an argument may be named "A A" or "../x"
    assert names[0] != "main" and names == list(stored_vectors(data)[0]) == list(stored_vectors(golden)[0])
    renamed = data / f"in_{names[0]}.bin"
    assert renamed.stat().st_ino == (golden / f"in_{names[0]}.bin").stat().st_ino
    assert not (golden / "in_main.bin").exists()
    a = read_vectors(golden).inputs[names[0]][0]
    assert np.array_equal(read_vectors(data).outputs["B"][0], a * 3)


def test_a_run_links_vectors_whose_bytes_it_wrote_before(tmp_path: Path) -> None:
    t = Int(32)
    a, b = np.arange(4, dtype=np.int32), np.arange(4, 8, dtype=np.int32)
    same: dict[str, Path] = {}
    write_golden(tmp_path / "f", {"x": (a, t)}, {"x": (b, t)}, same)
    write_golden(tmp_path / "g", {"y": (b, t)}, {"y": (b, t)}, same)  # f's output is g's input
    inode = (tmp_path / "f" / "out_x.bin").stat().st_ino
    assert {(tmp_path / "g" / name).stat().st_ino for name in ("in_y.bin", "out_y.bin")} == {inode}
    assert (tmp_path / "f" / "in_x.bin").stat().st_ino != inode
    # the next run with new values: each file gets its own bytes, the others keep theirs
    same = {}
    write_golden(tmp_path / "f", {"x": (a, t)}, {"x": (a + 100, t)}, same)
    write_golden(tmp_path / "g", {"y": (b, t)}, {"y": (b * 2, t)}, same)
    assert np.array_equal(read_vectors(tmp_path / "f").outputs["x"][0], a + 100)
    assert np.array_equal(read_vectors(tmp_path / "g").inputs["y"][0], b)
    assert np.array_equal(read_vectors(tmp_path / "g").outputs["y"][0], b * 2)
    assert (tmp_path / "g" / "in_y.bin").stat().st_ino == inode  # unchanged bytes: kept as they were


def test_manifest_text_is_the_json_of_the_document_one_vector_a_line(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = Int(32)
    write_golden(tmp_path, {"a": (a, t), "k": (np.int32(7), t)}, {})
    text = (tmp_path / "manifest.json").read_text()
    document = json.loads(text)
    assert manifest_text(document) == text
    assert [e["name"] for e in document["in"]] == ["a", "k"] and document["out"] == []
    lines = text.splitlines()
    assert lines[:4] == [
        "{",
        '  "format": "hclbuild-golden",',
        '  "version": 1,',
        '  "byte_order": "little",',
    ]
    assert lines[4] == '  "in": [' and lines[7:] == ["  ],", '  "out": []', "}"]
    assert json.loads(lines[5].strip().rstrip(",")) == document["in"][0]
