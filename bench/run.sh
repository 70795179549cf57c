#!/usr/bin/env bash
# make bench: speed figures of this machine. Not a test: nothing here fails
# because a number is slow; it prints what it measured.
set -euo pipefail
build=${1:-build}
hetsim=$build/hetsim
work=$(mktemp -d /tmp/hetsim-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
here=$(dirname "$0")

echo "== FIFO, 1,000,000 one-GPU jobs on 1,000 identical GPUs at load 0.9"
echo "   (Poisson arrivals, exponential durations of mean 3600 s, seed 1)"
"$build/bench/gen_trace" 1000000 1000 0.9 3600 1 > "$work/trace.csv"
printf '   trace: %s, %d MB\n' "$work/trace.csv" \
  $(( $(stat -c %s "$work/trace.csv") / 1000000 ))
start=$(date +%s.%N)
"$hetsim" run -q --trace "$work/trace.csv" --cluster "$here/cluster-1000.json" \
  --policy fifo --out "$work/out"
end=$(date +%s.%N)
# Reads KEY of a flat JSON file written by hetsim.
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }
p=$work/out/perf.json; s=$work/out/summary.json
awk -v size="$(stat -c %s "$work/trace.csv")" -v wall0="$start" -v wall1="$end" -v read="$(val $p read_wall_s)" \
    -v sim="$(val $p sim_wall_s)" -v write="$(val $p write_wall_s)" \
    -v eps="$(val $p events_per_s)" -v rss="$(val $p peak_rss_mb)" \
    -v bpj="$(val $p bytes_per_job)" -v n="$(val $s jobs_total)" \
    -v wait="$(val $s avg_wait_s)" -v util="$(val $s gpu_utilization)" 'BEGIN {
  printf "   wall, whole command     %8.3f s\n", wall1 - wall0
  printf "   read trace              %8.3f s  (%.0f MB/s)\n", read, size / 1e6 / read
  printf "   simulate                %8.3f s\n", sim
  printf "   write results           %8.3f s\n", write
  printf "   jobs/s (simulate)       %12.0f\n", n / sim
  printf "   events/s (simulate)     %12.0f\n", eps
  printf "   peak RSS                %8.1f MB\n", rss
  printf "   bytes/job in the core   %8d  (struct sim_job; whole process: %.0f)\n", bpj, rss * 1048576 / n
  printf "   avg wait %.1f s, GPU utilization %.3f\n", wait, util
}'

echo
echo "== Trace readers, 1,000,000 rows each (best of 5 reads)"
"$build/bench/bench_read" native "$work/trace.csv"
# A Philly CSV in the published schema, unsorted timestamps over 90 days.
awk 'BEGIN { srand(7); print "timestamp,duration,num_gpus,gpu_time,cluster"
  for (i = 0; i < 1000000; i++) {
    t = int(rand() * 90 * 86400); d = 1 + int(rand() * 86400)
    g = 2 ^ int(rand() * 4)
    printf "2017-%02d-%02d %02d:%02d:%02d,%d,%d,%d,vc%d\n", 10 + int(t / 2678400),
      1 + int((t % 2678400) / 86400) % 28, int((t % 86400) / 3600),
      int((t % 3600) / 60), t % 60, d, g, d * g, int(rand() * 15) }
}' > "$work/philly.csv"
"$build/bench/bench_read" philly "$work/philly.csv"

echo
echo "== Preemptive policies, 1-GPU jobs on 1,000 identical GPUs at load 0.98"
echo "   (Poisson arrivals, exponential durations of mean 3600 s, seed 1; at"
echo "   load 0.9 hardly a job waits, so a preemptive policy has little to do)"
# Runs hetsim with the options after LABEL on TRACE and prints its figures.
preemptive_run() {
  local trace=$1 label=$2 out=$work/out-preemptive start end
  shift 2
  start=$(date +%s.%N)
  "$hetsim" run -q --trace "$trace" --cluster "$here/cluster-1000.json" \
    --out "$out" "$@"
  end=$(date +%s.%N)
  awk -v label="$label" -v wall0="$start" -v wall1="$end" \
      -v sim="$(val "$out/perf.json" sim_wall_s)" \
      -v pre="$(val "$out/summary.json" preemptions_total)" \
      -v n="$(val "$out/summary.json" jobs_total)" \
      -v jct="$(val "$out/summary.json" avg_jct_s)" 'BEGIN {
    printf "   %-24s simulate %7.3f s, whole command %7.3f s, %6.3f preemptions/job, avg JCT %6.0f s\n",
      label, sim, wall1 - wall0, pre / n, jct }'
}
for n in 100000 1000000; do
  "$build/bench/gen_trace" "$n" 1000 0.98 3600 1 > "$work/preemptive-$n.csv"
  printf '   %d jobs:\n' "$n"
  preemptive_run "$work/preemptive-$n.csv" "fifo (for reference)" --policy fifo
  preemptive_run "$work/preemptive-$n.csv" "srtf, oracle estimates" \
    --policy srtf --estimates oracle
  preemptive_run "$work/preemptive-$n.csv" "las, quantum 60 s" --policy las
  preemptive_run "$work/preemptive-$n.csv" "tiresias, defaults" \
    --policy tiresias
done

echo
echo "== hetsim sweep: 200 cells (5 policies x 40 seeds, noisy:0.5 estimates)"
echo "   on Gavel's trace 6214e9 and gavel-108 (bench/sweep-200.json)"
for j in 1 2; do
  rm -rf "$work/sweep"
  start=$(date +%s.%N)
  "$hetsim" sweep "$here/sweep-200.json" -q -j "$j" --out "$work/sweep"
  end=$(date +%s.%N)
  awk -v j="$j" -v wall0="$start" -v wall1="$end" 'BEGIN {
    printf "   -j %d   %7.2f s   %6.1f cells/s\n", j, wall1 - wall0,
      200 / (wall1 - wall0) }'
