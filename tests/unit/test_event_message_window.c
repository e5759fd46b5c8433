/* test_event_message_window.c: the timeline's messages counted, listed
 * and bundled in C (store/event_message_window.c) against SQLite's
 * count(DISTINCT) and GROUP BY over ev_messages rows (the statements
 * event_queries.c ran before the messages were packed in chunks, kept
 * here as the reference) on random messages (ties in send time, pairs of
 * containers with several ranks, zero-length and long messages, matched
 * in an order other than their send times), for random windows, bucket
 * counts and limits: the same entries in the same order, every number
 * bit for bit; from a window's own read (ari_emw_load), from a whole
 * trace's (ari_emw_load_trace, the cache's) and streamed
 * (ari_evq_window_count, ari_evq_window_messages), each from the message
 * chunks (trace 6) and from ev_messages rows (trace 5, as imported before
 * sql/018). Also the filter on pairs of containers and the bound on the
 * messages read. */
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

#include "store/event_message_window.h"
#include "store/event_queries.h"
#include "store/message_chunks.h"
#include "store/store.h"
#include "test_helpers.h"
#include "test_rng.h"
#include "util/fs.h"

#define NMSG 3000

typedef struct entries {
    ari_ec_message m[NMSG];
    int64_t count[NMSG];
    int n;
} entries;

static int collect(void *ctx, const ari_ec_message *m, int64_t count)
{
    entries *e = ctx;
    if (e->n >= NMSG)
        return 7;
    e->m[e->n] = *m;
    e->count[e->n++] = count;
    return 0;
}

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%.200s: %s", sql, msg);
}

/* Random messages of trace 5 (ev_messages rows) between 6 containers;
 * span_max recorded; trace 6 the same messages packed (pack). */
static ari_ec_message filled[NMSG];

static void fill(const char *db_path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    exec_sql(db, "BEGIN");
    double span = 0;
    char sql[512];
    for (int k = 0; k < NMSG; k++) {
        int src = 100 + (int)(rng_uniform() * 6), dst = 100 + (int)(rng_uniform() * 6);
        double send = floor(rng_uniform() * 2000) / 4 + (k % 7 == 0 ? 0 : rng_uniform() * 1e-3);
        double len = rng_uniform() < 0.1 ? 0 : rng_uniform() < 0.05 ? 150 : rng_uniform() * 3;
        span = fmax(span, len);
        snprintf(
            sql, sizeof sql,
            "INSERT INTO ev_messages(trace_id, src_container, dst_container, src_rank, dst_rank, tag, comm,"
            " bytes, send_time, recv_time, seq) VALUES (5, %d, %d, %d, %d, 1, 0, %d, %.17g, %.17g, %d)",
            src, dst, src - 100 + (int)(rng_uniform() * 2), dst - 100, (int)(rng_uniform() * 100000),
            send + 1e9, send + len + 1e9, k);
        exec_sql(db, sql);
        filled[k] = (ari_ec_message){.src_container = src, .dst_container = dst, .tag = 1};
    }
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT src_rank, dst_rank, bytes, send_time, recv_time FROM ev_messages"
                                        " WHERE trace_id = 5 AND seq = ?1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int k = 0; k < NMSG; k++) {
        sqlite3_bind_int(st, 1, k);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        filled[k].src_rank = sqlite3_column_int(st, 0);
        filled[k].dst_rank = sqlite3_column_int(st, 1);
        filled[k].bytes = sqlite3_column_int64(st, 2);
        filled[k].send_time = sqlite3_column_double(st, 3);
        filled[k].recv_time = sqlite3_column_double(st, 4);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql,
             "INSERT INTO traces(id, name, kind, format, time_unit, summary_json) VALUES"
             " (5, 'e', 'events', 'otf2', 'ns', '{\"message_span_max\":%.17g}'),"
             " (6, 'e', 'events', 'otf2', 'ns', '{\"message_span_max\":%.17g}')",
             span, span);
    exec_sql(db, sql);
    exec_sql(db, "COMMIT");
    sqlite3_close(db);
}

/* Trace 6: the messages of trace 5 in chunks, in seq order. */
static void pack(ari_store *s)
{
    ari_error err = {0};
    ari_message_packer *p = ari_message_packer_new(s, 6, &err);
    assert_non_null(p);
    for (int k = 0; k < NMSG; k++)
        assert_int_equal(ari_message_packer_add(p, &filled[k], &err), 0);
    assert_int_equal(ari_message_packer_finish(p, &err), 0);
    ari_message_packer_free(p);
}

/* ---- the reference: the statements over ev_messages rows ---- */

#define WINDOW_WHERE " WHERE trace_id = ?1 AND send_time <= ?3 AND send_time >= ?2 - ?5 AND recv_time >= ?2"

static sqlite3 *ref_db;

