/* test_state_chunks.c: the packed states (src/store/state_chunks.c,
 * sql/016 state_chunks) give a window exactly the states a scan of all of
 * them gives. Random nested call stacks on a few containers (zero-length
 * calls, ties on start, long calls over the whole run, more than one chunk
 * per container, a second state type interleaved) are packed in the order
 * the calls end, as event_paje emits them; random windows are read sorted
 * and unsorted and compared with a brute force over the same states; a
 * container without chunks answers 0 (the caller then reads `states`).
 * Likewise the streaming read in slices (ari_state_chunks_each, with a
 * small cap so that slices are halved), the innermost state at an instant
 * (ari_state_chunks_at) and the values of the packed states. The batched
 * read of many containers (ari_state_chunks_batch) gives each container
 * what ari_state_chunks_read gives it, bit for bit and in the list's
 * order, with caps that split the batches and hand a container over as
 * too large; and so does the timeline's page reader (ari_sq_reader) for
 * each row. On SQLite and, with the test cluster, on PostgreSQL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/state_chunks.h"
#include "store/state_queries.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "test_helpers.h"

#define NCONT 3
#define MAXN  6000

typedef struct packed {
    int64_t type;
    ari_gantt_state st;
} packed;

static packed rows[NCONT][MAXN];
static int nrows[NCONT];
static uint64_t rng = 88172645463325252ull;

static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* One container's calls: a main over everything, then nested calls on a
 * stack, each recorded when it ends (event_paje's order). */
static void gen_container(int c, int target)
{
    struct open_call { double start; int value; } stack[64];
    int depth = 0, n = 0;
    double t = 0;
    stack[depth++] = (struct open_call){0, 0};
    while (n < target - 1) {
        double r = urand();
        t += urand() < 0.2 ? 0 : urand() * 10; /* ties on start and zero-length calls */
        if ((r < 0.5 && depth < 60) || depth == 1) {
            stack[depth++] = (struct open_call){t, 1 + (int)(urand() * 5)};
        } else {
            depth--;
            int64_t type = urand() < 0.1 ? 9 : 7; /* a second state type now and then */
            rows[c][n++] = (packed){type, {stack[depth].value, depth, stack[depth].start, t}};
        }
    }
    while (depth > 1) {
        depth--;
        rows[c][n++] = (packed){7, {stack[depth].value, depth, stack[depth].start, t}};
    }
    rows[c][n++] = (packed){7, {0, 0, 0, t + 1}}; /* main ends last */
    nrows[c] = n;
}

static int cmp_state(const void *a, const void *b)
{
    const ari_gantt_state *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->value - y->value;
}

static void check_window(ari_store *s, int c, double t0, double t1)
{
    static ari_gantt_state want[MAXN];
    int64_t nwant = 0;
    for (int i = 0; i < nrows[c]; i++) {
        const packed *p = &rows[c][i];
        if (p->type == 7 && p->st.start <= t1 && p->st.end >= t0)
            want[nwant++] = p->st;
    }
    qsort(want, (size_t)nwant, sizeof *want, cmp_state);
    for (int sorted = 0; sorted <= 1; sorted++) {
        ari_gantt_state *got = NULL;
        int64_t n = -1;
        int max_value = -1;
        ari_error err = {0};
        assert_int_equal(ari_state_chunks_read(s, 1, c + 1, 7, t0, t1, sorted, &got, &n, &max_value, &err), 1);
        assert_int_equal(n, nwant);
        if (sorted) /* (start, depth) order; ties broken the same way below */
            for (int64_t i = 1; i < n; i++)
                assert_true(got[i - 1].start < got[i].start ||
                            (got[i - 1].start == got[i].start && got[i - 1].depth <= got[i].depth));
        if (n > 1)
            qsort(got, (size_t)n, sizeof *got, cmp_state);
        int maxv = 0;
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(cmp_state(&got[i], &want[i]), 0);
            if (want[i].value > maxv)
                maxv = want[i].value;
        }
        assert_int_equal(max_value, maxv);
        free(got);
    }
}

