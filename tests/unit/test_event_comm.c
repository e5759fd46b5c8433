/* test_event_comm.c: the communication analyses of an event trace
 * (analysis/event_comm.h) against brute force on random inputs: the
 * matrix with and without blocks and the per-process sums, histograms
 * against a linear search of the edges and numpy.histogram's edge cases
 * worked out by hand, the wait-state classification on hand-made calls
 * and its per-pair and per-rank sums; and the store's queries
 * (store/event_queries.h) on a database filled here: the pairs, paging,
 * the extent, the window's messages and bundles, and the calls a message
 * side sits in (innermost Function state, the boundary rules). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/event_comm.h"
#include "store/event_queries.h"
#include "store/message_chunks.h"
#include "store/store.h"
#include "test_helpers.h"
#include "test_rng.h"
#include "util/fs.h"

static int rnd(int n)
{
    return (int)(rng_uniform() * n);
}

/* ---- the matrix ---- */

static void check_matrix(int nranks, int max_ranks, int nmsg)
{
    int32_t ranks[300];
    for (int i = 0; i < nranks; i++)
        ranks[i] = (int32_t)(3 * (nranks - i)); /* descending, not contiguous */
    ari_ec_matrix m;
    ari_error err = {0};
    assert_int_equal(ari_ec_matrix_init(&m, ranks, nranks, max_ranks, &err), 0);
    assert_int_equal(m.nranks, nranks);
    int block = nranks > max_ranks ? (nranks + max_ranks - 1) / max_ranks : 1;
    assert_int_equal(m.block, block);
    assert_true(m.nblocks <= max_ranks);
    static int64_t bytes[300][300], count[300][300];
    memset(bytes, 0, sizeof bytes);
    memset(count, 0, sizeof count);
    for (int k = 0; k < nmsg; k++) {
        int i = rnd(nranks), j = rnd(nranks);
        int64_t b = rnd(100000);
        ari_ec_matrix_add(&m, 3 * (nranks - i), 3 * (nranks - j), b, 1);
        /* sorted index of rank 3(n - i) is n - 1 - i */
        bytes[nranks - 1 - i][nranks - 1 - j] += b;
        count[nranks - 1 - i][nranks - 1 - j]++;
    }
    ari_ec_matrix_add(&m, 1, 3, 10, 1); /* rank 1 is not a rank */
    assert_int_equal(m.unknown, 1);
    int64_t tb = 0, tc = 0;
    for (int bi = 0; bi < m.nblocks; bi++)
        for (int bj = 0; bj < m.nblocks; bj++) {
            int64_t sb = 0, sc = 0;
            for (int i = bi * block; i < (bi + 1) * block && i < nranks; i++)
                for (int j = bj * block; j < (bj + 1) * block && j < nranks; j++)
                    sb += bytes[i][j], sc += count[i][j];
            assert_int_equal(m.bytes[bi * m.nblocks + bj], sb);
            assert_int_equal(m.count[bi * m.nblocks + bj], sc);
            tb += sb;
            tc += sc;
        }
    assert_int_equal(m.total_bytes, tb);
    assert_int_equal(m.total_count, tc);
    assert_int_equal(tc, nmsg);
    for (int i = 0; i < nranks; i++) {
        int64_t sb = 0, sc = 0, rb = 0, rc = 0;
        for (int j = 0; j < nranks; j++)
            sb += bytes[i][j], sc += count[i][j], rb += bytes[j][i], rc += count[j][i];
        assert_int_equal(m.sent_bytes[i], sb);
        assert_int_equal(m.sent_count[i], sc);
        assert_int_equal(m.recv_bytes[i], rb);
        assert_int_equal(m.recv_count[i], rc);
        assert_int_equal(m.ranks[i], 3 * (i + 1));
    }
    ari_ec_matrix_free(&m);
}

