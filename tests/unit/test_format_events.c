/* test_format_events.c: the event-trace import formats (src/import/
 * format_events.c) end to end through ari_import into a store in a temp
 * directory: kind "events", the Paje rows, ev_locations and the message chunks,
 * summary and counts, the derived CCT, the files and their digest, and
 * bad input (a missing .evt, a cut traces.def, a Projections log without
 * its .sts) failing with a message naming the file and nothing stored.
 *
 * Without the shared data (ARIADNE_SHARED_DATA, else ../shared/data) the
 * repository's own fixtures are used (tests/fixtures/projections/tiny.*,
 * tests/fixtures/hpctoolkit_db/tiny, and an OTF2 trace of 64 ranks that
 * tests/tools/gen_otf2 writes); with it, Pipit's ping-pong traces and
 * the values Pipit's tests assert, each copied into a temp directory first.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "store/message_chunks.h"
#include "store/state_chunks.h"
#include "test_helpers.h"
#include "util/fs.h"

typedef test_db fixture;

/* ---- files ---- */

static const char *shared_data(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    return d ? d : "../shared/data";
}

/* The directory of a Pipit test trace, or NULL when absent (skip). */
static char *pipit_dir(const char *which)
{
    char *p;
    if (asprintf(&p, "%s/pipit/pipit/tests/data/%s", shared_data(), which) < 0)
        abort();
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* Copies src (a file or a directory, recursively) to dst with cp. */
static void copy_tree(const char *src, const char *dst)
{
    char *cmd;
    if (asprintf(&cmd, "cp -R '%s' '%s'", src, dst) < 0)
        abort();
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static char *path_of(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

/* A copy of a Pipit trace directory as dir/<name>; NULL without the data. */
static char *copy_pipit(const char *dir, const char *which, const char *name)
{
    char *src = pipit_dir(which);
    if (!src)
        return NULL;
    char *dst = path_of(dir, name);
    copy_tree(src, dst);
    free(src);
    return dst;
}

/* ---- the store ---- */

static int64_t q(fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t q(fixture *f, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    return test_query_int(f->db_path, sql);
}

/* Table msgs of the test's database: every message of the message chunks
 * as a row (seq and the ev_messages columns), rebuilt before each query
 * of qm, so that the checks stay SQL. */
static void refresh_msgs(fixture *f)
{
    sqlite3 *db;
    sqlite3_stmt *st, *ins;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "BEGIN; DROP TABLE IF EXISTS msgs; CREATE TABLE msgs(trace_id, seq, src_container,"
                                  " dst_container, src_rank, dst_rank, tag, comm, bytes, send_time, recv_time)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT trace_id, chunk, n, data FROM message_chunks", -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO msgs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                                        -1, &ins, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t n = sqlite3_column_int64(st, 2);
        ari_error err = {0};
        assert_int_equal(ari_message_blob_check(sqlite3_column_bytes(st, 3), n, &err), 0);
        for (int64_t i = 0; i < n; i++) {
            ari_ec_message m;
            ari_message_record_get(sqlite3_column_blob(st, 3), i, &m);
            sqlite3_bind_int64(ins, 1, sqlite3_column_int64(st, 0));
            sqlite3_bind_int64(ins, 2, sqlite3_column_int64(st, 1) * ARI_MESSAGE_CHUNK + i);
            sqlite3_bind_int64(ins, 3, m.src_container);
            sqlite3_bind_int64(ins, 4, m.dst_container);
            sqlite3_bind_int64(ins, 5, m.src_rank);
            sqlite3_bind_int64(ins, 6, m.dst_rank);
            sqlite3_bind_int64(ins, 7, m.tag);
            sqlite3_bind_int64(ins, 8, m.comm);
            sqlite3_bind_int64(ins, 9, m.bytes);
            sqlite3_bind_double(ins, 10, m.send_time);
            sqlite3_bind_double(ins, 11, m.recv_time);
            assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* q over a fresh msgs table. */
static int64_t qm(fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t qm(fixture *f, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    refresh_msgs(f);
    return test_query_int(f->db_path, sql);
}

/* Sum of the row counts of every table an event import writes. */
static int64_t all_rows(fixture *f)
{
    static const char *tables[] = {"traces",   "trace_files", "entity_types", "containers",   "names",
                                   "states",   "variables",   "links",        "events",       "ev_locations",
                                   "message_chunks", "event_chunks", "cct_nodes", "profile_procs", "profile_metrics"};
    int64_t total = 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        total += q(f, "SELECT count(*) FROM %s", tables[i]);
    return total;
}

static int import_paths(fixture *f, const char *const *paths, size_t n, int allow_duplicate, ari_import_result *res,
                        ari_error *err)
{
    ari_import_input in[4];
    for (size_t i = 0; i < n; i++)
        in[i] = (ari_import_input){paths[i], NULL};
    ari_import_request req = {.inputs = in, .ninputs = n, .work_dir = f->work, .allow_duplicate = allow_duplicate};
    memset(res, 0, sizeof *res);
    return ari_import(f->s, &req, res, err);
}

/* Imports one path that must give exactly one trace of kind events and
 * that format; returns its id. */
static int64_t import_one(fixture *f, const char *path, const char *format)
{
    ari_import_result res;
    ari_error err = {0};
    if (import_paths(f, &path, 1, 1, &res, &err) != 0)
        fail_msg("%s: %s", path, err.message);
    int64_t id = -1;
    for (size_t i = 0; i < res.ntraces; i++)
        if (strcmp(res.traces[i].kind, "events") == 0) {
            assert_int_equal(id, -1);
            assert_string_equal(res.traces[i].format, format);
            id = res.traces[i].id;
        }
    assert_true(id > 0);
    ari_import_result_free(&res);
    return id;
}

/* Expects the import of path to fail naming `want` (and not `not`), with
 * every table as before. */
static void expect_failure(fixture *f, const char *path, const char *want, const char *not)
{
    int64_t before = all_rows(f);
    ari_import_result res;
    ari_error err = {0};
    int rc = import_paths(f, &path, 1, 1, &res, &err);
    ari_import_result_free(&res);
    if (rc == 0)
        fail_msg("the import of %s did not fail (want \"%s\")", path, want);
    if (!strstr(err.message, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, want);
    if (not && strstr(err.message, not))
        fail_msg("message \"%s\" names the server's path %s", err.message, not);
    assert_int_equal(all_rows(f), before);
}

/* An event trace keeps its calls only in state chunks (no `states`
 * rows): unpacks them through the store (ari_state_chunks_read) into the
 * test's own table test_states, shaped as `states`, for the queries below. */
static void unpack_states(fixture *f, int64_t id)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *pairs = NULL, *ins = NULL;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "CREATE TABLE IF NOT EXISTS test_states(trace_id, container_id, type_id,"
                                  " value_id, start, end, depth)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT DISTINCT container_id, type_id FROM state_chunks WHERE trace_id = ?1",
                                        -1, &pairs, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO test_states VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &ins,
                                        NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(pairs, 1, id);
    char del[96];
    snprintf(del, sizeof del, "DELETE FROM test_states WHERE trace_id = %lld", (long long)id);
    assert_int_equal(sqlite3_exec(db, del, NULL, NULL, NULL), SQLITE_OK);
    while (sqlite3_step(pairs) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(pairs, 0), t = sqlite3_column_int64(pairs, 1), n = 0;
        ari_gantt_state *v = NULL;
        int max_value;
        ari_error err = {0};
        assert_int_equal(ari_state_chunks_read(f->s, id, c, t, -HUGE_VAL, HUGE_VAL, 0, &v, &n, &max_value, &err), 1);
        for (int64_t i = 0; i < n; i++) {
            int64_t row[] = {id, c, t, v[i].value};
            for (int k = 0; k < 4; k++)
                sqlite3_bind_int64(ins, k + 1, row[k]);
            sqlite3_bind_double(ins, 5, v[i].start);
            sqlite3_bind_double(ins, 6, v[i].end);
            sqlite3_bind_int64(ins, 7, v[i].depth);
            assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
        free(v);
    }
    sqlite3_finalize(pairs);
    sqlite3_finalize(ins);
    sqlite3_close(db);
    /* and no `states` rows */
    assert_int_equal(q(f, "SELECT count(*) FROM states WHERE trace_id = %lld", (long long)id), 0);
}

/* The Function states of a trace whose value is like `like`. */
static int64_t states_named(fixture *f, int64_t id, const char *like)
{
    unpack_states(f, id);
    return q(f,
             "SELECT count(*) FROM test_states s JOIN names n ON n.trace_id = s.trace_id AND n.id = s.value_id"
             " JOIN entity_types t ON t.trace_id = s.trace_id AND t.id = s.type_id"
             " WHERE s.trace_id = %lld AND t.name = 'Function' AND n.name LIKE '%s'",
             (long long)id, like);
}

/* The Thread containers of a trace. */
static int64_t containers_of(fixture *f, int64_t id, const char *type)
{
    return q(f,
             "SELECT count(*) FROM containers c JOIN entity_types t ON t.trace_id = c.trace_id AND t.id = c.type_id"
             " WHERE c.trace_id = %lld AND t.name = '%s'",
             (long long)id, type);
}

/* ---- without the shared data ---- */

/* tests/fixtures/projections/tiny: by hand from its two logs (records
 * 1 CREATION, 2 BEGIN_PROCESSING with the sender's PE and event number):
 * PE 0 sends event 1 at 120 us, PE 1 begins it at 150 us (48 bytes); PE 1
 * sends event 5 at 160 us, PE 0 begins it at 210 us (16 bytes); PE 1's
 * second BEGIN_PROCESSING names PE 0's event 2, a broadcast: one of its
 * deliveries, neither a message nor unmatched (no warning). States: PE 0 Computation, Main, Idle, done(); PE 1
 * Computation, Idle, work, Pack, work: 9. */
static void test_projections_tiny(void **state)
{
    fixture *f = *state;
    char *dir = path_of(f->dir, "run"), *src = path_of(test_source_dir(), "tests/fixtures/projections");
    copy_tree(src, dir);
    int64_t id = import_one(f, dir, "projections");
    assert_int_equal(q(f, "SELECT count(*) FROM traces WHERE id = %lld AND kind = 'events' AND time_unit = 'ns'"
                          " AND time_unit_source LIKE '%%microseconds%%'", (long long)id), 1);
    assert_int_equal(containers_of(f, id, "Process"), 2);
    assert_int_equal(containers_of(f, id, "Thread"), 2);
    assert_int_equal(states_named(f, id, "%"), 9);
    assert_int_equal(states_named(f, id, "work(int n)"), 2);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations WHERE trace_id = %lld", (long long)id), 2);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), 2);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND src_rank = 0 AND dst_rank = 1"
                          " AND bytes = 48 AND send_time = 120e3 AND recv_time = 150e3 AND tag = 1",
                       (long long)id), 1);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND src_rank = 1 AND dst_rank = 0"
                          " AND bytes = 16 AND send_time = 160e3 AND recv_time = 210e3", (long long)id), 1);
    /* the message rows' containers are the Thread containers of ev_locations */
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs m JOIN ev_locations a ON a.trace_id = m.trace_id AND"
                          " a.container_id = m.src_container JOIN ev_locations b ON b.trace_id = m.trace_id AND"
                          " b.container_id = m.dst_container WHERE m.trace_id = %lld AND a.rank = m.src_rank AND"
                          " b.rank = m.dst_rank", (long long)id), 2);
    /* the messages are links in the counts, message chunks in the store */
    assert_int_equal(q(f, "SELECT json_extract(counts_json, '$.links') FROM traces WHERE id = %lld", (long long)id), 2);
    assert_int_equal(q(f, "SELECT count(*) FROM links WHERE trace_id = %lld", (long long)id), 0);
    assert_int_equal(q(f, "SELECT json_array_length(warnings_json) FROM traces WHERE id = %lld", (long long)id), 0);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.ranks') * 1000 + json_extract(summary_json,"
                          " '$.messages') * 10 + json_extract(summary_json, '$.unmatched_receives') FROM traces"
                          " WHERE id = %lld", (long long)id), 2020);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.redelivered_receives') FROM traces WHERE id = %lld",
                       (long long)id), 1);
    /* the files: the .sts and both logs */
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld", (long long)id), 3);
    /* the derived CCT: Computation at the root of each PE */
    assert_true(q(f, "SELECT count(*) FROM cct_nodes WHERE trace_id = %lld", (long long)id) >= 6);
    free(src);
    free(dir);
}

