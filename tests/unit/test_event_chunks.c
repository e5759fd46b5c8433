/* test_event_chunks.c: the packed events of a trace
 * (store/event_chunks.c): random events of several containers (with and
 * without fields, chunks cut by count and by bytes) read back whole and
 * by time window against brute force,
 * the record's little-endian layout, and malformed blobs (a record past
 * the end, a count that is not the records', trailing bytes) refused
 * with an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/event_chunks.h"
#include "store/store.h"
#include "test_helpers.h"
#include "test_rng.h"

#define NEV 6000

typedef struct ev {
    ari_packed_event e;
    char fields[96];
} ev;

static ev evs[NEV];

typedef struct seen {
    int64_t seq[NEV];
    int n;
    int bad; /* an event that is not its original */
} seen;

static int collect(void *ctx, const ari_packed_event *e)
{
    seen *s = ctx;
    if (e->seq < 0 || e->seq >= NEV) {
        s->bad++;
        return 0;
    }
    const ari_packed_event *o = &evs[e->seq].e;
    if (o->container != e->container || o->type_id != e->type_id || o->value_id != e->value_id ||
        o->time != e->time || o->fields_len != e->fields_len || (o->fields == NULL) != (e->fields == NULL) ||
        (o->fields && memcmp(o->fields, e->fields, e->fields_len) != 0))
        s->bad++;
    s->seq[s->n++] = e->seq;
    return 0;
}

static int by_seq(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void check(ari_store *s, int64_t container, double t0, double t1)
{
    static seen got;
    static int64_t want[NEV];
    ari_error err = {0};
    int n = 0;
    for (int k = 0; k < NEV; k++)
        if ((container <= 0 || evs[k].e.container == container) && evs[k].e.time >= t0 && evs[k].e.time <= t1)
            want[n++] = k;
    got.n = got.bad = 0;
    assert_int_equal(ari_event_chunks_each(s, 1, container, t0, t1, collect, &got, &err), 0);
    assert_int_equal(got.bad, 0);
    assert_int_equal(got.n, n);
    /* container by container, each in writing order */
    for (int i = 1; i < got.n; i++) {
        const ari_packed_event *a = &evs[got.seq[i - 1]].e, *b = &evs[got.seq[i]].e;
        assert_true(a->container < b->container ||
                    (a->container == b->container && got.seq[i - 1] < got.seq[i]));
    }
    qsort(got.seq, (size_t)got.n, sizeof *got.seq, by_seq);
    assert_memory_equal(got.seq, want, (size_t)n * sizeof *want);
}

static void test_pack_and_read(void **state)
{
    test_db *f = *state;
    ari_store *s = f->s;
    ari_error err = {0};
    rng_state = 99;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "INSERT INTO traces(id, name, kind, format, time_unit) VALUES"
                                  " (1, 'e', 'events', 'otf2', 'ns')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    ari_event_packer *p = ari_event_packer_new(s, 1, &err);
    assert_non_null(p);
    for (int k = 0; k < NEV; k++) {
        ev *v = &evs[k];
        /* container 5 gets most, with long fields: chunks cut by bytes */
        int64_t c = k % 4 ? 5 : 2 + (int64_t)(rng_uniform() * 3);
        v->e = (ari_packed_event){
            k, c, 6, 1 + (int32_t)(rng_uniform() * 9), floor(rng_uniform() * 1000) / 4, NULL, 0};
        if (k % 3) {
            int len = snprintf(v->fields, sizeof v->fields, "{\"bytes_sent\":\"%d\",\"root\":\"%d\"}%.*s", k,
                               k % 5, c == 5 ? 40 : 0, "........................................");
            v->e.fields = v->fields;
            v->e.fields_len = (size_t)len;
        }
        assert_int_equal(ari_event_packer_add(p, &v->e, &err), 0);
    }
    assert_int_equal(ari_event_packer_finish(p, &err), 0);
    ari_event_packer_free(p);
    assert_int_equal(test_query_int(f->db_path, "SELECT sum(n) FROM event_chunks"), NEV);
    assert_true(test_query_int(f->db_path, "SELECT max(n) FROM event_chunks") <= ARI_EVENT_CHUNK);
    assert_true(test_query_int(f->db_path, "SELECT max(length(data)) FROM event_chunks") <=
                ARI_EVENT_CHUNK_BYTES);
    assert_true(test_query_int(f->db_path, "SELECT count(*) FROM event_chunks WHERE container_id = 5") > 4);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM event_chunks WHERE t0 > t1"), 0);
    check(s, 0, -HUGE_VAL, HUGE_VAL);
    check(s, 5, -HUGE_VAL, HUGE_VAL);
    check(s, 3, 10, 10);
    check(s, 9, -HUGE_VAL, HUGE_VAL); /* none */
    for (int round = 0; round < 40; round++) {
        double a = floor(rng_uniform() * 1000) / 4, b = a + floor(rng_uniform() * 80) / 4;
        check(s, round % 3 ? 0 : 2 + round % 4, a, b);
    }
}

static int count(void *ctx, const ari_packed_event *e)
{
    (void)e;
    ++*(int *)ctx;
    return 0;
}

static void test_record(void **unused)
{
    (void)unused;
    ari_error err = {0};
    /* one record: seq 0x0102, type 3, value -1, time 1.5, fields "{}" */
    unsigned char rec[ARI_EVENT_RECORD_HEAD + 2] = {0x02, 0x01, 0,    0,    0,    0,    0, 0, 3,   0,
                                                    0,    0,    0xff, 0xff, 0xff, 0xff, 0, 0, 0,   0,
                                                    0,    0,    0xf8, 0x3f, 2,    0,    0, 0, '{', '}'};
    int n = 0;
    assert_int_equal(ari_event_blob_each(rec, sizeof rec, 1, 7, count, &n, &err), 0);
    assert_int_equal(n, 1);
    /* cut inside the fields, inside the head, or with bytes left over */
    n = 0;
    assert_int_equal(ari_event_blob_each(rec, sizeof rec - 1, 1, 7, count, &n, &err), -1);
    assert_string_equal(err.code, ARI_E_DB);
    assert_int_equal(ari_event_blob_each(rec, 20, 1, 7, count, &n, &err), -1);
    assert_int_equal(n, 0);
    assert_int_equal(ari_event_blob_each(rec, sizeof rec, 2, 7, count, &n, &err), -1);
    unsigned char two[sizeof rec + 3];
    memcpy(two, rec, sizeof rec);
    memset(two + sizeof rec, 0, 3);
    assert_int_equal(ari_event_blob_each(two, sizeof two, 1, 7, count, &n, &err), -1);
    /* a fields length past the end */
    rec[24] = 0xff;
    rec[27] = 0x7f;
    assert_int_equal(ari_event_blob_each(rec, sizeof rec, 1, 7, count, &n, &err), -1);
    assert_int_equal(ari_event_blob_each(rec, sizeof rec, 0, 7, count, &n, &err), -1);
    assert_int_equal(ari_event_blob_each(NULL, 0, 1, 7, count, &n, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record),
        cmocka_unit_test_setup_teardown(test_pack_and_read, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
