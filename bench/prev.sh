#!/usr/bin/env bash
# prev.sh -- the baseline of `make bench`: builds hetsim (and gen_trace) as
# of the git commit REF (default: main) into DIR (default: build-bench-prev/),
# from `git archive REF` (no worktree, nothing of the checkout touched), and
# rebuilds only when REF names another commit than the stored build
# (DIR/commit). bench/run.sh then times both builds in the same run and
# prints new/previous beside each figure.
#
# Usage: bench/prev.sh [REF] [DIR]; BENCH_BASE=REF make bench picks the ref.
# If REF is not a commit here (e.g. a shallow clone without main), it says
# so and the bench runs without ratios.
set -euo pipefail
ref=${1:-main}
dir=${2:-build-bench-prev}
commit=$(git rev-parse --verify -q "$ref^{commit}" || true)
if [ -z "$commit" ]; then
  echo "bench: no commit '$ref' here: no baseline, no ratios" >&2
  exit 0
fi
if [ -x "$dir/hetsim" ] && [ "$(cat "$dir/commit" 2>/dev/null)" = "$commit" ]; then
  exit 0
fi
echo "bench: building the baseline $ref (${commit:0:10}) into $dir/" >&2
rm -rf "$dir"
mkdir -p "$dir/src"
git archive "$commit" | tar -x -C "$dir/src"
if [ -x "$dir/src/bench/pgo.sh" ]; then # built as `make build` builds it
  "$dir/src/bench/pgo.sh" "$dir/build" "${JOBS:-2}" hetsim >/dev/null
else
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
    -DHETSIM_TESTS=OFF >/dev/null
  cmake --build "$dir/build" -j "${JOBS:-2}" --target hetsim >/dev/null
fi
cp "$dir/build/hetsim" "$dir/hetsim"
# the modules it opens on demand, looked for beside it (hetsim_embed.so for
# Python policies, hetsim_mpi.so under mpirun; none before they existed)
for m in "$dir/build/"hetsim_*.so; do
  if [ -e "$m" ]; then cp "$m" "$dir/"; fi
done
echo "$commit" > "$dir/commit"
rm -rf "$dir/src" "$dir/build"
