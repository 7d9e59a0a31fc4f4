"""A generated design file as one translation unit per function definition, for csim's object cache.

The emitter writes a function's folder file as: its header's include, a few preprocessor lines, the
prototypes of its callees, then each definition, callees first (an RTL-blackboxed callee's under
`#ifndef HCLBUILD_RTL_BLACKBOX`, which hclbuild's own csim never defines). A top's file holds the
definitions of every outlined function it calls, the same code as in their own folders' files
apart from `#pragma HLS` lines. Compiled one definition at a time, each unit's object is keyed by
the unit's bytes, so the top's csim links the objects its callees' csims made (and the other way
round), and a change to one function recompiles that function's unit only.

A unit is the header's preprocessor lines, the file's own (`#pragma GCC diagnostic ...`), the
prototypes of the file's functions that the definition calls, and the definition without its
`#pragma HLS` lines (g++ ignores them). A file of any other shape is not split (None): csim compiles
it whole, as `make csim` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hclbuild.hls_interface import RTL_BLACKBOX_MACRO

# what a unit may include: the standard library and the ap_types/hls headers (found by -isystem)
_LIBRARY_INCLUDE = re.compile(r'#include\s*(<[^>]+>|"(ap|hls)_\w+\.h")\s*$')
_GUARD_LINES = (f"#ifndef {RTL_BLACKBOX_MACRO}", f"#endif  // {RTL_BLACKBOX_MACRO}")
# a Vitis directive line, which g++ ignores (-Wno-unknown-pragmas); not `#pragma GCC ...`, which it reads
_HLS_PRAGMA = re.compile(rb"[ \t]*#[ \t]*pragma[ \t]+HLS\b", re.IGNORECASE)


@dataclass(frozen=True)
class DesignUnit:
    """One function definition of a design file as a translation unit of its own."""

    function: str
    text: bytes


def design_units(func: str, cpp: bytes, header: bytes) -> list[DesignUnit] | None:
    """The units of `func`'s design file (`<func>.cpp`, whose header is `<func>.h`), in file order;
    None when either file is not in the emitter's shape."""
    try:
        cpp_lines = cpp.decode("utf-8").splitlines()
        header_lines = header.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    parsed_header = _header_parts(header_lines)
    if parsed_header is None:
        return None
    prelude, prototypes = parsed_header
    directives: list[str] = []
    definitions: list[tuple[str, list[str]]] = []
    body: list[str] | None = None  # the definition being read
    for line in cpp_lines:
        if body is not None:
            body.append(line)
            if line == "}":
                body = None
            elif line and not line.startswith(" "):
                return None  # something at file scope inside what looked like a definition
            continue
        if not line or line.startswith("//") or line in _GUARD_LINES:
            continue
        if line == f'#include "{func}.h"' and not definitions:
            continue  # the header's own lines stand for it
        if line.startswith("#") and not definitions:
            if line.startswith("#include") and not _LIBRARY_INCLUDE.match(line):
                return None  # a file of the folder: the unit is compiled elsewhere
            directives.append(line)
        elif line.endswith(");") and not definitions:
            name = _declared_name(line)
            if name is None:
                return None
            prototypes.setdefault(name, line)
        elif line.endswith(") {") and not line.startswith(" "):
            name = _declared_name(line)
            if name is None or any(name == defined for defined, _ in definitions):
                return None
            body = [line]
            definitions.append((name, body))
        else:
            return None
    if body is not None or not definitions:
        return None
    units = []
    for name, lines in definitions:
        text = "\n".join(lines) + "\n"
        called = [
            line
            for other, line in prototypes.items()
            if other != name and re.search(rf"\b{re.escape(other)}\(", text)
        ]
        head = "\n".join([*prelude, *directives, *called]) + "\n"
        units.append(DesignUnit(name, head.encode() + gxx_view(text.encode())))
    return units


def gxx_view(source: bytes) -> bytes:
    """A source without its `#pragma HLS` lines: what g++ makes an object of. Two sources with one
    view compile to the same object: without -g no line number reaches it, and the generated code
    names no __LINE__. A line joined to another by a backslash is kept."""
    kept = []
    continued = False  # the line before ended in a backslash: this one is part of it
    for line in source.splitlines(keepends=True):
        joins = line.rstrip(b"\r\n").endswith(b"\\")
        if continued or joins or not _HLS_PRAGMA.match(line):
            kept.append(line)
        continued = joins
    return b"".join(kept)


def _header_parts(lines: list[str]) -> tuple[list[str], dict[str, str]] | None:
    """(preprocessor lines after the include guard, {name: prototype}) of a generated header."""
    try:
        start = next(k for k, line in enumerate(lines) if line.startswith("#define HCLBUILD_")) + 1
    except StopIteration:
        return None
    prelude: list[str] = []
    prototypes: dict[str, str] = {}
    for k, line in enumerate(lines[start:], start):
        if not line or line.startswith("//"):
            continue
        if line.startswith("#") and not prototypes:
            if line.startswith("#include") and not _LIBRARY_INCLUDE.match(line):
                return None
            prelude.append(line)
        elif line.startswith("#endif"):  # the include guard's: nothing but comments may follow
            rest = [other for other in lines[k + 1 :] if other.strip() and not other.startswith("//")]
            return (prelude, prototypes) if not rest else None
        elif line.endswith(");"):
            name = _declared_name(line)
            if name is None:
                return None
            prototypes[name] = line
        else:
            return None
    return None  # no end to the include guard


def _declared_name(line: str) -> str | None:
    """The function a prototype or definition line names (the word before its first parenthesis)."""
    head = line.split("(", 1)[0].split()
    name = head[-1] if len(head) >= 2 else ""
    return name if name.isidentifier() else None


__all__ = ["DesignUnit", "design_units", "gxx_view"]
