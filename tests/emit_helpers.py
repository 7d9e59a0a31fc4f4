"""Test-only helpers for the HLS emitter: parse IR text, compile emitted C++ with g++ and run it.

The driver is generated per test from the functions' CSignatures: it reads every argument from a
raw binary file holding the dtype's storage containers (hclbuild.dsl.types), calls the function,
and writes every array argument (and the result) back the same way. Values cross the files as
raw bits, so integer and fixed-point results compare bit-exactly.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from hclbuild.compiler.emit_hls import CArg, CSignature
from hclbuild.dsl.storage import raw_ints, to_storage
from hclbuild.dsl.types import DType, Int, UInt, parse_dtype
from hclbuild.runtime.aptypes import ap_types_include_dir

GXX_FLAGS = ("-std=c++17", "-O1", "-Wall", "-Werror", "-Wno-unknown-pragmas")


def parse_module(text: str) -> ir.Module:
    """An MLIR module parsed (and verified) in its own Context."""
    context = ir.Context()
    with context, ir.Location.unknown():
        return ir.Module.parse(text)


def func_op(module: ir.Module, name: str) -> ir.Operation:
    """The func.func called `name`."""
    for op in module.body.operations:
        if (
            op.operation.name == "func.func"
            and ir.StringAttr(op.operation.attributes["sym_name"]).value == name
        ):
            return op.operation
    raise KeyError(name)


def gxx_command(sources: list[Path], output: Path, needs_ap: bool) -> list[str]:
    """The g++ command line of the tests (ap_types include dir only when the code needs it)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    command = [gxx, *GXX_FLAGS]
    if needs_ap:
        include = ap_types_include_dir()
        if include is None:
            pytest.skip("no ap_types headers (neither $XILINX_HLS nor the hls4ml wheel)")
        command += ["-isystem", str(include)]
    return command + [str(s) for s in sources] + ["-o", str(output)]


def compile_cpp(sources: list[Path], output: Path, needs_ap: bool, extra: tuple[str, ...] = ()) -> None:
    """Compile with the test flags; a failure shows the compiler's output."""
    command = gxx_command(sources, output, needs_ap)
    command[-2:-2] = list(extra)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"g++ failed ({done.returncode}):\n{done.stderr[-6000:]}")


def uses_ap(code: str) -> bool:
    return "ap_int.h" in code or "ap_fixed.h" in code


@dataclass
class Call:
    """One call of a kernel: its signature and the argument values (ints as numbers, fixed as raw bits)."""

    signature: CSignature
    inputs: dict[str, object]


def _bits_dtype(dtype: DType) -> DType:
    """Fixed-point values travel as their raw bits: the integer dtype of the same width."""
    if dtype.is_fixed:
        return Int(dtype.bits) if dtype.is_signed else UInt(dtype.bits)
    return dtype


def _storage(arg: CArg, value: object) -> np.ndarray:
    dtype = _bits_dtype(parse_dtype(arg.dtype))
    shape = arg.shape if arg.is_array else ()
    if dtype.is_float:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=dtype.np_storage), shape))
    values = np.empty(shape, dtype=object)
    values[...] = np.asarray(value, dtype=object) if not np.isscalar(value) else value
    return to_storage(values, dtype)


def _is_plain(c_type: str) -> bool:
    """C types whose memory layout is exactly the storage container (no conversion in the driver)."""
    return not c_type.startswith("ap_")


