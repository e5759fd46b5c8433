/* event_comm.c: the communication matrix, numpy-style histograms and
 * Scalasca's wait states of an event trace's messages (see event_comm.h). */
#include "analysis/event_comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* ---- the matrix ---- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void ari_ec_matrix_free(ari_ec_matrix *m)
{
    free(m->ranks);
    free(m->bytes);
    free(m->count);
    free(m->sent_bytes);
    free(m->sent_count);
    free(m->recv_bytes);
    free(m->recv_count);
    memset(m, 0, sizeof *m);
}

int ari_ec_matrix_init(ari_ec_matrix *m, const int32_t *ranks, int nranks, int max_ranks, ari_error *err)
{
    memset(m, 0, sizeof *m);
    if (nranks < 0 || max_ranks < 1 || max_ranks > ARI_EC_MAX_RANKS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "max_ranks must be in 1..%d, got %d",
                             ARI_EC_MAX_RANKS, max_ranks);
    size_t nr = nranks ? (size_t)nranks : 1;
    m->ranks = malloc(nr * sizeof *m->ranks);
    if (!m->ranks)
        return nomem(err);
    if (nranks)
        memcpy(m->ranks, ranks, (size_t)nranks * sizeof *ranks);
    qsort(m->ranks, (size_t)nranks, sizeof *m->ranks, cmp_i32);
    int k = 0;
    for (int i = 0; i < nranks; i++)
        if (k == 0 || m->ranks[k - 1] != m->ranks[i])
            m->ranks[k++] = m->ranks[i];
    m->nranks = k;
    m->block = k > max_ranks ? (k + max_ranks - 1) / max_ranks : 1;
    m->nblocks = (k + m->block - 1) / m->block;
    size_t cells = (size_t)m->nblocks * (size_t)m->nblocks;
    if (!cells)
        cells = 1;
    m->bytes = calloc(cells, sizeof *m->bytes);
    m->count = calloc(cells, sizeof *m->count);
    m->sent_bytes = calloc(nr, sizeof(int64_t));
    m->sent_count = calloc(nr, sizeof(int64_t));
    m->recv_bytes = calloc(nr, sizeof(int64_t));
    m->recv_count = calloc(nr, sizeof(int64_t));
    if (!m->bytes || !m->count || !m->sent_bytes || !m->sent_count || !m->recv_bytes || !m->recv_count) {
        ari_ec_matrix_free(m);
        return nomem(err);
    }
    return 0;
}

int ari_ec_rank_index(const ari_ec_matrix *m, int32_t r)
{
    int lo = 0, hi = m->nranks;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->ranks[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nranks && m->ranks[lo] == r ? lo : -1;
}

void ari_ec_matrix_add(ari_ec_matrix *m, int32_t src, int32_t dst, int64_t bytes, int64_t count)
{
    int i = ari_ec_rank_index(m, src), j = ari_ec_rank_index(m, dst);
    if (i < 0 || j < 0) {
        m->unknown += count;
        return;
    }
    size_t cell = (size_t)(i / m->block) * (size_t)m->nblocks + (size_t)(j / m->block);
    m->bytes[cell] += bytes;
    m->count[cell] += count;
    m->sent_bytes[i] += bytes;
    m->sent_count[i] += count;
    m->recv_bytes[j] += bytes;
    m->recv_count[j] += count;
    m->total_bytes += bytes;
    m->total_count += count;
}

/* ---- histograms ---- */

void ari_ec_hist_free(ari_ec_hist *h)
{
    free(h->edges);
    free(h->values);
    memset(h, 0, sizeof *h);
}

int ari_ec_hist_init(ari_ec_hist *h, int bins, double lo, double hi, ari_error *err)
{
    memset(h, 0, sizeof *h);
    if (bins < 1 || bins > ARI_EC_MAX_BINS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "bins must be in 1..%d, got %d", ARI_EC_MAX_BINS,
                             bins);
    if (!isfinite(lo) || !isfinite(hi) || lo > hi)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "histogram range [%g, %g] is not a finite range",
                             lo, hi);
    if (lo == hi) { /* numpy's _get_outer_edges */
        lo -= 0.5;
        hi += 0.5;
    }
    h->bins = bins;
    h->edges = malloc(((size_t)bins + 1) * sizeof *h->edges);
    h->values = calloc((size_t)bins, sizeof *h->values);
    if (!h->edges || !h->values) {
        ari_ec_hist_free(h);
        return nomem(err);
    }
    /* numpy.linspace: start + i * (delta / n), the last edge exactly hi */
    double step = (hi - lo) / bins;
    for (int i = 0; i < bins; i++)
        h->edges[i] = lo + i * step;
    h->edges[bins] = hi;
    return 0;
}

int ari_ec_hist_add(ari_ec_hist *h, double x, double w)
{
    int n = h->bins;
    double lo = h->edges[0], hi = h->edges[n];
    if (!(x >= lo && x <= hi))
        return -1;
    /* numpy's search for equal bins: the float guess, then corrected
     * against the edges so that a value on an edge goes to the bin it
     * starts (the last bin also takes hi) */
    double f = (x - lo) / (hi - lo) * n;
    int i = f >= n ? n : (int)f;
    if (i == n)
        i--;
    if (x < h->edges[i])
        i--;
    else if (x >= h->edges[i + 1] && i != n - 1)
        i++;
    h->values[i] += w;
    return i;
}

/* ---- wait states ---- */

static int name_in(const char *name, const char *const *set)
{
    for (; name && *set; set++)
        if (strcmp(name, *set) == 0)
            return 1;
    return 0;
}

