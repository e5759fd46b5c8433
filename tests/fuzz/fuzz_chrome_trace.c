/* fuzz_chrome_trace.c: libFuzzer target for the Chrome trace reader
 * (src/ingest/chrome_trace.c): any input must give a result or a clear
 * error, never a crash, a leak or a hang. Slices, counters, flows and
 * metadata go to a sink that touches every field. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ingest/chrome_trace.h"

static size_t sink_bytes;

static int on_slice(void *ctx, const ari_chrome_slice *s)
{
    (void)ctx;
    sink_bytes += strlen(s->name) + strlen(s->cat) + strlen(s->pid) + strlen(s->tid) + (s->args_text != NULL);
    return 0;
}

static int on_counter(void *ctx, const char *pid, const char *name, const char *series, double ts, double v)
{
    (void)ctx, (void)ts, (void)v;
    sink_bytes += strlen(pid) + strlen(name) + strlen(series);
    return 0;
}

static int on_flow(void *ctx, const char *id, int64_t from, int64_t to)
{
    (void)ctx;
    sink_bytes += strlen(id) + (size_t)(from != to);
    return 0;
}

static int on_metadata(void *ctx, const ari_chrome_metadata *m)
{
    (void)ctx;
    sink_bytes += strlen(m->pid) + strlen(m->tid) + strlen(m->name) + (m->arg_name ? strlen(m->arg_name) : 0) +
                  (m->args_text ? strlen(m->args_text) : 0);
    return 0;
}

static int on_top(void *ctx, const char *key, const char *value)
{
    (void)ctx;
    sink_bytes += strlen(key) + strlen(value);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ari_chrome_sink k = {NULL, on_slice, on_counter, on_flow, on_metadata, on_top, NULL};
    ari_error err;
    memset(&err, 0, sizeof err);
    ari_chrome_read_buffer((const char *)data, size, "fuzz.json", &k, NULL, &err);
    return 0;
}
