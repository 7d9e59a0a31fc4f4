"""LLVM IR text -> native code one function at a time, each object cached by the bytes it came from.

A design is hundreds of functions. Compiling the module as one unit makes every change
recompile everything, and O3 on functions that run a few hundred iterations costs more than
running them. So the module text is split into one unit per defined function (the shared
declarations and attribute groups, a declaration of each function it calls, its body), and each
unit becomes an object file on its own:

- a function marked `optnone` (hclbuild.compiler.to_llvm marks the ones doing little work) gets
  no optimisation passes and -O0 code generation (fast instruction selection);
- every other function gets the O1-O3 pipeline and code generation of the requested level.

Objects are kept in memory for the process and, given a cache folder, on disk under the sha256 of
(unit text, tier, target CPU and features, llvmlite version): the second reference run of a
design whose one function changed compiles that function only. One MCJIT engine loads all the
objects and resolves the calls between them. A module with global variables is compiled as one
unit (a private global cannot be shared between objects).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from hclbuild.atomic import write_bytes_atomic
from hclbuild.errors import CompileError

_DEFINE = re.compile(r"^define\b[^@]*@(\"[^\"]+\"|[\w.$-]+)\(")
_DECLARATION = r"^declare\b[^@]*@(\"[^\"]+\"|[\w.$-]+)\("
_DECLARE_LINE = re.compile(_DECLARATION)  # one line
_DECLARE = re.compile(_DECLARATION, re.MULTILINE)  # every line of a text
_SYMBOL = re.compile(r"@(\"[^\"]+\"|[\w.$-]+)")
_ATTRIBUTE_GROUP = re.compile(r"^attributes (#\d+) = \{(.*)\}$", re.MULTILINE)
_GROUP_REFERENCE = re.compile(r"#\d+")
_GLOBAL = re.compile(r"^@[^=]+=", re.MULTILINE)
# linkages whose symbol another object cannot call (or that each object may define)
_LOCAL_LINKAGES = frozenset(
    {"private", "internal", "linkonce", "linkonce_odr", "weak", "weak_odr", "available_externally"}
)

_LOCK = threading.RLock()
_OBJECTS: dict[str, bytes] = {}  # cache key -> object file bytes, for the process


@dataclass(frozen=True)
class CodeUnit:
    """One function (or the whole module) as a self-contained LLVM IR module text."""

    name: str
    text: str
    light: bool  # optnone: no passes, -O0 code generation


def split_units(ir_text: str) -> list[CodeUnit]:
    """One CodeUnit per defined function; the whole module as one unit if it defines globals.

    A function with a local linkage (internal, private, linkonce_odr... such as MLIR's math
    helpers) cannot be called from another object: each unit that calls one gets its own
    internal copy instead.
    """
    lines = ir_text.splitlines()
    header: list[str] = []
    bodies: dict[str, tuple[str, list[str]]] = {}  # name -> (define line, body lines)
    k = 0
    while k < len(lines):
        line = lines[k]
        match = _DEFINE.match(line)
        if match is None:
            header.append(line)
            k += 1
            continue
        end = k
        while lines[end] != "}":
            end += 1
        bodies[match.group(1)] = (line, lines[k : end + 1])
        k = end + 1
    shared = "\n".join(header) + "\n"
    optnone_groups = {
        m.group(1) for m in _ATTRIBUTE_GROUP.finditer(shared) if "optnone" in m.group(2).split()
    }

    def is_light(define: str) -> bool:
        tail = define[define.rfind(")") :]
        return "optnone" in tail.split() or any(g in optnone_groups for g in _GROUP_REFERENCE.findall(tail))

    local = {name for name, (define, _) in bodies.items() if define.split()[1] in _LOCAL_LINKAGES}
    exported = [name for name in bodies if name not in local]
    if _GLOBAL.search(shared) or len(exported) <= 1:
        light = bool(bodies) and all(is_light(define) for define, _ in bodies.values())
        return [CodeUnit(exported[0] if len(exported) == 1 else "<module>", ir_text, light)]
    declared = set(_DECLARE.findall(shared))
    references = {name: set(_SYMBOL.findall("\n".join(body))) - {name} for name, (_, body) in bodies.items()}
    units = []
    for name in exported:
        define, body = bodies[name]
        helpers: list[str] = []  # local functions it calls, directly or through each other
        todo = [s for s in references[name] if s in local]
        while todo:
            helper = todo.pop()
            if helper not in helpers:
                helpers.append(helper)
                todo.extend(s for s in references[helper] if s in local)
        calls = set(references[name]).union(*(references[h] for h in helpers))
        extra = [
            "declare" + bodies[c][0][len("define") : bodies[c][0].rfind(")") + 1]
            for c in sorted(calls)
            if c in bodies and c not in local and c != name and c not in declared
        ]
        for helper in sorted(helpers):
            helper_define, helper_body = bodies[helper]
            linkage = helper_define.split()[1]
            extra.append(
                "\n".join(
                    [helper_define.replace(f"define {linkage} ", "define internal ", 1), *helper_body[1:]]
                )
            )
        units.append(
            CodeUnit(name, shared + "\n".join(extra) + "\n" + "\n".join(body) + "\n", is_light(define))
        )
    return units


def _key(unit: CodeUnit, opt_level: int, cpu: str, features: str) -> str:
    tier = 0 if unit.light else opt_level
    stamp = f"{tier}\n{cpu}\n{features}\nllvmlite {llvmlite.__version__}\n"
    return hashlib.sha256((stamp + unit.text).encode()).hexdigest()


def _compile_unit(unit: CodeUnit, opt_level: int, machines: dict[int, llvm.TargetMachine]) -> bytes:
    level = 0 if unit.light else opt_level
    machine = machines[level]
    try:
        module = llvm.parse_assembly(unit.text)
        module.verify()
    except RuntimeError as err:
        raise CompileError(
            _one_line(f"LLVM IR does not parse or verify (@{unit.name})", err) + f"\n{err}"
        ) from None
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    if level > 0:
        tuning = llvm.create_pipeline_tuning_options(speed_level=level)
        builder = llvm.create_pass_builder(machine, tuning)
        builder.getModulePassManager().run(module, builder)
    try:
        return machine.emit_object(module)
    except RuntimeError as err:
        raise CompileError(_one_line(f"LLVM code generation of {unit.name} failed", err)) from None


def compile_objects(
    units: Iterable[CodeUnit],
    opt_level: int,
    machines: dict[int, llvm.TargetMachine],
    cpu: str,
    features: str,
    cache_dir: Path | None = None,
) -> tuple[list[bytes], int]:
    """Object file bytes of every unit, from the caches where possible; also how many were compiled.

    With cache_dir, objects are read from and written to `<cache_dir>/<key>.o`, and objects there
    that these units no longer use are deleted (the folder holds one design's current objects).
    """
    objects, compiled, keys = [], 0, set()
    for unit in units:
        key = _key(unit, opt_level, cpu, features)
        keys.add(key)
        with _LOCK:
            data = _OBJECTS.get(key)
        path = None if cache_dir is None else Path(cache_dir) / f"{key}.o"
        if data is None and path is not None and path.is_file():
            data = path.read_bytes()
        if data is None:
            data = _compile_unit(unit, opt_level, machines)
            compiled += 1
            if path is not None:
                write_bytes_atomic(path, data)
        with _LOCK:
            _OBJECTS[key] = data
        objects.append(data)
    if cache_dir is not None and Path(cache_dir).is_dir():
        for stale in Path(cache_dir).glob("*.o"):
            if stale.stem not in keys:
                stale.unlink(missing_ok=True)
    return objects, compiled


def declared_symbols(units: Iterable[CodeUnit]) -> set[str]:
    """Functions the units declare and none of them defines: they must come from the process."""
    declared: set[str] = set()
    defined = set()
    for unit in units:
        # line by line with a prefix test: a MULTILINE regex tries every character of a 1 MB module
        for line in unit.text.splitlines():
            if line.startswith("de"):
                match = _DEFINE.match(line)
                if match:
                    defined.add(match.group(1))
                elif match := _DECLARE_LINE.match(line):
                    declared.add(match.group(1))
    return {name for name in declared - defined if not name.startswith("llvm.")}


def _one_line(summary: str, err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    detail = next(
        (line for line in lines if "error" in line.lower() and line != lines[0]), lines[-1] if lines else ""
    )
    return f"{summary}: {detail}" if detail else summary


__all__ = ["CodeUnit", "compile_objects", "declared_symbols", "split_units"]
