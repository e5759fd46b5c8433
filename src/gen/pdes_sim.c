/* pdes_sim.c: the simulated ROSS run of pdes_sim.h: phases and anomalies,
 * the per-sample KP model with its communication matrix, and the writers
 * of the matrices, the record CSV and the two JSON files. */
#include "gen/pdes_sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NMATRIX 7
#define LOCAL_PARTNERS 3
#define REMOTE_PARTNERS 4
#define MAX_COMM_ENTRIES ((int64_t)1 << 28) /* CommData numbers in records.csv */
#define MAX_MATRIX_CELLS ((int64_t)1 << 24) /* KPs x samples kept for the matrices */

static const char *const matrix_names[NMATRIX] = {"RbSec", "RbTotal", "NetworkSend", "NetworkRecv",
                                                  "NeventProcessed", "NeventRb", "VirtualTimeDiff"};
enum { M_RBSEC, M_RBTOTAL, M_SEND, M_RECV, M_PROCESSED, M_NEVENTRB, M_VTD };

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ------------------------------ */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t next(rng *r)
{
    uint64_t result = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;
    r->s[2] ^= r->s[0];
    r->s[3] ^= r->s[1];
    r->s[1] ^= r->s[2];
    r->s[0] ^= r->s[3];
    r->s[2] ^= t;
    r->s[3] = rotl(r->s[3], 45);
    return result;
}

