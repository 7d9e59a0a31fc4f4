"""doit's sqlite3 state file: read in one query, and a failed save reported in one line.

SqliteState, for the `hclbuild` command: the same file and format as doit's own, but a state that
cannot be saved when doit ends (a full disk) is kept for the command to report in one line, where
doit printed the traceback of the sqlite3 error. `hclbuild.cli.run_doit` registers it as doit's
"sqlite3" backend plugin; `doit` run on dodo.py keeps doit's own class (it reads its plugins from
doit.cfg only).

prefetch_task_states, for both: doit (0.37, pinned in pyproject.toml) reads a task's row the
first time it checks that task, a select and a JSON decode each, 185 of them in a no-op `doit
csim` over projects/. While the tasks load, doit has already opened the file
(Globals.dep_manager), so one select can fill the cache doit consults first, with exactly what
its own reads would have put there; doit writes back only what it changes. This reads private
attributes of doit's SqliteDB: anything unexpected (another backend or doit, a damaged file)
leaves doit to read its rows itself, as it always did.
"""

from __future__ import annotations

import contextlib
import sqlite3

from doit.dependency import SqliteDB

# the error of the last dump that failed in this process, for run_doit (doit runs it in-process)
FAILED_DUMPS: list[sqlite3.Error] = []


def prefetch_task_states() -> int:
    """Fill doit's state cache with every saved row; the number of rows read (0 when skipped)."""
    try:
        from doit.globals import Globals

        backend = getattr(Globals.dep_manager, "backend", None)
        if not isinstance(backend, SqliteDB):
            return 0
        cache, conn = backend._cache, backend._conn
        if not isinstance(cache, dict) or cache:
            return 0  # doit has read or changed states already: leave them
        rows = conn.execute("select task_id, task_data from doit").fetchall()
        states = {row["task_id"]: row["task_data"] for row in rows}
    except Exception:  # an optimisation only: doit reads the rows itself, one by one
        return 0
    if not all(isinstance(state, dict) for state in states.values()):
        return 0
    cache.update(states)
    return len(states)


class SqliteState(SqliteDB):
    """doit's SqliteDB whose dump() records an sqlite3 error instead of raising it."""

    desc = "doit's sqlite3 backend; an unsaved state is reported, not raised"

    def dump(self) -> None:
        try:
            super().dump()
        except sqlite3.Error as exc:
            FAILED_DUMPS.append(exc)
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