/* ev_locations: PE 0 and PE 1, thread 0 each */
static void test_locations_ranks(void **state)
{
    fixture *f = *state;
    char *dir = path_of(f->dir, "run"), *src = path_of(test_source_dir(), "tests/fixtures/projections");
    copy_tree(src, dir);
    int64_t id = import_one(f, dir, "projections");
    sqlite3 *db;
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT group_concat(rank || ':' || thread, ',') FROM (SELECT rank, thread FROM"
                              " ev_locations WHERE trace_id = %lld ORDER BY rank)", (long long)id);
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "0:0,1:0");
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(src);
    free(dir);
}

/* A Projections log alone: claimed, and failing with the missing .sts. */
static void test_log_without_sts(void **state)
{
    fixture *f = *state;
    char *dir = path_of(f->dir, "lonely"), *src = path_of(test_source_dir(), "tests/fixtures/projections/tiny.0.log");
    assert_int_equal(mkdir(dir, 0700), 0);
    copy_tree(src, dir);
    expect_failure(f, dir, "lonely/tiny.0.log: a Projections log without its tiny.sts beside it", f->dir);
    /* with another trace beside it, the import fails too (nothing stored) */
    free(src);
    free(dir);
}

/* tests/fixtures/hpctoolkit_db/tiny: one database, two traces. */
static void test_hpctoolkit_tiny(void **state)
{
    fixture *f = *state;
    char *dir = path_of(f->dir, "db"), *src = path_of(test_source_dir(), "tests/fixtures/hpctoolkit_db/tiny");
    copy_tree(src, dir);
    ari_import_result res;
    ari_error err = {0};
    const char *p = dir;
    if (import_paths(f, &p, 1, 0, &res, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(res.ntraces, 2);
    int events = 0, profile = 0;
    int64_t id = 0;
    for (size_t i = 0; i < res.ntraces; i++) {
        if (strcmp(res.traces[i].kind, "events") == 0) {
            events++;
            id = res.traces[i].id;
            assert_string_equal(res.traces[i].format, "hpctoolkit_trace");
        }
        profile += strcmp(res.traces[i].kind, "profile") == 0;
    }
    assert_int_equal(events, 1);
    assert_int_equal(profile, 1);
    assert_int_equal(res.nskipped, 0);
    ari_import_result_free(&res);
    /* test_hpctoolkit_db.c, test_tiny_trace: rank 0 enters 7 frames and
     * leaves them, rank 1 2 (main thread, main) */
    assert_int_equal(states_named(f, id, "%"), 9);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations WHERE trace_id = %lld", (long long)id), 2);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), 0);
    /* the events trace read trace.db, meta.db and profile.db; the profile
     * lists trace.db too: both digests cover the whole database */
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld", (long long)id), 3);
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files t JOIN traces p ON p.id = t.trace_id"
                          " WHERE p.kind = 'profile' AND t.name LIKE '%%trace.db'"), 1);
    assert_int_equal(q(f, "SELECT count(DISTINCT sha256) FROM traces"), 1);

    /* the same database without trace.db is another upload (its profile
     * is not the first one's: before, both profiles had meta.db and
     * profile.db only and this one was refused as a duplicate) */
    char *bare = path_of(f->dir, "bare"), *tdb = path_of(bare, "trace.db");
    copy_tree(src, bare);
    assert_int_equal(unlink(tdb), 0);
    p = bare;
    if (import_paths(f, &p, 1, 0, &res, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(res.ntraces, 1);
    assert_int_equal(res.nduplicates, 0);
    ari_import_result_free(&res);

    /* the whole database again: both of its traces are duplicates */
    char *again = path_of(f->dir, "again");
    copy_tree(src, again);
    int64_t before = all_rows(f);
    p = again;
    assert_int_not_equal(import_paths(f, &p, 1, 0, &res, &err), 0);
    assert_string_equal(err.code, ARI_E_DUPLICATE);
    assert_int_equal(res.nduplicates, 2);
    ari_import_result_free(&res);
    assert_int_equal(all_rows(f), before);
    free(again);
    free(tdb);
    free(bare);
    free(src);
    free(dir);
}

/* An OTF2 trace of 64 ranks written by tests/tools/gen_otf2 (libotf2's
 * writer; skipped when the build has no gen_otf2): 128 location files in
 * traces/, all taken by the OTF2 group (nothing skipped), and the counts
 * its --expect prints (by construction: a ring, each rank sending K
 * messages of 1024 bytes to the next). */
static void test_otf2_generated(void **state)
{
    fixture *f = *state;
    const char *build = getenv("ARIADNE_BUILD_DIR");
    char *gen = build ? path_of(build, "gen_otf2") : NULL;
    if (!gen || access(gen, X_OK) != 0) {
        free(gen);
        skip();
    }
    char *dir = path_of(f->dir, "ring"), *expect = path_of(f->dir, "expect.json"), *cmd;
    if (asprintf(&cmd, "'%s' --ranks 64 --iterations 2 --ranks-per-node 16 --expect --out '%s' > '%s'", gen, dir,
                 expect) < 0)
        abort();
    assert_int_equal(system(cmd), 0);
    char text[65536] = {0};
    FILE *e = fopen(expect, "r");
    assert_non_null(e);
    assert_true(fread(text, 1, sizeof text - 1, e) > 0);
    fclose(e);
    long events = -1, messages = -1;
    assert_non_null(strstr(text, "\"events\": "));
    sscanf(strstr(text, "\"events\": ") + 10, "%ld", &events);
    sscanf(strstr(text, "\"messages\": ") + 12, "%ld", &messages);
    assert_int_equal(messages, 128);

    ari_import_result res;
    ari_error err = {0};
    const char *p = dir;
    if (import_paths(f, &p, 1, 0, &res, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(res.ntraces, 1);
    assert_int_equal(res.nskipped, 0);
    int64_t id = res.traces[0].id;
    ari_import_result_free(&res);
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld", (long long)id), 2 + 2 * 64);
    assert_int_equal(containers_of(f, id, "Process"), 64);
    /* the system tree: one machine > 4 nodes of 16 ranks each */
    assert_int_equal(containers_of(f, id, "Machine"), 1);
    assert_int_equal(containers_of(f, id, "Node"), 4);
    assert_int_equal(q(f, "SELECT count(*) FROM containers c JOIN containers n ON n.trace_id = c.trace_id"
                          " AND n.id = c.parent_id WHERE c.trace_id = %lld AND c.name LIKE 'MPI Rank %%'"
                          " AND n.name = 'node ' || (CAST(substr(c.name, 10) AS INTEGER) / 16)", (long long)id), 64);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations WHERE trace_id = %lld", (long long)id), 64);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.events') FROM traces WHERE id = %lld", (long long)id),
                     events);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), messages);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND dst_rank = (src_rank + 1) %% 64"
                          " AND bytes = 1024", (long long)id), messages);
    free(cmd);
    free(expect);
    free(dir);
    free(gen);
}

