#!/usr/bin/env bash
# The test command: the whole suite, with tool-gated tests skipped (and their reasons shown).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pytest -q -rs "$@"
