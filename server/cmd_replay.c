/* cmd_replay.c: `ariadned replay`: streams a stored or readable metrics
 * trace (the ROSS sample directory, a generated run, a metrics CSV, or
 * db:PATH#ID, a trace of a database file) to a server as a live run, for
 * demos and tests. The source is read into a live_data (store/live_data.h:
 * files are imported into a scratch database first, so every metrics
 * reader applies), a run is opened (POST /api/v1/streams) and its time
 * points are sent in key order at --rate points a second, --batch points a
 * request, as NDJSON records (ROSS form for ROSS data, with CommData;
 * generic form otherwise) or frames (--binary). On a connection error or a
 * 5xx it retries every 0.5 s for up to --retry-seconds, then reads the
 * run's last_key (GET /api/v1/streams/{id}) and goes on after it: no
 * acknowledged point is sent twice and none is lost. Closes the run at the
 * end and prints {"trace_id", "n_points", "requests", "retries"}. */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "import/import.h"
#include "store/live_data.h"
#include "store/store.h"
#include "store/stream_store.h"
#include "upload.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/sbuf.h"

static const char usage[] =
    "Usage: ariadned replay [--rate HZ] [--batch N] [--token T] [--name NAME] [--binary]\n"
    "                       [--retry-seconds S] [--metrics a,b,c] --to URL SOURCE\n"
    "\n"
    "Streams a metrics trace to a server as a live run (POST /api/v1/streams, then\n"
    "its samples in key order, then its close). SOURCE is anything `ariadned import`\n"
    "reads as a metrics trace (the ROSS sample directory, a generated run, a metrics\n"
    "CSV), or db:PATH#ID, trace ID of the database file PATH.\n"
    "\n"
    "  --to URL          the server, e.g. http://127.0.0.1:8080\n"
    "  --rate HZ         time points a second (default 10; 0: as fast as accepted)\n"
    "  --batch N         time points a request (default 1)\n"
    "  --token T         a server API token (write scope) when the server runs with auth\n"
    "  --name NAME       the run's name (default: the source's name)\n"
    "  --binary          length-prefixed frames instead of NDJSON\n"
    "  --retry-seconds S how long to retry a connection error or a 5xx (default 60)\n"
    "  --metrics LIST    send only these metrics (comma-separated names)\n"
    "\n"
    "Prints the run's trace id and a summary (JSON) on stdout, progress on stderr.\n";

typedef struct replay_opts {
    double rate, retry_s;
    long batch;
    const char *token, *name, *to, *source, *metrics;
    int binary;
} replay_opts;

/* ---- reading the source ------------------------------------------------------------------ */

static int load_db(const char *spec, ari_live_data *ld, char *name, size_t nsize, ari_error *err)
{
    char path[PATH_MAX];
    const char *hash = strrchr(spec, '#');
    char *end;
    long long id = hash ? strtoll(hash + 1, &end, 10) : 0;
    if (!hash || id <= 0 || *end || (size_t)(hash - spec) >= sizeof path)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a database source is db:PATH#ID, got '%s'", spec - 3);
    memcpy(path, spec, (size_t)(hash - spec));
    path[hash - spec] = '\0';
    ari_store *s = ari_store_open(path, err);
    if (!s)
        return -1;
    int rc = ari_stream_load(s, id, ld, err);
    snprintf(name, nsize, "trace %lld of %.400s", id, path);
    ari_store_close(s);
    return rc;
}

static int load_files(const char *source, ari_live_data *ld, char *name, size_t nsize, ari_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], db[PATH_MAX + 32];
    tmp = tmp && *tmp ? tmp : "/tmp";
    ari_remove_orphans(tmp, "ariadne-replay-");
    if (ari_make_owned_dir(tmp, "ariadne-replay-", dir, sizeof dir) < 0)
        return ari_error_set(err, ARI_E_IO, "cannot create a work directory in %s", tmp);
    snprintf(db, sizeof db, "%s/source.db", dir);
    ari_store *s = ari_store_open(db, err);
    int rc = s ? 0 : -1;
    ari_import_result res = {0};
    if (rc == 0) {
        ari_import_input in = {source, NULL};
        ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = dir, .allow_duplicate = 1,
                                  .max_unpacked = ARI_IMPORT_DEFAULT_MAX_UNPACKED};
        rc = ari_import(s, &req, &res, err);
    }
    if (rc == 0 && (res.ntraces != 1 || strcmp(res.traces[0].kind, "pdes") != 0))
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not one metrics trace (%zu traces, first of kind %s)", source,
                           res.ntraces, res.ntraces ? res.traces[0].kind : "none");
    if (rc == 0) {
        snprintf(name, nsize, "%s", res.traces[0].name);
        rc = ari_stream_load(s, res.traces[0].id, ld, err);
    }
    ari_import_result_free(&res);
    ari_store_close(s);
    ari_remove_tree(dir);
    return rc;
}

