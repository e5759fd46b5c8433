/* supergraph_params.h: the super graph's request parameters, read the
 * same way by GET /traces/{id}/supergraph and GET
 * /ensembles/{id}/supergraph (see docs/api.md). */
#ifndef ARIADNE_SUPERGRAPH_PARAMS_H
#define ARIADNE_SUPERGRAPH_PARAMS_H

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "server.h"

#define MAX_SPLITS 64

typedef struct sg_request {
    const char *metric;
    ari_group_by group_by;
    const char *group_by_name;
    const char *map_text;
    double filter_percent;
    int filter_exclusive;
    ari_collapse collapse;
    int bins;
    ari_sg_split splits[MAX_SPLITS];
    char *split_ids[MAX_SPLITS];
    int nsplits;
    const char *ranks_text;
    const char *detail; /* a supernode id: add its per-process values */
} sg_request;

/* Reads every parameter; 400 answered and -1 on a bad one. Free with
 * sg_request_free in either case. */
int sg_request_parse(ari_request *r, sg_request *q);
void sg_request_free(sg_request *q);
/* "entry", "caller" or "callsite". */
const char *sg_split_by_name(ari_split_by by);

#endif
