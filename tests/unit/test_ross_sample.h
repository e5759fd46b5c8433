/* test_ross_sample.h: the KP x GVT matrices the clustering tests compare
 * with R (issue 17): the real ROSS sample when the shared data folder is
 * there (ARIADNE_SHARED_DATA, else ../shared/data: ross-sample/<Metric>.csv,
 * 256 KP rows x 99 GVT columns, every value quoted, the header row the
 * LastGvt values), read by a tiny CSV parser of its own; otherwise three
 * generated matrices of the same shape (five behaviour groups, integer
 * counts with ties, as the ROSS counters are), and distance matrices of
 * them or with many ties. Also writes matrices for R,
 * runs R in a fresh directory (ross_r_*) and reads R's numbers back. */
#ifndef ARIADNE_TEST_ROSS_SAMPLE_H
#define ARIADNE_TEST_ROSS_SAMPLE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ts_distance.h"
#include "test_helpers.h"
#include "test_rng.h"
#include "util/fs.h"

#define ROSS_MAX_MATRICES 7

static const char *const ross_metric_names[ROSS_MAX_MATRICES] = {
    "RbSec", "RbTotal", "NetworkSend", "NetworkRecv", "NeventRb", "NeventProcessed", "VirtualTimeDiff"};

typedef struct ross_matrix {
    char name[64];
    int n, l;     /* rows (KPs), columns (GVT samples) */
    double *x;    /* n x l row-major */
    double *time; /* l: the LastGvt header (1..l when generated) */
} ross_matrix;

/* Splits one CSV line into numbers (quotes stripped); returns the count or
 * -1 on a field that is not a number. */
static inline int ross_parse_line(char *line, double *out, int cap)
{
    int count = 0;
    char *save = NULL;
    for (char *f = strtok_r(line, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        while (*f == ' ' || *f == '"')
            f++;
        char *end;
        double v = strtod(f, &end);
        while (*end == '"' || *end == ' ' || *end == '\r')
            end++;
        if (end == f || *end != '\0' || count >= cap)
            return -1;
        out[count++] = v;
    }
    return count;
}

/* Reads one metric CSV; 0 or -1. */
static inline int ross_read_csv(const char *path, const char *name, ross_matrix *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    enum { CAP_COLS = 4096, CAP_ROWS = 65536 };
    char *line = NULL;
    size_t size = 0;
    double *row = malloc(CAP_COLS * sizeof *row);
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    int rc = 0, cap_rows = 0;
    while (rc == 0 && getline(&line, &size, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0')
            continue;
        int cnt = ross_parse_line(line, row, CAP_COLS);
        if (cnt <= 0 || (m->time && cnt != m->l)) {
            rc = -1;
        } else if (!m->time) {
            m->l = cnt;
            m->time = malloc((size_t)cnt * sizeof *m->time);
            memcpy(m->time, row, (size_t)cnt * sizeof *row);
        } else {
            if (m->n == cap_rows) {
                cap_rows = cap_rows ? 2 * cap_rows : 256;
                if (cap_rows > CAP_ROWS)
                    abort();
                m->x = realloc(m->x, (size_t)cap_rows * m->l * sizeof *m->x);
                if (!m->x)
                    abort();
            }
            memcpy(m->x + (size_t)m->n * m->l, row, (size_t)m->l * sizeof *row);
            m->n++;
        }
    }
    free(line);
    free(row);
    fclose(f);
    return rc == 0 && m->n > 0 ? 0 : -1;
}

/* A generated stand-in: five groups of rows following different shapes
 * (flat low, rising, a burst in the middle, falling, flat high), integer
 * counts. */
static inline void ross_generate(ross_matrix *m, int which)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "generated-%d", which);
    m->n = 256;
    m->l = 99;
    m->x = malloc((size_t)m->n * m->l * sizeof *m->x);
    m->time = malloc((size_t)m->l * sizeof *m->time);
    if (!m->x || !m->time)
        abort();
    rng_state = 0x5eed0000ULL + (uint64_t)which * 7919;
    for (int t = 0; t < m->l; t++)
        m->time[t] = t + 1;
    for (int i = 0; i < m->n; i++) {
        int g = (i * 7 + which) % 5;
        double scale = 20 + 10 * which;
        for (int t = 0; t < m->l; t++) {
            double f = (double)t / m->l;
            double base = g == 0 ? 1 : g == 1 ? 0.2 + 1.6 * f : g == 2 ? (t > 40 && t < 60 ? 3 : 0.5)
                        : g == 3 ? 2.2 - 1.8 * f : 2.5;
            m->x[(size_t)i * m->l + t] = floor(scale * base + 6 * rng_uniform());
        }
    }
}

static inline const char *ross_data_dir(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    return d ? d : "../shared/data";
}

