#!/usr/bin/env bash
# Installs hclbuild (editable) with its test and plot extras into the active Python environment, plus the
# Apache-2.0 ap_types headers for C simulation: they ship inside the hls4ml wheel, which is
# installed without its (large, unneeded) dependencies and never imported.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[test,plot]'
python -m pip install --quiet --no-deps 'hls4ml==1.3.0'