/* What an import's progress callback heard. */
typedef struct heard {
    int calls, evt_calls;      /* all; those whose phase names a .evt file */
    double evt_max;            /* the largest fraction while reading a .evt */
    double last_reading;       /* the fraction of the last "reading" phase */
    int backwards;             /* a "reading" fraction smaller than the one before */
} heard;

static void on_heard(void *ctx, double fraction, const char *phase)
{
    heard *h = ctx;
    h->calls++;
    if (strncmp(phase, "reading ", 8) != 0)
        return;
    if (fraction < h->last_reading)
        h->backwards++;
    h->last_reading = fraction;
    if (strstr(phase, ".evt")) {
        h->evt_calls++;
        if (fraction > h->evt_max)
            h->evt_max = fraction;
    }
}

/* An OTF2 import's progress follows the bytes of every file read: while
 * the reader is in the .evt files (nearly all of the bytes) the phase
 * names them and the fraction climbs past one half, never backwards.
 * (Before, the phase named the anchor throughout and the fraction moved
 * over its few hundred bytes only.) */
static void test_otf2_progress(void **state)
{
    fixture *f = *state;
    const char *build = getenv("ARIADNE_BUILD_DIR");
    char *gen = build ? path_of(build, "gen_otf2") : NULL;
    if (!gen || access(gen, X_OK) != 0) {
        free(gen);
        skip();
    }
    char *dir = path_of(f->dir, "big"), *cmd;
    if (asprintf(&cmd, "'%s' --ranks 8 --events 600000 --out '%s' > /dev/null", gen, dir) < 0)
        abort();
    assert_int_equal(system(cmd), 0);
    heard h = {0};
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .progress = on_heard,
                              .progress_ctx = &h};
    ari_import_result res = {0};
    ari_error err = {0};
    if (ari_import(f->s, &req, &res, &err) != 0)
        fail_msg("%s", err.message);
    ari_import_result_free(&res);
    if (h.evt_calls < 4 || h.evt_max < 0.5 || h.backwards)
        fail_msg("%d calls, %d naming a .evt, up to %g, %d backwards", h.calls, h.evt_calls, h.evt_max,
                 h.backwards);
    free(cmd);
    free(dir);
    free(gen);
}

