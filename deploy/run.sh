#!/usr/bin/env bash
# deploy/run.sh: on a fresh Debian 12, installs what is missing, builds,
# creates the database, loads the bundled example traces and serves the
# dashboard on http://127.0.0.1:8080 (in the foreground; Ctrl-C stops it).
#
# Environment: ARIADNE_DB (default ./ariadne.db in the source tree),
# ARIADNE_LISTEN (default 127.0.0.1:8080). Extra arguments go to
# `ariadned serve` (e.g. --threads 8).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUN_PACKAGES+=(libpq-dev)   # the build links libpq (the PostgreSQL store); run.sh itself stays on SQLite

DB=${ARIADNE_DB:-$ROOT/ariadne.db}
LISTEN=${ARIADNE_LISTEN:-127.0.0.1:8080}

apt_install "${RUN_PACKAGES[@]}"
install_node
vendor_frontend
build "$ROOT/build"
load_examples "$DB"
log "serving the dashboard on http://$LISTEN/ (Ctrl-C to stop)"
exec "$ROOT/build/ariadned" serve --db "$DB" --listen "$LISTEN" --static "$ROOT/static" "$@"
