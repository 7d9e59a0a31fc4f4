"""doit's sqlite3 state file: a failed save reported in one line.

SqliteState, for the `hclbuild` command: the same file and format as doit's own, but a state that
cannot be saved when doit ends (a full disk) is kept for the command to report in one line, where
doit printed the traceback of the sqlite3 error. `hclbuild.cli.run_doit` registers it as doit's
"sqlite3" backend plugin; `doit` run on dodo.py keeps doit's own class (it reads its plugins from
doit.cfg only).
"""

from __future__ import annotations

import contextlib
import sqlite3

from doit.dependency import SqliteDB

# the error of the last dump that failed in this process, for run_doit (doit runs it in-process)
FAILED_DUMPS: list[sqlite3.Error] = []


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
