#!/bin/sh
# bench_datamove.sh: loads a generated Chrome trace (default 2,000,000
# events, about 500 MB of JSON) with `ariadned import` and prints the load
# time, the throughput (target >= 50 MB/s) and the peak memory (target:
# under the file's size), then times window queries of the movement
# timeline, matrix and topology at several zooms through a live daemon
# (target: under 100 ms each).
#   tests/bench/bench_datamove.sh BUILD_DIR [EVENTS]
set -eu
build=${1:?usage: bench_datamove.sh BUILD_DIR [EVENTS]}
events=${2:-2000000}
work=$(mktemp -d /tmp/ariadne-bench-dm-XXXXXX)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
pid=
"$build/gen_chrome_trace" "$events" "$work/bench.json"
bytes=$(stat -c %s "$work/bench.json")
echo "trace: $events events, $bytes bytes"
/usr/bin/time -f "%e %M" -o "$work/time" "$build/ariadned" import --quiet --db "$work/b.db" "$work/bench.json" >/dev/null
read -r secs kib < "$work/time"
awk -v s="$secs" -v b="$bytes" -v k="$kib" 'BEGIN {
  printf "load: %.2f s, %.1f MB/s (target >= 50), peak RSS %.0f MB = %.0f%% of the file (target < 100%%)\n",
         s, b / 1e6 / s, k / 1024, 100 * k * 1024 / b }'
port=$((20000 + $$ % 20000))
"$build/ariadned" serve --db "$work/b.db" --listen "127.0.0.1:$port" --log-level warn &
pid=$!
sleep 1
span=$(curl -s "http://127.0.0.1:$port/api/v1/traces/1" | sed 's/.*"start":\([0-9.e+]*\),"end":\([0-9.e+]*\).*/\1 \2/')
set -- $span
t0=$1 t1=$2
# windows are in µs from the run's start (summary.start), as the API takes them
for frac in 1 0.1 0.01 0.001 0.0001 0.00001; do
  w1=$(awk -v a="$t0" -v b="$t1" -v f="$frac" 'BEGIN { printf "%.0f", (b - a) * f }')
  for ep in movement-timeline movement-matrix topology; do
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/api/v1/traces/1/$ep?start=0&end=$w1")
    code=${out% *} secs=${out#* }
    [ "$code" = 200 ] || { echo "$ep?start=0&end=$w1 answered $code" >&2; kill "$pid"; exit 1; }
    ms=$(awk -v s="$secs" 'BEGIN { printf "%.1f", s * 1000 }')
    echo "window $frac of the run: $ep ${ms} ms (target < 100)"
  done
done
