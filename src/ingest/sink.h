/* sink.h: the interface between trace readers and whatever consumes them.
 *
 * A reader (paje.c, starpu_rec.c, ...) streams its input and calls the
 * callbacks below; it never touches SQLite. The store provides one sink
 * that writes rows inside a single transaction (store_sink.c); tests
 * provide sinks that print or count. Every callback returns 0 to go on, or
 * non-zero to abort the read (the reader then returns that error).
 *
 * Strings passed to callbacks are only valid during the call: copy them if
 * they must outlive it. Times are in the trace's own unit (seconds for
 * generic Paje, milliseconds for StarPU), as doubles.
 *
 * Paje-level callbacks follow pj_dump's model: an entity is reported once,
 * complete, when it ends (a state when it is popped, replaced or its
 * container is destroyed or the trace ends; a variable once per constant
 * piece; a link when both its ends are known).
 */
#ifndef ARIADNE_SINK_H
#define ARIADNE_SINK_H

#include <stddef.h>

/* User-defined (extra) fields of a Paje event, in definition order. */
typedef struct ari_field {
    const char *name;
    const char *value;
} ari_field;

typedef enum ari_nature {
    ARI_NATURE_CONTAINER = 0,
    ARI_NATURE_STATE,
    ARI_NATURE_VARIABLE,
    ARI_NATURE_LINK,
    ARI_NATURE_EVENT,
    ARI_NATURE_VALUE
} ari_nature;

/* A type definition (container, state, variable, link or event type) or an
 * entity value. `parent` is the alias of the enclosing container type (or of
 * the entity type, for a value); "0" is the root. For link types,
 * start_type/end_type are the container types of the two ends. */
typedef struct ari_type_def {
    ari_nature nature;
    const char *alias;
    const char *name;
    const char *parent;
    const char *start_type; /* links only, else NULL */
    const char *end_type;   /* links only, else NULL */
    const char *color;      /* "r g b" in 0..1, or NULL */
} ari_type_def;

typedef struct ari_container {
    const char *alias;
    const char *name;
    const char *type;   /* container type alias */
    const char *parent; /* parent container alias, "0" for the root */
    double start;
    double end;         /* destroy time, or the trace end */
} ari_container;

typedef struct ari_state {
    const char *container;
    const char *type;
    const char *value;
    double start;
    double end;
    int depth;          /* imbrication: 0 for the bottom of the stack */
    const ari_field *fields;
    size_t nfields;
} ari_state;

typedef struct ari_variable {
    const char *container;
    const char *type;
    double start;
    double end;
    double value;
} ari_variable;

typedef struct ari_link {
    const char *container;
    const char *type;
    const char *value;
    const char *start_container;
    const char *end_container;
    const char *key;
    double start;
    double end;
    const ari_field *fields;
    size_t nfields;
} ari_link;

typedef struct ari_event {
    const char *container;
    const char *type;
    const char *value;
    double time;
    const ari_field *fields;
    size_t nfields;
} ari_event;

typedef struct ari_sink {
    void *ctx;
    int (*on_type)(void *ctx, const ari_type_def *t);
    /* Containers are reported when created (end unknown: end = start) and
     * again through on_container_end when destroyed or at the trace end. */
    int (*on_container)(void *ctx, const ari_container *c);
    int (*on_container_end)(void *ctx, const char *alias, double end);
    int (*on_state)(void *ctx, const ari_state *s);
    int (*on_variable)(void *ctx, const ari_variable *v);
    int (*on_link)(void *ctx, const ari_link *l);
    int (*on_event)(void *ctx, const ari_event *e);
    /* Progress: bytes of input consumed so far and the total (0 if unknown).
     * Called now and then; may be NULL. */
    void (*on_progress)(void *ctx, double done, double total);
} ari_sink;

#endif