/* ---- the records -------------------------------------------------------------------------- */

/* The number in an entity name "KP 17" (prefix "KP "), or -1. */
static long long name_number(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (!name || strncmp(name, prefix, n) != 0 || !name[n])
        return -1;
    char *end;
    long long v = strtoll(name + n, &end, 10);
    return *end || v < 0 ? -1 : v;
}

typedef struct shape {
    int ross;               /* 1: ROSS form */
    int kps_per_pe;         /* sent at creation; 0 unknown */
    long long nkp;          /* CommData length: largest KP gid + 1 */
    long long *gid;         /* per entity: its number ("KP g" -> g), -1 */
    char *send;             /* per metric: 1 to send */
} shape;

/* ROSS form when the point key is LastGvt and every entity is "PE p",
 * "KP g" or "LP l" with the ROSS hierarchy; nKP per PE from it. */
static int shape_of(const ari_live_data *ld, const char *metrics, shape *sh, ari_error *err)
{
    size_t ne = ari_live_data_n_entities(ld), nm = ari_live_data_n_metrics(ld);
    sh->gid = malloc((ne ? ne : 1) * sizeof *sh->gid);
    sh->send = calloc(nm ? nm : 1, 1);
    if (!sh->gid || !sh->send)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t m = 0; m < nm; m++) {
        const char *name = ari_live_data_metric_name(ld, m);
        if (!metrics) {
            sh->send[m] = 1;
            continue;
        }
        size_t len = strlen(name);
        for (const char *p = metrics; *p;) {
            size_t n = strcspn(p, ",");
            if (n == len && strncmp(p, name, n) == 0)
                sh->send[m] = 1;
            p += n + (p[n] == ',');
        }
    }
    sh->ross = ari_live_data_domain(ld) == ARI_MT_LASTGVT;
    long long npe = 0, nkp = 0, ok_parents = 1;
    for (size_t e = 0; e < ne && sh->ross; e++) {
        const char *lv = ari_live_data_entity_level(ld, e), *nm_ = ari_live_data_entity_name(ld, e);
        int64_t p = ari_live_data_entity_parent(ld, e);
        const char *plv = p >= 0 ? ari_live_data_entity_level(ld, (size_t)p) : NULL;
        char prefix[8];
        snprintf(prefix, sizeof prefix, "%s ", lv);
        sh->gid[e] = name_number(nm_, prefix);
        if (sh->gid[e] < 0 || (strcmp(lv, "PE") && strcmp(lv, "KP") && strcmp(lv, "LP")))
            sh->ross = 0;
        else if (strcmp(lv, "PE") == 0 && p >= 0)
            sh->ross = 0;
        else if (strcmp(lv, "LP") == 0 && (!plv || strcmp(plv, "KP")))
            sh->ross = 0;
        else if (strcmp(lv, "KP") == 0 && plv && strcmp(plv, "PE"))
            sh->ross = 0;
        npe += strcmp(lv, "PE") == 0;
        if (strcmp(lv, "KP") == 0) {
            nkp++;
            ok_parents &= p >= 0;
            if (sh->gid[e] + 1 > sh->nkp)
                sh->nkp = sh->gid[e] + 1;
        }
    }
    sh->kps_per_pe = 0;
    if (sh->ross && ok_parents && npe > 0 && nkp % npe == 0) {
        int k = (int)(nkp / npe);
        for (size_t e = 0; e < ne; e++) /* KP g must be under PE g / k */
            if (strcmp(ari_live_data_entity_level(ld, e), "KP") == 0 &&
                sh->gid[ari_live_data_entity_parent(ld, e)] != sh->gid[e] / k)
                k = 0;
        sh->kps_per_pe = k;
    }
    return 0;
}