/* ari_state_chunks_each: the window's states in (start, depth) order, in
 * slices of at most `cap` when the container has more. */
typedef struct collected {
    ari_gantt_state *v;
    int64_t n;
} collected;

static int collect(void *ctx, const ari_gantt_state *st, ari_error *err)
{
    (void)err;
    collected *c = ctx;
    if (c->n > 0) {
        const ari_gantt_state *prev = &c->v[c->n - 1];
        assert_true(prev->start < st->start || (prev->start == st->start && prev->depth <= st->depth));
    }
    assert_true(c->n < MAXN);
    c->v[c->n++] = *st;
    return 0;
}

static void check_each(ari_store *s, int c, double t0, double t1, int64_t cap)
{
    static ari_gantt_state want[MAXN], got[MAXN];
    int64_t nwant = 0;
    for (int i = 0; i < nrows[c]; i++)
        if (rows[c][i].type == 7 && rows[c][i].st.start <= t1 && rows[c][i].st.end >= t0)
            want[nwant++] = rows[c][i].st;
    collected col = {got, 0};
    ari_error err = {0};
    assert_int_equal(ari_state_chunks_each(s, 1, c + 1, 7, t0, t1, cap, collect, &col, &err), 1);
    assert_int_equal(col.n, nwant);
    qsort(want, (size_t)nwant, sizeof *want, cmp_state);
    qsort(got, (size_t)col.n, sizeof *got, cmp_state);
    for (int64_t i = 0; i < nwant; i++)
        assert_int_equal(cmp_state(&got[i], &want[i]), 0);
}

/* ari_state_chunks_at against a scan: the latest start, then the deepest. */
static void check_at(ari_store *s, int c, double t, int strict)
{
    const ari_gantt_state *best = NULL;
    for (int i = 0; i < nrows[c]; i++) {
        const ari_gantt_state *x = &rows[c][i].st;
        if (rows[c][i].type != 7 || !(strict ? x->start < t : x->start <= t) || !(x->end >= t))
            continue;
        if (!best || x->start > best->start || (x->start == best->start && x->depth > best->depth))
            best = x;
    }
    ari_gantt_state got;
    ari_error err = {0};
    int rc = ari_state_chunks_at(s, 1, c + 1, 7, t, strict, &got, &err);
    assert_int_equal(rc, best != NULL);
    if (best) {
        assert_true(got.start == best->start);
        assert_int_equal(got.depth, best->depth);
    }
}

static void check_values(ari_store *s)
{
    unsigned char want[16] = {0}, got[16] = {0};
    for (int c = 0; c < NCONT; c++)
        for (int i = 0; i < nrows[c]; i++)
            want[rows[c][i].st.value] = 1;
    ari_error err = {0};
    assert_int_equal(ari_state_chunks_values(s, 1, got, 16, &err), 0);
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(ari_state_chunks_present(s, 1, &err), 1);
    assert_int_equal(ari_state_chunks_present(s, 2, &err), 0);
}

/* The end of the generated run (container 1's last call). */
static double rows_end(void)
{
    return rows[0][nrows[0] - 1].st.end;
}

/* The states read (n of them, largest value max_value) are those of
 * ari_state_chunks_read, bit for bit. */
static void assert_same_states(const ari_gantt_state *got, int64_t n, int max_value, const ari_gantt_state *want,
                               int64_t nwant, int want_max)
{
    assert_int_equal(n, nwant);
    if (n > 0) {
        assert_memory_equal(got, want, (size_t)n * sizeof *got);
        assert_int_equal(max_value, want_max);
    }
}

/* ---- the batched read ---- */

typedef struct batch_seen {
    ari_store *s;
    const int64_t *containers;
    double t0, t1;
    int sorted;
    int64_t cap;
    size_t next; /* the index fn expects next */
    int large;   /* containers handed over as too large */
} batch_seen;

