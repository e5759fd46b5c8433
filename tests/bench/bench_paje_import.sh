#!/usr/bin/env bash
# bench_paje_import.sh: ariadne's whole import of a Paje trace (parse and
# store in SQLite) against Debian's pj_dump parsing and printing the same
# file, in the same run, at two sizes, with both tools' peak memory.
#
#   tests/bench/bench_paje_import.sh [BUILD_DIR]     (default: build)
#   STATES="1000000 5000000" tests/bench/bench_paje_import.sh
#
# Target (issue 3): ariadne's import takes no longer than pj_dump, and its
# memory does not grow with the trace size.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
sizes=${STATES:-"1000000 5000000"}
command -v pj_dump >/dev/null || { echo "pj_dump missing: apt-get install pajeng" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() { # measure OUTFILE CMD... -> "seconds peak_kB"
    local out=$1; shift
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null
    cat "$out"
}

printf '%-10s %-10s %12s %12s %8s %14s %14s\n' states file_MB ariadne_s pj_dump_s ratio ariadne_MB pj_dump_MB
for n in $sizes; do
    trace=$tmp/bench-$n.trace
    "$build/gen_paje" --states "$n" --containers 64 --out "$trace"
    mb=$(( $(stat -c %s "$trace") / 1048576 ))
    rm -f "$tmp/b.db"*
    read -r a_s a_kb < <(measure "$tmp/a.time" "$build/ariadned" import --db "$tmp/b.db" --quiet "$trace")
    read -r p_s p_kb < <(measure "$tmp/p.time" pj_dump "$trace")
    stored=$(sqlite3 "$tmp/b.db" "SELECT count(*) FROM states")
    ratio=$(awk -v a="$a_s" -v p="$p_s" 'BEGIN { printf "%.2f", a / p }')
    printf '%-10s %-10s %12s %12s %8s %14d %14d   (%s states stored)\n' "$n" "$mb" "$a_s" "$p_s" "$ratio" \
        $((a_kb / 1024)) $((p_kb / 1024)) "$stored"
    rm -f "$trace"
done
echo "ratio = ariadne / pj_dump (below 1: ariadne is faster). Memory is the peak resident set."
