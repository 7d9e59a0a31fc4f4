"""LLVM code units: one function of a lowered design as a self-contained LLVM IR module.

hclbuild.compiler.to_llvm makes them by splitting the lowered module in MLIR (each function with
declarations of what it calls and copies of the local helpers and constants it uses), the reference
task stores them (llvm/units/<name>.ll, listed in llvm/manifest.json), and hclbuild.runtime compiles
each one into its own object file, cached by its text. What a unit defines, needs from outside and
how it is optimised is recorded when it is made, never read back from the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CodeUnit:
    """One LLVM IR module text and what the JIT needs to know about it."""

    name: str
    text: str
    light: bool = False  # optnone: no optimisation passes, -O0 code generation
    defines: tuple[str, ...] = ()  # the symbols other units may call
    externals: tuple[str, ...] = ()  # the functions it declares and calls (another unit's, or libc/libm)
    entry: bool = False  # it defines a `_mlir_ciface_` entry point

    def to_json(self, file: str) -> dict[str, Any]:
        """The manifest entry of a unit whose text is stored in `file`."""
        return {
            "name": self.name,
            "file": file,
            "light": self.light,
            "defines": list(self.defines),
            "externals": list(self.externals),
            "entry": self.entry,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], text: str) -> CodeUnit:
        return cls(
            data["name"],
            text,
            bool(data["light"]),
            tuple(data["defines"]),
            tuple(data["externals"]),
            bool(data["entry"]),
        )


def unresolved(units: list[CodeUnit]) -> set[str]:
    """The functions the units call that none of them defines: they must come from the process."""
    defined = {name for unit in units for name in unit.defines}
    return {name for unit in units for name in unit.externals} - defined


__all__ = ["CodeUnit", "unresolved"]
