/* stream_store.c: live runs in the database (see stream_store.h and
 * sql/015_streams.sql): creation with a hashed write token, appends of
 * parsed batches in one transaction each, loading a run into a live_data
 * (open: from its records; closed or any metrics trace: from the offline
 * tables), and the close that compacts the records into the offline
 * layout through the metrics writer. */
#include "store/stream_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "store/metrics_writer.h"
#include "store/store_internal.h"
#include "util/sha256.h"
#include "util/strpool.h"
#include "util/vec.h"

#define LOAD_CHUNK 1024 /* records per batch when loading a run */

/* ---- create and tokens ------------------------------------------------------------------ */

static int random_token(char out[ARI_STREAM_TOKEN_HEX + 1], ari_error *err)
{
    unsigned char bytes[32];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0)
            return ari_error_set(err, ARI_E_IO, "getrandom failed");
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

int ari_stream_create(ari_store *s, const char *name, const char *description, int kps_per_pe, int64_t *trace_id,
                      char token_out[ARI_STREAM_TOKEN_HEX + 1], ari_error *err)
{
    char hash[ARI_SHA256_HEX];
    if (random_token(token_out, err) < 0)
        return -1;
    ari_sha256_hex(token_out, strlen(token_out), hash);
    if (ari_store_begin(s, err) < 0)
        return -1;
    ari_arg t[] = {ari_arg_text(name && name[0] ? name : "live run"), ari_arg_text(description ? description : "")};
    int rc = ari_store_run(s,
                           "INSERT INTO traces(name, kind, format, description, time_unit, meta_json)"
                           " VALUES (?1, 'pdes', 'stream', ?2, '', '{\"live\":\"open\"}')",
                           t, ARI_NARGS(t), "create the live run", err);
    if (rc == 0) {
        *trace_id = ari_store_last_insert_id(s);
        ari_arg a[] = {ari_arg_int(*trace_id), ari_arg_raw_text(hash), ari_arg_int(kps_per_pe > 0 ? kps_per_pe : 0)};
        rc = ari_store_run(s, "INSERT INTO mt_streams(trace_id, token_hash, kps_per_pe) VALUES (?1, ?2, ?3)", a,
                           ARI_NARGS(a), "create the live run", err);
    }
    if (rc == 0)
        rc = ari_store_commit(s, err);
    if (rc < 0)
        ari_store_rollback(s);
    return rc;
}

int ari_stream_check_token(ari_store *s, int64_t trace_id, const char *token, ari_error *err)
{
    char hash[ARI_SHA256_HEX], *stored = NULL;
    if (!token || strlen(token) != ARI_STREAM_TOKEN_HEX)
        return 1;
    ari_sha256_hex(token, strlen(token), hash);
    ari_stmt *st = ari_store_stmt_id(s, "SELECT token_hash FROM mt_streams WHERE trace_id = ?1", trace_id, err);
    int rc = st ? ari_store_query_string(s, st, "", &stored, "check the stream token", err) : -1;
    if (rc != 0)
        return rc;
    unsigned char diff = strlen(stored) != strlen(hash);
    for (size_t i = 0; !diff && hash[i]; i++)
        diff |= (unsigned char)(hash[i] ^ stored[i]);
    free(stored);
    return diff ? 1 : 0;
}

/* ---- status ------------------------------------------------------------------------------ */

#define STATUS_SQL \
    "SELECT state = 'open', n_points, n_records, last_key, coalesce(key_domain, -1), kps_per_pe," \
    " (SELECT count(*) FROM mt_entities WHERE trace_id = ?1), (SELECT count(*) FROM mt_metrics WHERE trace_id = ?1)" \
    " FROM mt_streams WHERE trace_id = ?1"

int ari_stream_status_get(ari_store *s, int64_t trace_id, ari_stream_status *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_stmt *st = ari_store_stmt_id(s, STATUS_SQL, trace_id, err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "read the live run", err);
    if (rc != 0)
        return rc;
    out->trace_id = trace_id;
    out->open = ari_col_int(st, 0);
    out->n_points = ari_col_int64(st, 1);
    out->n_records = ari_col_int64(st, 2);
    out->last_key = ari_col_type(st, 3) == ARI_NULL ? NAN : ari_col_double(st, 3);
    out->domain = ari_col_int(st, 4);
    out->kps_per_pe = ari_col_int(st, 5);
    out->n_entities = ari_col_int64(st, 6);
    out->n_metrics = ari_col_int64(st, 7);
    ari_reset(st);
    return 0;
}

int ari_stream_is_open(ari_store *s, int64_t trace_id, ari_error *err)
{
    int64_t open = 0;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT state = 'open' FROM mt_streams WHERE trace_id = ?1", trace_id, err);
    int rc = st ? ari_store_query_int64(s, st, &open, "read the live run", err) : -1;
    return rc < 0 ? -1 : rc == 1 ? 0 : (int)open;
}