/* ---- Pipit's ping-pong traces ---- */

static void test_otf2_pingpong(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-otf2", "pp");
    if (!dir)
        skip();
    ari_import_result res;
    ari_error err = {0};
    const char *p = dir;
    if (import_paths(f, &p, 1, 0, &res, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(res.ntraces, 1);
    int64_t id = res.traces[0].id;
    assert_string_equal(res.traces[0].kind, "events");
    assert_string_equal(res.traces[0].format, "otf2");
    assert_null(res.traces[0].warnings);
    /* only MANIFEST.md and scorep.cfg are skipped, no .evt nor .def */
    assert_int_equal(res.nskipped, 2);
    for (size_t i = 0; i < res.nskipped; i++)
        assert_true(strstr(res.skipped[i].name, ".md") || strstr(res.skipped[i].name, ".cfg"));
    ari_import_result_free(&res);

    assert_int_equal(containers_of(f, id, "Process"), 2);
    assert_int_equal(containers_of(f, id, "Thread"), 2);
    /* the system tree (otf2-print -G): machine "Linux" > node "quartz10" >
     * both ranks; ev_locations' process is still the Process container */
    assert_int_equal(containers_of(f, id, "Machine"), 1);
    assert_int_equal(containers_of(f, id, "Node"), 1);
    assert_int_equal(q(f, "SELECT count(*) FROM containers c JOIN containers n ON n.trace_id = c.trace_id"
                          " AND n.id = c.parent_id JOIN containers m ON m.trace_id = c.trace_id AND m.id = n.parent_id"
                          " JOIN containers r ON r.trace_id = c.trace_id AND r.id = m.parent_id"
                          " WHERE c.trace_id = %lld AND c.name LIKE 'MPI Rank %%' AND n.name = 'quartz10'"
                          " AND m.name = 'Linux' AND r.parent_id IS NULL", (long long)id), 2);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations l JOIN containers c ON c.trace_id = l.trace_id"
                          " AND c.id = l.process_id JOIN entity_types t ON t.trace_id = c.trace_id AND t.id = c.type_id"
                          " WHERE l.trace_id = %lld AND t.name = 'Process'", (long long)id), 2);
    /* Pipit: 120 events, 36 of them instants (ProgramBegin/End, 16 MpiSend,
     * 16 MpiRecv), so (120 - 36) / 2 = 42 Enter/Leave pairs, 21 per rank
     * (60 events, 18 instants each); 32 MPI_Send rows: 16 states */
    assert_int_equal(states_named(f, id, "%"), 42);
    assert_int_equal(q(f, "SELECT count(*) FROM (SELECT container_id, count(*) c FROM test_states WHERE trace_id = %lld"
                          " GROUP BY 1) WHERE c = 21", (long long)id), 2);
    assert_int_equal(states_named(f, id, "MPI_Send"), 16);
    assert_int_equal(states_named(f, id, "MPI_Recv"), 16);
    assert_int_equal(q(f, "SELECT max(depth) FROM test_states WHERE trace_id = %lld", (long long)id), 1);
    /* the instants packed (event_chunks), no `events` row */
    assert_int_equal(q(f, "SELECT sum(n) FROM event_chunks WHERE trace_id = %lld", (long long)id), 4);
    assert_int_equal(q(f, "SELECT count(*) FROM events WHERE trace_id = %lld", (long long)id), 0);
    /* trace.py: 8 messages of 4177920 bytes each way */
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), 16);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND src_rank = %d AND"
                              " dst_rank = %d", (long long)id, r, 1 - r), 8);
        assert_int_equal(qm(f, "SELECT sum(bytes) FROM msgs WHERE trace_id = %lld AND src_rank = %d",
                           (long long)id, r), 4177920);
    }
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND recv_time < send_time",
                       (long long)id), 0);
    /* the messages are links in the counts, message chunks in the store */
    assert_int_equal(q(f, "SELECT json_extract(counts_json, '$.links') FROM traces WHERE id = %lld", (long long)id), 16);
    assert_int_equal(q(f, "SELECT count(*) FROM links WHERE trace_id = %lld", (long long)id), 0);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations WHERE trace_id = %lld AND thread = 0 AND rank IN (0, 1)",
                       (long long)id), 2);
    assert_int_equal(q(f, "SELECT count(DISTINCT rank) FROM ev_locations WHERE trace_id = %lld", (long long)id), 2);
    /* summary: Pipit's counts and the reader's notes */
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.events') FROM traces WHERE id = %lld", (long long)id),
                     120);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.definitions.total') FROM traces WHERE id = %lld",
                       (long long)id), 533);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.definitions.types') FROM traces WHERE id = %lld",
                       (long long)id), 17);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.messages') FROM traces WHERE id = %lld",
                       (long long)id), 16);
    assert_int_equal(q(f, "SELECT json_extract(counts_json, '$.states') FROM traces WHERE id = %lld", (long long)id),
                     42);
    assert_int_equal(q(f, "SELECT time_unit = 'ns' FROM traces WHERE id = %lld", (long long)id), 1);
    /* every file read is a file of the trace: anchor, traces.def, 2 x (.def, .evt) */
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld", (long long)id), 6);
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld AND role = 'otf2-location'",
                       (long long)id), 4);
    /* the derived CCT: main's children */
    assert_true(q(f, "SELECT count(*) FROM cct_nodes WHERE trace_id = %lld", (long long)id) >= 7);

    /* the same files again: a duplicate */
    int64_t before = all_rows(f);
    assert_int_equal(import_paths(f, &p, 1, 0, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_DUPLICATE);
    ari_import_result_free(&res);
    assert_int_equal(all_rows(f), before);
    free(dir);
}

