# lib_shards.sh: sourced by bench_shards.sh and bench_shards_events.sh:
# throwaway PostgreSQL clusters under $tmp (tests/lib/pg_cluster.sh),
# those listed in `clusters` stopped with the scratch directory at exit; one ariadned at a time; curl
# timings of its GETs. Expects $root (the source tree), $tmp (a scratch
# directory, mode 755: the clusters run as an unprivileged user),
# $ariadned (the binary) and, for median_ms, $runs.
clusters=()
pid=
port=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    for c in "${clusters[@]}"; do bash "$root/tests/lib/pg_cluster.sh" stop "$c" >/dev/null 2>&1 || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
# cluster NAME -> the base URL (without database) of a new cluster $tmp/NAME
# (run in a command substitution: list $tmp/NAME in clusters beforehand)
cluster() {
    bash "$root/tests/lib/pg_cluster.sh" start "$tmp/$1" >/dev/null
    local url
    url=$(bash "$root/tests/lib/pg_cluster.sh" url "$tmp/$1")
    # room for bulk writes without a checkpoint every second; work_mem as
    # docs/postgresql.md advises (at 4 MB a zoomed Gantt's aggregation on a
    # shard is planned as a sort that spills to disk)
    psql -X -q -d "$url" -c "ALTER SYSTEM SET max_wal_size = '4GB'" -c "ALTER SYSTEM SET work_mem = '64MB'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    echo "${url%/*}"
}
sql() { psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
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
