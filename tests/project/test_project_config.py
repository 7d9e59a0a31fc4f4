"""project.toml loading and validation: defaults, and one exact one-line message per error."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError
from hclbuild.project.config import DEFAULT_PART, TOP_INTERFACE, ProjectConfig, load_project
from hclbuild.project.layout import BuildLayout


def make_project(root: Path, toml: str | None, name: str = "gemm", kernel: bool = True) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if kernel:
        (folder / "kernel.py").write_text("import hclbuild as hcl\n")
    if toml is not None:
        (folder / "project.toml").write_text(toml)
    return folder


def test_defaults_without_project_toml(tmp_path: Path) -> None:
    folder = make_project(tmp_path, None)
    project = load_project(folder)
    assert project.name == "gemm"
    assert project.dir == folder
    assert project.kernel_path == folder / "kernel.py"
    assert project.config == ProjectConfig(
        name="gemm",
        top="top",
        part=DEFAULT_PART,
        clock_period_ns=10.0,
        flow_target="vivado",
        rtol=1e-5,
        atol=1e-6,
        seed=0,
        sizes={},
    )
    assert DEFAULT_PART == "xcu250-figd2104-2L-e"


def test_every_key(tmp_path: Path) -> None:
    folder = make_project(
        tmp_path,
        """
[project]
name = "gemm_big"
top = "kernel_top"

[hls]
part = "xcvu9p-flga2104-2-i"
clock_period_ns = 4
flow_target = "vitis"

[csim]
rtol = 1e-3
atol = 0

[reference]
seed = 42

