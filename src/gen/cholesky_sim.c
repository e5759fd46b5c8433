/* cholesky_sim.c: the simulated StarPU run of a tiled Cholesky (see
 * cholesky_sim.h): task algebra from tile indices, the discrete-event list
 * scheduler, the data-transfer model, and the writers of tasks.rec,
 * dag.dot, data.rec, comms.rec, paje.trace, README.txt and manifest.json.
 *
 * Tasks are named by (kind, k, m, n) where (m, n) is the tile they write:
 *   dplgsy(m,n)  W  A(m,n)                       position 0 of tile (m,n)
 *   dpotrf(k)    RW A(k,k)                       position k+1 (last) of (k,k)
 *   dtrsm(k,m)   R A(k,k), RW A(m,k)             position k+1 (last) of (m,k)
 *   dsyrk(k,n)   R A(n,k), RW A(n,n)             position k+1 of (n,n)
 *   dgemm(k,m,n) R A(m,k), R A(n,k), RW A(m,n)   position k+1 of (m,n)
 * Every tile (m,n), m >= n, has the chain of n+2 writers above, so a task
 * is ready when its tile's previous writer is done and the tiles it reads
 * are final. Times are integer picoseconds internally.
 */
#include "gen/cholesky_sim.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/starpu_writer.h"
#include "util/free_all.h"
#include "util/heap.h"

enum { K_PLGSY, K_POTRF, K_TRSM, K_SYRK, K_GEMM, K_COUNT };
enum { R_CPU, R_GPU };
enum { EV_READY, EV_END, EV_FREE };

#define PS_PER_MS 1000000000LL
#define PS_PER_US 1000000LL

static const char *const kind_name[K_COUNT] = {"dplgsy", "dpotrf", "dtrsm", "dsyrk", "dgemm"};
static const char *const kind_color[K_COUNT] = {"/blues9/7", "/reds9/7", "/oranges9/7",
                                                "/purples9/7", "/greens9/7"};
static const char *const kind_paje_color[K_COUNT] = {"0.2 0.4 0.8", "0.9 0.1 0.1", "1.0 0.6 0.0",
                                                     "0.6 0.3 0.8", "0.1 0.7 0.2"};
/* Mean durations (ms) for nb = 960 doubles; -1 = cannot run there. */
static const double base_ms[K_COUNT][2] = {
    {4.0, -1.0}, {14.0, 18.0}, {32.0, 3.0}, {30.0, 1.6}, {55.0, 2.0}};

#define JITTER_SIGMA 0.05
#define OUTLIER_PROB 0.004
#define PCIE_LAT_PS (10 * PS_PER_US)
#define PCIE_BYTES_PER_MS 12.0e6 /* 12 GB/s */
#define MPI_LAT_PS (20 * PS_PER_US)
#define MPI_BYTES_PER_MS 10.0e6 /* 10 GB/s */
#define SUBMIT_START_PS (5 * PS_PER_MS)
#define SUBMIT_COST_PS (1 * PS_PER_US)

typedef struct task {
    int kind, k, m, n;
} task;

typedef struct worker {
    int node, local, type, memnode, busy;
    int64_t free_at;
    char alias[32];
} worker;

typedef struct ready_item {
    int32_t prio;
    uint64_t gidx;
    uint64_t code;
} ready_item;

typedef struct ready_heap {
    ready_item *v;
    size_t n, cap;
} ready_heap;

typedef struct node_state {
    chol_node_cfg cfg;
    int first_worker, nworkers;
    ready_heap ready[K_COUNT];
    int64_t nready, nleft;
    int64_t nic_out_free, nic_in_free;
    int64_t bus_free[CHOL_MAX_GPUS + 1];
    int64_t mem_used[CHOL_MAX_GPUS + 1];
    uint64_t tasks;
    char prefix[16];
    int misc_stream;
} node_state;

typedef struct event {
    int64_t time;
    uint64_t seq;
    uint64_t code;
    int32_t worker;
    int32_t type;
} event;

typedef struct sim {
    const chol_options *opt;
    int T, nb, N, P, Q, MN;
    int64_t tile_bytes;
    uint64_t NT, total;
    uint64_t *step_off;
    int32_t *writes;
    int64_t *last_end;
    int64_t *copy;
    int32_t *comm_of;
    uint32_t *mark;
    uint32_t stamp;
    node_state *nodes;
    worker *workers;
    int nworkers;
    event *ev;
    size_t nev, cap_ev;
    uint64_t ev_seq;
    uint64_t rng[4];
    int64_t now;
    uint64_t done;
    uint64_t comm_ids, link_ids;
    int comm_stream;
    char params1[64];
    sw_paje *paje;
    sw_file tasks, dag, comms;
    chol_summary sum;
    int nomem;
} sim;

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ----------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(sim *s)
{
    uint64_t *r = s->rng;
    uint64_t result = rotl(r[1] * 5, 7) * 9;
    uint64_t t = r[1] << 17;
    r[2] ^= r[0];
    r[3] ^= r[1];
    r[1] ^= r[2];
    r[0] ^= r[3];
    r[2] ^= t;
    r[3] = rotl(r[3], 45);
    return result;
}

static double rng_uniform(sim *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

static double rng_gauss(sim *s)
{
    double u = rng_uniform(s), v = rng_uniform(s);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* A short overhead in [lo, hi] microseconds, scaled by the node slowdown. */
static int64_t overhead(sim *s, double lo_us, double hi_us, double slow)
{
    double us = lo_us + (hi_us - lo_us) * rng_uniform(s);
    return (int64_t)(us * slow * (double)PS_PER_US);
}

/* ---- task algebra ------------------------------------------------------------ */

static uint64_t tile_id(int m, int n) { return (uint64_t)m * (uint64_t)(m + 1) / 2 + (uint64_t)n; }

static int owner(const sim *s, int m, int n) { return (m % s->P) * s->Q + (n % s->Q); }

static uint64_t task_pack(task t)
{
    return (uint64_t)t.kind << 60 | (uint64_t)(t.k + 1) << 40 | (uint64_t)t.m << 20 |
           (uint64_t)t.n;
}

static task task_unpack(uint64_t c)
{
    task t = {(int)(c >> 60), (int)((c >> 40) & 0xfffff) - 1, (int)((c >> 20) & 0xfffff),
              (int)(c & 0xfffff)};
    return t;
}

static task mk(int kind, int k, int m, int n)
{
    task t = {kind, k, m, n};
    return t;
}

static int task_position(task t) { return t.kind == K_PLGSY ? 0 : t.k + 1; }

static int tile_writers(int n) { return n + 2; }

/* Submission order (0-based) of a task, in the loop order of the program. */
static uint64_t task_gidx(const sim *s, task t)
{
    uint64_t base = t.kind == K_PLGSY ? 0 : s->step_off[t.k];
    switch (t.kind) {
    case K_PLGSY:
        return tile_id(t.m, t.n);
    case K_POTRF:
        return base;
    case K_TRSM:
        return base + 1 + (uint64_t)(t.m - t.k - 1);
    default: {
        uint64_t r = (uint64_t)(s->T - 1 - t.k);
        uint64_t np = (uint64_t)(t.n - t.k - 1);
        /* the blocks of earlier columns hold sum_{i<np} (r - i) tasks */
        uint64_t block = base + 1 + r + np * r - (np * (np > 0 ? np - 1 : 0)) / 2;
        return t.kind == K_SYRK ? block : block + 1 + (uint64_t)(t.m - t.n - 1);
    }
    }
}

static int task_priority(const sim *s, task t)
{
    int T2 = 2 * s->T;
    switch (t.kind) {
    case K_POTRF:
        return T2 - 2 * t.k;
    case K_TRSM:
        return T2 - 2 * t.k - t.m;
    case K_SYRK:
        return T2 - 2 * t.k - t.n;
    case K_GEMM:
        return T2 - 2 * t.k - t.n - t.m;
    default:
        return 0;
    }
}

/* Tiles read (not written) by a task; returns their count. */
static int task_reads(task t, int rm[2], int rn[2])
{
    switch (t.kind) {
    case K_TRSM:
        rm[0] = t.k, rn[0] = t.k;
        return 1;
    case K_SYRK:
        rm[0] = t.n, rn[0] = t.k;
        return 1;
    case K_GEMM:
        rm[0] = t.m, rn[0] = t.k;
        rm[1] = t.n, rn[1] = t.k;
        return 2;
    default:
        return 0;
    }
}

/* The task writing tile (m,n) at chain position p (0 <= p <= n+1). */
static task tile_writer(int m, int n, int p)
{
    if (p == 0)
        return mk(K_PLGSY, -1, m, n);
    if (p == n + 1)
        return m == n ? mk(K_POTRF, n, n, n) : mk(K_TRSM, n, m, n);
    return m == n ? mk(K_SYRK, p - 1, n, n) : mk(K_GEMM, p - 1, m, n);
}

static task final_writer(int m, int n) { return tile_writer(m, n, n + 1); }

static double gflop(const sim *s, int kind)
{
    double nb = s->nb;
    switch (kind) {
    case K_POTRF:
        return (nb * nb * nb / 3.0 + nb * nb / 2.0 + nb / 6.0) * 1e-9;
    case K_TRSM:
    case K_SYRK:
        return nb * nb * (nb + 1) * 1e-9;
    case K_GEMM:
        return 2.0 * nb * nb * nb * 1e-9;
    default:
        return 0.0;
    }
}

static int task_nbuffers(int kind) { return kind == K_GEMM ? 3 : (kind == K_TRSM || kind == K_SYRK) ? 2 : 1; }

static uint32_t footprint(const sim *s, int kind)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%s:%d:%d", kind_name[kind], s->nb, task_nbuffers(kind));
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint8_t)buf[i]) * 16777619u;
    return h;
}

