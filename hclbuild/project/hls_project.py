"""Write one function's Vitis HLS project folder, `build/<name>/hls/<func>/`.

    <func>.cpp  <func>.h     the emitted function (given as text)
    tb_<func>.cpp            testbench: the argument table and the call
    hclbuild_tb.{h,cpp}      the harness it links: reads data/, compares, prints HCLBUILD_CSIM {...}
    data/                    golden vectors (project.golden format), the reference run's
    run_hls.tcl              classic flow, steps from `-tclargs`
    hls_config.cfg           Vitis unified flow (v++ -c --mode hls)
    Makefile, README.md

The templates only loop and branch; every value they print is prepared here from plain data
(the C signature, the golden vectors, the project config), so this module needs no emitter.
Every file goes through write_if_changed: an unchanged function keeps its timestamps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hclbuild.atomic import write_if_changed
from hclbuild.c_names import is_c_identifier
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import CompileError, DTypeError
from hclbuild.hls_interface import RTL_BLACKBOX_MACRO
from hclbuild.project.config import ProjectConfig
from hclbuild.project.golden import RETURN_NAME, container_bytes, vector_file
from hclbuild.project.layout import HARNESS_HEADER, HARNESS_SOURCE, blackbox_file_name, hls_project_files
from hclbuild.project.templates import harness_text, render_template
from hclbuild.runtime.aptypes import ap_types_include_dir
from hclbuild.runtime.csim import AP_GXX_FLAGS, GXX_FLAGS, OUT_DIR, needs_ap_include, testbench_name
from hclbuild.runtime.vitis import PACKAGE_FORMAT_SINCE, output_format_key

# the Makefile's g++ flags: csim's, but a warning does not stop a user's build (csim's -Werror holds
# hclbuild to warning-free C++; a user's edit, or another g++ on a Vitis host, need not be)
MAKEFILE_GXX_FLAGS = tuple(flag for flag in GXX_FLAGS if flag != "-Werror")
MAX_PRINTED_MISMATCHES = 10
DATA_DIR = "data"

_STANDARD_INT = re.compile(r"^(u?)int(8|16|32|64)_t$")


class ArgLike(Protocol):
    """What the project needs of one C argument (compiler.emit_hls.CArg has these fields)."""

    name: str
    c_type: str
    dtype: Any  # DType or its name
    shape: Sequence[int]
    is_array: bool


@dataclass(frozen=True)
class FunctionArg:
    """One argument of a generated C function: name, C element type, DSL dtype, shape."""

    name: str
    c_type: str
    dtype: DType | str
    shape: tuple[int, ...] = ()
    is_array: bool = True


@dataclass(frozen=True)
class _TbArg:
    """Everything the testbench template prints about one argument (or the return value)."""

    name: str
    var: str
    c_type: str
    dtype: str
    shape_text: str
    dims: str
    count: int
    kind: str  # "real" | "int" | "bool" | "ap" | "words" (more than 128 bits)
    bits: int
    signed: str  # C++ literal
    frac: int
    wide: bool  # more than 64 bits: two 64-bit halves
    words: int  # 64-bit words that hold the bits
    container: int
    nbytes: int
    in_file: str
    out_file: str
    real_format: str
    stream: str = ""  # "read": pushed into an hls::stream before the call; "write": popped after it
    values: str = ""  # C expression of the argument's elements, for the harness's table
    input: str = "true"  # C++ literal: the harness reads in_<name>.bin before the call
    output: str = "false"  # C++ literal: the harness compares it with out_<name>.bin after the call

    @property
    def harness_kind(self) -> str:
        """The hclbuild_tb::Kind of a real, int or bool element (ap types go through ap_arg)."""
        return {"real": "REAL", "int": "INT", "bool": "BOOL"}[self.kind]


def format_clock(period_ns: float) -> str:
    """Clock period as Tcl/cfg text: 10.0 -> "10", 3.333 -> "3.333"."""
    return repr(float(period_ns)).removesuffix(".0")


def export_format(flow_target: str) -> str:
    """export_design / package.output.format for a flow target: Vivado IP or Vitis kernel."""
    return "xo" if flow_target == "vitis" else "ip_catalog"


def _tb_kind(c_type: str, dtype: DType, where: str) -> str:
    """How the testbench moves raw bits in and out of one C element type."""
    if c_type in ("float", "double"):
        if not dtype.is_float or dtype.bits != (32 if c_type == "float" else 64):
            raise CompileError(f"{where}: C type {c_type} does not hold {dtype.name}")
        return "real"
    if c_type == "bool":
        if not (dtype.is_integral_bits and dtype.bits == 1):
            raise CompileError(f"{where}: C type bool does not hold {dtype.name}")
        return "bool"
    standard = _STANDARD_INT.match(c_type)
    if standard:
        if not (dtype.is_integral_bits or dtype.is_index) or dtype.bits != int(standard.group(2)):
            raise CompileError(f"{where}: C type {c_type} does not hold {dtype.name}")
        return "int"
    if c_type.startswith("ap_"):
        if not dtype.is_integral_bits:
            raise CompileError(f"{where}: C type {c_type} does not hold {dtype.name}")
        return "words" if dtype.bits > 128 else "ap"
    raise CompileError(f"{where}: the testbench cannot pass C type {c_type!r}")


def _shape_of(arg: ArgLike) -> tuple[int, ...]:
    return tuple(int(n) for n in arg.shape)


def _tb_arg(
    name: str,
    var: str,
    c_type: str,
    dtype: DType,
    shape: tuple[int, ...],
    is_array: bool,
    where: str,
    stream: str = "",
) -> _TbArg:
    kind = _tb_kind(c_type, dtype, where)
    count = int(np.prod(shape)) if shape else 1
    dims_shape = shape if shape else (1,)
    return _TbArg(
        name=name,
        var=var,
        c_type=c_type,
        dtype=dtype.name,
        shape_text="x".join(str(n) for n in shape) if shape else "scalar",
        dims="".join(f"[{n}]" for n in dims_shape) if is_array else "",
        count=count,
        kind=kind,
        bits=dtype.bits,
        signed="true" if dtype.is_signed else "false",
        frac=dtype.frac,
        wide=dtype.bits > 64,
        words=-(-dtype.bits // 64),
        container=container_bytes(dtype),
        nbytes=count * container_bytes(dtype),
        in_file=vector_file("in", name),
        out_file=vector_file("out", name),
        real_format="%.9g" if dtype.bits == 32 else "%.17g",
        stream=stream,
        values=f"{var}_values" if stream else f"reinterpret_cast<{c_type}*>(&{var})",
    )


def _signature_parts(signature: Any) -> tuple[list[ArgLike], str, str | None]:
    """(args, return C type, function name or None) of a CSignature-like object or an arg list."""
    if hasattr(signature, "args"):
        return (
            list(signature.args),
            getattr(signature, "ret_c_type", None) or "void",
            getattr(signature, "name", None),
        )
    return list(signature), "void", None


def function_project_files(out_dir: str | Path, func_name: str) -> list[Path]:
    """The fixed files write_function_project always writes (doit targets); vectors vary by argument."""
    return hls_project_files(Path(out_dir), func_name)


def write_function_project(
    out_dir: str | Path,
    func_name: str,
    cpp_text: str,
    header_text: str,
    signature: Sequence[ArgLike] | Any,
    config: ProjectConfig,
    *,
    ap_include_dir: str | Path | None = None,
    blackboxes: Sequence[str] = (),
    as_blackbox: bool = False,
) -> list[Path]:
    """Write the HLS folder of one function but its data/ (the reference run's, which links the
    golden vectors there); returns every file written or kept.

    `signature` is the emitter's CSignature (or a list of its args: name, c_type, dtype, shape,
    is_array). `blackboxes` are the functions whose RTL this project takes (their
    `<f>_blackbox.json` in this folder); `as_blackbox` synthesizes the function to be a blackbox of
    its caller: vivado flow (block-level ports, active-High reset) and a clock enable, which a
    blackbox needs (UG1399).
    """
    where = f"{config.name}/{func_name}"
    if not is_c_identifier(func_name):
        raise CompileError(f"{where}: function name is not a C identifier")
    tb_args, ret = testbench_args(where, func_name, signature)
    values = _project_values(config, func_name, blackboxes, as_blackbox)
    testbench = _testbench(values, tb_args, ret)
    ap_needed = needs_ap_include(cpp_text, header_text, testbench)
    found = (
        (Path(ap_include_dir) if ap_include_dir is not None else ap_types_include_dir())
        if ap_needed
        else None
    )
    files: dict[str, str] = {
        f"{func_name}.cpp": cpp_text,
        f"{func_name}.h": header_text,
        testbench_name(func_name): testbench,
        HARNESS_HEADER: harness_text(HARNESS_HEADER),
        HARNESS_SOURCE: harness_text(HARNESS_SOURCE),
        "run_hls.tcl": render_template("run_hls.tcl.j2", **values),
        # one tb.file a vector (UG1399 "Test Bench Sources": one statement per file, not a folder)
        "hls_config.cfg": render_template(
            "hls_config.cfg.j2", **values, golden_files=_golden_files(tb_args, ret)
        ),
        "Makefile": render_template(
            "Makefile.j2",
            **values,
            ap_needed=ap_needed,
            ap_dir=str(found) if found is not None else "",
            cxxflags=" ".join((*MAKEFILE_GXX_FLAGS, *(AP_GXX_FLAGS if ap_needed else ()))),
        ),
        "README.md": render_template("README.md.j2", **values),
    }
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in files.items():
        write_if_changed(folder / name, text)
        written.append(folder / name)
    return written


def testbench_args(
    where: str, func_name: str, signature: Sequence[ArgLike] | Any
) -> tuple[list[_TbArg], _TbArg | None]:
    """What the testbench passes for each argument of the C signature, and for its return value."""
    args, ret_c_type, sig_name = _signature_parts(signature)
    if sig_name is not None and sig_name != func_name:
        raise CompileError(f"{where}: the C signature is for function {sig_name}")
    tb_args: list[_TbArg] = []
    seen: set[str] = set()
    for arg in args:
        if not is_c_identifier(arg.name) or arg.name in seen:
            raise CompileError(f"{where}: argument name {arg.name!r} is not a unique C identifier")
        seen.add(arg.name)
        try:
            dtype = parse_dtype(arg.dtype)
        except DTypeError as exc:
            raise CompileError(f"{where}: argument {arg.name}: {exc}") from None
        tb_args.append(
            _tb_arg(
                arg.name,
                f"arg_{arg.name}",
                arg.c_type.strip(),
                dtype,
                _shape_of(arg),
                bool(arg.is_array),
                f"{where}: argument {arg.name}",
                getattr(arg, "stream", ""),
            )
        )
    if ret_c_type.strip() == "void":
        return tb_args, None
    declared = getattr(signature, "ret_dtype", None)  # the emitter's CSignature names it
    if declared is None:
        raise CompileError(
            f"{where}: the function returns {ret_c_type}, of a dtype its signature does not give"
        )
    ret = _tb_arg(
        RETURN_NAME,
        "ret_value",
        ret_c_type.strip(),
        parse_dtype(declared),
        (),
        False,
        f"{where}: return value",
    )
    return tb_args, ret


def _project_values(
    config: ProjectConfig, func_name: str, blackboxes: Sequence[str], as_blackbox: bool
) -> dict[str, Any]:
    """What the templates of the project's files print about the project and the function."""
    flow_target = "vivado" if as_blackbox else config.flow_target
    return {
        "project": config.name,
        "func": func_name,
        "header": f"{func_name}.h",
        "part": config.part,
        "clock_period": format_clock(config.clock_period_ns),
        "clock_uncertainty": (
            format_clock(config.clock_uncertainty_ns) if config.clock_uncertainty_ns is not None else None
        ),
        "flow_target": flow_target,
        "export_format": export_format(flow_target),
        "blackbox_files": [blackbox_file_name(f) for f in blackboxes],
        # what a synthesis reads: run_hls.tcl reuses one only when it is newer than all of these
        "synthesis_sources": [
            f"{func_name}.cpp",
            f"{func_name}.h",
            "run_hls.tcl",
            *(blackbox_file_name(f) for f in blackboxes),
        ],
        "blackbox_macro": RTL_BLACKBOX_MACRO,
        "clock_enable": as_blackbox,
        "output_format_key": output_format_key(config.vitis_version),
        "vitis_version": config.vitis_version or f"{PACKAGE_FORMAT_SINCE[0]}.{PACKAGE_FORMAT_SINCE[1]}+",
        "rtol": repr(float(config.rtol)),
        "atol": repr(float(config.atol)),
        "max_printed": MAX_PRINTED_MISMATCHES,
    }