static sqlite3_stmt *ref_stmt(const char *sql, double t0, double t1, int buckets, int64_t limit)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ref_db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(ref_db));
    sqlite3_bind_int(st, 1, 5);
    sqlite3_bind_double(st, 2, t0);
    sqlite3_bind_double(st, 3, t1);
    sqlite3_bind_int(st, 4, buckets);
    sqlite3_stmt *span;
    assert_int_equal(sqlite3_prepare_v2(ref_db,
                                        "SELECT json_extract(summary_json, '$.message_span_max') FROM traces"
                                        " WHERE id = 5",
                                        -1, &span, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(span), SQLITE_ROW);
    sqlite3_bind_double(st, 5, sqlite3_column_double(span, 0));
    sqlite3_finalize(span);
    sqlite3_bind_int64(st, 6, limit > 0 ? limit : -1);
    return st;
}

static void ref_count(double t0, double t1, int64_t *n, int64_t *pairs)
{
    sqlite3_stmt *st = ref_stmt("SELECT count(*), count(DISTINCT src_container * 4294967296 + dst_container)"
                                " FROM ev_messages" WINDOW_WHERE,
                                t0, t1, 0, 0);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    *n = sqlite3_column_int64(st, 0);
    *pairs = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
}

static void ref_messages(double t0, double t1, int bundle, int buckets, int64_t limit, entries *e)
{
    sqlite3_stmt *st =
        bundle ? ref_stmt("SELECT src_container, dst_container, min(src_rank), min(dst_rank),"
                          " sum(bytes), avg(send_time), avg(recv_time), count(*) AS n,"
                          " max(0, min(?4 - 1, CAST((send_time - ?2) * ?4 / (?3 - ?2) AS INTEGER))) AS px"
                          " FROM ev_messages" WINDOW_WHERE
                          " GROUP BY px, src_container, dst_container ORDER BY n DESC, px, src_container,"
                          " dst_container LIMIT ?6",
                          t0, t1, buckets, limit)
               : ref_stmt("SELECT src_container, dst_container, src_rank, dst_rank, bytes, send_time, recv_time, 1"
                          " FROM ev_messages" WINDOW_WHERE " AND ?4 > 0 ORDER BY send_time LIMIT ?6",
                          t0, t1, buckets, limit);
    e->n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(e->n < NMSG);
        e->m[e->n] = (ari_ec_message){.src_container = sqlite3_column_int64(st, 0),
                                      .dst_container = sqlite3_column_int64(st, 1),
                                      .src_rank = sqlite3_column_int(st, 2),
                                      .dst_rank = sqlite3_column_int(st, 3),
                                      .bytes = sqlite3_column_int64(st, 4),
                                      .send_time = sqlite3_column_double(st, 5),
                                      .recv_time = sqlite3_column_double(st, 6)};
        e->count[e->n++] = sqlite3_column_int64(st, 7);
    }
    sqlite3_finalize(st);
}

static void assert_same(const entries *a, const entries *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        const ari_ec_message *x = &a->m[i], *y = &b->m[i];
        assert_int_equal(x->src_container, y->src_container);
        assert_int_equal(x->dst_container, y->dst_container);
        assert_int_equal(x->src_rank, y->src_rank);
        assert_int_equal(x->dst_rank, y->dst_rank);
        assert_int_equal(x->bytes, y->bytes);
        assert_int_equal(a->count[i], b->count[i]);
        if (x->send_time != y->send_time || x->recv_time != y->recv_time)
            fail_msg("entry %d: times %.17g %.17g, SQLite %.17g %.17g", i, x->send_time, x->recv_time,
                     y->send_time, y->recv_time);
    }
}

/* One window compared every way (list l, streamed from trace 5's rows and
 * from trace 6's chunks) with the reference. */
static void compare(ari_store *s, const ari_emw_list *l, double t0, double t1, int bundle, int buckets,
                    int64_t limit)
{
    static entries mine, ref;
    ari_error err = {0};
    ari_emw_window w;
    assert_int_equal(ari_emw_window_of(l, t0, t1, NULL, &w, &err), 0);
    int64_t total, pairs;
    ref_count(t0, t1, &total, &pairs);
    assert_int_equal(w.n, total);
    assert_int_equal(w.npairs, pairs);
    ref_messages(t0, t1, bundle, buckets, limit, &ref);
    mine.n = 0;
    assert_int_equal(bundle ? ari_emw_bundles(&w, buckets, limit, collect, &mine, &err)
                            : ari_emw_each(&w, collect, &mine),
                     0);
    assert_same(&mine, &ref);
    for (int64_t id = 5; id <= 6; id++) {
        int64_t n, np;
        assert_int_equal(ari_evq_window_count(s, id, t0, t1, &n, &np, &err), 0);
        assert_int_equal(n, total);
        assert_int_equal(np, pairs);
        mine.n = 0;
        assert_int_equal(ari_evq_window_messages(s, id, t0, t1, bundle, buckets, limit, collect, &mine, &err), 0);
        assert_same(&mine, &ref);
    }
}

