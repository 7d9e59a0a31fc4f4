"""csim's compiled objects: the harness compiled once per compiler and flags, a top linking its outlined
functions' objects, one function's change recompiling that function alone, damaged or stale objects
compiled again, the -O level following the estimated work, `make csim` in a copied folder, and what a
killed build left in the cache swept."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import hclbuild as hcl
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, emit_design_function
from hclbuild.project.layout import HARNESS_HEADER, HARNESS_SOURCE, BuildLayout
from hclbuild.project.reference import reference_design
from hclbuild.runtime import csim, testbench_build
from hclbuild.runtime.csim import optimization_level, run_csim

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

NAME = "chain"


def _schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * 3, name="X")
        Y = hcl.compute((8,), lambda i: X[i] + 7, name="Y")
        return hcl.compute((8,), lambda i: Y[i] - A[i], name="Z")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    s.outline(kernel.Y)
    return s


@pytest.fixture
def design(tmp_path: Path) -> BuildLayout:
    """top calling Stage_X and Stage_Y, built, run and emitted in tmp_path/build."""
    layout = BuildLayout(tmp_path / "build", NAME)
    config = ProjectConfig(name=NAME)
    compiled = compile_design(_schedule(), layout, NAME)
    reference_design(layout, NAME, config)
    for func in compiled.design.functions:
        emit_design_function(layout, config, func)
    return layout


def _csim(layout: BuildLayout, func: str, **options) -> csim.CsimResult:
    options.setdefault("cache_root", layout.csim_cache)
    result = run_csim(layout.hls_dir(func), layout.csim_json(func), project=NAME, **options)
    assert result.passed, result.summary
    return result


def _log(layout: BuildLayout, func: str) -> list[str]:
    return (layout.hls_dir(func) / "out" / "compile.log").read_text().splitlines()


def _compiled(layout: BuildLayout, func: str) -> list[str]:
    """What a csim compiled: the source file, or the unit (`-` on stdin) and its object's stem."""
    found = []
    for line in _log(layout, func):
        if line.startswith("/") and " -c " in line:
            words = line.split()
            found.append(Path(words[-1]).name.rsplit("-", 1)[0])
    return found


def _reused(layout: BuildLayout, func: str) -> list[str]:
    return [line.split(":")[0][2:] for line in _log(layout, func) if line.endswith(" reused")]


def _objects(layout: BuildLayout) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in sorted((layout.csim_cache / "objects").glob("*.o")):
        found.setdefault(path.name.rsplit("-", 1)[0], []).append(path)
    return found


def test_the_harness_is_compiled_once_for_every_function_of_a_build(design: BuildLayout) -> None:
    _csim(design, "Stage_X")
    assert "hclbuild_tb" in _compiled(design, "Stage_X")
    for func in ("Stage_Y", "top"):
        _csim(design, func)
        assert "hclbuild_tb.cpp" in _reused(design, func) and "hclbuild_tb" not in _compiled(design, func)
    assert len(_objects(design)["hclbuild_tb"]) == 1
    # every folder carries the same harness bytes
    texts = {(design.hls_dir(f) / HARNESS_SOURCE).read_bytes() for f in ("Stage_X", "Stage_Y", "top")}
    assert len(texts) == 1 and (design.hls_dir("top") / HARNESS_HEADER).is_file()


def test_a_flag_change_compiles_the_harness_again(design: BuildLayout, monkeypatch) -> None:
    _csim(design, "Stage_X")
    monkeypatch.setattr(csim, "GXX_FLAGS", (*csim.GXX_FLAGS, "-Wshadow"))
    _csim(design, "Stage_Y")
    assert {"hclbuild_tb", "tb_Stage_Y+Stage_Y"} == set(_compiled(design, "Stage_Y"))
    assert len(_objects(design)["hclbuild_tb"]) == 2
    assert any(" -Wshadow -O1 -c hclbuild_tb.cpp " in line for line in _log(design, "Stage_Y"))


def test_the_top_links_the_objects_of_its_outlined_functions(design: BuildLayout) -> None:
    _csim(design, "top")
    # its testbench part and its own definition in one g++ run, its callees' definitions one each
    assert sorted(_compiled(design, "top")) == ["Stage_X", "Stage_Y", "hclbuild_tb", "tb_top+top"]
    for stem in ("Stage_X", "Stage_Y"):
        _csim(design, stem)
        assert _compiled(design, stem) == [f"tb_{stem}"]
        [made] = _objects(design)[stem]
        assert str(made) in _log(design, stem)[-1] and str(made) in _log(design, "top")[-1]
    # an outlined function simulated first made its definition with its testbench part: the top
    # compiles that definition alone (one g++ run a function either way)
    shutil.rmtree(design.csim_cache)
    _csim(design, "Stage_X")
    assert _compiled(design, "Stage_X") == ["hclbuild_tb", "tb_Stage_X+Stage_X"]
    _csim(design, "top")
    assert sorted(_compiled(design, "top")) == ["Stage_X", "Stage_Y", "tb_top+top"]


