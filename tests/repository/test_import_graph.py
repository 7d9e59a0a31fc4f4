"""hclbuild's own imports: none inside a function but on the no-op doit path, each saying why, and no
cycle (lint-imports checks the layers and the cycles between siblings; this also sees a package that
imports its own submodule back). Counted by scripts/import_stats.py's ast walk."""

from __future__ import annotations

import importlib.util
import io
import sys
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# what a no-op `doit` (and `hclbuild build` on a built tree) loads: imports that only some runs need
# (a stale plan, a task that runs, a report's uptodate, Dask, `hclbuild ci`) wait inside functions
NOOP_PATH = {
    "hclbuild/tasks/__init__.py",
    "hclbuild/tasks/definitions.py",
    "hclbuild/tasks/doit_process.py",
    "hclbuild/cli/commands.py",  # hclbuild build on a built tree
}


def _stats():  # scripts/ is no package
    spec = importlib.util.spec_from_file_location("import_stats", REPO / "scripts" / "import_stats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_stats", module)  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return sys.modules["import_stats"]


def _imports() -> tuple[set[str], list]:
    stats = _stats()
    modules = stats.module_names(stats.PACKAGE)
    return set(modules), [
        imp for name, path in modules.items() for imp in stats.imports_of(name, path, set(modules))
    ]


def _comment_above(path: Path, line: int) -> bool:
    """A comment on the import's line or within the two lines above it."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return any(t.type == tokenize.COMMENT and line - 2 <= t.start[0] <= line for t in tokens)


def test_function_local_imports_are_on_the_noop_path_and_say_why() -> None:
    _, imports = _imports()
    local = [imp for imp in imports if imp.kind == "local"]
    elsewhere = [
        f"{imp.path.relative_to(REPO)}:{imp.line}"
        for imp in local
        if str(imp.path.relative_to(REPO)) not in NOOP_PATH
    ]
    assert elsewhere == []
    silent = [
        f"{imp.path.relative_to(REPO)}:{imp.line}" for imp in local if not _comment_above(imp.path, imp.line)
    ]
    assert silent == []


def test_no_module_imports_itself_back_through_others() -> None:
    modules, imports = _imports()
    assert _stats().cycles(modules, imports) == []
