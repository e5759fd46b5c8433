/* test_event_profile.c: the function analyses of an event trace
 * (analysis/event_profile.h) against brute force on random nested calls:
 * flat profile (inclusive, exclusive, counts, Pipit's per-process mean),
 * the time profile computed the way Pipit's time_profile does it (each
 * call's time in the bin minus its children's), load imbalance, idle time
 * and caller-callee; the time profile's per-bin sum equal to bin duration
 * x locations when every location is always in some function; and the
 * store's streaming of the Function states (store/event_state_queries.h)
 * from a database filled here, whole and over a window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/event_profile.h"
#include "store/event_state_queries.h"
#include "store/store.h"
#include "test_helpers.h"
#include "test_rng.h"
#include "util/fs.h"

#define NNAMES   6
#define MAXCALLS 4000

typedef struct call {
    int loc, name, depth, parent;
    double start, end;
} call;

typedef struct world {
    int nlocs;
    int64_t rank[16];
    call c[MAXCALLS];
    int n;
} world;

/* Children of c[parent] inside [a, b], strictly inside so no zero-length
 * call sits on its parent's end (where start-then-depth order is
 * ambiguous); siblings may touch, calls may start with their parent. */
static void gen_children(world *w, int loc, int parent, int depth, double a, double b)
{
    if (depth > 6 || w->n >= MAXCALLS - 8)
        return;
    int k = (int)(rng_uniform() * 4);
    double t = a;
    for (int i = 0; i < k && w->n < MAXCALLS - 8; i++) {
        double s = rng_uniform() < 0.2 ? t : t + rng_uniform() * (b - t) * 0.4;
        double e = rng_uniform() < 0.1 ? s : s + rng_uniform() * (b - s) * 0.6;
        if (!(e < b) || !(s < b))
            break;
        int me = w->n++;
        w->c[me] = (call){loc, (int)(rng_uniform() * NNAMES), depth, parent, s, e};
        gen_children(w, loc, me, depth + 1, s, e);
        t = e;
    }
}

/* full: every location in a call over all of [0, T]. */
static void gen_world(world *w, int nlocs, double T, int full)
{
    memset(w, 0, sizeof *w);
    w->nlocs = nlocs;
    for (int l = 0; l < nlocs; l++) {
        w->rank[l] = l / 2; /* two threads per rank */
        double t = 0;
        int roots = full ? 1 : 1 + (int)(rng_uniform() * 3);
        for (int r = 0; r < roots; r++) {
            double s = full ? 0 : t + rng_uniform() * (T - t) * 0.3;
            double e = full ? T : s + rng_uniform() * (T - s) * 0.7;
            int me = w->n++;
            w->c[me] = (call){l, (int)(rng_uniform() * NNAMES), 0, -1, s, e};
            gen_children(w, l, me, 1, s, e);
            t = e;
        }
    }
}

static int cmp_calls(const void *a, const void *b)
{
    const call *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc - y->loc;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->depth - y->depth;
}

static ari_evp *run(const world *w, const uint8_t *idle, int bins, double t0, double t1)
{
    call *sorted = malloc(sizeof(call) * (size_t)(w->n ? w->n : 1));
    memcpy(sorted, w->c, sizeof(call) * (size_t)w->n);
    qsort(sorted, (size_t)w->n, sizeof *sorted, cmp_calls);
    ari_error err = {0};
    ari_evp_options o = {w->rank, idle, bins, t0, t1};
    ari_evp *p = ari_evp_new(w->nlocs, NNAMES, &o, &err);
    assert_non_null(p);
    for (int i = 0; i < w->n; i++) {
        ari_evp_state s = {sorted[i].loc, sorted[i].name, sorted[i].depth, sorted[i].start, sorted[i].end};
        if (ari_evp_add(p, &s, &err) != 0)
            fail_msg("add: %s", err.message);
    }
    assert_int_equal(ari_evp_finish(p, &err), 0);
    free(sorted);
    return p;
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * (fabs(want) + 1)))
        fail_msg("got %.17g, want %.17g", got, want);
}