def test_an_outlined_function_links_the_object_its_top_made(design: BuildLayout) -> None:
    _csim(design, "top")
    assert sorted(_compiled(design, "top")) == ["Stage_X", "Stage_Y", "hclbuild_tb", "tb_top+top"]
    _csim(design, "Stage_Y")
    assert _compiled(design, "Stage_Y") == ["tb_Stage_Y"]
    assert "Stage_Y (Stage_Y.cpp)" in _reused(design, "Stage_Y")


def test_a_change_to_one_function_recompiles_that_function_alone(design: BuildLayout) -> None:
    for func in ("Stage_X", "Stage_Y", "top"):
        _csim(design, func)
    # the same change the emitter would make in both files that hold Stage_Y: its loop counts down
    for folder in ("Stage_Y", "top"):
        path = design.hls_dir(folder) / f"{folder}.cpp"
        text = path.read_text()
        start = re.search(r"^void Stage_Y\(.*\) \{$", text, re.MULTILINE).start()
        end = text.index("\n}\n", start)
        body = text[start:end].replace("int i = 0; i < 8; i++", "int i = 7; i >= 0; i--")
        assert body != text[start:end]
        path.write_text(text[:start] + body + text[end:])
    assert not _csim(design, "top").run_reused
    assert _compiled(design, "top") == ["Stage_Y"]
    assert sorted(_reused(design, "top")) == [
        "Stage_X (top.cpp)",
        "hclbuild_tb.cpp",
        "tb_top.cpp + top (top.cpp)",
    ]
    _csim(design, "Stage_Y")
    # the top made Stage_Y's object: only its testbench part compiles (it was made with the old code)
    assert _compiled(design, "Stage_Y") == ["tb_Stage_Y"]
    assert "Stage_Y (Stage_Y.cpp)" in _reused(design, "Stage_Y")


def test_a_damaged_object_is_compiled_again_before_it_is_linked(design: BuildLayout) -> None:
    _csim(design, "top")
    [made] = _objects(design)["Stage_X"]
    good = made.read_bytes()
    middle = len(good) // 2
    made.write_bytes(good[:middle] + bytes([good[middle] ^ 0xFF]) + good[middle + 1 :])
    shutil.rmtree(design.hls_dir("top") / "out", ignore_errors=True)
    _csim(design, "top")
    assert "Stage_X" in _compiled(design, "top") and "Stage_X (top.cpp)" not in _reused(design, "top")
    assert made.read_bytes() == good  # compiled again, the same bytes


def test_a_stale_object_under_a_current_name_is_never_linked(design: BuildLayout) -> None:
    """An object whose bytes are not the ones its digest records (here: the object of different
    code put in its place) is compiled again, and the csim passes on the right code."""
    _csim(design, "Stage_X")
    [made] = _objects(design)["tb_Stage_X+Stage_X"]
    [other] = _objects(design)["hclbuild_tb"]
    made.write_bytes(other.read_bytes())
    _csim(design, "Stage_X")
    assert _compiled(design, "Stage_X") == ["tb_Stage_X+Stage_X"]
    # without its digest an object is not trusted either
    made.with_name(made.name + ".sha256").unlink()
    _csim(design, "Stage_X")
    assert _compiled(design, "Stage_X") == ["tb_Stage_X+Stage_X"]


def test_a_sabotaged_function_fails_even_when_its_old_object_is_cached(design: BuildLayout) -> None:
    _csim(design, "Stage_X")
    _csim(design, "top")
    path = design.hls_dir("top") / "top.cpp"
    path.write_text(path.read_text().replace(" * 3", " * 4", 1))
    result = run_csim(
        design.hls_dir("top"), design.csim_json("top"), project=NAME, cache_root=design.csim_cache
    )
    assert not result.passed and result.first_mismatch is not None
    assert _compiled(design, "top") == ["Stage_X"]
    assert json.loads(design.csim_json("top").read_text())["pass"] is False


def test_the_level_follows_the_estimated_work(design: BuildLayout) -> None:
    assert [optimization_level(n, False) for n in (None, 10.0, 1e6, 1e9)] == ["-O1", "-O0", "-O0", "-O1"]
    assert [optimization_level(n, True) for n in (None, 10.0, 1e6, 1e9)] == ["-O1", "-O0", "-O1", "-O1"]
    work = json.loads(design.ir_manifest.read_text())["work"]
    assert work == {"top": 8.0 * 2 + 8.0, "Stage_X": 16.0, "Stage_Y": 16.0}  # loads and stores per run
    _csim(design, "top", work={"top": 24.0, "Stage_X": 16.0, "Stage_Y": 1e9})
    levels = {}
    for line in _log(design, "top"):
        if line.startswith("/") and " -c " in line:
            levels[Path(line.split()[-1]).name.rsplit("-", 1)[0]] = "-O0" if " -O0 " in line else "-O1"
    assert levels == {"hclbuild_tb": "-O1", "tb_top+top": "-O0", "Stage_X": "-O0", "Stage_Y": "-O1"}