static uint64_t handle_addr(int node, uint64_t tile)
{
    return 0x55d4a3c00000ULL + (uint64_t)node * 0x1000000000ULL + tile * 0x690ULL;
}

/* ---- heaps ---------------------------------------------------------------------- */

static int ev_less(const void *pa, const void *pb)
{
    const event *a = pa, *b = pb;
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void ev_push(sim *s, int type, int64_t time, uint64_t code, int worker)
{
    event e = {time, s->ev_seq++, code, worker, type};
    if (ari_heap_push((void **)&s->ev, &s->nev, &s->cap_ev, sizeof e, &e, ev_less) != 0)
        s->nomem = 1;
}

static event ev_pop(sim *s)
{
    event top;
    ari_heap_pop(s->ev, &s->nev, sizeof top, &top, ev_less);
    return top;
}

/* Ready items: highest priority first, then submission order. */
static int ready_before(const void *pa, const void *pb)
{
    const ready_item *a = pa, *b = pb;
    return a->prio != b->prio ? a->prio > b->prio : a->gidx < b->gidx;
}

static int ready_push(ready_heap *h, ready_item it)
{
    return ari_heap_push((void **)&h->v, &h->n, &h->cap, sizeof it, &it, ready_before);
}

static ready_item ready_pop(ready_heap *h)
{
    ready_item top;
    ari_heap_pop(h->v, &h->n, sizeof top, &top, ready_before);
    return top;
}

/* ---- paje emission ------------------------------------------------------------ */

static void count_line(sim *s, const sw_line *l)
{
    if (l->n < 2)
        return;
    char a = l->s[0], b = l->s[1];
    if ((a == '1' && b == '0') || (a == '1' && b == '1') || (a == '2' && b == '0'))
        s->sum.paje_states++;
    else if (a == '1' && b == '3')
        s->sum.paje_variables++;
    else if (a == '1' && b == '9')
        s->sum.paje_links++;
    else if (a == '9' && b == '\t')
        s->sum.paje_events++;
    else if (a == '7' && b == '\t')
        s->sum.paje_containers++;
}

static void emit(sim *s, int stream, int64_t ps, const sw_line *l)
{
    count_line(s, l);
    if (sw_paje_emit(s->paje, stream, ps, l) != 0)
        s->nomem = 1;
}

/* Container creation: at the top of the file unless sorting by time. */
static void emit_create(sim *s, int64_t ps, const sw_line *l)
{
    if (s->opt->sorted) {
        emit(s, 0, ps, l);
    } else {
        count_line(s, l);
        sw_paje_raw(s->paje, l->s, l->n);
    }
}

/* Starts a body line "<id>\t<time>". */
static void line_start(sw_line *l, const char *id, int64_t ps)
{
    sw_reset(l);
    sw_str(l, id);
    sw_chr(l, '\t');
    sw_ms(l, ps, 9);
}

static void field(sw_line *l, const char *v)
{
    sw_chr(l, '\t');
    sw_str(l, v);
}

static void field2(sw_line *l, const char *prefix, const char *v)
{
    sw_chr(l, '\t');
    sw_str(l, prefix);
    sw_str(l, v);
}

static void line_end(sw_line *l) { sw_chr(l, '\n'); }

static void emit_worker_state(sim *s, const worker *w, int64_t ps, const char *value)
{
    sw_line l;
    line_start(&l, "10", ps);
    field(&l, w->alias);
    field(&l, "WS");
    sw_str(&l, "\t\"");
    sw_str(&l, value);
    sw_chr(&l, '"');
    line_end(&l);
    emit(s, w->local + s->nodes[w->node].first_worker, ps, &l);
}

/* Push (value != NULL) or pop of a nested worker state (Scheduling, Callback). */
static void emit_worker_nested(sim *s, const worker *w, int64_t ps, const char *value)
{
    sw_line l;
    line_start(&l, value ? "11" : "12", ps);
    field(&l, w->alias);
    field(&l, "WS");
    if (value)
        field(&l, value);
    line_end(&l);
    emit(s, w->local + s->nodes[w->node].first_worker, ps, &l);
}

static void emit_worker_push(sim *s, const worker *w, int64_t ps, const char *value)
{
    emit_worker_nested(s, w, ps, value);
}

static void emit_worker_pop(sim *s, const worker *w, int64_t ps) { emit_worker_nested(s, w, ps, NULL); }

static void emit_variable(sim *s, int stream, int64_t ps, const char *prefix,
                          const char *container, const char *type, double value)
{
    sw_line l;
    line_start(&l, "13", ps);
    field2(&l, prefix, container);
    field(&l, type);
    sw_chr(&l, '\t');
    sw_f6(&l, value);
    line_end(&l);
    emit(s, stream, ps, &l);
}

static void emit_mem_state(sim *s, int node, int memnode, int64_t ps, const char *value)
{
    node_state *nd = &s->nodes[node];
    char mm[24];
    snprintf(mm, sizeof mm, "mm%d", memnode);
    sw_line l;
    line_start(&l, "10", ps);
    field2(&l, nd->prefix, mm);
    field(&l, "MS");
    field(&l, value);
    line_end(&l);
    emit(s, nd->misc_stream, ps, &l);
}

/* ---- data copies and transfers ------------------------------------------- */

#define COPY_NEVER (-2)
#define COPY_STALE (-1)

static int64_t *copy_at(sim *s, uint64_t tile, int node)
{
    return &s->copy[(tile * (uint64_t)s->N + (uint64_t)node) * (uint64_t)s->MN];
}

static void note_alloc(sim *s, int node, int memnode, int64_t ps)
{
    node_state *nd = &s->nodes[node];
    char mm[24];
    nd->mem_used[memnode] += s->tile_bytes;
    snprintf(mm, sizeof mm, "mm%d", memnode);
    emit_variable(s, nd->misc_stream, ps, nd->prefix, mm, "use",
                  (double)nd->mem_used[memnode] / 1048576.0);
}

static void tile_xy(uint64_t tile, int *m, int *n)
{
    /* inverse of tile_id: m = floor((sqrt(8t+1)-1)/2), then adjust */
    int mm = (int)((sqrt(8.0 * (double)tile + 1.0) - 1.0) / 2.0);
    while (tile_id(mm + 1, 0) <= tile)
        mm++;
    while (tile_id(mm, 0) > tile)
        mm--;
    *m = mm;
    *n = (int)(tile - tile_id(mm, 0));
}

/* A host<->GPU (or GPU<->GPU) copy of `tile` on `node` from memnode src to
 * dst, starting no earlier than `not_before`; returns its end. */
static int64_t node_transfer(sim *s, int node, uint64_t tile, int src, int dst, int64_t not_before)
{
    node_state *nd = &s->nodes[node];
    int64_t *c = copy_at(s, tile, node);
    int bus = dst != 0 ? dst : src;
    int64_t start = not_before;
    if (c[src] > start)
        start = c[src];
    if (nd->bus_free[bus] > start)
        start = nd->bus_free[bus];
    int64_t end = start + PCIE_LAT_PS +
                  (int64_t)((double)s->tile_bytes / PCIE_BYTES_PER_MS * (double)PS_PER_MS);
    nd->bus_free[bus] = end;
    if (c[dst] == COPY_NEVER)
        note_alloc(s, node, dst, start);
    c[dst] = end;

    int m, n;
    tile_xy(tile, &m, &n);
    uint64_t key = s->link_ids++;
    char mm[24];
    sw_line l;
    emit_mem_state(s, node, bus, start, "Co");
    line_start(&l, "24", start);
    field(&l, "F");
    field2(&l, nd->prefix, "p");
    sw_chr(&l, '\t');
    sw_i64(&l, s->tile_bytes);
    snprintf(mm, sizeof mm, "mm%d", src);
    field2(&l, nd->prefix, mm);
    sw_str(&l, "\tcom_");
    sw_i64(&l, (int64_t)key);
    sw_chr(&l, '\t');
    sw_hex(&l, handle_addr(node, tile), 1);
    sw_str(&l, "\t\"A\"\t");
    sw_i64(&l, n);
    sw_chr(&l, '\t');
    sw_i64(&l, m);
    line_end(&l);
    emit(s, nd->misc_stream, start, &l);
    line_start(&l, "19", end);
    field(&l, "F");
    field2(&l, nd->prefix, "p");
    sw_chr(&l, '\t');
    sw_i64(&l, s->tile_bytes);
    snprintf(mm, sizeof mm, "mm%d", dst);
    field2(&l, nd->prefix, mm);
    sw_str(&l, "\tcom_");
    sw_i64(&l, (int64_t)key);
    line_end(&l);
    emit(s, nd->misc_stream, end, &l);
    emit_mem_state(s, node, bus, end, "No");
    s->sum.node_transfers++;
    return end;
}

/* Time at which `tile` is valid on memnode `mn` of `node`, copying it there
 * if needed (from RAM when valid there, else from the first GPU holding it). */
static int64_t fetch(sim *s, int node, uint64_t tile, int mn, int64_t now)
{
    int64_t *c = copy_at(s, tile, node);
    if (c[mn] >= 0)
        return c[mn];
    int src = -1;
    for (int y = 0; y < s->MN; y++)
        if (c[y] >= 0) {
            src = y;
            break;
        }
    if (src < 0)
        return now; /* not reachable: a read tile is always valid somewhere */
    return node_transfer(s, node, tile, src, mn, now);
}

static void mark_reader(sim *s, task r, int from)
{
    int o = owner(s, r.m, r.n);
    if (o != from)
        s->mark[o] = s->stamp;
}

/* Marks the nodes (other than the owner) running a reader of final tile (m,n). */
static void mark_destinations(sim *s, int m, int n, int from)
{
    s->stamp++;
    if (m == n) {
        for (int i = n + 1; i < s->T; i++)
            mark_reader(s, mk(K_TRSM, n, i, n), from);
        return;
    }
    int k = n;
    mark_reader(s, mk(K_SYRK, k, m, m), from);
    for (int j = k + 1; j < m; j++)
        mark_reader(s, mk(K_GEMM, k, m, j), from);
    for (int i = m + 1; i < s->T; i++)
        mark_reader(s, mk(K_GEMM, k, i, m), from);
}

static void job_id(const sim *s, sw_line *l, int node, uint64_t gidx)
{
    if (s->N > 1) {
        sw_i64(l, node);
        sw_chr(l, '_');
    }
    sw_i64(l, (int64_t)gidx + 1);
}

static void mpi_send(sim *s, uint64_t tile, int m, int n, int from, int to, int64_t ram_ready)
{
    node_state *src = &s->nodes[from], *dst = &s->nodes[to];
    int64_t start = ram_ready;
    if (src->nic_out_free > start)
        start = src->nic_out_free;
    if (dst->nic_in_free > start)
        start = dst->nic_in_free;
    int64_t wire = (int64_t)((double)s->tile_bytes / MPI_BYTES_PER_MS * (double)PS_PER_MS);
    int64_t end = start + MPI_LAT_PS + wire;
    src->nic_out_free = dst->nic_in_free = start + wire;
    int64_t *c = copy_at(s, tile, to);
    if (c[0] == COPY_NEVER)
        note_alloc(s, to, 0, end);
    c[0] = end;
    uint64_t cid = s->comm_ids++;
    s->comm_of[tile * (uint64_t)s->N + (uint64_t)to] = (int32_t)cid;
    int64_t tag = (int64_t)m * s->T + n;
    task fw = final_writer(m, n);
    uint64_t fg = task_gidx(s, fw);

    sw_line l;
    line_start(&l, "23", start);
    field(&l, "MPIL");
    field(&l, "MPIroot");
    sw_chr(&l, '\t');
    sw_i64(&l, s->tile_bytes);
    field2(&l, src->prefix, "mpict");
    sw_str(&l, "\tmpicom_");
    sw_i64(&l, (int64_t)cid);
    sw_chr(&l, '\t');
    sw_i64(&l, tag);
    sw_str(&l, "\tPointToPoint\t");
    sw_i64(&l, task_priority(s, fw));
    sw_chr(&l, '\t');
    sw_hex(&l, handle_addr(from, tile), 1);
    sw_str(&l, "\t\"A\"\t");
    sw_i64(&l, n);
    sw_chr(&l, '\t');
    sw_i64(&l, m);
    line_end(&l);
    emit(s, s->comm_stream, start, &l);
    line_start(&l, "19", end);
    field(&l, "MPIL");
    field(&l, "MPIroot");
    sw_chr(&l, '\t');
    sw_i64(&l, s->tile_bytes);
    field2(&l, dst->prefix, "mpict");
    sw_str(&l, "\tmpicom_");
    sw_i64(&l, (int64_t)cid);
    line_end(&l);
    emit(s, s->comm_stream, end, &l);

    sw_reset(&l);
    sw_str(&l, "Src: ");
    sw_i64(&l, from);
    sw_str(&l, "\nDst: ");
    sw_i64(&l, to);
    sw_str(&l, "\nTag: ");
    sw_i64(&l, tag);
    sw_str(&l, "\nSendTime: ");
    sw_ms(&l, start, 9);
    sw_str(&l, "\nRecvTime: ");
    sw_ms(&l, end, 9);
    sw_str(&l, "\nSendHandle: ");
    sw_hex(&l, handle_addr(from, tile), 1);
    sw_str(&l, "\nRecvHandle: ");
    sw_hex(&l, handle_addr(to, tile), 1);
    sw_str(&l, "\nSendJobId: ");
    job_id(s, &l, from, fg);
    sw_str(&l, "\nSize: ");
    sw_i64(&l, s->tile_bytes);
    sw_str(&l, "\nPriority: ");
    sw_i64(&l, task_priority(s, fw));
    sw_str(&l, "\nType: PointToPoint\n\n");
    sw_file_line(&s->comms, &l);

    sw_reset(&l);
    sw_str(&l, "\t \"task_");
    job_id(s, &l, from, fg);
    sw_str(&l, "\"->\"mpi_");
    sw_i64(&l, tag);
    sw_chr(&l, '_');
    sw_i64(&l, (int64_t)cid);
    sw_str(&l, "\"\n");
    sw_file_line(&s->dag, &l);
    s->sum.mpi_transfers++;
}

/* Sends final tile (m,n), completed at `end`, to every node that reads it. */
static void send_final_tile(sim *s, int m, int n, int64_t end)
{
    if (s->N == 1)
        return;
    int o = owner(s, m, n);
    mark_destinations(s, m, n, o);
    uint64_t tile = tile_id(m, n);
    int64_t ram = -1;
    for (int d = 0; d < s->N; d++) {
        if (s->mark[d] != s->stamp)
            continue;
        if (ram < 0)
            ram = fetch(s, o, tile, 0, end);
        mpi_send(s, tile, m, n, o, d, ram);
    }
}

/* ---- readiness ------------------------------------------------------------------ */

static int64_t submit_time(uint64_t gidx) { return SUBMIT_START_PS + (int64_t)gidx * SUBMIT_COST_PS; }

static void try_ready(sim *s, task t)
{
    uint64_t w = tile_id(t.m, t.n);
    if (s->writes[w] != task_position(t))
        return;
    int rm[2], rn[2];
    int nr = task_reads(t, rm, rn);
    for (int i = 0; i < nr; i++)
        if (s->writes[tile_id(rm[i], rn[i])] != tile_writers(rn[i]))
            return;
    int node = owner(s, t.m, t.n);
    int64_t ready = submit_time(task_gidx(s, t));
    if (task_position(t) > 0 && s->last_end[w] > ready)
        ready = s->last_end[w];
    for (int i = 0; i < nr; i++) {
        uint64_t r = tile_id(rm[i], rn[i]);
        int64_t avail = owner(s, rm[i], rn[i]) == node ? s->last_end[r] : copy_at(s, r, node)[0];
        if (avail > ready)
            ready = avail;
    }
    ev_push(s, EV_READY, ready, task_pack(t), -1);
}

/* Successors of t once it has completed. */
static void release_successors(sim *s, task t)
{
    int pos = task_position(t);
    if (pos + 1 < tile_writers(t.n)) {
        try_ready(s, tile_writer(t.m, t.n, pos + 1));
        return;
    }
    if (t.kind == K_POTRF) {
        for (int i = t.k + 1; i < s->T; i++)
            try_ready(s, mk(K_TRSM, t.k, i, t.k));
    } else if (t.kind == K_TRSM) {
        int k = t.k, m = t.m;
        try_ready(s, mk(K_SYRK, k, m, m));
        for (int j = k + 1; j < m; j++)
            try_ready(s, mk(K_GEMM, k, m, j));
        for (int i = m + 1; i < s->T; i++)
            try_ready(s, mk(K_GEMM, k, i, m));
    }
}

/* ---- running a task -------------------------------------------------------------- */

static int can_run(const node_state *nd, int type, int kind)
{
    if (type == R_GPU)
        return nd->cfg.gpus > 0 && (base_ms[kind][R_GPU] > 0 || nd->cfg.cpus == 0);
    return nd->cfg.cpus > 0;
}

static double kind_scale(const sim *s, int kind)
{
    double r = s->nb / 960.0;
    return kind == K_PLGSY ? r * r : r * r * r;
}

static double expected_ms(const sim *s, const node_state *nd, int kind, int type)
{
    double b = base_ms[kind][type];
    if (b < 0)
        b = base_ms[kind][R_CPU] * 4.0; /* dplgsy on a GPU-only node */
    return b * kind_scale(s, kind) * nd->cfg.slowdown;
}

static int64_t draw_duration(sim *s, const node_state *nd, int kind, int type)
{
    double ms = expected_ms(s, nd, kind, type) * exp(JITTER_SIGMA * rng_gauss(s));
    if (rng_uniform(s) < OUTLIER_PROB)
        ms *= 1.5 + 1.5 * rng_uniform(s);
    int64_t ps = (int64_t)(ms * (double)PS_PER_MS);
    return ps > PS_PER_US ? ps : PS_PER_US;
}

static void params_string(const sim *s, sw_line *l, int nbuf, char sep)
{
    for (int i = 0; i < nbuf; i++) {
        if (i)
            sw_chr(l, sep);
        sw_str(l, s->params1);
    }
}

/* Buffers of a task in codelet order: tiles and modes. */
static int task_buffers(task t, int bm[3], int bn[3], const char *mode[3])
{
    int rm[2], rn[2];
    int nr = task_reads(t, rm, rn);
    for (int i = 0; i < nr; i++) {
        bm[i] = rm[i], bn[i] = rn[i];
        mode[i] = "R";
    }
    bm[nr] = t.m, bn[nr] = t.n;
    mode[nr] = t.kind == K_PLGSY ? "W" : "RW";
    return nr + 1;
}

static void write_task_rec(sim *s, task t, const worker *w, uint64_t gidx, int64_t t_start,
                           int64_t t_end)
{
    sw_line l;
    int node = w->node;
    int bm[3], bn[3];
    const char *mode[3];
    int nbuf = task_buffers(t, bm, bn, mode);

    sw_reset(&l);
    sw_str(&l, "Name: ");
    sw_str(&l, kind_name[t.kind]);
    sw_str(&l, "\nModel: ");
    sw_str(&l, kind_name[t.kind]);
    sw_str(&l, "\nJobId: ");
    job_id(s, &l, node, gidx);
    sw_str(&l, "\nSubmitOrder: ");
    sw_i64(&l, (int64_t)gidx + 1);
    sw_str(&l, "\nPriority: ");
    sw_i64(&l, task_priority(s, t));
    sw_chr(&l, '\n');
    sw_file_line(&s->tasks, &l);

    /* DependsOn: previous writer of the tile, then final writers of reads */
    task preds[3];
    int np = 0;
    if (task_position(t) > 0)
        preds[np++] = tile_writer(t.m, t.n, task_position(t) - 1);
    for (int i = 0; i + 1 < nbuf; i++)
        preds[np++] = final_writer(bm[i], bn[i]);
    if (np > 0) {
        sw_reset(&l);
        sw_str(&l, "DependsOn:");
        for (int i = 0; i < np; i++) {
            sw_chr(&l, ' ');
            job_id(s, &l, owner(s, preds[i].m, preds[i].n), task_gidx(s, preds[i]));
        }
        sw_str(&l, "\nDepLabels:");
        for (int i = 0; i < np; i++)
            sw_str(&l, " task");
        sw_chr(&l, '\n');
        sw_file_line(&s->tasks, &l);
    }

    sw_reset(&l);
    sw_str(&l, "Tag: 0\nWorkerId: ");
    sw_i64(&l, w->local);
    sw_str(&l, "\nMemoryNode: ");
    sw_i64(&l, w->memnode);
    sw_str(&l, "\nSubmitTime: ");
    sw_ms(&l, submit_time(gidx), 6);
    sw_str(&l, "\nStartTime: ");
    sw_ms(&l, t_start, 6);
    sw_str(&l, "\nEndTime: ");
    sw_ms(&l, t_end, 6);
    sw_str(&l, "\nFootprint: ");
    sw_hex(&l, footprint(s, t.kind), 1);
    if (t.kind != K_PLGSY) {
        sw_str(&l, "\nGFlop: ");
        sw_f6(&l, gflop(s, t.kind));
    }
    sw_str(&l, "\nIteration: ");
    sw_i64(&l, t.k < 0 ? 0 : t.k);
    sw_str(&l, "\nParameters: ");
    params_string(s, &l, nbuf, ' ');
    sw_str(&l, "\nHandles:");
    for (int i = 0; i < nbuf; i++) {
        sw_chr(&l, ' ');
        sw_hex(&l, handle_addr(node, tile_id(bm[i], bn[i])), 1);
    }
    sw_str(&l, "\nModes:");
    for (int i = 0; i < nbuf; i++) {
        sw_chr(&l, ' ');
        sw_str(&l, mode[i]);
    }
    sw_str(&l, "\nSizes:");
    for (int i = 0; i < nbuf; i++) {
        sw_chr(&l, ' ');
        sw_i64(&l, s->tile_bytes);
    }
    sw_str(&l, "\nNumaNodes:");
    for (int i = 0; i < nbuf; i++)
        sw_str(&l, " -1");
    sw_str(&l, "\nMPIRank: ");
    sw_i64(&l, s->N > 1 ? node : -1);
    sw_str(&l, "\n\n");
    sw_file_line(&s->tasks, &l);

    /* dag.dot: incoming edges, then the node */
    for (int i = 0; i < np; i++) {
        int pn = owner(s, preds[i].m, preds[i].n);
        sw_reset(&l);
        if (pn == node) {
            sw_str(&l, "\t \"task_");
            job_id(s, &l, pn, task_gidx(s, preds[i]));
            sw_str(&l, "\"->\"task_");
            job_id(s, &l, node, gidx);
            sw_str(&l, "\" [label=\"task\"]\n");
            s->sum.deps_intra++;
        } else {
            uint64_t rt = tile_id(preds[i].m, preds[i].n);
            sw_str(&l, "\t \"mpi_");
            sw_i64(&l, (int64_t)preds[i].m * s->T + preds[i].n);
            sw_chr(&l, '_');
            sw_i64(&l, s->comm_of[rt * (uint64_t)s->N + (uint64_t)node]);
            sw_str(&l, "\"->\"task_");
            job_id(s, &l, node, gidx);
            sw_str(&l, "\"\n");
            s->sum.deps_cross++;
        }
        sw_file_line(&s->dag, &l);
    }
    sw_reset(&l);
    sw_str(&l, "\t \"task_");
    job_id(s, &l, node, gidx);
    sw_str(&l, "\" [ style=filled, label=\"");
    sw_str(&l, kind_name[t.kind]);
    sw_str(&l, "\", fillcolor=\"");
    sw_str(&l, kind_color[t.kind]);
    sw_str(&l, "\", fontcolor=\"white\"]\n");
    sw_file_line(&s->dag, &l);
}

static void emit_exec_state(sim *s, task t, const worker *w, uint64_t gidx, int64_t ps)
{
    int bm[3], bn[3];
    const char *mode[3];
    int nbuf = task_buffers(t, bm, bn, mode);
    node_state *nd = &s->nodes[w->node];
    sw_line l;
    emit_worker_state(s, w, ps, kind_name[t.kind]);
    line_start(&l, "20", ps);
    field(&l, w->alias);
    field(&l, "WS");
    sw_str(&l, "\t\"");
    sw_str(&l, kind_name[t.kind]);
    sw_str(&l, "\"\t");
    sw_i64(&l, s->tile_bytes * nbuf);
    sw_str(&l, "\t\"");
    params_string(s, &l, nbuf, '_');
    sw_str(&l, "\"\t");
    sw_hex(&l, footprint(s, t.kind), 8);
    sw_str(&l, "\t0000000000000000\t");
    job_id(s, &l, w->node, gidx);
    sw_chr(&l, '\t');
    job_id(s, &l, w->node, gidx);
    sw_chr(&l, '\t');
    sw_f6(&l, gflop(s, t.kind));
    sw_chr(&l, '\t');
    sw_i64(&l, t.n);
    sw_chr(&l, '\t');
    sw_i64(&l, t.m);
    sw_chr(&l, '\t');
    sw_i64(&l, t.k < 0 ? 0 : t.k);
    sw_str(&l, "\t-1\t\"");
    for (int i = 0; i < nbuf; i++)
        sw_str(&l, i ? "_-1" : "-1");
    sw_chr(&l, '"');
    line_end(&l);
    emit(s, nd->first_worker + w->local, ps, &l);
}

static void run_task(sim *s, worker *w, task t, int64_t now)
{
    node_state *nd = &s->nodes[w->node];
    double slow = nd->cfg.slowdown;
    uint64_t gidx = task_gidx(s, t);
    int stream = nd->first_worker + w->local;
    int bm[3], bn[3];
    const char *mode[3];
    int nbuf = task_buffers(t, bm, bn, mode);

    int64_t t1 = now + overhead(s, 1.0, 4.0, slow);
    int64_t t2 = t1 + PS_PER_US;
    for (int i = 0; i < nbuf; i++) {
        uint64_t tile = tile_id(bm[i], bn[i]);
        if (mode[i][0] == 'W') {
            if (copy_at(s, tile, w->node)[w->memnode] == COPY_NEVER) {
                note_alloc(s, w->node, w->memnode, t1);
                copy_at(s, tile, w->node)[w->memnode] = COPY_STALE;
            }
            continue;
        }
        int64_t at = fetch(s, w->node, tile, w->memnode, t1);
        if (at > t2)
            t2 = at;
    }
    int64_t t3 = t2 + overhead(s, 3.0, 8.0, slow);
    int64_t dur = draw_duration(s, nd, t.kind, w->type);
    int64_t t4 = t3 + dur;
    int64_t t5 = t4 + overhead(s, 2.0, 5.0, slow);
    int64_t t_cb = t5 + overhead(s, 0.5, 1.5, slow);
    int64_t t_cb_end = t_cb + overhead(s, 1.0, 4.0, slow);
    int64_t t6 = t_cb_end + overhead(s, 0.2, 1.0, slow);

    emit_worker_push(s, w, now, "Sc");
    emit_worker_pop(s, w, t1);
    emit_worker_state(s, w, t1, "Fi");
    emit_worker_state(s, w, t2, "B");
    emit_exec_state(s, t, w, gidx, t3);
    emit_worker_state(s, w, t4, "B");
    emit_worker_state(s, w, t5, "Po");
    emit_worker_push(s, w, t_cb, "C");
    emit_worker_pop(s, w, t_cb_end);
    emit_worker_state(s, w, t6, "I");
    double rate = gflop(s, t.kind) / ((double)dur / (double)PS_PER_MS / 1000.0);
    emit_variable(s, stream, t3, "", w->alias, "gf", rate);
    emit_variable(s, stream, t4, "", w->alias, "gf", 0.0);

    write_task_rec(s, t, w, gidx, t3, t4);

    w->busy = 1;
    w->free_at = t6;
    ev_push(s, EV_END, t4, task_pack(t), nd->first_worker + w->local);
    ev_push(s, EV_FREE, t6, 0, nd->first_worker + w->local);

    nd->tasks++;
    s->sum.tasks++;
    s->sum.tasks_by_kind[t.kind]++;
    if (w->type == R_GPU)
        s->sum.tasks_gpu++;
    else
        s->sum.tasks_cpu++;
    if (s->sum.first_start_ps < 0 || t3 < s->sum.first_start_ps)
        s->sum.first_start_ps = t3;
    if (t4 > s->sum.last_end_ps)
        s->sum.last_end_ps = t4;
}

/* ---- scheduling --------------------------------------------------------------- */

/* Earliest time (ms from now) a worker of `type` on the node is free. */
static double wait_ms(const sim *s, const node_state *nd, int type, int64_t now)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < nd->nworkers; i++) {
        const worker *w = &s->workers[nd->first_worker + i];
        if (w->type != type)
            continue;
        int64_t t = w->busy && w->free_at > now ? w->free_at - now : 0;
        if (t < best)
            best = t;
    }
    return best == INT64_MAX ? 0.0 : (double)best / (double)PS_PER_MS;
}