static void metric_members(ari_sbuf *b, const ari_live_data *ld, const shape *sh, size_t e, size_t t, int *any)
{
    for (size_t m = 0; m < ari_live_data_n_metrics(ld); m++) {
        double v = ari_live_data_value(ld, m, e, t);
        if (!sh->send[m] || isnan(v))
            continue;
        ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, ari_live_data_metric_name(ld, m));
        ari_sbuf_printf(b, ":%.17g", v);
        (*any)++;
    }
}

/* "Peid":p,"KpGid":g of KP e (Peid when the KP has a PE). */
static void kp_ids(ari_sbuf *b, const ari_live_data *ld, const shape *sh, size_t e)
{
    int64_t p = ari_live_data_entity_parent(ld, e);
    if (p >= 0)
        ari_sbuf_printf(b, "\"Peid\":%lld,", sh->gid[p]);
    ari_sbuf_printf(b, "\"KpGid\":%lld", sh->gid[e]);
}

static void comm_list(ari_sbuf *b, ari_live_data *ld, const shape *sh, size_t t, size_t src)
{
    const int32_t *s, *d;
    const double *c;
    size_t n = ari_live_data_comm(ld, t, &s, &d, &c), first = n;
    for (size_t i = 0; i < n; i++)
        if ((size_t)s[i] == src) {
            first = i;
            break;
        }
    if (first == n)
        return;
    ari_sbuf_add_str(b, ",\"CommData\":[");
    long long j = 0;
    for (size_t i = first; i < n && (size_t)s[i] == src; i++) {
        long long g = sh->gid[d[i]];
        for (; j < g; j++)
            ari_sbuf_add_str(b, j ? ",0" : "0");
        ari_sbuf_printf(b, j ? ",%.17g" : "%.17g", c[i]);
        j++;
    }
    for (; j < sh->nkp; j++)
        ari_sbuf_add_str(b, j ? ",0" : "0");
    ari_sbuf_add_char(b, ']');
}

static int has_comm_row(ari_live_data *ld, size_t t, size_t src)
{
    const int32_t *s, *d;
    const double *c;
    size_t n = ari_live_data_comm(ld, t, &s, &d, &c);
    for (size_t i = 0; i < n; i++)
        if ((size_t)s[i] == src)
            return 1;
    return 0;
}

static void ross_items(ari_sbuf *b, ari_live_data *ld, const shape *sh, size_t t, const char *level)
{
    ari_sbuf_printf(b, ",\"%sData\":[", strcmp(level, "PE") == 0 ? "Pe" : strcmp(level, "KP") == 0 ? "Kp" : "Lp");
    int first = 1;
    for (size_t e = 0; e < ari_live_data_n_entities(ld); e++) {
        if (strcmp(ari_live_data_entity_level(ld, e), level) != 0)
            continue;
        ari_sbuf item = {0};
        int any = 0;
        if (strcmp(level, "PE") == 0)
            ari_sbuf_printf(&item, "{\"Peid\":%lld", sh->gid[e]);
        else if (strcmp(level, "KP") == 0) {
            ari_sbuf_add_char(&item, '{');
            kp_ids(&item, ld, sh, e);
        } else {
            ari_sbuf_add_char(&item, '{');
            kp_ids(&item, ld, sh, (size_t)ari_live_data_entity_parent(ld, e));
            ari_sbuf_printf(&item, ",\"LpGid\":%lld", sh->gid[e]);
        }
        metric_members(&item, ld, sh, e, t, &any);
        if (strcmp(level, "KP") == 0 && has_comm_row(ld, t, e)) {
            comm_list(&item, ld, sh, t, e);
            any = 1;
        }
        ari_sbuf_add_char(&item, '}');
        if (any) {
            if (!first)
                ari_sbuf_add_char(b, ',');
            first = 0;
            ari_sbuf_add(b, ari_sbuf_text(&item), item.len);
        }
        if (ari_sbuf_failed(&item))
            b->failed = 1;
        ari_sbuf_free(&item);
    }
    ari_sbuf_add_char(b, ']');
}