static double uniform(rng *r)
{
    return (double)(next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(rng *r)
{
    double u = uniform(r), v = uniform(r);
    return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A Poisson count of mean lambda (exact by inversion below 30, normal above). */
static double poisson(rng *r, double lambda)
{
    if (lambda <= 0)
        return 0;
    if (lambda >= 30) {
        double x = floor(lambda + sqrt(lambda) * normal(r) + 0.5);
        return x < 0 ? 0 : x;
    }
    double l = exp(-lambda), p = uniform(r);
    int k = 0;
    while (p > l && k < 1000) {
        p *= uniform(r);
        k++;
    }
    return k;
}

/* ---- the run --------------------------------------------------------------------------- */

typedef struct phase {
    int start;
    double rate, rollback, remote, vtd; /* events per LP and sample, rollback fraction, remote share, VT ahead */
} phase;

typedef struct kp_state {
    double lp_weight;                    /* sum of its LPs' rate factors */
    int anomalous;
    int local[LOCAL_PARTNERS], remote[REMOTE_PARTNERS];
} kp_state;

typedef struct run {
    const pdes_options *o;
    int nkp;
    rng r;
    phase phases[PDES_MAX_SEGMENTS];
    int nphases;
    kp_state *kps;
    float *matrix[NMATRIX];              /* nkp x samples */
    double *gvt, *real_ts, *virtual_ts;  /* samples */
    double *recv;                        /* nkp, per sample */
    double *row;                         /* nkp x (1 + partners): counts of the current sample */
    FILE *records;
    char *line;                          /* a record line */
    size_t line_cap;
} run;

static int check_options(const pdes_options *o, ari_error *err)
{
    if (!o->out_dir || !*o->out_dir)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "an output directory is required");
    if (o->pes < 1 || o->pes > PDES_MAX_PES || o->kps < 1 || o->kps > PDES_MAX_KPS || o->lps < 1 ||
        o->lps > PDES_MAX_LPS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "--pes, --kps and --lps must be from 1 to %d, %d and %d",
                             PDES_MAX_PES, PDES_MAX_KPS, PDES_MAX_LPS);
    int64_t nkp = (int64_t)o->pes * o->kps;
    if (nkp > PDES_MAX_TOTAL_KPS || nkp * o->lps > PDES_MAX_TOTAL_LPS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "at most %d KPs and %d LPs in all", PDES_MAX_TOTAL_KPS,
                             PDES_MAX_TOTAL_LPS);
    if (o->samples < 10 || o->samples > PDES_MAX_SAMPLES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "--samples must be from 10 to %d", PDES_MAX_SAMPLES);
    if (nkp * o->samples > MAX_MATRIX_CELLS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%lld KPs x %d samples: at most %lld values per metric",
                             (long long)nkp, o->samples, (long long)MAX_MATRIX_CELLS);
    if (o->records && nkp * nkp * o->samples > MAX_COMM_ENTRIES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "records.csv would hold %lld CommData numbers (KPs^2 x samples, at most %lld): "
                             "use fewer KPs or samples, or --no-records",
                             (long long)(nkp * nkp * o->samples), (long long)MAX_COMM_ENTRIES);
    if (o->segments && (o->segments < 2 || o->segments > PDES_MAX_SEGMENTS))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "--segments must be from 2 to %d", PDES_MAX_SEGMENTS);
    return 0;
}

static int min_segment(int samples)
{
    int m = samples / 6;
    return m < 5 ? 5 : m;
}

/* Phase lengths: each at least min_segment, the rest spread at random;
 * levels: a permutation of {0.5, 1, 1.5, 2}, so neighbours differ by 50%
 * of the base at least. */
static void make_phases(run *u)
{
    int s = u->o->samples, ms = min_segment(s);
    int n = u->o->segments ? u->o->segments : 2 + (int)(next(&u->r) % 3);
    while (n > 2 && n * ms > s)
        n--;
    double w[PDES_MAX_SEGMENTS], wsum = 0;
    for (int i = 0; i < n; i++)
        wsum += w[i] = 0.2 + uniform(&u->r);
    int spare = s - n * ms, start = 0;
    double levels[4] = {0.5, 1.0, 1.5, 2.0};
    for (int i = 3; i > 0; i--) {
        int j = (int)(next(&u->r) % (uint64_t)(i + 1));
        double t = levels[i];
        levels[i] = levels[j];
        levels[j] = t;
    }
    for (int i = 0; i < n; i++) {
        phase *p = &u->phases[i];
        p->start = start;
        p->rate = 20.0 * levels[i];
        p->rollback = 0.04 + 0.06 * levels[(i + 1) % 4];
        p->remote = 0.1 + 0.15 * levels[(i + 2) % 4];
        p->vtd = 40.0 * levels[i];
        start += ms + (int)floor(spare * w[i] / wsum);
    }
    u->nphases = n;
}

static int phase_of(const run *u, int s)
{
    int p = 0;
    while (p + 1 < u->nphases && s >= u->phases[p + 1].start)
        p++;
    return p;
}

static void make_kps(run *u)
{
    int k = u->o->kps;
    for (int i = 0; i < u->nkp; i++) {
        kp_state *q = &u->kps[i];
        for (int l = 0; l < u->o->lps; l++)
            q->lp_weight += 0.75 + 0.5 * uniform(&u->r);
        int pe = i / k;
        for (int j = 0; j < LOCAL_PARTNERS; j++)
            q->local[j] = pe * k + (int)(next(&u->r) % (uint64_t)k);
        for (int j = 0; j < REMOTE_PARTNERS; j++)
            q->remote[j] = (int)(next(&u->r) % (uint64_t)u->nkp);
    }
    int anomalies = u->nkp / 64 < 1 ? 1 : u->nkp / 64 > 8 ? 8 : u->nkp / 64;
    for (int a = 0; a < anomalies;) {
        int i = (int)(next(&u->r) % (uint64_t)u->nkp);
        if (!u->kps[i].anomalous) {
            u->kps[i].anomalous = 1;
            a++;
        }
    }
}

/* ---- the per-sample model ---------------------------------------------------------------- */

typedef struct kp_sample {
    double processed, abort, rb_total, rb_sec, nevent_rb, vtd, sends, ties, fc, pq;
} kp_sample;

static void kp_model(run *u, int i, const phase *p, kp_sample *x)
{
    const kp_state *q = &u->kps[i];
    double anomaly = q->anomalous ? 4.0 : 1.0;
    x->processed = poisson(&u->r, p->rate * q->lp_weight);
    x->rb_total = poisson(&u->r, x->processed * p->rollback * anomaly);
    x->rb_sec = floor(x->rb_total * (0.3 + 0.2 * uniform(&u->r)));
    x->nevent_rb = poisson(&u->r, x->rb_total * 4.0);
    x->abort = poisson(&u->r, x->processed * 0.001);
    x->ties = poisson(&u->r, x->processed * 0.01);
    x->fc = poisson(&u->r, 2.0);
    x->pq = poisson(&u->r, 5.0 * u->o->lps);
    x->vtd = p->vtd * (1 + 0.3 * normal(&u->r)) * (q->anomalous ? 10.0 : 1.0);
    x->sends = poisson(&u->r, x->processed * 0.9);
}

/* Splits the sends of KP i into its CommData row (self, local and remote
 * partners): row[0] self, then the partners. */
static void kp_comm(run *u, int i, const phase *p, const kp_sample *x, double *row)
{
    double local = 0.3, remote = p->remote, self = 1 - local - remote;
    row[0] = poisson(&u->r, x->sends * self);
    for (int j = 0; j < LOCAL_PARTNERS; j++)
        row[1 + j] = poisson(&u->r, x->sends * local / LOCAL_PARTNERS);
    for (int j = 0; j < REMOTE_PARTNERS; j++)
        row[1 + LOCAL_PARTNERS + j] = poisson(&u->r, x->sends * remote / REMOTE_PARTNERS);
    (void)i;
}

static int partner(const run *u, int i, int j)
{
    const kp_state *q = &u->kps[i];
    return j == 0 ? i : j <= LOCAL_PARTNERS ? q->local[j - 1] : q->remote[j - 1 - LOCAL_PARTNERS];
}

/* ---- writing ------------------------------------------------------------------------------ */

static int io_fail(ari_error *err, const char *path)
{
    return ari_error_set(err, ARI_E_IO, "%s: %s", path, strerror(errno));
}

static char *path_of(const run *u, const char *name)
{
    char *p;
    return asprintf(&p, "%s/%s", u->o->out_dir, name) < 0 ? NULL : p;
}

static void put_int(char **w, double v)
{
    char tmp[24];
    int n = 0;
    uint64_t x = v < 0 ? 0 : (uint64_t)v;
    do
        tmp[n++] = (char)('0' + x % 10);
    while ((x /= 10) && n < 20);
    while (n)
        *(*w)++ = tmp[--n];
}

static const char record_header[] =
    "\"EntityId\",\"EventId\",\"LastGvt\",\"Mode\",\"RealTs\",\"Status\",\"VirtualTs\",\"AvlTime\",\"CancelQTime\","
    "\"CommData\",\"Efficiency\",\"EventAbortTime\",\"EventProcTime\",\"EventTies\",\"FcAttempts\",\"FcTime\","
    "\"GvtTime\",\"NetOtherTime\",\"NetReadTime\",\"NetworkRecv\",\"NetworkSend\",\"NeventAbort\","
    "\"NeventProcessed\",\"NeventRb\",\"NumGvt\",\"PqQsize\",\"PqTime\",\"RbPrim\",\"RbSec\",\"RbTime\",\"RbTotal\","
    "\"VirtualTimeDiff\",\"KpGid\",\"Kpid\",\"Peid\"\n";

/* One record line of KP i at sample s; row = its CommData (non-zero
 * partners), dense over all KPs. */
static int write_record(run *u, int s, int i, const kp_sample *x, const double *row, double recv, double send)
{
    size_t need = (size_t)u->nkp * 22 + 1024;
    if (need > u->line_cap) {
        free(u->line);
        if (!(u->line = malloc(need)))
            return -1;
        u->line_cap = need;
    }
    double eff = x->processed > 0 ? 100.0 * (1 - x->nevent_rb / x->processed) : 100.0;
    double t = x->processed * 1e-6;
    char *w = u->line;
    w += sprintf(w, "%d,-1,%.15g,1,%.15g,1,%.15g,%.9g,%.9g,\"[", s, u->gvt[s], u->real_ts[s], u->virtual_ts[s], t * 0.02,
                 t * 0.01);
    int np = 1 + LOCAL_PARTNERS + REMOTE_PARTNERS;
    double *dense = u->recv + u->nkp; /* scratch: nkp zeros */
    for (int j = 0; j < np; j++)
        dense[partner(u, i, j)] += row[j];
    for (int k = 0; k < u->nkp; k++) {
        if (k) {
            *w++ = ',';
            *w++ = ' ';
        }
        put_int(&w, dense[k]);
        dense[k] = 0;
    }
    w += sprintf(w, "]\",%.9g,%.9g,%.9g,%.0f,%.0f,%.9g,%.9g,%.9g,%.9g,%.0f,%.0f,%.0f,%.0f,%.0f,10,%.0f,%.9g,%.0f,%.0f,%.9g,"
                    "%.0f,%.9g,%d,%d,%d\n",
                 eff, t * 0.05, t, x->ties, x->fc, t * 0.03, t * 0.1, t * 0.04, t * 0.06, recv, send, x->abort,
                 x->processed, x->nevent_rb, x->pq, t * 0.02, x->rb_total - x->rb_sec, x->rb_sec, t * 0.2 * x->rb_total /
                 (x->processed + 1), x->rb_total, x->vtd, i, i % u->o->kps, i / u->o->kps);
    return fwrite(u->line, 1, (size_t)(w - u->line), u->records) == (size_t)(w - u->line) ? 0 : -1;
}

/* Runs sample s: every KP's model and comm row, then NetworkRecv (sends
 * from KPs of other PEs), the matrices and the records. */
static int sample(run *u, int s, kp_sample *xs, ari_error *err)
{
    const phase *p = &u->phases[phase_of(u, s)];
    int np = 1 + LOCAL_PARTNERS + REMOTE_PARTNERS, k = u->o->kps;
    memset(u->recv, 0, (size_t)u->nkp * sizeof *u->recv);
    for (int i = 0; i < u->nkp; i++) {
        kp_model(u, i, p, &xs[i]);
        kp_comm(u, i, p, &xs[i], u->row + (size_t)i * np);
    }
    for (int i = 0; i < u->nkp; i++) {
        double send = 0;
        for (int j = 0; j < np; j++) {
            int d = partner(u, i, j);
            if (d / k != i / k) {
                send += u->row[(size_t)i * np + j];
                u->recv[d] += u->row[(size_t)i * np + j];
            }
        }
        xs[i].sends = send; /* NetworkSend: events to KPs of other PEs */
    }
    for (int i = 0; i < u->nkp; i++) {
        const kp_sample *x = &xs[i];
        size_t c = (size_t)i * u->o->samples + s;
        double v[NMATRIX] = {x->rb_sec, x->rb_total, x->sends, u->recv[i], x->processed, x->nevent_rb, x->vtd};
        for (int m = 0; m < NMATRIX; m++)
            u->matrix[m][c] = (float)v[m];
        if (u->records && write_record(u, s, i, x, u->row + (size_t)i * np, u->recv[i], x->sends) < 0)
            return ari_error_set(err, ARI_E_IO, "records.csv: %s", strerror(errno));
    }
    return 0;
}

static void make_clock(run *u)
{
    double g = 14593.9923955161, rt = 0.5;
    for (int s = 0; s < u->o->samples; s++) {
        u->gvt[s] = g;
        u->real_ts[s] = rt;
        u->virtual_ts[s] = g + 50.0 * uniform(&u->r);
        g += 10000.0 * (0.8 + 0.4 * uniform(&u->r));
        rt += 0.05 * (0.9 + 0.2 * uniform(&u->r));
    }
}

static int write_matrix(const run *u, int m, ari_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "%s.csv", matrix_names[m]);
    char *path = path_of(u, name);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) {
        int rc = path ? io_fail(err, path) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(path);
        return rc;
    }
    for (int s = 0; s < u->o->samples; s++)
        fprintf(f, "%s\"%.15g\"", s ? "," : "", u->gvt[s]);
    fputc('\n', f);
    for (int i = 0; i < u->nkp; i++)
        for (int s = 0; s < u->o->samples; s++) {
            float v = u->matrix[m][(size_t)i * u->o->samples + s];
            if (m == M_VTD)
                fprintf(f, "%s%.9g", s ? "," : "", (double)v);
            else
                fprintf(f, "%s%.0f", s ? "," : "", (double)v);
            if (s + 1 == u->o->samples)
                fputc('\n', f);
        }
    int rc = ferror(f) | fclose(f) ? io_fail(err, path) : 0;
    free(path);
    return rc;
}