def _compared_outputs(tb_args: list[_TbArg], ret: _TbArg | None) -> list[_TbArg]:
    # a stream the function reads is consumed by the call: only what it writes is compared
    return [a for a in tb_args if a.dims and a.stream != "read"] + ([ret] if ret else [])


def _golden_files(tb_args: list[_TbArg], ret: _TbArg | None) -> list[str]:
    """The vectors the testbench reads, as hls_config.cfg's tb.file entries name them."""
    return [f"{DATA_DIR}/{a.in_file}" for a in tb_args] + [
        f"{DATA_DIR}/{a.out_file}" for a in _compared_outputs(tb_args, ret)
    ]


def _testbench(values: dict[str, Any], tb_args: list[_TbArg], ret: _TbArg | None) -> str:
    """tb_<func>.cpp: the table of the arguments the harness reads from data/ and compares, and the
    call."""
    outputs = _compared_outputs(tb_args, ret)
    passed = [*tb_args, *([ret] if ret else [])]
    ap_header = None
    if any(a.kind in ("ap", "words") for a in passed):
        uses_fixed = any(a.kind in ("ap", "words") and "fixed" in a.c_type for a in passed)
        ap_header = "ap_fixed.h" if uses_fixed else "ap_int.h"
    compared = {a.name for a in outputs}
    # the harness's table: every argument is read before the call; outputs (and the return value,
    # which has no input) are compared after it
    table = [replace(a, output="true" if a.name in compared else "false") for a in tb_args]
    if ret is not None:
        table.append(replace(ret, input="false", output="true"))
    return render_template(
        "tb.cpp.j2",
        **values,
        args=tb_args,
        ret=ret,
        table=table,
        ap_header=ap_header,
        call_args=", ".join(a.var for a in tb_args),
        call_result=f"{ret.var} = " if ret else "",
    )


__all__ = [
    "OUT_DIR",
    "FunctionArg",
    "export_format",
    "format_clock",
    "function_project_files",
    "write_function_project",
]