static void test_matrix(void **state)
{
    (void)state;
    rng_state = 42;
    check_matrix(2, 256, 16);
    check_matrix(7, 256, 500);
    check_matrix(7, 3, 500); /* blocks of 3: 3 blocks, the last one short */
    check_matrix(300, 256, 5000);
    check_matrix(300, 1, 100); /* one block */
    check_matrix(0, 4, 0);
    ari_ec_matrix m;
    ari_error err = {0};
    int32_t r[] = {1, 1, 0};
    assert_int_equal(ari_ec_matrix_init(&m, r, 3, 4, &err), 0);
    assert_int_equal(m.nranks, 2); /* duplicates merged */
    ari_ec_matrix_free(&m);
    assert_int_equal(ari_ec_matrix_init(&m, r, 3, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_ec_matrix_init(&m, r, 3, ARI_EC_MAX_RANKS + 1, &err), -1);
}

/* ---- histograms ---- */

static void hist_of(const double *x, const double *w, int n, int bins, double lo, double hi, ari_ec_hist *h)
{
    ari_error err = {0};
    assert_int_equal(ari_ec_hist_init(h, bins, lo, hi, &err), 0);
    for (int i = 0; i < n; i++)
        ari_ec_hist_add(h, x[i], w ? w[i] : 1);
}

static void expect(const ari_ec_hist *h, const double *edges, const double *counts)
{
    for (int i = 0; i <= h->bins; i++)
        assert_true(fabs(h->edges[i] - edges[i]) < 1e-12);
    for (int i = 0; i < h->bins; i++)
        assert_true(h->values[i] == counts[i]);
}

/* numpy.histogram results worked out by hand from its definition. */
static void test_hist_numpy_cases(void **state)
{
    (void)state;
    ari_ec_hist h;
    /* np.histogram([1, 2, 1], bins=2): [2, 1], edges [1, 1.5, 2] */
    hist_of((double[]){1, 2, 1}, NULL, 3, 2, 1, 2, &h);
    expect(&h, (double[]){1, 1.5, 2}, (double[]){2, 1});
    ari_ec_hist_free(&h);
    /* np.histogram([0, 1, 2, 3], bins=3): the last bin closed: [1, 1, 2] */
    hist_of((double[]){0, 1, 2, 3}, NULL, 4, 3, 0, 3, &h);
    expect(&h, (double[]){0, 1, 2, 3}, (double[]){1, 1, 2});
    ari_ec_hist_free(&h);
    /* np.histogram([5, 5, 5], bins=4): range 4.5..5.5, 5 on edge 2: [0, 0, 3, 0] */
    hist_of((double[]){5, 5, 5}, NULL, 3, 4, 5, 5, &h);
    expect(&h, (double[]){4.5, 4.75, 5, 5.25, 5.5}, (double[]){0, 0, 3, 0});
    ari_ec_hist_free(&h);
    /* np.histogram([5], bins=1): [4.5, 5.5], [1] */
    hist_of((double[]){5}, NULL, 1, 1, 5, 5, &h);
    expect(&h, (double[]){4.5, 5.5}, (double[]){1});
    ari_ec_hist_free(&h);
    /* np.histogram([0, 1], bins=2, weights=[2, 3]): [2, 3] */
    hist_of((double[]){0, 1}, (double[]){2, 3}, 2, 2, 0, 1, &h);
    expect(&h, (double[]){0, 0.5, 1}, (double[]){2, 3});
    ari_ec_hist_free(&h);
    /* np.histogram([0, 0.3, 1], bins=10): linspace's edge 3 is
     * 0.30000000000000004 > 0.3, so 0.3 falls in bin 2 although
     * (0.3 - 0) / 1 * 10 == 3.0: numpy's correction against the edges */
    hist_of((double[]){0, 0.3, 1}, NULL, 3, 10, 0, 1, &h);
    assert_true(h.edges[3] > 0.3);
    expect(&h, (double[]){0, .1, .2, 3 * 0.1, .4, .5, 6 * 0.1, 7 * 0.1, .8, .9, 1},
           (double[]){1, 0, 1, 0, 0, 0, 0, 0, 0, 1});
    ari_ec_hist_free(&h);
    /* with range=(0, 10): values outside are dropped, NaN too */
    hist_of((double[]){-1, 0, 10, 11, NAN}, NULL, 5, 2, 0, 10, &h);
    expect(&h, (double[]){0, 5, 10}, (double[]){1, 1});
    ari_ec_hist_free(&h);
    /* Pipit's ping-pong message sizes, 20 bins (numpy: 6 2 2 0 2 0 0 0 0 2 0 ... 2) */
    double sizes[16];
    for (int i = 0; i < 16; i++)
        sizes[i] = 16384.0 * (1 << (i / 2));
    hist_of(sizes, NULL, 16, 20, 16384, 2097152, &h);
    double want[20] = {6, 2, 2, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    for (int i = 0; i < 20; i++)
        assert_true(h.values[i] == want[i]);
    ari_ec_hist_free(&h);
    ari_error err = {0};
    assert_int_equal(ari_ec_hist_init(&h, 0, 0, 1, &err), -1);
    assert_int_equal(ari_ec_hist_init(&h, ARI_EC_MAX_BINS + 1, 0, 1, &err), -1);
    assert_int_equal(ari_ec_hist_init(&h, 2, 1, 0, &err), -1);
    assert_int_equal(ari_ec_hist_init(&h, 2, 0, INFINITY, &err), -1);
}

/* Every value lands in the bin whose edges hold it (linear search). */
static void test_hist_random(void **state)
{
    (void)state;
    rng_state = 7;
    for (int round = 0; round < 200; round++) {
        int bins = 1 + rnd(60);
        double lo = (rng_uniform() - 0.5) * 1e6, hi = lo + (round % 7 == 0 ? 0 : rng_uniform() * 1e6);
        ari_ec_hist h;
        ari_error err = {0};
        assert_int_equal(ari_ec_hist_init(&h, bins, lo, hi, &err), 0);
        double *brute = calloc((size_t)bins, sizeof *brute);
        assert_non_null(brute);
        for (int k = 0; k < 300; k++) {
            double x;
            int pick = rnd(4);
            if (pick == 0) /* exactly an edge */
                x = h.edges[rnd(bins + 1)];
            else
                x = h.edges[0] + (rng_uniform() * 1.2 - 0.1) * (h.edges[bins] - h.edges[0]);
            int want = -1;
            for (int i = 0; i < bins; i++)
                if (x >= h.edges[i] && (x < h.edges[i + 1] || (i == bins - 1 && x <= h.edges[bins])))
                    want = i;
            assert_int_equal(ari_ec_hist_add(&h, x, 2.5), want);
            if (want >= 0)
                brute[want] += 2.5;
        }
        for (int i = 0; i < bins; i++)
            assert_true(h.values[i] == brute[i]);
        free(brute);
        ari_ec_hist_free(&h);
    }
}

/* ---- wait states ---- */

static ari_ec_call call(const char *name, double enter, double leave)
{
    return (ari_ec_call){1, enter, leave, name};
}

static void test_wait_classify(void **state)
{
    (void)state;
    ari_ec_wait w;
    /* receive entered at 10, send at 25: late sender, 15 */
    ari_ec_call s = call("MPI_Send", 25, 30), r = call("MPI_Recv", 10, 32);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 1);
    assert_int_equal(w.late_sender_count, 1);
    assert_true(w.late_sender_time == 15);
    assert_int_equal(w.late_receiver_count, 0);
    /* the same with MPI_Wait completing an MPI_Irecv, and an MPI_Isend */
    s = call("MPI_Isend", 25, 26);
    r = call("MPI_Wait", 12, 40);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 1);
    assert_true(w.late_sender_time == 13);
    /* blocking send at 5 still running when the receive enters at 9: late receiver, 4 */
    s = call("MPI_Send", 5, 20);
    r = call("MPI_Recv", 9, 21);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 1);
    assert_int_equal(w.late_receiver_count, 1);
    assert_true(w.late_receiver_time == 4);
    assert_int_equal(w.late_sender_count, 0);
    /* an MPI_Ssend too; an MPI_Isend is not blocking: nothing */
    s = call("MPI_Ssend", 5, 20);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 1);
    s = call("MPI_Isend", 5, 20);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
    assert_int_equal(w.late_receiver_count + w.late_sender_count, 0);
    /* the send had returned before the receive entered (eager): nothing */
    s = call("MPI_Send", 5, 8);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
    /* both entered at once: neither */
    s = call("MPI_Send", 9, 20);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
    /* MPI_Test does not wait; non-MPI calls (Projections) have no wait state */
    s = call("MPI_Send", 25, 30);
    r = call("MPI_Test", 10, 32);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
    s = call("work", 25, 30);
    r = call("MPI_Recv", 10, 32);
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
    s = call("MPI_Send", 25, 30);
    r = (ari_ec_call){0};
    assert_int_equal(ari_ec_wait_classify(&s, &r, &w), 0);
}

