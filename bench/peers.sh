#!/usr/bin/env bash
# Installs the comparison peers bench/compare.js measures against (odiff,
# blazediff, reg-cli) under $DPE_BENCH_PEERS (default /tmp/dpe-bench-peers),
# outside the project: odiff and blazediff ship one native package per
# platform, and a registry that serves only this machine's platform leaves
# the others out of a lock file, which `npm ci` then refuses. Prints the
# folder; bench/compare.js reads the same variable.
set -euo pipefail
dir="${DPE_BENCH_PEERS:-/tmp/dpe-bench-peers}"
mkdir -p "$dir"
if ! [ -f "$dir/node_modules/odiff-bin/package.json" ] || ! [ -f "$dir/node_modules/@blazediff/bin/package.json" ] || ! [ -f "$dir/node_modules/reg-cli/package.json" ]; then
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error odiff-bin@4.5.0 @blazediff/bin@3.5.0 reg-cli@0.18.16 >&2
fi
echo "$dir"
