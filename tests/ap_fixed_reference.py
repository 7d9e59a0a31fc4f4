"""Test-only helper: conversions into ap_fixed computed by ap_fixed itself (g++ with the ap_types
headers), the ground truth the fixed-point modes of hclbuild are checked against.

The C++ types are spelled here from the dtype's fields, not by hclbuild's emitter, so the reference
does not share code with what it checks.
"""

from __future__ import annotations

import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hclbuild.dsl.types import DType
from hclbuild.runtime.aptypes import ap_types_include_dir


@dataclass(frozen=True)
class Conversion:
    """Values of `src` (raw ints read with src's signedness, or floats for a Float(64) source)
    converted into fixed-point `dst` by assignment."""

    src: DType
    dst: DType
    inputs: tuple


def _cpp_type(dtype: DType) -> str:
    if dtype.is_float:
        return "double"
    if dtype.is_int:
        return f"ap_{'int' if dtype.is_signed else 'uint'}<{dtype.bits}>"
    base = f"ap_{'fixed' if dtype.is_signed else 'ufixed'}<{dtype.bits}, {dtype.bits - dtype.frac}"
    return f"{base}, {dtype.quantization}, {dtype.overflow}>"


_PROGRAM_HEAD = """#include <cstdint>
#include <cstdio>
#include <cstring>
#include "ap_fixed.h"

template <int W, class S, class D, int DW> void from_bits(const char* const* in, int n) {
  for (int k = 0; k < n; k++) {
    S s;
    s.range(W - 1, 0) = ap_uint<W>(in[k], 16);
    D d = s;
    ap_uint<DW> r = d.range(DW - 1, 0);
    std::puts(r.to_string(16, false).c_str());
  }
}

template <class D, int DW> void from_double(const uint64_t* in, int n) {
  for (int k = 0; k < n; k++) {
    double x;
    std::memcpy(&x, &in[k], sizeof x);
    D d = x;
    ap_uint<DW> r = d.range(DW - 1, 0);
    std::puts(r.to_string(16, false).c_str());
  }
}

int main() {
"""


def _block(k: int, conversion: Conversion) -> str:
    src, dst = conversion.src, conversion.dst
    count = len(conversion.inputs)
    if src.is_float:
        words = ", ".join(f"0x{struct.unpack('<Q', struct.pack('<d', v))[0]:x}ULL" for v in conversion.inputs)
        return (
            f"  {{ static const uint64_t in[] = {{{words}}};\n"
            f"    from_double<{_cpp_type(dst)}, {dst.bits}>(in, {count}); }}\n"
        )
    mask = (1 << src.bits) - 1
    words = ", ".join(f'"{v & mask:x}"' for v in conversion.inputs)
    return (
        f"  {{ static const char* const in[] = {{{words}}};\n"
        f"    from_bits<{src.bits}, {_cpp_type(src)}, {_cpp_type(dst)}, {dst.bits}>(in, {count}); }}\n"
    )


def ap_fixed_results(conversions: list[Conversion], folder: Path) -> list[list[int]]:
    """Each conversion's results as ap_fixed gives them: raw bits read with dst's signedness."""
    include = ap_types_include_dir()
    assert include is not None, "no ap_types headers (hls4ml or XILINX_HLS)"
    source = folder / "ap_fixed_reference.cpp"
    body = "".join(_block(k, c) for k, c in enumerate(conversions))
    source.write_text(_PROGRAM_HEAD + body + "  return 0;\n}\n")
    program = folder / "ap_fixed_reference"
    subprocess.run(
        ["g++", "-std=c++14", "-O0", "-w", "-isystem", str(include), str(source), "-o", str(program)],
        check=True,
        capture_output=True,
        text=True,
    )
    lines = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout.split()
    results, at = [], 0
    for conversion in conversions:
        dst = conversion.dst
        raws = []
        for line in lines[at : at + len(conversion.inputs)]:
            raw = int(line, 16)
            raws.append(raw - (1 << dst.bits) if dst.is_signed and raw >> (dst.bits - 1) else raw)
        results.append(raws)
        at += len(conversion.inputs)
    assert at == len(lines), f"{len(lines)} results for {at} inputs"
    return results
