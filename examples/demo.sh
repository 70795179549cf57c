#!/usr/bin/env bash
# make demo: the default experiment on data shipped in traces/.
# Usage: examples/demo.sh HETSIM_BINARY OUT_DIR
set -euo pipefail
hetsim=${1:-build/hetsim}
out=${2:-results/demo}
trace="traces/gavel/msr/seed=0/6214e9.trace"
matrix=traces/gavel/simulation_throughputs.json

echo "== hetsim demo: Gavel's Philly-derived trace 6214e9 on gavel-108"
echo "   (36 K80 + 36 P100 + 36 V100; run times from Gavel's measured throughputs)"
echo
"$hetsim" trace stats "$trace" --cluster gavel-108 --throughputs "$matrix"
echo
echo "== strict FIFO, placing each job on the fastest free GPU type"
echo
"$hetsim" run --trace "$trace" --throughputs "$matrix" --cluster gavel-108 \
  --policy fifo --report --out "$out/fifo"
echo
echo "charts: $out/fifo/jct_cdf.png queue.png busy_gpus.png utilization.png"
echo "        (and .svg; each .gp script redraws its chart: cd $out/fifo && gnuplot queue.gp)"
echo "report: $out/fifo/report.html"