/* Expected work (ms per worker) of the ready tasks that workers of `type`
 * can run: what a task left to them waits for, roughly. */
static double backlog_ms(const sim *s, const node_state *nd, int type)
{
    int n = type == R_GPU ? nd->cfg.gpus : nd->cfg.cpus;
    if (n == 0)
        return 0.0;
    double sum = 0.0;
    for (int k = 0; k < K_COUNT; k++)
        if (nd->ready[k].n > 0 && can_run(nd, type, k))
            sum += (double)nd->ready[k].n * expected_ms(s, nd, k, type);
    return sum / n;
}

/* Does a worker of `type` take a ready `kind` task now, rather than leave it
 * to the other resource type (busy for `wait` ms, with `backlog` ms of
 * ready work)? Yes when it would finish it no later. */
static int accepts(const sim *s, const node_state *nd, int type, int kind, const double wait[2],
                   const double backlog[2])
{
    if (!can_run(nd, type, kind))
        return 0;
    int other = 1 - type;
    int n_other = other == R_GPU ? nd->cfg.gpus : nd->cfg.cpus;
    if (n_other == 0 || !can_run(nd, other, kind))
        return 1;
    double mine = expected_ms(s, nd, kind, type);
    double theirs = expected_ms(s, nd, kind, other);
    if (mine <= theirs)
        return 1;
    return mine <= wait[other] + backlog[other] + theirs;
}