static void test_waits_random(void **state)
{
    (void)state;
    rng_state = 99;
    ari_ec_waits ws;
    ari_ec_waits_init(&ws);
    ari_error err = {0};
    static ari_ec_wait brute[40][40];
    memset(brute, 0, sizeof brute);
    int32_t ranks[40];
    for (int i = 0; i < 40; i++)
        ranks[i] = 2 * i;
    for (int k = 0; k < 20000; k++) {
        int i = rnd(40), j = rnd(40);
        ari_ec_wait w = {0};
        if (rnd(3) == 0)
            w.late_sender_count = 1, w.late_sender_time = rnd(1000);
        else if (rnd(2) == 0)
            w.late_receiver_count = 1, w.late_receiver_time = rnd(1000);
        assert_int_equal(ari_ec_waits_add(&ws, 2 * i, 2 * j, &w, &err), 0);
        brute[i][j].late_sender_count += w.late_sender_count;
        brute[i][j].late_sender_time += w.late_sender_time;
        brute[i][j].late_receiver_count += w.late_receiver_count;
        brute[i][j].late_receiver_time += w.late_receiver_time;
    }
    ari_ec_wait_pair *pairs;
    size_t n;
    assert_int_equal(ari_ec_waits_sorted(&ws, &pairs, &n, &err), 0);
    size_t k = 0;
    ari_ec_wait tot = {0};
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++) {
            const ari_ec_wait *b = &brute[i][j];
            if (!b->late_sender_count && !b->late_receiver_count)
                continue;
            assert_true(k < n);
            assert_int_equal(pairs[k].sender, 2 * i);
            assert_int_equal(pairs[k].receiver, 2 * j);
            assert_int_equal(pairs[k].w.late_sender_count, b->late_sender_count);
            assert_true(pairs[k].w.late_sender_time == b->late_sender_time);
            assert_int_equal(pairs[k].w.late_receiver_count, b->late_receiver_count);
            assert_true(pairs[k].w.late_receiver_time == b->late_receiver_time);
            tot.late_sender_count += b->late_sender_count;
            tot.late_receiver_time += b->late_receiver_time;
            k++;
        }
    assert_int_equal(k, n);
    assert_int_equal(ws.totals.late_sender_count, tot.late_sender_count);
    assert_true(ws.totals.late_receiver_time == tot.late_receiver_time);
    ari_ec_wait by[40];
    ari_ec_waits_by_rank(pairs, n, ranks, 40, by);
    for (int r = 0; r < 40; r++) {
        int64_t ls = 0, lr = 0;
        for (int o = 0; o < 40; o++)
            ls += brute[o][r].late_sender_count, lr += brute[r][o].late_receiver_count;
        assert_int_equal(by[r].late_sender_count, ls);   /* the receiver waited */
        assert_int_equal(by[r].late_receiver_count, lr); /* the sender waited */
    }
    free(pairs);
    ari_ec_waits_free(&ws);
}

