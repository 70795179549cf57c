#!/usr/bin/env bash
# util-pack with the oracle against predicted GPU utilization on Gavel's
# trace (docs/sharing.md): trains a utilization model from Gavel's pairs,
# then replays FIFO (greedy) under each placement with util-pack off, with
# the oracle (pair-derived utilization of each job type) and with the
# model's prediction on arrival.
# Usage: examples/utilpack_table.sh [HETSIM] [OUT_DIR] [MODEL]
set -euo pipefail
hetsim=${1:-build/hetsim}
out=${2:-results/utilpack}
model=${3:-xgboost}
here=$(cd "$(dirname "$0")/.." && pwd)
tp=$here/traces/gavel/simulation_throughputs.json
mkdir -p "$out"
"$hetsim" dataset gavel --throughputs "$tp" --target util -o "$out/util.csv" 2>/dev/null
"$hetsim" predictor train -q --data "$out/util.csv" --target gpu_util \
  --drop job_type --model "$model" -o "$out/util.model"
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }
echo "| placement | utilization | jobs co-locatable | jobs_shared | avg JCT (s) | p99 JCT (s) | makespan (s) | gpu_utilization | effective_utilization |"
echo "|---|---|---|---|---|---|---|---|---|"
for placement in best-fit dot-product fgd; do
  for mode in off oracle predicted; do
    extra=()
    [ "$mode" = oracle ] && extra=(--util-pack 1)
    [ "$mode" = predicted ] && extra=(--util-pack 1 --estimates "predictor:util=$out/util.model")
    dir=$out/$placement-$mode
    "$hetsim" run -q --trace "$here/traces/gavel/msr-seed0-6214e9.csv" \
      --cluster gavel-108 --pairs "$tp" --gpu-sharing --policy fifo \
      --backfill greedy --placement "$placement" "${extra[@]}" --out "$dir"
    s=$dir/summary.json
    printf '| %s | %s | %d | %d | %.0f | %.0f | %.0f | %.4f | %.4f |\n' \
      "$placement" "$mode" "$(val "$s" jobs_util_packed)" \
      "$(val "$s" jobs_shared)" "$(val "$s" avg_jct_s)" "$(val "$s" p99_jct_s)" \
      "$(val "$s" makespan_s)" "$(val "$s" gpu_utilization)" \
      "$(val "$s" effective_utilization)"
  done
done
