/* test_message_chunks.c: the packed messages of an event trace
 * (store/message_chunks.c): the record's little-endian layout and its
 * bounds, the malformed blobs a read refuses, and reads against brute
 * force over a plain list: random messages matched out of send order
 * (ties in send time, several chunks, a last partial one), random windows
 * including their edges, streamed and in send order with caps small
 * enough to slice (and one instant holding more than the cap), for a
 * packed trace, for a trace of ev_messages rows (imported before sql/018)
 * and for a trace without messages. */
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

#include "store/message_chunks.h"
#include "store/store.h"
#include "test_helpers.h"
#include "test_rng.h"

#define NMSG 5000 /* three chunks, the last partial */

static void exec_sql(const char *db_path, const char *sql)
{
    sqlite3 *db;
    char *msg = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%.200s: %s", sql, msg);
    sqlite3_close(db);
}

static void test_record(void **unused)
{
    (void)unused;
    ari_error err = {0};
    ari_ec_message m = {.src_container = 0x01020304,
                        .dst_container = -7,
                        .src_rank = 5,
                        .dst_rank = -1,
                        .src_thread = 9,
                        .dst_thread = 9,
                        .tag = -1,
                        .comm = 0x1122334455667788LL,
                        .bytes = 48,
                        .send_time = 1.5,
                        .recv_time = -0.0};
    unsigned char rec[ARI_MESSAGE_RECORD_BYTES];
    assert_int_equal(ari_message_record_put(rec, &m, &err), 0);
    /* little-endian whatever the host */
    static const unsigned char head[] = {4, 3, 2, 1, 0xf9, 0xff, 0xff, 0xff,
                                         5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(rec, head, sizeof head);
    assert_int_equal(rec[24], 0x88);
    assert_int_equal(rec[31], 0x11);
    assert_int_equal(rec[32], 48);
    assert_int_equal(rec[47], 0x3f); /* 1.5 = 0x3ff8000000000000 */
    assert_int_equal(rec[46], 0xf8);
    ari_ec_message back;
    ari_message_record_get(rec, 0, &back);
    assert_int_equal(back.src_container, m.src_container);
    assert_int_equal(back.dst_container, -7);
    assert_int_equal(back.src_rank, 5);
    assert_int_equal(back.dst_rank, -1);
    assert_int_equal(back.src_thread, 0);
    assert_int_equal(back.tag, -1);
    assert_int_equal(back.comm, m.comm);
    assert_int_equal(back.bytes, 48);
    assert_true(back.send_time == 1.5 && back.recv_time == 0 && signbit(back.recv_time));
    /* containers beyond 32 bits are refused */
    m.src_container = (int64_t)1 << 32;
    assert_int_equal(ari_message_record_put(rec, &m, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    /* blob sizes */
    assert_int_equal(ari_message_blob_check(56, 1, &err), 0);
    assert_int_equal(ari_message_blob_check(56 * 2048, 2048, &err), 0);
    assert_int_equal(ari_message_blob_check(55, 1, &err), -1);
    assert_int_equal(ari_message_blob_check(112, 1, &err), -1);
    assert_int_equal(ari_message_blob_check(0, 0, &err), -1);
    assert_int_equal(ari_message_blob_check(56 * 2049, 2049, &err), -1);
    assert_int_equal(ari_message_blob_check(-56, -1, &err), -1);
}

/* ---- reads against brute force ---- */

static ari_ec_message msgs[NMSG];

typedef struct seen {
    int64_t seq[NMSG + 1];
    ari_ec_message m[NMSG + 1];
    int n;
    int stop_at; /* answer 9 at this call (0: never) */
} seen;

static int collect(void *ctx, int64_t seq, const ari_ec_message *m)
{
    seen *s = ctx;
    assert_true(s->n < NMSG + 1);
    s->seq[s->n] = seq;
    s->m[s->n++] = *m;
    return s->n == s->stop_at ? 9 : 0;
}

static int kept(const ari_mc_filter *f, const ari_ec_message *m)
{
    return m->send_time >= f->send_lo && m->send_time <= f->send_hi && m->recv_time >= f->recv_lo;
}

static int by_seq(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What a read of f must yield: seqs in send-time order (ties by seq). */
static int expected(const ari_mc_filter *f, int64_t *want)
{
    int n = 0;
    for (int k = 0; k < NMSG; k++)
        if (kept(f, &msgs[k]))
            want[n++] = k;
    for (int i = 1; i < n; i++) /* insertion sort by (send, seq) */
        for (int j = i; j > 0 && (msgs[want[j - 1]].send_time > msgs[want[j]].send_time); j--) {
            int64_t t = want[j];
            want[j] = want[j - 1];
            want[j - 1] = t;
        }
    return n;
}

static void assert_message(const ari_ec_message *a, const ari_ec_message *b)
{
    assert_int_equal(a->src_container, b->src_container);
    assert_int_equal(a->dst_container, b->dst_container);
    assert_int_equal(a->src_rank, b->src_rank);
    assert_int_equal(a->dst_rank, b->dst_rank);
    assert_int_equal(a->tag, b->tag);
    assert_int_equal(a->comm, b->comm);
    assert_int_equal(a->bytes, b->bytes);
    assert_true(a->send_time == b->send_time && a->recv_time == b->recv_time);
}

/* Every way of reading f from trace id against brute force. */
static void check(ari_store *s, int64_t id, const ari_mc_filter *f, int64_t cap)
{
    static int64_t want[NMSG];
    static seen got;
    ari_error err = {0};
    int n = expected(f, want);
    got.n = got.stop_at = 0;
    assert_int_equal(ari_message_chunks_each(s, id, f, 1, cap, collect, &got, &err), 0);
    assert_int_equal(got.n, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(got.seq[i], want[i]);
        assert_message(&got.m[i], &msgs[want[i]]);
    }
    got.n = 0;
    assert_int_equal(ari_message_chunks_each(s, id, f, 0, 0, collect, &got, &err), 0);
    assert_int_equal(got.n, n);
    for (int i = 0; i < n; i++)
        assert_message(&got.m[i], &msgs[got.seq[i]]);
    qsort(got.seq, (size_t)n, sizeof *got.seq, by_seq);
    qsort(want, (size_t)n, sizeof *want, by_seq);
    assert_memory_equal(got.seq, want, (size_t)n * sizeof *want);
    if (n > 2) { /* a callback's answer stops the read */
        got.n = 0;
        got.stop_at = 2;
        assert_int_equal(ari_message_chunks_each(s, id, f, 1, cap, collect, &got, &err), 9);
        assert_int_equal(got.n, 2);
        got.n = 0;
        assert_int_equal(ari_message_chunks_each(s, id, f, 0, 0, collect, &got, &err), 9);
        assert_int_equal(got.n, 2);
    }
}

static void fill(ari_store *s, const char *db_path)
{
    exec_sql(db_path,
             "INSERT INTO traces(id, name, kind, format, time_unit) VALUES (1, 'packed', 'events',"
             " 'otf2', 'ns'), (2, 'rows', 'events', 'otf2', 'ns'), (3, 'none', 'events', 'otf2', 'ns')");
    for (int k = 0; k < NMSG; k++) {
        double send = floor(rng_uniform() * 400) + (k % 3 ? rng_uniform() : 0); /* ties */
        msgs[k] = (ari_ec_message){.src_container = 10 + (int)(rng_uniform() * 8),
                                   .dst_container = 10 + (int)(rng_uniform() * 8),
                                   .src_rank = (int)(rng_uniform() * 8),
                                   .dst_rank = (int)(rng_uniform() * 8),
                                   .tag = k % 5 ? (int64_t)(rng_uniform() * 100) : -1,
                                   .comm = k % 7 ? 3 : -1,
                                   .bytes = (int64_t)(rng_uniform() * 1e6),
                                   .send_time = send,
                                   .recv_time = send + (k % 11  ? rng_uniform() * 5
                                                        : k % 2 ? 0
                                                                : 90)};
    }
    ari_error err = {0};
    ari_message_packer *p = ari_message_packer_new(s, 1, &err);
    assert_non_null(p);
    for (int k = 0; k < NMSG; k++)
        assert_int_equal(ari_message_packer_add(p, &msgs[k], &err), 0);
    assert_int_equal(ari_message_packer_finish(p, &err), 0);
    ari_message_packer_free(p);
    assert_int_equal(test_query_int(db_path, "SELECT count(*) FROM message_chunks WHERE trace_id = 1"), 3);
    assert_int_equal(test_query_int(db_path, "SELECT sum(n) FROM message_chunks WHERE trace_id = 1"), NMSG);
    assert_int_equal(test_query_int(db_path, "SELECT n FROM message_chunks WHERE trace_id = 1 AND chunk = 2"),
                     NMSG - 2 * ARI_MESSAGE_CHUNK);
    /* trace 2: the same as ev_messages rows */
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "INSERT INTO ev_messages(trace_id, seq, src_container, dst_container,"
                                        " src_rank, dst_rank, tag, comm, bytes, send_time, recv_time)"
                                        " VALUES (2, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int k = 0; k < NMSG; k++) {
        const ari_ec_message *m = &msgs[k];
        sqlite3_bind_int(st, 1, k);
        sqlite3_bind_int64(st, 2, m->src_container);
        sqlite3_bind_int64(st, 3, m->dst_container);
        sqlite3_bind_int(st, 4, m->src_rank);
        sqlite3_bind_int(st, 5, m->dst_rank);
        sqlite3_bind_int64(st, 6, m->tag);
        sqlite3_bind_int64(st, 7, m->comm);
        sqlite3_bind_int64(st, 8, m->bytes);
        sqlite3_bind_double(st, 9, m->send_time);
        sqlite3_bind_double(st, 10, m->recv_time);
        assert_int_equal(sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
}

static void test_reads(void **state)
{
    test_db *f = *state;
    ari_store *s = f->s;
    ari_error err = {0};
    rng_state = 77;
    fill(s, f->db_path);
    ari_mc_filter all = ari_mc_all();
    for (int64_t id = 1; id <= 2; id++) {
        check(s, id, &all, (int64_t)1 << 20);
        check(s, id, &all, 700); /* sliced */
        for (int round = 0; round < 60; round++) {
            double a = floor(rng_uniform() * 420) - 10, b = a + (round % 3 ? floor(rng_uniform() * 60) : 0);
            ari_mc_filter w = {round % 4 ? a : -HUGE_VAL, round % 5 ? b : HUGE_VAL,
                               round % 2 ? a : -HUGE_VAL}; /* edges: integer times are sends */
            check(s, id, &w, round % 2 ? 40 : 100000);
        }
    }
    /* the extent */
    double lo, hi, want_lo = HUGE_VAL, want_hi = -HUGE_VAL;
    for (int k = 0; k < NMSG; k++) {
        want_lo = fmin(want_lo, msgs[k].send_time);
        want_hi = fmax(want_hi, msgs[k].recv_time);
    }
    for (int64_t id = 1; id <= 2; id++) {
        assert_int_equal(ari_message_chunks_extent(s, id, &lo, &hi, &err), 0);
        assert_true(lo == want_lo && hi == want_hi);
    }
    /* a trace without messages */
    static seen got;
    got.n = 0;
    assert_int_equal(ari_message_chunks_each(s, 3, &all, 1, 10, collect, &got, &err), 0);
    assert_int_equal(ari_message_chunks_each(s, 3, &all, 0, 10, collect, &got, &err), 0);
    assert_int_equal(got.n, 0);
    assert_int_equal(ari_message_chunks_extent(s, 3, &lo, &hi, &err), 0);
    assert_true(isnan(lo) && isnan(hi));
    /* more messages sent at one instant than the cap */
    int64_t at0 = 0;
    for (int k = 0; k < NMSG; k++)
        at0 += msgs[k].send_time == 0;
    assert_true(at0 > 3);
    ari_mc_filter zero = {0, 0, -HUGE_VAL};
    assert_int_equal(ari_message_chunks_each(s, 1, &zero, 1, 3, collect, &got, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
}

/* A malformed chunk is an error, not a read past its blob. */
static void test_malformed(void **state)
{
    test_db *f = *state;
    ari_store *s = f->s;
    ari_error err = {0};
    static seen got;
    ari_mc_filter all = ari_mc_all();
    exec_sql(f->db_path, "INSERT INTO traces(id, name, kind, format, time_unit) VALUES (4, 'bad', 'events',"
                         " 'otf2', 'ns');"
                         "INSERT INTO message_chunks(trace_id, chunk, t0, t1, n, data) VALUES"
                         " (4, 0, 0, 10, 2, zeroblob(100))");
    for (int sorted = 0; sorted <= 1; sorted++) {
        got.n = 0;
        memset(&err, 0, sizeof err);
        assert_int_equal(ari_message_chunks_each(s, 4, &all, sorted, 100, collect, &got, &err), -1);
        assert_string_equal(err.code, ARI_E_DB);
        assert_int_equal(got.n, 0);
    }
    exec_sql(f->db_path, "UPDATE message_chunks SET n = 3000, data = zeroblob(3000 * 56) WHERE trace_id = 4");
    assert_int_equal(ari_message_chunks_each(s, 4, &all, 0, 0, collect, &got, &err), -1);
    assert_int_equal(got.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record),
        cmocka_unit_test_setup_teardown(test_reads, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_malformed, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
