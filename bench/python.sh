#!/usr/bin/env bash
# Policies in Python (make bench, from bench/run.sh): what the embedding
# costs against the same policy built in, and a Python policy on a Gavel
# trace against the time Gavel's own simulator took on it. Prints figures;
# fails on nothing slow.
# Usage: bench/python.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
hetsim=$build/hetsim
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/hetsim-bench-py.XXXXXX)
trap 'rm -rf "$work"' EXIT
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }

# Runs hetsim with the options after OUT; leaves the whole time in $wall.
timed() {
  local out=$1 start end
  shift
  start=$(date +%s.%N)
  "$hetsim" run -q "$@" --out "$out"
  end=$(date +%s.%N)
  wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
}

echo "== Python policy vs built-in: FIFO, 1,000,000 one-GPU jobs on 1,000 GPUs"
echo "   (bench/gen_trace 1000000 1000 0.9 3600 1; policies/examples/fifo.py)"
"$build/bench/gen_trace" 1000000 1000 0.9 3600 1 > "$work/trace.csv"
for p in fifo "$root/policies/examples/fifo.py"; do
  name=$(basename "$p")
  timed "$work/$name" --trace "$work/trace.csv" \
    --cluster "$here/cluster-1000.json" --policy "$p"
  printf '   %-8s whole command %7.3f s, simulate %7.3f s, %s events\n' \
    "$name" "$wall" "$(val "$work/$name/perf.json" sim_wall_s)" \
    "$(val "$work/$name/summary.json" events)"
done
cmp -s "$work/fifo/jobs.csv" "$work/fifo.py/jobs.csv" &&
  echo "   jobs.csv: identical" || echo "   jobs.csv: DIFFERENT"
awk -v c="$(val "$work/fifo/perf.json" sim_wall_s)" \
    -v p="$(val "$work/fifo.py/perf.json" sim_wall_s)" \
    -v n="$(val "$work/fifo/summary.json" events)" 'BEGIN {
  printf "   Python overhead: %.3f s over %d events = %.2f us per event (target: under 5)\n",
    p - c, n, (p - c) / n * 1e6 }'

echo
echo "== Gavel trace msr/seed=0/6214e9 (2000 jobs), gavel-108, Python policies"
gref=
for d in "$root/../shared" "$root/../../shared"; do # CI: ../shared by the clone
  [ -r "$d/data/gavel-reference/summary.csv" ] &&
    gref=$d/data/gavel-reference/summary.csv && break
done
for p in fifo.py fastest_finish.py; do
  timed "$work/g-$p" --trace "$root/traces/gavel/msr/seed=0/6214e9.trace" \
    --throughputs "$root/traces/gavel/simulation_throughputs.json" \
    --cluster gavel-108 --policy "$root/policies/examples/$p"
  printf '   %-18s whole command %7.3f s, simulate %7.3f s, avg JCT %.0f s\n' \
    "$p" "$wall" "$(val "$work/g-$p/perf.json" sim_wall_s)" \
    "$(val "$work/g-$p/summary.json" avg_jct_s)"
done
if [ -n "$gref" ]; then
  echo "   Gavel's own simulator on the same trace (gavel_wall_s of"
  echo "   ../shared/data/gavel-reference/summary.csv, one run each on a shared"
  echo "   2-core machine; MANIFEST.md there says how it was run):"
  awk -F, '$1 == "6214e9" && ($3 == "fifo" || $3 == "fifo_perf") {
    printf "   Gavel %-18s %7.1f s, avg JCT %.0f s\n", $3, $6, $4 }' "$gref"
else
  echo "   (../shared/data/gavel-reference/summary.csv not found: Gavel's"
  echo "   measured times, fifo 249.1 s and fifo_perf 203.3 s, are quoted there)"
fi
