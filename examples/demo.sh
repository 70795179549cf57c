#!/usr/bin/env bash
# make demo: the default experiment on data shipped in traces/ -- the value
# of prediction. Trains a run-time and a memory predictor from shipped data,
# then replays Gavel's trace on gavel-108 under each policy with oracle,
# predicted, noisy and no estimates, and tabulates what prediction is worth.
# Usage: examples/demo.sh HETSIM_BINARY OUT_DIR
set -euo pipefail
hetsim=${1:-build/hetsim}
out=${2:-results/demo}
trace="traces/gavel/msr/seed=0/6214e9.trace"
matrix=traces/gavel/simulation_throughputs.json
data=$out/data
models=$out/models
runs=$out/runs
mkdir -p "$data" "$models" "$runs"

echo "== hetsim demo: Gavel's Philly-derived trace 6214e9 on gavel-108"
echo "   (36 K80 + 36 P100 + 36 V100; run times from Gavel's measured throughputs)"
echo
"$hetsim" trace stats "$trace" --cluster gavel-108 --throughputs "$matrix"

echo
echo "== 1. Predictors, trained from shipped data"
echo "   run time: Transformer-BiGRU (tbigru, hetsim's recipe) and XGBoost on"
echo "     \`hetsim dataset gavel\`, both fitting log(throughput)"
echo "     (one row per job type x GPU type x GPU count -> measured steps/s);"
echo "   memory: Transformer-BiGRU on \`hetsim dataset synth --schema memory\`"
echo "     (Wang et al.'s columns, an analytic model with noise: synthetic)."
echo "   Rows split 80/20 by position (every row whose line number ends in 8 or 9"
echo "   is held out); the accuracy below is on the held-out rows."
"$hetsim" dataset gavel --throughputs "$matrix" -o "$data/gavel-all.csv"
# Rows that cannot run (runnable=0, throughput 0) carry no speed to learn.
awk -F, 'NR == 1 || $(NF - 1) == 1' "$data/gavel-all.csv" > "$data/gavel.csv"
"$hetsim" dataset synth --schema memory --seed 1 -o "$data/memory.csv" 2>/dev/null
for d in gavel memory; do
  awk 'NR == 1 || NR % 10 < 8' "$data/$d.csv" > "$data/$d-train.csv"
  awk 'NR == 1 || NR % 10 >= 8' "$data/$d.csv" > "$data/$d-test.csv"
done
# job_type is dropped: the models must learn from the model and GPU facts.
"$hetsim" predictor train -q --data "$data/gavel-train.csv" --target throughput \
  --model tbigru --log-target --drop runnable,job_type -o "$models/runtime.bin"
"$hetsim" predictor train -q --data "$data/gavel-train.csv" --target throughput \
  --model xgboost --log-target --drop runnable,job_type -o "$models/runtime-xgb.bin"
"$hetsim" predictor train -q --data "$data/memory-train.csv" --target memory_mb \
  --model tbigru --log-target -o "$models/memory.bin"
echo
printf '   %-34s %-18s %6s %10s %8s\n' predictor model "rows" "MAPE %" "R2"
accuracy() { # LABEL MODEL_LABEL MODEL_FILE TEST_CSV TARGET
  "$hetsim" predictor eval --model "$3" --data "$4" --target "$5" |
    awk -v l="$1" -v m="$2" '$1 == "rows" { n = $2 } $1 == "mape" { p = $2 }
      $1 == "r2" { r = $2 } END { printf "   %-34s %-18s %6d %10.1f %8.3f\n", l, m, n, p, r }'
}
accuracy "run time (throughput, steps/s)" tbigru "$models/runtime.bin" \
  "$data/gavel-test.csv" throughput
accuracy "run time (throughput, steps/s)" xgboost "$models/runtime-xgb.bin" \
  "$data/gavel-test.csv" throughput
accuracy "peak GPU memory (MB, synthetic)" tbigru "$models/memory.bin" \
  "$data/memory-test.csv" memory_mb
