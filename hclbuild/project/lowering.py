"""ir/top.mlir -> llvm/units/<unit>.ll and llvm/manifest.json: the instrumented design the reference runs.

The reference task lowers before its run, in doit's worker (MLIR in-process is safe; only the
JIT-compiled code runs in a child). It is not the compile task's so that on two cores the
functions are emitted, from ir/<func>.mlir, while the design is lowered and run.

The lowered design is stored as its code units (hclbuild.code_units: one LLVM IR module per
function, split in MLIR), one file each, so an unchanged function keeps a byte-identical file.
llvm/manifest.json lists them with their digests and records the digest of the ir/top.mlir they
were lowered from: a rerun of the reference for another seed or model keeps them.
"""

from __future__ import annotations

import hashlib
from typing import Any

from mlir import ir

from hclbuild.atomic import write_if_changed
from hclbuild.code_units import CodeUnit
from hclbuild.compiler.context import new_context
from hclbuild.compiler.passes.bounds_check import bounds_check
from hclbuild.compiler.passes.checked_division import check_divisions
from hclbuild.compiler.passes.instrument import instrument_calls
from hclbuild.compiler.passes.stream_check import stream_checks
from hclbuild.compiler.to_llvm import lower_to_llvm_units
from hclbuild.errors import CompileError, ConfigError
from hclbuild.project.layout import BuildLayout
from hclbuild.project.manifest import LoweredDesign, json_text, read_lowered_design


def lower_design(layout: BuildLayout) -> LoweredDesign:
    """Instrument and lower ir/top.mlir (skipped when llvm/ already holds its lowering).

    Returns llvm/manifest.json: the probe sites, bounds checks, division checks and stream checks
    the instrumentation added, which the reference run decodes.
    """
    try:
        source = layout.top_mlir.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{layout.top_mlir}: unreadable ({exc.strerror}); run compile first") from None
    source_digest = hashlib.sha256(source).hexdigest()
    lowered = _lowered(layout, source_digest)
    if lowered is not None:
        return lowered
    units, checks = _instrument_and_lower(source.decode("utf-8"), layout)
    manifest = LoweredDesign(source_digest, _write_units(layout, units), **checks)
    write_if_changed(layout.llvm_manifest, json_text(manifest))
    return manifest


def read_llvm_units(layout: BuildLayout, manifest: LoweredDesign) -> list[CodeUnit]:
    """The code units llvm/manifest.json lists, read from llvm/units/ and checked against their digests."""
    units = []
    for entry in manifest.units:
        path = layout.llvm_units_dir / entry["file"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ConfigError(f"{path}: unreadable ({exc.strerror}); run the reference again") from None
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise ConfigError(f"{path}: changed since it was lowered; run the reference again")
        units.append(CodeUnit.from_json(entry, data.decode("utf-8")))
    return units


def _write_units(layout: BuildLayout, units: list[CodeUnit]) -> list[dict[str, Any]]:
    """Each unit to llvm/units/<file>.ll (unchanged files untouched), files of units gone removed."""
    entries: list[dict[str, Any]] = []
    files: set[str] = set()
    for unit in units:
        file = _unit_file(unit.name, files)
        files.add(file)
        write_if_changed(layout.llvm_units_dir / file, unit.text)
        entries.append(
            {**unit.to_json(file), "sha256": hashlib.sha256(unit.text.encode("utf-8")).hexdigest()}
        )
    for stale in layout.llvm_units_dir.glob("*.ll"):
        if stale.name not in files:
            stale.unlink(missing_ok=True)  # a unit of an earlier lowering (this folder holds only units)
    # the whole-module llvm/top.ll that hclbuild 0.1 wrote there, no longer read
    (layout.llvm_dir / "top.ll").unlink(missing_ok=True)
    return entries


def _unit_file(name: str, taken: set[str]) -> str:
    """A file name for a unit: its function's name (`<module>` for a module kept whole)."""
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") or "unit"
    file, k = f"{base}.ll", 0
    while file in taken:
        k += 1
        file = f"{base}_{k}.ll"
    return file


def _lowered(layout: BuildLayout, source_digest: str) -> LoweredDesign | None:
    """The manifest of an earlier lowering of these exact ir/top.mlir bytes whose units are intact."""
    try:
        manifest = read_lowered_design(layout)
        if manifest.source != source_digest:
            return None
        read_llvm_units(layout, manifest)
    except (ConfigError, KeyError, TypeError):
        return None
    return manifest


def _instrument_and_lower(text: str, layout: BuildLayout) -> tuple[list[CodeUnit], dict[str, list]]:
    """LLVM IR of the design with probes at every outlined call and checked accesses and divisions."""

    with new_context():
        # the design verified when compile wrote it; lower_to_llvm_ir verifies the instrumented copy
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as exc:
            first = str(exc).splitlines()[0]
            raise CompileError(f"{layout.top_mlir}: does not parse ({first}); run compile again") from None
        sites = instrument_calls(module)
        streams = stream_checks(module)
        checks = bounds_check(module)
        divisions = check_divisions(module)
        units = lower_to_llvm_units(module, run_once=True, in_place=True)  # parsed here for this alone
    return units, {
        "probes": [site.to_json() for site in sites],
        "bounds": [check.to_json() for check in checks],
        "divisions": [check.to_json() for check in divisions],
        "streams": [check.to_json() for check in streams],
    }
