#!/usr/bin/env bash
# pg_schema_check.sh: checks that the PostgreSQL migrations (sql/pg/*.sql)
# build the same schema as the SQLite ones (sql/*.sql).
#
#   tests/tools/pg_schema_check.sh BUILD_DIR
#
# Starts a throwaway PostgreSQL 15 cluster (a temporary directory, a free
# loopback port, trust auth; as `nobody` when run as root, since initdb
# refuses root) and applies sql/pg/*.sql in order with psql -v
# ON_ERROR_STOP=1. Makes an SQLite database with `BUILD_DIR/ariadned
# migrate --db FILE`; while that command does not exist, with any ariadned
# command that opens (so migrates) the store; without an ariadned, with
# sqlite3 on sql/*.sql in order (plus store.c's widening of traces.kind).
# Compares per table (PostgreSQL partitions aside) the ordered column names
# with their mapped types, nullability and collation (text: "C"; columns
# PostgreSQL adds on purpose are listed in pg_only_columns), the index
# names, the primary and unique keys (a key PostgreSQL keeps as a plain
# index on purpose is listed in pg_plain_keys), the foreign keys (with ON
# DELETE) and the CHECK constraints; checks that every partitioned table has its
# DEFAULT partition <table>_default; and runs the migrations on rows on both
# sides (rows before 012 and 017, the two that move data) and compares the
# rows they leave. Prints the differences; exits 1 on any, 2 on a failure to
# run. PG_BIN names PostgreSQL's bin directory (default
# /usr/lib/postgresql/15/bin, then PATH).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
build_dir=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
pgbin=${PG_BIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$pgbin/initdb" ] && command -v initdb >/dev/null; then
    pgbin=$(dirname "$(command -v initdb)")
fi
[ -x "$pgbin/initdb" ] || { echo "no PostgreSQL initdb in $pgbin or PATH (set PG_BIN)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pg_schema_check.XXXXXX")
run_pg=()
if [ "$(id -u)" -eq 0 ]; then
    chown nobody "$work"
    run_pg=(runuser -u nobody --)
fi

# shellcheck disable=SC2317  # called by the trap
cleanup() {
    if [ -f "$work/data/postmaster.pid" ]; then
        "${run_pg[@]}" "$pgbin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- PostgreSQL ---------------------------------------------------------
port=$(free_port)
"${run_pg[@]}" "$pgbin/initdb" -D "$work/data" -U postgres --auth=trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1 ||
    { cat "$work/initdb.log" >&2; exit 2; }
"${run_pg[@]}" "$pgbin/pg_ctl" -D "$work/data" -l "$work/data/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$work/data -c fsync=off" \
    start >/dev/null || { cat "$work/data/server.log" >&2; exit 2; }

pg() {
    "$pgbin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
}

for f in "$root"/sql/pg/[0-9][0-9][0-9]_*.sql; do
    if ! pg -f "$f" >"$work/psql.log" 2>&1; then
        echo "FAIL: $(basename "$f") does not apply on PostgreSQL:" >&2
        cat "$work/psql.log" >&2
        exit 1
    fi
done

# --- SQLite -------------------------------------------------------------
# What store.c does in C after migration 016 (widen_trace_kinds): the
# traces.kind CHECK of database $1 accepts 'events'.
widen_kinds() {
    local cookie
    cookie=$(sqlite3 "$1" "PRAGMA schema_version")
    sqlite3 -bail "$1" "PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET sql = replace(sql, '''datamove'')', '''datamove'', ''events'')')
        WHERE type = 'table' AND name = 'traces' AND sql NOT LIKE '%''events''%';
        PRAGMA schema_version = $((cookie + 1)); PRAGMA writable_schema = OFF;"
}

db=$work/ariadne.db
if [ -x "$build_dir/ariadned" ] && "$build_dir/ariadned" migrate --help >/dev/null 2>&1; then
    echo "SQLite schema: $build_dir/ariadned migrate"
    "$build_dir/ariadned" migrate --db "$db" >/dev/null
elif [ -x "$build_dir/ariadned" ]; then
    # No migrate command yet: opening the store runs the same migrations
    # (with store.c's widening of traces.kind at 016).
    echo "SQLite schema: $build_dir/ariadned token list (opens and migrates the store)"
    "$build_dir/ariadned" token list --db "$db" >/dev/null || { echo "FAIL: ariadned cannot make $db" >&2; exit 2; }
else
    echo "SQLite schema: sqlite3 on sql/*.sql (no ariadned in $build_dir)"
    for f in "$root"/sql/[0-9][0-9][0-9]_*.sql; do
        sqlite3 -bail "$db" <"$f" || { echo "FAIL: $(basename "$f") does not apply on SQLite" >&2; exit 2; }
    done
    widen_kinds "$db"
fi
lite() {
    sqlite3 -bail -separator '|' "$db" "$1"
}

# CHECK constraints as "check|table|expression", normalized alike on both
# sides: PostgreSQL's `x = ANY (ARRAY['a'::text, ...])` is SQLite's
# `x IN ('a', ...)`; case, spaces and parentheses dropped.
checks_py='
import re, sqlite3, sys
def norm(e):
    e = re.sub(r"::\w+(\[\])?", "", e)
    e = re.sub(r"=\s*ANY\s*\(\s*ARRAY\[(.*?)\]\s*\)", r" IN (\1)", e)
    return re.sub(r"[\s()]", "", e).lower()
def sqlite_checks(path):
    db = sqlite3.connect(path)
    for t, sql in db.execute("SELECT name, sql FROM sqlite_schema WHERE type = \"table\" AND name NOT LIKE \"sqlite_%\""):
        for m in re.finditer(r"\bCHECK\s*\(", sql, re.I):
            depth, j = 1, m.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(sql[j], 0)
                j += 1
            print("check|%s|%s" % (t, norm(sql[m.end():j - 1])))
if sys.argv[1] == "sqlite":
    sqlite_checks(sys.argv[2])
else:
    for line in sys.stdin:
        t, d = line.rstrip("\n").split("|", 1)
        print("check|%s|%s" % (t, norm(re.sub(r"^CHECK\s*", "", d))))
'

# Each side writes lines "kind|table|..." sorted the same way; diff compares.
lite_tables="SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
{
    # Columns with their type as the PostgreSQL migrations map it, and
    # nullability (a primary key column is never NULL). Text compares as
    # SQLite's BINARY only under the "C" collation: PostgreSQL's columns
    # must say COLLATE "C" (any other collation shows as a difference).
    lite "SELECT 'column|' || m.name || '|' || printf('%03d', p.cid + 1) || '|' || p.name || '|' ||
                 CASE upper(p.type) WHEN 'INTEGER' THEN 'bigint' WHEN 'REAL' THEN 'double precision'
                                    WHEN 'TEXT' THEN 'text' WHEN 'BLOB' THEN 'bytea' ELSE 'unmapped ' || p.type END ||
                 CASE WHEN p.\"notnull\" OR p.pk > 0 THEN ' NOT NULL' ELSE '' END
          FROM ($lite_tables) m, pragma_table_info(m.name) p"
    lite "SELECT 'index|' || tbl_name || '|' || name FROM sqlite_schema
          WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'"
    # (SQLite 3.40's group_concat has no ORDER BY: it follows the ordered subquery.)
    lite "SELECT 'primary key|' || t || '|' || group_concat(c, ',')
          FROM (SELECT m.name AS t, p.name AS c FROM ($lite_tables) m, pragma_table_info(m.name) p
                WHERE p.pk > 0 ORDER BY m.name, p.pk)
          GROUP BY t"
    # UNIQUE constraints (origin 'u'); the unique indexes are compared by name above.
    lite "SELECT 'unique|' || t || '|' || group_concat(c, ',')
          FROM (SELECT m.name AS t, l.name AS i, x.name AS c
                FROM ($lite_tables) m, pragma_index_list(m.name) l, pragma_index_info(l.name) x
                WHERE l.origin = 'u' ORDER BY m.name, l.name, x.seqno)
          GROUP BY t, i"
    lite "SELECT 'foreign key|' || t || '|' || group_concat(c, ',') || '|' || r || '(' ||
                 group_concat(rc, ',') || ')|' || d
          FROM (SELECT m.name AS t, f.id AS k, f.\"from\" AS c, f.\"table\" AS r, f.\"to\" AS rc, f.on_delete AS d
                FROM ($lite_tables) m, pragma_foreign_key_list(m.name) f ORDER BY m.name, f.id, f.seq)
          GROUP BY t, k"
    python3 -c "$checks_py" sqlite "$db"
} | LC_ALL=C sort >"$work/sqlite.txt"

# PostgreSQL: public tables that are not partitions (relispartition).
pg_tables="SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
{
    pg -At -F '|' -c "
        SELECT 'column|' || t.relname || '|' || lpad(row_number() OVER (PARTITION BY t.relname ORDER BY a.attnum)::text, 3, '0')
               || '|' || a.attname || '|' || format_type(a.atttypid, a.atttypmod)
               || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
               || CASE WHEN a.attcollation <> 0 AND co.collname <> 'C' THEN ' COLLATE ' || co.collname ELSE '' END
        FROM ($pg_tables) t JOIN pg_attribute a ON a.attrelid = t.oid
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attnum > 0 AND NOT a.attisdropped"
    pg -At -F '|' -c "
        SELECT 'index|' || t.relname || '|' || i.relname
        FROM ($pg_tables) t JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class i ON i.oid = x.indexrelid
        WHERE NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid AND k.contype IN ('p', 'u'))"
    pg -At -F '|' -c "
        SELECT CASE k.contype WHEN 'p' THEN 'primary key|' ELSE 'unique|' END || t.relname || '|' ||
               (SELECT string_agg(a.attname, ',' ORDER BY u.ord)
                FROM unnest(k.conkey) WITH ORDINALITY u(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = u.attnum)
        FROM ($pg_tables) t JOIN pg_constraint k ON k.conrelid = t.oid WHERE k.contype IN ('p', 'u')"
    pg -At -F '|' -c "
        SELECT 'foreign key|' || t.relname || '|' ||
               (SELECT string_agg(a.attname, ',' ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY u(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = u.attnum) || '|' ||
               r.relname || '(' ||
               (SELECT string_agg(a.attname, ',' ORDER BY u.ord) FROM unnest(k.confkey) WITH ORDINALITY u(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = u.attnum) || ')|' ||
               CASE k.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
                                  WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END
        FROM ($pg_tables) t JOIN pg_constraint k ON k.conrelid = t.oid AND k.contype = 'f'
        JOIN pg_class r ON r.oid = k.confrelid
        WHERE k.conparentid = 0"
    pg -At -F '|' -c "
        SELECT t.relname, pg_get_constraintdef(k.oid)
        FROM ($pg_tables) t JOIN pg_constraint k ON k.conrelid = t.oid AND k.contype = 'c'" |
        python3 -c "$checks_py" pg
} | LC_ALL=C sort >"$work/pg_all.txt"

# Columns the PostgreSQL schema adds on purpose, after SQLite's columns:
# table.column, one each, with why. They are left out of the comparison,
# and must exist (a stale entry is a difference too).
#   links.rowid: SQLite's implicit rowid made a column (datamove_queries.c
#                orders and names links by it).
pg_only_columns="links.rowid states.rowid tasks.rowid"
status=0
cp "$work/pg_all.txt" "$work/pg.txt"
for tc in $pg_only_columns; do
    pattern="^column|${tc%%.*}|[0-9]*|${tc#*.}|"
    if grep -q "$pattern" "$work/pg.txt"; then
        grep -v "$pattern" "$work/pg.txt" >"$work/pg_kept.txt"
        mv "$work/pg_kept.txt" "$work/pg.txt"
    else
        echo "FAIL: $tc is listed as a PostgreSQL-only column but sql/pg has no such column"
        status=1
    fi
done
# Keys that PostgreSQL keeps as a plain index of the same columns, so that
# the table can be sharded (sql/pg/021_shard_keys.sql, 022_event_shard_keys.sql):
# table|columns|index, compared as SQLite's primary key; the index must exist
# on those columns.
pg_plain_keys="mt_values|trace_id,metric_id,entity_id|mt_values_by_key
events|trace_id,container_id,time,seq|events_by_key
ev_messages|trace_id,send_time,seq|ev_messages_by_key
event_chunks|trace_id,container_id,chunk|event_chunks_by_key
message_chunks|trace_id,chunk|message_chunks_by_key
state_chunks|trace_id,container_id,chunk|state_chunks_by_key"
for k in $pg_plain_keys; do
    t=${k%%|*} rest=${k#*|}
    cols=${rest%%|*} idx=${rest#*|}
    got=$(pg -At -c "SELECT string_agg(a.attname, ',' ORDER BY u.ord) FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid,
            unnest(x.indkey) WITH ORDINALITY u(attnum, ord)
            JOIN pg_attribute a ON a.attnum = u.attnum
            WHERE i.relname = '$idx' AND r.relname = '$t' AND a.attrelid = x.indrelid AND NOT x.indisunique")
    if [ "$got" = "$cols" ] && grep -qx "index|$t|$idx" "$work/pg.txt"; then
        { grep -vx "index|$t|$idx" "$work/pg.txt"; echo "primary key|$t|$cols"; } | LC_ALL=C sort >"$work/pg_kept.txt"
        mv "$work/pg_kept.txt" "$work/pg.txt"
    else
        echo "FAIL: $t's key ($cols) is listed as a plain index $idx in PostgreSQL, which has ${got:-no such plain index}"
        status=1
    fi
done
if ! diff -U0 --label sqlite --label postgresql "$work/sqlite.txt" "$work/pg.txt" >"$work/diff.txt"; then
    echo "FAIL: the schemas differ (- SQLite, + PostgreSQL):"
    grep -v '^@@' "$work/diff.txt"
    status=1
fi

# --- Data: 012 and 017 move rows; the same rows in give the same rows out --
# Both sides start empty, get rows before 012 (members with params_json)
# and before 017 (messages, events, states, links), then the rest of the
# migrations; the rows are printed as integers and text only (reals print
# differently: 5.0 in SQLite, 5 in PostgreSQL).
seed_012="
INSERT INTO traces(id, name, kind, format) VALUES (1, 'p1', 'profile', 'x'), (2, 'p2', 'profile', 'x'),
    (3, 'p3', 'profile', 'x'), (4, 'ev', 'tasks', 'x'), (5, 't5', 'tasks', 'x');
INSERT INTO ensembles(id, name) VALUES (1, 'e1'), (2, 'e2');
INSERT INTO ensemble_members VALUES
    (1, 3, '{\"np\": 4, \"r\": 1.5, \"s\": \"abc\", \"t\": true, \"f\": false, \"n\": null, \"o\": {\"a\": 1}, \"a\": [1]}'),
    (1, 1, 'not json'), (2, 2, '[7, \"x\", null]'), (2, 1, '{}'), (1, 2, '{\"k\": \"v\"}');"
seed_017="
INSERT INTO ev_messages VALUES (4, 1, 2, 0, 1, 0, 0, 8, 5.0, 6.0), (4, 1, 2, 0, 1, 0, 0, 9, 1.0, 2.0),
    (5, 1, 2, 0, 1, 0, 0, 10, 3.0, 4.0), (4, 2, 1, 1, 0, 0, 0, 11, 5.0, 7.0);
INSERT INTO events VALUES (4, 1, 1, 1, 2.0, NULL), (5, 1, 1, 1, 1.0, '{}'), (4, 1, 1, 2, 1.0, NULL),
    (4, 2, 1, 1, 0.5, NULL);
INSERT INTO states VALUES (4, 1, 1, 1, 0, 1, 0, NULL), (5, 1, 1, 1, 0, 1, 0, NULL);
INSERT INTO state_chunks VALUES (4, 1, 0, 1, 0, 1, 1, BLOB00);
INSERT INTO links VALUES (4, 1, 1, 1, 1, 2, 'k', 0, 1, NULL), (5, 1, 1, 1, 1, 2, 'k', 0, 1, NULL);
UPDATE traces SET kind = 'events' WHERE id = 4;"
show_rows="
SELECT 'member', ensemble_id, trace_id, position, name FROM ensemble_members ORDER BY 2, 3;
SELECT 'param', ensemble_id, trace_id, key, value, source FROM ensemble_params ORDER BY 2, 3, 4;
SELECT 'message', trace_id, seq, src_container, dst_container, bytes, CAST(send_time * 10 AS INTEGER)
    FROM ev_messages ORDER BY 2, 3;
SELECT 'event', trace_id, seq, container_id, value_id, CAST(time * 10 AS INTEGER), coalesce(fields, '-')
    FROM events ORDER BY 2, 3;
SELECT 'states', trace_id, count(*) FROM states GROUP BY trace_id ORDER BY 2;
SELECT 'links', trace_id, count(*) FROM links GROUP BY trace_id ORDER BY 2;"
pg -c "CREATE DATABASE datacheck"
pgd() {
    "$pgbin/psql" -X -q -At -F '|' -h 127.0.0.1 -p "$port" -U postgres -d datacheck -v ON_ERROR_STOP=1 "$@"
}
ddb=$work/data.db
migrate_both() { # first last: the migrations first..last on both sides
    local n
    for n in $(seq -f %03g "$1" "$2"); do
        pgd -f "$(echo "$root"/sql/pg/"$n"_*.sql)" >/dev/null
        sqlite3 -bail "$ddb" <"$(echo "$root"/sql/"$n"_*.sql)"
        if [ "$n" = 016 ]; then widen_kinds "$ddb"; fi
    done
}
if migrate_both 1 11 && pgd -c "$seed_012" && sqlite3 -bail "$ddb" "PRAGMA foreign_keys = ON; $seed_012" &&
    migrate_both 12 16 && pgd -c "${seed_017//BLOB00/\'\\x00\'::bytea}" &&
    sqlite3 -bail "$ddb" "${seed_017//BLOB00/x\'00\'}" && migrate_both 17 17 &&
    pgd -c "$show_rows" >"$work/data_pg.txt" && sqlite3 -bail -separator '|' "$ddb" "$show_rows" >"$work/data_sqlite.txt"
then
    if ! diff -U0 --label sqlite --label postgresql "$work/data_sqlite.txt" "$work/data_pg.txt" >"$work/diff.txt"; then
        echo "FAIL: migrations 012..017 leave different rows (- SQLite, + PostgreSQL):"
        grep -v '^@@' "$work/diff.txt"
        status=1
    else
        echo "data: 012 and 017 leave the same $(wc -l <"$work/data_pg.txt") rows on both"
    fi
else
    echo "FAIL: the data check could not run (see the error above)"
    status=1
fi

# Every partitioned table has its DEFAULT partition <table>_default.
missing=$(pg -At -c "
    SELECT p.relname FROM pg_partitioned_table pt JOIN pg_class p ON p.oid = pt.partrelid
    WHERE NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                      WHERE i.inhparent = p.oid AND c.relname = p.relname || '_default'
                        AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT')
    ORDER BY 1")
if [ -n "$missing" ]; then
    echo "FAIL: partitioned tables without a DEFAULT partition <table>_default: $missing"
    status=1
fi
partitioned=$(pg -At -c "SELECT string_agg(c.relname, ' ' ORDER BY c.relname)
                         FROM pg_partitioned_table pt JOIN pg_class c ON c.oid = pt.partrelid")

tables=$(grep -c '^primary key|' "$work/sqlite.txt" || true)
echo "compared $(wc -l <"$work/sqlite.txt") SQLite schema facts with $(wc -l <"$work/pg.txt") PostgreSQL ones" \
     "($(cut -d'|' -f2 "$work/sqlite.txt" | sort -u | wc -l) tables, $tables with a primary key)"
echo "partitioned by trace_id: $partitioned"
if [ $status -eq 0 ]; then
    echo "OK: sql/pg/*.sql matches sql/*.sql"
fi
exit $status