echo
echo "   One split says little: the same two run-time models over 5 seeded 70/30"
echo "   splits of all the rows, mean +- sd (both fit log(throughput);"
echo "   docs/predictor.md has the tables, ensembles and leave-one-GPU-type-out):"
"$hetsim" predictor compare -q --no-plots --data "$data/gavel.csv" --target throughput \
  --drop runnable,job_type --log-target --repeats 5 --models tbigru,xgboost \
  --out "$data/compare" >/dev/null
awk -F, 'NR > 1 { printf "   %-12s R2 %.3f +- %.3f   MSE %.1f +- %.1f\n", $1, $7, $9, $3, $8 }' \
  "$data/compare/compare.csv"

echo
echo "== 2. Policies x estimates on the shipped trace"
echo "   oracle: the true run time and memory; predictor: the Transformer-BiGRU"
echo "   models above, asked on every arrival (cached by job type and GPU count);"
echo "   xgboost: the XGBoost run-time model; noisy:0.5: truth x lognormal(0, 0.5);"
echo "   history: mean run time of the jobs finished so far (the trace has no"
echo "   users or vcs, so one global mean); none: the policy sees no estimate."
pred="predictor:$models/runtime.bin,memory=$models/memory.bin"
xgb="predictor:$models/runtime-xgb.bin"
# Reads KEY of a flat JSON file written by hetsim.
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }
table=$out/value_of_prediction.csv
echo "policy,estimates,avg_jct_h,p99_jct_h,makespan_h,gpu_utilization,oom_events,estimate_runtime_mape,predict_cache_hit_rate,estimate_memory_mape" > "$table"
# POLICY LABEL ESTIMATES [PLACEMENT]: one run, one row of the table.
run() {
  local name=$1${4:++${4#*,}}
  local dir=$runs/$name-$2
  "$hetsim" run -q --trace "$trace" --throughputs "$matrix" --cluster gavel-108 \
    --policy "$1" --estimates "$3" --placement "${4:-fastest}" --out "$dir"
  local s=$dir/summary.json
  awk -v p="$name" -v e="$2" -v j="$(val "$s" avg_jct_s)" -v q="$(val "$s" p99_jct_s)" \
      -v m="$(val "$s" makespan_s)" -v u="$(val "$s" gpu_utilization)" \
      -v o="$(val "$s" oom_events)" -v a="$(val "$s" estimate_runtime_mape)" \
      -v h="$(val "$s" predict_cache_hit_rate)" -v mm="$(val "$s" estimate_memory_mape)" 'BEGIN {
    printf "%s,%s,%.1f,%.1f,%.1f,%.3f,%d,%s,%s,%s\n", p, e, j / 3600, q / 3600, m / 3600, u, o, a, h, mm }' >> "$table"
}
run fifo none none
for p in sjf srtf; do
  run "$p" oracle oracle
  run "$p" predictor "$pred"
  run "$p" xgboost "$xgb"
  run "$p" noisy:0.5 noisy:0.5
  run "$p" history history
done
run tiresias none none
# Memory estimates act through mem-aware placement: a job never goes to a
# GPU type whose memory is below its estimated need.
for e in none oracle; do run tiresias "$e" "$e" fastest,mem-aware; done
run tiresias predictor "$pred" fastest,mem-aware
for p in min-exec-time max-efficiency; do
  run "$p" oracle oracle
  run "$p" predictor "$pred"
  run "$p" noisy:0.5 noisy:0.5
done
run gavel-maxmin none none
echo
awk -F, 'NR == 1 { printf "   %-18s %-10s %9s %9s %10s %6s %4s %8s %8s\n", "policy", "estimates",
                   "avg JCT h", "p99 JCT h", "makespan h", "util", "OOM", "run MAPE", "mem MAPE"; next }
  { mape = $8 == "null" ? "-" : sprintf("%.1f", $8)
    mem = $10 == "null" ? "-" : sprintf("%.1f", $10)
    printf "   %-18s %-10s %9.1f %9.1f %10.1f %6.3f %4d %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, mape, mem }' "$table"
echo "   (MAPE in %, of the estimates over the jobs simulated: run time, and memory"
echo "   where the need is known)"
echo "   (table: $table)"

echo
echo "== 3. Reading"
awk -F, 'NR > 1 { k = $1 "/" $2; jct[k] = $3; mape[k] = $8; mk[k] = $5; hit[k] = $9; oom[k] = $7; mm[k] = $10
    if ($3 + 0 < best || best == "") { best = $3 + 0; bestk = $1 " with " $2 " estimates" }
    if ($7 > 0) { ooms = ooms (ooms == "" ? "" : ", ") $1 "/" $2 " " $7 } }
  END {
    o = jct["sjf/oracle"]; p = jct["sjf/predictor"]; f = jct["fifo/none"]
    printf "SJF with oracle run times cuts FIFO'"'"'s average JCT from %.0f h to %.0f h. ", f, o
    printf "Fed by the Transformer-BiGRU (run-time MAPE %.0f%% over the jobs simulated, ", mape["sjf/predictor"]
    printf "%.1f%% of arrivals answered from the cache) it gets %.0f h (%+.1f%% against oracle); ", 100 * hit["sjf/predictor"], p, 100 * (p / o - 1)
    printf "XGBoost %.0f h, lognormal noise of sigma 0.5 %.0f h, and the history estimator ", jct["sjf/xgboost"], jct["sjf/noisy:0.5"]
    printf "(one running mean, no features) %.0f h", jct["sjf/history"]
    if (jct["sjf/history"] > 0.9 * f) printf ", close to FIFO"
    printf ": ranking jobs needs the order "
    printf "of their run times more than exact values, and a model that knows job types keeps "
    printf "most of the oracle'"'"'s gain. SRTF: oracle %.0f h, predictor %.0f h, history %.0f h", jct["srtf/oracle"], jct["srtf/predictor"], jct["srtf/history"]
    if (jct["srtf/predictor"] < jct["srtf/oracle"])
      printf " (SRTF is not optimal for average JCT with multi-GPU jobs on several GPU types, so wrong estimates can win by chance)"
    printf ". min-exec-time shortens the makespan to %.0f h (FIFO %.0f h) but not the average JCT; ", mk["min-exec-time/oracle"], mk["fifo/none"]
    if (jct["min-exec-time/noisy:0.5"] == jct["min-exec-time/oracle"])
      printf "noise that scales a job'"'"'s time alike on every type leaves its choices unchanged, "
    printf "while the predictor'"'"'s errors differ by GPU type and move jobs (%.0f h against %.0f h). ", jct["min-exec-time/predictor"], jct["min-exec-time/oracle"]
    if (jct["max-efficiency/oracle"] == jct["min-exec-time/oracle"])
      printf "With no utilization columns in this trace max-efficiency with oracle estimates makes the same choices as min-exec-time; "
    printf "with the predictor it gets %.0f h: the memory estimates add a term, peak over the type'"'"'s capacity, that is largest on the 12 GB K80, so jobs crowd onto the slowest GPUs. ", jct["max-efficiency/predictor"]
    printf "The lowest average JCT is %s (%.0f h). ", bestk, best
    printf "Memory matters little here: only the two ResNet-50 jobs of batch size 128 have a known need (they do not fit a K80); "
    if (ooms == "") printf "no run ran out of memory. "
    else printf "runs with OOM events: %s. ", ooms
    printf "With mem-aware placement Tiresias has %d OOM events with oracle memory and %d with the memory predictor, ", oom["tiresias+mem-aware/oracle"], oom["tiresias+mem-aware/predictor"]
    printf "whose memory MAPE on those jobs is %.0f%%", mm["tiresias+mem-aware/predictor"]
    if (oom["tiresias+mem-aware/predictor"] > 0)
      printf ": trained on synthetic data without a batch-size column, it underestimates them"
    printf ".\n"
  }' "$table" | fold -s -w 75 | sed 's/^/   /'

echo
echo "== strict FIFO, placing each job on the fastest free GPU type, with a report"
echo
"$hetsim" run --trace "$trace" --throughputs "$matrix" --cluster gavel-108 \
  --policy fifo --report --out "$out/fifo"
echo
echo "charts: $out/fifo/jct_cdf.png queue.png busy_gpus.png utilization.png"
echo "        (and .svg; each .gp script redraws its chart: cd $out/fifo && gnuplot queue.gp)"
echo
echo "Open the report of this run in a browser: $out/fifo/report.html"
