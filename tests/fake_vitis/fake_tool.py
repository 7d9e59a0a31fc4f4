#!/usr/bin/env python3
"""A stand-in for vitis_hls, vitis-run and v++ (the name it is called by picks which): for tests only.

It records its argv, then writes files where the real tool would, so that hclbuild's runner, its
report discovery, the blackbox writer and the report task can run on a machine without Vitis. It
synthesizes nothing: every report it writes says in its first line that no Vitis ran, and its
numbers are the fixed ones of csynth_template.xml. Standard library only, no hclbuild import.

Environment (all optional):
    FAKE_VITIS_LOG       JSON-lines file of calls (default: fake_vitis_calls.jsonl in the cwd)
    FAKE_VITIS_VERSION   the release --version prints and the reports carry (default 2025.1)
    FAKE_VITIS_EXIT      exit with this code after recording the call, writing nothing
    FAKE_VITIS_CSYNTH    a csynth XML template to use instead of csynth_template.xml
    (blackbox JSON files named by `add_files -blackbox` / `syn.blackbox.file` must exist and list
    files that exist, or the call is refused as Vitis would refuse it)
    HCLBUILD_STEPS       the steps of `vitis-run --mode hls --tcl` (as run_hls.tcl reads them)

What it understands:
    vitis_hls -f <tcl> [-tclargs steps...]          reads open_project/set_top/open_solution from
    vitis-run --mode hls --tcl <tcl>                the script; writes <prj>/<solution>/...
    v++ -c --mode hls --config <cfg> --work_dir W    reads syn.top; writes W/hls/syn/...
    vitis-run --mode hls --csim|--cosim|--package|--impl --config <cfg> --work_dir W
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTICE = "<!-- written by hclbuild's tests/fake_vitis stand-in: no Vitis ran, the numbers are fixed -->"
TCL_STEPS = ("csim", "csynth", "cosim", "export", "impl")
_PROTOTYPE = re.compile(r"^\s*(?:[\w:<>, ]+?)\s+(\w+)\s*\(([^)]*)\)\s*;", re.MULTILINE)
_PARAM = re.compile(r"^\s*(.+?)\s+(\w+)\s*((?:\[\d+\])*)\s*$")
_STREAM = re.compile(r"^\s*hls::stream<\s*(.+?)\s*>\s*&\s*(\w+)\s*$")


def _split_params(text: str) -> list[str]:
    """A prototype's parameters: commas inside <...> (ap_int<8, ...>, stream<T>) split nothing."""
    params, depth, current = [], 0, ""
    for char in text:
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += char
    return [*params, current] if current.strip() else params


def main(argv: list[str]) -> int:
    tool = Path(argv[0]).name
    args = argv[1:]
    version = os.environ.get("FAKE_VITIS_VERSION", "2025.1")
    if args and args[0] in ("-version", "--version", "-v"):
        print(f"****** {tool} v{version} (64-bit) -- hclbuild test stand-in")
        return 0
    _record(tool, args)
    code = int(os.environ.get("FAKE_VITIS_EXIT", "0") or 0)
    if code:
        print(f"ERROR: [FAKE 1] {tool} stand-in told to fail with code {code}", file=sys.stderr)
        return code
    print(f"INFO: [FAKE 0] {tool} stand-in {' '.join(args)}")
    try:
        if tool == "vitis_hls":
            return _tcl_flow(_option(args, "-f"), _tclargs(args), version)
        if tool == "vitis-run" and "--tcl" in args:
            return _tcl_flow(_option(args, "--tcl"), os.environ.get("HCLBUILD_STEPS", "").split(), version)
        if tool in ("v++", "vitis-run"):
            return _unified_flow(tool, args, version)
    except _Refused as exc:
        print(f"ERROR: [FAKE 2] {exc}", file=sys.stderr)
        return 1
    print(f"ERROR: [FAKE 3] unknown stand-in {tool}", file=sys.stderr)
    return 2


class _Refused(Exception):
    """The call is one the real tool would refuse."""