[sizes]
N = 128
M = 64
""",
    )
    project = load_project(folder / "project.toml")
    assert project.name == "gemm_big"
    config = project.config
    assert config == ProjectConfig(
        name="gemm_big",
        top="kernel_top",
        part="xcvu9p-flga2104-2-i",
        clock_period_ns=4.0,
        flow_target="vitis",
        rtol=1e-3,
        atol=0.0,
        seed=42,
        sizes={"N": 128, "M": 64},
    )
    assert isinstance(config.clock_period_ns, float) and isinstance(config.atol, float)
    assert config.to_json()["sizes"] == {"N": 128, "M": 64}


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[hls]\nclock_period_ns = "10ns"\n',
            'project.toml:2: hls.clock_period_ns must be a number, got string "10ns"',
        ),
        ("[hls]\nclock_period_ns = 0\n", "project.toml:2: hls.clock_period_ns must be > 0, got 0"),
        ("[hls]\nclock_period_ns = inf\n", "project.toml:2: hls.clock_period_ns must be finite, got inf"),
        (
            '[hls]\npart = "xcu250"\nflow_target = "vivado_hls"\n',
            'project.toml:3: hls.flow_target must be "vivado" or "vitis", got "vivado_hls"',
        ),
        ("[hls]\nflow_target = 1\n", "project.toml:2: hls.flow_target must be a string, got integer 1"),
        (
            '[hls]\npart = "xc u250"\n',
            "project.toml:2: hls.part must be a part name like 'xcu250-figd2104-2L-e', got \"xc u250\"",
        ),
        (
            '[hsl]\npart = "x"\n',
            "project.toml:1: unknown section [hsl] (expected [project], [hls], [csim], [ci], [reference], [sizes], [interface], [explore], [knobs])",
        ),
        (
            'name = "x"\n',
            (
                "project.toml:1: unknown top-level key name (settings belong in the sections [project], [hls], "
                "[csim], [ci], [reference], [sizes], [interface], [explore], [knobs])"
            ),
        ),
        ('[project]\nnmae = "x"\n', "project.toml:2: unknown key project.nmae (expected name, top)"),
        (
            "[hls]\nclock = 10\n",
            (
                "project.toml:2: unknown key hls.clock (expected part, clock_period_ns, clock_uncertainty_ns, "
                "flow_target, tool, vitis_version, top_assembly)"
            ),
        ),
        (
            '[hls]\ntool = "vivado_hls"\n',
            'project.toml:2: hls.tool must be one of "auto", "vitis_hls", "vitis-run", "v++", got "vivado_hls"',
        ),
        (
            '[hls]\nvitis_version = "2024"\n',
            'project.toml:2: hls.vitis_version must be a Vitis release like "2024.2", got "2024"',
        ),
        ('[project]\ntop = "my-top"\n', 'project.toml:2: project.top must be a C identifier, got "my-top"'),
        (
            '[project]\nname = "a b"\n',
            "project.toml:2: project.name must be a name of letters, digits, '_', '-' and '.', got \"a b\"",
        ),
        ("[csim]\nrtol = -1.0\n", "project.toml:2: csim.rtol must be >= 0, got -1.0"),
        ("[csim]\natol = true\n", "project.toml:2: csim.atol must be a number, got boolean true"),
        ("[reference]\nseed = 1.5\n", "project.toml:2: reference.seed must be an integer, got float 1.5"),
        ("[reference]\nseed = -3\n", "project.toml:2: reference.seed must be >= 0, got -3"),
        ("[sizes]\nN = 0\n", "project.toml:2: sizes.N must be > 0, got 0"),
        ('[sizes]\nN = "64"\n', 'project.toml:2: sizes.N must be an integer, got string "64"'),
        (
            "[hls\nx = 1\n",
            "project.toml:1: invalid TOML: Expected ']' at the end of a table declaration (column 5)",
        ),
        # sane ranges: no FPGA clock is 10 ps or 1 ms, a timeout of 1e300 s overflowed select(), and loop
        # bounds are C ints in the emitted code
        (
            "[hls]\nclock_period_ns = 0.01\n",
            "project.toml:2: hls.clock_period_ns must be from 0.5 to 1000 (ns), got 0.01",
        ),
        (
            "[hls]\nclock_period_ns = 1e6\n",
            "project.toml:2: hls.clock_period_ns must be from 0.5 to 1000 (ns), got 1000000.0",
        ),
        (
            "[hls]\nclock_uncertainty_ns = -1\n",
            "project.toml:2: hls.clock_uncertainty_ns must be >= 0, got -1",
        ),
        (
            "[hls]\nclock_period_ns = 4\nclock_uncertainty_ns = 4.0\n",
            "project.toml:3: hls.clock_uncertainty_ns must be less than the clock period (4 ns), got 4",
        ),
        (
            "[reference]\ntimeout = 1e300\n",
            "project.toml:2: reference.timeout must be from 1 to 604800 (s), got 1e+300",
        ),
        (
            "[reference]\ntimeout = 0.001\n",
            "project.toml:2: reference.timeout must be from 1 to 604800 (s), got 0.001",
        ),
        (
            "[sizes]\nN = 2147483648\n",
            "project.toml:2: sizes.N must be at most 2147483647 (loops count in C int), got 2147483648",
        ),
        (
            "[sizes.SMALL]\nN = 4\n[sizes.LARGE]\nN = 99999999999999999999\n",
            "project.toml:4: sizes.LARGE.N must be at most 2147483647 (loops count in C int), got 99999999999999999999",
        ),
    ],
)
def test_invalid_config_message(tmp_path: Path, toml: str, message: str) -> None:
    folder = make_project(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_project(folder)
    assert str(info.value) == f"{folder}/{message}"


def test_the_ends_of_each_range_are_accepted(tmp_path: Path) -> None:
    for toml, field, value in (
        ("[hls]\nclock_period_ns = 0.5\n", "clock_period_ns", 0.5),
        ("[hls]\nclock_period_ns = 1000\n", "clock_period_ns", 1000.0),
        ("[reference]\ntimeout = 1\n", "reference_timeout", 1.0),
        ("[reference]\ntimeout = 604800\n", "reference_timeout", 604800.0),
        ("[sizes]\nN = 2147483647\n", "sizes", {"N": 2147483647}),
    ):
        folder = make_project(tmp_path / field / str(value).replace(" ", ""), toml)
        assert getattr(load_project(folder).config, field) == value


def test_tool_and_vitis_version(tmp_path: Path) -> None:
    folder = make_project(tmp_path, '[hls]\ntool = "v++"\nvitis_version = "2024.2"\n')
    config = load_project(folder).config
    assert (config.hls_tool, config.vitis_version) == ("v++", "2024.2")
    assert (ProjectConfig(name="x").hls_tool, ProjectConfig(name="x").vitis_version) == ("auto", None)


def test_missing_kernel(tmp_path: Path) -> None:
    folder = make_project(tmp_path, "", kernel=False)
    with pytest.raises(ConfigError) as info:
        load_project(folder)
    assert str(info.value) == f"{folder}/kernel.py: file not found (every project needs a kernel.py)"


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_project(tmp_path / "nope")
    assert str(info.value) == f"{tmp_path / 'nope'}: project folder not found"


def test_folder_name_must_be_usable_without_project_name(tmp_path: Path) -> None:
    folder = make_project(tmp_path, None, name="my project")
    with pytest.raises(ConfigError) as info:
        load_project(folder)
    assert str(info.value) == (
        f"{folder}/project.toml: project.name is not set and the folder name "
        "'my project' is not a valid project name (letters, digits, '_', '-', '.')"
    )


def test_name_from_toml_overrides_folder(tmp_path: Path) -> None:
    folder = make_project(tmp_path, '[project]\nname = "other"\n', name="my project")
    assert load_project(folder).name == "other"


def test_build_layout_paths(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path / "build", "gemm")
    root = tmp_path / "build" / "gemm"
    assert layout.root == root
    assert layout.top_mlir == root / "ir" / "top.mlir"
    assert layout.func_mlir("Stage_C") == root / "ir" / "Stage_C.mlir"
    assert layout.ir_manifest == root / "ir" / "manifest.json"
    assert layout.llvm_units_dir == root / "llvm" / "units"
    assert layout.golden_dir("Stage_C") == root / "golden" / "Stage_C"
    assert layout.hls_dir("top") == root / "hls" / "top"
    assert layout.hls_cpp("top") == root / "hls" / "top" / "top.cpp"
    assert layout.hls_testbench("top") == root / "hls" / "top" / "tb_top.cpp"
    assert layout.hls_tcl("top") == root / "hls" / "top" / "run_hls.tcl"
    assert layout.hls_cfg("top") == root / "hls" / "top" / "hls_config.cfg"
    assert layout.hls_data_dir("top") == root / "hls" / "top" / "data"
    assert (
        layout.csynth_xml("top")
        == root / "hls" / "top" / "top_prj" / "solution1" / "syn" / "report" / "top_csynth.xml"
    )
    assert layout.csim_json("Stage_C") == root / "csim" / "Stage_C.json"
    assert layout.report_summary == root / "reports" / "summary.json"
    assert layout.report_markdown == root / "reports" / "report.md"


def test_build_layout_refuses_path_like_function_names(tmp_path: Path) -> None:
    from hclbuild.errors import CompileError

    with pytest.raises(CompileError, match=r"^function name '\.\./x' is not a C identifier$"):
        BuildLayout(tmp_path, "gemm").hls_dir("../x")


def test_top_assembly_and_interface_tables(tmp_path: Path) -> None:
    folder = make_project(
        tmp_path,
        """
