/* chrome_trace.h: a streaming reader of the Chrome Trace Event Format
 * (about:tracing, Perfetto, Kineto/PyTorch profiler, DMTracker).
 *
 * Accepts the JSON array form, the object form ({"traceEvents": [...],
 * ...}) and the truncated array form that tracers leave when a run dies
 * (no closing "]", possibly a trailing comma). The traceEvents array is
 * never loaded whole: the reader cuts it into one event at a time and
 * parses each alone, so memory follows the largest event, not the file.
 *
 * Phases: X (complete), B/E (matched per thread in timestamp order, LIFO;
 * unclosed slices end at the thread's last timestamp), i/I/R (instants),
 * C (counters: one series per numeric arg), s/t/f flows (v1: s and t bind
 * to the enclosing slice, f to the enclosing one with "bp":"e", else to
 * the next slice on its thread) and bind_id/flow_in/flow_out (v2), M
 * (metadata). Other phases (async, samples, objects, memory dumps) are
 * counted and skipped. Times are microseconds, as in the file;
 * displayTimeUnit only tells viewers how to display them.
 *
 * Files come through ari_input (plain, .gz, .zst; decode cap), cut by
 * json_tokens' stream. Sinks see plain C values and JSON text, never a
 * JSON tree: the consumer (the data-movement writer in the store) needs no
 * JSON library.
 */
#ifndef ARIADNE_CHROME_TRACE_H
#define ARIADNE_CHROME_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A slice (from X, or a matched B/E pair) or an instant (dur 0, point 1). */
typedef struct ari_chrome_slice {
    int64_t id;           /* 0..n-1 in emission order; flows refer to it */
    const char *pid, *tid; /* as text ("5106", "" when absent) */
    const char *name, *cat;
    int point;            /* 1 for an instant */
    double ts, dur;       /* µs */
    double tts, tdur;     /* thread clock µs; NaN when absent */
    /* The args object as JSON text (not NUL-terminated), NULL when absent
     * or not an object: as written in the file for events decoded in place,
     * else as jansson's compact dump. Valid JSON: walk it with
     * ari_json_member_next (json_tokens.h). */
    const char *args_text;
    size_t args_len;
} ari_chrome_slice;

/* A B, E or X event as written, before any matching (raw sinks, below). */
typedef struct ari_chrome_raw_event {
    int64_t index;         /* position in traceEvents */
    const char *pid, *tid; /* as text, as for slices */
    char ph;               /* 'B', 'E' or 'X' */
    const char *name;      /* NULL when the event has no "name" string */
    /* The args as compact JSON (keys in file order), NULL when absent or
     * null; NUL-terminated. */
    const char *args_text;
    double ts;
    double dur;            /* X: dur, else tdur, else 0; 0 for B/E */
} ari_chrome_raw_event;

/* An M event (process_name, thread_name, process_labels, ...). */
typedef struct ari_chrome_metadata {
    const char *pid, *tid;  /* as for slices */
    const char *name;       /* "" when absent */
    const char *arg_name;   /* args.name when a string, else NULL */
    const char *arg_labels; /* args.labels when a string, else NULL */
    const char *args_text;  /* args as compact JSON (NUL-terminated), NULL when absent */
} ari_chrome_metadata;

typedef struct ari_chrome_sink {
    void *ctx;
    int (*slice)(void *ctx, const ari_chrome_slice *s);
    /* C events: one call per numeric arg ("series"). */
    int (*counter)(void *ctx, const char *pid, const char *name, const char *series, double ts,
                   double value);
    /* A flow arrow between two slices (ids from slice()). */
    int (*flow)(void *ctx, const char *flow_id, int64_t from, int64_t to);
    /* M events. */
    int (*metadata)(void *ctx, const ari_chrome_metadata *m);
    /* Top-level keys of the object form other than traceEvents whose values
     * are small (deviceProperties, displayTimeUnit, traceName, ...), the
     * value as jansson's compact JSON (NUL-terminated), so a sink that
     * stores it verbatim stores what a JSON library would write. */
    int (*top)(void *ctx, const char *key, const char *value_json);
    /* Progress through the input, 0..1, now and then. */
    int (*progress)(void *ctx, double fraction);
} ari_chrome_sink;

/* An optional second sink, for ari_chrome_read_raw: the events as written,
 * which speedscope-style stack reconstruction (analysis/trace_stacks.h)
 * needs. Given one, the reader decodes every event with jansson. */
typedef struct ari_chrome_raw_sink {
    void *ctx;
    /* Every B, E and X event in file order, before B/E pairing. */
    int (*event)(void *ctx, const ari_chrome_raw_event *e);
    /* The "samples" and "stackFrames" values of the object form (sampled
     * profiles; they can be large), as compact JSON (NUL-terminated). */
    int (*samples)(void *ctx, const char *key, const char *value_json);
} ari_chrome_raw_sink;

typedef struct ari_chrome_stats {
    int64_t events;       /* elements of traceEvents */
    int64_t slices, instants, counters, flows, metadata;
    int64_t skipped;      /* events of phases the reader does not model */
    int64_t unmatched_end;/* E events with no open slice */
    int64_t unclosed;     /* B events closed at the end of their thread */
    int truncated;        /* the array had no closing "]" */
    int object_form;
} ari_chrome_stats;

/* Non-zero if a file head looks like a Chrome trace. */
int ari_chrome_probe(const char *head, size_t n);

/* Reads a file (plain or compressed). st may be NULL. Returns 0, or -1
 * with err set ("name: offset N: reason") or the sink's error code. */
int ari_chrome_read(const char *path, const char *name, const ari_chrome_sink *k,
                    ari_chrome_stats *st, ari_error *err);
/* ari_chrome_read with a raw sink too (raw may be NULL). */
int ari_chrome_read_raw(const char *path, const char *name, const ari_chrome_sink *k, const ari_chrome_raw_sink *raw,
                        ari_chrome_stats *st, ari_error *err);
/* The same over a memory buffer (tests, fuzzing). */
int ari_chrome_read_buffer(const char *data, size_t len, const char *name,
                           const ari_chrome_sink *k, ari_chrome_stats *st, ari_error *err);
int ari_chrome_read_buffer_raw(const char *data, size_t len, const char *name, const ari_chrome_sink *k,
                               const ari_chrome_raw_sink *raw, ari_chrome_stats *st, ari_error *err);

#endif
