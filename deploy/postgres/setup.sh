#!/usr/bin/env bash
# deploy/postgres/setup.sh: prepares one PostgreSQL database for ariadne:
# creates the login role and the database (UTF8; the schema names COLLATE
# "C" wherever order matters, so the database's locale changes no answer),
# writes the replicas' EnvironmentFile (the URL and the password, readable
# by root and the ariadne group only) and runs `ariadned migrate` once, so
# that the replicas start on a ready schema. Safe to run again: what exists
# is kept (a new password is set only when ARIADNE_DB_PASSWORD is given).
#
# Run as root on the database server (or anywhere, with ARIADNE_PG_ADMIN):
#   sudo deploy/postgres/setup.sh
# Environment (defaults in brackets):
#   ARIADNE_PG_ADMIN     how to reach the cluster as a superuser: a
#                        postgresql:// URL [empty: `runuser -u postgres -- psql`,
#                        the local socket]
#   ARIADNE_DB_HOST      the host the replicas connect to [127.0.0.1]
#   ARIADNE_DB_PORT      [5432]
#   ARIADNE_DB_NAME      [ariadne]
#   ARIADNE_DB_USER      the role the replicas log in as [ariadne]
#   ARIADNE_DB_PASSWORD  its password [a random one the first time]
#   ARIADNE_DB_LOCALE    the database's locale [C: byte order, and ASCII-only
#                        case folding as in SQLite]
#   ARIADNE_ENV_FILE     [/etc/ariadne/postgres.env]
#   ARIADNED             [/usr/local/bin/ariadned]
set -euo pipefail

HOST=${ARIADNE_DB_HOST:-127.0.0.1}
PORT=${ARIADNE_DB_PORT:-5432}
NAME=${ARIADNE_DB_NAME:-ariadne}
ROLE=${ARIADNE_DB_USER:-ariadne}
LOCALE=${ARIADNE_DB_LOCALE:-C}
ENV_FILE=${ARIADNE_ENV_FILE:-/etc/ariadne/postgres.env}
ARIADNED=${ARIADNED:-/usr/local/bin/ariadned}

log() { printf 'setup.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

for ident in "$NAME" "$ROLE"; do
    [[ $ident =~ ^[a-z_][a-z0-9_]*$ ]] || die "'$ident' is not a plain lower-case PostgreSQL name"
done
[[ $LOCALE =~ ^[A-Za-z0-9_.@-]+$ ]] || die "'$LOCALE' is not a locale name"
[[ -x $ARIADNED ]] || die "no ariadned at $ARIADNED (set ARIADNED)"

# psql as the superuser; the SQL comes on stdin, variables with -v.
admin_psql() {
    if [[ -n ${ARIADNE_PG_ADMIN:-} ]]; then
        psql -X -q -v ON_ERROR_STOP=1 -d "$ARIADNE_PG_ADMIN" "$@"
    else
        (cd / && runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 "$@")
    fi
}

TMP_SQL=$(mktemp)
trap 'rm -f "$TMP_SQL"' EXIT

NEW_PASSWORD=0
PASSWORD=${ARIADNE_DB_PASSWORD:-}
if [[ -z $PASSWORD && -r $ENV_FILE ]]; then
    PASSWORD=$(sed -n 's/^PGPASSWORD=//p' "$ENV_FILE" | tail -n 1)
fi
if [[ -z $PASSWORD ]]; then
    PASSWORD=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
    NEW_PASSWORD=1
fi
[[ -n ${ARIADNE_DB_PASSWORD:-} ]] && NEW_PASSWORD=1

# The role (its password set when new or given), then the database.
cat >"$TMP_SQL" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'role', :'password')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I PASSWORD %L', :'role', :'password') WHERE :'new_password' = '1' \gexec
SELECT format('CREATE DATABASE %I OWNER %I ENCODING %L LOCALE %L TEMPLATE template0',
              :'name', :'role', 'UTF8', :'locale')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'name') \gexec
SQL
admin_psql -v role="$ROLE" -v password="$PASSWORD" -v new_password="$NEW_PASSWORD" -v name="$NAME" \
    -v locale="$LOCALE" <"$TMP_SQL"
ENCODING=$(admin_psql -At -v name="$NAME" <<<"SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = :'name'")
[[ $ENCODING == UTF8 ]] || die "database $NAME exists with encoding $ENCODING: ariadne needs UTF8"
log "role $ROLE and database $NAME (UTF8) ready"

URL="postgresql://$ROLE@$HOST:$PORT/$NAME"
mkdir -p "$(dirname "$ENV_FILE")"
umask 027
{
    echo "# written by deploy/postgres/setup.sh: the database of the ariadned@ replicas"
    echo "ARIADNE_DB=$URL"
    echo "PGPASSWORD=$PASSWORD"
} >"$ENV_FILE.new"
getent group ariadne >/dev/null && chgrp ariadne "$ENV_FILE.new"
mv "$ENV_FILE.new" "$ENV_FILE"
log "wrote $ENV_FILE"

PGPASSWORD=$PASSWORD "$ARIADNED" migrate --db "$URL"
log "schema migrated: start the replicas (systemctl enable --now ariadned@8081 ariadned@8082 ...)"
