"""Golden vectors: the inputs and outputs of one function call, as raw little-endian containers.

A vector folder (`build/<name>/golden/<func>/`, and `hls/<func>/data/`, whose files link to those) holds

    in_<arg>.bin    every argument before the call, in argument order
    out_<arg>.bin   every array argument after the call (and `out_return.bin` for a result)
    manifest.json   one entry per file, in the function's argument order:
                    name, file, shape, dtype (DSL name), bits, container_bytes, count, c_type, sha256

Each element takes `container_bytes` (1, 2, 4 or 8 bytes, or a multiple of 16) bytes, little-endian.
Int/UInt/Fixed/UFixed elements hold their raw bits zero-extended in the low `bits` bits
(containers of 16 bytes and more: 64-bit words, lowest first); floats are IEEE values. Bytes depend
only on the values, so unchanged data rewrites nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hclbuild.atomic import holds_bytes, link_if_changed, write_if_changed
from hclbuild.compiler.hls_types import c_type
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import APIError, CsimError, DTypeError

MANIFEST = "manifest.json"
FORMAT = "hclbuild-golden"
VERSION = 1
KINDS = ("in", "out")
RETURN_NAME = "return"  # a C keyword, so it never collides with an argument name

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class GoldenVectors:
    """The vectors of one folder: name -> (raw-bit storage array, DType), in argument order."""

    inputs: dict[str, tuple[np.ndarray, DType]]
    outputs: dict[str, tuple[np.ndarray, DType]]


@dataclass(frozen=True)
class StoredVector:
    """One vector of a golden folder, left unread: its file, its manifest entry, shape and DType.

    Lets the reference run put a function's golden vectors into its HLS folder's data/ as links to
    the same files (link_golden): decoding each file and encoding it again would write the same bytes."""

    path: Path
    entry: dict
    shape: tuple[int, ...]
    dtype: DType


def vector_file(kind: str, name: str) -> str:
    """File name of one vector: `in_<name>.bin` or `out_<name>.bin`."""
    return f"{kind}_{name}.bin"


def container_bytes(dtype: DType) -> int:
    """Bytes of one element's container in a vector file."""
    return dtype.storage_bits // 8


def encode_vector(array: np.ndarray, dtype: DType, name: str = "vector") -> bytes:
    """The file bytes of one raw-bit storage array: little-endian, unused high bits cleared."""
    dt = parse_dtype(dtype)
    arr = np.asarray(array)
    store = dt.np_storage
    if dt.is_float or dt.is_index:
        if arr.dtype.kind != store.kind or arr.dtype.itemsize != store.itemsize:
            raise DTypeError(f"{name}: expected a {store} array for {dt.name}, got {arr.dtype}")
        return np.ascontiguousarray(arr, dtype=store.newbyteorder("<")).tobytes()
    width = container_bytes(dt)
    if width >= 16:
        if arr.dtype.kind != "V" or arr.dtype.itemsize != width:
            raise DTypeError(
                f"{name}: expected a {width}-byte void container array for {dt.name} "
                f"(see hclbuild.dsl.storage.to_storage), got {arr.dtype}"
            )
        words = np.ascontiguousarray(arr).view(np.uint64).reshape(-1, dt.words).copy()
        full, rest = divmod(dt.bits, 64)
        if rest:
            words[:, full] &= np.uint64((1 << rest) - 1)
        words[:, full + (1 if rest else 0) :] = 0
        return words.astype("<u8").tobytes()
    # the raw bits do not depend on the container's signedness, so accept either
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize != width:
        raise DTypeError(
            f"{name}: expected a {store} container array for {dt.name} "
            f"(see hclbuild.dsl.storage.to_storage), got {arr.dtype}"
        )
    raw = np.ascontiguousarray(arr).view(np.dtype(f"u{width}"))
    if dt.bits < width * 8:
        # a sign-extended container would write bits the convention says are zero
        raw = raw & np.array((1 << dt.bits) - 1, dtype=raw.dtype)
    return raw.astype(f"<u{width}").tobytes()


def decode_vector(data: bytes, dtype: DType, shape: tuple[int, ...]) -> np.ndarray:
    """The raw-bit storage array (native byte order) of one vector file's bytes."""
    dt = parse_dtype(dtype)
    store = dt.np_storage
    if store.kind == "V":
        pairs = np.frombuffer(data, dtype="<u8").astype(np.uint64)
        return pairs.view(store).reshape(shape).copy()
    return np.frombuffer(data, dtype=store.newbyteorder("<")).astype(store).reshape(shape)