/* A tar.gz of the directory: the layout is kept, traces/ is found. */
static void test_otf2_archive(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-otf2", "pp");
    if (!dir)
        skip();
    char *tgz = path_of(f->dir, "pp.tar.gz"), *cmd;
    if (asprintf(&cmd, "tar -czf '%s' -C '%s' pp", tgz, f->dir) < 0)
        abort();
    if (system(cmd) != 0)
        skip();
    int64_t id = import_one(f, tgz, "otf2");
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), 16);
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld AND name LIKE 'pp.tar.gz/pp/%%'",
                       (long long)id), 6);
    free(cmd);
    free(tgz);
    free(dir);
}

static void test_otf2_papi(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-otf2-papi", "papi");
    if (!dir)
        skip();
    int64_t id = import_one(f, dir, "otf2");
    /* 84 samples of each of 3 counters (test_otf2.c): one variable type
     * each, one piece per sample */
    assert_int_equal(q(f, "SELECT count(*) FROM entity_types WHERE trace_id = %lld AND name IN"
                          " ('PAPI_TOT_CYC', 'PAPI_L2_TCM', 'PAPI_BR_MSP')", (long long)id), 3);
    assert_int_equal(q(f, "SELECT count(*) FROM variables WHERE trace_id = %lld", (long long)id), 252);
    assert_int_equal(q(f, "SELECT count(*) FROM variables v JOIN entity_types t ON t.trace_id = v.trace_id AND"
                          " t.id = v.type_id WHERE v.trace_id = %lld AND t.name = 'PAPI_TOT_CYC' AND"
                          " v.value = 98850", (long long)id), 1);
    assert_int_equal(states_named(f, id, "%"), 42);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld", (long long)id), 16);
    free(dir);
}

