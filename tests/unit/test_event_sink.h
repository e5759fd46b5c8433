/* test_event_sink.h: a recording ari_event_sink for the event-trace
 * readers' unit tests (OTF2, Projections, HPCToolkit trace.db; issue 19).
 * It builds a Pipit-like events table in memory: one row per Enter, Leave
 * and Instant with its location, process (rank), thread, time and name. A
 * message counts as one Instant named after its OTF2 event ("MpiSend",
 * "MpiIsend", "MpiIsendComplete", "MpiRecv", "MpiIrecvRequest",
 * "MpiIrecv"), as Pipit's OTF2 reader shows them; program begin/end arrive
 * through ->instant as "ProgramBegin"/"ProgramEnd". Collectives add two
 * Instants, "MpiCollectiveBegin" and "MpiCollectiveEnd". It also keeps
 * every process, location, region, communicator, message, collective,
 * metric sample and note, counts times that go backwards on a location,
 * and can be told to fail at the n-th callback (to test that a reader
 * stops). Shared read-only by the readers' tests: the OTF2 helper owns it.
 *
 *   tes_sink s; tes_init(&s);  ari_event_sink k = tes_sink_of(&s);
 *   ... reader(..., &k, &err) ...;  tes_sort(&s);  asserts;  tes_free(&s);
 */
#ifndef ARIADNE_TEST_EVENT_SINK_H
#define ARIADNE_TEST_EVENT_SINK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/event_sink.h"

typedef enum tes_type { TES_ENTER = 0, TES_LEAVE, TES_INSTANT } tes_type;

typedef struct tes_event {
    int64_t location, process, thread; /* process: the rank; thread: the location's thread number */
    double time;
    tes_type type;
    const char *name; /* owned by the sink (regions[] or names[]) */
    int64_t region;   /* Enter/Leave: the region handle, else -1 */
} tes_event;

typedef struct tes_process {
    int64_t rank;
    char *name;
} tes_process;

typedef struct tes_location {
    int64_t process, thread; /* process handle */
    char *name;
    double last_time;        /* last time seen, for the order check */
    int64_t nevents;
} tes_location;

typedef struct tes_region {
    char *name, *file, *role;
    int line;
} tes_region;

typedef struct tes_comm {
    char *name;
    int64_t size;
} tes_comm;

typedef struct tes_coll {
    ari_event_collective c; /* c.op points to op below */
    char *op;
} tes_coll;

typedef struct tes_metric {
    int64_t location;
    double time, value;
    char *name, *unit;
} tes_metric;

typedef struct tes_note {
    char *key, *value;
} tes_note;

#define TES_VEC(T, name) \
    T *name;             \
    size_t n_##name, cap_##name

typedef struct tes_sink {
    TES_VEC(tes_event, events);
    TES_VEC(tes_process, procs);
    TES_VEC(tes_location, locs);
    TES_VEC(tes_region, regions);
    TES_VEC(tes_comm, comms);
    TES_VEC(ari_event_msg, msgs);
    TES_VEC(tes_coll, colls);
    TES_VEC(tes_metric, metrics);
    TES_VEC(tes_note, notes);
    TES_VEC(char *, names);  /* interned instant names */
    int64_t backwards;       /* callbacks whose time went back on their location */
    int64_t bad_handles;     /* callbacks with a handle the sink never gave */
    int64_t calls;           /* callbacks so far */
    int64_t fail_at;         /* > 0: the fail_at-th callback returns -1 */
    double progress;         /* last progress fraction, -1 if none */
    int64_t progress_calls;
} tes_sink;