static double clip(const call *c, double lo, double hi)
{
    double a = c->start > lo ? c->start : lo, b = c->end < hi ? c->end : hi;
    return b > a ? b - a : 0;
}

static void check_world(const world *w, int bins)
{
    double T0 = INFINITY, T1 = -INFINITY;
    for (int i = 0; i < w->n; i++) {
        T0 = fmin(T0, w->c[i].start);
        T1 = fmax(T1, w->c[i].end);
    }
    uint8_t idle[NNAMES] = {1, 0, 0, 1, 0, 0};
    ari_evp *p = run(w, idle, bins, T0, T1);

    /* brute force: inclusive, children's inclusive, exclusive */
    double inc[MAXCALLS], kids[MAXCALLS] = {0};
    int nkids[MAXCALLS] = {0};
    for (int i = 0; i < w->n; i++)
        inc[i] = w->c[i].end - w->c[i].start;
    for (int i = 0; i < w->n; i++)
        if (w->c[i].parent >= 0) {
            kids[w->c[i].parent] += inc[i];
            nkids[w->c[i].parent]++;
        }

    /* cells */
    double cinc[16][NNAMES] = {{0}}, cexc[16][NNAMES] = {{0}};
    int64_t ccount[16][NNAMES] = {{0}};
    double lidle[16] = {0}, ltotal[16] = {0};
    for (int i = 0; i < w->n; i++) {
        const call *c = &w->c[i];
        cinc[c->loc][c->name] += inc[i];
        cexc[c->loc][c->name] += inc[i] - kids[i];
        ccount[c->loc][c->name]++;
        if (idle[c->name])
            lidle[c->loc] += inc[i];
        if (c->parent < 0)
            ltotal[c->loc] += inc[i];
    }
    size_t ncells;
    const ari_evp_cell *cells = ari_evp_cells(p, &ncells);
    size_t want_cells = 0;
    for (int l = 0; l < w->nlocs; l++)
        for (int n = 0; n < NNAMES; n++)
            want_cells += ccount[l][n] > 0;
    assert_int_equal(ncells, want_cells);
    for (size_t i = 0; i < ncells; i++) {
        near(cells[i].inclusive, cinc[cells[i].loc][cells[i].name]);
        near(cells[i].exclusive, cexc[cells[i].loc][cells[i].name]);
        assert_int_equal(cells[i].count, ccount[cells[i].loc][cells[i].name]);
        if (i)
            assert_true(cells[i - 1].loc < cells[i].loc ||
                        (cells[i - 1].loc == cells[i].loc && cells[i - 1].exclusive >= cells[i].exclusive));
    }
    const ari_evp_loc *locs = ari_evp_locs(p);
    for (int l = 0; l < w->nlocs; l++) {
        near(locs[l].idle, lidle[l]);
        near(locs[l].total, ltotal[l]);
    }

    /* per function, per rank */
    double rinc[8][NNAMES] = {{0}}, rexc[8][NNAMES] = {{0}};
    int rhas[8][NNAMES] = {{0}};
    for (int l = 0; l < w->nlocs; l++)
        for (int n = 0; n < NNAMES; n++)
            if (ccount[l][n]) {
                rinc[w->rank[l]][n] += cinc[l][n];
                rexc[w->rank[l]][n] += cexc[l][n];
                rhas[w->rank[l]][n] = 1;
            }
    int nranks = (w->nlocs + 1) / 2;
    ari_evp_func *f;
    size_t nf;
    ari_error err = {0};
    assert_int_equal(ari_evp_functions(p, &f, &nf, &err), 0);
    for (size_t i = 0; i < nf; i++) {
        double ti = 0, te = 0;
        int64_t tc = 0, np = 0;
        for (int r = 0; r < nranks; r++) {
            ti += rinc[r][f[i].name];
            te += rexc[r][f[i].name];
            np += rhas[r][f[i].name];
        }
        for (int l = 0; l < w->nlocs; l++)
            tc += ccount[l][f[i].name];
        near(f[i].inclusive, ti);
        near(f[i].exclusive, te);
        assert_int_equal(f[i].count, tc);
        assert_int_equal(f[i].processes, np);
        near(f[i].mean_exclusive, te / (double)np);
        if (i)
            assert_true(f[i - 1].exclusive >= f[i].exclusive);
    }
    free(f);

    /* load imbalance, exclusive and inclusive */
    for (int which = 0; which < 2; which++) {
        ari_evp_imb *imb;
        size_t ni;
        assert_int_equal(ari_evp_imbalance(p, which, 2, 0, &imb, &ni, &err), 0);
        for (size_t i = 0; i < ni; i++) {
            int n = imb[i].name, np = 0;
            double sum = 0, mx = -INFINITY;
            for (int r = 0; r < nranks; r++)
                if (rhas[r][n]) {
                    double v = which ? rinc[r][n] : rexc[r][n];
                    sum += v;
                    mx = fmax(mx, v);
                    np++;
                }
            near(imb[i].mean, sum / np);
            near(imb[i].max, mx);
            if (sum != 0)
                near(imb[i].imbalance, mx / (sum / np));
            assert_int_equal(imb[i].ntop, np < 2 ? np : 2);
            near(imb[i].top_values[0], mx);
            int r0 = (int)imb[i].top_ranks[0];
            near(which ? rinc[r0][n] : rexc[r0][n], mx);
            if (i)
                assert_true(!(imb[i - 1].imbalance < imb[i].imbalance));
        }
        ari_evp_imbalance_free(imb, ni);
    }

    /* caller-callee */
    int64_t wp = 0, wc = 0;
    int64_t pc[NNAMES][NNAMES] = {{0}};
    double pinc[NNAMES][NNAMES] = {{0}};
    for (int i = 0; i < w->n; i++) {
        wc += nkids[i] > 0;
        if (w->c[i].parent >= 0) {
            wp++;
            pc[w->c[w->c[i].parent].name][w->c[i].name]++;
            pinc[w->c[w->c[i].parent].name][w->c[i].name] += inc[i];
        }
    }
    size_t npairs;
    int64_t gp, gc;
    const ari_evp_pair *pairs = ari_evp_pairs(p, &npairs, &gp, &gc);
    assert_int_equal(gp, wp);
    assert_int_equal(gc, wc);
    size_t want_pairs = 0;
    for (int a = 0; a < NNAMES; a++)
        for (int b = 0; b < NNAMES; b++)
            want_pairs += pc[a][b] > 0;
    assert_int_equal(npairs, want_pairs);
    for (size_t i = 0; i < npairs; i++) {
        assert_int_equal(pairs[i].count, pc[pairs[i].caller][pairs[i].callee]);
        near(pairs[i].inclusive, pinc[pairs[i].caller][pairs[i].callee]);
    }

    /* time profile, Pipit's way: each call's time in the bin minus its
     * children's, summed per name; idle = width x locations - sum; < 0.01 -> 0 */
    const double *edges = ari_evp_tp_edges(p);
    double width = ari_evp_tp_bin_duration(p);
    near(width, (T1 - T0) / bins);
    near(edges[0], T0);
    near(edges[bins], T1);
    for (int b = 0; b < bins; b++) {
        double lo = T0 + b * width, hi = b == bins - 1 ? T1 : T0 + (b + 1) * width;
        double per[NNAMES] = {0}, sum = 0;
        for (int i = 0; i < w->n; i++) {
            const call *c = &w->c[i];
            if (!(c->end > lo && c->start < hi))
                continue;
            double v = clip(c, lo, hi);
            for (int j = 0; j < w->n; j++)
                if (w->c[j].parent == i)
                    v -= clip(&w->c[j], lo, hi);
            per[c->name] += v;
        }
        for (int n = 0; n < NNAMES; n++) {
            sum += per[n];
            const double *v = ari_evp_tp_values(p, n);
            double want = per[n] < 0.01 ? 0 : per[n];
            double got = v ? v[b] : 0;
            if (!(fabs(got - want) <= 1e-7 * (width + 1)))
                fail_msg("bin %d name %d: got %.17g want %.17g", b, n, got, want);
        }
        double idle_want = width * w->nlocs - sum;
        if (idle_want < 0.01)
            idle_want = 0;
        assert_true(fabs(ari_evp_tp_idle(p)[b] - idle_want) <= 1e-7 * (width * w->nlocs + 1));
    }
    ari_evp_free(p);
}

