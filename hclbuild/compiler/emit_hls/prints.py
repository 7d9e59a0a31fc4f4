"""hcl.print calls in the C++: printf of the format with each argument cast to the C type its
conversion reads, inside #ifndef __SYNTHESIS__ (C simulation prints, synthesis sees nothing)."""

from __future__ import annotations

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.emit_hls.core import EmitterCore
from hclbuild.dsl.printing import conversions


def c_string(text: str) -> str:
    """A C string literal of `text` (UTF-8 bytes; octal escapes for anything not printable)."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def print_formats(module: ir.Module) -> dict[str, str]:
    """hcl.print declarations of a module: function name -> format."""
    found = {}
    for op in module.body.operations:
        fmt = attrs.print_format(op) if op.operation.name == "func.func" else None
        if fmt is not None:
            found[upstream.symbol_name(op)] = fmt
    return found


class PrintOps(EmitterCore):
    """The func.call of an hcl.print declaration (dispatched from MemoryLoopOps._call)."""

    def _print_call(self, op: ir.Operation, fmt: str) -> None:
        args = [c_string(fmt)]
        for spec, value in zip(conversions(fmt), op.operands):
            signed = None if spec.c_type == "double" else not spec.c_type.startswith("unsigned")
            args.append(f"({spec.c_type}){self._view(value, signed)}")
        self.lines.append("#ifndef __SYNTHESIS__")
        self.uses.printf = True
        self._line(f"std::printf({', '.join(args)});")
        self.lines.append("#endif")