static void test_projections_pingpong(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-projections", "prj");
    if (!dir)
        skip();
    int64_t id = import_one(f, dir, "projections");
    /* test_projections.c: enters 437 and 440; 77 and 68 sends of 11968
     * and 11056 bytes, each matched by (sending PE, event number) */
    assert_int_equal(states_named(f, id, "%"), 877);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND src_rank = 0", (long long)id),
                     77);
    assert_int_equal(qm(f, "SELECT count(*) FROM msgs WHERE trace_id = %lld AND src_rank = 1", (long long)id),
                     68);
    assert_int_equal(qm(f, "SELECT sum(bytes) FROM msgs WHERE trace_id = %lld AND src_rank = 0", (long long)id),
                     11968);
    assert_int_equal(qm(f, "SELECT sum(bytes) FROM msgs WHERE trace_id = %lld AND src_rank = 1", (long long)id),
                     11056);
    /* the receives: 121 + 110, 145 of them matched; the other 86 are 10
     * deliveries of PE 0's broadcast (event 0) and 76 second and third
     * BEGIN_PROCESSINGs of one message (an array element's message begun
     * as types 4, 21, 4 with the same sender and event): no warning */
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.unmatched_receives') FROM traces WHERE id = %lld",
                       (long long)id), 0);
    assert_int_equal(q(f, "SELECT json_extract(summary_json, '$.redelivered_receives') FROM traces WHERE id = %lld",
                       (long long)id), 121 + 110 - 145);
    assert_int_equal(q(f, "SELECT json_array_length(warnings_json) FROM traces WHERE id = %lld", (long long)id), 0);
    assert_int_equal(q(f, "SELECT count(*) FROM ev_locations WHERE trace_id = %lld", (long long)id), 2);
    /* the .sts, two logs and the .projrc */
    assert_int_equal(q(f, "SELECT count(*) FROM trace_files WHERE trace_id = %lld", (long long)id), 4);
    free(dir);
}