int ari_ec_is_receive_call(const char *name)
{
    static const char *const calls[] = {
        "MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Probe",    "MPI_Mprobe", "MPI_Mrecv",
        "MPI_Wait", "MPI_Waitall",  "MPI_Waitany",          "MPI_Waitsome", NULL};
    return name_in(name, calls);
}

int ari_ec_is_blocking_send(const char *name)
{
    static const char *const calls[] = {"MPI_Send", "MPI_Ssend", NULL};
    return name_in(name, calls);
}

static int is_mpi(const char *name)
{
    return name && strncmp(name, "MPI_", 4) == 0;
}

int ari_ec_wait_classify(const ari_ec_call *send, const ari_ec_call *recv, ari_ec_wait *out)
{
    memset(out, 0, sizeof *out);
    if (!send->found || !recv->found || !is_mpi(send->name) || !is_mpi(recv->name))
        return 0;
    if (ari_ec_is_receive_call(recv->name) && recv->enter < send->enter) {
        out->late_sender_count = 1;
        out->late_sender_time = send->enter - recv->enter;
        return 1;
    }
    if (ari_ec_is_blocking_send(send->name) && send->enter < recv->enter && recv->enter < send->leave) {
        out->late_receiver_count = 1;
        out->late_receiver_time = recv->enter - send->enter;
        return 1;
    }
    return 0;
}

void ari_ec_waits_init(ari_ec_waits *ws)
{
    memset(ws, 0, sizeof *ws);
}

void ari_ec_waits_free(ari_ec_waits *ws)
{
    free(ws->slots);
    memset(ws, 0, sizeof *ws);
}

static int used(const ari_ec_wait_pair *p)
{
    return p->w.late_sender_count || p->w.late_receiver_count;
}

static size_t slot_of(size_t cap, int32_t s, int32_t r)
{
    uint64_t h = ((uint64_t)(uint32_t)s << 32) | (uint32_t)r;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

static ari_ec_wait_pair *find_slot(ari_ec_wait_pair *slots, size_t cap, int32_t s, int32_t r)
{
    size_t i = slot_of(cap, s, r);
    while (used(&slots[i]) && !(slots[i].sender == s && slots[i].receiver == r))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(ari_ec_waits *ws, ari_error *err)
{
    size_t cap = ws->cap ? ws->cap * 2 : 64;
    ari_ec_wait_pair *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return nomem(err);
    for (size_t i = 0; i < ws->cap; i++)
        if (used(&ws->slots[i]))
            *find_slot(slots, cap, ws->slots[i].sender, ws->slots[i].receiver) = ws->slots[i];
    free(ws->slots);
    ws->slots = slots;
    ws->cap = cap;
    return 0;
}

static void wait_sum(ari_ec_wait *to, const ari_ec_wait *w)
{
    to->late_sender_count += w->late_sender_count;
    to->late_sender_time += w->late_sender_time;
    to->late_receiver_count += w->late_receiver_count;
    to->late_receiver_time += w->late_receiver_time;
}

int ari_ec_waits_add(ari_ec_waits *ws, int32_t sender, int32_t receiver, const ari_ec_wait *w, ari_error *err)
{
    if (!w->late_sender_count && !w->late_receiver_count)
        return 0;
    if ((ws->n + 1) * 2 > ws->cap && grow(ws, err) < 0)
        return -1;
    ari_ec_wait_pair *p = find_slot(ws->slots, ws->cap, sender, receiver);
    if (!used(p)) {
        p->sender = sender;
        p->receiver = receiver;
        ws->n++;
    }
    wait_sum(&p->w, w);
    wait_sum(&ws->totals, w);
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const ari_ec_wait_pair *x = a, *y = b;
    if (x->sender != y->sender)
        return x->sender < y->sender ? -1 : 1;
    return (x->receiver > y->receiver) - (x->receiver < y->receiver);
}

int ari_ec_waits_sorted(const ari_ec_waits *ws, ari_ec_wait_pair **out, size_t *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    if (!ws->n)
        return 0;
    ari_ec_wait_pair *list = malloc(ws->n * sizeof *list);
    if (!list)
        return nomem(err);
    size_t k = 0;
    for (size_t i = 0; i < ws->cap; i++)
        if (used(&ws->slots[i]))
            list[k++] = ws->slots[i];
    qsort(list, k, sizeof *list, cmp_pair);
    *out = list;
    *n = k;
    return 0;
}

static int cmp_rank(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The index of rank r in the sorted, distinct ranks, or -1. */
static int index_of(const int32_t *ranks, int n, int32_t r)
{
    const int32_t *at = n > 0 ? bsearch(&r, ranks, (size_t)n, sizeof *ranks, cmp_rank) : NULL;
    return at ? (int)(at - ranks) : -1;
}

void ari_ec_waits_by_rank(const ari_ec_wait_pair *pairs, size_t npairs, const int32_t *ranks, int nranks,
                          ari_ec_wait *out)
{
    memset(out, 0, (size_t)(nranks > 0 ? nranks : 0) * sizeof *out);
    for (size_t k = 0; k < npairs; k++) {
        int r = index_of(ranks, nranks, pairs[k].receiver), s = index_of(ranks, nranks, pairs[k].sender);
        if (r >= 0) {
            out[r].late_sender_count += pairs[k].w.late_sender_count;
            out[r].late_sender_time += pairs[k].w.late_sender_time;
        }
        if (s >= 0) {
            out[s].late_receiver_count += pairs[k].w.late_receiver_count;
            out[s].late_receiver_time += pairs[k].w.late_receiver_time;
        }
    }
}