static int batch_check(void *ctx, size_t i, int what, ari_gantt_state *st, int64_t n, int max_value,
                       ari_error *err)
{
    (void)err;
    batch_seen *b = ctx;
    assert_int_equal(i, b->next);
    b->next++;
    ari_gantt_state *want = NULL;
    int64_t nwant = 0;
    int want_max = 0;
    ari_error e = {0};
    int rc = ari_state_chunks_read(b->s, 1, b->containers[i], 7, b->t0, b->t1, b->sorted, &want, &nwant, &want_max,
                                   &e);
    assert_true(rc >= 0);
    if (what == ARI_CHUNKS_LARGE) {
        /* more than cap states in the chunks that overlap the window:
         * all of them kept in the whole run */
        assert_int_equal(rc, 1);
        assert_true(nwant > b->cap || b->t0 > -1e300);
        assert_null(st);
        b->large++;
    } else {
        assert_int_equal(what, rc ? ARI_CHUNKS_READ : ARI_CHUNKS_NONE);
        assert_same_states(st, n, max_value, want, nwant, want_max);
    }
    free(want);
    free(st);
    return 0;
}

/* Containers 1 to 3 (5,000, 1,500 and 40 states), 99 (no chunks) and
 * repeats, in random windows. */
static void check_batch(ari_store *s)
{
    static const int64_t containers[] = {3, 99, 1, 2, 3, 2, 1, 99};
    const size_t n = sizeof containers / sizeof containers[0];
    double end = rows[0][nrows[0] - 1].st.end;
    for (int k = 0; k < 24; k++) {
        double a = k < 2 ? -1e300 : urand() * end, b = k < 2 ? 1e300 : a + urand() * end * 0.2;
        int64_t cap = k % 3 == 0 ? 1 << 20 : k % 3 == 1 ? 2000 : 100;
        batch_seen seen = {s, containers, a, b, k % 2, cap, 0, 0};
        ari_error err = {0};
        assert_int_equal(
            ari_state_chunks_batch(s, 1, 7, containers, n, a, b, k % 2, cap, batch_check, &seen, &err), 0);
        assert_int_equal(seen.next, n);
        if (k == 0)
            assert_int_equal(seen.large, 0);
        if (k == 1) /* 2000: container 1 (twice) is too large */
            assert_int_equal(seen.large, 2);
    }
}

/* The page reader of the timeline (ari_sq_reader, state_queries.c) over
 * rows of both types, a container without chunks and repeats, with limits
 * that make it hold a few rows, one, or read rows alone: each row as
 * ari_state_chunks_read gives it (unsorted), or nothing for no chunks. */
static void check_reader(ari_store *s)
{
    static const int64_t containers[] = {2, 3, 2, 99, 3, 2, 1, 1, 2, 3};
    static const int64_t types[] = {7, 7, 7, 7, 9, 9, 9, 7, 7, 7};
    enum { N = sizeof containers / sizeof containers[0] };
    ari_sq_row rows[N];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < N; i++)
        rows[i].container_id = containers[i], rows[i].type_id = types[i];
    double end = rows_end();
    /* 1500: containers 2 and 3 (1,417 and 51 states of type 7) fit,
     * container 2 once more does not: the reader stops before it */
    static const int64_t limits[] = {1 << 20, 1500, 300, 2};
    for (int k = 0; k < 16; k++) {
        double a = k < 4 ? -1e300 : urand() * end, b = k < 4 ? 1e300 : a + urand() * end * 0.2;
        ari_error err = {0};
        ari_sq_reader *r = ari_sq_reader_new(s, 1, rows, N, a, b, &err);
        assert_non_null(r);
        ari_sq_reader_limit(r, limits[k % 4]);
        for (int i = k / 4 % 3; i < N; i++) { /* a page may start anywhere */
            ari_gantt_state *got = NULL, *want = NULL;
            int64_t n = -1, nwant = 0;
            int max_value = -1, want_max = 0;
            assert_int_equal(ari_sq_reader_row(r, i, &got, &n, &max_value, &err), 0);
            int rc = ari_state_chunks_read(s, 1, containers[i], types[i], a, b, 0, &want, &nwant, &want_max, &err);
            assert_true(rc >= 0);
            assert_same_states(got, n, max_value, want, nwant, want_max);
            free(got);
            /* asked for again (its states were handed over): the same */
            assert_int_equal(ari_sq_reader_row(r, i, &got, &n, &max_value, &err), 0);
            assert_same_states(got, n, max_value, want, nwant, want_max);
            free(got);
            free(want);
        }
        ari_sq_reader_free(r);
    }
}