static void dispatch(sim *s, int node, int64_t now)
{
    node_state *nd = &s->nodes[node];
    int progress = 1;
    while (progress) {
        progress = 0;
        for (int i = 0; i < nd->nworkers; i++) {
            worker *w = &s->workers[nd->first_worker + i];
            if (w->busy)
                continue;
            double wait[2] = {wait_ms(s, nd, R_CPU, now), wait_ms(s, nd, R_GPU, now)};
            double backlog[2] = {backlog_ms(s, nd, R_CPU), backlog_ms(s, nd, R_GPU)};
            int best = -1;
            for (int k = 0; k < K_COUNT; k++) {
                if (nd->ready[k].n == 0 || !accepts(s, nd, w->type, k, wait, backlog))
                    continue;
                if (best < 0 || ready_before(&nd->ready[k].v[0], &nd->ready[best].v[0]))
                    best = k;
            }
            if (best < 0)
                continue;
            ready_item it = ready_pop(&nd->ready[best]);
            nd->nready--;
            emit_variable(s, nd->misc_stream, now, nd->prefix, "sched", "nready", (double)nd->nready);
            run_task(s, w, task_unpack(it.code), now);
            progress = 1;
        }
    }
}

static void on_ready(sim *s, task t, int64_t now)
{
    int node = owner(s, t.m, t.n);
    node_state *nd = &s->nodes[node];
    ready_item it = {task_priority(s, t), task_gidx(s, t), task_pack(t)};
    if (ready_push(&nd->ready[t.kind], it) != 0) {
        s->nomem = 1;
        return;
    }
    nd->nready++;
    emit_variable(s, nd->misc_stream, now, nd->prefix, "sched", "nready", (double)nd->nready);
    dispatch(s, node, now);
}

