#!/usr/bin/env bash
# make bench: speed figures of this machine. Not a test: nothing here fails
# because a number is slow; it prints what it measured.
#
# Usage: bench/run.sh [BUILD [PREV]]. PREV (default build-bench-prev/, made
# by bench/prev.sh from BENCH_BASE, default main) holds the previous build's
# hetsim: each timed hetsim command runs with both, interleaved, BENCH_REPS
# times (default 3), and the best of each is printed with new/prev beside it
# (below 1: faster than the previous build). Ratios compare only figures of
# the same run on the same machine. Without PREV/hetsim, no ratios.
# BENCH_SCALE="10000000 ..." adds jobs streamed through a pipe (opt-in; the
# streaming run keeps memory to the active jobs plus 8 bytes per job, a
# build without it about 430 bytes per job: docs/streaming.md).
set -euo pipefail
build=${1:-build}
prevdir=${2:-build-bench-prev}
hetsim=$build/hetsim
prev=$prevdir/hetsim
[ -x "$prev" ] || prev=
reps=${BENCH_REPS:-3}
work=$(mktemp -d /tmp/hetsim-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
here=$(dirname "$0")
if [ -n "$prev" ]; then
  echo "(new/prev: this build against $prev, commit $(cut -c1-10 "$prevdir/commit" 2>/dev/null || echo '?');"
  echo " best of $reps runs each, interleaved)"
else
  echo "(no previous build in $prevdir: no ratios; bench/prev.sh makes one)"
fi

# Reads KEY of a flat JSON file written by hetsim.
val() { grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | sed 's/.*:[[:space:]]*//'; }
# NEW PREV: " (prev P, new/prev R)" or nothing without a previous figure.
ratio() {
  awk -v a="$1" -v b="${2:-}" 'BEGIN { if (b != "" && b > 0)
    printf "  [prev %.3f, new/prev %.2f]", b, a / b }'
}
# Runs `hetsim ARGS --out DIR` with BIN; leaves wall seconds, peak RSS (MB)
# and CPU seconds (user + system: steadier than wall on a shared machine) in
# $t, $m and $u.
run1() {
  local bin=$1 dir=$2 s e
  shift 2
  rm -rf "$dir"
  s=$(date +%s.%N)
  /usr/bin/time -f '%M %U %S' -o "$work/rss" "$bin" "$@" --out "$dir"
  e=$(date +%s.%N)
  t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
  m=$(awk '{ printf "%.1f", $1 / 1024 }' "$work/rss")
  u=$(awk '{ printf "%.2f", $2 + $3 }' "$work/rss")
}
# measure DIR ARGS...: hetsim ARGS, new into DIR and prev into DIR.prev, best
# of $reps each: $best $best_rss (new), $pbest $pbest_rss (prev, or empty).
measure() {
  local dir=$1 r
  shift
  best= best_rss= pbest= pbest_rss= cpu= pcpu=
  for ((r = 0; r < reps; r++)); do
    run1 "$hetsim" "$dir" "$@"
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
    best_rss=$m
    cpu=$(awk -v a="$u" -v b="$cpu" 'BEGIN { print (b == "" || a < b) ? a : b }')
    if [ -n "$prev" ]; then
      run1 "$prev" "$dir.prev" "$@"
      pbest=$(awk -v a="$t" -v b="$pbest" 'BEGIN { print (b == "" || a < b) ? a : b }')
      pbest_rss=$m
      pcpu=$(awk -v a="$u" -v b="$pcpu" 'BEGIN { print (b == "" || a < b) ? a : b }')
    fi
  done
}

echo "== FIFO, 1,000,000 one-GPU jobs on 1,000 identical GPUs at load 0.9"
echo "   (Poisson arrivals, exponential durations of mean 3600 s, seed 1)"
"$build/bench/gen_trace" 1000000 1000 0.9 3600 1 > "$work/trace.csv"
printf '   trace: %s, %d MB\n' "$work/trace.csv" \
  $(( $(stat -c %s "$work/trace.csv") / 1000000 ))
