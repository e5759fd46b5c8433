/* api_meta.c: GET /api/v1/health, /api/v1/version and /api/v1/openapi.json.
 * Health is cheap (one read of the database header) so that monitors may
 * poll it; ?check=full adds SQLite's quick_check, which reads the whole
 * database, for admins, one at a time, its result reused for a while. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "handlers.h"
#include "import/import.h"
#include "params.h"
#include "reply.h"
#include "util/embedded.h"
#include "version.h"

#define FULL_CHECK_REUSE_S 30.0

static pthread_mutex_t full_check_lock = PTHREAD_MUTEX_INITIALIZER;
static char full_check_result[512];
static double full_check_at = -1.0; /* monotonic seconds; -1: never run */

/* "ok" or the first problem of PRAGMA quick_check into out; *age_s is how
 * old the result is. A caller that arrives while a check runs waits for it
 * and shares its result. */
static void full_check(ari_store *db, char *out, size_t size, double *age_s)
{
    pthread_mutex_lock(&full_check_lock);
    if (full_check_at < 0 || ari_now() - full_check_at > FULL_CHECK_REUSE_S) {
        char *check = ari_store_check(db);
        snprintf(full_check_result, sizeof full_check_result, "%s", check ? check : "unreadable");
        free(check);
        full_check_at = ari_now();
    }
    snprintf(out, size, "%s", full_check_result);
    *age_s = ari_now() - full_check_at;
    pthread_mutex_unlock(&full_check_lock);
}

/* The database answers and has the schema this server was built for. */
static int database_state(ari_store *db, int *version, char *out, size_t size)
{
    int expected = ari_store_latest_schema_version();
    *version = ari_store_schema_version(db);
    if (*version < 0)
        snprintf(out, size, "unreadable");
    else if (*version != expected)
        snprintf(out, size, "schema version %d, but this server expects %d", *version, expected);
    else
        snprintf(out, size, "ok");
    return strcmp(out, "ok") == 0;
}

enum MHD_Result api_health(ari_request *r)
{
    static const char *const checks[] = {"quick", "full", NULL};
    const char *check;
    if (ari_param_choice(r, "check", checks, &check) < 0)
        return MHD_YES;
    int full = check && strcmp(check, "full") == 0;
    if (full && ari_auth_check(r, ARI_SCOPE_ADMIN) < 0)
        return MHD_YES;
    char database[128], integrity[512];
    int version;
    double age = 0;
    int ok = database_state(r->db, &version, database, sizeof database);
    if (full) {
        full_check(r->db, integrity, sizeof integrity, &age);
        ok = ok && strcmp(integrity, "ok") == 0;
    }
    json_t *body = json_pack("{s:s, s:s, s:o, s:f}", "status", ok ? "ok" : "degraded", "database", database,
                             "schema_version", version >= 0 ? json_integer(version) : json_null(),
                             "uptime_s", ari_now() - r->srv->started);
    if (full) {
        json_object_set_new(body, "integrity", json_string(integrity));
        json_object_set_new(body, "integrity_age_s", json_real(age));
    }
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
