#!/usr/bin/env bash
# bench_shards_events.sh: the views of an event trace (OTF2) on one
# PostgreSQL server, on a shard, and spread over two shards, side by side in
# one run (issue 20: the event tables on the shards, sql/pg/022).
#
#   tests/bench/bench_shards_events.sh [BUILD_DIR]        (default: build-rl, a Release build)
#   RANKS=256 EVENTS=4000000 RUNS=3 tests/bench/bench_shards_events.sh build-rl   (about 3 minutes)
#
# The trace comes from tests/tools/gen_otf2 (a ring of RANKS MPI ranks,
# about EVENTS events). Three throwaway clusters (tests/lib/pg_cluster.sh) on
# this machine: a coordinator cluster and two shard clusters. "one server":
# database `plain` on the coordinator cluster, no shards. "on a shard":
# database `coord` with two shards, the trace on one of them. "spread": the
# same coordinator with the spreading threshold at 1 record, the trace
# imported again and spread over both (its calls and events by location,
# its messages whole on one shard: docs/postgresql.md). A fresh ariadned per
# set-up answers each view once (first) and RUNS times more (median).
# Printed: the times, and the ratio of each sharded set-up to one server.
# The reference is the one server of the same run: the shards' chunks cross
# postgres_fdw as text, which is what the ratio shows.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-rl}
ranks=${RANKS:-256}
events=${EVENTS:-4000000}
runs=${RUNS:-3}
ariadned=$build/ariadned
[ -x "$ariadned" ] && [ -x "$build/gen_otf2" ] || { echo "build $build first (ariadned, gen_otf2)" >&2; exit 1; }
for tool in psql curl python3; do
    command -v "$tool" >/dev/null || { echo "$tool missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/ariadne-bench-shev-XXXXXX)
chmod 755 "$tmp" # the throwaway clusters run as an unprivileged user
source "$root/tests/bench/lib_shards.sh" # cleanup at exit, cluster, sql, serve, stop, time_ms, median_ms
clusters=("$tmp/coord" "$tmp/shard1" "$tmp/shard2")
coordc=$(cluster coord)
shard1=$(cluster shard1)
shard2=$(cluster shard2)
"$build/gen_otf2" --ranks "$ranks" --events "$events" --out "$tmp/ring" >/dev/null
echo "generated: $ranks ranks, $(du -sh "$tmp/ring" | cut -f1); load average $(cut -d' ' -f1-3 /proc/loadavg)"

sql "$coordc/ariadne" -c "CREATE DATABASE plain" -c "CREATE DATABASE coord"
sql "$shard1/ariadne" -c "CREATE DATABASE s1"
sql "$shard2/ariadne" -c "CREATE DATABASE s2"
"$ariadned" shard add --db "$coordc/coord" --name a --url "$shard1/s1" 2>/dev/null
"$ariadned" shard add --db "$coordc/coord" --name b --url "$shard2/s2" 2>/dev/null
"$ariadned" import --quiet --db "$coordc/plain" "$tmp/ring" >/dev/null
"$ariadned" import --quiet --db "$coordc/coord" "$tmp/ring" >/dev/null
"$ariadned" shard spread --db "$coordc/coord" --rows 1 >/dev/null
"$ariadned" import --quiet --allow-duplicate --db "$coordc/coord" "$tmp/ring" >/dev/null 2>&1
echo "calls: $(sql "$coordc/plain" -c "SELECT sum(n) FROM state_chunks"), messages: $(sql "$coordc/plain" -c "SELECT sum(n) FROM message_chunks")"
echo "on a shard: $(sql "$coordc/coord" -c "SELECT string_agg(relname, ' ' ORDER BY relname) FROM pg_class c JOIN pg_foreign_table f ON f.ftrelid = c.oid WHERE relname ~ '_t1$'")"

views=(states timeline "aggregation" "aggregation/levels" links messages time-profile flat-profile caller-callee
    load-imbalance idle-time comm-matrix message-histogram comm-over-time)
declare -A first median
for setup in plain:1 coord:1 coord:2; do
    db=${setup%:*} id=${setup#*:}
    serve "$coordc/$db" "$db$id"
    for v in "${views[@]}"; do
        u="http://127.0.0.1:$port/api/v1/traces/$id/$v"
        first[$setup,$v]=$(time_ms "$u")
        median[$setup,$v]=$(median_ms "$u")
    done
    stop
done
printf '%-20s %16s %16s %16s %9s %9s\n' "GET (ms, first/median)" "one server" "on a shard" "spread" "shard/1" "spread/1"
for v in "${views[@]}"; do
    one=${median[plain:1,$v]} sh=${median[coord:1,$v]} sp=${median[coord:2,$v]}
    printf '%-20s %16s %16s %16s %9s %9s\n' "$v" "${first[plain:1,$v]} / $one" "${first[coord:1,$v]} / $sh" \
        "${first[coord:2,$v]} / $sp" "$(awk -v a="$sh" -v b="$one" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')" \
        "$(awk -v a="$sp" -v b="$one" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