/* Grows a vector to hold one more; 0 or -1. */
#define TES_GROW(s, name)                                                                   \
    ((s)->n_##name < (s)->cap_##name                                                        \
         ? 0                                                                                \
         : tes_grow((void **)&(s)->name, &(s)->cap_##name, sizeof *(s)->name))

static inline int tes_grow(void **p, size_t *cap, size_t elem)
{
    size_t n = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static inline char *tes_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static inline void tes_init(tes_sink *s)
{
    memset(s, 0, sizeof *s);
    s->progress = -1;
}

/* Counts a callback; -1 when it is the one told to fail. */
static inline int tes_call(tes_sink *s)
{
    s->calls++;
    return s->fail_at > 0 && s->calls == s->fail_at ? -1 : 0;
}

/* An interned copy of a name (instants, collective ops). */
static inline const char *tes_intern(tes_sink *s, const char *name)
{
    for (size_t i = 0; i < s->n_names; i++)
        if (strcmp(s->names[i], name) == 0)
            return s->names[i];
    char *d = strdup(name);
    if (!d || TES_GROW(s, names) < 0) {
        free(d);
        return NULL;
    }
    return s->names[s->n_names++] = d;
}

/* Adds one row to the events table, checking the location's time order. */
static inline int tes_row_at(tes_sink *s, int64_t location, double time, tes_type type, const char *name,
                             int64_t region, int check_order)
{
    if (location < 0 || (size_t)location >= s->n_locs || !name) {
        s->bad_handles++;
        return -1;
    }
    tes_location *l = &s->locs[location];
    if (check_order) {
        if (l->nevents > 0 && time < l->last_time)
            s->backwards++;
        l->last_time = time;
    }
    l->nevents++;
    if (TES_GROW(s, events) < 0)
        return -1;
    s->events[s->n_events++] = (tes_event){location, s->procs[l->process].rank, l->thread, time, type, name, region};
    return 0;
}

static inline int tes_row(tes_sink *s, int64_t location, double time, tes_type type, const char *name,
                          int64_t region)
{
    return tes_row_at(s, location, time, type, name, region, 1);
}

static inline int64_t tes_on_process(void *ctx, int64_t rank, const char *name)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    for (size_t i = 0; i < s->n_procs; i++)
        if (s->procs[i].rank == rank)
            return (int64_t)i;
    if (TES_GROW(s, procs) < 0)
        return -1;
    s->procs[s->n_procs] = (tes_process){rank, tes_dup(name)};
    return (int64_t)s->n_procs++;
}

static inline int64_t tes_on_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    if (process < 0 || (size_t)process >= s->n_procs) {
        s->bad_handles++;
        return -1;
    }
    for (size_t i = 0; i < s->n_locs; i++)
        if (s->locs[i].process == process && s->locs[i].thread == thread)
            return (int64_t)i;
    if (TES_GROW(s, locs) < 0)
        return -1;
    s->locs[s->n_locs] = (tes_location){process, thread, tes_dup(name), 0, 0};
    return (int64_t)s->n_locs++;
}

static inline int64_t tes_on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0 || !name || TES_GROW(s, regions) < 0)
        return -1;
    s->regions[s->n_regions] = (tes_region){tes_dup(name), tes_dup(file), tes_dup(role), line};
    if (!s->regions[s->n_regions].name)
        return -1;
    return (int64_t)s->n_regions++;
}

static inline int64_t tes_on_comm(void *ctx, const char *name, int64_t size)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0 || TES_GROW(s, comms) < 0)
        return -1;
    s->comms[s->n_comms] = (tes_comm){tes_dup(name), size};
    return (int64_t)s->n_comms++;
}

static inline int tes_on_region_event(tes_sink *s, int64_t location, double time, int64_t region, tes_type t)
{
    if (tes_call(s) < 0)
        return -1;
    if (region < 0 || (size_t)region >= s->n_regions) {
        s->bad_handles++;
        return -1;
    }
    return tes_row(s, location, time, t, s->regions[region].name, region);
}

static inline int tes_on_enter(void *ctx, int64_t location, double time, int64_t region)
{
    return tes_on_region_event(ctx, location, time, region, TES_ENTER);
}

static inline int tes_on_leave(void *ctx, int64_t location, double time, int64_t region)
{
    return tes_on_region_event(ctx, location, time, region, TES_LEAVE);
}

static inline int tes_on_instant(void *ctx, int64_t location, double time, const char *name)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    const char *n = name ? tes_intern(s, name) : NULL;
    return n ? tes_row(s, location, time, TES_INSTANT, n, -1) : -1;
}

/* Pipit's name of a message event. */
static inline const char *tes_msg_name(ari_msg_kind kind)
{
    static const char *const names[] = {"MpiSend", "MpiIsend", "MpiIsendComplete",
                                        "MpiRecv", "MpiIrecvRequest", "MpiIrecv"};
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

static inline int tes_on_message(void *ctx, const ari_event_msg *m)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    const char *name = tes_msg_name(m->kind);
    if (!name || (m->communicator >= 0 && (size_t)m->communicator >= s->n_comms)) {
        s->bad_handles++;
        return -1;
    }
    if (TES_GROW(s, msgs) < 0)
        return -1;
    s->msgs[s->n_msgs++] = *m;
    const char *n = tes_intern(s, name);
    return n ? tes_row(s, m->location, m->time, TES_INSTANT, n, -1) : -1;
}

static inline int tes_on_collective(void *ctx, const ari_event_collective *c)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    if (c->communicator >= 0 && (size_t)c->communicator >= s->n_comms) {
        s->bad_handles++;
        return -1;
    }
    if (TES_GROW(s, colls) < 0)
        return -1;
    tes_coll *k = &s->colls[s->n_colls];
    k->c = *c;
    k->op = tes_dup(c->op ? c->op : "");
    if (!k->op)
        return -1;
    k->c.op = k->op;
    s->n_colls++;
    const char *b = tes_intern(s, "MpiCollectiveBegin"), *e = tes_intern(s, "MpiCollectiveEnd");
    /* the begin row may be older than events between begin and end: the
     * reader reports a collective at its end, so only the end is checked */
    if (!b || !e || c->begin > c->end || tes_row_at(s, c->location, c->begin, TES_INSTANT, b, -1, 0) < 0)
        return -1;
    return tes_row(s, c->location, c->end, TES_INSTANT, e, -1);
}

