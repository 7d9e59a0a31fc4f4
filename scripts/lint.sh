#!/usr/bin/env bash
# The static checks CI runs before the tests: ruff's lint rules and its formatter (pyproject.toml [tool.ruff]),
# the types (pyproject.toml [tool.mypy]), the import contract (pyproject.toml [tool.importlinter]: the
# layers, no cycles), and the documentation site built strictly (a broken link or a page left out of
# mkdocs.yml fails). .pre-commit-config.yaml runs the same checks on a commit.
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check hclbuild tests bench scripts dodo.py
ruff format --check hclbuild tests bench scripts dodo.py
mypy
lint-imports --no-cache
# not --quiet: it hides the warnings that --strict counts, and the build then passes with them
NO_MKDOCS_2_WARNING=1 mkdocs build --strict 2>&1 | { grep -v "^INFO" || true; }
