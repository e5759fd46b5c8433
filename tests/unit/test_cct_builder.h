/* test_cct_builder.h: hand-built profile CCTs for the ensemble unit tests
 * (test_ensemble_cct.c, test_ensemble_supergraph.c): a member with the
 * metrics "time (inc)" and "time", function nodes with the same exclusive
 * value on every process, inclusive values filled from them, and the
 * spec's Figure 4.2 ensemble of three runs. */
#ifndef ARIADNE_TEST_CCT_BUILDER_H
#define ARIADNE_TEST_CCT_BUILDER_H

#include <stdint.h>
#include <string.h>

#include "analysis/cct.h"

#define MAXN 64
#define MAXP 8

/* A hand-built member: metric 0 "time (inc)", metric 1 "time". */
typedef struct tcct {
    ari_cct c;
    int64_t parent[MAXN];
    const char *name[MAXN], *module[MAXN], *file[MAXN], *kind[MAXN];
    int line[MAXN];
    int rank[MAXP], thread[MAXP];
    ari_cct_metric metrics[2];
    double inc[MAXN * MAXP], exc[MAXN * MAXP];
    const double *values[2];
} tcct;

static inline void tcct_init(tcct *t, int nprocs)
{
    memset(t, 0, sizeof *t);
    t->c.nprocs = nprocs;
    for (int p = 0; p < nprocs; p++)
        t->rank[p] = p;
    t->metrics[0] = (ari_cct_metric){"time (inc)", "s", 1, 1};
    t->metrics[1] = (ari_cct_metric){"time", "s", 0, 0};
    t->values[0] = t->inc;
    t->values[1] = t->exc;
    t->c = (ari_cct){.parent = t->parent,
                     .name = t->name,
                     .module = t->module,
                     .file = t->file,
                     .line = t->line,
                     .kind = t->kind,
                     .nprocs = nprocs,
                     .proc_rank = t->rank,
                     .proc_thread = t->thread,
                     .nmetrics = 2,
                     .metrics = t->metrics,
                     .values = t->values};
}

/* Adds a function node with the same exclusive value on every process. */
static inline int64_t tcct_add(tcct *t, int64_t parent, const char *name, double exc)
{
    int64_t i = t->c.nnodes++;
    t->parent[i] = parent;
    t->name[i] = name;
    t->module[i] = name;
    t->file[i] = "";
    t->kind[i] = "function";
    for (int p = 0; p < t->c.nprocs; p++)
        t->exc[i * t->c.nprocs + p] = exc;
    return i;
}

/* inc = exc + sum of the children's inc, per process. */
static inline void fill_inclusive(tcct *t)
{
    int np = t->c.nprocs;
    memcpy(t->inc, t->exc, sizeof t->inc);
    for (int64_t i = t->c.nnodes - 1; i > 0; i--)
        for (int p = 0; p < np; p++)
            if (t->parent[i] >= 0)
                t->inc[t->parent[i] * np + p] += t->inc[i * np + p];
}

/* Figure 4.2: three runs; LIB3 is reached from LIB1 and from LIB2. */
static inline void build_fig42(tcct t[3])
{
    tcct_init(&t[0], 1);
    int64_t r = tcct_add(&t[0], -1, "LIB1", 5), l2 = tcct_add(&t[0], r, "LIB2", 0);
    tcct_add(&t[0], l2, "LIB3", 20);
    tcct_add(&t[0], r, "LIB3", 10);
    tcct_add(&t[0], r, "LIB4", 5);
    tcct_init(&t[1], 1);
    tcct_add(&t[1], tcct_add(&t[1], -1, "LIB1", 3), "LIB4", 35);
    tcct_init(&t[2], 1);
    r = tcct_add(&t[2], -1, "LIB1", 5);
    tcct_add(&t[2], r, "LIB3", 5);
    tcct_add(&t[2], tcct_add(&t[2], r, "LIB2", 5), "LIB3", 10);
    for (int m = 0; m < 3; m++)
        fill_inclusive(&t[m]);
}

#endif
