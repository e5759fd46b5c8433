/* test_event_message_window.c: the timeline's messages counted, listed
 * and bundled in C (store/event_message_window.c) against SQLite's
 * count(DISTINCT) and GROUP BY (event_queries.c: ari_evq_window_count,
 * ari_evq_window_messages) on random messages (ties in send time, pairs
 * of containers with several ranks, zero-length and long messages), for
 * random windows, bucket counts and limits: the same entries in the same
 * order, every number bit for bit; both from a window's own read
 * (ari_emw_load) and from a whole trace's (ari_emw_load_trace, the
 * cache's). Also the filter on pairs of containers and the bound on the
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

/* Random messages of trace 5 between 6 containers; span_max recorded. */
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
    }
    snprintf(sql, sizeof sql,
             "INSERT INTO traces(id, name, kind, format, time_unit, summary_json) VALUES"
             " (5, 'e', 'events', 'otf2', 'ns', '{\"message_span_max\":%.17g}')",
             span);
    exec_sql(db, sql);
    exec_sql(db, "COMMIT");
    sqlite3_close(db);
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

/* One window compared both ways, through list l. */
static void compare(ari_store *s, const ari_emw_list *l, double t0, double t1, int bundle, int buckets,
                    int64_t limit)
{
    static entries mine, sql;
    ari_error err = {0};
    ari_emw_window w;
    assert_int_equal(ari_emw_window_of(l, t0, t1, NULL, &w, &err), 0);
    int64_t total, pairs;
    assert_int_equal(ari_evq_window_count(s, 5, t0, t1, &total, &pairs, &err), 0);
    assert_int_equal(w.n, total);
    assert_int_equal(w.npairs, pairs);
    mine.n = sql.n = 0;
    assert_int_equal(ari_evq_window_messages(s, 5, t0, t1, bundle, buckets, limit, collect, &sql, &err), 0);
    assert_int_equal(bundle ? ari_emw_bundles(&w, buckets, limit, collect, &mine, &err)
                            : ari_emw_each(&w, collect, &mine),
                     0);
    assert_same(&mine, &sql);
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
    ari_emw_list all;
    assert_int_equal(ari_emw_load_trace(s, 5, ARI_EMW_MAX_MESSAGES, &all, &err), 0);
    assert_int_equal(all.n, NMSG);
    for (int round = 0; round < 120; round++) {
        double a = 1e9 + rng_uniform() * 520 - 10, b = a + (round % 4 == 0 ? 600 : rng_uniform() * 60);
        int bundle = round % 3 != 0, buckets = 1 + (int)(rng_uniform() * (round % 2 ? 8 : 400));
        int64_t limit = round % 5 == 0 ? 0 : 1 + (int64_t)(rng_uniform() * 200);
        compare(s, &all, a, b, bundle, buckets, bundle ? limit : 0);
        ari_emw_list one;
        assert_int_equal(ari_emw_load(s, 5, a, b, ARI_EMW_MAX_MESSAGES, &one, &err), 0);
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
    /* a callback's answer stops the listing */
    ari_emw_window w;
    assert_int_equal(ari_emw_window_of(&all, 0, 3e9, NULL, &w, &err), 0);
    assert_int_equal(w.n, NMSG);
    static entries e;
    e.n = NMSG; /* full: collect answers 7 */
    assert_int_equal(ari_emw_each(&w, collect, &e), 7);
    assert_int_equal(ari_emw_bundles(&w, 3, 0, collect, &e, &err), 7);
    ari_emw_free(&all);
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