static void test_against_sqlite(void **unused)
{
    (void)unused;
    char *dir = test_tmpdir(), *db_path;
    assert_true(asprintf(&db_path, "%s/t.db", dir) > 0);
    ari_error err = {0};
    ari_store *s = ari_store_open(db_path, &err);
    assert_non_null(s);
    rng_state = 4242;
    fill(db_path);
    pack(s);
    assert_int_equal(sqlite3_open(db_path, &ref_db), SQLITE_OK);
    ari_emw_list all, rows;
    assert_int_equal(ari_emw_load_trace(s, 6, ARI_EMW_MAX_MESSAGES, &all, &err), 0);
    assert_int_equal(all.n, NMSG);
    assert_int_equal(ari_emw_load_trace(s, 5, ARI_EMW_MAX_MESSAGES, &rows, &err), 0);
    assert_int_equal(rows.n, NMSG);
    assert_int_equal(rows.npairs, all.npairs);
    assert_memory_equal(rows.pairs, all.pairs, (size_t)all.npairs * sizeof *all.pairs);
    for (int64_t i = 0; i < all.n; i++) {
        const ari_emw_message *x = &rows.msgs[i], *y = &all.msgs[i];
        assert_true(x->send == y->send && x->recv == y->recv && x->bytes == y->bytes && x->pair == y->pair &&
                    x->src_rank == y->src_rank && x->dst_rank == y->dst_rank);
    }
    ari_emw_free(&rows);
    for (int round = 0; round < 120; round++) {
        double a = 1e9 + rng_uniform() * 520 - 10, b = a + (round % 4 == 0 ? 600 : rng_uniform() * 60);
        int bundle = round % 3 != 0, buckets = 1 + (int)(rng_uniform() * (round % 2 ? 8 : 400));
        int64_t limit = round % 5 == 0 ? 0 : 1 + (int64_t)(rng_uniform() * 200);
        compare(s, &all, a, b, bundle, buckets, bundle ? limit : 0);
        ari_emw_list one;
        assert_int_equal(ari_emw_load(s, 5 + round % 2, a, b, ARI_EMW_MAX_MESSAGES, &one, &err), 0);
        compare(s, &one, a, b, bundle, buckets, bundle ? limit : 0);
        ari_emw_free(&one);
    }
    /* only the pairs between containers 100..102: against a plain count */
    const int64_t ids[] = {100, 101, 102};
    unsigned char *keep = ari_emw_keep_pairs(&all, ids, 3);
    assert_non_null(keep);
    for (int round = 0; round < 30; round++) {
        double a = 1e9 + rng_uniform() * 500, b = a + rng_uniform() * 100;
        ari_emw_window w;
        assert_int_equal(ari_emw_window_of(&all, a, b, keep, &w, &err), 0);
        int64_t want = 0;
        for (int64_t i = 0; i < all.n; i++) {
            const ari_emw_message *x = &all.msgs[i];
            want += x->send <= b && x->send >= a - all.span && x->recv >= a && all.pairs[x->pair][0] <= 102 &&
                    all.pairs[x->pair][1] <= 102;
        }
        assert_int_equal(w.n, want);
        static entries e;
        e.n = 0;
        assert_int_equal(ari_emw_bundles(&w, 5, 0, collect, &e, &err), 0);
        int64_t sum = 0;
        for (int i = 0; i < e.n; i++) {
            sum += e.count[i];
            assert_true(e.m[i].src_container <= 102 && e.m[i].dst_container <= 102);
        }
        assert_int_equal(sum, want);
    }
    free(keep);
    /* more than max: nothing kept */
    ari_emw_list few;
    assert_int_equal(ari_emw_load_trace(s, 5, 10, &few, &err), 1);
    assert_int_equal(few.n, 0);
    assert_null(few.msgs);
    assert_int_equal(ari_emw_load(s, 5, 0, 3e9, 10, &few, &err), 1);
    assert_int_equal(ari_emw_load_trace(s, 6, 10, &few, &err), 1);
    assert_int_equal(few.n, 0);
    assert_int_equal(ari_emw_load(s, 6, 0, 3e9, 10, &few, &err), 1);
    /* a callback's answer stops the listing */
    ari_emw_window w;
    assert_int_equal(ari_emw_window_of(&all, 0, 3e9, NULL, &w, &err), 0);
    assert_int_equal(w.n, NMSG);
    static entries e;
    e.n = NMSG; /* full: collect answers 7 */
    assert_int_equal(ari_emw_each(&w, collect, &e), 7);
    assert_int_equal(ari_emw_bundles(&w, 3, 0, collect, &e, &err), 7);
    ari_emw_free(&all);
    sqlite3_close(ref_db);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
    free(db_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_sqlite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