/* ---- append --------------------------------------------------------------------------- */

typedef struct appender {
    ari_store *s;
    int64_t trace_id;
    const ari_stream_batch *b;
    ari_stream_status st;
    int64_t *entity;         /* run id of each batch entity */
    int64_t *metric;         /* run id of each batch metric */
    unsigned char *blob;
    size_t cap_blob;
    ari_error *err;
} appender;

static int64_t find_entity(appender *a, const ari_stream_entity *e, int64_t *parent)
{
    ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_raw_text(e->level), ari_arg_raw_text(e->name)};
    ari_stmt *st = ari_store_bound(a->s,
        "SELECT entity_id, coalesce(parent_id, -1) FROM mt_entities INDEXED BY mt_entities_by_name"
        " WHERE trace_id = ?1 AND level = ?2 AND name = ?3",
        args, ARI_NARGS(args), a->err);
    if (!st)
        return -2;
    int rc = ari_store_step_row(a->s, st, "find an entity", a->err);
    if (rc != 0)
        return rc < 0 ? -2 : -1;
    int64_t id = ari_col_int64(st, 0);
    *parent = ari_col_int64(st, 1);
    ari_reset(st);
    return id;
}

static int map_entities(appender *a)
{
    const ari_stream_batch *b = a->b;
    for (size_t i = 0; i < b->nentities; i++) {
        const ari_stream_entity *e = &b->entities[i];
        int64_t parent = e->parent >= 0 ? a->entity[e->parent] : -1, stored_parent = -1;
        int64_t id = find_entity(a, e, &stored_parent);
        if (id == -2)
            return -1;
        if (id >= 0 && stored_parent != parent)
            return ari_error_set(a->err, ARI_E_INVALID_INPUT, "%s %s is under %s in this request, under another "
                                 "parent in the run", e->level, e->name,
                                 e->parent >= 0 ? b->entities[e->parent].name : "nothing");
        if (id < 0) {
            if (a->st.n_entities >= ARI_MT_MAX_ENTITIES)
                return ari_error_set(a->err, ARI_E_TOO_LARGE, "a live run holds at most %d entities",
                                     ARI_MT_MAX_ENTITIES);
            id = a->st.n_entities++;
            ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_int(id), ari_arg_raw_text(e->level),
                              ari_arg_raw_text(e->name), parent >= 0 ? ari_arg_int(parent) : ari_arg_null()};
            if (ari_store_run(a->s,
                              "INSERT INTO mt_entities(trace_id, entity_id, level, name, parent_id, has_data)"
                              " VALUES (?1, ?2, ?3, ?4, ?5, 0)", args, ARI_NARGS(args), "store an entity", a->err) < 0)
                return -1;
        }
        a->entity[i] = id;
    }
    return 0;
}

static int map_metrics(appender *a)
{
    const ari_stream_batch *b = a->b;
    for (size_t i = 0; i < b->nmetrics; i++) {
        ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_raw_text(b->metrics[i].name)};
        ari_stmt *st = ari_store_bound(a->s, "SELECT metric_id FROM mt_metrics WHERE trace_id = ?1 AND name = ?2",
                                           args, ARI_NARGS(args), a->err);
        int64_t id = -1;
        int rc = st ? ari_store_query_int64(a->s, st, &id, "find a metric", a->err) : -1;
        if (rc < 0)
            return -1;
        if (rc == 1) {
            if (a->st.n_metrics >= ARI_MT_MAX_METRICS)
                return ari_error_set(a->err, ARI_E_TOO_LARGE, "a live run holds at most %d metrics",
                                     ARI_MT_MAX_METRICS);
            id = a->st.n_metrics++;
            ari_arg ins[] = {ari_arg_int(a->trace_id), ari_arg_int(id), ari_arg_raw_text(b->metrics[i].name),
                             ari_arg_int(b->metrics[i].attribute)};
            if (ari_store_run(a->s,
                              "INSERT INTO mt_metrics(trace_id, metric_id, name, unit, derived, attribute)"
                              " VALUES (?1, ?2, ?3, '', 0, ?4)", ins, ARI_NARGS(ins), "store a metric", a->err) < 0)
                return -1;
        }
        a->metric[i] = id;
    }
    return 0;
}

