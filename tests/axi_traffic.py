"""Test-only reader of emitted HLS C++: how each loop reads and writes each m_axi argument.

Independent of the compiler's own analysis (hclbuild.compiler.array_access), it reads the C++ text
the emitter writes (one statement a line, `label: for (int v = 0; v < N; v++) {` loops, pragmas
on the lines after a loop's header), follows the m_axi ports of the file's top into the callees
they are passed to, and counts, for one iteration of each loop, the distinct subscripts of reads
and writes of each port (an unrolled loop's variable in a subscript multiplies it by the trips).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FUNCTION = re.compile(r"^(?:void|[\w<>, ]+) (\w+)\((.*)\) \{$")
_PARAM = re.compile(r"(\w+)(?:\[\d+\])+$")
_LOOP = re.compile(r"^\s*(\w+): for \(int (\w+) = (-?\d+); \w+ < (\d+); \w+(?:\+\+| \+= (\d+))\) \{$")
_INDEX = re.compile(r"^int (v\d+) = (.*);$")
_CALL = re.compile(r"^\s*(?:[\w<>, ]+ \w+ = )?(\w+)\(([^()]*)\);$")


@dataclass
class _Loop:
    label: str
    var: str
    trips: int
    pipelined: bool = False
    unrolled: bool = False


@dataclass
class LoopTraffic:
    """One iteration of a loop: its reads and writes of a port, by subscript text."""

    function: str
    label: str
    reads: dict[str, int] = field(default_factory=dict)  # subscript -> elements an iteration
    writes: dict[str, int] = field(default_factory=dict)


def _functions(code: str) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (parameter names, body lines) of every function defined in the file."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    lines = code.splitlines()
    for number, line in enumerate(lines):
        match = _FUNCTION.match(line)
        if match is None:
            continue
        params = []
        for param in filter(None, (p.strip() for p in match.group(2).split(","))):
            array = _PARAM.search(param)
            params.append(array.group(1) if array else param.split()[-1].lstrip("&"))
        end = next(k for k in range(number + 1, len(lines)) if lines[k] == "}")
        found[match.group(1)] = (params, lines[number + 1 : end])
    return found


def m_axi_ports(code: str) -> list[str]:
    return re.findall(r"#pragma HLS interface mode=m_axi port=(\w+)", code)


def axi_traffic(code: str, top: str) -> dict[str, list[LoopTraffic]]:
    """For every m_axi port of `top`: the traffic of every loop that touches it, in `top` or in the
    callees it is passed to (under the callee's parameter name)."""
    functions = _functions(code)
    result: dict[str, list[LoopTraffic]] = {}
    for port in m_axi_ports(code):
        traffic: list[LoopTraffic] = []
        _walk(functions, top, port, traffic, [])
        result[port] = traffic
    return result


def _walk(functions, name: str, port: str, traffic: list[LoopTraffic], outer: list[_Loop]) -> None:
    _params, body = functions[name]
    stack: list[_Loop | None] = []  # one entry per open brace: a loop, or None for an if/else block
    by_loop: dict[str, LoopTraffic] = {}
    indices: dict[str, str] = {}  # `int vN = expr;`: index temporaries, expanded in subscripts
    for number, line in enumerate(body):
        text = line.strip()
        index = _INDEX.match(text)
        if index:
            indices[index.group(1)] = _expand(index.group(2), indices)
        loop = _LOOP.match(line)
        if loop:
            low, high, step = int(loop.group(3)), int(loop.group(4)), int(loop.group(5) or 1)
            following = []
            for after in body[number + 1 :]:
                if not after.strip().startswith("#pragma"):
                    break
                following.append(after.strip())
            stack.append(
                _Loop(
                    loop.group(1),
                    loop.group(2),
                    max(0, -(-(high - low) // step)),
                    "#pragma HLS pipeline II=" in " ".join(following),
                    "#pragma HLS unroll" in following,
                )
            )
            continue
        if text.endswith("{"):
            if not text.startswith("}"):
                stack.append(None)
            continue
        if text == "}":
            stack.pop()
            continue
        loops = outer + [entry for entry in stack if entry is not None]
        call = _CALL.match(line)
        if call and call.group(1) in functions:
            args = [a.strip() for a in call.group(2).split(",")]
            params = functions[call.group(1)][0]
            for arg, param in zip(args, params):
                if arg == port:
                    _walk(functions, call.group(1), param, traffic, loops)
            continue
        _record(name, text, port, loops, by_loop, indices)
    traffic.extend(by_loop.values())


def _expand(expr: str, indices: dict[str, str]) -> str:
    """`expr` with every index temporary replaced by what it holds (the same subscript computed
    twice reads as one)."""
    return re.sub(
        r"\bv\d+\b", lambda m: f"({indices[m.group(0)]})" if m.group(0) in indices else m.group(0), expr
    )


def _record(
    function: str,
    text: str,
    port: str,
    loops: list[_Loop],
    by_loop: dict[str, LoopTraffic],
    indices: dict[str, str],
) -> None:
    accesses = [(m.start(), m.group(1)) for m in re.finditer(rf"\b{port}((?:\[[^\]]+\])+)", text)]
    if not accesses or not loops:
        return
    where = next((k for k, loop in enumerate(loops) if loop.pipelined), None)
    if where is None:
        where = max((k for k, loop in enumerate(loops) if not loop.unrolled), default=None)
    if where is None:
        return
    owner, unrolled = loops[where], loops[where + 1 :]
    entry = by_loop.setdefault(owner.label, LoopTraffic(function, owner.label))
    for start, subscript in accesses:
        lanes = 1
        for inner in unrolled:
            if re.search(rf"\b{inner.var}\b", subscript):
                lanes *= inner.trips
        written = start == 0 and re.match(rf"{port}{re.escape(subscript)} = ", text) is not None
        kind = entry.writes if written else entry.reads
        kind[_expand(subscript, indices)] = lanes


def burst_violations(code: str, top: str) -> list[str]:
    """Loops that read or write an m_axi port at more than one place an iteration, or both read and
    write it: what keeps Vitis from inferring bursts."""
    problems = []
    for port, loops in axi_traffic(code, top).items():
        for loop in loops:
            reads, writes = sum(loop.reads.values()), sum(loop.writes.values())
            if reads > 1 or writes > 1 or (reads and writes):
                problems.append(
                    f"{top}: m_axi {port} in {loop.function}/{loop.label}: reads {loop.reads} writes {loop.writes}"
                )
    return problems