static void test_hpctoolkit_pingpong(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-hpctoolkit", "hpc");
    if (!dir)
        skip();
    int64_t id = import_one(f, dir, "hpctoolkit_trace");
    unpack_states(f, id);
    assert_int_equal(q(f, "SELECT count(*) FROM traces WHERE kind = 'profile' AND format = 'hpctoolkit'"), 1);
    /* hpctoolkit.py: 117 and 88 Enter events that are not loops; 7
     * PMPI_Send per rank; the last Leave 311978000 ns after the first event */
    for (int r = 0; r < 2; r++) {
        int64_t n = q(f,
                      "SELECT count(*) FROM test_states s JOIN names n ON n.trace_id = s.trace_id AND n.id = s.value_id"
                      " JOIN ev_locations l ON l.trace_id = s.trace_id AND l.container_id = s.container_id"
                      " WHERE s.trace_id = %lld AND l.rank = %d AND n.name NOT LIKE 'Loop@%%'",
                      (long long)id, r);
        assert_int_equal(n, r == 0 ? 117 : 88);
    }
    assert_int_equal(states_named(f, id, "PMPI_Send%"), 14);
    assert_int_equal(q(f, "SELECT max(end) = 311978000 FROM test_states WHERE trace_id = %lld", (long long)id), 1);
    /* the identifier tuples name one compute node (NODE): Node > Process */
    assert_int_equal(containers_of(f, id, "Node"), 1);
    assert_int_equal(q(f, "SELECT count(*) FROM containers c JOIN containers n ON n.trace_id = c.trace_id"
                          " AND n.id = c.parent_id JOIN entity_types t ON t.trace_id = n.trace_id AND t.id = n.type_id"
                          " WHERE c.trace_id = %lld AND t.name = 'Node' AND n.name LIKE 'node %%'", (long long)id), 2);
    free(dir);
}