static void ross_record(ari_sbuf *b, ari_live_data *ld, const shape *sh, size_t t)
{
    ari_sbuf_printf(b, "{\"LastGvt\":%.17g", ari_live_data_keys(ld)[t]);
    static const char *const other[] = {NULL, "VirtualTs", "RealTs"};
    for (int d = ARI_MT_VIRTUALTS; d <= ARI_MT_REALTS; d++) {
        double v = ari_live_data_domain_value(ld, t, d);
        if (!isnan(v))
            ari_sbuf_printf(b, ",\"%s\":%.17g", other[d], v);
    }
    ross_items(b, ld, sh, t, "PE");
    ross_items(b, ld, sh, t, "KP");
    ross_items(b, ld, sh, t, "LP");
    ari_sbuf_add_char(b, '}');
}

static void generic_record(ari_sbuf *b, ari_live_data *ld, const shape *sh, size_t t)
{
    ari_sbuf_printf(b, "{\"time\":%.17g,\"values\":{", ari_live_data_keys(ld)[t]);
    int first = 1;
    for (size_t e = 0; e < ari_live_data_n_entities(ld); e++) {
        ari_sbuf item = {0};
        int any = 0;
        metric_members(&item, ld, sh, e, t, &any); /* ,"metric":value ... */
        if (any) {
            if (!first)
                ari_sbuf_add_char(b, ',');
            first = 0;
            ari_sbuf_json_string(b, ari_live_data_entity_name(ld, e));
            ari_sbuf_add_str(b, ":{");
            ari_sbuf_add(b, ari_sbuf_text(&item) + 1, item.len - 1);
            ari_sbuf_add_char(b, '}');
        }
        ari_sbuf_free(&item);
    }
    ari_sbuf_add_str(b, "},\"comm\":[");
    const int32_t *s, *d;
    const double *c;
    size_t n = ari_live_data_comm(ld, t, &s, &d, &c);
    for (size_t i = 0; i < n; i++) {
        ari_sbuf_add_str(b, i ? ",[" : "[");
        ari_sbuf_json_string(b, ari_live_data_entity_name(ld, (size_t)s[i]));
        ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, ari_live_data_entity_name(ld, (size_t)d[i]));
        ari_sbuf_printf(b, ",%.17g]", c[i]);
    }
    ari_sbuf_add_str(b, "],\"groups\":{");
    int ng = 0;
    for (size_t e = 0; e < ari_live_data_n_entities(ld); e++) {
        int64_t p = ari_live_data_entity_parent(ld, e);
        if (p < 0 || strcmp(ari_live_data_entity_level(ld, e), "entity") != 0)
            continue;
        if (ng++)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, ari_live_data_entity_name(ld, e));
        ari_sbuf_add_char(b, ':');
        ari_sbuf_json_string(b, ari_live_data_entity_name(ld, (size_t)p));
    }
    ari_sbuf_add_str(b, "}}");
}

/* The body of points [t0, t1): NDJSON lines or frames. */
static int build_body(ari_sbuf *body, ari_live_data *ld, const shape *sh, size_t t0, size_t t1, int binary)
{
    ari_sbuf_reset(body);
    for (size_t t = t0; t < t1; t++) {
        ari_sbuf rec = {0};
        if (sh->ross)
            ross_record(&rec, ld, sh, t);
        else
            generic_record(&rec, ld, sh, t);
        if (binary) {
            uint32_t n = (uint32_t)rec.len;
            unsigned char le[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                                   (unsigned char)(n >> 24)};
            ari_sbuf_add(body, (const char *)le, 4);
            ari_sbuf_add(body, ari_sbuf_text(&rec), rec.len);
        } else {
            ari_sbuf_add(body, ari_sbuf_text(&rec), rec.len);
            ari_sbuf_add_char(body, '\n');
        }
        int failed = ari_sbuf_failed(&rec) || rec.len > ARI_STREAM_MAX_RECORD;
        ari_sbuf_free(&rec);
        if (failed)
            return -1;
    }
    return ari_sbuf_failed(body) ? -1 : 0;
}