def _record(tool: str, args: list[str]) -> None:
    log = Path(os.environ.get("FAKE_VITIS_LOG") or "fake_vitis_calls.jsonl")
    entry = {"tool": tool, "argv": args, "cwd": os.getcwd(), "steps": os.environ.get("HCLBUILD_STEPS")}
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def _option(args: list[str], name: str) -> str:
    if name not in args or args.index(name) + 1 >= len(args):
        raise _Refused(f"missing {name} <value>")
    return args[args.index(name) + 1]


def _tclargs(args: list[str]) -> list[str]:
    return args[args.index("-tclargs") + 1 :] if "-tclargs" in args else []


def _tcl_flow(script: str, words: list[str], version: str) -> int:
    tcl = Path(script)
    if not tcl.is_file():
        raise _Refused(f"cannot open Tcl script {script}")
    text = tcl.read_text(encoding="utf-8")
    project = _tcl_word(text, r"open_project\s+-reset\s+(\S+)")
    top = _tcl_word(text, r"set_top\s+(\S+)")
    solution = _tcl_word(text, r"open_solution\s+(?:-reset\s+)?(\S+)")
    steps = [word for word in words if word in TCL_STEPS] or ["csim", "csynth"]
    folder = tcl.parent
    if {"cosim", "export", "impl"} & set(steps) and "csynth" not in steps:
        # as run_hls.tcl decides: the solution's synthesis is reused when newer than its sources
        report = folder / project / solution / "syn" / "report" / f"{top}_csynth.xml"
        sources = [folder / f"{top}.cpp", folder / f"{top}.h", tcl]
        if not report.is_file() or any(
            not path.is_file() or path.stat().st_mtime > report.stat().st_mtime for path in sources
        ):
            steps.append("csynth")
    if {"csim", "cosim"} & set(steps) and not (folder / "data").is_dir():
        raise _Refused("the testbench's data/ folder does not exist")
    clock_enable = "config_interface -clock_enable" in text
    blackboxes = re.findall(
        r"^[ \t]*(?:hclbuild_run[ \t]+)?add_files[ \t]+-blackbox[ \t]+(\S+)", text, re.MULTILINE
    )
    _check_blackboxes(folder, blackboxes)
    _write_results(folder / project / solution, top, folder, steps, version, clock_enable)
    return 0


def _check_blackboxes(folder: Path, files: list[str]) -> None:
    """Refuse what Vitis would: a blackbox JSON that is missing, malformed, or names files that are not there."""
    for name in files:
        path = folder / name
        try:
            description = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise _Refused(f"cannot read blackbox description {name}: {exc}") from None
        for key in (
            "c_function_name",
            "rtl_top_module_name",
            "c_files",
            "rtl_files",
            "c_parameters",
            "rtl_common_signal",
            "rtl_performance",
        ):
            if key not in description:
                raise _Refused(f"blackbox description {name} has no {key}")
        listed = [entry["c_file"] for entry in description["c_files"]] + list(description["rtl_files"])
        for relative in listed:
            if not (folder / relative).is_file():
                raise _Refused(f"blackbox description {name} lists {relative}, which does not exist")


def _tcl_word(text: str, pattern: str) -> str:
    # a command line, possibly through run_hls.tcl's hclbuild_run wrapper; never a comment
    match = re.search(r"^[ \t]*(?:hclbuild_run[ \t]+)?" + pattern, text, re.MULTILINE)
    if match is None:
        raise _Refused(f"the Tcl script has no line matching {pattern!r}")
    return match.group(1)


