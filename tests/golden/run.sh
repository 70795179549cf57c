#!/usr/bin/env bash
# The CI check of simulated results (CTest test `golden`): every policy on
# the shipped traces against the golden files of this folder, so that a
# change to any makespan or JCT is a deliberate one (update the golden file
# in the same commit, with `hetsim check --write-baseline`, and say why).
# Then hetsim's FIFO against an independent reference (fifo_reference.py).
# Usage: tests/golden/run.sh HETSIM_BINARY
set -euo pipefail
hetsim=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/hetsim-golden.XXXXXX)
trap 'rm -rf "$work"' EXIT
keys=jobs_completed_mean,makespan_s_mean,avg_jct_s_mean,median_jct_s_mean,p99_jct_s_mean

for pair in gavel:gavel-6214e9 native:msr-seed0-6214e9; do
  spec=${pair%%:*} golden=${pair#*:}
  echo "== $golden: every policy (tests/golden/$spec.json)"
  "$hetsim" sweep "$here/$spec.json" -j 2 -q --out "$work/$spec"
  "$hetsim" check --baseline "$here/$golden.json" \
    --result "$work/$spec/sweep.csv" --keys "$keys"
done

echo "== FIFO on a 108-GPU pool against an independent reference"
if ! command -v python3 >/dev/null; then
  echo "python3 not found: reference check skipped"
  exit 0
fi
python3 "$here/fifo_reference.py" "$here/../../traces/gavel/msr-seed0-6214e9.csv" \
  "$work/pool.csv" "$work/reference.json"
"$hetsim" run -q --trace "$work/pool.csv" --cluster "$here/pool-108.json" \
  --policy fifo --out "$work/pool"
"$hetsim" check --baseline "$work/reference.json" --result "$work/pool/summary.json"
