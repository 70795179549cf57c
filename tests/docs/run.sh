#!/usr/bin/env bash
# run.sh HETSIM SRC -- runs, as written, the shell blocks of README.md's
# five-minute tour and every ```sh block of docs/*.md that follows a line
# `<!-- test -->`, each page in a fresh folder that looks like the top of
# the source tree (build/hetsim, traces/, policies/, examples/). A block
# that fails (any command, under bash -e) fails the test and is printed.
set -u
hetsim=$(readlink -f "$1")
src=$(readlink -f "$2")
work=$(mktemp -d /tmp/hetsim-docs-XXXXXX)
trap 'rm -rf "$work"' EXIT

# The blocks of FILE to run, into OUT: MODE tour = the ```sh blocks of the
# section "## A five-minute tour"; MODE marked = blocks after <!-- test -->.
extract() {
    awk -v mode="$3" '
        /^## / { tour = ($0 ~ /^## A five-minute tour/) }
        /^<!-- test -->/ { marked = 1; next }
        /^```sh/ && !code {
            if ((mode == "tour" && tour) || (mode == "marked" && marked)) {
                code = 1; n++; print "# ---- block " n; next
            }
        }
        /^```/ && code { code = 0; marked = 0; next }
        code { print }
        !/^[[:space:]]*$/ && !code { marked = marked && /^<!--/ }
    ' "$1" > "$2"
}

failed=0
run_page() { # PAGE MODE
    local page=$1 mode=$2 dir
    dir=$work/$(basename "$page" .md)
    mkdir -p "$dir/build"
    ln -s "$hetsim" "$dir/build/hetsim"
    for d in traces policies examples; do ln -s "$src/$d" "$dir/$d"; done
    extract "$page" "$dir/blocks.sh" "$mode"
    if ! grep -q '^# ---- block' "$dir/blocks.sh"; then
        [ "$mode" = tour ] && { echo "FAIL $page: no tour found"; failed=1; }
        return
    fi
    local t0=$SECONDS
    if (cd "$dir" && bash -e blocks.sh > out.txt 2>&1); then
        echo "ok   $page ($(grep -c '^# ---- block' "$dir/blocks.sh") blocks, $((SECONDS - t0)) s)"
    else
        echo "FAIL $page: a command failed; the blocks and their output:"
        cat "$dir/blocks.sh"
        tail -40 "$dir/out.txt"
        failed=1
    fi
}

run_page "$src/README.md" tour
for page in "$src"/docs/*.md; do
    run_page "$page" marked
done
exit $failed