def _unified_flow(tool: str, args: list[str], version: str) -> int:
    if _option(args, "--mode") != "hls":
        raise _Refused("only --mode hls is supported")
    cfg = Path(_option(args, "--config"))
    if not cfg.is_file():
        raise _Refused(f"cannot open config file {cfg}")
    settings = _cfg(cfg)
    top = settings.get("syn.top")
    if not top:
        raise _Refused(f"{cfg} has no syn.top")
    work = Path(_option(args, "--work_dir") if "--work_dir" in args else top)
    clock_enable = settings.get("syn.interface.clock_enable") in ("1", "true")
    if tool == "v++":
        if "-c" not in args:
            raise _Refused("v++ --mode hls needs -c")
        _check_blackboxes(cfg.parent, _cfg_all(cfg, "syn.blackbox.file"))
        _write_results(work / "hls", top, cfg.parent, ["csynth"], version, clock_enable)
        return 0
    steps = [
        step
        for step, flag in (
            ("csim", "--csim"),
            ("cosim", "--cosim"),
            ("export", "--package"),
            ("impl", "--impl"),
        )
        if flag in args
    ]
    if not steps:
        raise _Refused("vitis-run needs one of --csim, --cosim, --package, --impl or --tcl")
    if set(steps) - {"csim"} and not (work / "hls" / "syn" / "report").is_dir():
        # UG1702: for --cosim and --impl the work dir must hold a compiled HLS component
        raise _Refused(f"{work} does not contain a synthesized HLS component (run v++ -c first)")
    _write_results(work / "hls", top, cfg.parent, steps, version, clock_enable)
    return 0