static int write_json(const run *u, const char *name, const char *text, ari_error *err)
{
    char *path = path_of(u, name);
    FILE *f = path ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    rc = rc ? (path ? io_fail(err, path) : ari_error_set(err, ARI_E_NOMEM, "out of memory")) : 0;
    free(path);
    return rc;
}

static int write_meta(const run *u, ari_error *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"simulated\": true, \"generator\": \"ariadned generate --kind pdes\", \"pes\": %d, \"kps_per_pe\": %d, "
             "\"lps_per_kp\": %d, \"kps\": %d, \"lps\": %lld, \"samples\": %d, \"seed\": %llu, \"records\": %s}\n",
             u->o->pes, u->o->kps, u->o->lps, u->nkp, (long long)u->nkp * u->o->lps, u->o->samples,
             (unsigned long long)u->o->seed, u->o->records ? "true" : "false");
    return write_json(u, "ross.json", buf, err);
}

static int write_truth(const run *u, ari_error *err)
{
    size_t cap = 4096 + 16 * (size_t)u->nkp;
    char *b = malloc(cap);
    if (!b)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t n = (size_t)snprintf(b, cap, "{\"simulated\": true, \"segments\": %d, \"min_segment\": %d, \"boundaries\": [",
                                u->nphases, min_segment(u->o->samples));
    for (int p = 1; p < u->nphases; p++)
        n += (size_t)snprintf(b + n, cap - n, "%s{\"index\": %d, \"LastGvt\": %.15g}", p > 1 ? ", " : "",
                              u->phases[p].start, u->gvt[u->phases[p].start]);
    n += (size_t)snprintf(b + n, cap - n, "], \"phases\": [");
    for (int p = 0; p < u->nphases; p++)
        n += (size_t)snprintf(b + n, cap - n,
                              "%s{\"start\": %d, \"rate_per_lp\": %g, \"rollback_fraction\": %g, \"remote_share\": %g, "
                              "\"virtual_time_ahead\": %g}",
                              p ? ", " : "", u->phases[p].start, u->phases[p].rate, u->phases[p].rollback,
                              u->phases[p].remote, u->phases[p].vtd);
    n += (size_t)snprintf(b + n, cap - n, "], \"anomalous_kps\": [");
    for (int i = 0, c = 0; i < u->nkp; i++)
        if (u->kps[i].anomalous)
            n += (size_t)snprintf(b + n, cap - n, "%s%d", c++ ? ", " : "", i);
    snprintf(b + n, cap - n, "], \"anomaly\": \"rollbacks x4, VirtualTimeDiff x10\"}\n");
    int rc = write_json(u, "truth.json", b, err);
    free(b);
    return rc;
}

