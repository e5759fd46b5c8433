#!/usr/bin/env bash
# bench_profiles.sh: the profile load benchmark (issue 6). Generates a
# Caliper json-split of a CCT of NODES nodes on RANKS ranks
# (tests/tools/gen_cct.c), imports it with `ariadned import` (stream the
# rows, renumber, derive, store one BLOB per metric and node, one
# transaction), then loads the whole CCT with ari_profile_load
# (tests/tools/bench_profile_load.c). Prints the import time and peak
# memory, the load time and peak memory, and the raw metric data size.
#
#   tests/bench/bench_profiles.sh [BUILD_DIR]          (default: build)
#   NODES=100000 RANKS=1024 tests/bench/bench_profiles.sh build-prof
#
# Targets: load under 5 s, load memory within 3 times the raw metric data
# (nodes x ranks x metrics x 8 bytes). Needs about 4 GB of disk for the
# default size (file and database) in $TMPDIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
nodes=${NODES:-100000}
ranks=${RANKS:-1024}
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() { # measure OUTFILE CMD... -> "seconds peak_kB"
    local out=$1; shift
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null
    cat "$out"
}

file=$tmp/cct.json
read -r g_s _ < <(measure "$tmp/g.time" "$build/gen_cct" --nodes "$nodes" --ranks "$ranks" --out "$file")
file_mb=$(( $(stat -c %s "$file") / 1048576 ))
echo "generated $nodes nodes x $ranks ranks: $file_mb MB json-split in ${g_s}s"
read -r i_s i_kb < <(measure "$tmp/i.time" "$build/ariadned" import --db "$tmp/p.db" --quiet "$file")
db_mb=$(( $(stat -c %s "$tmp/p.db") / 1048576 ))
echo "import: ${i_s}s, peak ${i_kb} kB ($((i_kb / 1024)) MB), database $db_mb MB"
rm -f "$file"
"$build/bench_profile_load" "$tmp/p.db" | tee "$tmp/load.txt"
awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
     END { ok = v["load_s"] < 5 && v["peak/raw"] <= 3;
           printf "targets: load %s s (< 5), memory %s x raw (<= 3): %s\n", v["load_s"], v["peak/raw"], ok ? "met" : "NOT met" }' "$tmp/load.txt"