def _driver_arg(k: int, arg: CArg, dtype: DType) -> tuple[list[str], list[str], str]:
    """(read lines, write lines, the expression passed) for one argument of call k."""
    shape = arg.shape if arg.is_array else (1,)
    count = int(np.prod(shape))
    var = f"c{k}_{arg.name}"
    dims = "".join(f"[{d}]" for d in shape)
    first = f"&{var}" + "[0]" * len(shape)
    path_in, path_out = f'"{k}_{arg.name}.in"', f'"{k}_{arg.name}.out"'
    read = [f"static {arg.c_type} {var}{dims};"]
    write: list[str] = []
    if _is_plain(arg.c_type):
        read.append(f"read_raw(dir, {path_in}, {first}, sizeof({var}));")
        write.append(f"write_raw(dir, {path_out}, {first}, sizeof({var}));")
    else:
        width = dtype.bits
        words = 2 if dtype.storage_bits == 128 else 1
        container = "uint64_t" if words == 2 else f"uint{dtype.storage_bits}_t"
        read += [
            f"{{ static {container} raw[{count * words}]; read_raw(dir, {path_in}, raw, sizeof(raw));",
            f"  {arg.c_type}* p = {first};",
            f"  for (int i = 0; i < {count}; i++) {{ ap_uint<{128 if words == 2 else width}> b = "
            + ("raw[2 * i + 1]; b <<= 64; b |= raw[2 * i];" if words == 2 else "raw[i];")
            + f" ap_uint<{width}> w = b; p[i].range({width - 1}, 0) = w; }} }}",
        ]
        write += [
            f"{{ static {container} raw[{count * words}]; {arg.c_type}* p = {first};",
            f"  for (int i = 0; i < {count}; i++) {{ ap_uint<{width}> b = p[i].range({width - 1}, 0); "
            + (
                "ap_uint<128> b2 = b; raw[2 * i] = b2.to_uint64(); raw[2 * i + 1] = (b2 >> 64).to_uint64(); }"
                if words == 2
                else f"raw[i] = ({container})b.to_uint64(); }}"
            ),
            f"  write_raw(dir, {path_out}, raw, sizeof(raw)); }}",
        ]
    passed = var if arg.is_array else f"{var}[0]"
    return read, write, passed


