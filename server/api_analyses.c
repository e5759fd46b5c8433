/* api_analyses.c: the background analyses of analysis_runs.h over HTTP:
 *   GET /api/v1/analyses/{id}     {"analysis": {id, kind, trace_id, status,
 *                                 progress, phase, created_at}, "result"?,
 *                                 "error"?}
 *   DELETE /api/v1/analyses/{id}  cancels it (204; a finished one stays).
 * Runs live in the daemon's memory: unknown ids (and those dropped to
 * keep the memory bounded, or lost with a restart) are 404. */
#include <stdlib.h>

#include "analysis_runs.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

enum MHD_Result api_analyses_get(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    int nomem = 0;
    char *doc = ari_runs_document(id, &nomem);
    if (!doc)
        return nomem ? ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory")
                     : ari_reply_error(r, 404, "not_found", "no analysis %lld (finished analyses are kept for a "
                                       "while; repeat the request to get its result from the cache)", (long long)id);
    enum MHD_Result res = ari_reply_text_json(r, 200, doc);
    free(doc);
    return res;
}

enum MHD_Result api_analyses_delete(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    if (ari_runs_cancel(id) != 0)
        return ari_reply_error(r, 404, "not_found", "no analysis %lld", (long long)id);
    return ari_reply_empty(r, 204);
}