static unsigned char *blob_room(appender *a, size_t bytes)
{
    if (ari_vec_reserve((void **)&a->blob, &a->cap_blob, bytes ? bytes : 1, 1) < 0) {
        ari_error_set(a->err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return a->blob;
}

static void put32(unsigned char *p, int32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(unsigned char *p, double v)
{
    memcpy(p, &v, 8);
}

/* cells then comm of record r, packed one after the other in a->blob. */
static int pack_record(appender *a, const ari_stream_record *r, size_t *cells_bytes, size_t *comm_bytes)
{
    const ari_stream_batch *b = a->b;
    size_t comm = 0;
    for (size_t i = r->row0; i < r->row0 + r->nrows; i++)
        comm += 8 + 12 * b->rows[i].nentries;
    *cells_bytes = 16 * r->nvalues;
    *comm_bytes = comm;
    unsigned char *p = blob_room(a, *cells_bytes + comm);
    if (!p)
        return -1;
    for (size_t i = 0; i < r->nvalues; i++, p += 16) {
        const ari_stream_value *v = &b->values[r->value0 + i];
        put32(p, (int32_t)a->entity[v->entity]);
        put32(p + 4, (int32_t)a->metric[v->metric]);
        put64(p + 8, v->v);
    }
    for (size_t i = r->row0; i < r->row0 + r->nrows; i++) {
        const ari_stream_comm_row *row = &b->rows[i];
        put32(p, (int32_t)a->entity[row->src]);
        put32(p + 4, (int32_t)row->nentries);
        p += 8;
        for (size_t j = 0; j < row->nentries; j++, p += 12) {
            put32(p, (int32_t)a->entity[b->comm[row->entry0 + j].dst]);
            put64(p + 4, b->comm[row->entry0 + j].count);
        }
    }
    return 0;
}

static int key_known(appender *a, double key)
{
    ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_real(key)};
    ari_stmt *st = ari_store_bound(a->s, "SELECT 1 FROM mt_stream_points WHERE trace_id = ?1 AND key = ?2 LIMIT 1",
                                       args, ARI_NARGS(args), a->err);
    int64_t one = 0;
    int rc = st ? ari_store_query_int64(a->s, st, &one, "find a time point", a->err) : -1;
    return rc < 0 ? -1 : rc == 0;
}

static int store_record(appender *a, size_t i, int64_t *new_points)
{
    const ari_stream_record *r = &a->b->records[i];
    if (a->st.domain < 0)
        a->st.domain = r->domain;
    if (r->domain != a->st.domain)
        return ari_error_set(a->err, ARI_E_INVALID_INPUT, "line %llu: a record keyed by %s in a run keyed by %s",
                             (unsigned long long)r->line, ari_mt_domain_names[r->domain],
                             ari_mt_domain_names[a->st.domain]);
    int known = key_known(a, r->key);
    if (known < 0)
        return -1;
    if (!known) {
        (*new_points)++;
        a->st.n_points++;
        if (isnan(a->st.last_key) || r->key > a->st.last_key)
            a->st.last_key = r->key;
    }
    double cells = (double)a->st.n_points * (double)(a->st.n_entities ? a->st.n_entities : 1) *
                   (double)(a->st.n_metrics ? a->st.n_metrics : 1);
    if (cells > (double)ARI_LIVE_MAX_CELLS)
        return ari_error_set(a->err, ARI_E_TOO_LARGE,
                             "line %llu: the run would exceed %lld (metric, entity, time) values, the cap of a live run",
                             (unsigned long long)r->line, (long long)ARI_LIVE_MAX_CELLS);
    size_t cb, mb;
    if (pack_record(a, r, &cb, &mb) < 0)
        return -1;
    a->st.n_records++;
    ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_int(a->st.n_records), ari_arg_real(r->key),
                      ari_arg_blob(r->other, sizeof r->other), ari_arg_blob(a->blob, (int64_t)cb),
                      ari_arg_blob(a->blob + cb, (int64_t)mb)};
    return ari_store_run(a->s,
                         "INSERT INTO mt_stream_points(trace_id, seq, key, domains, cells, comm)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", args, ARI_NARGS(args), "store a record", a->err);
}

static int append_in_tx(appender *a, ari_live_applied *out)
{
    int rc = ari_stream_status_get(a->s, a->trace_id, &a->st, a->err);
    if (rc != 0)
        return rc < 0 ? -1 : ari_error_set(a->err, ARI_E_NOT_FOUND, "no live run %lld", (long long)a->trace_id);
    if (!a->st.open)
        return 1;
    if (map_entities(a) < 0 || map_metrics(a) < 0)
        return -1;
    out->first_seq = a->st.n_records + 1;
    int64_t new_points = 0;
    for (size_t i = 0; i < a->b->nrecords; i++)
        if (store_record(a, i, &new_points) < 0)
            return -1;
    int kps = a->st.kps_per_pe ? a->st.kps_per_pe : a->b->kps_per_pe;
    ari_arg args[] = {ari_arg_int(a->trace_id), ari_arg_int(a->st.n_points), ari_arg_int(a->st.n_records),
                      isnan(a->st.last_key) ? ari_arg_null() : ari_arg_real(a->st.last_key),
                      a->st.domain >= 0 ? ari_arg_int(a->st.domain) : ari_arg_null(), ari_arg_int(kps)};
    if (ari_store_run(a->s,
                      "UPDATE mt_streams SET n_points = ?2, n_records = ?3, last_key = ?4, key_domain = ?5,"
                      " kps_per_pe = ?6 WHERE trace_id = ?1", args, ARI_NARGS(args), "update the live run", a->err) < 0)
        return -1;
    out->new_points = new_points;
    out->n_points = a->st.n_points;
    out->last_key = a->st.last_key;
    return 0;
}

int ari_stream_append(ari_store *s, int64_t trace_id, const ari_stream_batch *b, ari_live_applied *out,
                      ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->batch = b;
    out->nrecords = b->nrecords;
    out->last_key = NAN;
    appender a = {.s = s, .trace_id = trace_id, .b = b, .err = err};
    a.entity = malloc((b->nentities ? b->nentities : 1) * sizeof *a.entity);
    a.metric = malloc((b->nmetrics ? b->nmetrics : 1) * sizeof *a.metric);
    if (!a.entity || !a.metric) {
        free(a.entity);
        free(a.metric);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int rc = ari_store_begin(s, err);
    if (rc == 0) {
        rc = append_in_tx(&a, out);
        if (rc == 0)
            rc = ari_store_commit(s, err);
        if (rc != 0)
            ari_store_rollback(s);
    }
    free(a.entity);
    free(a.metric);
    free(a.blob);
    return rc;
}

/* ---- reading the stored records ------------------------------------------------------ */

/* Calls back for every stored record of an open run, in seq order. */
typedef struct record_view {
    int64_t seq;
    double key;
    double domains[ARI_MT_NDOMAINS];
    const unsigned char *cells, *comm;
    size_t ncells, comm_bytes;
} record_view;

typedef int (*record_fn)(void *ctx, const record_view *r, ari_error *err);

static int32_t get32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static double get64(const unsigned char *p)
{
    double v;
    memcpy(&v, p, 8);
    return v;
}

static int each_record(ari_store *s, int64_t trace_id, int64_t after_seq, record_fn fn, void *ctx, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(after_seq)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT seq, key, domains, cells, comm FROM mt_stream_points WHERE trace_id = ?1 AND seq > ?2 ORDER BY seq",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc, out = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        record_view r = {.seq = ari_col_int64(st, 0), .key = ari_col_double(st, 1),
                         .domains = {NAN, NAN, NAN, NAN}};
        if ((size_t)ari_col_bytes(st, 2) == sizeof r.domains)
            memcpy(r.domains, ari_col_blob(st, 2), sizeof r.domains);
        r.cells = ari_col_blob(st, 3);
        r.ncells = (size_t)ari_col_bytes(st, 3) / 16;
        r.comm = ari_col_blob(st, 4);
        r.comm_bytes = (size_t)ari_col_bytes(st, 4);
        if ((out = fn(ctx, &r, err)) < 0)
            break;
    }
    if (out < 0) {
        ari_reset(st);
        return -1;
    }
    return ari_store_rows_end(s, st, rc, "read the live run's records", err);
}

