#!/usr/bin/env bash
# tests/lib/pg_cluster.sh: a throwaway PostgreSQL 15 cluster for the tests.
#
#   bash tests/lib/pg_cluster.sh start DIR   # a fresh cluster in DIR; prints its URL
#   bash tests/lib/pg_cluster.sh url DIR     # prints the URL of the cluster in DIR
#   bash tests/lib/pg_cluster.sh stop DIR    # stops it and removes DIR (idempotent)
#   bash tests/lib/pg_cluster.sh pause DIR   # stops its server, keeping DIR (a server that is down)
#   bash tests/lib/pg_cluster.sh resume DIR  # starts the paused server again, on its port
#
# start creates DIR (a leftover cluster there is stopped and removed first),
# hands it to an unprivileged user when run as root (initdb refuses root;
# $PG_CLUSTER_USER, default postgres, else nobody), and runs initdb with
# fsync off, the unix socket in DIR, TCP on 127.0.0.1 only at a free port and
# trust authentication for local and loopback connections. The superuser role
# is `ariadne`, and a database `ariadne` exists. The URL,
# postgresql://ariadne@127.0.0.1:PORT/ariadne, is printed and written to
# DIR/url (CTest's environments are fixed at configure time: the API tests
# read that file, see tests/lib/daemon.mjs). The server's log is DIR/log.
#
# With PG_CLUSTER_OWNER=ODIR (a cluster made by this script, e.g. CTest's
# fixture), start records DIR in ODIR/children and stopping ODIR stops DIR
# too: a test that starts clusters of its own (api_pg.pg_shards) and is
# killed by CTest's timeout before its cleanup leaves none running after
# the fixture's pg.stop.
set -euo pipefail

ROLE=ariadne
MARK=.ariadne-pg-cluster   # marks a directory this script owns (and may remove)
CLEANUP_DIR=               # what a failed start removes on exit

die() { printf 'pg_cluster.sh: %s\n' "$*" >&2; exit 1; }

usage() { die "usage: pg_cluster.sh start|stop|url|pause|resume DIR"; }

# The PostgreSQL 15 server programs: $PG_BIN, Debian's directory, or PATH.
find_bin() {
    local d
    for d in "${PG_BIN:-}" /usr/lib/postgresql/15/bin; do
        if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
            printf '%s\n' "$d"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    die "PostgreSQL 15 is not installed (no initdb/pg_ctl in /usr/lib/postgresql/15/bin or PATH): apt-get install postgresql-15"
}

# The user the server runs as: ourselves unless we are root.
cluster_user() {
    if [ "$(id -u)" -ne 0 ]; then
        id -un
    elif [ -n "${PG_CLUSTER_USER:-}" ]; then
        id -u "$PG_CLUSTER_USER" >/dev/null 2>&1 || die "PG_CLUSTER_USER=$PG_CLUSTER_USER: no such user"
        printf '%s\n' "$PG_CLUSTER_USER"
    elif id -u postgres >/dev/null 2>&1; then
        printf 'postgres\n'
    else
        printf 'nobody\n'
    fi
}

# as_user USER CMD...: runs CMD as USER (directly when that is us).
as_user() {
    local user=$1
    shift
    if [ "$(id -un)" = "$user" ]; then
        "$@"
    else
        runuser -u "$user" -- "$@"
    fi
}

# A TCP port on 127.0.0.1 that nothing listens on now (the server may still
# lose a race for it: start retries with another one).
free_port() {
    local port i
    for i in $(seq 1 50); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            printf '%s\n' "$port"
            return 0
        fi
    done
    die "no free TCP port found on 127.0.0.1"
}

# Refuses to touch a directory this script did not make.
check_ours() {
    local dir=$1
    if [ -d "$dir" ] && [ ! -e "$dir/$MARK" ] && [ -n "$(ls -A "$dir")" ]; then
        die "$dir exists, is not empty and is not a cluster made by pg_cluster.sh: not touching it"
    fi
}

# teardown DIR: stops the cluster in DIR if one runs, and removes DIR.
teardown() {
    local dir=$1 bin user pid sock
    [ -d "$dir" ] || return 0
    check_ours "$dir"
    stop_children "$dir"
    if [ -f "$dir/data/postmaster.pid" ]; then
        bin=$(find_bin)
        user=$(stat -c %U "$dir/data")
        if ! as_user "$user" "$bin/pg_ctl" stop -D "$dir/data" -m fast -w -t 30 >/dev/null 2>&1; then
            # The postmaster of this cluster (its pid file's first line) did not stop: kill it.
            pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true)
            if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
                printf 'pg_cluster.sh: the server in %s did not stop in 30 s; killing pid %s\n' "$dir" "$pid" >&2
                kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
    fi
    # A socket directory outside DIR (a long DIR, see cmd_start).
    if [ -f "$dir/socket_dir" ]; then
        sock=$(cat "$dir/socket_dir")
        case $sock in /tmp/pgc-sock.*) rm -rf "$sock" ;; esac
    fi
    rm -rf "$dir"
}

