"""build/<name>/.hclbuild-written.json (issue 34 section 2): every clean removes only what it lists,
and a build removes the folders of a function that is no longer outlined."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from doit_helpers import doit, make_tree
from kernels import TIMES_THREE_MINUS_ONE

from hclbuild.errors import ConfigError
from hclbuild.project import written
from hclbuild.project.layout import PROJECT_OWNER_FILE, WRITTEN_FILE, BuildLayout
from hclbuild.project.written import read_written, record_written, remove_written, task_entries

KERNEL = TIMES_THREE_MINUS_ONE  # Stage_X outlined, then not
UNOUTLINED = KERNEL.replace("    s.outline(kernel.X)\n", "")


def _files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if not path.is_dir())


def test_doit_clean_removes_what_hclbuild_wrote_and_keeps_the_users_files(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    doit(root, "csim")
    build = root / "build" / "tri"
    listed = json.loads((build / WRITTEN_FILE).read_text())["tasks"]
    assert listed["emit/Stage_X"][:2] == ["hls/Stage_X/Makefile", "hls/Stage_X/README.md"]
    assert listed["csim/top"] == ["csim/top.json", "hls/top/out/", "status/csim/top.json"]
    # a file of the user's own at the top of the build, and one in a function folder
    (build / "notes.txt").write_text("mine\n")
    (build / "hls" / "top" / "mine.cpp").write_text("// mine\n")
    doit(root, "clean")
    assert _files(build) == [PROJECT_OWNER_FILE, "hls/top/mine.cpp", "notes.txt"]
    assert (build / "notes.txt").read_text() == "mine\n"


def test_a_function_no_longer_outlined_leaves_no_folder_behind(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    doit(root, "csim")
    build = root / "build" / "tri"
    assert (build / "hls" / "Stage_X" / "Stage_X.cpp").is_file()
    (root / "projects" / "tri" / "kernel.py").write_text(UNOUTLINED)
    doit(root, "csim")
    left = [path for path in _files(build) if "Stage_X" in path]
    assert left == []  # hls/Stage_X/, csim/Stage_X.json, golden/Stage_X/, ir/Stage_X.mlir, status
    assert not (build / "hls" / "Stage_X").exists()
    assert sorted(path.name for path in (build / "hls").iterdir()) == ["top"]
    assert not any("Stage_X" in key for key in read_written(BuildLayout(root / "build", "tri")))


def _listed_function(tmp_path: Path) -> BuildLayout:
    """build/p/ with hclbuild's files of function f listed, as a build leaves them."""
    layout = BuildLayout(tmp_path / "build", "p")
    entries = {
        **task_entries("emit", "f", ["top", "f"]),
        **task_entries("csim", "f", ["top", "f"]),
        **task_entries("reference", None, ["top", "f"]),
    }
    record_written(layout, entries)
    for entry in (e for found in entries.values() for e in found):
        path = layout.root / entry.rstrip("/")
        if entry.endswith("/"):
            (path / "deep").mkdir(parents=True)
            (path / "deep" / "x.bin").write_bytes(b"1")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
    return layout


def test_a_stale_function_folder_goes_in_one_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed while it deletes, a removal leaves no half of hls/f/ where a CI loop over hls/* finds it."""
    layout = _listed_function(tmp_path)
    assert (layout.root / "hls" / "f" / "f.cpp").is_file()

    rmtree = shutil.rmtree

    def killed(path: str | Path, **kwargs: bool) -> None:
        if Path(path).name.startswith(".f."):
            raise KeyboardInterrupt  # the moment after hls/f/'s rename
        rmtree(path, **kwargs)

    monkeypatch.setattr(written.shutil, "rmtree", killed)
    with pytest.raises(KeyboardInterrupt):
        written.remove_stale_functions(layout, ["top"])
    assert not (layout.root / "hls" / "f").exists()
    monkeypatch.undo()
    # the renamed folder is a temporary that the next run's sweep removes
    from hclbuild.atomic import sweep_stale_temps

    assert [path.parent.name for path in sweep_stale_temps(layout.root, including_mine=True)] == ["hls"]


def test_a_users_file_in_a_stale_function_folder_stays(tmp_path: Path) -> None:
    layout = _listed_function(tmp_path)
    (layout.root / "hls" / "f" / "notes.txt").write_text("mine\n")
    removed = written.remove_stale_functions(layout, ["top"])
    assert "hls/f/f.cpp" in removed and "golden/f/" in removed
    assert _files(layout.root) == [
        ".hclbuild-written.json",
        "golden/top/deep/x.bin",
        "hls/f/notes.txt",
        "hls/top/data/deep/x.bin",
        "llvm/manifest.json",
        "llvm/objects/deep/x.bin",
        "llvm/top.ll",
        "llvm/units/deep/x.bin",
        "status/reference.json",
    ]
    assert sorted(read_written(layout)) == ["reference", "reference/top"]


def test_only_listed_entries_go_and_an_unreadable_list_removes_nothing(tmp_path: Path) -> None:
    layout = _listed_function(tmp_path)
    (layout.root / "csim" / "other.json").write_text("{}")  # in a folder hclbuild writes, not its file
    assert remove_written(layout, ["csim/f"]) == ["csim/f.json", "hls/f/out/", "status/csim/f.json"]
    assert (layout.root / "csim" / "other.json").is_file() and (layout.root / "hls" / "f" / "f.cpp").is_file()
    before = _files(layout.root)
    layout.written_manifest.write_text("{not json")
    with pytest.raises(
        ConfigError, match=r"\.hclbuild-written\.json: unreadable list of what hclbuild wrote"
    ):
        remove_written(layout)
    layout.written_manifest.write_text(
        json.dumps({"format": "hclbuild-written", "tasks": {"x": ["../../etc"]}})
    )
    with pytest.raises(ConfigError, match="not hclbuild's list of what it wrote; nothing removed"):
        remove_written(layout)
    assert _files(layout.root) == before
