"""`storage_type` (RAM_1P / RAM_2P / RAM_T2P) of an array argument in `[interface]`: the RAM behind an
ap_memory or bram port, printed in its interface pragma; checked where it is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout

KERNEL = """
import hclbuild as hcl


def schedule(sizes):
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 8), "A")

    def kernel(A):
        return hcl.compute((4, 8), lambda i, j: A[i, j] * 2, "B")

    return hcl.create_schedule([A], kernel, name="top")
"""


def _emit(tmp_path: Path, toml: str) -> str:
    folder = tmp_path / "ram"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "project.toml").write_text(toml)
    project = load_project(folder)
    layout = BuildLayout(tmp_path / "build", project.name)
    compile_project(project, layout)
    emit_function(project, layout, "top")
    return (layout.hls_dir("top") / "top.cpp").read_text()


def test_an_argument_gets_its_storage_type(tmp_path: Path) -> None:
    code = _emit(
        tmp_path, '[interface.A]\nstorage_type = "RAM_1P"\n[interface.B]\nstorage_type = "ram_t2p"\n'
    )
    assert "  #pragma HLS interface mode=ap_memory port=A storage_type=ram_1p\n" in code
    assert "  #pragma HLS interface mode=ap_memory port=B storage_type=ram_t2p\n" in code


def test_a_storage_type_needs_a_ram_port(tmp_path: Path) -> None:
    toml = '[hls]\nflow_target = "vitis"\n[interface.A]\nstorage_type = "RAM_2P"\n'
    with pytest.raises(
        ConfigError,
        match=r"argument A of @top: storage_type applies to ap_memory and bram interfaces, not m_axi$",
    ):
        _emit(tmp_path, toml)


def test_an_unknown_storage_type_is_refused_where_it_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "ram"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "project.toml").write_text('[interface.A]\nstorage_type = "RAM_4P"\n')
    with pytest.raises(ConfigError) as error:
        load_project(folder)
    assert str(error.value).endswith(
        'project.toml:2: interface.A.storage_type must be one of "RAM_1P", "RAM_2P", "RAM_T2P", got "RAM_4P"'
    )
