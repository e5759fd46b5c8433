#!/usr/bin/env bash
# bench_otf2.sh: ariadne's whole import of an OTF2 event trace against
# Debian's otf2-print reading the same archive, in the same run; the
# import's peak memory at two sizes; and the timeline at 1920 px at four
# zoom levels on a daemon over the imported database (issue 19).
#
#   tests/bench/bench_otf2.sh [BUILD_DIR]          (default: build)
#   RANKS=64 EVENTS=10000000 tests/bench/bench_otf2.sh build-rel
#
# The archives come from tests/tools/gen_otf2 (a ring of RANKS MPI ranks,
# about EVENTS events; see the schedule atop gen_otf2.c). Targets: the
# import takes no longer than `otf2-print > /dev/null`; its peak resident
# set is flat in the trace size (the full size against a quarter of it);
# every timeline request under 200 ms. The timeline is GET /timeline when
# the daemon has it, otherwise GET /states (same rows, no messages): the
# script says which it timed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
ranks=${RANKS:-64}
events=${EVENTS:-10000000}
runs=${RUNS:-5}
command -v otf2-print >/dev/null || { echo "otf2-print missing: apt-get install otf2-tools" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq missing: apt-get install jq" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 1; }
[ -x "$build/gen_otf2" ] && [ -x "$build/ariadned" ] || { echo "build $build first (gen_otf2, ariadned)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ariadne-bench-otf2-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

measure() { # measure OUTFILE CMD... -> "seconds peak_kB"
    local out=$1; shift
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null
    cat "$out"
}

# ---- 1. import vs otf2-print, peak memory at a quarter and the full size ----
quarter=$((events / 4))
printf '%-10s %-8s %9s %12s %14s %7s %12s %14s\n' events ranks MB ariadne_s otf2-print_s ratio ariadne_MB otf2-print_MB
for n in "$quarter" "$events"; do
    dir=$tmp/ring-$n
    "$build/gen_otf2" --ranks "$ranks" --events "$n" --late-sender 0 --out "$dir" --expect > "$dir.json"
    written=$(jq .events "$dir.json")
    mb=$(( $(du -sb "$dir" | cut -f1) / 1048576 ))
    read -r p_s p_kb < <(measure "$tmp/p.time" otf2-print "$dir/traces.otf2")
    rm -f "$tmp/b.db"*
    read -r a_s a_kb < <(measure "$tmp/a.time" "$build/ariadned" import --db "$tmp/b.db" --quiet "$dir")
    ratio=$(awk -v a="$a_s" -v p="$p_s" 'BEGIN { printf "%.2f", a / p }')
    printf '%-10s %-8s %9s %12s %14s %7s %12d %14d\n' "$written" "$ranks" "$mb" "$a_s" "$p_s" "$ratio" \
        $((a_kb / 1024)) $((p_kb / 1024))
    [ "$n" = "$events" ] || rm -rf "$dir"
done
echo "ratio = ariadne import / otf2-print (target <= 1); memory is the peak resident set (target: flat)."
db_mb=$(( $(stat -c %s "$tmp/b.db") / 1048576 ))
echo "database: $db_mb MB; $(sqlite3 "$tmp/b.db" 'SELECT coalesce(sum(n), 0) FROM state_chunks') calls (state chunks)," \
     "$(sqlite3 "$tmp/b.db" 'SELECT coalesce(sum(n), 0) FROM message_chunks' 2>/dev/null || sqlite3 "$tmp/b.db" 'SELECT count(*) FROM ev_messages') messages stored"

# ---- 2. the timeline at 1920 px, four zooms ----------------------------------
port=$((20000 + $$ % 20000))
"$build/ariadned" serve --db "$tmp/b.db" --listen "127.0.0.1:$port" --log-level warn &
pid=$!
base=http://127.0.0.1:$port/api/v1/traces/1
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/v1/health" >/dev/null && break; sleep 0.1; done
ep=timeline
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/timeline?width=1920&limit=1")" = 200 ] || ep=states
echo "endpoint: /$ep (width=1920, all $ranks rows in one page)"
q="width=1920&limit=1000"
# The first request of a trace also loads its messages into the daemon's
# cache (server/message_cache.c): timed apart, the others find them there.
cold=$(curl -sf -o "$tmp/whole.json" -w '%{time_total}' "$base/$ep?$q")
whole=$(cat "$tmp/whole.json")
awk -v t="$cold" 'BEGIN { printf "first request of the trace (whole, cache cold): %.1f ms\n", t * 1000 }'
t0=$(jq .extent.start <<<"$whole") t1=$(jq .extent.end <<<"$whole")
window() { # window FRACTION -> "start end", centred
    awk -v a="$t0" -v b="$t1" -v f="$1" 'BEGIN { m = (a + b) / 2; h = (b - a) * f / 2;
        printf "%.0f %.0f\n", m - h, m + h }'
}
read -r s10 e10 < <(window 0.1)
read -r s1 e1 < <(window 0.01)
# a single event: the first function interval of the busiest row in the 1 % window
one=$(curl -sf "$base/$ep?$q&start=$s1&end=$e1" |
      jq -r '[.rows[] | select(.mode == "states") | .states[] | select(.[1] > 0 and .[3] > .[2])] | .[0] | "\(.[2]) \(.[3])"')
read -r se ee <<<"$one"
timeit() { # timeit LABEL QUERY: the first request, then the median and max of $runs more
    local label=$1 query=$2 code first size out times=()
    read -r code first size < <(curl -s -o "$tmp/ans.json" -w '%{http_code} %{time_total} %{size_download}\n' \
        "$base/$ep?$query")
    [ "$code" = 200 ] || { echo "$ep?$query answered $code" >&2; exit 1; }
    for _ in $(seq "$runs"); do
        out=$(curl -s -o /dev/null -w '%{time_total}' "$base/$ep?$query")
        times+=("$out")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk -v l="$label" -v f="$first" -v kb="$((size / 1024))" \
        -v rows="$(jq '.rows | length' "$tmp/ans.json")" -v msgs="$(jq '.messages | length? // 0' "$tmp/ans.json")" '
        { t[NR] = $1 } END { printf "%-26s first %7.1f ms  median %7.1f ms  max %7.1f ms  (%d rows, %d messages, %d kB; target < 200)\n",
          l, f * 1000, t[int((NR + 1) / 2)] * 1000, t[NR] * 1000, rows, msgs, kb }'
}
timeit "whole trace" "$q"
timeit "10 % (centred)" "$q&start=$s10&end=$e10"
timeit "1 % (centred)" "$q&start=$s1&end=$e1"
timeit "one event ($((${ee%.*} - ${se%.*})) ns)" "$q&start=$se&end=$ee"
# The rows alone (GET /states: what /timeline adds the messages to), one request per zoom.
if [ "$ep" = timeline ]; then
    for w in "" "&start=$s10&end=$e10" "&start=$s1&end=$e1" "&start=$se&end=$ee"; do
        curl -s -o /dev/null -w "/states$w: %{time_total} s, %{size_download} bytes\n" "$base/states?$q$w"
    done
fi