/* ---- HTTP ----------------------------------------------------------------------------------- */

typedef struct http {
    CURL *curl;
    const replay_opts *o;
    char stream_token[ARI_STREAM_TOKEN_HEX + 1];
    ari_sbuf reply;
    long status;
    char error[CURL_ERROR_SIZE];
} http;

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    http *h = ctx;
    ari_sbuf_add(&h->reply, p, size * n);
    return size * n;
}

/* One request: 0 with h->status (any HTTP status), -1 on a transport error (h->error). */
static int request(http *h, const char *method, const char *path, const char *type, const char *body, size_t len)
{
    char url[2048], auth[256], stream[128], ctype[128];
    snprintf(url, sizeof url, "%s%s", h->o->to, path);
    struct curl_slist *hd = NULL;
    if (h->o->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", h->o->token);
        hd = curl_slist_append(hd, auth);
    }
    if (h->stream_token[0]) {
        snprintf(stream, sizeof stream, "X-Stream-Token: %s", h->stream_token);
        hd = curl_slist_append(hd, stream);
    }
    if (type) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s", type);
        hd = curl_slist_append(hd, ctype);
    }
    hd = curl_slist_append(hd, "Expect:");
    ari_sbuf_reset(&h->reply);
    h->error[0] = '\0';
    curl_easy_reset(h->curl);
    curl_easy_setopt(h->curl, CURLOPT_URL, url);
    curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->error);
    curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
    if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
        curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
    }
    CURLcode rc = curl_easy_perform(h->curl);
    curl_slist_free_all(hd);
    h->status = 0;
    if (rc != CURLE_OK) {
        if (!h->error[0])
            snprintf(h->error, sizeof h->error, "%s", curl_easy_strerror(rc));
        return -1;
    }
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &h->status);
    return 0;
}