# stop_children DIR: tears down the clusters started with DIR as their
# PG_CLUSTER_OWNER (those still there).
stop_children() {
    local child
    [ -f "$1/children" ] || return 0
    while IFS= read -r child; do
        [ -n "$child" ] && [ -e "$child/$MARK" ] && (teardown "$child") || true
    done <"$1/children"
}

# record_child DIR: DIR in $PG_CLUSTER_OWNER/children, when set.
record_child() {
    local owner=${PG_CLUSTER_OWNER:-}
    [ -n "$owner" ] || return 0
    [ -e "$owner/$MARK" ] || die "PG_CLUSTER_OWNER=$owner is not a cluster made by pg_cluster.sh"
    printf '%s\n' "$1" >>"$owner/children"
}

cmd_stop() {
    local dir=$1
    if [ ! -d "$dir" ]; then
        printf 'pg_cluster.sh: no cluster in %s (nothing to stop)\n' "$dir" >&2
        return 0
    fi
    teardown "$dir"
}

# start_server DIR BIN USER: starts the initialised cluster on a free port;
# prints the port. Retries with another port when the chosen one is taken.
start_server() {
    local dir=$1 bin=$2 user=$3 port attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        if as_user "$user" "$bin/pg_ctl" start -D "$dir/data" -l "$dir/log" -w -t 30 \
            -o "-p $port" >/dev/null 2>&1; then
            printf '%s\n' "$port"
            return 0
        fi
        grep -q 'could not bind\|already in use' "$dir/log" 2>/dev/null || break
    done
    tail -n 20 "$dir/log" >&2 2>/dev/null || true
    die "the server did not start in $dir (log above, in $dir/log)"
}

cmd_start() {
    local dir=$1 bin user port url i sock
    bin=$(find_bin)
    user=$(cluster_user)
    teardown "$dir"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    touch "$dir/$MARK"
    chown "$user" "$dir"
    chmod 755 "$dir"
    CLEANUP_DIR=$dir
    trap 'teardown "$CLEANUP_DIR" || true' EXIT
    record_child "$dir"
    as_user "$user" test -w "$dir" ||
        die "$user cannot write to $dir (a parent directory is closed to it): choose another DIR"
    # The socket path must fit in sun_path (107 bytes): a long DIR gets its
    # socket in a short temporary directory instead (removed by stop).
    sock=$dir
    if [ ${#dir} -gt 85 ]; then
        sock=$(mktemp -d /tmp/pgc-sock.XXXXXX)
        chown "$user" "$sock"
        printf '%s\n' "$sock" >"$dir/socket_dir"
    fi

    as_user "$user" "$bin/initdb" -D "$dir/data" -U "$ROLE" --auth=trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed in $dir"; }
    as_user "$user" tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

# pg_cluster.sh: a throwaway cluster for the tests
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
shared_buffers = 64MB
log_min_messages = warning
EOF
    as_user "$user" tee "$dir/data/pg_hba.conf" >/dev/null <<EOF
# pg_cluster.sh: trust for local and loopback connections only
local all all               trust
host  all all 127.0.0.1/32  trust
EOF
    port=$(start_server "$dir" "$bin" "$user")
    for i in $(seq 1 100); do
        if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U "$ROLE" -d postgres; then
            break
        fi
        [ "$i" -lt 100 ] || die "the server in $dir does not accept connections after 10 s (see $dir/log)"
        sleep 0.1
    done
    as_user "$user" "$bin/createdb" -h "$sock" -p "$port" -U "$ROLE" "$ROLE" ||
        die "cannot create the database $ROLE (see $dir/log)"
    url="postgresql://$ROLE@127.0.0.1:$port/$ROLE"
    printf '%s\n' "$port" >"$dir/port"
    printf '%s\n' "$url" >"$dir/url"
    chmod 644 "$dir/url" "$dir/port"
    trap - EXIT
    printf '%s\n' "$url"
}

cmd_pause() {
    local dir=$1
    check_ours "$dir"
    as_user "$(stat -c %U "$dir/data")" "$(find_bin)/pg_ctl" stop -D "$dir/data" -m fast -w -t 30 >/dev/null ||
        die "the server in $dir did not stop"
}

cmd_resume() {
    local dir=$1 port
    check_ours "$dir"
    port=$(cat "$dir/port")
    as_user "$(stat -c %U "$dir/data")" "$(find_bin)/pg_ctl" start -D "$dir/data" -l "$dir/log" -w -t 30 \
        -o "-p $port" >/dev/null || die "the server in $dir did not start again on port $port (see $dir/log)"
}

cmd_url() {
    local dir=$1
    [ -f "$dir/url" ] || die "no cluster in $dir (run: pg_cluster.sh start $dir)"
    cat "$dir/url"
}

[ $# -eq 2 ] || usage
case $1 in
    start) cmd_start "$2" ;;
    stop) cmd_stop "$2" ;;
    url) cmd_url "$2" ;;
    pause) cmd_pause "$2" ;;
    resume) cmd_resume "$2" ;;
    *) usage ;;
esac
