#!/usr/bin/env bash
# make demo: the default experiment on data shipped in traces/.
# Usage: examples/demo.sh HETSIM_BINARY OUT_DIR
set -euo pipefail
hetsim=${1:-build/hetsim}
out=${2:-results/demo}
trace=traces/gavel/msr-seed0-6214e9.csv

echo "hetsim demo: Gavel's Philly-derived trace 6214e9 (2,000 jobs over 48 days)"
echo "on gavel-108 (36 K80 + 36 P100 + 36 V100), strict FIFO."
echo
"$hetsim" run --trace "$trace" --cluster gavel-108 --policy fifo \
  --plots --out "$out/fifo"
if [ -f "$out/fifo/report.html" ]; then
  echo
  echo "report: $out/fifo/report.html"
fi