/* ---- driver -------------------------------------------------------------------------------- */

static int alloc_run(run *u, ari_error *err)
{
    size_t cells = (size_t)u->nkp * (size_t)u->o->samples, np = 1 + LOCAL_PARTNERS + REMOTE_PARTNERS;
    u->kps = calloc((size_t)u->nkp, sizeof *u->kps);
    for (int m = 0; m < NMATRIX; m++)
        u->matrix[m] = malloc(cells * sizeof(float));
    u->gvt = malloc((size_t)u->o->samples * sizeof(double));
    u->real_ts = malloc((size_t)u->o->samples * sizeof(double));
    u->virtual_ts = malloc((size_t)u->o->samples * sizeof(double));
    u->recv = calloc(2 * (size_t)u->nkp, sizeof(double)); /* recv, then a zeroed scratch row */
    u->row = malloc((size_t)u->nkp * np * sizeof(double));
    int ok = u->kps && u->gvt && u->real_ts && u->virtual_ts && u->recv && u->row;
    for (int m = 0; m < NMATRIX; m++)
        ok = ok && u->matrix[m];
    return ok ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static void free_run(run *u)
{
    free(u->kps);
    for (int m = 0; m < NMATRIX; m++)
        free(u->matrix[m]);
    free(u->gvt);
    free(u->real_ts);
    free(u->virtual_ts);
    free(u->recv);
    free(u->row);
    free(u->line);
}

static int simulate(run *u, ari_error *err)
{
    kp_sample *xs = calloc((size_t)u->nkp, sizeof *xs);
    if (!xs)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    if (u->o->records) {
        char *path = path_of(u, "records.csv");
        u->records = path ? fopen(path, "w") : NULL;
        rc = u->records ? (fputs(record_header, u->records) >= 0 ? 0 : io_fail(err, path))
                        : (path ? io_fail(err, path) : ari_error_set(err, ARI_E_NOMEM, "out of memory"));
        free(path);
    }
    for (int s = 0; rc == 0 && s < u->o->samples; s++)
        rc = sample(u, s, xs, err);
    if (u->records && fclose(u->records) != 0 && rc == 0)
        rc = ari_error_set(err, ARI_E_IO, "records.csv: %s", strerror(errno));
    u->records = NULL;
    free(xs);
    return rc;
}

int pdes_sim_run(const pdes_options *o, pdes_summary *sum, ari_error *err)
{
    if (check_options(o, err) < 0)
        return -1;
    if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
        return io_fail(err, o->out_dir);
    run u;
    memset(&u, 0, sizeof u);
    u.o = o;
    u.nkp = o->pes * o->kps;
    uint64_t seed = o->seed;
    for (int i = 0; i < 4; i++)
        u.r.s[i] = splitmix64(&seed);
    int rc = alloc_run(&u, err);
    if (rc == 0) {
        make_phases(&u);
        make_kps(&u);
        make_clock(&u);
        rc = simulate(&u, err);
    }
    for (int m = 0; rc == 0 && m < NMATRIX; m++)
        rc = write_matrix(&u, m, err);
    if (rc == 0)
        rc = write_meta(&u, err);
    if (rc == 0)
        rc = write_truth(&u, err);
    if (rc == 0) {
        memset(sum, 0, sizeof *sum);
        sum->segments = u.nphases;
        for (int p = 1; p < u.nphases; p++)
            sum->boundaries[p - 1] = u.phases[p].start;
        for (int i = 0; i < u.nkp; i++)
            sum->anomalous += u.kps[i].anomalous;
        sum->kps = u.nkp;
        sum->lps = (int64_t)u.nkp * o->lps;
        sum->last_gvt = u.gvt[o->samples - 1];
    }
    free_run(&u);
    return rc;
}
