/* fuzz_sink.h: an ari_sink that only counts what it is given (touching
 * every string, so a dangling pointer is caught by ASan), shared by the
 * fuzz targets of the readers that report to a sink (paje, chrome slices). */
#ifndef ARIADNE_FUZZ_SINK_H
#define ARIADNE_FUZZ_SINK_H

#include <stddef.h>
#include <string.h>

#include "ingest/sink.h"

static size_t counted;

static int count_type(void *ctx, const ari_type_def *t) { (void)ctx; counted += strlen(t->name); return 0; }
static int count_container(void *ctx, const ari_container *c) { (void)ctx; counted += strlen(c->name); return 0; }
static int count_container_end(void *ctx, const char *a, double e) { (void)ctx; (void)e; counted += strlen(a); return 0; }
static int count_state(void *ctx, const ari_state *s)
{
    (void)ctx;
    counted += strlen(s->value) + (size_t)s->depth;
    for (size_t i = 0; i < s->nfields; i++)
        counted += strlen(s->fields[i].name) + strlen(s->fields[i].value);
    return 0;
}
static int count_variable(void *ctx, const ari_variable *v) { (void)ctx; counted += v->value > 0; return 0; }
static int count_link(void *ctx, const ari_link *l)
{
    (void)ctx;
    counted += strlen(l->key) + strlen(l->start_container) + strlen(l->end_container);
    for (size_t i = 0; i < l->nfields; i++)
        counted += strlen(l->fields[i].value);
    return 0;
}
static int count_event(void *ctx, const ari_event *e) { (void)ctx; counted += strlen(e->value); return 0; }

static const ari_sink fuzz_counting_sink = {NULL, count_type, count_container, count_container_end, count_state,
                                            count_variable, count_link, count_event, NULL};

#endif
