"""IR-in/IR-out cases of the compiler passes: read a case file, run its pass, print the result.

A case is `tests/passes/<pass>/<case>.mlir`:

    // pass: <pass>
    // args: <the pass's arguments as one JSON object>
    <the input module, as the real pipeline printed it just before the pass>
    // ----- output
    <the module after the pass, then one `// result: <json>` line for what the pass returned>

or, for a refusal, `// ----- error` followed by the one line `<ErrorClass>: <message>` it raises.
tests/compiler/test_pass_ir.py runs every case; scripts/pass_cases.py writes them (both use `run_case`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.context import new_context
from hclbuild.compiler.passes.bounds_check import bounds_check
from hclbuild.compiler.passes.buffer_at import BufferAtPass
from hclbuild.compiler.passes.checked_division import check_divisions
from hclbuild.compiler.passes.common_values import merge_common_values
from hclbuild.compiler.passes.compute_at import ComputeAtPass
from hclbuild.compiler.passes.constant_divisor import check_constant_divisors
from hclbuild.compiler.passes.constant_subscript import check_constant_subscripts
from hclbuild.compiler.passes.dealloc import dealloc_allocs
from hclbuild.compiler.passes.fuse_at import FuseAtPass
from hclbuild.compiler.passes.hoist_invariant_loads import hoist_invariant_loads
from hclbuild.compiler.passes.instrument import instrument_calls
from hclbuild.compiler.passes.outline import outline_stages
from hclbuild.compiler.passes.outline_axis import outline_axis
from hclbuild.compiler.passes.parallel_reads import partition_parallel_reads
from hclbuild.compiler.passes.print_calls import define_print_functions
from hclbuild.compiler.passes.reserved_top import rename_reserved_top
from hclbuild.compiler.passes.reuse_at import ReuseAtPass, fuse_fill_loops
from hclbuild.compiler.passes.split_functions import function_modules
from hclbuild.compiler.passes.split_llvm_units import split_llvm_units
from hclbuild.compiler.passes.stream import StreamPass, annotate_stream_arguments
from hclbuild.compiler.passes.stream_check import stream_checks
from hclbuild.compiler.passes.unify import unify_with
from hclbuild.compiler.passes.verify import verify_module
from hclbuild.compiler.pipeline import CompiledDesign
from hclbuild.errors import HCLError
from hclbuild.schedule.outlines import StageRange

CASES_DIR = Path(__file__).parent / "passes"
OUTPUT_MARKER = "// ----- output"
ERROR_MARKER = "// ----- error"
SECTION = "// ----- "


def _group(group: list[str] | dict[str, list[str]]) -> list[str] | StageRange:
    """A group as the case writes it: a list of stage names, or {"range": [start, end]}."""
    return StageRange(*group["range"]) if isinstance(group, dict) else group


def _unify(module: ir.Module, args: dict[str, Any]) -> str:
    # the candidate is the function just outlined, the call its one call site (as outline_axis has them)
    candidate = upstream.symbols(module)[args["candidate"]]
    calls: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.call" and upstream.callee(op) == args["candidate"]:
            calls.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return unify_with(module, candidate, calls[0], args["target"])


def _split_functions(module: ir.Module, args: dict[str, Any]) -> list[str]:
    return [f"{SECTION}function @{name}\n{text}" for name, text in function_modules(module).items()]


def _split_llvm_units(module: ir.Module, args: dict[str, Any]) -> list[str]:
    sections = []
    for unit in split_llvm_units(module):
        meta = json.dumps(unit.to_json(""), sort_keys=True)
        sections.append(f"{SECTION}unit {meta}\n{unit.text}")
    return sections


def _reserved_top(module: ir.Module, args: dict[str, Any]) -> str:
    return rename_reserved_top(CompiledDesign(module, args["top"], []))


def _records(found: list[Any]) -> list[dict[str, Any]]:
    return [record.to_json() for record in found]


# name -> run(module, args): what the pass returned (printed as `// result:`), or, for the two
# split passes, the texts they make (the module itself stays as it was and is not printed)
RUNNERS: dict[str, Callable[[ir.Module, dict[str, Any]], Any]] = {
    "outline": lambda m, a: outline_stages(
        m, [_group(g) for g in a["groups"]], unify=a["unify"], names=a.get("names", ())
    ),
    "outline_axis": lambda m, a: outline_axis(m, a["stage"], a["axis"], a["unify"], a.get("function", "")),
    "unify": _unify,
    "compute_at": lambda m, a: list(ComputeAtPass(**a).run(m)),
    "fuse_at": lambda m, a: FuseAtPass(**a).run(m),
    "reuse_at": lambda m, a: list(
        ReuseAtPass(**{**a, "reduction_loops": frozenset(a["reduction_loops"])}).run(m)
    ),
    "fuse_fill_loops": lambda m, a: fuse_fill_loops(m),
    "buffer_at": lambda m, a: list(BufferAtPass(**a).run(m)),
    "stream": lambda m, a: StreamPass(**a).run(m),
    "annotate_stream_arguments": lambda m, a: annotate_stream_arguments(m),
    "constant_divisor": lambda m, a: check_constant_divisors(m),
    "constant_subscript": lambda m, a: check_constant_subscripts(m),
    "common_values": lambda m, a: merge_common_values(m),
    "hoist_invariant_loads": lambda m, a: hoist_invariant_loads(m),
    "parallel_reads": lambda m, a: [dataclasses.asdict(added) for added in partition_parallel_reads(m)],
    "verify": lambda m, a: verify_module(m),
    "reserved_top": _reserved_top,
    "split_functions": _split_functions,
    "instrument": lambda m, a: _records(instrument_calls(m)),
    "stream_check": lambda m, a: _records(stream_checks(m)),
    "bounds_check": lambda m, a: _records(bounds_check(m)),
    "checked_division": lambda m, a: _records(check_divisions(m)),
    "print_calls": lambda m, a: define_print_functions(m),
    "dealloc": lambda m, a: dealloc_allocs(m),
    "split_llvm_units": _split_llvm_units,
}
TEXT_PASSES = frozenset({"split_functions", "split_llvm_units"})
# their callers set an unknown location (to_llvm; outline_axis for unify_with); the pipeline and
# the lowering enter only the context for the others
LOCATED_PASSES = frozenset({"print_calls", "dealloc", "split_llvm_units", "unify"})


@dataclass(frozen=True)
class PassCase:
    """One case file: the pass, its arguments, the input text and what running it must give."""

    pass_name: str
    args: dict[str, Any]
    source: str
    expected: str  # the output text, or `<ErrorClass>: <message>` when `refused`
    refused: bool

    @classmethod
    def read(cls, path: Path) -> PassCase:
        text = path.read_text(encoding="utf-8")
        header, _, rest = text.partition("\n// args: ")
        args_line, _, rest = rest.partition("\n")
        marker = OUTPUT_MARKER if OUTPUT_MARKER in rest else ERROR_MARKER
        source, _, expected = rest.partition(f"{marker}\n")
        return cls(
            header.removeprefix("// pass: "),
            json.loads(args_line),
            source,
            expected,
            marker == ERROR_MARKER,
        )

    def text(self) -> str:
        marker = ERROR_MARKER if self.refused else OUTPUT_MARKER
        args = json.dumps(self.args, sort_keys=True)
        return f"// pass: {self.pass_name}\n// args: {args}\n{self.source}{marker}\n{self.expected}"


def run_case(pass_name: str, args: dict[str, Any], source: str) -> tuple[str, bool]:
    """Parse `source`, run the pass on it; (the printed result, False) or (`<Error>: <message>`, True)."""
    with new_context() as context:
        module = ir.Module.parse(source, context)
        location = ir.Location.unknown() if pass_name in LOCATED_PASSES else None
        try:
            if location is not None:
                with location:
                    result = RUNNERS[pass_name](module, args)
            else:
                result = RUNNERS[pass_name](module, args)
        except HCLError as exc:
            return f"{type(exc).__name__}: {exc}\n", True
        if pass_name in TEXT_PASSES:
            return "".join(section if section.endswith("\n") else section + "\n" for section in result), False
        out = str(module)
        if result is not None:
            out += f"// result: {json.dumps(result, sort_keys=True)}\n"
        return out, False


def case_paths() -> list[Path]:
    return sorted(CASES_DIR.glob("*/*.mlir"))