static void on_end(sim *s, task t, const worker *w, int64_t now)
{
    uint64_t tile = tile_id(t.m, t.n);
    node_state *nd = &s->nodes[w->node];
    int64_t *c = copy_at(s, tile, w->node);
    for (int y = 0; y < s->MN; y++)
        if (c[y] >= 0)
            c[y] = COPY_STALE;
    c[w->memnode] = now;
    s->writes[tile]++;
    s->last_end[tile] = now;
    s->done++;
    nd->nleft--;
    emit_variable(s, nd->misc_stream, now, nd->prefix, "sched", "nsubmitted", (double)nd->nleft);
    if (s->writes[tile] == tile_writers(t.n))
        send_final_tile(s, t.m, t.n, now);
    release_successors(s, t);
}

/* Stops early when an output file cannot be written (disk full, ...). */
static int output_failed(const sim *s)
{
    return sw_paje_failed(s->paje) || s->tasks.failed || s->dag.failed || s->comms.failed;
}

static int run_events(sim *s, ari_error *err)
{
    uint64_t steps = 0;
    while (s->nev > 0) {
        if (s->nomem)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory during the simulation");
        if ((++steps & 0xffff) == 0 && output_failed(s))
            return ari_error_set(err, ARI_E_IO, "cannot write the output files in %s",
                                 s->opt->out_dir);
        event e = ev_pop(s);
        s->now = e.time;
        sw_paje_advance(s->paje, e.time);
        if (e.type == EV_READY) {
            on_ready(s, task_unpack(e.code), e.time);
        } else if (e.type == EV_END) {
            on_end(s, task_unpack(e.code), &s->workers[e.worker], e.time);
        } else {
            worker *w = &s->workers[e.worker];
            w->busy = 0;
            dispatch(s, w->node, e.time);
            if (!w->busy && s->nodes[w->node].nready == 0)
                emit_worker_state(s, w, e.time, "Sl");
        }
    }
    if (s->nomem)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory during the simulation");
    if (s->done != s->total)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "simulation stalled after %llu of %llu tasks",
                             (unsigned long long)s->done, (unsigned long long)s->total);
    return 0;
}

/* ---- setup ---------------------------------------------------------------------- */

uint64_t chol_task_count(int tiles)
{
    uint64_t T = (uint64_t)(tiles > 0 ? tiles : 0);
    if (T == 0)
        return 0;
    return T * (T + 1) / 2 + T + T * (T - 1) + T * (T - 1) * (T - 2) / 6;
}