measure "$work/out" run -q --trace "$work/trace.csv" \
  --cluster "$here/cluster-1000.json" --policy fifo
p=$work/out/perf.json s=$work/out/summary.json
pp=$work/out.prev/perf.json
pv() { [ -n "$prev" ] && val "$pp" "$1" || true; }
printf '   wall, whole command     %8.3f s%s\n' "$best" "$(ratio "$best" "$pbest")"
printf '   CPU, whole command      %8.3f s%s\n' "$cpu" "$(ratio "$cpu" "$pcpu")"
awk -v size="$(stat -c %s "$work/trace.csv")" -v read="$(val $p read_wall_s)" \
    -v sim="$(val $p sim_wall_s)" -v write="$(val $p write_wall_s)" \
    -v eps="$(val $p events_per_s)" -v rss="$best_rss" \
    -v bpj="$(val $p bytes_per_job)" -v n="$(val $s jobs_total)" \
    -v pread="$(pv read_wall_s)" -v psim="$(pv sim_wall_s)" \
    -v pwrite="$(pv write_wall_s)" -v prss="$pbest_rss" \
    -v wait="$(val $s avg_wait_s)" -v util="$(val $s gpu_utilization)" '
function r(a, b) { return (b != "" && b > 0) ? sprintf("  [prev %.3f, new/prev %.2f]", b, a / b) : "" }
BEGIN {
  print "   (the split below: perf.json of the last run of each build)"
  printf "   read trace              %8.3f s  (%.0f MB/s)%s\n", read, size / 1e6 / read, r(read, pread)
  printf "   simulate                %8.3f s%s\n", sim, r(sim, psim)
  printf "   write results           %8.3f s%s\n", write, r(write, pwrite)
  printf "   jobs/s (simulate)       %12.0f\n", n / sim
  printf "   events/s (simulate)     %12.0f\n", eps
  printf "   peak RSS                %8.1f MB%s\n", rss, r(rss, prss)
  printf "   bytes/job in the core   %8d  (struct sim_job; whole process: %.0f)\n", bpj, rss * 1048576 / n
  printf "   avg wait %.6f s, GPU utilization %.3f\n", wait, util
}'
full_wall=$best full_cpu=$cpu
saved_prev=$prev prev= # the previous build may not know --outputs
measure "$work/out-summary" run -q --trace "$work/trace.csv" \
  --cluster "$here/cluster-1000.json" --policy fifo --outputs summary
prev=$saved_prev
printf '   --outputs summary       %8.3f s wall, %.2f s CPU (no jobs.csv, timeline.csv)\n' \
  "$best" "$cpu"
sum_wall=$best sum_cpu=$cpu
best=$full_wall cpu=$full_cpu
echo "   references: two Python loops over the same CSV (each reads every row,"
echo "   FIFO on 1,000 GPUs, writes no per-job rows; their mean wait must be"
echo "   hetsim's; hetsim's makespan counts from the first arrival, theirs from 0):"
echo "   bench/fifo_events.py, a discrete-event loop (event heap, FIFO queue,"
echo "   jobs of any GPU count: the issue's kind of specialised script), and"
echo "   bench/fifo_ref.py, a shortcut valid only for one-GPU jobs (each job"
echo "   takes the GPU that frees first: one heapreplace per job, no events)"
# pyref NAME SCRIPT: best wall and CPU of $reps runs, and both ratios.
pyref() {
  local name=$1 script=$2 pw= pc= st en
  for ((r = 0; r < reps; r++)); do
    st=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$work/pytime" \
      python3 "$here/$script" "$work/trace.csv" 1000 > "$work/py.txt"
    en=$(date +%s.%N)
    pw=$(awk -v s="$st" -v e="$en" -v b="$pw" 'BEGIN { a = e - s; print (b == "" || a < b) ? a : b }')
    pc=$(awk -v b="$pc" '{ a = $1 + $2; print (b == "" || a < b) ? a : b }' "$work/pytime")
  done
  awk -v name="$name" -v py="$pw" -v pyc="$pc" -v c="$best" -v cc="$cpu" \
      -v s="$sum_wall" -v sc="$sum_cpu" -v line="$(cat "$work/py.txt")" 'BEGIN {
    printf "   %-23s %8.3f s wall, %.2f s CPU  (%s)\n", name, py, pyc, line
    printf "     / hetsim --outputs summary (writes no rows either): %.2f wall, %.2f CPU (target: >= 5)\n", py / s, pyc / sc
    printf "     / hetsim with every output: %.2f wall, %.2f CPU\n", py / c, pyc / cc }'
}
if command -v python3 >/dev/null; then
  pyref "python event loop" fifo_events.py
  pyref "python shortcut" fifo_ref.py