/* ---- the store ---- */

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%.200s: %s", sql, msg);
}

#define NLOCS  4
#define MAXST  600
#define MAXMSG 400

typedef struct st_row {
    int loc, name, depth;
    double start, end;
} st_row;

static const char *const fnames[] = {"main", "MPI_Send", "MPI_Recv", "compute", "inner", "MPI_Wait"};

typedef struct world {
    st_row st[MAXST];
    int nst;
    ari_ec_message msg[MAXMSG];
    int nmsg;
} world;

/* The innermost state of loc containing t (the store's rules). */
static const st_row *brute_call(const world *w, int loc, double t, int receive)
{
    const st_row *best = NULL;
    for (int pass = receive ? 0 : 1; pass < 2 && !best; pass++)
        for (int i = 0; i < w->nst; i++) {
            const st_row *s = &w->st[i];
            int in = pass == 0 ? s->start < t && s->end >= t : s->start <= t && s->end >= t;
            if (s->loc != loc || !in)
                continue;
            if (!best || s->start > best->start || (s->start == best->start && s->depth > best->depth))
                best = s;
        }
    return best;
}

static void gen_world(world *w)
{
    memset(w, 0, sizeof *w);
    for (int l = 0; l < NLOCS; l++) {
        double T = 1000;
        w->st[w->nst++] = (st_row){l, 0, 0, 0.5, T};
        double t = 1 + rng_uniform();
        while (t < T - 20 && w->nst < MAXST - 4) {
            int name = 1 + rnd(5);
            if (name == 4)
                name = 3;
            double s = rnd(4) == 0 ? t : t + rng_uniform() * 5; /* some touch the previous call */
            double e = s + 0.5 + rng_uniform() * 10;
            w->st[w->nst++] = (st_row){l, name, 1, s, e};
            if (name == 3 && rnd(2)) /* compute with inner calls that end before it does */
                for (double c = s + 0.1; c < e - 1 && w->nst < MAXST - 1; c += 1)
                    w->st[w->nst++] = (st_row){l, 4, 2, c, c + 0.5};
            t = e;
        }
    }
    /* messages: a side at a random time of a random state of its location,
     * some exactly on a state's start or end */
    for (int k = 0; k < MAXMSG; k++) {
        ari_ec_message *m = &w->msg[w->nmsg++];
        int a = rnd(w->nst), b = rnd(w->nst);
        const st_row *sa = &w->st[a], *sb = &w->st[b];
        m->src_container = 100 + sa->loc;
        m->dst_container = 100 + sb->loc;
        m->src_rank = (int32_t)sa->loc;
        m->dst_rank = (int32_t)sb->loc;
        m->tag = rnd(3);
        m->comm = 0;
        m->bytes = 1 + rnd(1 << 20);
        int how = rnd(5);
        m->send_time = how == 0 ? sa->start : sa->start + rng_uniform() * (sa->end - sa->start);
        m->recv_time = how == 1 ? sb->end : sb->start + rng_uniform() * (sb->end - sb->start);
    }
}

