#!/usr/bin/env bash
# The static checks CI runs before the tests: ruff's lint rules and its formatter (pyproject.toml [tool.ruff]).
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check hclbuild tests bench dodo.py
ruff format --check hclbuild tests bench dodo.py