def _entry(kind: str, name: str, array: np.ndarray, dtype: DType, payload: bytes) -> dict:
    return {
        "name": name,
        "file": vector_file(kind, name),
        "shape": [int(n) for n in np.shape(array)],
        "dtype": dtype.name,
        "bits": dtype.bits,
        "container_bytes": container_bytes(dtype),
        "count": int(np.size(array)),
        "c_type": c_type(dtype),
        "sha256": hashlib.sha256(payload).hexdigest(),
    }


def manifest_text(document: dict) -> str:
    """A manifest as JSON with one vector entry per line.

    json.dumps with indent runs in Python and took most of a 200-function reference run's
    manifest writing; each line here is a plain json.dumps, which runs in C.
    """
    fields = []
    for key, value in document.items():
        if key in KINDS and value:
            entries = ",\n".join(f"    {json.dumps(entry)}" for entry in value)
            fields.append(f"  {json.dumps(key)}: [\n{entries}\n  ]")
        else:
            fields.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def read_manifest(directory: str | Path) -> dict:
    """The parsed manifest.json of a vector folder."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CsimError(f"{path}: golden vector manifest not found") from None
    except (OSError, ValueError) as exc:
        raise CsimError(f"{path}: unreadable golden vector manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CsimError(f"{path}: not an hclbuild golden vector manifest")
    if manifest.get("version") != VERSION:
        raise CsimError(f"{path}: manifest version {manifest.get('version')!r}, expected {VERSION}")
    return manifest


def _encode_all(
    folder: Path, kind: str, arrays: Mapping[str, tuple[np.ndarray, DType | str]]
) -> list[tuple[Path, bytes, dict]]:
    encoded = []
    for name, (array, dtype_spec) in arrays.items():
        if not _NAME.match(name):
            raise APIError(f"golden vector name {name!r} is not a C identifier")
        dtype = parse_dtype(dtype_spec)
        path = folder / vector_file(kind, name)
        payload = encode_vector(array, dtype, name=str(path))
        encoded.append((path, payload, _entry(kind, name, np.asarray(array), dtype, payload)))
    return encoded


def _renamed_all(
    folder: Path, kind: str, stored: Mapping[str, StoredVector]
) -> list[tuple[Path, Path, dict]]:
    placed = []
    for name, vector in stored.items():
        if not _NAME.match(name):
            raise APIError(f"golden vector name {name!r} is not a C identifier")
        file = vector_file(kind, name)
        placed.append((folder / file, vector.path, {**vector.entry, "name": name, "file": file}))
    return placed


def _write(
    folder: Path,
    placed: Mapping[str, Sequence[tuple[Path, bytes | Path, dict]]],
    same_bytes: dict[str, Path] | None = None,
    manifest_like: Path | None = None,
) -> list[Path]:
    """Put each kind's vector files in place (bytes written, or a Path linked), drop stale ones,
    then write the manifest once. Everything is prepared first, so a bad vector changes nothing.

    same_bytes (sha256 -> a file holding those bytes, filled as files are written) turns a vector
    whose bytes another file of the same run already holds into a hard link to it; a manifest
    with manifest_like's bytes is linked to it. A new file costs an inode, a link does not."""
    previous: dict = {}
    if any(kind not in placed for kind in KINDS):  # a kind not given keeps its entries
        with contextlib.suppress(CsimError):
            previous = read_manifest(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    document: dict = {"format": FORMAT, "version": VERSION, "byte_order": "little"}
    for kind in KINDS:
        if kind not in placed:
            document[kind] = previous.get(kind, [])
            continue
        for path, content, entry in placed[kind]:
            if isinstance(content, Path):
                link_if_changed(content, path)
            else:
                earlier = path if same_bytes is None else same_bytes.setdefault(entry["sha256"], path)
                if earlier == path:
                    write_if_changed(path, content)
                else:
                    link_if_changed(earlier, path)
            paths.append(path)
        keep = {path.name for path, _, _ in placed[kind]}
        for stale in folder.glob(f"{kind}_*.bin"):
            if stale.name not in keep:
                stale.unlink()
        document[kind] = [entry for _, _, entry in placed[kind]]
    manifest_path = folder / MANIFEST
    text = manifest_text(document).encode("utf-8")
    if manifest_like is not None and holds_bytes(manifest_like, text):
        link_if_changed(manifest_like, manifest_path)
    else:
        write_if_changed(manifest_path, text)
    return [*paths, manifest_path]


def write_vectors(
    directory: str | Path, arrays: Mapping[str, tuple[np.ndarray, DType | str]], kind: str = "in"
) -> list[Path]:
    """Write `<kind>_<name>.bin` for each array (mapping order = argument order) and update manifest.json.

    Arrays are raw-bit storage arrays (`hclbuild.dsl.storage.to_storage`). Files of the same kind
    that are no longer listed are removed. Returns the vector files, then the manifest.
    """
    if kind not in KINDS:
        raise APIError(f"golden vector kind must be 'in' or 'out', got {kind!r}")
    folder = Path(directory)
    return _write(folder, {kind: _encode_all(folder, kind, arrays)})


def write_golden(
    directory: str | Path,
    inputs: Mapping[str, tuple[np.ndarray, DType | str]],
    outputs: Mapping[str, tuple[np.ndarray, DType | str]],
    same_bytes: dict[str, Path] | None = None,
) -> list[Path]:
    """Write both kinds with a single manifest update; returns the vector files, then the manifest.

    Give one `same_bytes` dict to every write_golden of a run (the reference's, one folder per
    function): a vector with the bytes of one written before becomes a hard link to that file.
    In a chain of stages, one stage's output is the next one's input, so most vectors are."""
    folder = Path(directory)
    return _write(
        folder,
        {"in": _encode_all(folder, "in", inputs), "out": _encode_all(folder, "out", outputs)},
        same_bytes=same_bytes,
    )


def link_golden(
    directory: str | Path, inputs: Mapping[str, StoredVector], outputs: Mapping[str, StoredVector]
) -> list[Path]:
    """write_golden of vectors another folder holds, under the names given (argument order): each
    file becomes a hard link to the stored one (a copy where links fail), the manifest is rewritten
    with the new names. The bytes are those write_golden would write from the decoded arrays."""
    folder = Path(directory)
    sources = {vector.path.parent for vector in (*inputs.values(), *outputs.values())}
    # without renames the manifest is the stored folder's, byte for byte: link it too
    manifest_like = sources.pop() / MANIFEST if len(sources) == 1 else None
    return _write(
        folder,
        {"in": _renamed_all(folder, "in", inputs), "out": _renamed_all(folder, "out", outputs)},
        manifest_like=manifest_like,
    )


def _check_size(path: Path, size: int, entry: dict, dtype: DType) -> None:
    expected = int(entry["count"]) * container_bytes(dtype)
    if size != expected:
        raise CsimError(
            f"{path}: {size} bytes, manifest says {entry['count']} x {container_bytes(dtype)} = {expected}"
        )


def _read_kind(folder: Path, entries: list) -> dict[str, tuple[np.ndarray, DType]]:
    out: dict[str, tuple[np.ndarray, DType]] = {}
    for entry in entries:
        dtype = parse_dtype(entry["dtype"])
        shape = tuple(int(n) for n in entry["shape"])
        path = folder / entry["file"]
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CsimError(f"{path}: golden vector file not found") from None
        _check_size(path, len(data), entry, dtype)
        out[entry["name"]] = (decode_vector(data, dtype, shape), dtype)
    return out


def stored_vectors(directory: str | Path) -> tuple[dict[str, StoredVector], dict[str, StoredVector]]:
    """(inputs, outputs) of a folder's manifest.json as StoredVectors, each file's size checked
    against its entry, no file read."""
    folder = Path(directory)
    manifest = read_manifest(folder)
    kinds = []
    for kind in KINDS:
        vectors: dict[str, StoredVector] = {}
        for entry in manifest.get(kind, []):
            dtype = parse_dtype(entry["dtype"])
            path = folder / entry["file"]
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                raise CsimError(f"{path}: golden vector file not found") from None
            _check_size(path, size, entry, dtype)
            vectors[entry["name"]] = StoredVector(path, entry, tuple(int(n) for n in entry["shape"]), dtype)
        kinds.append(vectors)
    return kinds[0], kinds[1]


def read_vectors(directory: str | Path) -> GoldenVectors:
    """Read every vector listed in a folder's manifest.json back as raw-bit storage arrays."""
    folder = Path(directory)
    manifest = read_manifest(folder)
    return GoldenVectors(
        inputs=_read_kind(folder, manifest.get("in", [])), outputs=_read_kind(folder, manifest.get("out", []))
    )
