/* pg_shards.h: the shards of a PostgreSQL store (issue 20): other
 * PostgreSQL databases holding whole traces' large tables, attached to the
 * coordinator's (the --db database's) parents as postgres_fdw foreign
 * partitions. docs/postgresql.md, "Sharding by trace", says how to use
 * them. */
#ifndef ARIADNE_PG_SHARDS_H
#define ARIADNE_PG_SHARDS_H

#include <stdint.h>

#include "store/store.h"
#include "store/store_stmt.h"

/* ---- administration (ariadned shard, server/cmd_shard.c) ---- */

/* Registers the database at url as shard `name` ([a-z0-9_], at most 40
 * characters) of the coordinator s: checks that it answers, makes the
 * postgres_fdw server "ariadne_shard_<name>" and the current role's user
 * mapping (the URL's user and password), and makes the coordinator ready
 * for foreign partitions (once: the foreign keys to traces of the tables
 * that can be sharded move to their default partitions; partitionwise
 * aggregation and joins are turned on for the database). 0, or -1 with
 * err set; the password is never put in a message. */
int ari_pg_shards_add(ari_store *s, const char *name, const char *url, ari_error *err);

/* The shards as a JSON array of {"name", "url" (no password), "traces",
 * "tables"}, malloc'd in *json. 0, or -1 with err set. */
int ari_pg_shards_list(ari_store *s, char **json, ari_error *err);

/* Unregisters shard `name`, which must hold no table of the coordinator's:
 * 0, 1 if there is no such shard, -1 with err set (it holds traces). */
int ari_pg_shards_remove(ari_store *s, const char *name, ari_error *err);

/* Drops the orphans of every shard: its trace tables ("<table>_t<id>",
 * or "<table>_t<id>_s<k>" for a spread trace's)
 * that no foreign partition of the coordinator refers to (left by an
 * import whose coordinator transaction failed after the shard's commit,
 * or a deletion that could not reach the shard). Waits for the imports
 * being published. *dropped gets their number. 0, or -1 with err set. */
int ari_pg_shards_sweep(ari_store *s, int64_t *dropped, ari_error *err);

/* Spreading (docs/postgresql.md, "Spreading a large trace"): an import
 * whose trace has at least `rows` records in states, tasks, variables,
 * links, dm_samples and an event trace's tables together (the records
 * packed in chunks counted one by one), with two shards or more, spreads
 * that trace over every shard (pg_publish.c).
 * The threshold is kept in the coordinator database's settings
 * (ALTER DATABASE ... SET ariadne.spread_rows), read by each import:
 * 0 turns spreading off. */
#define ARI_PG_SPREAD_ROWS_DEFAULT 5000000
int ari_pg_shards_set_spread(ari_store *s, int64_t rows, ari_error *err);
/* The threshold in *rows (the default when none was set): 0, or -1 with
 * err set. */
int ari_pg_shards_spread_rows(ari_store *s, int64_t *rows, ari_error *err);

/* Whether the trace's tasks live on shards (its tasks partition is a
 * foreign table, or is spread into foreign sub-partitions): 1, 0 (on the
 * coordinator, or SQLite), -1 with err set. Reading a row's tasks then
 * passes every task through the coordinator's postgres_fdw. */
int ari_pg_shards_trace_remote(ari_store *s, int64_t trace_id, ari_error *err);

/* EXPLAIN (VERBOSE) of the Gantt's aggregation (gantt_sql.h) of a whole
 * task trace at 1000 pixels, every worker, as the daemons run it: a
 * malloc'd text in *plan (one line per plan line). On a sharded store it
 * shows whether the aggregation runs on the shard ("Remote SQL: ... GROUP
 * BY"). 0, 1 if the trace has no task, -1 with err set. */
int ari_pg_shards_explain_gantt(ari_store *s, int64_t trace_id, char **plan, ari_error *err);

/* ---- placement (pg_publish.c) and deletion (store_traces.c) ---- */

/* One shard as an import sees it. */
typedef struct ari_pg_shard {
    char *server;    /* the foreign server's name, ariadne_shard_<name> */
    int64_t traces;  /* the traces it holds: the least loaded gets the next */
    ari_store *conn; /* a direct connection, or NULL */
    int in_tx;       /* conn is in the import's transaction */
} ari_pg_shard;

typedef struct ari_pg_shards {
    ari_pg_shard *v;
    size_t n;
} ari_pg_shards;

/* The registered shards with their loads (none: n is 0), and each one's
 * orphans dropped (the caller holds the lock of the imports, so none is an
 * import in flight). 0, or -1 with err set. */
int ari_pg_shards_open(ari_store *s, ari_pg_shards *out, ari_error *err);
/* The shard that gets the next trace: the one with the fewest traces, the
 * first by name on a tie; its load grows by one. NULL if there is none. */
ari_pg_shard *ari_pg_shards_pick(ari_pg_shards *shards);
/* A direct connection to shard sh (made on first use, in a transaction
 * from then on), or NULL with err set. */
ari_store *ari_pg_shard_conn(ari_store *s, ari_pg_shard *sh, ari_error *err);
/* Commits every shard's open transaction: 0, or -1 with err set (those
 * committed before stay: their tables are orphans for the next sweep). */
int ari_pg_shards_commit(ari_pg_shards *shards, ari_error *err);
/* Rolls back what is open, closes the connections and frees. */
void ari_pg_shards_close(ari_pg_shards *shards);

/* The first column of a prepared statement's rows (finalized here), one
 * per line between newlines ("\nstates\ntasks\n"), to look a name up with
 * strstr: malloc'd, or NULL with err set (what says which list). */
char *ari_pg_names(ari_store *s, ari_stmt *st, const char *what, ari_error *err);

/* Drops tables[0..n) on the shard behind foreign server `server` (after
 * the coordinator dropped their foreign partitions and committed). 0, or
 * -1 with err set (the tables are left to the next sweep). */
int ari_pg_shard_drop_tables(ari_store *s, const char *server, char *const *tables, size_t n, ari_error *err);

#endif