typedef struct calls_check {
    const world *w;
    int n;
} calls_check;

static int check_calls(void *ctx, const ari_ec_message *m, const ari_ec_call *send, const ari_ec_call *recv)
{
    calls_check *c = ctx;
    c->n++;
    const st_row *bs = brute_call(c->w, (int)m->src_container - 100, m->send_time, 0);
    const st_row *br = brute_call(c->w, (int)m->dst_container - 100, m->recv_time, 1);
    assert_int_equal(send->found, bs != NULL);
    assert_int_equal(recv->found, br != NULL);
    if (bs) {
        assert_true(send->enter == bs->start && send->leave == bs->end);
        assert_string_equal(send->name, fnames[bs->name]);
    }
    if (br) {
        assert_true(recv->enter == br->start && recv->leave == br->end);
        assert_string_equal(recv->name, fnames[br->name]);
    }
    return 0;
}

typedef struct pairs_sum {
    int64_t bytes[NLOCS][NLOCS], count[NLOCS][NLOCS];
} pairs_sum;

static int sum_pair(void *ctx, int32_t src, int32_t dst, int64_t bytes, int64_t count)
{
    pairs_sum *p = ctx;
    p->bytes[src][dst] += bytes;
    p->count[src][dst] += count;
    return 0;
}

typedef struct msg_list {
    ari_ec_message m[MAXMSG];
    int64_t count[MAXMSG];
    int n;
} msg_list;