static void test_random_worlds(void **state)
{
    (void)state;
    rng_state = 0x9e3779b97f4a7c15ULL;
    static world w;
    for (int round = 0; round < 40; round++) {
        gen_world(&w, 1 + (int)(rng_uniform() * 8), 1e3 + rng_uniform() * 1e7, round % 3 == 0);
        check_world(&w, 1 + (int)(rng_uniform() * 70));
    }
}

/* When every location is always in some function, each bin's functions
 * add up to bin duration x locations and nothing is idle (Pipit's test). */
static void test_full_cover(void **state)
{
    (void)state;
    rng_state = 12345;
    static world w;
    for (int round = 0; round < 10; round++) {
        gen_world(&w, 2 + round % 5, 5e8, 1);
        int bins = 62;
        ari_evp *p = run(&w, NULL, bins, 0, 5e8);
        double width = ari_evp_tp_bin_duration(p);
        for (int b = 0; b < bins; b++) {
            double sum = 0;
            for (int n = 0; n < NNAMES; n++) {
                const double *v = ari_evp_tp_values(p, n);
                sum += v ? v[b] : 0;
            }
            assert_true(fabs(sum - width * w.nlocs) <= 1e-6 * width);
            assert_true(ari_evp_tp_idle(p)[b] == 0);
        }
        /* per function: the bins add up to its exclusive time */
        size_t ncells;
        const ari_evp_cell *cells = ari_evp_cells(p, &ncells);
        for (int n = 0; n < NNAMES; n++) {
            double exc = 0, tp = 0;
            for (size_t i = 0; i < ncells; i++)
                if (cells[i].name == n)
                    exc += cells[i].exclusive;
            const double *v = ari_evp_tp_values(p, n);
            for (int b = 0; v && b < bins; b++)
                tp += v[b];
            assert_true(fabs(tp - exc) <= 1e-6 * (exc + 1));
        }
        ari_evp_free(p);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_evp_options o = {NULL, NULL, 10, 5, 5};
    assert_null(ari_evp_new(2, 2, &o, &err));
    o.t1 = 10;
    o.bins = ARI_EVP_MAX_BINS + 1;
    assert_null(ari_evp_new(2, 2, &o, &err));
    ari_evp *p = ari_evp_new(2, 2, NULL, &err);
    assert_non_null(p);
    ari_evp_state s = {0, 0, 0, 1, 2};
    assert_int_equal(ari_evp_add(p, &s, &err), 0);
    s = (ari_evp_state){1, 0, 0, 1, 2};
    assert_int_equal(ari_evp_add(p, &s, &err), 0);
    s = (ari_evp_state){0, 0, 0, 3, 4}; /* location 0 again */
    assert_int_equal(ari_evp_add(p, &s, &err), -1);
    assert_non_null(strstr(err.message, "do not come together"));
    s = (ari_evp_state){1, 5, 0, 3, 4};
    assert_int_equal(ari_evp_add(p, &s, &err), -1);
    s = (ari_evp_state){1, 1, 0, 4, 3};
    assert_int_equal(ari_evp_add(p, &s, &err), -1);
    ari_evp_free(p);
    /* depth is bounded */
    p = ari_evp_new(1, 1, NULL, &err);
    int rc = 0, i;
    for (i = 0; i < 10000 && rc == 0; i++) {
        s = (ari_evp_state){0, 0, i, i, 1e6 - i};
        rc = ari_evp_add(p, &s, &err);
    }
    assert_int_equal(rc, -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    ari_evp_free(p);
}

/* ---- the store: a database filled here ---- */

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%.200s: %s", sql, msg);
}

static const char *const names[NNAMES] = {"MPI_Recv", "main", "foo", "MPI_Wait", "bar", "baz"};

typedef struct collect {
    ari_evp *p;
    int n;
} collect;

static int collect_fn(void *ctx, const ari_evp_state *st, ari_error *err)
{
    collect *c = ctx;
    c->n++;
    return ari_evp_add(c->p, st, err);
}

static void test_store(void **state)
{
    test_db *f = *state;
    const char *db_path = f->db_path;
    ari_error err = {0};
    ari_store *s = f->s;
    rng_state = 777;
    static world w;
    gen_world(&w, 5, 1e6, 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    exec_sql(db, "BEGIN");
    exec_sql(db,
             "INSERT INTO traces(id, name, kind, format, time_unit) VALUES (7, 'e', 'events', 'otf2', 'ns')");
    exec_sql(db, "INSERT INTO entity_types(trace_id, id, nature, alias, name, parent_id) VALUES"
                 " (7, 1, 'container', 'P', 'Process', NULL), (7, 2, 'container', 'T', 'Thread', 1),"
                 " (7, 3, 'state', 'F', 'Function', 2), (7, 4, 'event', 'E', 'Instant', 2)");
    exec_sql(db, "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end) VALUES"
                 " (7, 1, NULL, NULL, '0', '0', 0, 0)");
    char sql[512];
    /* names ids not dense and not in index order, to test the mapping */
    for (int n = 0; n < NNAMES; n++) {
        snprintf(sql, sizeof sql, "INSERT INTO names(trace_id, id, name) VALUES (7, %d, '%s')", 100 - 3 * n,
                 names[n]);
        exec_sql(db, sql);
    }
    exec_sql(db, "INSERT INTO names(trace_id, id, name) VALUES (7, 5, 'rank 0'), (7, 6, 'ProgramEnd')");
    for (int r = 0; r < 3; r++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
                 " VALUES (7, %d, 1, 1, 'p%d', 'rank %d', 0, 0)",
                 10 + r, r, r);
        exec_sql(db, sql);
    }
    /* locations in reverse container order to the world's: loc l -> container 50 - l */
    for (int l = 0; l < w.nlocs; l++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
                 " VALUES (7, %d, %d, 2, 'l%d', 'thread', 0, 0);"
                 "INSERT INTO ev_locations(trace_id, container_id, process_id, rank, thread)"
                 " VALUES (7, %d, %d, %lld, %d)",
                 50 - l, 10 + (int)w.rank[l], l, 50 - l, 10 + (int)w.rank[l], (long long)w.rank[l], l % 2);
        exec_sql(db, sql);
    }
    for (int i = 0; i < w.n; i++) {
        const call *c = &w.c[i];
        snprintf(sql, sizeof sql,
                 "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth)"
                 " VALUES (7, %d, 3, %d, %.17g, %.17g, %d)",
                 50 - c->loc, 100 - 3 * c->name, c->start, c->end, c->depth);
        exec_sql(db, sql);
    }
    exec_sql(db,
             "INSERT INTO events(trace_id, container_id, type_id, value_id, time, seq) VALUES (7, 50, 4, 6, 2e6, 0)");
    exec_sql(db, "COMMIT");
    sqlite3_close(db);

    ari_evs_trace t;
    assert_int_equal(ari_evs_load(s, 7, &t, &err), 0);
    assert_int_equal(t.nlocs, w.nlocs);
    assert_int_equal(t.function_type, 3);
    assert_int_equal(t.nnames, NNAMES + 2);
    /* the store's location i is the world's location nlocs - 1 - i */
    int64_t ranks[16];
    for (int i = 0; i < t.nlocs; i++) {
        assert_int_equal(t.locs[i].container_id, 50 - (w.nlocs - 1 - i));
        ranks[i] = t.locs[i].rank;
        assert_int_equal(ranks[i], w.rank[w.nlocs - 1 - i]);
    }
    double t0, t1;
    assert_int_equal(ari_evs_extent(s, 7, &t0, &t1, &err), 0);
    double T0 = INFINITY, T1 = -INFINITY;
    for (int i = 0; i < w.n; i++) {
        T0 = fmin(T0, w.c[i].start);
        T1 = fmax(T1, w.c[i].end);
    }
    assert_true(t0 == T0);
    assert_true(t1 == 2e6); /* the Instant */

    /* whole: same cells as the world fed directly (names and locations mapped) */
    ari_evp_options o = {ranks, NULL, 20, t0, t1};
    collect c = {ari_evp_new(t.nlocs, t.nnames, &o, &err), 0};
    assert_non_null(c.p);
    assert_int_equal(ari_evs_each(s, 7, &t, NAN, NAN, collect_fn, &c, &err), 0);
    assert_int_equal(c.n, w.n);
    assert_int_equal(ari_evp_finish(c.p, &err), 0);
    ari_evp *direct = run(&w, NULL, 20, t0, t1);
    size_t n1, n2;
    const ari_evp_cell *a = ari_evp_cells(c.p, &n1), *b = ari_evp_cells(direct, &n2);
    assert_int_equal(n1, n2);
    for (size_t i = 0; i < n1; i++) {
        int wl = w.nlocs - 1 - a[i].loc;
        int found = 0;
        for (size_t j = 0; j < n2; j++)
            if (b[j].loc == wl && strcmp(names[b[j].name], t.names[a[i].name]) == 0) {
                near(a[i].inclusive, b[j].inclusive);
                near(a[i].exclusive, b[j].exclusive);
                assert_int_equal(a[i].count, b[j].count);
                found = 1;
            }
        assert_true(found);
    }
    for (int n = 0; n < NNAMES; n++) {
        int32_t k = ari_evs_name_index(&t, names[n]);
        assert_true(k >= 0);
        const double *x = ari_evp_tp_values(c.p, k), *y = ari_evp_tp_values(direct, n);
        for (int bin = 0; bin < 20; bin++)
            near(x ? x[bin] : 0, y ? y[bin] : 0);
    }
    ari_evp_free(c.p);
    ari_evp_free(direct);

    /* a window: only the states touching it, same time profile over it */
    double w0 = T0 + (T1 - T0) * 0.3, w1 = T0 + (T1 - T0) * 0.55;
    ari_evp_options ow = {ranks, NULL, 7, w0, w1};
    c = (collect){ari_evp_new(t.nlocs, t.nnames, &ow, &err), 0};
    assert_int_equal(ari_evs_each(s, 7, &t, w0, w1, collect_fn, &c, &err), 0);
    int touching = 0;
    for (int i = 0; i < w.n; i++)
        touching += w.c[i].start <= w1 && w.c[i].end >= w0;
    assert_int_equal(c.n, touching);
    assert_true(c.n < w.n);
    assert_int_equal(ari_evp_finish(c.p, &err), 0);
    direct = run(&w, NULL, 7, w0, w1);
    for (int n = 0; n < NNAMES; n++) {
        const double *x = ari_evp_tp_values(c.p, ari_evs_name_index(&t, names[n])),
                     *y = ari_evp_tp_values(direct, n);
        for (int bin = 0; bin < 7; bin++)
            near(x ? x[bin] : 0, y ? y[bin] : 0);
    }
    ari_evp_free(c.p);
    ari_evp_free(direct);
    ari_evs_free(&t);

    /* without ev_locations rows: the Thread containers */
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    exec_sql(db, "DELETE FROM ev_locations");
    sqlite3_close(db);
    assert_int_equal(ari_evs_load(s, 7, &t, &err), 0);
    assert_int_equal(t.nlocs, w.nlocs);
    for (int i = 0; i < t.nlocs; i++)
        assert_int_equal(t.locs[i].rank, w.rank[w.nlocs - 1 - i]);
    ari_evs_free(&t);

}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_worlds),
        cmocka_unit_test(test_full_cover),
        cmocka_unit_test(test_errors),
        cmocka_unit_test_setup_teardown(test_store, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
