"""How a doit run loads hclbuild's tasks: doit's saved states read in one query, the dodo creator
found without tokenizing, and the results the same as doit's own way."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from doit.dependency import Dependency, JSONCodec, JsonDB, SqliteDB
from doit.globals import Globals

from hclbuild.tasks import doit_creator
from hclbuild.tasks.doit_state import SqliteState, prefetch_task_states

REPO = Path(__file__).resolve().parents[1]


def _saved_states(path: Path, db_class: type = SqliteDB) -> dict[str, dict]:
    states = {
        "compile:a": {"kernel.py": [1.5, 10, "abc"], "_values_:": {}},
        "csim:a/top": {"out.json": [2.0, 3, "def"], "ignore:": "1"},
        "emit:a/top": {},
    }
    db = db_class(str(path), codec=JSONCodec())
    for task, values in states.items():
        db._cache[task] = dict(values)
        db._dirty.add(task)
    db.dump()
    return states


def test_prefetch_fills_the_cache_with_what_doit_reads_row_by_row(tmp_path: Path, monkeypatch) -> None:
    states = _saved_states(tmp_path / "state.db")
    for db_class in (SqliteDB, SqliteState):  # doit's own, and the one `hclbuild` registers
        manager = Dependency(db_class, str(tmp_path / "state.db"))
        monkeypatch.setattr(Globals, "dep_manager", manager)
        assert prefetch_task_states() == 3
        one_by_one = Dependency(db_class, str(tmp_path / "state.db")).backend
        assert manager.backend._cache == {task: one_by_one._get_task_data(task) for task in states}
        assert manager.backend._cache["csim:a/top"] == states["csim:a/top"]
        assert manager.backend._dirty == set()  # nothing to write back
        assert manager.status_is_ignore(type("T", (), {"name": "csim:a/top"})()) == "1"
        assert manager.backend.get("absent", "x") is None  # not saved: doit's own select, as before
        manager.close()


def test_prefetch_leaves_other_backends_and_read_states_alone(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(Globals, "dep_manager", None)
    assert prefetch_task_states() == 0
    monkeypatch.setattr(Globals, "dep_manager", Dependency(JsonDB, str(tmp_path / "state.json")))
    assert prefetch_task_states() == 0
    _saved_states(tmp_path / "state.db")
    manager = Dependency(SqliteDB, str(tmp_path / "state.db"))
    manager.backend.set("compile:a", "kernel.py", "changed")  # doit changed a state already
    monkeypatch.setattr(Globals, "dep_manager", manager)
    assert prefetch_task_states() == 0
    assert manager.backend._cache == {"compile:a": {"kernel.py": "changed"}}
    manager.close()


def test_a_doit_creator_is_placed_without_tokenizing_and_still_loads() -> None:
    def task_demo():
        """demo"""
        yield {"basename": "demo", "actions": None}

    assert doit_creator(task_demo) is task_demo
    assert inspect.getsourcelines(task_demo)[1] == 0  # doit's sort key, found without tokenize
    # the repository's dodo.py lists its tasks through it, in a fresh doit process
    done = subprocess.run(
        [sys.executable, "-m", "doit", "list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()][:3] == ["build", "compile", "csim"]
