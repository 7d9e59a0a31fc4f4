"""ir/top.mlir -> llvm/top.ll and llvm/manifest.json: the instrumented design the reference runs.

The reference task lowers before its run, in doit's worker (MLIR in-process is safe; only the
JIT-compiled code runs in a child). It is not the compile task's so that on two cores the
functions are emitted, from ir/<func>.mlir, while the design is lowered and run.

llvm/manifest.json records the digest of the ir/top.mlir it was lowered from and of the
top.ll it wrote: a rerun of the reference for another seed or model keeps both.
"""

from __future__ import annotations

import hashlib

from mlir import ir

from hclbuild.atomic import write_if_changed
from hclbuild.compiler.context import new_context
from hclbuild.compiler.passes.bounds_check import bounds_check
from hclbuild.compiler.passes.checked_division import check_divisions
from hclbuild.compiler.passes.instrument import instrument_calls
from hclbuild.compiler.passes.stream_check import stream_checks
from hclbuild.compiler.to_llvm import lower_to_llvm_ir
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
    ll_text, checks = _instrument_and_lower(source.decode("utf-8"), layout)
    write_if_changed(layout.top_ll, ll_text)
    manifest = LoweredDesign(source_digest, hashlib.sha256(ll_text.encode("utf-8")).hexdigest(), **checks)
    write_if_changed(layout.llvm_manifest, json_text(manifest))
    return manifest


def _lowered(layout: BuildLayout, source_digest: str) -> LoweredDesign | None:
    """The manifest of an earlier lowering of these exact ir/top.mlir bytes whose top.ll is intact."""
    try:
        manifest = read_lowered_design(layout)
        top_ll = layout.top_ll.read_bytes()
    except (ConfigError, OSError):
        return None
    intact = manifest.top_ll == hashlib.sha256(top_ll).hexdigest()
    return manifest if intact and manifest.source == source_digest else None


def _instrument_and_lower(text: str, layout: BuildLayout) -> tuple[str, dict[str, list]]:
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
        ll_text = lower_to_llvm_ir(module, run_once=True, in_place=True)  # parsed here for this alone
    return ll_text, {
        "probes": [site.to_json() for site in sites],
        "bounds": [check.to_json() for check in checks],
        "divisions": [check.to_json() for check in divisions],
        "streams": [check.to_json() for check in streams],
    }