static int validate(const chol_options *o, ari_error *err)
{
    if (!o->out_dir || !*o->out_dir)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "an output directory is required");
    if (o->tiles < 1 || o->tiles > CHOL_MAX_TILES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "tiles must be in 1..%d (got %d)",
                             CHOL_MAX_TILES, o->tiles);
    if (o->nodes < 1 || o->nodes > CHOL_MAX_NODES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "nodes must be in 1..%d (got %d)",
                             CHOL_MAX_NODES, o->nodes);
    if (o->block_size < 16 || o->block_size > 8192)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "block size must be in 16..8192 (got %d)", o->block_size);
    if (!o->node_cfg)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "missing node configuration");
    for (int i = 0; i < o->nodes; i++) {
        const chol_node_cfg *c = &o->node_cfg[i];
        if (c->cpus < 0 || c->cpus > CHOL_MAX_CPUS || c->gpus < 0 || c->gpus > CHOL_MAX_GPUS)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "node %d: cpus must be in 0..%d and gpus in 0..%d", i,
                                 CHOL_MAX_CPUS, CHOL_MAX_GPUS);
        if (c->cpus + c->gpus < 1)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "node %d has no worker", i);
        if (!(c->slowdown >= 0.1 && c->slowdown <= 100.0))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "node %d: slowdown must be in 0.1..100", i);
    }
    return 0;
}

static int make_dirs(const char *path, ari_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "output path too long");
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return ari_error_set(err, ARI_E_IO, "cannot create %s: %s", buf, strerror(errno));
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return ari_error_set(err, ARI_E_IO, "%s is not a directory", path);
    return 0;
}

static void grid_shape(int N, int *P, int *Q)
{
    int p = 1;
    for (int d = 1; (long)d * d <= N; d++)
        if (N % d == 0)
            p = d;
    *P = p;
    *Q = N / p;
}

static int sim_alloc(sim *s, ari_error *err)
{
    int maxg = 0, nw = 0;
    for (int i = 0; i < s->N; i++) {
        if (s->opt->node_cfg[i].gpus > maxg)
            maxg = s->opt->node_cfg[i].gpus;
        nw += s->opt->node_cfg[i].cpus + s->opt->node_cfg[i].gpus;
    }
    s->MN = 1 + maxg;
    double bytes = (double)s->NT * s->N * s->MN * 8.0 + (double)s->NT * s->N * 4.0;
    if (bytes > 4.0 * 1024 * 1024 * 1024)
        return ari_error_set(err, ARI_E_TOO_LARGE,
                             "tiles x nodes x memory nodes too large (%.1f GiB of state)",
                             bytes / (1024.0 * 1024 * 1024));
    s->step_off = calloc((size_t)s->T + 1, sizeof *s->step_off);
    s->writes = calloc(s->NT, sizeof *s->writes);
    s->last_end = calloc(s->NT, sizeof *s->last_end);
    s->copy = malloc(s->NT * (size_t)s->N * (size_t)s->MN * sizeof *s->copy);
    s->comm_of = malloc(s->NT * (size_t)s->N * sizeof *s->comm_of);
    s->mark = calloc((size_t)s->N, sizeof *s->mark);
    s->nodes = calloc((size_t)s->N, sizeof *s->nodes);
    s->workers = calloc((size_t)nw, sizeof *s->workers);
    s->nworkers = nw;
    if (!s->step_off || !s->writes || !s->last_end || !s->copy || !s->comm_of || !s->mark ||
        !s->nodes || !s->workers)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < s->NT * (size_t)s->N * (size_t)s->MN; i++)
        s->copy[i] = COPY_NEVER;
    for (size_t i = 0; i < s->NT * (size_t)s->N; i++)
        s->comm_of[i] = -1;
    return 0;
}