/* Walks the comm rows of a record: fn(ctx, src, dst[], count[], n). */
typedef int (*row_fn)(void *ctx, int32_t src, const int32_t *dst, const double *count, size_t n);

static int each_comm_row(const record_view *r, row_fn fn, void *ctx, ari_error *err)
{
    int32_t *dst = NULL;
    double *count = NULL;
    size_t cap_d = 0, cap_c = 0;
    int rc = 0;
    for (size_t off = 0; rc == 0 && off + 8 <= r->comm_bytes;) {
        int32_t src = get32(r->comm + off), n = get32(r->comm + off + 4);
        off += 8;
        if (n < 0 || (size_t)n > (r->comm_bytes - off) / 12) {
            rc = ari_error_set(err, ARI_E_DB, "a stored record's communication is damaged (seq %lld)",
                               (long long)r->seq);
            break;
        }
        if (ari_vec_reserve((void **)&dst, &cap_d, (size_t)n + 1, sizeof *dst) < 0 ||
            ari_vec_reserve((void **)&count, &cap_c, (size_t)n + 1, sizeof *count) < 0) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        for (int32_t j = 0; j < n; j++, off += 12) {
            dst[j] = get32(r->comm + off);
            count[j] = get64(r->comm + off + 4);
        }
        rc = fn(ctx, src, dst, count, (size_t)n);
    }
    free(dst);
    free(count);
    return rc;
}

/* ---- loading an open run into a live_data --------------------------------------------- */

typedef struct loader {
    ari_live_data *ld;       /* the records applied to it, or (NULL) handed to fn as batches */
    ari_stream_batch_fn fn;
    void *fn_ctx;
    int64_t after_seq;       /* the records after this seq */
    ari_stream_batch b;      /* entities and metrics: the run's, by id; records: a chunk */
    ari_strpool *pool;
    int64_t first_seq;
    size_t cur;              /* the record being filled */
    int64_t nent, nmet;
    ari_error *err;
} loader;