def _cfg(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line and not line.startswith("["):
            key, value = line.split("=", 1)
            values.setdefault(key.strip(), value.strip())
    return values


def _cfg_all(path: Path, key: str) -> list[str]:
    """Every value of a repeatable key (syn.blackbox.file, tb.file)."""
    values = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line and line.split("=", 1)[0].strip() == key:
            values.append(line.split("=", 1)[1].strip())
    return values


def _write_results(
    root: Path, top: str, sources: Path, steps: list[str], version: str, clock_enable: bool
) -> None:
    if "csim" in steps:
        _write(
            root / "csim" / "report" / f"{top}_csim.log",
            "INFO: [SIM 2] *************** CSIM start ***************\n"
            "INFO: [FAKE 4] hclbuild stand-in: no simulation ran\n"
            "INFO: [SIM 1] CSim done with 0 errors.\n",
        )
    if "csynth" in steps:
        report = _csynth_xml(top, sources, version, clock_enable)
        _write(root / "syn" / "report" / f"{top}_csynth.xml", report)
        _write(root / "syn" / "report" / "csynth.xml", report)
        _write(
            root / "syn" / "verilog" / f"{top}.v",
            f"// hclbuild test stand-in: not RTL from Vitis\nmodule {top}();\nendmodule\n",
        )
    if "cosim" in steps:
        _write(root / "sim" / "report" / f"{top}_cosim.rpt", _cosim_rpt())
    if "export" in steps or "impl" in steps:
        _write(root / "impl" / "export.txt", "hclbuild test stand-in: nothing was packaged\n")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _csynth_xml(top: str, sources: Path, version: str, clock_enable: bool) -> str:
    template = Path(os.environ.get("FAKE_VITIS_CSYNTH") or HERE / "csynth_template.xml")
    cpp = sources / f"{top}.cpp"
    chain = cpp.is_file() and "ap_ctrl_chain" in cpp.read_text(encoding="utf-8")
    ports = _rtl_ports(top, sources / f"{top}.h", chain, clock_enable)
    text = template.read_text(encoding="utf-8")
    return (
        NOTICE + "\n" + text.replace("@TOP@", top).replace("@VERSION@", version).replace("@RTLPORTS@", ports)
    )


def _rtl_ports(top: str, header: Path, chain: bool, clock_enable: bool) -> str:
    """RtlPorts of the interface summary: block control, then ap_memory/ap_none ports per argument
    of the header's prototype (every array as a read-write one-port RAM)."""
    control = "ap_ctrl_chain" if chain else "ap_ctrl_hs"
    # Vitis reports the clock and reset under the block protocol, as every other control port
    ports = [
        ("ap_clk", top, "return value", control, "in", 1),
        ("ap_rst", top, "return value", control, "in", 1),
    ]
    if clock_enable:
        ports.append(("ap_ce", top, "return value", control, "in", 1))
    for name, direction in (("ap_start", "in"), ("ap_done", "out"), ("ap_idle", "out"), ("ap_ready", "out")):
        ports.append((name, top, "return value", control, direction, 1))
    if chain:
        ports.append(("ap_continue", top, "return value", control, "in", 1))
    text = header.read_text(encoding="utf-8") if header.is_file() else ""
    source = (
        header.with_suffix(".cpp").read_text(encoding="utf-8") if header.with_suffix(".cpp").is_file() else ""
    )
    match = next((m for m in _PROTOTYPE.finditer(text) if m.group(1) == top), None)
    params = [p for p in _split_params(match.group(2) if match else "") if p.strip() and p.strip() != "void"]
    for param in params:
        stream = _STREAM.match(param)
        if stream is not None:
            # ap_fifo (the vivado flow's streams): read ports when the body reads it, else write ports
            c_type, name = stream.groups()
            bits = _bits(c_type)
            if re.search(rf"\b{name}\.read\(", source):
                ports += [
                    (f"{name}_dout", name, "pointer", "ap_fifo", "in", bits),
                    (f"{name}_empty_n", name, "pointer", "ap_fifo", "in", 1),
                    (f"{name}_read", name, "pointer", "ap_fifo", "out", 1),
                ]
            else:
                ports += [
                    (f"{name}_din", name, "pointer", "ap_fifo", "out", bits),
                    (f"{name}_full_n", name, "pointer", "ap_fifo", "in", 1),
                    (f"{name}_write", name, "pointer", "ap_fifo", "out", 1),
                ]
            continue
        parsed = _PARAM.match(param)
        if parsed is None:
            continue
        c_type, name, dims = parsed.groups()
        bits = _bits(c_type)
        sizes = [int(n) for n in re.findall(r"\d+", dims)]
        if not sizes:
            ports.append((name, name, "scalar", "ap_none", "in", bits))
            continue
        address_bits = max(1, math.ceil(math.log2(math.prod(sizes)))) if math.prod(sizes) > 1 else 1
        ports += [
            (f"{name}_address0", name, "array", "ap_memory", "out", address_bits),
            (f"{name}_ce0", name, "array", "ap_memory", "out", 1),
            (f"{name}_we0", name, "array", "ap_memory", "out", 1),
            (f"{name}_d0", name, "array", "ap_memory", "out", bits),
            (f"{name}_q0", name, "array", "ap_memory", "in", bits),
        ]
    rows = []
    for name, obj, kind, protocol, direction, bits in ports:
        rows.append(
            f"        <RtlPorts>\n            <name>{name}</name>\n            <Object>{obj}</Object>\n"
            f"            <Type>{kind}</Type>\n            <Scope/>\n"
            f"            <IOProtocol>{protocol}</IOProtocol>\n            <IOConfig/>\n"
            f"            <Dir>{direction}</Dir>\n            <Bits>{bits}</Bits>\n"
            f"            <Attribute>{'control' if obj == top else 'data'}</Attribute>\n"
            f"        </RtlPorts>"
        )
    return "\n".join(rows)


def _bits(c_type: str) -> int:
    c_type = c_type.replace("const", "").strip()
    known = {"float": 32, "double": 64, "bool": 1, "int": 32}
    if c_type in known:
        return known[c_type]
    match = re.search(r"(\d+)", c_type)
    return int(match.group(1)) if match else 32


def _cosim_rpt() -> str:
    rule = "+----------+----------+" + "-" * 47 + "+" + "-" * 47 + "+----------------------+"
    return (
        "Report time       : hclbuild test stand-in: no co-simulation ran.\n"
        "Solution          : solution1.\n"
        "Simulation tool   : xsim.\n\n"
        f"{rule}\n"
        "|          |          |             Latency(Clock Cycles)             |"
        "              Interval(Clock Cycles)           | Total Execution Time |\n"
        "+   RTL    +  Status  +" + "-" * 47 + "+" + "-" * 47 + "+    (Clock Cycles)    +\n"
        "|          |          |      min      |      avg      |      max      |"
        "      min      |      avg      |      max      |                      |\n"
        f"{rule}\n"
        "|      VHDL|        NA|             NA|             NA|             NA|"
        "             NA|             NA|             NA|                    NA|\n"
        "|   Verilog|      Pass|           1234|           1234|           1234|"
        "             NA|             NA|             NA|                  1234|\n"
        f"{rule}\n"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv))
