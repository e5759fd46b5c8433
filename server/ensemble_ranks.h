/* ensemble_ranks.h: every rank's values of one supernode of an ensemble
 * super graph, read member by member from the store (the rank histogram,
 * the call-site boxplots and the per-rank difference of the node
 * endpoints). The super graph itself has one stand-in per member
 * (ensemble_ctx.h); a rank view of node j reads, for each member, only the
 * inclusive and exclusive rows of j's CCT nodes and their children
 * (ari_sg_node_support) instead of the member's whole profile: a few hundred
 * point reads rather than 600 MB for 300 members of 2,000 call sites on 64
 * ranks. */
#ifndef ARIADNE_ENSEMBLE_RANKS_H
#define ARIADNE_ENSEMBLE_RANKS_H

#include <stdint.h>

#include "ensemble_ctx.h"

typedef struct esg_ranks {
    int present;       /* the member has the supernode; else everything below is empty */
    int np;            /* the member's processes */
    double *inc, *exc; /* [np] the supernode's per-process times (unmeasured counts 0) */
    int64_t n;         /* support nodes (unified CCT ids) */
    int64_t *nodes;    /* [n] */
    double *node_inc;  /* [n * np] per node, NAN where unmeasured or absent */
    double *node_exc;  /* [n * np] */
} esg_ranks;

/* Member m's ranks of supernode j (m a selected member of c). 0, or -1 with
 * err (invalid_parameter when the metric has no inclusive and exclusive
 * pair: say which metric to choose). */
int esg_ranks_load(ari_store *s, const esg_ctx *c, int m, int64_t j, esg_ranks *out, ari_error *err);
void esg_ranks_free(esg_ranks *r);

/* Every selected member's ranks of supernode j: an array of c->s.nmembers,
 * NULL with err on failure (the error answered by the caller). */
esg_ranks *esg_ranks_load_all(ari_store *s, const esg_ctx *c, int64_t j, ari_error *err);
void esg_ranks_free_all(esg_ranks *all, int n);

#endif