static int load_names(ari_store *s, int64_t trace_id, loader *l, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT level, name, coalesce(parent_id, -1) FROM mt_entities WHERE trace_id = ?1 ORDER BY entity_id",
        trace_id, err);
    if (!st)
        return -1;
    int rc;
    ari_stream_batch *b = &l->b;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *lv = (const char *)ari_col_text(st, 0), *nm = (const char *)ari_col_text(st, 1);
        char *lvc = ari_strpool_intern(l->pool, lv ? lv : "", lv ? strlen(lv) : 0);
        char *nmc = ari_strpool_copy(l->pool, nm ? nm : "", nm ? strlen(nm) : 0);
        if (!lvc || !nmc ||
            ari_vec_reserve((void **)&b->entities, &b->cap_entities, b->nentities + 1, sizeof *b->entities) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        b->entities[b->nentities++] = (ari_stream_entity){lvc, nmc, (int32_t)ari_col_int64(st, 2)};
    }
    if (ari_store_rows_end(s, st, rc, "read the run's entities", err) < 0)
        return -1;
    st = ari_store_stmt_id(s, "SELECT name, attribute FROM mt_metrics WHERE trace_id = ?1 ORDER BY metric_id",
                           trace_id, err);
    if (!st)
        return -1;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *nm = (const char *)ari_col_text(st, 0);
        char *nmc = ari_strpool_copy(l->pool, nm ? nm : "", nm ? strlen(nm) : 0);
        if (!nmc || ari_vec_reserve((void **)&b->metrics, &b->cap_metrics, b->nmetrics + 1, sizeof *b->metrics) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        b->metrics[b->nmetrics++] = (ari_stream_metric){nmc, ari_col_int(st, 1)};
    }
    l->nent = (int64_t)b->nentities;
    l->nmet = (int64_t)b->nmetrics;
    return ari_store_rows_end(s, st, rc, "read the run's metrics", err);
}

static int flush_chunk(loader *l)
{
    if (l->b.nrecords == 0)
        return 0;
    ari_live_applied a = {.batch = &l->b, .first_seq = l->first_seq, .nrecords = l->b.nrecords};
    int rc = l->ld ? ari_live_data_apply(l->ld, &l->b, l->first_seq, NULL, l->err) : l->fn(l->fn_ctx, &a);
    l->b.nrecords = l->b.nvalues = l->b.nrows = l->b.ncomm = 0;
    return rc;
}

static int load_row(void *ctx, int32_t src, const int32_t *dst, const double *count, size_t n)
{
    loader *l = ctx;
    ari_stream_batch *b = &l->b;
    if (src < 0 || src >= l->nent ||
        ari_vec_reserve((void **)&b->rows, &b->cap_rows, b->nrows + 1, sizeof *b->rows) < 0 ||
        ari_vec_reserve((void **)&b->comm, &b->cap_comm, b->ncomm + n, sizeof *b->comm) < 0)
        return ari_error_set(l->err, src < 0 || src >= l->nent ? ARI_E_DB : ARI_E_NOMEM,
                             src < 0 || src >= l->nent ? "a stored record names an unknown entity" : "out of memory");
    b->rows[b->nrows++] = (ari_stream_comm_row){(uint32_t)src, b->ncomm, 0};
    for (size_t i = 0; i < n; i++) {
        if (dst[i] < 0 || dst[i] >= l->nent)
            return ari_error_set(l->err, ARI_E_DB, "a stored record names an unknown entity");
        b->comm[b->ncomm++] = (ari_stream_comm){(uint32_t)dst[i], count[i]};
    }
    b->rows[b->nrows - 1].nentries = n;
    b->records[l->cur].nrows++;
    return 0;
}