/* Packs the generated containers into trace 1 of s. */
static void pack_all(ari_store *s)
{
    ari_error err = {0};
    assert_int_equal(ari_store_exec(s, "INSERT INTO traces(id, name, kind, format) VALUES (1, 't', 'events', 'otf2')",
                                    &err),
                     0);
    ari_state_packer *p = ari_state_packer_new(s, 1, &err);
    assert_non_null(p);
    /* interleaved containers, as locations interleave in a trace */
    int at[NCONT] = {0};
    for (int more = 1; more;) {
        more = 0;
        for (int c = 0; c < NCONT; c++)
            for (int k = 0; k < 7 && at[c] < nrows[c]; k++, at[c]++) {
                const packed *r = &rows[c][at[c]];
                assert_int_equal(ari_state_packer_add(p, c + 1, r->type, r->st.value, r->st.depth, r->st.start,
                                                      r->st.end, &err),
                                 0);
                more = 1;
            }
    }
    assert_int_equal(ari_state_packer_finish(p, &err), 0);
    ari_state_packer_free(p);
}

static void generate(void)
{
    static int done;
    int sizes[NCONT] = {5000, 1500, 40};
    for (int c = 0; !done && c < NCONT; c++)
        gen_container(c, sizes[c]);
    done = 1;
}

static void test_windows(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    ari_store *s = f->s;
    generate();
    pack_all(s);
    for (int c = 0; c < NCONT; c++) {
        double end = rows[c][nrows[c] - 1].st.end;
        check_window(s, c, -1e300, 1e300);
        check_window(s, c, end, end);         /* the last instant: main only (and calls ending there) */
        check_window(s, c, end + 1, end + 2); /* after the end: nothing */
        for (int k = 0; k < 40; k++) {
            double a = urand() * end, b = a + urand() * end * (k % 4 == 0 ? 0.5 : 0.01);
            check_window(s, c, a, b);
            check_window(s, c, a, a); /* a point */
            check_each(s, c, a, b, k % 2 ? 64 : 100000);
            check_at(s, c, a, k % 2);
            check_at(s, c, rows[c][k].st.start, k % 2); /* on a start: strict or not */
        }
        /* the whole container in slices of 64 (its states are spread over many) */
        check_each(s, c, -1e300, 1e300, 64);
        check_each(s, c, -1e300, 1e300, 1 << 20);
    }
    check_values(s);
    /* a container without chunks: 0, nothing read */
    ari_gantt_state *got = (ari_gantt_state *)1;
    int64_t n = -1;
    int max_value = -1;
    assert_int_equal(ari_state_chunks_read(s, 1, 99, 7, 0, 1, 1, &got, &n, &max_value, &err), 0);
    assert_null(got);
    assert_int_equal(n, 0);
    check_batch(s);
    check_reader(s);
}

/* The batched read on PostgreSQL (the test cluster; skipped without). */
static void test_batch_pg(void **state)
{
    (void)state;
    test_pg_db db;
    ari_store *s = test_pg_store_open(&db, "ariadne_state_chunks");
    if (!s)
        skip();
    generate();
    pack_all(s);
    check_batch(s);
    check_reader(s);
    test_pg_store_close(s, &db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_windows, test_db_setup, test_db_teardown),
        cmocka_unit_test(test_batch_pg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
