/* profile_sink.h: the interface between the call-graph profile readers
 * (caliper_json.c, cali.c, hpctoolkit.c, hatchet_json.c) and whatever
 * consumes a profile, in the spirit of sink.h: readers call the callbacks,
 * never SQLite. The store's implementation is store/profile_writer.c; tests
 * may provide their own.
 *
 * A profile is a calling context tree (CCT), a list of processes (rank,
 * thread) and a list of metrics, with values per (metric, node, process).
 * Readers name nodes by their own ids (any int64 in 0..ARI_PROFILE_MAX_NODE_ID,
 * ideally dense: the writer indexes an array by them), may declare nodes in
 * any order and may report values before the node they belong to (Caliper
 * json-split files put "data" before "nodes"). The writer renumbers nodes
 * depth first (children in declaration order), sorts processes by (rank,
 * thread), derives the missing inclusive or exclusive variant of a metric,
 * and drops values of nodes never declared (counted in the summary).
 *
 * Strings are only valid during the call. Callbacks return 0 to go on or
 * non-zero to abort the read (the reader then returns that error).
 */
#ifndef ARIADNE_PROFILE_SINK_H
#define ARIADNE_PROFILE_SINK_H

#include <stdint.h>

#define ARI_PROFILE_MAX_NODE_ID ((int64_t)1 << 23)
#define ARI_PROFILE_MAX_PROCS (1 << 22)

typedef struct ari_profile_node {
    int64_t id;         /* the reader's id */
    int64_t parent;     /* the reader's id of the parent, or -1 for a root */
    const char *name;
    const char *module; /* NULL or "" if unknown */
    const char *file;   /* NULL or "" if unknown */
    int line;           /* 0 if unknown */
    const char *kind;   /* "function", "loop", "statement", "region", ...; NULL: "function" */
} ari_profile_node;

typedef struct ari_profile_metric {
    const char *name;   /* as Hatchet names the column: "time (inc)", "time", ... */
    const char *source; /* the name in the file, or NULL */
    const char *unit;   /* NULL or "" if unknown */
    int inclusive;      /* 1 inclusive, 0 exclusive */
    /* The name of the other variant when the file has both (e.g. "time"
     * for "time (inc)"); NULL to let the writer pair metrics named "X" and
     * "X (inc)" itself and derive the missing variant. */
    const char *partner;
} ari_profile_metric;

typedef struct ari_profile_sink {
    void *ctx;
    /* Declares a metric; *index receives its number for on_value. Declaring
     * a name twice returns the first index. */
    int (*on_metric)(void *ctx, const ari_profile_metric *m, int *index);
    /* Declares (or finds) a process; *index receives its number. */
    int (*on_proc)(void *ctx, int64_t rank, int64_t thread, int *index);
    int (*on_node)(void *ctx, const ari_profile_node *n);
    /* Adds v to the value of metric on node `node` (reader id) for process
     * `proc` (rows that repeat a cell add up, as Hatchet's groupby-sum). */
    int (*on_value)(void *ctx, int metric, int64_t node, int proc, double v);
    /* A metadata entry: key and a JSON value text (e.g. "\"2.9.0\"", "8"). */
    int (*on_meta)(void *ctx, const char *key, const char *json_value);
    /* Progress through the current input, 0..1; may be NULL. */
    void (*on_progress)(void *ctx, double fraction);
    /* The unit of the profile's time metrics as the file gives it, for the
     * trace's time_unit and time_unit_source: `unit` as declared, or "" when
     * the file declares none; `source` says which. May be NULL. */
    int (*on_time_unit)(void *ctx, const char *unit, const char *source);
} ari_profile_sink;

#endif