static int load_record(void *ctx, const record_view *r, ari_error *err)
{
    loader *l = ctx;
    ari_stream_batch *b = &l->b;
    if (b->nrecords == 0)
        l->first_seq = r->seq;
    if (ari_vec_reserve((void **)&b->records, &b->cap_records, b->nrecords + 1, sizeof *b->records) < 0 ||
        ari_vec_reserve((void **)&b->values, &b->cap_values, b->nvalues + r->ncells, sizeof *b->values) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stream_record *rec = &b->records[b->nrecords];
    memset(rec, 0, sizeof *rec);
    rec->domain = isnan(r->domains[ARI_MT_LASTGVT]) ? ARI_MT_TIME : ARI_MT_LASTGVT;
    rec->key = r->key;
    memcpy(rec->other, r->domains, sizeof rec->other);
    rec->value0 = b->nvalues;
    rec->row0 = b->nrows;
    rec->line = (uint64_t)r->seq;
    l->cur = b->nrecords++;
    for (size_t i = 0; i < r->ncells; i++) {
        int32_t e = get32(r->cells + 16 * i), m = get32(r->cells + 16 * i + 4);
        if (e < 0 || e >= l->nent || m < 0 || m >= l->nmet)
            return ari_error_set(err, ARI_E_DB, "a stored record names an unknown entity or metric");
        b->values[b->nvalues++] = (ari_stream_value){(uint32_t)e, (uint32_t)m, get64(r->cells + 16 * i + 8)};
        rec->nvalues++;
    }
    if (each_comm_row(r, load_row, l, err) < 0)
        return -1;
    return b->nrecords >= LOAD_CHUNK ? flush_chunk(l) : 0;
}

static int load_open(ari_store *s, int64_t trace_id, loader l, ari_error *err)
{
    l.err = err;
    int rc = ari_stream_batch_init(&l.b, 0, err);
    if (rc < 0)
        return -1;
    l.pool = ari_strpool_new();
    rc = l.pool ? load_names(s, trace_id, &l, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = each_record(s, trace_id, l.after_seq, load_record, &l, err);
    if (rc == 0)
        rc = flush_chunk(&l);
    ari_stream_batch_free(&l.b);
    ari_strpool_free(l.pool);
    return rc;
}

/* ---- loading an offline metrics trace into a live_data (through its sink) ------------- */

static int load_offline_entities(ari_store *s, int64_t trace_id, const ari_metrics_sink *k, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT level, name, coalesce(parent_id, -1) FROM mt_entities WHERE trace_id = ?1 ORDER BY entity_id",
        trace_id, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (k->entity(k->ctx, (const char *)ari_col_text(st, 0), (const char *)ari_col_text(st, 1),
                      ari_col_int64(st, 2)) < 0) {
            ari_reset(st);
            return -1;
        }
    if (ari_store_rows_end(s, st, rc, "read the entities", err) < 0)
        return -1;
    st = ari_store_stmt_id(s, "SELECT name, attribute FROM mt_metrics WHERE trace_id = ?1 ORDER BY metric_id",
                           trace_id, err);
    if (!st)
        return -1;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (k->metric(k->ctx, (const char *)ari_col_text(st, 0), ari_col_int(st, 1)) < 0) {
            ari_reset(st);
            return -1;
        }
    return ari_store_rows_end(s, st, rc, "read the metrics", err);
}

/* The time points: domain blobs into keys (domain 0 or 3) and others. */
static int load_offline_times(ari_store *s, int64_t trace_id, const ari_metrics_sink *k, size_t *nt, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT domain_id, times FROM mt_domains WHERE trace_id = ?1", trace_id, err);
    if (!st)
        return -1;
    double *dom[ARI_MT_NDOMAINS] = {NULL};
    size_t n = 0;
    int rc, key = -1, out = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int d = ari_col_int(st, 0);
        size_t len = (size_t)ari_col_bytes(st, 1) / 8;
        if (d < 0 || d >= ARI_MT_NDOMAINS || dom[d])
            continue;
        if (key < 0 || d == ARI_MT_LASTGVT)
            key = d;
        n = len;
        if (!(dom[d] = malloc((len ? len : 1) * sizeof **dom))) {
            out = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        if (len)
            memcpy(dom[d], ari_col_blob(st, 1), len * 8);
    }
    if (out < 0)
        ari_reset(st);
    else
        out = ari_store_rows_end(s, st, rc, "read the time points", err);
    for (size_t t = 0; out == 0 && key >= 0 && t < n; t++) {
        double other[ARI_MT_NDOMAINS];
        for (int d = 0; d < ARI_MT_NDOMAINS; d++)
            other[d] = dom[d] ? dom[d][t] : NAN;
        if (k->time(k->ctx, key, dom[key][t], other) != (int64_t)t)
            out = -1;
    }
    for (int d = 0; d < ARI_MT_NDOMAINS; d++)
        free(dom[d]);
    *nt = key >= 0 ? n : 0;
    return out;
}

static int load_offline_values(ari_store *s, int64_t trace_id, const ari_metrics_sink *k, size_t nt, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT metric_id, entity_id, vals FROM mt_values WHERE trace_id = ?1 ORDER BY metric_id, entity_id",
        trace_id, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t m = ari_col_int64(st, 0), e = ari_col_int64(st, 1);
        const unsigned char *v = ari_col_blob(st, 2);
        size_t len = (size_t)ari_col_bytes(st, 2) / 8;
        for (size_t t = 0; t < len && t < nt; t++) {
            double x = get64(v + 8 * t);
            if (!isnan(x) && k->value(k->ctx, m, e, (int64_t)t, x) < 0) {
                ari_reset(st);
                return -1;
            }
        }
    }
    return ari_store_rows_end(s, st, rc, "read the values", err);
}

static int load_offline_comm(ari_store *s, int64_t trace_id, const ari_metrics_sink *k, size_t nt, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT time_idx, triples FROM mt_comm WHERE trace_id = ?1", trace_id, err);
    if (!st)
        return -1;
    int64_t *dst = NULL;
    double *count = NULL;
    size_t cap_d = 0, cap_c = 0;
    int rc, out = 0;
    while (out == 0 && (rc = ari_step(st)) == ARI_ROW) {
        int64_t t = ari_col_int64(st, 0);
        const unsigned char *p = ari_col_blob(st, 1);
        size_t n = (size_t)ari_col_bytes(st, 1) / 16;
        if (t < 0 || (size_t)t >= nt)
            continue;
        for (size_t i = 0; out == 0 && i < n;) { /* triples sorted by (src, dst): one row per src */
            size_t j = i;
            while (j < n && get32(p + 16 * j) == get32(p + 16 * i))
                j++;
            if (ari_vec_reserve((void **)&dst, &cap_d, j - i, sizeof *dst) < 0 ||
                ari_vec_reserve((void **)&count, &cap_c, j - i, sizeof *count) < 0) {
                out = ari_error_set(err, ARI_E_NOMEM, "out of memory");
                break;
            }
            for (size_t q = i; q < j; q++) {
                dst[q - i] = get32(p + 16 * q + 4);
                count[q - i] = get64(p + 16 * q + 8);
            }
            out = k->comm_row(k->ctx, t, get32(p + 16 * i), dst, count, j - i);
            i = j;
        }
    }
    free(dst);
    free(count);
    if (out < 0) {
        ari_reset(st);
        return -1;
    }
    return ari_store_rows_end(s, st, rc, "read the communication", err);
}

static int load_offline(ari_store *s, int64_t trace_id, ari_live_data *ld, ari_error *err)
{
    ari_live_sink *ls = ari_live_sink_new(ld, err);
    if (!ls)
        return -1;
    const ari_metrics_sink *k = ari_live_sink_sink(ls);
    ari_error local = {0};
    size_t nt = 0;
    int rc = load_offline_entities(s, trace_id, k, &local);
    if (rc == 0)
        rc = load_offline_times(s, trace_id, k, &nt, &local);
    if (rc == 0)
        rc = load_offline_values(s, trace_id, k, nt, &local);
    if (rc == 0)
        rc = load_offline_comm(s, trace_id, k, nt, &local);
    if (rc < 0)
        *err = local.code[0] ? local : *ari_live_sink_error(ls);
    ari_live_sink_free(ls);
    return rc;
}

int ari_stream_load(ari_store *s, int64_t trace_id, ari_live_data *ld, ari_error *err)
{
    int open = ari_stream_is_open(s, trace_id, err);
    if (open < 0)
        return -1;
    return open ? load_open(s, trace_id, (loader){.ld = ld}, err) : load_offline(s, trace_id, ld, err);
}

int ari_stream_batches_after(ari_store *s, int64_t trace_id, int64_t after_seq, ari_stream_batch_fn fn, void *ctx,
                             ari_error *err)
{
    int open = ari_stream_is_open(s, trace_id, err);
    if (open <= 0)
        return open < 0 ? -1 : 1;
    return load_open(s, trace_id, (loader){.fn = fn, .fn_ctx = ctx, .after_seq = after_seq}, err);
}

/* ---- close ------------------------------------------------------------------------------ */

typedef struct closer {
    const ari_metrics_sink *k;
    int64_t nent, nmet;
    int64_t t;               /* the writer's handle of the current record's point */
} closer;

static int close_row(void *ctx, int32_t src, const int32_t *dst, const double *count, size_t n)
{
    closer *c = ctx;
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < n; i++)
        d[i] = dst[i];
    int rc = c->k->comm_row(c->k->ctx, c->t, src, d, count, n);
    free(d);
    return rc;
}