fi
if [ -n "${BENCH_SCALE:-}" ]; then
  echo
  echo "== Scale: N one-GPU jobs streamed from gen_trace through a pipe (nothing"
  echo "   on disk), FIFO on 1,000 GPUs, --outputs summary; BENCH_SCALE=\"N ...\""
  echo "   (targets: 10M <= 4 s and <= 400 MB, 100M <= 45 s and <= 1 GB; a build"
  echo "   without the streaming run keeps about 430 bytes per job: 100M would"
  echo "   need about 43 GB). Up to 10M jobs best of $reps runs each, alternated,"
  echo "   above once each; the generator's time included in the wall time;"
  echo "   'path' is perf.json's run_path of this build."
  # scale1 BIN N: leaves wall seconds, CPU seconds of hetsim and peak RSS
  # (MB) in $t, $u and $m; returns non-zero when the run failed.
  scale1() {
    local st en
    rm -rf "$work/out-scale"
    st=$(date +%s.%N)
    "$build/bench/gen_trace" "$2" 1000 0.9 3600 1 |
      /usr/bin/time -f '%M %U %S' -o "$work/rss" "$1" run -q \
        --trace /dev/stdin --format native --cluster "$here/cluster-1000.json" \
        --policy fifo --outputs summary --out "$work/out-scale" || return 1
    en=$(date +%s.%N)
    t=$(awk -v s="$st" -v e="$en" 'BEGIN { printf "%.3f", e - s }')
    u=$(awk '{ printf "%.2f", $2 + $3 }' "$work/rss")
    m=$(awk '{ printf "%.0f", $1 / 1024 }' "$work/rss")
  }
  for n in $BENCH_SCALE; do
    # up to 10M: best of $reps, alternated, as elsewhere (one run of a few
    # seconds swings by a quarter on a shared host); above, once each
    runs=$reps
    [ "$n" -le 10000000 ] || runs=1
    nt= nu= nm= pt= pu= pm= failed=
    for ((r = 0; r < runs; r++)); do
      if ! scale1 "$hetsim" "$n"; then
        failed=1
        break
      fi
      if [ -z "$nt" ] || awk -v a="$t" -v b="$nt" 'BEGIN { exit !(a < b) }'; then
        nt=$t nu=$u nm=$m
      fi
      path=$(val "$work/out-scale/perf.json" run_path)
      if [ -n "$prev" ] && scale1 "$prev" "$n"; then
        if [ -z "$pt" ] || awk -v a="$t" -v b="$pt" 'BEGIN { exit !(a < b) }'; then
          pt=$t pu=$u pm=$m
        fi
      fi
    done
    if [ -n "$failed" ]; then
      echo "   $n jobs: failed (out of memory?)"
      continue
    fi
    printf '   %11d jobs: %8.2f s wall%s\n' "$n" "$nt" "$(ratio "$nt" "$pt")"
    printf '   %11s       %8.2f s CPU%s\n' "" "$nu" "$(ratio "$nu" "$pu")"
    printf '   %11s       %8.0f MB peak RSS%s\n' "" "$nm" "$(ratio "$nm" "$pm")"
    printf '   %11s       path %s\n' "" "$path"
  done
