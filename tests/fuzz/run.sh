#!/bin/sh
# run.sh -- runs the libFuzzer harnesses built by `make fuzz`, one after the
# other, and prints a summary per target.
#
#   tests/fuzz/run.sh BUILD SECONDS TARGET...
#
# Run from the repository root. Seeds are read from tests/fuzz/corpus/TARGET
# (never written); new interesting inputs go to BUILD/corpus/TARGET, so the
# repository does not churn; crashes, leaks, timeouts and out-of-memory
# inputs go to tests/fuzz/crashes/TARGET, which `make test` replays. The
# full libFuzzer output of each target is in BUILD/fuzz-TARGET.log. Exits 1
# when a target crashed or could not run, else 0.
set -u

if [ $# -lt 3 ]; then
    echo "usage: tests/fuzz/run.sh BUILD SECONDS TARGET..." >&2
    exit 2
fi
build=$1
seconds=$2
shift 2

# Artifacts libFuzzer writes for a failing input (not slow-unit-*).
count_artifacts() {
    ls "$1" 2>/dev/null | grep -c -E '^(crash|leak|timeout|oom)-'
}

status=0
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
for t in "$@"; do
    bin=$build/tests/fuzz/fuzz_$t
    seeds=tests/fuzz/corpus/$t
    scratch=$build/corpus/$t
    crashes=tests/fuzz/crashes/$t
    log=$build/fuzz-$t.log
    if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
        echo "fuzz: no harness or seed corpus for target '$t'" >&2
        status=1
        continue
    fi
    mkdir -p "$scratch" "$crashes"
    dict=""
    [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
    before=$(count_artifacts "$crashes")
    echo "fuzz: $t for ${seconds}s (log: $log)"
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" $dict "$scratch" "$seeds" \
        >"$log" 2>&1
    rc=$?
    # Executions: the final statistics, or the last status line "#N ...".
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(grep -E '^#[0-9]+' "$log" | tail -1 |
                               sed 's/^#\([0-9]*\).*/\1/')
    last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    new=$(($(count_artifacts "$crashes") - before))
    printf '%-14s %7s %12s %7s %7s %8s\n' "$t" "$seconds" "${execs:-?}" \
        "${cov:-?}" "${ft:-?}" "$new" >>"$summary"
    if [ "$rc" -ne 0 ] || [ "$new" -gt 0 ]; then
        status=1
        echo "fuzz: $t failed (exit $rc); end of $log:" >&2
        grep -v -E '^(0x|#[0-9])' "$log" | tail -40 >&2
    fi
done

echo
printf '%-14s %7s %12s %7s %7s %8s\n' target seconds executions cov ft \
    crashes
cat "$summary"
if [ "$status" -ne 0 ]; then
    echo "fuzz: failing inputs are in tests/fuzz/crashes/<target>/;" \
         "reproduce with $build/tests/fuzz/fuzz_<target> FILE" >&2
fi
exit "$status"