static int keep_message(void *ctx, const ari_ec_message *m)
{
    msg_list *l = ctx;
    l->m[l->n++] = *m;
    return 0;
}

static int keep_bundle(void *ctx, const ari_ec_message *m, int64_t count)
{
    msg_list *l = ctx;
    l->count[l->n] = count;
    l->m[l->n++] = *m;
    return 0;
}

static int stop_at_three(void *ctx, const ari_ec_message *m)
{
    (void)m;
    return ++*(int *)ctx == 3 ? 5 : 0;
}

/* What the store answers about trace 3 (the world w), from its
 * ev_messages rows or its message chunks alike. */
static void check_store(ari_store *s, const world *w)
{
    ari_error err = {0};
    /* ranks, locations, unmatched */
    int32_t *ranks;
    int nranks;
    assert_int_equal(ari_evq_ranks(s, 3, &ranks, &nranks, &err), 0);
    assert_int_equal(nranks, NLOCS);
    for (int i = 0; i < nranks; i++)
        assert_int_equal(ranks[i], i);
    free(ranks);
    ari_evq_location *locs;
    size_t nlocs;
    assert_int_equal(ari_evq_locations(s, 3, &locs, &nlocs, &err), 0);
    assert_int_equal(nlocs, NLOCS);
    assert_int_equal(locs[2].container_id, 102);
    assert_int_equal(locs[2].process_id, 12);
    free(locs);
    int64_t us, ur;
    assert_int_equal(ari_evq_unmatched(s, 3, &us, &ur, &err), 0);
    assert_int_equal(us, 2);
    assert_int_equal(ur, 0);

    /* extent: the instant at 0.25 first, the last container end (1003) */
    double lo, hi;
    assert_int_equal(ari_evq_extent(s, 3, &lo, &hi, &err), 0);
    assert_true(lo == 0.25);
    assert_true(hi == 1003);

    /* pairs against the messages */
    static pairs_sum ps, want;
    memset(&ps, 0, sizeof ps);
    memset(&want, 0, sizeof want);
    for (int k = 0; k < w->nmsg; k++) {
        want.bytes[w->msg[k].src_rank][w->msg[k].dst_rank] += w->msg[k].bytes;
        want.count[w->msg[k].src_rank][w->msg[k].dst_rank]++;
    }
    assert_int_equal(ari_evq_pairs(s, 3, sum_pair, &ps, &err), 0);
    assert_memory_equal(&ps, &want, sizeof ps);

    /* sizes */
    double mn, mx;
    int64_t n;
    assert_int_equal(ari_evq_size_range(s, 3, &mn, &mx, &n, &err), 0);
    assert_int_equal(n, w->nmsg);

    /* paging by send time, and a callback that stops */
    static msg_list all, page;
    all.n = page.n = 0;
    assert_int_equal(ari_evq_messages(s, 3, NAN, NAN, 0, -1, keep_message, &all, &err), 0);
    assert_int_equal(all.n, w->nmsg);
    for (int k = 1; k < all.n; k++)
        assert_true(all.m[k - 1].send_time <= all.m[k].send_time);
    assert_int_equal(ari_evq_messages(s, 3, 100, 500, 5, 10, keep_message, &page, &err), 0);
    int64_t inwin = 0;
    for (int k = 0; k < all.n; k++)
        inwin += all.m[k].send_time >= 100 && all.m[k].send_time <= 500;
    assert_int_equal(ari_evq_message_count(s, 3, 100, 500, &n, &err), 0);
    assert_int_equal(n, inwin);
    assert_int_equal(page.n, 10);
    int first = 0;
    while (all.m[first].send_time < 100)
        first++;
    for (int k = 0; k < 10; k++)
        assert_true(page.m[k].send_time == all.m[first + 5 + k].send_time);
    int seen = 0;
    assert_int_equal(ari_evq_messages(s, 3, NAN, NAN, 0, -1, stop_at_three, &seen, &err), 5);

    /* the window's messages and their bundles */
    double t0 = 200, t1 = 600;
    int width = 7;
    int64_t wn = 0;
    for (int k = 0; k < w->nmsg; k++)
        wn += w->msg[k].send_time <= t1 && w->msg[k].recv_time >= t0;
    int64_t wpairs = 0, npairs = 0;
    for (int k = 0; k < w->nmsg; k++) {
        const ari_ec_message *m = &w->msg[k];
        int first_of_pair = m->send_time <= t1 && m->recv_time >= t0;
        for (int j = 0; first_of_pair && j < k; j++)
            first_of_pair = !(w->msg[j].send_time <= t1 && w->msg[j].recv_time >= t0 &&
                              w->msg[j].src_container == m->src_container &&
                              w->msg[j].dst_container == m->dst_container);
        wpairs += first_of_pair;
    }
    assert_int_equal(ari_evq_window_count(s, 3, t0, t1, &n, &npairs, &err), 0);
    assert_int_equal(n, wn);
    assert_int_equal(npairs, wpairs);
    static msg_list one, bundles;
    one.n = bundles.n = 0;
    assert_int_equal(ari_evq_window_messages(s, 3, t0, t1, 0, width, 0, keep_bundle, &one, &err), 0);
    assert_int_equal(one.n, wn);
    assert_int_equal(ari_evq_window_messages(s, 3, t0, t1, 1, width, 0, keep_bundle, &bundles, &err), 0);
    int64_t total = 0;
    for (int b = 0; b < bundles.n; b++) {
        /* brute force: the messages of this (src, dst) whose send pixel is the bundle's */
        int64_t cnt = 0, bytes = 0;
        double ssum = 0;
        int px = -1;
        for (int k = 0; k < w->nmsg; k++) {
            const ari_ec_message *m = &w->msg[k];
            if (!(m->send_time <= t1 && m->recv_time >= t0) ||
                m->src_container != bundles.m[b].src_container ||
                m->dst_container != bundles.m[b].dst_container)
                continue;
            int p = (int)((m->send_time - t0) * width / (t1 - t0));
            p = p < 0 ? 0 : p > width - 1 ? width - 1 : p;
            double lo_t = t0 + (t1 - t0) * p / width;
            /* the bundle's pixel from its mean send time would be ambiguous: match by pixel of members */
            (void)lo_t;
            if (px < 0) {
                /* find the pixel: the one whose members' mean send time is the bundle's */
                int64_t c2 = 0;
                double s2 = 0;
                for (int q = 0; q < w->nmsg; q++) {
                    const ari_ec_message *o = &w->msg[q];
                    int po = (int)((o->send_time - t0) * width / (t1 - t0));
                    po = po < 0 ? 0 : po > width - 1 ? width - 1 : po;
                    if (po == p && o->send_time <= t1 && o->recv_time >= t0 &&
                        o->src_container == m->src_container && o->dst_container == m->dst_container)
                        c2++, s2 += o->send_time;
                }
                if (c2 == bundles.count[b] && fabs(s2 / c2 - bundles.m[b].send_time) < 1e-9)
                    px = p;
                else
                    continue;
            }
            if (p != px)
                continue;
            cnt++;
            bytes += m->bytes;
            ssum += m->send_time;
        }
        assert_true(px >= 0);
        assert_int_equal(cnt, bundles.count[b]);
        assert_int_equal(bytes, bundles.m[b].bytes);
        assert_true(fabs(ssum / cnt - bundles.m[b].send_time) < 1e-9);
        total += bundles.count[b];
    }
    assert_int_equal(total, wn);
    assert_true(bundles.n < one.n);

    /* the calls of every message against brute force */
    calls_check cc = {w, 0};
    assert_int_equal(ari_evq_message_calls(s, 3, check_calls, &cc, &err), 0);
    assert_int_equal(cc.n, w->nmsg);
}

