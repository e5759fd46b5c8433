/* trace_writer_internal.h: the trace writer's state, shared by
 * trace_writer.c (trace row, files, progress) and trace_sink.c (entities). */
#ifndef ARIADNE_TRACE_WRITER_INTERNAL_H
#define ARIADNE_TRACE_WRITER_INTERNAL_H

#include "store/store_internal.h"
#include "store/trace_writer.h"
#include "util/sbuf.h"
#include "util/strmap.h"

typedef struct ari_entity_counts {
    int64_t types, containers, states, variables, links, events;
} ari_entity_counts;

struct ari_trace_writer {
    ari_store *store;
    int64_t id;
    ari_error error;
    ari_sink sink;
    ari_writer_progress progress;
    char phase[160];
    ari_sbuf warnings; /* "message (code)\n" per warning, for the command line */
    uint64_t bytes_before, bytes_done, file_base, file_bytes, total_file_bytes;

    /* entity state (trace_sink.c) */
    ari_strmap *types;      /* alias and name -> type id */
    ari_strmap *containers; /* alias and name -> container id */
    ari_strmap *names;      /* value -> names id */
    int64_t next_type, next_container, next_name;
    int root_added;         /* the Paje root "0", added with the first type */
    ari_entity_counts counts;
    double t_min, t_max;    /* span of the timed entities */
    uint64_t calls;         /* sink calls, to poll cancellation now and then */
    char *buf;              /* scratch for JSON fields */
    size_t buf_cap;

    /* the states also packed in chunks (state_chunks.h), when asked */
    struct ari_state_packer *packer; /* states go to chunks, not rows */
    struct ari_event_packer *event_packer; /* events likewise (event_chunks.h), when asked */
    int skip_links;                  /* links counted, not stored */

    /* task-level sink (task_writer.c), created on demand */
    struct ari_task_writer *task_writer;
};

int ari_trace_sink_init(ari_trace_writer *w, ari_error *err);
int ari_trace_sink_finish(ari_trace_writer *w, ari_error *err);
void ari_trace_sink_free(ari_trace_writer *w);
/* The id of a container of the trace by alias or name (the sink's map,
 * keyed by the stored, valid UTF-8 form), 0 if unknown, -1 (w->error set)
 * when out of memory. */
int64_t ari_trace_writer_container(ari_trace_writer *w, const char *alias);
/* Progress through the current file, 0..1. */
void ari_trace_writer_report(ari_trace_writer *w, double file_fraction);
/* 1 (and the writer's error set) if the import was cancelled. */
int ari_trace_writer_cancelled(ari_trace_writer *w);

#endif
