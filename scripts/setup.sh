#!/usr/bin/env bash
# Installs hclbuild (editable) with its test, plot, distributed, docs and explore extras into the active Python environment, plus the
# Apache-2.0 ap_types headers for C simulation: they ship inside the hls4ml wheel, which is
# installed without its (large, unneeded) dependencies and never imported.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[test,plot,distributed,docs,explore]'
python -m pip install --quiet --no-deps 'hls4ml==1.3.0'
# run_hls.tcl is tested under plain tclsh, report.html in headless Chromium driven by selenium, and
# --cluster slurm against a one-node Slurm on localhost (munged, slurmctld, slurmd; the daemons need
# root) (the tests skip without them, so CI installs them to run those tests)
missing=()
command -v tclsh >/dev/null 2>&1 || missing+=(tcl)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v munged >/dev/null 2>&1 || missing+=(munge)
command -v slurmctld >/dev/null 2>&1 || missing+=(slurm-wlm)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "setup.sh: ${missing[*]} missing and cannot be installed here (not root, or no apt-get)" >&2
    fi
fi