static void test_store(void **state)
{
    test_db *f = *state;
    const char *db_path = f->db_path;
    ari_error err = {0};
    ari_store *s = f->s;
    rng_state = 2024;
    static world w;
    gen_world(&w);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    exec_sql(db, "BEGIN");
    exec_sql(db, "INSERT INTO traces(id, name, kind, format, time_unit, summary_json) VALUES"
                 " (3, 'e', 'events', 'otf2', 'ns', '{\"unmatched_sends\":2}')");
    exec_sql(db, "INSERT INTO entity_types(trace_id, id, nature, alias, name, parent_id) VALUES"
                 " (3, 1, 'container', 'P', 'Process', NULL), (3, 2, 'container', 'T', 'Thread', 1),"
                 " (3, 7, 'state', 'F', 'Function', 2), (3, 4, 'event', 'E', 'Instant', 2),"
                 " (3, 8, 'state', 'X', 'Other', 2)");
    exec_sql(db, "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end) VALUES"
                 " (3, 1, NULL, NULL, '0', '0', 0, 0)");
    char sql[512];
    for (int n = 0; n < 6; n++) {
        snprintf(sql, sizeof sql, "INSERT INTO names(trace_id, id, name) VALUES (3, %d, '%s')", 50 - n,
                 fnames[n]);
        exec_sql(db, sql);
    }
    for (int l = 0; l < NLOCS; l++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
                 " VALUES (3, %d, 1, 1, 'p%d', 'rank %d', 0, 1000);"
                 "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
                 " VALUES (3, %d, %d, 2, 't%d', 'thread', 0, %d);"
                 "INSERT INTO ev_locations(trace_id, container_id, process_id, rank, thread) VALUES (3, %d, "
                 "%d, %d, 0)",
                 10 + l, l, l, 100 + l, 10 + l, l, 1000 + l, 100 + l, 10 + l, l);
        exec_sql(db, sql);
    }
    for (int i = 0; i < w.nst; i++) {
        const st_row *r = &w.st[i];
        snprintf(sql, sizeof sql,
                 "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth)"
                 " VALUES (3, %d, 7, %d, %.17g, %.17g, %d)",
                 100 + r->loc, 50 - r->name, r->start, r->end, r->depth);
        exec_sql(db, sql);
    }
    /* a state of another type, deeper and containing everything: ignored */
    exec_sql(db, "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth)"
                 " VALUES (3, 100, 8, 50, 0.5, 999, 9)");
    for (int k = 0; k < w.nmsg; k++) {
        const ari_ec_message *m = &w.msg[k];
        snprintf(
            sql, sizeof sql,
            "INSERT INTO ev_messages(trace_id, src_container, dst_container, src_rank, dst_rank, tag, comm,"
            " bytes, send_time, recv_time, seq) VALUES (3, %lld, %lld, %d, %d, %lld, 0, %lld, %.17g, %.17g, %d)",
            (long long)m->src_container, (long long)m->dst_container, (int)m->src_rank, (int)m->dst_rank,
            (long long)m->tag, (long long)m->bytes, m->send_time, m->recv_time, k);
        exec_sql(db, sql);
    }
    exec_sql(
        db,
        "INSERT INTO events(trace_id, container_id, type_id, value_id, time, seq) VALUES (3, 102, 4, 50, 0.25, 0)");
    exec_sql(db, "COMMIT");
    sqlite3_close(db);

    check_store(s, &w);
    /* the same trace with its messages packed (as imported since sql/018) */
    ari_message_packer *p = ari_message_packer_new(s, 3, &err);
    assert_non_null(p);
    for (int k = 0; k < w.nmsg; k++)
        assert_int_equal(ari_message_packer_add(p, &w.msg[k], &err), 0);
    assert_int_equal(ari_message_packer_finish(p, &err), 0);
    ari_message_packer_free(p);
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    exec_sql(db, "DELETE FROM ev_messages");
    sqlite3_close(db);
    check_store(s, &w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),       cmocka_unit_test(test_hist_numpy_cases),
        cmocka_unit_test(test_hist_random),  cmocka_unit_test(test_wait_classify),
        cmocka_unit_test(test_waits_random), cmocka_unit_test_setup_teardown(test_store, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
