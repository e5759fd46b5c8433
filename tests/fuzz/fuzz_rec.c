/* fuzz_rec.c: libFuzzer target for the task-file readers: the GNU recfile
 * reader (rec.c), the CSV reader (csv.c) and the DOT reader (dot.c), all
 * over the line reader (input.c).
 *
 * Each input is written to a private temporary file and read by the three
 * readers in turn, touching every field they hand out. Any crash, leak,
 * hang or sanitizer report is a bug; a clean error is fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/csv.h"
#include "ingest/dot.h"
#include "ingest/rec.h"

static size_t touched;

static void read_rec(const char *path)
{
    ari_error err;
    ari_rec *r = ari_rec_open(path, "fuzz.rec", &err);
    if (!r)
        return;
    const ari_field *f;
    size_t n;
    while (ari_rec_next(r, &f, &n, &err) == 1)
        for (size_t i = 0; i < n; i++)
            touched += strlen(f[i].name) + strlen(f[i].value);
    ari_rec_close(r);
}

static void read_csv(const char *path)
{
    ari_error err;
    ari_csv *c = ari_csv_open(path, "fuzz.csv", &err);
    if (!c)
        return;
    char **f;
    size_t n;
    while (ari_csv_next(c, &f, &n, &err) == 1)
        for (size_t i = 0; i < n; i++)
            touched += strlen(f[i]);
    ari_csv_close(c);
}

static int on_edge(void *ctx, const char *from, const char *to, const char *label)
{
    (void)ctx;
    touched += strlen(from) + strlen(to) + (label ? strlen(label) : 0);
    return 0;
}

static int on_node(void *ctx, const char *id, const char *label)
{
    (void)ctx;
    touched += strlen(id) + (label ? strlen(label) : 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_rec.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    read_rec(path);
    read_csv(path);
    ari_error err;
    ari_dot_callbacks cb = {NULL, on_edge, on_node};
    ari_dot_read(path, "fuzz.dot", &cb, &err);
    (void)ari_rec_probe((const char *)data, size);
    (void)ari_dot_probe((const char *)data, size);
    unlink(path);
    return 0;
}