/* ---- bad input ---- */

static void test_otf2_missing_evt(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-otf2", "pp");
    if (!dir)
        skip();
    char *evt = path_of(dir, "traces/1.evt");
    assert_int_equal(unlink(evt), 0);
    expect_failure(f, dir, "pp/traces/1.evt", f->dir);
    assert_int_equal(q(f, "SELECT count(*) FROM traces"), 0);
    free(evt);
    free(dir);
}

/* The anchor and traces.def without traces/ (as a multipart upload of
 * single files would give): says what to upload. */
static void test_otf2_flat(void **state)
{
    fixture *f = *state;
    char *dir = copy_pipit(f->dir, "ping-pong-otf2", "pp");
    if (!dir)
        skip();
    char *sub = path_of(dir, "traces");
    ari_remove_tree(sub);
    expect_failure(f, dir, "pp/traces.otf2: no directory traces/ beside it", f->dir);
    free(sub);
    free(dir);
}

static void test_otf2_truncated_def(void **state)
{
    fixture *f = *state;
    /* a good trace first: the database must stay as it is after it */
    char *tiny = path_of(f->dir, "run"), *src = path_of(test_source_dir(), "tests/fixtures/projections");
    copy_tree(src, tiny);
    import_one(f, tiny, "projections");
    char *dir = copy_pipit(f->dir, "ping-pong-otf2", "pp");
    if (!dir) {
        free(tiny), free(src);
        skip();
    }
    char *def = path_of(dir, "traces.def");
    struct stat st;
    assert_int_equal(stat(def, &st), 0);
    assert_int_equal(truncate(def, st.st_size / 2), 0);
    expect_failure(f, dir, "pp/traces.def", f->dir);
    assert_int_equal(q(f, "SELECT count(*) FROM traces"), 1);
    free(def);
    free(dir);
    free(tiny);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_projections_tiny, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_locations_ranks, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_log_without_sts, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hpctoolkit_tiny, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_generated, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_progress, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_pingpong, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_papi, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_projections_pingpong, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hpctoolkit_pingpong, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_missing_evt, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_truncated_def, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_otf2_flat, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
