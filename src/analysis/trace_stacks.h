/* trace_stacks.h: speedscope's call-stack reconstruction for one thread of
 * a Chrome trace (B/E/X duration events, or sampled stacks).
 *
 * The Chrome trace reader (ingest/chrome_trace.h) pairs B/E events its own
 * way for the data-movement store. This module instead rebuilds the stacks
 * exactly as speedscope's trace-event importer does, so that the collapsed
 * stacks, their weights and the per-frame self/total times can be checked
 * against speedscope's snapshots:
 *   - B events and E events go to two queues (file order); each X event
 *     (sorted by ts, longer first on ties) adds a B at ts and an E at
 *     ts+dur; both queues are then stably sorted by ts;
 *   - the queue with the earlier front goes first; on equal times, B first
 *     if the two fronts have the same key (a zero-length event), else E
 *     (older speedscope compared names; its snapshot follows keys);
 *   - before taking an E, an E at the same time whose key (then whose
 *     name) equals the stack top's is moved to the front; an E on an empty
 *     stack or whose name differs from the top's is ignored; an E whose
 *     name matches closes the top even if the args differ;
 *   - frames still open at the end close at the last recorded time.
 * A frame's key is its name (or "(unnamed)"), then, when the event has
 * args, a space and the args as compact JSON.
 *
 * Pure: no I/O, no store. Times are in the trace's unit (microseconds).
 */
#ifndef ARIADNE_TRACE_STACKS_H
#define ARIADNE_TRACE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* One B, E or X event of a thread, as written in the file. */
typedef struct ari_trace_event {
    char phase;       /* 'B', 'E' or 'X' */
    const char *name; /* NULL when the event has no name */
    const char *args; /* compact JSON text, NULL when absent (or null/false/0/"") */
    double ts;
    double dur;       /* X only: dur, else tdur, else 0 */
} ari_trace_event;

/* A collapsed stack: frame names outermost first, joined by ";" ("" for
 * time with nothing open), and the time spent with exactly that call on
 * top. Consecutive samples of the same call merge; two calls of the same
 * frames stay apart, as in speedscope. */
typedef struct ari_trace_stack {
    char *stack;
    double weight;
} ari_trace_stack;

/* A distinct frame (by key), in order of first entry. The time with the
 * frame on top (self) and anywhere on the stack, counted once (total). */
typedef struct ari_trace_frame {
    char *key, *name;
    double self, total;
} ari_trace_frame;

typedef struct ari_trace_stacks {
    ari_trace_stack *stacks;
    size_t nstacks;
    ari_trace_frame *frames;
    size_t nframes;
    int64_t ignored_ends;   /* E events that closed nothing */
    int64_t closed_at_end;  /* frames still open at the end */
} ari_trace_stacks;

/* Builds the stacks of one thread from its B/E/X events (any order, as in
 * the file). name_only: frames are named by the event name alone (the key
 * still holds the args), as speedscope does for Hermes profiles (which the
 * caller recognises: ingest/chrome_trace_hermes.h; args are only copied
 * here, never parsed). Returns 0,
 * or -1 with err set; out must be freed with ari_trace_stacks_free either
 * way. */
int ari_trace_stacks_from_events(const ari_trace_event *ev, size_t n, int name_only, ari_trace_stacks *out,
                                 ari_error *err);

/* A stackFrames entry of a sampled trace: its id, name, category and
 * parent id (NULL or "0" for a root). The frame key is "name:category". */
typedef struct ari_trace_stack_frame {
    const char *id, *name, *category, *parent;
} ari_trace_stack_frame;

/* A sample of one thread: time and the id of its leaf stack frame. */
typedef struct ari_trace_sample {
    double ts;
    const char *sf;
} ari_trace_sample;

/* Builds the stacks of one thread from its samples in file order: each
 * sample weighs the time to the next one (the last weighs 0). Fails on an
 * unknown frame id, a parent cycle or samples going back in time. */
int ari_trace_stacks_from_samples(const ari_trace_sample *samples, size_t n, const ari_trace_stack_frame *frames,
                                  size_t nframes, ari_trace_stacks *out, ari_error *err);

void ari_trace_stacks_free(ari_trace_stacks *out);

#endif