/* Fills ms (ROSS_MAX_MATRICES) with the real sample's 7 metrics, or 3
 * generated matrices when the sample is absent; returns how many. */
static inline int ross_load(ross_matrix *ms)
{
    char path[4096];
    int n = 0;
    for (int k = 0; k < ROSS_MAX_MATRICES; k++) {
        snprintf(path, sizeof path, "%s/ross-sample/%s.csv", ross_data_dir(), ross_metric_names[k]);
        if (ross_read_csv(path, ross_metric_names[k], &ms[n]) == 0)
            n++;
    }
    if (n == ROSS_MAX_MATRICES)
        return n;
    for (int k = 0; k < n; k++) {
        free(ms[k].x);
        free(ms[k].time);
    }
    fprintf(stderr, "ROSS sample not found under %s: generated matrices instead\n", ross_data_dir());
    for (int k = 0; k < 3; k++)
        ross_generate(&ms[k], k);
    return 3;
}

static inline void ross_free(ross_matrix *ms, int count)
{
    for (int k = 0; k < count; k++) {
        free(ms[k].x);
        free(ms[k].time);
    }
}

/* The n x n distance matrix of m's rows (metric, DTW step, time stamps
 * for TWED or NULL); aborts on failure. */
static inline double *ross_distances(const ross_matrix *m, ari_ts_metric metric, ari_dtw_step step,
                                     const double *time)
{
    ari_ts_distance_opts o;
    ari_ts_distance_defaults(&o);
    o.metric = metric;
    o.step = step;
    o.time = time;
    double *d = malloc((size_t)m->n * m->n * sizeof *d);
    ari_error err = {0};
    if (!d || ari_ts_distance_matrix(m->x, m->n, 1, m->l, &o, d, &err) < 0) {
        fprintf(stderr, "distance matrix of %s: %s\n", m->name, err.message);
        abort();
    }
    return d;
}

/* Random integer distances 1..levels between n points (many ties), from
 * the test generator seeded with seed. */
static inline double *ross_tie_matrix(int n, uint64_t seed, int levels)
{
    double *d = malloc((size_t)n * n * sizeof *d);
    if (!d)
        abort();
    rng_state = seed;
    for (int i = 0; i < n; i++) {
        d[(size_t)i * n + i] = 0;
        for (int j = i + 1; j < n; j++)
            d[(size_t)i * n + j] = d[(size_t)j * n + i] = 1 + floor(levels * rng_uniform());
    }
    return d;
}

/* Writes "n p" and then the rows, full precision. */
static inline void ross_write_matrix(FILE *f, const double *x, int n, int p)
{
    fprintf(f, "%d %d\n", n, p);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
            fprintf(f, "%.17g%c", x[(size_t)i * p + j], j + 1 == p ? '\n' : ' ');
}

/* Writes the count matrices x (n x l) one after the other. */
static inline void ross_write_all(FILE *f, const ross_matrix *ms, int count)
{
    for (int m = 0; m < count; m++)
        ross_write_matrix(f, ms[m].x, ms[m].n, ms[m].l);
}

/* One exchange with R in a fresh directory: ross_r_open gives the input
 * file to write, ross_r_run runs the script on it and gives R's output,
 * ross_r_close removes everything. */
typedef struct ross_r {
    char *dir, *in, *out;
    FILE *input;
} ross_r;

/* Makes the directory and opens the input for writing (aborts on failure). */
static inline FILE *ross_r_open(ross_r *x)
{
    x->dir = test_tmpdir();
    if (!x->dir || asprintf(&x->in, "%s/in.txt", x->dir) < 0 || asprintf(&x->out, "%s/out.txt", x->dir) < 0)
        abort();
    x->input = fopen(x->in, "w");
    if (!x->input)
        abort();
    return x->input;
}

/* Closes the input and runs the R program script, saved as name: R's
 * output stream, or NULL when R failed. */
static inline FILE *ross_r_run(ross_r *x, const char *name, const char *script)
{
    fclose(x->input);
    x->input = NULL;
    return test_run_r(x->dir, name, script, x->in, x->out);
}

/* Closes R's output r (when not NULL) and removes the directory. */
static inline void ross_r_close(ross_r *x, FILE *r)
{
    if (r)
        fclose(r);
    ari_remove_tree(x->dir);
    free(x->dir);
    free(x->in);
    free(x->out);
}

/* Reads count doubles; 0 or -1. */
static inline int ross_read_doubles(FILE *f, double *out, int count)
{
    for (int i = 0; i < count; i++)
        if (fscanf(f, "%lf", &out[i]) != 1)
            return -1;
    return 0;
}

/* Whether two labelings are the same partition (up to label names). */
static inline int same_partition(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((a[i] == a[j]) != (b[i] == b[j]))
                return 0;
    return 1;
}

#endif