def _driver(calls: list[Call]) -> str:
    lines = [
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <string>",
        "static void read_raw(const char* dir, const char* name, void* data, size_t size) {",
        '  std::string path = std::string(dir) + "/" + name; FILE* f = std::fopen(path.c_str(), "rb");',
        '  if (!f || std::fread(data, 1, size, f) != size) { std::fprintf(stderr, "cannot read %s\\n", path.c_str()); std::exit(2); }',
        "  std::fclose(f);",
        "}",
        "static void write_raw(const char* dir, const char* name, const void* data, size_t size) {",
        '  std::string path = std::string(dir) + "/" + name; FILE* f = std::fopen(path.c_str(), "wb");',
        '  if (!f || std::fwrite(data, 1, size, f) != size) { std::fprintf(stderr, "cannot write %s\\n", path.c_str()); std::exit(2); }',
        "  std::fclose(f);",
        "}",
        "int main(int argc, char** argv) {",
        '  const char* dir = argc > 1 ? argv[1] : ".";',
    ]
    for k, call in enumerate(calls):
        signature = call.signature
        passed, writes = [], []
        lines.append("  {")
        for arg in signature.args:
            read, write, expr = _driver_arg(k, arg, _bits_dtype(parse_dtype(arg.dtype)))
            lines += [f"    {line}" for line in read]
            writes += [f"    {line}" for line in write] if arg.is_array else []
            passed.append(expr)
        call_text = f"{signature.name}({', '.join(passed)})"
        if signature.ret_c_type is None:
            lines.append(f"    {call_text};")
        else:
            ret = CArg("ret", signature.ret_c_type, signature.ret_dtype or "", (), False)
            lines.append(f"    static {signature.ret_c_type} c{k}_ret[1];")
            lines.append(f"    c{k}_ret[0] = {call_text};")
            _, write, _ = _driver_arg(
                k, CArg("ret", ret.c_type, ret.dtype, (1,), True), _bits_dtype(parse_dtype(ret.dtype))
            )
            writes += [f"    {line}" for line in write]
        lines += writes
        lines.append("  }")
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def run_calls(code: str, calls: list[Call], tmp_path: Path) -> list[dict[str, np.ndarray]]:
    """Compile `code` with a driver for `calls` (one translation unit), run it, return the outputs.

    Each result dict maps array argument names (and "ret") to raw-bit integers (fixed-point as its
    raw bits) or floats, shaped like the argument.
    """
    (tmp_path / "kernel.cpp").write_text(code)
    (tmp_path / "driver.cpp").write_text('#include "kernel.cpp"\n' + _driver(calls))
    for k, call in enumerate(calls):
        for arg in call.signature.args:
            _storage(arg, call.inputs[arg.name]).tofile(tmp_path / f"{k}_{arg.name}.in")
    binary = tmp_path / "driver"
    compile_cpp([tmp_path / "driver.cpp"], binary, uses_ap(code))
    done = subprocess.run(
        [str(binary), str(tmp_path)], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    results = []
    for k, call in enumerate(calls):
        outputs = {}
        signature = call.signature
        specs = [a for a in signature.args if a.is_array]
        if signature.ret_c_type is not None:
            specs.append(CArg("ret", signature.ret_c_type, signature.ret_dtype or "", (1,), True))
        for arg in specs:
            dtype = _bits_dtype(parse_dtype(arg.dtype))
            storage = np.fromfile(tmp_path / f"{k}_{arg.name}.out", dtype=dtype.np_storage).reshape(arg.shape)
            outputs[arg.name] = storage if dtype.is_float else raw_ints(storage, dtype)
        results.append(outputs)
    return results


def run_llvm(module: ir.Module, name: str, inputs: dict[str, object]) -> dict[str, np.ndarray]:
    """The same call through hclbuild's LLVM reference (to_llvm + llvmlite JIT), outputs like run_calls."""
    import hclbuild.compiler.to_llvm as to_llvm
    import hclbuild.runtime.llvm as llvm_runtime
    from hclbuild.compiler.emit_hls import c_signature
    from hclbuild.dsl.array import Array

    operation = func_op(module, name)
    signature = c_signature(operation)
    jit = llvm_runtime.JITModule(to_llvm.lower_to_llvm_ir(module))
    from hclbuild.compiler.signature import signature_of

    function = jit.function(signature_of(operation))
    args, arrays = [], {}
    for arg in signature.args:
        dtype = parse_dtype(arg.dtype)
        value = inputs[arg.name]
        if not arg.is_array:
            args.append(value)
            continue
        storage = _storage(arg, value).view(dtype.np_storage)
        arrays[arg.name] = Array(storage.copy(), dtype)
        args.append(arrays[arg.name])
    ret = function(*args)
    outputs = {}
    for arg_name, array in arrays.items():
        dtype = _bits_dtype(array.dtype)
        outputs[arg_name] = (
            array.storage if dtype.is_float else raw_ints(array.storage.view(dtype.np_storage), dtype)
        )
    if signature.ret_dtype is not None:
        outputs["ret"] = ret
    return outputs


def wrap(values: object, dtype: str) -> np.ndarray:
    """Python/numpy integers wrapped to `dtype` (an int dtype name), as an object array."""
    dt = parse_dtype(dtype)
    return np.vectorize(dt.wrap_int, otypes=[object])(np.asarray(values, dtype=object))


def as_ints(values: np.ndarray) -> list:
    """Flat list of Python ints, for exact comparisons whatever the numpy dtype."""
    return [int(v) for v in np.asarray(values).reshape(-1)]


# ---- random integer op mixes with their Python semantics (for bit-exactness tests) ---------------

_BINARY = {
    "addi": lambda x, y, w: x + y,
    "subi": lambda x, y, w: x - y,
    "muli": lambda x, y, w: x * y,
    "andi": lambda x, y, w: x & y,
    "ori": lambda x, y, w: x | y,
    "xori": lambda x, y, w: x ^ y,
    "maxsi": lambda x, y, w: x if _signed(x, w) >= _signed(y, w) else y,
    "minsi": lambda x, y, w: x if _signed(x, w) <= _signed(y, w) else y,
    "maxui": lambda x, y, w: max(x, y),
    "minui": lambda x, y, w: min(x, y),
}
_SHIFTS = {
    "shli": lambda x, s, w: x << s,
    "shrsi": lambda x, s, w: _signed(x, w) >> s,
    "shrui": lambda x, s, w: x >> s,
}
_DIVISIONS = {
    "divsi": lambda x, d, w: _tdiv(_signed(x, w), _signed(d, w)),
    "remsi": lambda x, d, w: _signed(x, w) - _signed(d, w) * _tdiv(_signed(x, w), _signed(d, w)),
    "divui": lambda x, d, w: x // d,
    "remui": lambda x, d, w: x % d,
    "floordivsi": lambda x, d, w: _signed(x, w) // _signed(d, w),
    "ceildivsi": lambda x, d, w: -(-_signed(x, w) // _signed(d, w)),
    "ceildivui": lambda x, d, w: -(-x // d),
}
_PREDICATES = {
    "eq": lambda x, y, w: x == y,
    "ne": lambda x, y, w: x != y,
    "slt": lambda x, y, w: _signed(x, w) < _signed(y, w),
    "sle": lambda x, y, w: _signed(x, w) <= _signed(y, w),
    "sgt": lambda x, y, w: _signed(x, w) > _signed(y, w),
    "sge": lambda x, y, w: _signed(x, w) >= _signed(y, w),
    "ult": lambda x, y, w: x < y,
    "ule": lambda x, y, w: x <= y,
    "ugt": lambda x, y, w: x > y,
    "uge": lambda x, y, w: x >= y,
}


def _signed(x: int, w: int) -> int:
    return x - (1 << w) if x >> (w - 1) else x


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclass
class RandomKernel:
    """A func.func of random integer ops on two input arrays, with the expected output columns."""

    text: str
    name: str
    dtypes: tuple[str, str, str]
    inputs: dict[str, list[int]]
    expected: list[list[int]]  # [row][column], raw bits of the output dtype's width


class _RandomBuilder:
    """Writes MLIR lines and evaluates them on every input row at once (values are raw unsigned bits)."""

    def __init__(self, width: int, rows: list[tuple[int, int]], rng):
        self.w, self.rng, self.lines, self.count = width, rng, [], 0
        self.mask = (1 << width) - 1
        self.values = {"%a": [a for a, _ in rows], "%b": [b for _, b in rows]}
        self.pool = ["%a", "%b"]  # values of type i<width> that ops may take

    def emit(self, text: str, rows: list[int]) -> str:
        self.count += 1
        name = f"%x{self.count}"
        self.lines.append(f"      {name} = {text}")
        self.values[name] = rows
        return name

    def const(self, value: int, width: int | None = None) -> str:
        width = width or self.w
        mask = (1 << width) - 1
        return self.emit(f"arith.constant {_signed(value & mask, width)} : i{width}", [value & mask] * 8)

    def op(self) -> str:
        w, t, rng = self.w, f"i{self.w}", self.rng
        x, y = rng.choice(self.pool), rng.choice(self.pool)
        vx, vy, m = self.values[x], self.values[y], self.mask
        kind = rng.choice(["binary"] * 4 + ["shift", "division", "compare", "resize", "select", "index"])
        if kind == "shift" and w > 1:
            name, fn = rng.choice(list(_SHIFTS.items()))
            amount = self.emit(f"arith.remui {y}, {self.const(w)} : {t}", [v % w for v in vy])
            rows = [fn(a, s, w) & m for a, s in zip(vx, self.values[amount])]
            return self.emit(f"arith.{name} {x}, {amount} : {t}", rows)
        if kind == "division" and w >= 3:
            # a divisor that is positive whatever the view: (y >> 1) | 1
            choices = [k for k in _DIVISIONS if not (w > 64 and k == "floordivsi")]  # see test docstring
            name = rng.choice(choices)
            one = self.const(1)
            half = self.emit(f"arith.shrui {y}, {one} : {t}", [v >> 1 for v in vy])
            divisor = self.emit(f"arith.ori {half}, {one} : {t}", [v | 1 for v in self.values[half]])
            rows = [_DIVISIONS[name](a, d, w) & m for a, d in zip(vx, self.values[divisor])]
            return self.emit(f"arith.{name} {x}, {divisor} : {t}", rows)
        if kind in ("compare", "select"):
            predicate = rng.choice(list(_PREDICATES))
            bits = [int(_PREDICATES[predicate](a, b, w)) for a, b in zip(vx, vy)]
            flag = self.emit(f"arith.cmpi {predicate}, {x}, {y} : {t}", bits)
            if kind == "select":
                return self.emit(
                    f"arith.select {flag}, {y}, {x} : {t}", [b if c else a for a, b, c in zip(vx, vy, bits)]
                )
            if w == 1:
                return self.emit(f"arith.xori {flag}, {x} : {t}", [c ^ a for c, a in zip(bits, vx)])
            if rng.random() < 0.5:
                return self.emit(f"arith.extui {flag} : i1 to {t}", bits)
            return self.emit(f"arith.extsi {flag} : i1 to {t}", [m if c else 0 for c in bits])
        if kind == "resize":
            other = rng.choice([1, 8, 12, 16, 32, 33, 64, 100, 128])
            om = (1 << other) - 1
            signed = rng.random() < 0.5
            ext = "extsi" if signed else "extui"
            if other > w:
                wide = [(_signed(a, w) if signed else a) & om for a in vx]
                e = self.emit(f"arith.{ext} {x} : {t} to i{other}", wide)
                sq = self.emit(f"arith.muli {e}, {e} : i{other}", [(v * v) & om for v in wide])
                return self.emit(f"arith.trunci {sq} : i{other} to {t}", [v & m for v in self.values[sq]])
            if other < w:
                e = self.emit(f"arith.trunci {x} : {t} to i{other}", [a & om for a in vx])
                d = self.emit(f"arith.addi {e}, {e} : i{other}", [(v + v) & om for v in self.values[e]])
                rows = [(_signed(v, other) if signed else v) & m for v in self.values[d]]
                return self.emit(f"arith.{ext} {d} : i{other} to {t}", rows)
        if kind == "index" and 8 <= w <= 32:
            # index is a C int in the emitted code: keep the values small (docs of emit_hls)
            low = self.emit(f"arith.andi {x}, {self.const(127)} : {t}", [a & 127 for a in vx])
            cast = rng.choice(["index_cast", "index_castui"])
            i = self.emit(f"arith.{cast} {low} : {t} to index", self.values[low])
            three = self.emit("arith.constant 3 : index", [3] * 8)
            j = self.emit(f"arith.addi {i}, {three} : index", [v + 3 for v in self.values[i]])
            return self.emit(f"arith.index_cast {j} : index to {t}", [v & m for v in self.values[j]])
        name, fn = rng.choice(list(_BINARY.items()))
        return self.emit(f"arith.{name} {x}, {y} : {t}", [fn(a, b, w) & m for a, b in zip(vx, vy)])


def random_int_kernel(name: str, width: int, rng, ops: int = 24) -> RandomKernel:
    """A kernel of `ops` random integer ops at `width` bits over 8 rows, with its expected results."""
    mask = (1 << width) - 1

    def column() -> list[int]:
        special = [0, 1, mask, 1 << (width - 1), mask >> 1]
        return [rng.choice(special) if rng.random() < 0.4 else rng.getrandbits(width) for _ in range(8)]

    a, b = column(), column()
    builder = _RandomBuilder(width, list(zip(a, b)), rng)
    builder.pool += [builder.const(rng.getrandbits(width)), builder.const(mask >> 1)]
    outputs = []
    for _ in range(ops):
        outputs.append(builder.op())
        builder.pool.append(outputs[-1])
    t = f"i{width}"
    stores = [f"      memref.store {v}, %O[%i, %c{k}] : memref<8x{ops}x{t}>" for k, v in enumerate(outputs)]
    kinds = [rng.choice(["int", "uint"]) for _ in range(3)]
    dtypes = tuple("uint1" if width == 1 else f"{kind}{width}" for kind in kinds)
    constants = "\n".join(f"    %c{k} = arith.constant {k} : index" for k in range(ops))
    text = (
        f"  func.func @{name}(%A: memref<8x{t}>, %B: memref<8x{t}>, %O: memref<8x{ops}x{t}>) attributes "
        f'{{hcl.arg_names = ["A", "B", "O"], hcl.arg_types = ["{dtypes[0]}", "{dtypes[1]}", "{dtypes[2]}"]}} {{\n'
        f"{constants}\n    affine.for %i = 0 to 8 {{\n"
        f"      %a = memref.load %A[%i] : memref<8x{t}>\n      %b = memref.load %B[%i] : memref<8x{t}>\n"
        + "\n".join(builder.lines + stores)
        + '\n    } {hcl.loop_name = "i", hcl.op_name = "O"}\n    return\n  }\n'
    )
    expected = [[builder.values[v][row] for v in outputs] for row in range(8)]
    return RandomKernel(text, name, dtypes, {"A": a, "B": b}, expected)
