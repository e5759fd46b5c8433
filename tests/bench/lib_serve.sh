# lib_serve.sh: sourced by bench_shards.sh and bench_shards_events.sh: one
# ariadned at a time, and curl timings of its GETs. Expects $ariadned (the
# binary), $tmp (a scratch directory) and $runs (the median's runs).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=
pid=
serve() { # serve DB LABEL: an ariadned on DB (pid, port)
    port=$(free_port)
    "$ariadned" serve --db "$1" --listen "127.0.0.1:$port" --log-level warn --spool "$tmp/spool-$2" \
        >>"$tmp/serve-$2.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/v1/health" >/dev/null && break; sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
time_ms() { curl -s -o /dev/null -w '%{http_code} %{time_total}' "$1" |
    awk '$1 != 200 {print "HTTP " $1 > "/dev/stderr"; exit 1} {printf "%.0f", $2 * 1000}'; }
median_ms() {
    local xs=()
    for _ in $(seq "$runs"); do xs+=("$(time_ms "$1")"); done
    printf '%s\n' "${xs[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}
