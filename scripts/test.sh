#!/usr/bin/env bash
# The test command: the whole suite, with tool-gated tests skipped (and their reasons shown).
#   scripts/test.sh [pytest args]          every test (what CI runs)
#   scripts/test.sh --fast [pytest args]   the edit loop: tests marked slow left out, and the 25
#                                          slowest of the rest listed with their times
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--fast" ]]; then
    shift
    exec python -m pytest -q -rs -m "not slow" --durations=25 --durations-min=0.5 "$@"
fi
exec python -m pytest -q -rs "$@"
