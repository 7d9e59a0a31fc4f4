"""What compile and the lowering found out about a design, as records the later steps read instead
of the MLIR: ir/manifest.json (DesignManifest, compile's) and llvm/manifest.json (LoweredDesign,
the reference task's lowering). Each is written as JSON by to_json and read back by from_json,
which says in one line when a file is not one (run the step that writes it again).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hclbuild.compiler.buffers import AllocatedBuffer
from hclbuild.dsl.types import Struct, parse_dtype
from hclbuild.errors import ConfigError
from hclbuild.project.layout import BuildLayout
from hclbuild.schedule.signature import FunctionSignature

DESIGN_FORMAT = "hclbuild-ir"
LOWERED_FORMAT = "hclbuild-llvm"


@dataclass(frozen=True)
class DesignManifest:
    """ir/manifest.json: the design's functions and what each step after compile needs of them."""

    project: str
    top: str
    functions: list[str]  # the top first, then the outlined functions
    signatures: dict[str, FunctionSignature]  # by function, in the IR's argument names
    # the C names emit gives each function's arguments: the reference names hls/<func>/data/ after them
    c_args: dict[str, list[str]]
    writes: dict[str, list[str]]  # the array arguments each function may write: what csim can observe
    inputs: list[str]  # the design's inputs, then its outputs: the top's arguments in order
    outputs: list[str]
    # the IR keeps a Struct as its packed integer; inputs() and model() take structured arrays
    structs: dict[str, list[tuple[str, str]]]  # argument -> [(field, dtype name)]
    buffers: list[AllocatedBuffer]  # what the reference run allocates besides the arguments
    graph: dict[str, Any]  # the design graph (compiler.design_graph's JSON): the report draws it
    # memory accesses of each defined function in one run of the design (None: not static), from
    # which csim picks its -O level (runtime.csim.optimization_level)
    work: dict[str, float | None] = dataclasses.field(default_factory=dict)
    # pipelined loops that cannot meet their II (compiler/port_limits, recurrence_limits), one line each
    warnings: list[str] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON of ir/manifest.json."""
        return {
            "format": DESIGN_FORMAT,
            "project": self.project,
            "top": self.top,
            "functions": self.functions,
            "signatures": {func: signature.to_json() for func, signature in self.signatures.items()},
            "c_args": self.c_args,
            "writes": self.writes,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "structs": {name: [list(field) for field in fields] for name, fields in self.structs.items()},
            "buffers": [buffer.to_json() for buffer in self.buffers],
            "graph": self.graph,
            "work": self.work,
            "warnings": self.warnings,
        }

    @classmethod
    def from_json(cls, data: Any, where: Path) -> DesignManifest:
        """The manifest to_json wrote; ConfigError naming `where` when it is not one."""
        if not isinstance(data, dict) or data.get("format") != DESIGN_FORMAT:
            raise ConfigError(f"{where}: not an hclbuild IR manifest")
        try:
            return cls(
                project=str(data["project"]),
                top=str(data["top"]),
                functions=[str(func) for func in data["functions"]],
                signatures={
                    func: FunctionSignature.from_json(signature)
                    for func, signature in data["signatures"].items()
                },
                c_args={func: list(names) for func, names in data["c_args"].items()},
                writes={func: list(names) for func, names in data["writes"].items()},
                inputs=list(data["inputs"]),
                outputs=list(data["outputs"]),
                structs={
                    name: [(str(f), str(d)) for f, d in fields] for name, fields in data["structs"].items()
                },
                buffers=[AllocatedBuffer.from_json(buffer) for buffer in data["buffers"]],
                graph=dict(data["graph"]),
                work={
                    func: None if accesses is None else float(accesses)
                    for func, accesses in data["work"].items()
                },
                warnings=[str(line) for line in data.get("warnings", [])],
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"{where}: unreadable IR manifest ({exc!r}); run compile again") from None

    def ir_path(self, layout: BuildLayout, func: str) -> Path:
        """ir/top.mlir for the top (the whole design), ir/<func>.mlir for an outlined function."""
        return layout.top_mlir if func == self.top else layout.func_mlir(func)

    def c_names(self, func: str, where: Path) -> dict[str, str]:
        """func's arguments: IR name -> the C name emit gives it."""
        ir_args = self.signatures[func].arg_names
        c_args = self.c_args.get(func)
        if c_args is None or len(c_args) != len(ir_args):
            raise ConfigError(f"{where}: no C argument names of {func}; run compile again")
        return dict(zip(ir_args, c_args))

    def user_signature(self) -> FunctionSignature:
        """The top's signature as inputs() and model() see it: Struct arguments with their fields."""
        signature = self.signatures[self.top]
        args = [
            dataclasses.replace(spec, dtype=Struct({f: parse_dtype(d) for f, d in self.structs[spec.name]}))
            if spec.name in self.structs
            else spec
            for spec in signature.args
        ]
        return dataclasses.replace(signature, args=args)


@dataclass(frozen=True)
class LoweredDesign:
    """llvm/manifest.json: the instrumented design's lowering and the checks it carries, each
    entry the JSON of its pass's record (compiler.passes: instrument, bounds_check,
    checked_division, stream_check), which the reference run decodes."""

    source: str  # sha256 of the ir/top.mlir it was lowered from
    # llvm/units/<file>.ll, one code unit a function (hclbuild.code_units' JSON plus the file and its sha256)
    units: list[dict[str, Any]]
    probes: list[dict[str, Any]]  # a probe at every outlined call
    bounds: list[dict[str, Any]]
    divisions: list[dict[str, Any]]
    streams: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """The JSON of llvm/manifest.json."""
        return {"format": LOWERED_FORMAT, **dataclasses.asdict(self)}

    @classmethod
    def from_json(cls, data: Any, where: Path) -> LoweredDesign:
        """The manifest to_json wrote; ConfigError naming `where` when it is not one."""
        if not isinstance(data, dict) or data.get("format") != LOWERED_FORMAT:
            raise ConfigError(f"{where}: not an hclbuild LLVM manifest")
        try:
            return cls(**{field.name: data[field.name] for field in dataclasses.fields(cls)})
        except KeyError as exc:
            raise ConfigError(
                f"{where}: unreadable LLVM manifest (no {exc}); run the reference again"
            ) from None


# one parsed manifest per file version: a doit process emits every function of a design, and
# re-reading a manifest that grows with the design once per function would be quadratic
_DESIGNS: dict[Path, tuple[tuple[int, int, int], DesignManifest]] = {}


def read_design_manifest(layout: BuildLayout) -> DesignManifest:
    """ir/manifest.json of the project (compile's)."""
    path = layout.ir_manifest
    try:
        stat = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: unreadable IR manifest ({exc}); run compile first") from None
    version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    cached = _DESIGNS.get(path)
    if cached is not None and cached[0] == version:
        return cached[1]
    manifest = DesignManifest.from_json(read_json(path, "IR manifest", "run compile first"), path)
    _DESIGNS[path] = (version, manifest)
    return manifest


def read_lowered_design(layout: BuildLayout) -> LoweredDesign:
    """llvm/manifest.json of the project (the reference task's lowering)."""
    path = layout.llvm_manifest
    return LoweredDesign.from_json(read_json(path, "LLVM manifest", "run the reference again"), path)


def read_json(path: Path, what: str, again: str) -> Any:
    """The JSON of `path`; ConfigError naming it (and the step that writes it) when it is unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable {what} ({exc}); {again}") from None


def json_text(record: DesignManifest | LoweredDesign) -> str:
    """A manifest as its file's text."""
    return json.dumps(record.to_json(), indent=2) + "\n"
