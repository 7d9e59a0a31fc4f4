"""Figures of hclbuild's own import graph: modules, imports at module level and inside functions, cycles.

    python scripts/import_stats.py            # the figures
    python scripts/import_stats.py --local    # also every function-local import, file:line

How it counts (an ast walk over hclbuild/**/*.py, nothing imported):
- a module is a .py file (a package is its __init__.py);
- an import is one hclbuild module named by an `import` or `from ... import` statement (relative
  ones resolved; `from a.b import c, d` of names in a.b is one import of a.b); it is function-local when a def, async def or lambda encloses it, and a type-only one
  when an `if TYPE_CHECKING:` block does (those never run);
- a cycle is a strongly connected component of more than one module in the graph of the imports
  that run (module-level and function-local ones), with a module that imports `pkg.mod` also
  depending on `pkg` (Python runs a package's __init__ first). lint-imports (pyproject.toml) checks
  the layers and the cycles between siblings; this also finds a package and its own submodule.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "hclbuild"


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    path: Path
    line: int
    kind: str  # "module", "local" or "type"


def module_names(package: Path) -> dict[str, Path]:
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _targets(module: str, node: ast.Import | ast.ImportFrom, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        named = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parent = module.split(".") if is_package else module.split(".")[:-1]
            parent = parent[: len(parent) - (node.level - 1)]
            base = ".".join([*parent, *([base] if base else [])])
        named = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    found: list[str] = []
    for name in named:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module and name not in found:
            found.append(name)
    return found


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    found: list[Import] = []

    def walk(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = kind
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and kind == "module":
                inner = "local"
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = "type"
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, child, path.name == "__init__.py", known):
                    found.append(Import(module, target, path, child.lineno, kind))
            walk(child, inner)

    walk(ast.parse(path.read_text(encoding="utf-8")), "module")
    return found


def cycles(modules: set[str], imports: list[Import]) -> list[list[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for imp in imports:
        if imp.kind != "type":
            graph[imp.importer].add(imp.imported)
    for name in modules:  # importing a.b runs a first
        parent = name.rpartition(".")[0]
        if parent in modules:
            for importer in [m for m, targets in graph.items() if name in targets]:
                if importer != parent and not importer.startswith(parent + "."):
                    graph[importer].add(parent)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for name in sorted(graph):
        if name not in index:
            connect(name)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true", help="list every function-local import")
    args = parser.parse_args()
    modules = module_names(PACKAGE)
    imports = [imp for name, path in modules.items() for imp in imports_of(name, path, set(modules))]
    by_kind = {kind: [imp for imp in imports if imp.kind == kind] for kind in ("module", "local", "type")}
    found = cycles(set(modules), imports)
    print(f"modules: {len(modules)}")
    print(
        f"imports of hclbuild modules: {len(by_kind['module'])} at module level, "
        f"{len(by_kind['local'])} function-local, {len(by_kind['type'])} type-only"
    )
    print(f"cycles: {len(found)}")
    for component in found:
        print(f"    {len(component)} modules: {', '.join(component)}")
    if args.local:
        for imp in by_kind["local"]:
            print(f"{imp.path.relative_to(PACKAGE.parent)}:{imp.line}: {imp.imported}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
