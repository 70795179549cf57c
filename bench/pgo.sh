#!/usr/bin/env bash
# pgo.sh -- the release build of `make build`, optimised with GCC's
# profile-guided optimisation: a first build that counts its branches
# (BUILD/pgo/gen/) runs a fixed training set, and the release build in
# BUILD/ is compiled with those counts (CMakeLists.txt, HETSIM_PGO_*).
# Results are the same as without a profile; the program is about a tenth
# faster (docs/performance.md, "A profile-guided build").
#
# The counts are kept in BUILD/pgo/profile-KEY/, KEY a hash of the sources
# and of the compiler: an edit to any source trains again and rebuilds all
# (PGO=0 make ... builds without a profile, for a quicker edit-build loop:
# PGO=0 in the environment here).
# If the training cannot run, the build goes on without a profile and says
# so.
#
# Training set (seed 2, not the bench's seed 1): FIFO and SJF on 200,000
# generated one-GPU jobs (streamed, every output and --outputs summary),
# LAS, SRTF and Tiresias on 50,000 jobs at load 0.98 and on a burst of
# 3,000, fifo, las, gavel-fifo and gavel-maxmin on Gavel's trace 6214e9,
# and 300 steps of the memory predictor's training on synthetic rows.
#
# Usage: bench/pgo.sh BUILD [JOBS [TARGET...]] (the targets of the release
# build; default all)
set -euo pipefail
build=$1
jobs=${2:-2}
shift $(($# < 2 ? $# : 2))
targets=()
for t in "$@"; do targets+=(--target "$t"); done
src=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$build"
build=$(cd "$build" && pwd)
pgo=$build/pgo

plain() {
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DHETSIM_PGO_USE= -DHETSIM_PGO_GENERATE= >/dev/null
  cmake --build "$build" -j "$jobs" "${targets[@]}"
}

if [ "${PGO:-1}" = 0 ]; then
  plain
  exit 0
fi
cc=${CC:-cc}
if ! "$cc" --version 2>/dev/null | grep -q 'Free Software Foundation' ||
   [ "$("$cc" -dumpversion | cut -d. -f1)" -lt 11 ]; then
  echo "hetsim: $cc is not GCC 11 or later: building without a profile" >&2
  plain
  exit 0
fi

# The sources: every C file, header and CMakeLists.txt of the checkout
# (tracked or not, but not ignored), or of the tree when it is no git
# checkout (bench/prev.sh's copy), build folders left out.
sources() {
  if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
    git -C "$src" ls-files --cached --others --exclude-standard -- \
      '*.c' '*.h' '*CMakeLists.txt'
  else
    (cd "$src" && find . -type d -exec test -e '{}/CMakeCache.txt' \; -prune \
       -o -type f \( -name '*.[ch]' -o -name CMakeLists.txt \) -print)
  fi | LC_ALL=C sort -u
}
key=$(cd "$src" &&
      { sources | while IFS= read -r f; do
          if [ -e "$f" ]; then sha1sum "$f"; fi
        done
        "$cc" --version; sha1sum bench/pgo.sh; } | sha1sum | cut -c1-12)
profile=$pgo/profile-$key

if [ ! -e "$profile/done" ]; then
  echo "hetsim: a first build and its training runs (about a minute), for" \
    "the profile-guided build (bench/pgo.sh; PGO=0 make ... skips it)" >&2
  rm -rf "$pgo"/profile-*
  mkdir -p "$profile"
  cmake -S "$src" -B "$pgo/gen" -DCMAKE_BUILD_TYPE=Release -DHETSIM_TESTS=OFF \
    -DHETSIM_PGO_GENERATE="$profile" -DHETSIM_PGO_USE= >/dev/null
  cmake --build "$pgo/gen" -j "$jobs" --target hetsim gen_trace >/dev/null
  work=$(mktemp -d "${TMPDIR:-/tmp}/hetsim-pgo.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  h=$pgo/gen/hetsim g=$pgo/gen/bench/gen_trace c=$src/bench/cluster-1000.json
  train() {
    "$g" 200000 1000 0.9 3600 2 > "$work/poisson.csv"
    "$g" 50000 1000 0.98 3600 2 > "$work/busy.csv"
    "$g" 3000 1000 0.9 3600 2 |
      awk -F, 'BEGIN { OFS = "," } NR > 1 { $2 = "0.000" } { print }' \
      > "$work/burst.csv"
    run() { "$h" run -q --cluster "$c" --out "$work/out" "$@"; }
    run --trace "$work/poisson.csv" --format native --policy fifo
    run --trace "$work/poisson.csv" --format native --policy fifo \
      --outputs summary
    run --trace "$work/poisson.csv" --format native --policy sjf \
      --estimates oracle
    for t in busy burst; do
      run --trace "$work/$t.csv" --policy las
      run --trace "$work/$t.csv" --policy srtf --estimates oracle
      run --trace "$work/$t.csv" --policy tiresias
    done
    for p in fifo las gavel-fifo gavel-maxmin; do
      "$h" run -q --trace "$src/traces/gavel/msr/seed=0/6214e9.trace" \
        --cluster gavel-108 --estimates oracle --policy "$p" \
        --throughputs "$src/traces/gavel/simulation_throughputs.json" \
        --out "$work/out"
    done
    "$h" dataset synth --schema memory --seed 2 -o "$work/memory.csv"
    "$h" predictor train -q --data "$work/memory.csv" --target memory_mb \
      --model tbigru --log-target --steps 300 -o "$work/memory.bin"
    "$h" predictor eval --model "$work/memory.bin" --data "$work/memory.csv" \
      --target memory_mb
  }
  set +e # (a function in an if's condition would run without -e)
  (set -e; train) > "$work/log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "hetsim: the training runs failed; building without a profile:" >&2
    tail -5 "$work/log" >&2
    rm -rf "$profile"
    plain
    exit 0
  fi
  touch "$profile/done"
fi

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DHETSIM_PGO_USE="$profile" -DHETSIM_PGO_GENERATE= >/dev/null
cmake --build "$build" -j "$jobs" "${targets[@]}"