static inline int tes_on_metric(void *ctx, int64_t location, double time, const char *metric, const char *unit,
                                double value)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0)
        return -1;
    if (location < 0 || (size_t)location >= s->n_locs || !metric) {
        s->bad_handles++;
        return -1;
    }
    if (TES_GROW(s, metrics) < 0)
        return -1;
    s->metrics[s->n_metrics] = (tes_metric){location, time, value, tes_dup(metric), tes_dup(unit)};
    if (!s->metrics[s->n_metrics].name)
        return -1;
    s->n_metrics++;
    return 0;
}

static inline int tes_on_note(void *ctx, const char *key, const char *json_value)
{
    tes_sink *s = ctx;
    if (tes_call(s) < 0 || !key || !json_value || TES_GROW(s, notes) < 0)
        return -1;
    s->notes[s->n_notes] = (tes_note){strdup(key), strdup(json_value)};
    if (!s->notes[s->n_notes].key || !s->notes[s->n_notes].value) {
        free(s->notes[s->n_notes].key);
        free(s->notes[s->n_notes].value);
        return -1;
    }
    s->n_notes++;
    return 0;
}

static inline void tes_on_progress(void *ctx, double fraction)
{
    tes_sink *s = ctx;
    s->progress = fraction;
    s->progress_calls++;
}

static inline ari_event_sink tes_sink_of(tes_sink *s)
{
    return (ari_event_sink){s,           tes_on_process, tes_on_location, tes_on_region,
                            tes_on_comm, tes_on_enter,   tes_on_leave,    tes_on_instant,
                            tes_on_message, tes_on_collective, tes_on_metric, tes_on_note,
                            tes_on_progress, NULL, NULL};
}

static inline int tes_cmp_time(const void *a, const void *b)
{
    const tes_event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    /* stable enough: then by location, then by arrival (not kept), type */
    if (x->location != y->location)
        return x->location < y->location ? -1 : 1;
    return 0;
}

/* Sorts the events table by time (as Pipit's is). Rows of one location at
 * the same time keep no particular order. */
static inline void tes_sort(tes_sink *s)
{
    if (s->n_events > 1)
        qsort(s->events, s->n_events, sizeof *s->events, tes_cmp_time);
}

/* ---- queries for the asserts ---- */

static inline size_t tes_count_name(const tes_sink *s, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += strcmp(s->events[i].name, name) == 0;
    return n;
}

static inline size_t tes_count_type(const tes_sink *s, tes_type t)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += s->events[i].type == t;
    return n;
}

static inline size_t tes_count_process(const tes_sink *s, int64_t rank)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += s->events[i].process == rank;
    return n;
}

static inline size_t tes_count_thread(const tes_sink *s, int64_t thread)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += s->events[i].thread == thread;
    return n;
}

/* Distinct event names, into out (interned pointers, up to cap); returns the count. */
static inline size_t tes_names(const tes_sink *s, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++) {
        size_t j = 0;
        while (j < n && strcmp(out[j], s->events[i].name) != 0)
            j++;
        if (j == n && n < cap)
            out[n++] = s->events[i].name;
    }
    return n;
}

static inline int tes_has_name(const tes_sink *s, const char *name)
{
    return tes_count_name(s, name) > 0;
}

static inline const char *tes_note_value(const tes_sink *s, const char *key)
{
    for (size_t i = 0; i < s->n_notes; i++)
        if (strcmp(s->notes[i].key, key) == 0)
            return s->notes[i].value;
    return NULL;
}

static inline void tes_free(tes_sink *s)
{
    for (size_t i = 0; i < s->n_procs; i++)
        free(s->procs[i].name);
    for (size_t i = 0; i < s->n_locs; i++)
        free(s->locs[i].name);
    for (size_t i = 0; i < s->n_regions; i++)
        free(s->regions[i].name), free(s->regions[i].file), free(s->regions[i].role);
    for (size_t i = 0; i < s->n_comms; i++)
        free(s->comms[i].name);
    for (size_t i = 0; i < s->n_colls; i++)
        free(s->colls[i].op);
    for (size_t i = 0; i < s->n_metrics; i++)
        free(s->metrics[i].name), free(s->metrics[i].unit);
    for (size_t i = 0; i < s->n_notes; i++)
        free(s->notes[i].key), free(s->notes[i].value);
    for (size_t i = 0; i < s->n_names; i++)
        free(s->names[i]);
    free(s->events), free(s->procs), free(s->locs), free(s->regions), free(s->comms);
    free(s->msgs), free(s->colls), free(s->metrics), free(s->notes), free(s->names);
    tes_init(s);
}

#endif