[hls]
top_assembly = "blackbox"

[interface.A]
protocol = "m_axi"
bundle = "gmem0"
max_widen_bitwidth = 512

[interface.Stage_C.B]
latency = 2

[interface.Stage_C.S]
protocol = "axis"
""",
    )
    config = load_project(folder).config
    assert config.top_assembly == "blackbox"
    assert config.interfaces == {
        TOP_INTERFACE: {"A": {"protocol": "m_axi", "bundle": "gmem0", "max_widen_bitwidth": 512}},
        "Stage_C": {"B": {"latency": 2}, "S": {"protocol": "axis"}},
    }
    assert load_project(make_project(tmp_path, None, name="plain")).config.top_assembly == "monolithic"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[hls]\ntop_assembly = "rtl"\n',
            'project.toml:2: hls.top_assembly must be one of "monolithic", "blackbox", got "rtl"',
        ),
        (
            '[interface.A]\nprotocol = "axi"\n',
            (
                'project.toml:2: interface.A.protocol must be one of "m_axi", "ap_memory", "bram", "s_axilite", "ap_none", '
                '"ap_vld", "ap_ack", "ap_hs", "ap_fifo", "axis", got "axi"'
            ),
        ),
        ("[interface.A]\ndepth = 0\n", "project.toml:2: interface.A.depth must be >= 1, got 0"),
        (
            "[interface.A]\nlatency = 1.5\n",
            "project.toml:2: interface.A.latency must be an integer, got float 1.5",
        ),
        (
            "[interface.A]\nmax_widen_bitwidth = 48\n",
            "project.toml:2: interface.A.max_widen_bitwidth must be a power of two from 8 to 1024, got 48",
        ),
        (
            "[interface.A]\nmax_read_burst_length = 300\n",
            "project.toml:2: interface.A.max_read_burst_length must be at most 256 (one AXI4 burst), got 300",
        ),
        (
            '[interface.A]\noffset = "master"\n',
            'project.toml:2: interface.A.offset must be one of "off", "direct", "slave", got "master"',
        ),
        (
            '[interface.A]\nbundel = "g"\n',
            (
                "project.toml:2: unknown key interface.A.bundel (expected protocol, bundle, depth, offset, latency, "
                "max_widen_bitwidth, max_read_burst_length, max_write_burst_length, storage_type)"
            ),
        ),
        (
            "[interface.Stage_C.B]\ndepth = -2\n",
            "project.toml:2: interface.Stage_C.B.depth must be >= 1, got -2",
        ),
        (
            "[interface]\nA = 3\n",
            (
                "project.toml:2: [interface.A] must be a table of settings (protocol, bundle, depth, offset, latency, "
                "max_widen_bitwidth, max_read_burst_length, max_write_burst_length, storage_type) or of argument tables"
            ),
        ),
    ],
)
def test_invalid_interface_and_assembly_messages(tmp_path: Path, toml: str, message: str) -> None:
    folder = make_project(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_project(folder)
    assert str(info.value) == f"{folder}/{message}"


def test_clock_uncertainty_is_optional_and_read_in_ns(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text("")
    assert load_project(tmp_path).config.clock_uncertainty_ns is None  # Vitis's default margin
    (tmp_path / "project.toml").write_text("[hls]\nclock_period_ns = 4\nclock_uncertainty_ns = 0.5\n")
    assert load_project(tmp_path).config.clock_uncertainty_ns == 0.5