done

echo
echo "== gavel-maxmin: Gavel's max-min LP (GLPK simplex) on gavel-108's 3 types"
echo "   one solve, random throughputs, 1/2/4/8-GPU jobs (bench/bench_lp.c); jobs"
echo "   of one class are one group of the LP (Gavel's traces: 26 job types x GPU counts):"
"$build/bench/bench_lp" 100 0 5
"$build/bench/bench_lp" 1000 0 5
"$build/bench/bench_lp" 1000 100 5
"$build/bench/bench_lp" 10000 100 5
echo "   a whole run: the first 1,000 jobs of Gavel's trace 6214e9, all submitted"
echo "   at 0 (1,000 active jobs at the start), rounds of 360 s, re-solved at each"
echo "   round after a job finished:"
awk -F'\t' 'BEGIN { OFS = "\t" } NR <= 1000 { $6 = "0.000000"; print }' \
  "$here/../traces/gavel/msr/seed=0/6214e9.trace" > "$work/gavel-1000.trace"
start=$(date +%s.%N)
"$hetsim" run -q --trace "$work/gavel-1000.trace" --cluster gavel-108 \
  --throughputs "$here/../traces/gavel/simulation_throughputs.json" \
  --policy gavel-maxmin --out "$work/out-gavel"
end=$(date +%s.%N)
awk -v wall0="$start" -v wall1="$end" \
    -v sim="$(val "$work/out-gavel/perf.json" sim_wall_s)" \
    -v span="$(val "$work/out-gavel/summary.json" makespan_s)" \
    -v pre="$(val "$work/out-gavel/summary.json" preemptions_total)" 'BEGIN {
  printf "   simulate %.3f s, whole command %.3f s; about %.0f rounds, %.0f preemptions\n",
    sim, wall1 - wall0, span / 360, pre }'

echo
echo "== hetsim pack: fgd, best-fit, dot-product on 8,000 pods x 1,500 nodes"
echo "   (traces/alibaba2023/synth.py --pods 8000 --nodes 1500, seed 1)"
python3 "$here/../traces/alibaba2023/synth.py" --pods 8000 --nodes 1500 \
  "$work/pods.csv" "$work/nodes.csv"
"$hetsim" pack --no-plots --trace "$work/pods.csv" \
  --cluster "alibaba2023:$work/nodes.csv" \
  --placements fgd,best-fit,dot-product --out "$work/pack" 2>&1 >/dev/null |
  sed 's/^/   /'

echo
echo "== Predictor (float build, one core: OPENBLAS_NUM_THREADS=1; CPU seconds)"
echo "   seed000 (Hu, Table 2) on 517 rows for 200 epochs; inference at batch 1"
echo "   and batched; seed002 (Wang et al.) per epoch on 452 rows"
OPENBLAS_NUM_THREADS=1 "$build/bench/bench_predictor" 2

echo
echo "== Predictor in the loop: 1,000,000 jobs, SJF, oracle vs the Transformer-BiGRU"
echo "   (Poisson arrivals at load 0.9 on 1,000 each of V100, P100, K80; Gavel job"
echo "   types drawn uniformly, GPU counts 1:0.7,2:0.1,4:0.1,8:0.1, seed 1; the"
echo "   run-time model is seed000 trained on \`hetsim dataset gavel\`)"
matrix="$here/../traces/gavel/simulation_throughputs.json"
"$hetsim" dataset gavel --throughputs "$matrix" -o "$work/gavel-all.csv" 2>/dev/null
awk -F, 'NR == 1 || $(NF - 1) == 1' "$work/gavel-all.csv" > "$work/gavel.csv"
start=$(date +%s.%N)
"$hetsim" predictor train -q --data "$work/gavel.csv" --target throughput \
  --model tbigru --log-target --drop runnable,job_type -o "$work/runtime.bin"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "   training (246 rows, 200 epochs)  %8.3f s\n", e - s }'
"$hetsim" trace generate -n 1000000 --load 0.9 \
  --cluster "$here/cluster-gavel-3000.json" --job-types-from "$matrix" \
  -g 1:0.7,2:0.1,4:0.1,8:0.1 -o "$work/typed.csv" >/dev/null 2>&1
loop_run() { # LABEL ESTIMATES; prints and leaves the whole time in $wall
  local out=$work/out-loop start end
  start=$(date +%s.%N)
  "$hetsim" run -q --trace "$work/typed.csv" --throughputs "$matrix" \
    --cluster "$here/cluster-gavel-3000.json" --policy sjf --estimates "$2" \
    --out "$out"
  end=$(date +%s.%N)
  wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", e - s }')
  awk -v label="$1" -v wall="$wall" -v sim="$(val "$out/perf.json" sim_wall_s)" \
      -v pred="$(val "$out/perf.json" predict_wall_s)" \
      -v calls="$(val "$out/summary.json" predict_calls)" \
      -v hit="$(val "$out/summary.json" predict_cache_hit_rate)" \
      -v mape="$(val "$out/summary.json" estimate_runtime_mape)" 'BEGIN {
    printf "   %-10s whole command %7.3f s, simulate %7.3f s (predicting %.3f s), %d calls, cache hit rate %s, run-time MAPE %.1f %%\n",
      label, wall, sim, pred, calls, hit, mape }'
}
loop_run oracle oracle
oracle_wall=$wall
loop_run predictor "predictor:$work/runtime.bin"
awk -v a="$oracle_wall" -v b="$wall" 'BEGIN {
  printf "   predictor / oracle, whole command: %.2fx (target: under 3x)\n", b / a }'

echo
"$here/python.sh" "$build"