static int close_record(void *ctx, const record_view *r, ari_error *err)
{
    closer *c = ctx;
    int domain = isnan(r->domains[ARI_MT_LASTGVT]) ? ARI_MT_TIME : ARI_MT_LASTGVT;
    if ((c->t = c->k->time(c->k->ctx, domain, r->key, r->domains)) < 0)
        return -1;
    for (size_t i = 0; i < r->ncells; i++) {
        int32_t e = get32(r->cells + 16 * i), m = get32(r->cells + 16 * i + 4);
        if (e < 0 || e >= c->nent || m < 0 || m >= c->nmet)
            return ari_error_set(err, ARI_E_DB, "a stored record names an unknown entity or metric");
        if (c->k->value(c->k->ctx, m, e, c->t, get64(r->cells + 16 * i + 8)) < 0)
            return -1;
    }
    return each_comm_row(r, close_row, c, err);
}

static int close_notes(ari_metrics_writer *mw, const ari_stream_status *st)
{
    char buf[64];
    int rc = ari_metrics_writer_note(mw, 1, "source", st->domain == ARI_MT_LASTGVT ? "\"ross\"" : "\"stream\"");
    rc |= ari_metrics_writer_note(mw, 1, "live", "true");
    snprintf(buf, sizeof buf, "%lld", (long long)st->n_records);
    rc |= ari_metrics_writer_note(mw, 1, "records", buf);
    if (st->kps_per_pe > 0) {
        snprintf(buf, sizeof buf, "%d", st->kps_per_pe);
        rc |= ari_metrics_writer_note(mw, 1, "kps_per_pe", buf);
    }
    return rc ? -1 : 0;
}

