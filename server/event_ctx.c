/* event_ctx.c: opening an event trace for its endpoints and answering
 * (see event_ctx.h). */
#include "event_ctx.h"

#include <string.h>

#include "params.h"
#include "reply.h"

int ari_event_trace_open(ari_request *r, ari_tq_trace *t)
{
    memset(t, 0, sizeof *t);
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return -1;
    ari_error err = {0};
    int rc = ari_tq_trace_get(r->db, id, t, &err);
    if (rc != 0) {
        ari_reply_lookup_failed(r, rc, &err, "trace", id);
        return -1;
    }
    if (strcmp(t->kind, "events") != 0) {
        ari_reply_error(r, 409, "not_event_trace",
                        "trace %lld is a %s trace; this endpoint needs an event trace (OTF2, Projections, "
                        "HPCToolkit trace.db)",
                        (long long)id, t->kind);
        ari_event_trace_close(t);
        return -1;
    }
    return 0;
}

void ari_event_trace_close(ari_tq_trace *t)
{
    ari_tq_trace_free(t);
}

enum MHD_Result ari_event_reply(ari_request *r, ari_tq_trace *t, json_t *doc, const ari_error *err)
{
    enum MHD_Result res;
    if (!doc) {
        if (err && err->code[0])
            res = ari_reply_from_error(r, err);
        else
            res = ari_reply_error(r, 500, "internal", "could not build the answer for trace %lld",
                                  (long long)t->id);
    } else {
        json_object_set_new(doc, "trace_id", json_integer(t->id));
        json_object_set_new(doc, "time_unit", json_string(t->time_unit));
        res = ari_reply_doc(r, doc, 15);
    }
    ari_event_trace_close(t);
    return res;
}

int ari_event_nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

int ari_event_append(json_t *list, json_t *o, ari_error *err)
{
    if (!o || json_array_append_new(list, o) < 0)
        return ari_event_nomem(err);
    return 0;
}
