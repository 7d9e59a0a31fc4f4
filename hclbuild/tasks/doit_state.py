"""doit's saved task states, read in one query instead of one per task.

doit (0.37, pinned in pyproject.toml) keeps each task's state as one row of its sqlite3 file and
reads a row the first time it checks that task: a select and a JSON decode per task, 185 of them
in a no-op `doit csim` over projects/ (about a tenth of what a no-op adds to `import doit`).
While the tasks are being loaded, doit has already opened that file (Globals.dep_manager), so
the rows can be read here in one select into the cache doit consults first. The cache then
holds exactly what doit's own reads would have put there; doit writes back only what it changes.

This reads private attributes of doit's SqliteDB: anything unexpected (another backend, another
doit, a damaged file) leaves doit to read its rows itself, as it always did.
"""

from __future__ import annotations


def prefetch_task_states() -> int:
    """Fill doit's state cache with every saved row; the number of rows read (0 when skipped)."""
    try:
        from doit.dependency import SqliteDB
        from doit.globals import Globals

        backend = getattr(Globals.dep_manager, "backend", None)
        if type(backend) is not SqliteDB:
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


__all__ = ["prefetch_task_states"]
