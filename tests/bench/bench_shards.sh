#!/usr/bin/env bash
# bench_shards.sh: the Gantt of one large trace on one shard next to the same
# trace spread over two shards (issue 20: "the two-shard Gantt at most 0.6x
# the one-server time; the daemon's memory during a 100M-state Gantt under
# 200 MB").
#
#   tests/bench/bench_shards.sh [BUILD_DIR]                 (default: build-rl, a Release build)
#   STATES=2e6 TILES=80 RUNS=3 tests/bench/bench_shards.sh build-rl     (about 8 minutes)
#   STATES=1e8 TILES=100 RUNS=3 STATE_ZOOMS=100 tests/bench/bench_shards.sh build-rl
#   SETUPS=two ...: one set-up only (its times and memory; no ratio)
#
# Three throwaway clusters (tests/lib/pg_cluster.sh) on this machine: a
# coordinator cluster and two shard clusters. "one server": coordinator
# database `one` with one shard (a database on the first shard cluster), the
# trace on it. "two shards": coordinator database `two` with two shards (a
# database on each shard cluster) and the spreading threshold at 1 row, so
# the trace is spread over both (docs/postgresql.md, "Spreading a large
# trace"). Both shard clusters run on this one 2-core machine, whose cores
# they share (with whatever else runs: the load average is printed): the
# two-shard set-up can keep two cores busy with one request (each shard runs
# its part of the aggregation, at once: async foreign scans); the one-server
# set-up's shard runs one remote query on one core (postgres_fdw reads
# through a cursor, which PostgreSQL never runs in parallel).
#
# HOW THE TRACE IS MADE, honestly: importing 100 M states takes over an hour
# here (10 M took ~400 s), so the script imports a generated trace
# (`ariadned generate --tiles TILES --nodes 2`), then AMPLIFIES it in place on
# the shards with SQL: copies of its states and tasks, each shifted in time by
# k x the trace's span (k = 1, 2, ...; no copy overlaps another on a row),
# until the states reach STATES; rowids are shifted too (kept unique). Each
# worker row then holds k times its states and tasks, and the trace's extent
# is k times as long. The coordinator's per-trace caches that described the
# imported rows are deleted: the Gantt summaries (gantt_summaries, _rows,
# _levels: so the whole-trace view must aggregate the raw rows, pushed to the
# shards, which is what the target measures), the packed Gantt rows and the
# analysis cache (the trace's metadata, its extent among them, is recomputed
# from the amplified tasks). Then ANALYZE on the shards. Variables, links and
# the trace list's counts keep the imported trace's.
#
# The set-ups are made and measured one after the other (the first dropped
# before the second is made: half the disk). For each, a warm-up ariadned
# makes the first whole-trace request, which computes and caches in the
# database what an import prepares for a trace's first view (the bounds
# behind the Gantt's marks and the outlier thresholds: they read the trace's
# tasks into the daemon) and the once-per-trace overlap check (a window
# function over the trace's tasks that postgres_fdw does not push down); its
# time and peak memory are printed. Then a fresh ariadned answers GET /gantt
# at 1920 px over the whole trace, a tenth and a hundredth (first request and
# median of RUNS more), without states, then for the zooms in STATE_ZOOMS
# with states=true. Without summaries the runtime states are read raw (every
# state of a row starting before the window's end, into the daemon): at 1e8
# states only the hundredth is practical (STATE_ZOOMS=100). Printed: each
# time, the two-shard/one-server ratio per request (target <= 0.6), the
# daemon's peak resident memory (VmHWM) after the requests without states and
# after all (target < 200 MB), the coordinator's statements over 200 ms
# during the measured requests (from its log), and whether both set-ups gave
# the same answers (numbers to 1e-9).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-rl}
tiles=${TILES:-80}
target=$(printf '%.0f' "${STATES:-2e6}")
runs=${RUNS:-3}
state_zooms=${STATE_ZOOMS:-1 10 100}
ariadned=$build/ariadned
[ -x "$ariadned" ] || { echo "build $build first (ariadned, Release)" >&2; exit 1; }
for tool in psql jq curl bc python3; do
    command -v "$tool" >/dev/null || { echo "$tool missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/ariadne-bench-shards-XXXXXX)
chmod 755 "$tmp" # the throwaway clusters run as an unprivileged user
source "$root/tests/bench/lib_shards.sh" # cleanup at exit, cluster, sql, serve, stop, time_ms, median_ms
elapsed() { echo "$(date +%s.%N) - $1" | bc -l; }
clusters=("$tmp/coord" "$tmp/shard1" "$tmp/shard2")
coordc=$(cluster coord)
shard1=$(cluster shard1)
shard2=$(cluster shard2)
"$ariadned" generate --out "$tmp/chol" --tiles "$tiles" --nodes 2 >/dev/null
echo "generated: tiles $tiles, $(du -sh "$tmp/chol" | cut -f1); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# setup NAME: the coordinator database NAME and its shards; "one": one
# shard, "two": two shards and every trace spread
setup() {
    sql "$coordc/ariadne" -c "CREATE DATABASE $1"
    sql "$shard1/ariadne" -c "CREATE DATABASE ${1}_s1"
    "$ariadned" shard add --db "$coordc/$1" --name a --url "$shard1/${1}_s1" 2>/dev/null
    if [ "$1" = two ]; then
        sql "$shard2/ariadne" -c "CREATE DATABASE ${1}_s2"
        "$ariadned" shard add --db "$coordc/$1" --name b --url "$shard2/${1}_s2" 2>/dev/null
        "$ariadned" shard spread --db "$coordc/$1" --rows 1 >/dev/null
    fi
}
teardown() {
    sql "$coordc/ariadne" -c "DROP DATABASE $1 WITH (FORCE)"
    sql "$shard1/ariadne" -c "DROP DATABASE ${1}_s1 WITH (FORCE)"
    if [ "$1" = two ]; then sql "$shard2/ariadne" -c "DROP DATABASE ${1}_s2 WITH (FORCE)"; fi
}
# the trace's shard tables of states and tasks: "URL TABLE" per line
shard_tables() { # shard_tables COORD
    sql "$1" -F ' ' -c "SELECT (SELECT x FROM unnest(v.srvoptions) x WHERE x ~ '^port='),
        (SELECT x FROM unnest(v.srvoptions) x WHERE x ~ '^dbname='), c.relname
        FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid JOIN pg_foreign_server v ON v.oid = f.ftserver
        WHERE c.relname ~ '^(states|tasks)_t${id}(_s[0-9]+)?\$' ORDER BY 3" |
        while read -r port dbname rel; do echo "postgresql://ariadne@127.0.0.1:${port#port=}/${dbname#dbname=} $rel"; done
}
# amplify URL TABLE: copies 1 .. copies-1 of the shard table's rows, its
# indexes dropped and rebuilt around the insert, then ANALYZE
amplify() {
    local url=$1 table=$2
    [ "$copies" -gt 1 ] || return 0
    local cols
    cols=$(sql "$url" -c "SELECT string_agg(CASE attname WHEN 'start' THEN 'start + \$1 * $shift'
        WHEN 'end' THEN '\"end\" + \$1 * $shift' WHEN 'rowid' THEN 'rowid + \$1 * 10000000000'
        ELSE quote_ident(attname) END, ', ' ORDER BY attnum) FROM pg_attribute
        WHERE attrelid = '\"$table\"'::regclass AND attnum > 0 AND NOT attisdropped")
    sql "$url" <<SQL
SET maintenance_work_mem = '1GB';
CREATE TEMP TABLE ix AS SELECT pg_get_indexdef(indexrelid) AS def, indexrelid::regclass::text AS name
    FROM pg_index WHERE indrelid = '"$table"'::regclass;
DO \$\$ DECLARE r record; BEGIN
    FOR r IN SELECT name FROM ix LOOP EXECUTE 'DROP INDEX ' || r.name; END LOOP; END \$\$;
CREATE TEMP TABLE orig AS SELECT * FROM "$table";
DO \$\$ BEGIN
    FOR g IN 1 .. $((copies - 1)) LOOP -- copy after copy: the heap in time order, as an import leaves it
        EXECUTE format('INSERT INTO %I SELECT $cols FROM orig', '$table') USING g;
    END LOOP; END \$\$;
DO \$\$ DECLARE r record; BEGIN
    FOR r IN SELECT def FROM ix LOOP EXECUTE r.def; END LOOP; END \$\$;
ANALYZE "$table";
SQL
}
rss() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$pid/status"; }
# the coordinator's statements over 200 ms in its log from byte $1 on
slow_statements() {
    tail -c +"$(($1 + 1))" "$tmp/coord/log" | grep -o 'duration: [0-9.]* ms  [a-z]*[^:]*: .\{0,70\}' |
        sed -E 's/^duration: ([0-9.]+) ms  [^:]*: /\1 /' |
        awk '{d = $1; $1 = ""; n[$0]++; t[$0] += d} END {for (k in n) printf "  %5d %9.0f %s\n", n[k], t[k], k}' |
        sort -k2 -n -r | head -6 || true
}

declare -A first median rss_plain rss_all
labels=()
for db in ${SETUPS:-one two}; do
    echo "== $db"
    setup "$db"
    url=$coordc/$db
    s=$(date +%s.%N)
    "$ariadned" import --quiet --db "$url" "$tmp/chol" >/dev/null
    printf 'import %.1f s\n' "$(elapsed "$s")"
    id=$(sql "$url" -c "SELECT max(id) FROM traces")
    states0=$(sql "$url" -c "SELECT count(*) FROM states WHERE trace_id = $id")
    tasks0=$(sql "$url" -c "SELECT count(*) FROM tasks WHERE trace_id = $id")
    copies=$(((target + states0 - 1) / states0))
    # the span of everything a row draws: no copy overlaps the one before it
    read -r lo hi < <(sql "$url" -F ' ' -c "SELECT least(min(s), min(t)), greatest(max(e), max(u)) FROM
        (SELECT min(start) s, max(\"end\") e FROM states WHERE trace_id = $id) a,
        (SELECT min(start) t, max(\"end\") u FROM tasks WHERE trace_id = $id) b")
    shift=$(echo "$hi - $lo" | bc -l)
    echo "imported: $states0 states, $tasks0 tasks; x$copies -> $((states0 * copies)) states, $((tasks0 * copies)) tasks"
    echo "placement: $(shard_tables "$url" | awk '{print $2}' | xargs)"
    s=$(date +%s.%N)
    while read -r surl rel; do
        amplify "$surl" "$rel" &
    done < <(shard_tables "$url")
    wait
    # what described the imported rows
    sql "$url" -c "DELETE FROM gantt_summaries WHERE trace_id = $id" \
        -c "DELETE FROM gantt_summary_rows WHERE trace_id = $id" \
        -c "DELETE FROM gantt_summary_levels WHERE trace_id = $id" \
        -c "DELETE FROM gantt_rows WHERE trace_id = $id" \
        -c "DELETE FROM analysis_cache WHERE trace_id = $id"
    n=$(sql "$url" -c "SELECT count(*) FROM states WHERE trace_id = $id")
    [ "$n" = "$((states0 * copies))" ] || { echo "$db: $n states, not $((states0 * copies))" >&2; exit 1; }
    printf 'amplified in %.1f s; disk: coordinator %s, shard clusters %s %s\n' "$(elapsed "$s")" \
        "$(du -sh "$tmp/coord" | cut -f1)" "$(du -sh "$tmp/shard1" | cut -f1)" "$(du -sh "$tmp/shard2" | cut -f1)"
    bytes=0
    while read -r surl rel; do
        bytes=$((bytes + $(sql "$surl" -c "SELECT pg_total_relation_size('\"$rel\"')")))
    done < <(shard_tables "$url")
    echo "shard tables: $((bytes / 1048576)) MB, $((bytes / (states0 * copies))) bytes per state (tasks included)"

    serve "$url" "$db-warm"
    base="http://127.0.0.1:$port/api/v1/traces/$id"
    warm=$(time_ms "$base/gantt?width=1920")
    # the outlier thresholds of the whole trace, which the tasks mode of a zoomed view reads
    warm_outliers=$(time_ms "$base/outliers")
    echo "warm-up (what an import prepares, and the overlap check): gantt $warm ms, outliers $warm_outliers ms," \
        "daemon peak $(rss) MB"
    stop
    sql "$coordc/ariadne" -c "ALTER SYSTEM SET log_min_duration_statement = 200" -c "SELECT pg_reload_conf()" >/dev/null
    logstart=$(wc -c <"$tmp/coord/log")
    serve "$url" "$db"
    base="http://127.0.0.1:$port/api/v1/traces/$id"
    read -r t0 t1 < <(curl -s "$base/gantt?width=16" | jq -r '"\(.extent.start) \(.extent.end)"')
    span=$(echo "$t1 - $t0" | bc -l)
    labels=()
    for states in false true; do
        [ "$states" = true ] && rss_plain[$db]=$(rss)
        for zoom in 1 10 100; do
            [ "$states" = true ] && [[ " $state_zooms " != *" $zoom "* ]] && continue
            end=$(echo "$t0 + $span / $zoom" | bc -l)
            q="gantt?width=1920&start=$t0&end=$end&states=$states"
            label="gantt 1/$zoom"; [ "$states" = true ] && label="$label +states"
            labels+=("$label")
            first[$db,$label]=$(time_ms "$base/$q")
            median[$db,$label]=$(median_ms "$base/$q")
            # the answer, numbers to 9 decimals (the shards sum a pixel's tasks in another order)
            curl -s "$base/$q" | jq -S 'walk(if type == "number" then (. * 1e9 | round) / 1e9 else . end)' \
                >"$tmp/answer-$db-${zoom}-$states.json"
        done
    done
    rss_all[$db]=$(rss)
    stop
    sql "$coordc/ariadne" -c "ALTER SYSTEM RESET log_min_duration_statement" -c "SELECT pg_reload_conf()" >/dev/null
    echo "coordinator statements over 200 ms during the measured requests (count, total ms, statement):"
    slow_statements "$logstart"
    teardown "$db"
done
echo
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${SETUPS:-one two}" != "one two" ]; then # one set-up: its own times and memory
    for db in ${SETUPS}; do
        for label in "${labels[@]}"; do printf '%-22s first %8s median %8s\n' "$label" "${first[$db,$label]}" "${median[$db,$label]}"; done
        echo "daemon peak resident MB, without states / after all: $db ${rss_plain[$db]:-} / ${rss_all[$db]}"
    done
    exit 0
fi
printf '%-22s %10s %10s %10s %10s %8s\n' "GET (1920 px)" one_first one_median two_first two_median ratio
for label in "${labels[@]}"; do
    ratio=$(echo "${median[two,$label]} / ${median[one,$label]}" | bc -l)
    printf '%-22s %10s %10s %10s %10s %8.2f\n' "$label" "${first[one,$label]}" "${median[one,$label]}" \
        "${first[two,$label]}" "${median[two,$label]}" "$ratio"
done
echo "target: two shards / one server <= 0.6"
same=0 differ=()
for f in "$tmp"/answer-one-*.json; do
    if cmp -s "$f" "${f/answer-one-/answer-two-}"; then same=$((same + 1)); else differ+=("$(basename "$f")"); fi
done
echo "answers equal on both set-ups (numbers to 1e-9): $same of $((same + ${#differ[@]})) ${differ[*]:+(differ: ${differ[*]})}"
echo "daemon peak resident MB, without states / after all: one server ${rss_plain[one]} / ${rss_all[one]}," \
    "two shards ${rss_plain[two]} / ${rss_all[two]} (target < 200 at 1e8 states)"