def test_make_csim_in_a_copied_function_folder(design: BuildLayout, tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not on PATH")
    _csim(design, "top")
    copy = tmp_path / "elsewhere" / "top"
    shutil.copytree(design.hls_dir("top"), copy, ignore=shutil.ignore_patterns("out"))
    made = subprocess.run(
        ["make", "--no-print-directory", "csim"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert "-c hclbuild_tb.cpp -o out/hclbuild_tb.o" in made.stdout
    summary = [line for line in made.stdout.splitlines() if line.startswith("HCLBUILD_CSIM ")]
    assert json.loads(summary[-1].split(" ", 1)[1])["pass"] is True
    # it wrote what the function computed, the golden bytes
    for name in ("A", "Z"):
        assert (copy / "out" / f"actual_{name}.bin").read_bytes() == (
            copy / "data" / f"out_{name}.bin"
        ).read_bytes()


def test_a_design_whose_functions_do_not_compile_alone_is_compiled_whole(design: BuildLayout) -> None:
    # without the prototype, the top's unit does not know Stage_X; the whole file still compiles,
    # since Stage_X is defined above the top
    path = design.hls_dir("top") / "top.cpp"
    text = path.read_text()
    prototype = next(
        line for line in text.splitlines() if line.startswith("void Stage_X(") and line.endswith(");")
    )
    path.write_text(text.replace(prototype + "\n", "", 1))
    _csim(design, "top")
    log = _log(design, "top")
    assert "# top.cpp: its functions did not compile one by one; compiled whole" in log
    assert _compiled(design, "top")[-1] == "top" and any(" -c top.cpp " in line for line in log)


def test_no_build_cache_keeps_only_what_the_folder_links(design: BuildLayout) -> None:
    func_dir = design.hls_dir("Stage_X")
    _csim(design, "Stage_X", cache_root=None)
    cache = func_dir / "out" / testbench_build.CACHE_IN_FOLDER / "objects"
    first = sorted(path.name for path in cache.glob("*.o"))
    assert [name.rsplit("-", 1)[0] for name in first] == ["hclbuild_tb", "tb_Stage_X+Stage_X"]
    path = func_dir / "Stage_X.cpp"
    path.write_text(path.read_text().replace("int i = 0; i < 8; i++", "int i = 7; i >= 0; i--"))
    _csim(design, "Stage_X", cache_root=None)
    second = sorted(path.name for path in cache.glob("*.o"))
    assert len(second) == 2 and second != first and set(first) - set(second) == {first[1]}


def test_an_object_cache_that_cannot_be_made_is_a_one_line_error(design: BuildLayout, tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache should be\n")
    with pytest.raises(csim.ToolError) as info:
        run_csim(design.hls_dir("Stage_X"), design.csim_json("Stage_X"), project=NAME, cache_root=blocker)
    message = str(info.value)
    assert "\n" not in message and message.startswith(
        f"{NAME}/Stage_X: cannot make the object cache {blocker}"
    )
    assert json.loads(design.csim_json("Stage_X").read_text())["pass"] is False


def test_a_killed_writers_temporaries_in_the_build_cache_go_before_its_first_csim(
    design: BuildLayout,
) -> None:
    # no project's sweep walks build/.csim/: an object g++ was writing and a header it was
    # precompiling when their build was SIGKILLed stayed there for good
    dead = subprocess.Popen(["true"])  # reaped: a pid no process has now
    dead.wait()
    live = os.getppid()  # a parallel build still writing: its temporaries stay
    objects, pch = design.csim_cache / "objects", design.csim_cache / "pch"
    objects.mkdir(parents=True)
    (pch / f".{'0' * 24}.{dead.pid}.0.tmp").mkdir(parents=True)
    (pch / f".{'0' * 24}.{dead.pid}.0.tmp" / "hclbuild_prelude.h.gch").write_bytes(b"half a header")
    (objects / f".Stage_X-{'1' * 24}.o.{dead.pid}.3.tmp").write_bytes(b"half an object")
    (objects / f".Stage_Y-{'2' * 24}.o.{live}.1.tmp").write_bytes(b"being written")
    _csim(design, "Stage_X")
    left = sorted(path.name for path in design.csim_cache.rglob(".*.tmp"))
    assert left == [f".Stage_Y-{'2' * 24}.o.{live}.1.tmp"]
