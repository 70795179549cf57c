#!/usr/bin/env bash
# The policies x placements table of docs/sharing.md: every ordering policy
# under every sharing placement on the shipped Alibaba-schema pods, one
# `hetsim run` each, with oracle run-time estimates (sjf, srtf need them).
# Usage: examples/sharing_table.sh [HETSIM] [OUT_DIR]
set -euo pipefail
hetsim=${1:-build/hetsim}
out=${2:-results/sharing-table}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }
echo "| policy | placement | avg JCT (s) | p99 JCT (s) | frag_rate_mean | gpu_utilization | effective_utilization | jobs_shared |"
echo "|---|---|---|---|---|---|---|---|"
for policy in fifo fifo+greedy sjf edf srtf las tiresias gittins fair; do
  for placement in fgd best-fit dot-product first-fit random; do
    name=${policy%+greedy}; extra=()
    [ "$policy" != "$name" ] && extra=(--backfill greedy)
    dir=$out/$policy-$placement
    "$hetsim" run -q --trace "$here/traces/alibaba2023/pods.csv" \
      --cluster "alibaba2023:$here/traces/alibaba2023/nodes.csv" \
      --policy "$name" "${extra[@]}" --placement "$placement" \
      --estimates oracle --out "$dir"
    s=$dir/summary.json
    printf '| %s | %s | %.0f | %.0f | %.4f | %.4f | %.4f | %d |\n' "$policy" \
      "$placement" "$(val "$s" avg_jct_s)" "$(val "$s" p99_jct_s)" \
      "$(val "$s" frag_rate_mean)" "$(val "$s" gpu_utilization)" \
      "$(val "$s" effective_utilization)" "$(val "$s" jobs_shared)"
  done
done