static int close_in_tx(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stream_status st;
    int rc = ari_stream_status_get(s, trace_id, &st, err);
    if (rc != 0)
        return rc < 0 ? -1 : ari_error_set(err, ARI_E_NOT_FOUND, "no live run %lld", (long long)trace_id);
    if (!st.open)
        return 1;
    if (st.n_records == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "the run has no samples: nothing to close");
    ari_metrics_writer *mw = ari_metrics_writer_begin_store(s, trace_id, err);
    if (!mw)
        return -1;
    closer c = {ari_metrics_writer_sink(mw), 0, 0, -1};
    ari_error local = {0};
    ari_arg id = ari_arg_int(trace_id);
    rc = load_offline_entities(s, trace_id, c.k, &local); /* the same reading: names in id order */
    c.nent = st.n_entities;
    c.nmet = st.n_metrics;
    if (rc == 0)
        rc = each_record(s, trace_id, 0, close_record, &c, &local);
    if (rc < 0 && !local.code[0])
        local = *ari_metrics_writer_error(mw);
    if (rc == 0)
        rc = close_notes(mw, &st) < 0 ? ari_error_set(&local, ARI_E_NOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = ari_store_run(s, "DELETE FROM mt_entities WHERE trace_id = ?1", &id, 1,
                           "close the live run", &local);
    if (rc == 0)
        rc = ari_store_run(s, "DELETE FROM mt_metrics WHERE trace_id = ?1", &id, 1,
                           "close the live run", &local);
    if (rc == 0)
        rc = ari_metrics_writer_finish(mw, &local);
    ari_metrics_writer_free(mw);
    if (rc == 0)
        rc = ari_store_run(s, "DELETE FROM mt_stream_points WHERE trace_id = ?1", &id,
                           1, "close the live run", &local);
    if (rc == 0)
        rc = ari_store_run(s,
                           "UPDATE mt_streams SET state = 'closed', closed = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
                           " WHERE trace_id = ?1", &id, 1, "close the live run", &local);
    if (rc == 0)
        rc = ari_store_run(s, "UPDATE traces SET meta_json = json_set(meta_json, '$.live', 'closed') WHERE id = ?1",
                           &id, 1, "close the live run", &local);
    if (rc < 0)
        *err = local;
    return rc;
}

int ari_stream_close(ari_store *s, int64_t trace_id, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    int rc = close_in_tx(s, trace_id, err);
    if (rc == 0)
        rc = ari_store_commit(s, err);
    if (rc != 0)
        ari_store_rollback(s);
    return rc;
}

/* ---- JSON -------------------------------------------------------------------------------- */

#define STREAM_FIELDS \
    "'trace_id', m.trace_id, 'name', t.name, 'state', m.state, 'n_points', m.n_points, 'n_records', m.n_records," \
    " 'last_key', m.last_key, 'created', m.created, 'closed', m.closed"

int ari_streams_list_json(ari_store *s, char **json_out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s,
        "SELECT coalesce(json_group_array(json(obj)), '[]') FROM (SELECT json_object(" STREAM_FIELDS ") AS obj"
        " FROM mt_streams m JOIN traces t ON t.id = m.trace_id ORDER BY m.trace_id DESC LIMIT 1000)", err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_stream_get_json(ari_store *s, int64_t trace_id, char **json_out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT json_object(" STREAM_FIELDS ", 'kps_per_pe', m.kps_per_pe,"
        " 'domain', CASE m.key_domain WHEN 0 THEN 'LastGvt' WHEN 3 THEN 'time' ELSE NULL END,"
        " 'entities', (SELECT coalesce(json_group_object(level, n), json('{}')) FROM"
        "   (SELECT level, count(*) AS n FROM mt_entities WHERE trace_id = ?1 GROUP BY level)),"
        " 'metrics', (SELECT coalesce(json_group_array(name), json('[]')) FROM"
        "   (SELECT name FROM mt_metrics WHERE trace_id = ?1 ORDER BY metric_id)))"
        " FROM mt_streams m JOIN traces t ON t.id = m.trace_id WHERE m.trace_id = ?1",
        trace_id, err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_stream_controls_get(ari_store *s, int64_t trace_id, char **json_out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT controls FROM mt_streams WHERE trace_id = ?1", trace_id, err);
    return st ? ari_store_query_string(s, st, "{}", json_out, "read the controls", err) : -1;
}

int ari_stream_controls_set(ari_store *s, int64_t trace_id, const char *json, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_raw_text(json)};
    ari_stmt *st = ari_store_bound(s, "UPDATE mt_streams SET controls = json(?2) WHERE trace_id = ?1", args,
                                       ARI_NARGS(args), err);
    return st ? ari_store_write_changed(s, st, "store the controls", err) : -1;
}
