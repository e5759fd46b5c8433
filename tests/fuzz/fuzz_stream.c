/* fuzz_stream.c: libFuzzer target for the live-run samples
 * (ingest/stream_records.c) and the live tensor they feed
 * (store/live_data.c). The first byte picks the framing and the reader:
 * 0 NDJSON from memory, 1 frames from memory, 2 NDJSON and 3 frames read
 * streaming from a FILE. A batch that parses is checked (handles in range,
 * parents before children, finite values, positive counts) and applied to
 * a live_data twice (the second time as duplicates), whose getters are
 * then walked. A clean error is fine; a crash, leak, hang or sanitizer
 * report is a bug. Seeds: tests/fixtures/fuzz/stream/ (see README.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/stream_records.h"
#include "store/live_data.h"

static void check_batch(const ari_stream_batch *b)
{
    for (size_t i = 0; i < b->nentities; i++)
        if (b->entities[i].parent >= (int32_t)i || !b->entities[i].name || !b->entities[i].level)
            abort();
    for (size_t i = 0; i < b->nvalues; i++)
        if (b->values[i].entity >= b->nentities || b->values[i].metric >= b->nmetrics || !isfinite(b->values[i].v))
            abort();
    for (size_t r = 0; r < b->nrecords; r++) {
        const ari_stream_record *rec = &b->records[r];
        if (!isfinite(rec->key) || rec->value0 + rec->nvalues > b->nvalues || rec->row0 + rec->nrows > b->nrows)
            abort();
    }
    for (size_t i = 0; i < b->nrows; i++) {
        const ari_stream_comm_row *row = &b->rows[i];
        if (row->src >= b->nentities || row->entry0 + row->nentries > b->ncomm)
            abort();
        for (size_t j = row->entry0; j < row->entry0 + row->nentries; j++)
            if (b->comm[j].dst >= b->nentities || !(b->comm[j].count > 0) || !isfinite(b->comm[j].count))
                abort();
    }
}

static void walk(ari_live_data *ld)
{
    size_t n = ari_live_data_n_points(ld), ne = ari_live_data_n_entities(ld), nm = ari_live_data_n_metrics(ld);
    const double *keys = ari_live_data_keys(ld);
    for (size_t t = 1; t < n; t++)
        if (!(keys[t - 1] < keys[t]))
            abort();
    double *col = malloc((ne ? ne : 1) * sizeof *col);
    if (!col)
        return;
    for (size_t m = 0; m < nm && n; m++)
        ari_live_data_column(ld, m, n - 1, NULL, ne, col);
    free(col);
    for (size_t t = 0; t < n; t++) {
        const int32_t *s, *d;
        const double *c;
        size_t k = ari_live_data_comm(ld, t, &s, &d, &c);
        for (size_t i = 0; i < k; i++)
            if (s[i] < 0 || (size_t)s[i] >= ne || d[i] < 0 || (size_t)d[i] >= ne || !(c[i] > 0))
                abort();
    }
    for (size_t e = 0; e < ne; e++) {
        const size_t *kids;
        size_t nk = ari_live_data_children(ld, (int64_t)e, &kids);
        for (size_t i = 0; i < nk; i++)
            if (kids[i] <= e || ari_live_data_entity_parent(ld, kids[i]) != (int64_t)e)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] & 3, frames = mode & 1;
    const char *body = (const char *)data + 1;
    size_t n = size - 1;
    ari_stream_batch b;
    ari_error err = {0};
    if (ari_stream_batch_init(&b, data[0] >> 4, &err) < 0)
        return 0;
    int rc;
    if (mode < 2) {
        rc = ari_stream_parse_buffer(&b, body, n, frames, &err);
    } else {
        FILE *f = fmemopen((void *)body, n ? n : 1, "rb");
        if (!f) {
            ari_stream_batch_free(&b);
            return 0;
        }
        if (!n)
            fgetc(f); /* an empty body: fmemopen needs a byte; skip it */
        rc = ari_stream_parse_file(&b, f, frames, &err);
        fclose(f);
    }
    if (rc == 0) {
        check_batch(&b);
        ari_live_data *ld = ari_live_data_new(&err);
        if (ld) {
            if (ari_live_data_apply(ld, &b, 0, NULL, &err) == 0)
                ari_live_data_apply(ld, &b, 0, NULL, &err);
            walk(ld);
            ari_live_data_free(ld);
        }
    } else if (!err.code[0]) {
        abort(); /* a failure always says why */
    }
    ari_stream_batch_free(&b);
    return 0;
}