/* The error message of a reply, for the user. */
static const char *reply_message(http *h, char *buf, size_t size)
{
    json_t *doc = json_loads(ari_sbuf_text(&h->reply), 0, NULL);
    const char *msg = json_string_value(json_object_get(json_object_get(doc, "error"), "message"));
    snprintf(buf, size, "%s", msg ? msg : ari_sbuf_text(&h->reply));
    json_decref(doc);
    return buf;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* After a failure: waits (0.5 s steps, up to retry_s) for the server to
 * answer GET /streams/{id}; 0 and *last_key (NaN: no point stored). */
static int resync(http *h, int64_t id, double *last_key, int *retries)
{
    char path[96];
    snprintf(path, sizeof path, "/api/v1/streams/%lld", (long long)id);
    double until = ari_now() + h->o->retry_s;
    for (;;) {
        sleep_s(0.5);
        (*retries)++;
        if (request(h, "GET", path, NULL, NULL, 0) == 0 && h->status == 200) {
            json_t *doc = json_loads(ari_sbuf_text(&h->reply), 0, NULL);
            json_t *k = json_object_get(doc, "last_key");
            *last_key = json_is_number(k) ? json_number_value(k) : NAN;
            json_decref(doc);
            return 0;
        }
        if (ari_now() > until)
            return -1;
    }
}

static int create_run(http *h, const char *name, int kps, int64_t *id)
{
    json_t *body = json_pack("{s:s}", "name", name);
    if (kps > 0)
        json_object_set_new(body, "kps_per_pe", json_integer(kps));
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    double until = ari_now() + h->o->retry_s;
    int rc;
    while ((rc = request(h, "POST", "/api/v1/streams", "application/json", text, strlen(text))) < 0 ||
           h->status >= 500) {
        if (ari_now() > until)
            break;
        sleep_s(0.5);
    }
    free(text);
    char msg[512];
    if (rc < 0)
        return ari_cli_fail("replay", "cannot reach %s: %s", h->o->to, h->error);
    if (h->status != 201)
        return ari_cli_fail("replay", "POST /api/v1/streams: HTTP %ld: %s", h->status, reply_message(h, msg, sizeof msg));
    json_t *doc = json_loads(ari_sbuf_text(&h->reply), 0, NULL);
    const char *tok = json_string_value(json_object_get(doc, "token"));
    *id = json_integer_value(json_object_get(doc, "trace_id"));
    if (tok && strlen(tok) == ARI_STREAM_TOKEN_HEX)
        memcpy(h->stream_token, tok, ARI_STREAM_TOKEN_HEX + 1);
    json_decref(doc);
    return *id > 0 && h->stream_token[0] ? 0 : ari_cli_fail("replay", "the server's answer has no trace_id or token");
}

/* ---- the run ----------------------------------------------------------------------------- */

typedef struct progress {
    size_t n;
    int last_decile;
    double start;
} progress;

static void report(progress *p, size_t done, int64_t id, int retries)
{
    int decile = p->n ? (int)(10 * done / p->n) : 10;
    if (decile <= p->last_decile)
        return;
    p->last_decile = decile;
    fprintf(stderr, "ariadned replay: run %lld: %zu/%zu points (%d%%) in %.1f s, %d retries\n", (long long)id, done,
            p->n, decile * 10, ari_now() - p->start, retries);
}

/* The first point after key (NaN: 0). */
static size_t after_key(const ari_live_data *ld, double key)
{
    size_t n = ari_live_data_n_points(ld), t = 0;
    const double *keys = ari_live_data_keys(ld);
    while (!isnan(key) && t < n && keys[t] <= key)
        t++;
    return t;
}

static int send_points(http *h, ari_live_data *ld, const shape *sh, int64_t id, int *requests, int *retries)
{
    size_t n = ari_live_data_n_points(ld), t = 0;
    char path[96], msg[512];
    snprintf(path, sizeof path, "/api/v1/streams/%lld/samples", (long long)id);
    const char *type = h->o->binary ? "application/x-ariadne-frames" : "application/x-ndjson";
    ari_sbuf body = {0};
    progress pr = {n, -1, ari_now()};
    double next = ari_now();
    int rc = 0;
    while (t < n) {
        size_t t1 = t + (size_t)h->o->batch < n ? t + (size_t)h->o->batch : n;
        if (build_body(&body, ld, sh, t, t1, h->o->binary) < 0) {
            rc = ari_cli_fail("replay", "out of memory, or a record longer than 16 MiB at point %zu", t);
            break;
        }
        if (h->o->rate > 0)
            sleep_s(next - ari_now());
        (*requests)++;
        if (request(h, "POST", path, type, ari_sbuf_text(&body), body.len) == 0 && h->status == 200) {
            next += (double)(t1 - t) / (h->o->rate > 0 ? h->o->rate : 1e300);
            t = t1;
            report(&pr, t, id, *retries);
            continue;
        }
        if (h->status && h->status < 500) {
            rc = ari_cli_fail("replay", "points %zu..%zu: HTTP %ld: %s", t, t1 - 1, h->status,
                              reply_message(h, msg, sizeof msg));
            break;
        }
        fprintf(stderr, "ariadned replay: points %zu..%zu: %s; retrying\n", t, t1 - 1,
                h->status ? "server error" : h->error);
        double last_key;
        if (resync(h, id, &last_key, retries) < 0) {
            rc = ari_cli_fail("replay", "the server did not answer for %.0f s (%s)", h->o->retry_s, h->error);
            break;
        }
        t = after_key(ld, last_key);
        next = ari_now();
    }
    ari_sbuf_free(&body);
    return rc;
}

static int close_run(http *h, int64_t id, int *retries)
{
    char path[96], msg[512];
    snprintf(path, sizeof path, "/api/v1/streams/%lld/close", (long long)id);
    double until = ari_now() + h->o->retry_s;
    for (int attempt = 0;; attempt++) {
        if (request(h, "POST", path, NULL, NULL, 0) == 0 && h->status < 500) {
            if (h->status == 200 || (attempt > 0 && h->status == 409))
                return 0; /* 409 after a retry: our first close went through */
            return ari_cli_fail("replay", "close: HTTP %ld: %s", h->status, reply_message(h, msg, sizeof msg));
        }
        if (ari_now() > until)
            return ari_cli_fail("replay", "close: the server did not answer for %.0f s", h->o->retry_s);
        (*retries)++;
        sleep_s(0.5);
    }
}

static int replay(const replay_opts *o)
{
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    char name[512] = "";
    int rc = ld ? 0 : -1;
    if (rc == 0)
        rc = strncmp(o->source, "db:", 3) == 0 ? load_db(o->source + 3, ld, name, sizeof name, &err)
                                                : load_files(o->source, ld, name, sizeof name, &err);
    if (rc == 0 && ari_live_data_n_points(ld) == 0)
        rc = ari_error_set(&err, ARI_E_INVALID_INPUT, "%s has no time points", o->source);
    if (rc < 0) {
        ari_live_data_free(ld);
        return ari_cli_fail("replay", "%s", err.message);
    }
    shape sh = {0};
    http h = {.o = o};
    int64_t id = 0;
    int requests = 0, retries = 0;
    if (shape_of(ld, o->metrics, &sh, &err) < 0)
        rc = ari_cli_fail("replay", "%s", err.message);
    if (rc == 0 && !(h.curl = curl_easy_init()))
        rc = ari_cli_fail("replay", "cannot start libcurl");
    if (rc == 0)
        rc = create_run(&h, o->name ? o->name : name, sh.kps_per_pe, &id);
    if (rc == 0) {
        fprintf(stderr, "ariadned replay: run %lld: %zu points of %s (%s form) to %s\n", (long long)id,
                ari_live_data_n_points(ld), o->source, sh.ross ? "ROSS" : "generic", o->to);
        rc = send_points(&h, ld, &sh, id, &requests, &retries);
    }
    if (rc == 0)
        rc = close_run(&h, id, &retries);
    if (rc == 0)
        printf("{\"trace_id\":%lld,\"n_points\":%zu,\"requests\":%d,\"retries\":%d}\n", (long long)id,
               ari_live_data_n_points(ld), requests, retries);
    if (h.curl)
        curl_easy_cleanup(h.curl);
    ari_sbuf_free(&h.reply);
    free(sh.gid);
    free(sh.send);
    ari_live_data_free(ld);
    return rc ? 1 : 0;
}

/* ---- options -------------------------------------------------------------------------------- */

static int number_opt(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= min && v <= max))
        return -1;
    *out = v;
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longs[] = {
        {"rate", required_argument, NULL, 'r'},    {"batch", required_argument, NULL, 'b'},
        {"token", required_argument, NULL, 't'},   {"name", required_argument, NULL, 'n'},
        {"binary", no_argument, NULL, 'B'},        {"retry-seconds", required_argument, NULL, 'R'},
        {"metrics", required_argument, NULL, 'm'}, {"to", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    replay_opts o = {.rate = 10, .retry_s = 60, .batch = 1};
    double v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (number_opt(optarg, 0, 1e6, &o.rate) < 0)
                return ari_cli_fail("replay", "--rate takes points a second from 0 to 10^6, got '%s'", optarg);
            break;
        case 'b':
            if (number_opt(optarg, 1, 100000, &v) < 0 || v != floor(v))
                return ari_cli_fail("replay", "--batch takes a whole number from 1 to 100000, got '%s'", optarg);
            o.batch = (long)v;
            break;
        case 'R':
            if (number_opt(optarg, 0, 86400, &o.retry_s) < 0)
                return ari_cli_fail("replay", "--retry-seconds takes seconds from 0 to 86400, got '%s'", optarg);
            break;
        case 't': o.token = optarg; break;
        case 'n': o.name = optarg; break;
        case 'B': o.binary = 1; break;
        case 'm': o.metrics = optarg; break;
        case 'T': o.to = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (!o.to || optind != argc - 1) {
        fputs(usage, stderr);
        return 2;
    }
    o.source = argv[optind];
    size_t n = strlen(o.to);
    char to[2048];
    if (n == 0 || n >= sizeof to || (strncmp(o.to, "http://", 7) && strncmp(o.to, "https://", 8)))
        return ari_cli_fail("replay", "--to takes the server's URL, e.g. http://127.0.0.1:8080");
    memcpy(to, o.to, n + 1);
    while (n > 0 && to[n - 1] == '/')
        to[--n] = '\0';
    o.to = to;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
        return ari_cli_fail("replay", "cannot start libcurl");
    int rc = replay(&o);
    curl_global_cleanup();
    return rc;
}
