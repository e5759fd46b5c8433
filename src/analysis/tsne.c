/* tsne.c: Barnes-Hut t-SNE (the contract is in tsne.h): the kNN input
 * similarities, the quadtree of the repulsive forces and the gradient
 * descent. */
#include "analysis/tsne.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH    48  /* deeper cells keep several points as one mass */
#define BETA_STEPS   200
#define BETA_TOL     1e-5
#define MAX_THREADS  16
#define CHUNK        64   /* points per task of a parallel loop */
#define KNN_BLOCK    1024 /* points between progress calls of the kNN */
/* With threads = 0 the descent uses the cores from this many points on:
 * below it an iteration is too short (ms) for a join per iteration to pay
 * off, above all on a loaded machine. The kNN always uses them. */
#define DESCENT_THREADS_FROM 8192

/* ---- parallel loops ------------------------------------------------------ */

/* Processes points [from, to) on worker `thread`. */
typedef void (*range_fn)(void *ctx, int thread, int from, int to);

typedef struct pfor {
    range_fn fn;
    void *ctx;
    int from, to;
    atomic_int next;
} pfor;

typedef struct pfor_thread {
    pfor *job;
    int id;
    pthread_t thread;
} pfor_thread;

static void *pfor_run(void *arg)
{
    pfor_thread *t = arg;
    pfor *j = t->job;
    for (;;) {
        int a = atomic_fetch_add(&j->next, CHUNK);
        if (a >= j->to)
            return NULL;
        j->fn(j->ctx, t->id, a, a + CHUNK < j->to ? a + CHUNK : j->to);
    }
}

static int thread_count(int requested)
{
    if (requested <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        requested = cpus > 1 ? (int)(cpus < MAX_THREADS ? cpus : MAX_THREADS) : 1;
    }
    return requested > MAX_THREADS ? MAX_THREADS : requested;
}

/* fn over [from, to) in chunks on up to `threads` threads (this one too);
 * a thread that cannot start leaves its share to the others. */
static void parallel_for(int from, int to, int threads, range_fn fn, void *ctx)
{
    pfor job = {.fn = fn, .ctx = ctx, .from = from, .to = to};
    atomic_init(&job.next, from);
    pfor_thread t[MAX_THREADS];
    int started = 1, chunks = (to - from + CHUNK - 1) / CHUNK;
    for (int i = 0; i < threads; i++)
        t[i] = (pfor_thread){.job = &job, .id = i};
    for (int i = 1; i < threads && i < chunks && pthread_create(&t[i].thread, NULL, pfor_run, &t[i]) == 0; i++)
        started++;
    pfor_run(&t[0]);
    for (int i = 1; i < started; i++)
        pthread_join(t[i].thread, NULL);
}