fi

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
# Runs hetsim with the options after LABEL on TRACE and prints its figures
# (best of REPS, default $reps).
preemptive_run() {
  local trace=$1 label=$2 out=$work/out-preemptive
  shift 2
  measure "$out" run -q --trace "$trace" --cluster "$here/cluster-1000.json" "$@"
  awk -v label="$label" -v wall="$best" -v pwall="$pbest" \
      -v sim="$(val "$out/perf.json" sim_wall_s)" \
      -v pre="$(val "$out/summary.json" preemptions_total)" \
      -v n="$(val "$out/summary.json" jobs_total)" \
      -v jct="$(val "$out/summary.json" avg_jct_s)" 'BEGIN {
    printf "   %-24s simulate %7.3f s, whole command %7.3f s%s, %7.3f preemptions/job, avg JCT %6.0f s\n",
      label, sim, wall, (pwall != "" && pwall > 0) ? sprintf(" [prev %.3f, new/prev %.2f]", pwall, wall / pwall) : "",
      pre / n, jct }'
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

burst=${BENCH_BURST:-30000}
echo
echo "== A burst: $burst one-GPU jobs all submitted at 0 on 1,000 GPUs"
echo "   (gen_trace's durations, seed 1; BENCH_BURST=N for another size; best"
echo "   of $reps each, as above: one run of a second or two swings up to 1.5x"
echo "   on a shared host). Target: las and tiresias whole command within 20x"
echo "   of fifo's"
"$build/bench/gen_trace" "$burst" 1000 0.9 3600 1 |
  awk -F, 'BEGIN { OFS = "," } NR > 1 { $2 = "0.000" } { print }' > "$work/burst.csv"
preemptive_run "$work/burst.csv" "fifo (for reference)" --policy fifo
burst_fifo=$best
preemptive_run "$work/burst.csv" "las, quantum 60 s" --policy las
burst_las=$best
preemptive_run "$work/burst.csv" "tiresias, defaults" --policy tiresias
awk -v f="$burst_fifo" -v l="$burst_las" -v t="$best" 'BEGIN {
  printf "   las / fifo %.1fx, tiresias / fifo %.1fx (whole command)\n", l / f, t / f }'

echo
echo "== gavel-fifo, gavel-maxmin, gavel-makespan on Gavel's trace 6214e9 (2,000"
echo "   jobs) on gavel-108 (--estimates oracle: gavel-makespan needs them);"
echo "   gavel-fifo best of $reps, alternated as above (one run of about a second"
echo "   swings by a fifth on a shared host), the others once each. Target:"
echo "   gavel-fifo <= 1 s"
saved_reps=$reps
for pol in gavel-fifo gavel-maxmin gavel-makespan; do
  [ "$pol" = gavel-fifo ] && reps=$saved_reps || reps=1
  measure "$work/out-$pol" run -q --trace "$here/../traces/gavel/msr/seed=0/6214e9.trace" \
    --cluster gavel-108 --throughputs "$here/../traces/gavel/simulation_throughputs.json" \
    --policy "$pol" --estimates oracle
  printf '   %-16s whole command %8.3f s%s, CPU %.2f s%s\n' "$pol" "$best" \
    "$(ratio "$best" "$pbest")" "$cpu" "$(ratio "$cpu" "$pcpu")"
