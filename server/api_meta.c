/* api_meta.c: GET /api/v1/health, /api/v1/version and /api/v1/openapi.json. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "ingest/import.h"
#include "reply.h"
#include "util/embedded.h"
#include "version.h"

enum MHD_Result api_health(ari_request *r)
{
    char *check = ari_store_check(r->db);
    int ok = check && strcmp(check, "ok") == 0;
    json_t *body = json_pack("{s:s, s:s, s:f}", "status", ok ? "ok" : "degraded",
                             "database", check ? check : "unreadable",
                             "uptime_s", ari_now() - r->srv->started);
    free(check);
    return ari_reply_json(r, ok ? 200 : 503, body);
}

enum MHD_Result api_version(ari_request *r)
{
    json_t *formats = json_array();
    for (const char *const *f = ari_import_formats(); *f; f++)
        json_array_append_new(formats, json_string(*f));
    json_t *body = json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:I}", "name", "ariadne",
                             "version", ARIADNE_VERSION, "api", "v1",
                             "schema_version", ari_store_schema_version(r->db),
                             "sqlite", sqlite3_libversion(), "formats", formats,
                             "max_upload_bytes", (json_int_t)r->srv->cfg.max_upload);
    return ari_reply_json(r, 200, body);
}

enum MHD_Result api_openapi(ari_request *r)
{
    return ari_reply_text_json(r, 200, ari_openapi[0].data);
}