static void sim_free(sim *s)
{
    if (s->nodes)
        for (int i = 0; i < s->N; i++)
            for (int k = 0; k < K_COUNT; k++)
                free(s->nodes[i].ready[k].v);
    void *owned[] = {s->step_off, s->writes, s->last_end, s->copy, s->comm_of,
                     s->mark,     s->nodes,  s->workers,  s->ev};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static void setup_nodes(sim *s)
{
    int wi = 0;
    for (int i = 0; i < s->N; i++) {
        node_state *nd = &s->nodes[i];
        nd->cfg = s->opt->node_cfg[i];
        nd->first_worker = wi;
        nd->nworkers = nd->cfg.cpus + nd->cfg.gpus;
        nd->misc_stream = s->nworkers + i;
        if (s->N > 1)
            snprintf(nd->prefix, sizeof nd->prefix, "%d_", i);
        for (int j = 0; j < nd->nworkers; j++) {
            worker *w = &s->workers[wi++];
            w->node = i;
            w->local = j;
            w->type = j < nd->cfg.gpus ? R_GPU : R_CPU;
            w->memnode = w->type == R_GPU ? j + 1 : 0;
            snprintf(w->alias, sizeof w->alias, "%sw%d", nd->prefix, j);
        }
    }
    s->comm_stream = s->nworkers + s->N;
    s->step_off[0] = s->NT; /* the dplgsy tasks come first */
    for (int k = 0; k < s->T; k++) {
        uint64_t r = (uint64_t)(s->T - 1 - k);
        s->step_off[k + 1] = s->step_off[k] + 1 + 2 * r + r * (r > 0 ? r - 1 : 0) / 2;
    }
}

/* ---- paje header and containers ------------------------------------------------ */

static void write_header(sim *s)
{
    char buf[512];
    sw_paje_raw(s->paje, sw_starpu_eventdefs, strlen(sw_starpu_eventdefs));
    int n = snprintf(buf, sizeof buf,
                     "# ariadne simulated trace: tiled Cholesky, %d x %d tiles of %d, %d node(s), "
                     "seed %llu; not a real StarPU run\n",
                     s->T, s->T, s->nb, s->N, (unsigned long long)s->opt->seed);
    sw_paje_raw(s->paje, buf, (size_t)n);
    sw_paje_raw(s->paje, sw_starpu_types, strlen(sw_starpu_types));
    for (int k = 0; k < K_COUNT; k++) {
        n = snprintf(buf, sizeof buf, "6\t%s\tWS\t%s\t\"%s\"\n", kind_name[k], kind_name[k],
                     kind_paje_color[k]);
        sw_paje_raw(s->paje, buf, (size_t)n);
    }
}

static void create_container(sim *s, int64_t ps, const char *prefix, const char *alias,
                             const char *type, const char *parent, const char *name)
{
    sw_line l;
    line_start(&l, "7", ps);
    field2(&l, prefix, alias);
    field(&l, type);
    field2(&l, strcmp(parent, "MPIroot") == 0 ? "" : prefix, parent);
    field2(&l, prefix, name);
    line_end(&l);
    emit_create(s, ps, &l);
}

static int user_thread_id(int node) { return 31000 + 97 * node; }

static void create_node(sim *s, int i)
{
    node_state *nd = &s->nodes[i];
    const char *p = nd->prefix;
    char a[48], b[48];
    int64_t t_mem = PS_PER_MS + i * 37 * PS_PER_US;
    create_container(s, 0, p, "p", "P", "MPIroot", "program");
    create_container(s, 0, p, "sched", "Sc", "p", "scheduler");
    for (int x = 0; x <= nd->cfg.gpus; x++) {
        snprintf(a, sizeof a, "mn%d", x);
        snprintf(b, sizeof b, "MEMNODE%d", x);
        create_container(s, t_mem, p, a, "Mn", "p", b);
        snprintf(b, sizeof b, "mm%d", x);
        char name[48];
        snprintf(name, sizeof name, "MEMMANAGER%d", x);
        create_container(s, t_mem, p, b, "Mm", a, name);
    }
    snprintf(a, sizeof a, "t%d", user_thread_id(i));
    snprintf(b, sizeof b, "UserThread%d", user_thread_id(i));
    create_container(s, t_mem + 20 * PS_PER_US, p, a, "UT", "p", b);
    for (int j = 0; j < nd->nworkers; j++) {
        const worker *w = &s->workers[nd->first_worker + j];
        int64_t t_w = t_mem + (100 + 40 * j) * PS_PER_US;
        char mn[24], wname[48], walias[24];
        snprintf(a, sizeof a, "t%d", user_thread_id(i) + 1 + j);
        snprintf(b, sizeof b, "T%d", j);
        snprintf(mn, sizeof mn, "mn%d", w->memnode);
        create_container(s, t_w, p, a, "T", mn, b);
        if (w->type == R_GPU)
            snprintf(wname, sizeof wname, "CUDA%d_0", j);
        else
            snprintf(wname, sizeof wname, "CPU%d", j - nd->cfg.gpus);
        snprintf(walias, sizeof walias, "w%d", j);
        create_container(s, t_w, p, walias, "W", a, wname);
    }
    if (s->N > 1)
        create_container(s, 0, p, "mpict", "MPICt", "p", "mpict");
}

/* Initial states and variables of a node, and its data registrations. */
static void start_node(sim *s, int i, uint64_t node_total, int64_t submit_end)
{
    node_state *nd = &s->nodes[i];
    int64_t t_mem = PS_PER_MS + i * 37 * PS_PER_US;
    sw_line l;
    char ut[32];
    emit_variable(s, nd->misc_stream, 0, nd->prefix, "sched", "nsubmitted", 0.0);
    emit_variable(s, nd->misc_stream, 0, nd->prefix, "sched", "nready", 0.0);
    emit_variable(s, nd->misc_stream, 0, nd->prefix, "sched", "gft", 0.0);
    for (int x = 0; x <= nd->cfg.gpus; x++) {
        char mm[24];
        snprintf(mm, sizeof mm, "mm%d", x);
        emit_variable(s, nd->misc_stream, t_mem, nd->prefix, mm, "use", 0.0);
        emit_mem_state(s, i, x, t_mem, "No");
    }
    for (int j = 0; j < nd->nworkers; j++) {
        const worker *w = &s->workers[nd->first_worker + j];
        int64_t t_w = t_mem + (100 + 40 * j) * PS_PER_US;
        emit_variable(s, nd->first_worker + j, t_w, "", w->alias, "gf", 0.0);
        emit_worker_state(s, w, t_w, "In");
        emit_worker_state(s, w, t_w + 500 * PS_PER_US, "I");
    }
    if (s->N > 1) {
        line_start(&l, "10", t_mem);
        field2(&l, nd->prefix, "mpict");
        field(&l, "CtS");
        field(&l, "Pl");
        line_end(&l);
        emit(s, nd->misc_stream, t_mem, &l);
    }
    /* registrations of the tiles owned here, just before the submission */
    int64_t t_reg = SUBMIT_START_PS - PS_PER_MS;
    for (int m = 0; m < s->T; m++)
        for (int n = 0; n <= m; n++) {
            if (owner(s, m, n) != i)
                continue;
            line_start(&l, "9", t_reg);
            field(&l, "register");
            field2(&l, nd->prefix, "p");
            sw_chr(&l, '\t');
            sw_hex(&l, handle_addr(i, tile_id(m, n)), 1);
            line_end(&l);
            emit(s, nd->misc_stream, t_reg, &l);
            t_reg += PS_PER_US / 4;
        }
    snprintf(ut, sizeof ut, "t%d", user_thread_id(i));
    line_start(&l, "11", SUBMIT_START_PS);
    field2(&l, nd->prefix, ut);
    field(&l, "US");
    field(&l, "Su");
    line_end(&l);
    emit(s, nd->misc_stream, SUBMIT_START_PS, &l);
    line_start(&l, "12", submit_end);
    field2(&l, nd->prefix, ut);
    field(&l, "US");
    line_end(&l);
    emit(s, nd->misc_stream, submit_end, &l);
    line_start(&l, "11", submit_end);
    field2(&l, nd->prefix, ut);
    field(&l, "US");
    field(&l, "WA");
    line_end(&l);
    emit(s, nd->misc_stream, submit_end, &l);
    nd->nleft = (int64_t)node_total;
    emit_variable(s, nd->misc_stream, SUBMIT_START_PS, nd->prefix, "sched", "nsubmitted",
                  (double)node_total);
}

static void finish_node(sim *s, int i, int64_t t_end)
{
    node_state *nd = &s->nodes[i];
    sw_line l;
    char a[32];
    snprintf(a, sizeof a, "t%d", user_thread_id(i));
    line_start(&l, "12", t_end);
    field2(&l, nd->prefix, a);
    field(&l, "US");
    line_end(&l);
    emit(s, nd->misc_stream, t_end, &l);
    for (int j = 0; j < nd->nworkers; j++) {
        const worker *w = &s->workers[nd->first_worker + j];
        int64_t t = t_end + (10 + 3 * j) * PS_PER_US;
        emit_worker_state(s, w, t, "D");
        snprintf(a, sizeof a, "t%d", user_thread_id(i) + 1 + j);
        line_start(&l, "8", t + 50 * PS_PER_US);
        field2(&l, nd->prefix, a);
        field(&l, "T");
        line_end(&l);
        emit(s, nd->first_worker + j, t + 50 * PS_PER_US, &l);
    }
    if (s->N > 1) {
        int64_t t = t_end + 200 * PS_PER_US;
        line_start(&l, "8", t);
        field2(&l, nd->prefix, "mpict");
        field(&l, "MPICt");
        line_end(&l);
        emit(s, nd->misc_stream, t, &l);
    }
}

/* Node task totals: each task belongs to the owner of the tile it writes. */
static void count_node_tasks(sim *s, uint64_t *per_node)
{
    int T = s->T;
    for (int m = 0; m < T; m++)
        for (int n = 0; n <= m; n++)
            per_node[owner(s, m, n)] += (uint64_t)tile_writers(n);
}

/* ---- data.rec, README, manifest --------------------------------------------------- */

static int write_data_rec(sim *s, ari_error *err)
{
    sw_file f;
    if (sw_file_open(&f, s->opt->out_dir, "data.rec", err) != 0)
        return -1;
    sw_line l;
    for (int node = 0; node < s->N; node++)
        for (int m = 0; m < s->T; m++)
            for (int n = 0; n <= m; n++) {
                uint64_t tile = tile_id(m, n);
                int o = owner(s, m, n);
                int used = 0;
                int64_t *c = copy_at(s, tile, node);
                for (int y = 0; y < s->MN; y++)
                    used |= c[y] != COPY_NEVER;
                if (o != node && !used)
                    continue;
                sw_reset(&l);
                sw_str(&l, "Handle: ");
                sw_hex(&l, handle_addr(node, tile), 1);
                sw_str(&l, "\nHomeNode: ");
                sw_i64(&l, o == node ? 0 : -1);
                if (s->N > 1) {
                    sw_str(&l, "\nMPIRank: ");
                    sw_i64(&l, node);
                }
                sw_str(&l, "\nName: A\nSize: ");
                sw_i64(&l, s->tile_bytes);
                sw_str(&l, "\nDescription: ");
                sw_str(&l, s->params1);
                sw_str(&l, "\nCoordinates: ");
                sw_i64(&l, n);
                sw_chr(&l, ' ');
                sw_i64(&l, m);
                if (s->N > 1) {
                    sw_str(&l, "\nMPIOwner: ");
                    sw_i64(&l, o);
                    sw_str(&l, "\nMPITag: ");
                    sw_i64(&l, (int64_t)m * s->T + n);
                }
                sw_str(&l, "\n\n");
                sw_file_line(&f, &l);
            }
    return sw_file_close(&f, err);
}

static void json_ms(char *buf, size_t n, int64_t ps)
{
    sw_line l;
    sw_reset(&l);
    sw_ms(&l, ps, 6);
    size_t len = l.n < n ? l.n : n - 1;
    memcpy(buf, l.s, len);
    buf[len] = '\0';
}

static int write_readme(sim *s, ari_error *err)
{
    sw_file f;
    char buf[4096];
    if (sw_file_open(&f, s->opt->out_dir, "README.txt", err) != 0)
        return -1;
    int n = snprintf(
        buf, sizeof buf,
        "SIMULATED TRACE - generated by ariadne (ariadned generate), not recorded from a real run.\n"
        "\n"
        "What it imitates: a StarPU 1.4 (StarPU-MPI when nodes > 1) tiled Cholesky factorisation\n"
        "(dplgsy initialisation, then dpotrf, dtrsm, dsyrk, dgemm), post-processed by\n"
        "starpu_fxt_tool. Files use the same formats: paje.trace, tasks.rec, dag.dot, data.rec\n"
        "and, with several nodes, comms.rec. Times are milliseconds.\n"
        "\n"
        "Parameters: %d x %d tiles of %d x %d doubles, %d node(s) on a %d x %d block-cyclic grid,\n"
        "seed %llu, paje.trace %s.\n"
        "Command: %s\n"
        "\n"
        "Model: each task runs on the node owning the tile it writes; each node schedules its\n"
        "ready tasks by priority on its CPU and CUDA workers (a task goes to the resource type\n"
        "expected to finish it first); kernel durations have a seeded jitter and rare outliers,\n"
        "scaled by the node slowdown. Host<->GPU copies are serialised per PCIe bus (12 GB/s),\n"
        "MPI transfers per NIC (10 GB/s, 20 us latency); both appear as Paje links.\n"
        "\n"
        "Differences from real StarPU output: no runtime-internal tasks (data acquire, sync,\n"
        "unregister); tasks.rec DependsOn also lists predecessors on other nodes (with their\n"
        "rank prefix), while dag.dot routes those edges through \"mpi_<tag>_<id>\" nodes as\n"
        "StarPU-MPI does; the per-node \"nsubmitted\" variable starts at the node's task count.\n"
        "paje.trace is %s.\n"
        "To read it with pj_dump, sort it like starpu_paje_sort: keep the %% lines and the\n"
        "definition/creation lines (ids 1-7, 14) first, then sort the others with\n"
        "sort -s -V -k2,2.\n"
        "manifest.json lists what was written (counts, makespan, configuration).\n",
        s->T, s->T, s->nb, s->nb, s->N, s->P, s->Q, (unsigned long long)s->opt->seed,
        s->opt->sorted ? "time-ordered" : "not time-ordered",
        s->opt->command_line ? s->opt->command_line : "(library call)",
        s->opt->sorted ? "time-ordered (--sorted)"
                       : "written as interleaved per-worker buffers (like FxT), so it\n"
                         "is not time-ordered");
    if (n > 0)
        sw_file_write(&f, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
    return sw_file_close(&f, err);
}

static void json_string(sw_file *f, const char *s)
{
    sw_file_write(f, "\"", 1);
    for (; s && *s; s++) {
        char esc[8];
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            sw_file_write(f, esc, 2);
        } else if (c < 0x20) {
            int n = snprintf(esc, sizeof esc, "\\u%04x", c);
            sw_file_write(f, esc, (size_t)n);
        } else {
            sw_file_write(f, (const char *)&c, 1);
        }
    }
    sw_file_write(f, "\"", 1);
}

static void jprintf(sw_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jprintf(sw_file *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        sw_file_write(f, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
}

static int write_manifest(sim *s, ari_error *err)
{
    sw_file f;
    const chol_summary *u = &s->sum;
    char first[40], last[40], span[40];
    if (sw_file_open(&f, s->opt->out_dir, "manifest.json", err) != 0)
        return -1;
    json_ms(first, sizeof first, u->first_start_ps);
    json_ms(last, sizeof last, u->last_end_ps);
    json_ms(span, sizeof span, u->last_end_ps - u->first_start_ps);
    jprintf(&f, "{\n  \"generator\": \"ariadne cholesky_sim\",\n  \"simulated\": true,\n");
    jprintf(&f, "  \"format\": \"starpu-fxt\",\n  \"time_unit\": \"ms\",\n  \"command\": ");
    json_string(&f, s->opt->command_line ? s->opt->command_line : "");
    jprintf(&f, ",\n  \"seed\": %llu,\n  \"tiles\": %d,\n  \"block_size\": %d,\n",
            (unsigned long long)s->opt->seed, s->T, s->nb);
    jprintf(&f, "  \"nodes\": %d,\n  \"grid\": [%d, %d],\n  \"sorted\": %s,\n", s->N, s->P,
            s->Q, s->opt->sorted ? "true" : "false");
    jprintf(&f, "  \"node_config\": [");
    for (int i = 0; i < s->N; i++)
        jprintf(&f, "%s\n    {\"node\": %d, \"cpus\": %d, \"gpus\": %d, \"slowdown\": %g}",
                i ? "," : "", i, s->nodes[i].cfg.cpus, s->nodes[i].cfg.gpus,
                s->nodes[i].cfg.slowdown);
    jprintf(&f, "\n  ],\n  \"files\": [\"paje.trace\", \"tasks.rec\", \"dag.dot\", \"data.rec\"%s, "
                "\"README.txt\", \"manifest.json\"],\n",
            s->N > 1 ? ", \"comms.rec\"" : "");
    jprintf(&f, "  \"tasks\": {\n    \"total\": %llu,\n    \"by_type\": {", (unsigned long long)u->tasks);
    for (int k = 0; k < K_COUNT; k++)
        jprintf(&f, "%s\"%s\": %llu", k ? ", " : "", kind_name[k],
                (unsigned long long)u->tasks_by_kind[k]);
    jprintf(&f, "},\n    \"by_node\": [");
    for (int i = 0; i < s->N; i++)
        jprintf(&f, "%s%llu", i ? ", " : "", (unsigned long long)s->nodes[i].tasks);
    jprintf(&f, "],\n    \"by_resource\": {\"CPU\": %llu, \"CUDA\": %llu}\n  },\n",
            (unsigned long long)u->tasks_cpu, (unsigned long long)u->tasks_gpu);
    jprintf(&f, "  \"dependencies\": {\"total\": %llu, \"intra_node\": %llu, \"cross_node\": %llu},\n",
            (unsigned long long)(u->deps_intra + u->deps_cross), (unsigned long long)u->deps_intra,
            (unsigned long long)u->deps_cross);
    jprintf(&f, "  \"transfers\": {\"mpi\": %llu, \"intra_node\": %llu},\n",
            (unsigned long long)u->mpi_transfers, (unsigned long long)u->node_transfers);
    jprintf(&f, "  \"paje\": {\"lines\": %llu, \"states\": %llu, \"variable_updates\": %llu, "
                "\"links\": %llu, \"events\": %llu, \"containers\": %llu},\n",
            (unsigned long long)u->paje_lines, (unsigned long long)u->paje_states,
            (unsigned long long)u->paje_variables, (unsigned long long)u->paje_links,
            (unsigned long long)u->paje_events, (unsigned long long)u->paje_containers);
    jprintf(&f, "  \"first_start_ms\": %s,\n  \"last_end_ms\": %s,\n  \"makespan_ms\": %s\n}\n",
            first, last, span);
    return sw_file_close(&f, err);
}

/* ---- entry point ---------------------------------------------------------------- */

static int open_outputs(sim *s, ari_error *err)
{
    const char *dir = s->opt->out_dir;
    s->paje = sw_paje_open(dir, s->opt->sorted, s->nworkers + s->N + 1, 32 * 1024, err);
    if (!s->paje)
        return -1;
    if (sw_file_open(&s->tasks, dir, "tasks.rec", err) != 0)
        return -1;
    if (sw_file_open(&s->dag, dir, "dag.dot", err) != 0)
        return -1;
    if (s->N > 1 && sw_file_open(&s->comms, dir, "comms.rec", err) != 0)
        return -1;
    static const char dag_head[] = "digraph G {\n\tcolor=white\n\trankdir=LR;\nsubgraph cluster_0 {\n\tcolor=black;\n";
    sw_file_write(&s->dag, dag_head, sizeof dag_head - 1);
    return 0;
}

static int close_outputs(sim *s, int ok, ari_error *err)
{
    ari_error tmp;
    ari_error *e = ok ? err : &tmp;
    int rc = 0;
    if (s->dag.f)
        sw_file_write(&s->dag, "}\n}\n", 4);
    if (s->paje) {
        s->sum.paje_lines = sw_paje_lines(s->paje);
        if (sw_paje_close(s->paje, e) != 0)
            rc = -1;
        s->paje = NULL;
    }
    if (sw_file_close(&s->tasks, rc ? &tmp : e) != 0)
        rc = -1;
    if (sw_file_close(&s->dag, rc ? &tmp : e) != 0)
        rc = -1;
    if (sw_file_close(&s->comms, rc ? &tmp : e) != 0)
        rc = -1;
    return rc;
}

static int simulate(sim *s, ari_error *err)
{
    uint64_t *per_node = calloc((size_t)s->N, sizeof *per_node);
    if (!per_node)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    count_node_tasks(s, per_node);
    write_header(s);
    create_container(s, 0, "", "MPIroot", "MPIP", "0", "root");
    for (int i = 0; i < s->N; i++)
        create_node(s, i);
    int64_t submit_end = submit_time(s->total);
    for (int i = 0; i < s->N; i++)
        start_node(s, i, per_node[i], submit_end);
    free(per_node);
    for (int m = 0; m < s->T; m++)
        for (int n = 0; n <= m; n++)
            try_ready(s, mk(K_PLGSY, -1, m, n));
    if (run_events(s, err) != 0)
        return -1;
    int64_t t_end = s->sum.last_end_ps > submit_end ? s->sum.last_end_ps : submit_end;
    t_end += PS_PER_MS / 2;
    for (int i = 0; i < s->N; i++)
        finish_node(s, i, t_end);
    return 0;
}

int chol_sim_run(const chol_options *opt, chol_summary *sum, ari_error *err)
{
    if (!opt)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no options");
    if (validate(opt, err) != 0)
        return -1;
    if (make_dirs(opt->out_dir, err) != 0)
        return -1;
    sim s;
    memset(&s, 0, sizeof s);
    s.opt = opt;
    s.T = opt->tiles;
    s.nb = opt->block_size;
    s.N = opt->nodes;
    grid_shape(s.N, &s.P, &s.Q);
    s.tile_bytes = (int64_t)s.nb * s.nb * 8;
    s.NT = tile_id(s.T, 0);
    s.total = chol_task_count(s.T);
    s.sum.first_start_ps = -1;
    snprintf(s.params1, sizeof s.params1, "M%dx%dx8", s.nb, s.nb);
    uint64_t seed = opt->seed;
    for (int i = 0; i < 4; i++)
        s.rng[i] = splitmix64(&seed);

    int rc = sim_alloc(&s, err);
    if (rc == 0) {
        setup_nodes(&s);
        rc = open_outputs(&s, err);
    }
    if (rc == 0)
        rc = simulate(&s, err);
    if (close_outputs(&s, rc == 0, err) != 0)
        rc = -1;
    if (rc == 0)
        rc = write_data_rec(&s, err);
    if (rc == 0)
        rc = write_readme(&s, err);
    if (rc == 0)
        rc = write_manifest(&s, err);
    if (rc == 0 && sum)
        *sum = s.sum;
    sim_free(&s);
    return rc;
}