done
reps=$saved_reps

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
echo "== hetsim run with GPU sharing: the same 8,000 pods arrive, run and leave,"
echo "   fgd, under fifo and tiresias (interference 0.65)"
for policy in fifo tiresias; do
  start=$(date +%s.%N)
  "$hetsim" run -q --trace "$work/pods.csv" --cluster "alibaba2023:$work/nodes.csv" \
    --policy "$policy" --placement fgd --out "$work/share-$policy"
  end=$(date +%s.%N)
  s=$work/share-$policy/summary.json
  awk -v p="$policy" -v wall0="$start" -v wall1="$end" \
      -v sim="$(val "$work/share-$policy/perf.json" sim_wall_s)" \
      -v jct="$(val "$s" avg_jct_s)" -v frag="$(val "$s" frag_rate_mean)" \
      -v shared="$(val "$s" jobs_shared)" 'BEGIN {
    printf "   %-8s simulate %.3f s, whole command %.3f s; avg JCT %.0f s, frag %.4f, %d jobs shared\n",
      p, sim, wall1 - wall0, jct, frag, shared }'
done

echo
echo "== Predictor (float build, one core: OPENBLAS_NUM_THREADS=1; CPU seconds)"
echo "   tbigru with hetsim's recipe (4000 steps) on 200, 2,000 and 20,000 rows;"
echo "   seed000 (Hu, Table 2) on 517 rows for 200 epochs; inference at batch 1"
echo "   (target: 10 us) and batched; seed002 (Wang et al.) per epoch on 452 rows"
OPENBLAS_NUM_THREADS=1 "$build/bench/bench_predictor" 2

echo
echo "== Predictor in the loop: 1,000,000 jobs, SJF, oracle vs the Transformer-BiGRU"
echo "   (Poisson arrivals at load 0.9 on 1,000 each of V100, P100, K80; Gavel job"
echo "   types drawn uniformly, GPU counts 1:0.7,2:0.1,4:0.1,8:0.1, seed 1; the"
echo "   run-time model is tbigru, hetsim's recipe, trained on \`hetsim dataset gavel\`)"
matrix="$here/../traces/gavel/simulation_throughputs.json"
"$hetsim" dataset gavel --throughputs "$matrix" -o "$work/gavel-all.csv" 2>/dev/null
awk -F, 'NR == 1 || $(NF - 1) == 1' "$work/gavel-all.csv" > "$work/gavel.csv"
start=$(date +%s.%N)
"$hetsim" predictor train -q --data "$work/gavel.csv" --target throughput \
  --model tbigru --log-target --drop runnable,job_type -o "$work/runtime.bin"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "   training (246 rows, 4000 steps)  %8.3f s\n", e - s }'
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
echo "== hetsim reproduce gavel-continuous --quick: Gavel's Fig. 8 workload"
echo "   (6,500 jobs of Gavel's generator per trace, 36 V100 + 36 P100 + 36 K80),"
echo "   one run at a time (-j 1); wall time per (policy, rate, seed) beside Gavel's"
echo "   own simulator on the same trace (gavel_wall_s of"
echo "   tests/data/gavel-reference/summary.csv, Python, one run on a 2-core machine)"
start=$(date +%s.%N)
"$hetsim" reproduce gavel-continuous --quick -j 1 -q \
  -T "$here/../traces/gavel/simulation_throughputs.json" -o "$work/reproduce"
end=$(date +%s.%N)
awk -F, 'NR == FNR { if (FNR > 1) gavel[$2 "," $3] = $13; next }
  FNR == 1 { printf "   %-28s %5s %5s %10s %10s %9s\n", "policy", "rate", "seed",
             "hetsim s", "Gavel s", "speed-up"; next }
  { g = gavel[$1 "," $2]
    printf "   %-28s %5s %5s %10.2f %10s %8.0fx\n", $1, $2, $3, $5, g,
           (g > 0 && $5 > 0) ? g / $5 : 0 }' \
  "$work/reproduce/table.csv" "$work/reproduce/runs.csv"
awk -v s="$start" -v e="$end" 'BEGIN { printf "   whole command (8 runs and the table): %.1f s\n", e - s }'

echo
"$here/python.sh" "$build"
