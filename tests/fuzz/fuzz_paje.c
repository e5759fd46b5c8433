/* fuzz_paje.c: libFuzzer target for the Paje reader (and the line reader).
 *
 * Each input is written to a private temporary file (the reader takes a
 * path and needs a seekable file for its second pass) and read with a sink
 * that only counts, in strict mode or not and with or without incomplete
 * links depending on the input's length. Any crash, leak, hang or sanitizer
 * report is a bug; a clean error is fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/paje.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_paje.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    ari_paje_report report; /* every other size: a cut last line is tolerated */
    ari_paje_options opt = {(int)(size & 1), (int)((size >> 1) & 1), (size >> 2) & 1 ? &report : NULL};
    ari_sink sink = {NULL, count_type, count_container, count_container_end, count_state,
                     count_variable, count_link, count_event, NULL};
    ari_error err;
    ari_paje_read(path, "fuzz", &opt, &sink, &err);
    unlink(path);
    return 0;
}