/* ---- random numbers: splitmix64, Box-Muller ----------------------------- */

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double next_uniform(uint64_t *s)
{
    return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double next_normal(uint64_t *s)
{
    double u = next_uniform(s), v = next_uniform(s);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- k nearest neighbours ------------------------------------------------ */

/* A neighbour: (squared distance, index), ordered lexicographically. */
typedef struct nb {
    double d2;
    int j;
} nb;

static int nb_less(nb a, nb b)
{
    return a.d2 < b.d2 || (a.d2 == b.d2 && a.j < b.j);
}

static void heap_down(nb *h, int k, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, big = i;
        if (l < k && nb_less(h[big], h[l]))
            big = l;
        if (r < k && nb_less(h[big], h[r]))
            big = r;
        if (big == i)
            return;
        nb t = h[i];
        h[i] = h[big];
        h[big] = t;
        i = big;
    }
}

static void heap_up(nb *h, int i)
{
    while (i > 0 && nb_less(h[(i - 1) / 2], h[i])) {
        nb t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int by_nb(const void *a, const void *b)
{
    nb x = *(const nb *)a, y = *(const nb *)b;
    return nb_less(x, y) ? -1 : nb_less(y, x) ? 1 : 0;
}

/* The k smallest of d2[0..n-1] but `self`, ascending, into out. */
static void select_knn(const double *d2, int n, int self, int k, nb *out)
{
    int size = 0;
    for (int j = 0; j < n; j++) {
        if (j == self)
            continue;
        nb c = {d2[j], j};
        if (size < k) {
            out[size] = c;
            heap_up(out, size++);
        } else if (nb_less(c, out[0])) {
            out[0] = c;
            heap_down(out, k, 0);
        }
    }
    qsort(out, (size_t)k, sizeof *out, by_nb);
}

/* ---- input similarities -------------------------------------------------- */

/* p[m] = p_{j_m|i} for the k neighbours (d2 ascending) at the perplexity. */
static void calibrate(const nb *knn, int k, double perplexity, double *p)
{
    double beta = 1, lo = -DBL_MAX, hi = DBL_MAX, target = log(perplexity), sum = 0;
    for (int step = 0; step < BETA_STEPS; step++) {
        sum = 0;
        double h = 0;
        for (int m = 0; m < k; m++) {
            double shift = knn[m].d2 - knn[0].d2;
            p[m] = exp(-beta * shift);
            sum += p[m];
            h += beta * shift * p[m];
        }
        double diff = h / sum + log(sum) - target;
        if (fabs(diff) < BETA_TOL)
            break;
        if (diff > 0) {
            lo = beta;
            beta = hi == DBL_MAX ? beta * 2 : (beta + hi) / 2;
        } else {
            hi = beta;
            beta = lo == -DBL_MAX ? beta / 2 : (beta + lo) / 2;
        }
    }
    for (int m = 0; m < k; m++)
        p[m] /= sum;
}

/* Sparse symmetric P in compressed rows. */
typedef struct sparse {
    int *start; /* n + 1 */
    int *col;
    double *val;
} sparse;

static void sparse_free(sparse *s)
{
    free(s->start);
    free(s->col);
    free(s->val);
}

typedef struct entry {
    int col;
    double val;
} entry;

static int by_col(const void *a, const void *b)
{
    int x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

/* From the row-stochastic kNN (nbr, cond: n x k) to (P + P') / sum. */
static int symmetrize(const int *nbr, const double *cond, int n, int k, sparse *s)
{
    size_t nnz = (size_t)2 * n * k;
    int *fill = calloc((size_t)n + 1, sizeof *fill);
    entry *e = malloc(nnz * sizeof *e);
    s->start = calloc((size_t)n + 1, sizeof *s->start);
    s->col = malloc(nnz * sizeof *s->col);
    s->val = malloc(nnz * sizeof *s->val);
    if (!fill || !e || !s->start || !s->col || !s->val) {
        free(fill);
        free(e);
        return -1;
    }
    for (size_t a = 0; a < (size_t)n * k; a++) {
        fill[a / k + 1]++;
        fill[nbr[a] + 1]++;
    }
    for (int i = 0; i < n; i++)
        fill[i + 1] += fill[i];
    for (size_t a = 0; a < (size_t)n * k; a++) {
        int i = (int)(a / k), j = nbr[a];
        e[fill[i]++] = (entry){j, cond[a]};
        e[fill[j]++] = (entry){i, cond[a]};
    }
    /* fill[i] is now the end of row i, i.e. the start of row i + 1 */
    size_t out = 0, begin = 0;
    double total = 0;
    for (int i = 0; i < n; i++) {
        size_t end = (size_t)fill[i];
        qsort(e + begin, end - begin, sizeof *e, by_col);
        s->start[i] = (int)out;
        for (size_t a = begin; a < end; a++) {
            if (out > (size_t)s->start[i] && s->col[out - 1] == e[a].col) {
                s->val[out - 1] += e[a].val;
            } else {
                s->col[out] = e[a].col;
                s->val[out++] = e[a].val;
            }
            total += e[a].val;
        }
        begin = end;
    }
    s->start[n] = (int)out;
    for (size_t a = 0; a < out; a++)
        s->val[a] /= total;
    free(fill);
    free(e);
    return 0;
}

/* ---- quadtree -------------------------------------------------------------- */

typedef struct qnode {
    double cx, cy, hx, hy; /* cell centre and half-widths */
    double mx, my;         /* centre of mass */
    int count;             /* points below */
    int child;             /* first of four children, -1 for a leaf */
    int point;             /* a leaf's point (-1: empty) */
    int depth;
} qnode;

typedef struct qtree {
    qnode *node;
    int used, cap;
} qtree;

static int new_node(qtree *t, double cx, double cy, double hx, double hy, int depth)
{
    if (t->used == t->cap) {
        int cap = t->cap ? 2 * t->cap : 1024;
        qnode *grown = realloc(t->node, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        t->node = grown;
        t->cap = cap;
    }
    t->node[t->used] = (qnode){cx, cy, hx, hy, 0, 0, 0, -1, -1, depth};
    return t->used++;
}

static int quadrant(const qnode *q, double x, double y)
{
    return (x > q->cx) + 2 * (y > q->cy);
}

static void add_mass(qnode *q, double x, double y, int count)
{
    int c = q->count + count;
    q->mx += (x - q->mx) * count / c;
    q->my += (y - q->my) * count / c;
    q->count = c;
}

/* Four children of node a; returns -1 when out of memory. */
static int split(qtree *t, int a)
{
    qnode q = t->node[a];
    double hx = q.hx / 2, hy = q.hy / 2;
    int first = t->used;
    for (int k = 0; k < 4; k++)
        if (new_node(t, q.cx + (k & 1 ? hx : -hx), q.cy + (k & 2 ? hy : -hy), hx, hy, q.depth + 1) < 0)
            return -1;
    t->node[a].child = first;
    return 0;
}

static int insert(qtree *t, const double *y, int i)
{
    double x0 = y[2 * i], y0 = y[2 * i + 1];
    int a = 0;
    for (;;) {
        qnode *q = &t->node[a];
        if (q->child < 0) {
            if (q->point < 0) {
                q->point = i;
                add_mass(q, x0, y0, 1);
                return 0;
            }
            const double *old = &y[2 * q->point];
            if ((old[0] == x0 && old[1] == y0) || q->depth >= MAX_DEPTH) {
                add_mass(q, x0, y0, 1);
                return 0;
            }
            if (split(t, a) < 0)
                return -1;
            q = &t->node[a];
            qnode *c = &t->node[q->child + quadrant(q, old[0], old[1])];
            c->point = q->point;
            c->count = q->count;
            c->mx = q->mx;
            c->my = q->my;
            q->point = -1;
        }
        add_mass(q, x0, y0, 1);
        a = q->child + quadrant(q, x0, y0);
    }
}

static int build_tree(qtree *t, const double *y, int n)
{
    double mx = 0, my = 0, hx = 0, hy = 0;
    for (int i = 0; i < n; i++) {
        mx += y[2 * i];
        my += y[2 * i + 1];
    }
    mx /= n;
    my /= n;
    for (int i = 0; i < n; i++) {
        hx = fmax(hx, fabs(y[2 * i] - mx));
        hy = fmax(hy, fabs(y[2 * i + 1] - my));
    }
    t->used = 0;
    if (new_node(t, mx, my, hx + 1e-5, hy + 1e-5, 0) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (insert(t, y, i) < 0)
            return -1;
    return 0;
}

/* Adds the repulsion on point i from node a to f and its q's to *z. */
static void repel(const qtree *t, int a, const double *yi, int i, double theta, double *f, double *z)
{
    const qnode *q = &t->node[a];
    if (q->count == 0)
        return;
    double dx = yi[0] - q->mx, dy = yi[1] - q->my, d2 = dx * dx + dy * dy;
    int leaf = q->child < 0;
    if (leaf || fmax(q->hx, q->hy) < theta * sqrt(d2)) {
        double qq = 1 / (1 + d2);
        /* i's own leaf (with its duplicates, if any) */
        int mass = leaf && (q->point == i || d2 == 0) ? q->count - 1 : q->count;
        double m = mass * qq;
        *z += m;
        f[0] += m * qq * dx;
        f[1] += m * qq * dy;
        return;
    }
    for (int k = 0; k < 4; k++)
        repel(t, q->child + k, yi, i, theta, f, z);
}

/* ---- gradient descent ---------------------------------------------------------- */

typedef struct work {
    int n, threads, knn_threads;
    double theta;
    sparse p;
    double *y, *dy, *uy, *gains, *neg, *zi;
    qtree tree;
} work;

static void work_free(work *w)
{
    sparse_free(&w->p);
    free(w->dy);
    free(w->uy);
    free(w->gains);
    free(w->neg);
    free(w->zi);
    free(w->tree.node);
}

/* For points [from, to): the repulsion into neg, its q sum into zi, the
 * attraction into dy. */
static void forces(void *ctx, int thread, int from, int to)
{
    (void)thread;
    work *w = ctx;
    const double *y = w->y;
    for (int i = from; i < to; i++) {
        w->neg[2 * i] = w->neg[2 * i + 1] = w->zi[i] = 0;
        repel(&w->tree, 0, &y[2 * i], i, w->theta, &w->neg[2 * i], &w->zi[i]);
        double ax = 0, ay = 0;
        for (int e = w->p.start[i]; e < w->p.start[i + 1]; e++) {
            int j = w->p.col[e];
            double dx = y[2 * i] - y[2 * j], dyy = y[2 * i + 1] - y[2 * j + 1];
            double m = w->p.val[e] / (1 + dx * dx + dyy * dyy);
            ax += m * dx;
            ay += m * dyy;
        }
        w->dy[2 * i] = ax;
        w->dy[2 * i + 1] = ay;
    }
}

/* dy = attraction - repulsion / Z at w->y; returns Z (or -1: no memory).
 * Z is summed in point order, so the result does not depend on threads. */
static double gradient(work *w)
{
    int n = w->n;
    if (build_tree(&w->tree, w->y, n) < 0)
        return -1;
    parallel_for(0, n, w->threads, forces, w);
    double z = 0;
    for (int i = 0; i < n; i++)
        z += w->zi[i];
    for (int a = 0; a < 2 * n; a++)
        w->dy[a] -= w->neg[a] / z;
    return z;
}

static double sign_of(double x)
{
    return x == 0 ? 0 : x < 0 ? -1 : 1;
}

static void step(work *w, double momentum, double eta)
{
    int n2 = 2 * w->n;
    for (int a = 0; a < n2; a++) {
        w->gains[a] = sign_of(w->dy[a]) != sign_of(w->uy[a]) ? w->gains[a] + 0.2 : w->gains[a] * 0.8;
        if (w->gains[a] < 0.01)
            w->gains[a] = 0.01;
        w->uy[a] = momentum * w->uy[a] - eta * w->gains[a] * w->dy[a];
        w->y[a] += w->uy[a];
    }
    for (int d = 0; d < 2; d++) {
        double mean = 0;
        for (int i = 0; i < w->n; i++)
            mean += w->y[2 * i + d];
        mean /= w->n;
        for (int i = 0; i < w->n; i++)
            w->y[2 * i + d] -= mean;
    }
}

static void scale_p(sparse *p, int n, double factor)
{
    for (int e = 0; e < p->start[n]; e++)
        p->val[e] *= factor;
}

/* KL(P || Q) with Q_ij = q_ij / z. */
static double kl_divergence(const work *w, double z)
{
    double kl = 0;
    for (int i = 0; i < w->n; i++)
        for (int e = w->p.start[i]; e < w->p.start[i + 1]; e++) {
            int j = w->p.col[e];
            double dx = w->y[2 * i] - w->y[2 * j], dy = w->y[2 * i + 1] - w->y[2 * j + 1];
            double q = 1 / (1 + dx * dx + dy * dy) / z, p = w->p.val[e];
            kl += p * log((p + FLT_MIN) / (q + FLT_MIN));
        }
    return kl;
}

static int report(const ari_tsne_options *o, int done, ari_error *err)
{
    if (o->progress && o->progress(o->progress_ctx, done, o->max_iter))
        return ari_error_set(err, ARI_E_CANCELLED, "t-SNE cancelled after %d of %d iterations", done, o->max_iter);
    return 0;
}

static int descend(work *w, const ari_tsne_options *o, ari_tsne_result *out, ari_error *err)
{
    uint64_t rng = o->seed;
    for (int a = 0; a < 2 * w->n; a++) {
        w->y[a] = next_normal(&rng) * 1e-4;
        w->gains[a] = 1;
    }
    scale_p(&w->p, w->n, o->exaggeration);
    double momentum = o->momentum;
    int iter = 0;
    for (; iter < o->max_iter; iter++) {
        if (iter == o->stop_lying_iter)
            scale_p(&w->p, w->n, 1 / o->exaggeration);
        if (iter == o->mom_switch_iter)
            momentum = o->final_momentum;
        if (gradient(w) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        step(w, momentum, o->learning_rate);
        if (o->progress_every > 0 && (iter + 1) % o->progress_every == 0 && report(o, iter + 1, err) < 0)
            return -1;
    }
    if (o->max_iter <= o->stop_lying_iter)
        scale_p(&w->p, w->n, 1 / o->exaggeration);
    double z = gradient(w);
    if (z < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (out) {
        out->kl = kl_divergence(w, z);
        out->iterations = iter;
    }
    return 0;
}

/* ---- entry points ------------------------------------------------------------ */

void ari_tsne_defaults(ari_tsne_options *o)
{
    *o = (ari_tsne_options){.perplexity = 30,
                            .theta = 0.5,
                            .max_iter = 1000,
                            .learning_rate = 200,
                            .exaggeration = 12,
                            .stop_lying_iter = 250,
                            .mom_switch_iter = 250,
                            .momentum = 0.5,
                            .final_momentum = 0.8,
                            .seed = 1,
                            .progress_every = 50};
}

static int check_options(int n, const ari_tsne_options *o, ari_error *err)
{
    if (n < 2 || n > ARI_TSNE_MAX_POINTS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "t-SNE needs 2 to %d points, not %d",
                             ARI_TSNE_MAX_POINTS, n);
    if (!(o->perplexity > 0) || !(3 * o->perplexity < n) || (int)(3 * o->perplexity) < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "perplexity %g is invalid for %d points (need 0 < 3 * perplexity < n)",
                             o->perplexity, n);
    if (!(o->theta >= 0 && o->theta <= 1) || o->max_iter < 1 || !(o->learning_rate > 0) ||
        !(o->exaggeration >= 1) || !isfinite(o->momentum) || !isfinite(o->final_momentum))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "t-SNE options out of range");
    return 0;
}

/* The squared distances of row i into d2 (n). */
typedef void (*row_fn)(const void *src, int n, int p, int i, double *d2);

static void row_from_data(const void *src, int n, int p, int i, double *d2)
{
    const double *x = src, *xi = &x[(size_t)i * p];
    for (int j = 0; j < n; j++) {
        const double *xj = &x[(size_t)j * p];
        double s = 0;
        for (int c = 0; c < p; c++) {
            double d = xi[c] - xj[c];
            s += d * d;
        }
        d2[j] = s;
    }
}

static void row_from_dist(const void *src, int n, int p, int i, double *d2)
{
    (void)p;
    const double *d = (const double *)src + (size_t)i * n;
    for (int j = 0; j < n; j++)
        d2[j] = d[j] * d[j];
}

/* The kNN and conditional similarities of a block of points. */
typedef struct knn_job {
    const void *src;
    int n, p, k;
    row_fn fn;
    double perplexity;
    double *cond, *d2[MAX_THREADS];
    int *nbr;
    nb *knn[MAX_THREADS];
} knn_job;

static void knn_rows(void *ctx, int thread, int from, int to)
{
    knn_job *j = ctx;
    for (int i = from; i < to; i++) {
        j->fn(j->src, j->n, j->p, i, j->d2[thread]);
        select_knn(j->d2[thread], j->n, i, j->k, j->knn[thread]);
        calibrate(j->knn[thread], j->k, j->perplexity, &j->cond[(size_t)i * j->k]);
        for (int m = 0; m < j->k; m++)
            j->nbr[(size_t)i * j->k + m] = j->knn[thread][m].j;
    }
}

static void knn_free(knn_job *j)
{
    free(j->cond);
    free(j->nbr);
    for (int t = 0; t < MAX_THREADS; t++) {
        free(j->d2[t]);
        free(j->knn[t]);
    }
}

/* The input similarities P of w from the rows that fn gives; the progress
 * callback is called (with 0 iterations done) every KNN_BLOCK points. */
static int similarities(work *w, const void *src, int p, row_fn fn, const ari_tsne_options *o, ari_error *err)
{
    int n = w->n, k = (int)(3 * o->perplexity);
    knn_job j = {.src = src, .n = n, .p = p, .k = k, .fn = fn, .perplexity = o->perplexity};
    j.cond = malloc((size_t)n * k * sizeof *j.cond);
    j.nbr = malloc((size_t)n * k * sizeof *j.nbr);
    int ok = j.cond && j.nbr, rc = -1;
    for (int t = 0; t < w->knn_threads && ok; t++) {
        j.d2[t] = malloc((size_t)n * sizeof *j.d2[t]);
        j.knn[t] = malloc((size_t)k * sizeof *j.knn[t]);
        ok = j.d2[t] && j.knn[t];
    }
    if (!ok) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    for (int a = 0; a < n; a += KNN_BLOCK) {
        parallel_for(a, a + KNN_BLOCK < n ? a + KNN_BLOCK : n, w->knn_threads, knn_rows, &j);
        if (report(o, 0, err) < 0)
            goto done;
    }
    if (symmetrize(j.nbr, j.cond, n, k, &w->p) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    rc = 0;
done:
    knn_free(&j);
    return rc;
}

static int run(const void *src, int n, int p, row_fn fn, const ari_tsne_options *o, double *y,
               ari_tsne_result *out, ari_error *err)
{
    work w = {.n = n, .knn_threads = thread_count(o->threads), .theta = o->theta, .y = y};
    w.threads = o->threads > 0 || n >= DESCENT_THREADS_FROM ? w.knn_threads : 1;
    size_t n2 = (size_t)2 * n;
    w.dy = calloc(n2, sizeof *w.dy);
    w.uy = calloc(n2, sizeof *w.uy);
    w.gains = calloc(n2, sizeof *w.gains);
    w.neg = calloc(n2, sizeof *w.neg);
    w.zi = calloc((size_t)n, sizeof *w.zi);
    int rc = -1;
    if (!w.dy || !w.uy || !w.gains || !w.neg || !w.zi)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    else if (similarities(&w, src, p, fn, o, err) == 0)
        rc = descend(&w, o, out, err);
    work_free(&w);
    return rc;
}

int ari_tsne_rows(const double *x, int n, int p, const ari_tsne_options *o, double *y, ari_tsne_result *out,
                  ari_error *err)
{
    if (check_options(n, o, err) < 0)
        return -1;
    if (p < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "t-SNE rows need at least one column");
    for (size_t a = 0; a < (size_t)n * p; a++)
        if (!isfinite(x[a]))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "t-SNE input value %zu is not finite", a);
    return run(x, n, p, row_from_data, o, y, out, err);
}

int ari_tsne_dist(const double *d, int n, const ari_tsne_options *o, double *y, ari_tsne_result *out,
                  ari_error *err)
{
    if (check_options(n, o, err) < 0)
        return -1;
    for (size_t a = 0; a < (size_t)n * n; a++)
        if (a % ((size_t)n + 1) != 0 && !(isfinite(d[a]) && d[a] >= 0))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "distance %zu is negative or not finite", a);
    return run(d, n, 0, row_from_dist, o, y, out, err);
}
