/* time_origin.c: the `time_origin` key of time-based answers (see
 * time_origin.h). */
#include "time_origin.h"

#include "store/state_queries.h"

json_t *ari_set_time_origin(json_t *doc, double origin)
{
    if (doc && !json_object_get(doc, "time_origin"))
        json_object_set_new(doc, "time_origin", json_real(origin));
    return doc;
}

json_t *ari_with_time_origin(ari_request *r, int64_t id, json_t *doc)
{
    if (!doc || json_object_get(doc, "time_origin"))
        return doc;
    double origin = 0;
    ari_error err = {0};
    return ari_sq_time_origin(r->db, id, &origin, &err) == 0 ? ari_set_time_origin(doc, origin) : doc;
}
