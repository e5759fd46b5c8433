/* test_fuzz_regressions.c: every input kept by the fuzzers (tests/fuzz/,
 * tests/fixtures/fuzz/<reader>/) goes through its reader again in a normal
 * build: it must give a clean result or a clean error, never a crash, leak
 * or sanitizer report (this build has ASan and UBSan under deploy/test.sh).
 * Also: untrusted numbers that become integers (GPU index, StarVZ depth,
 * MPI ranks) are range-checked and refused with invalid_input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <sqlite3.h>

#include "../fuzz/fuzz_files.h"
#include "ingest/archive.h"
#include "ingest/cali.h"
#include "ingest/caliper_json.h"
#include "ingest/hatchet_json.h"
#include "ingest/hpctoolkit.h"
#include "ingest/hwloc_xml.h"
#include "import/import.h"
#include "ingest/nvsmi_csv.h"
#include "store/profile_writer.h"
#include "store/store_internal.h"
#include "test_helpers.h"

typedef test_db fixture;

/* ---- helpers ---- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (cap - *len < 4096) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* A clean outcome: success, or a failure with a code and a message. */
static void assert_clean(int rc, const ari_error *err, const char *file)
{
    if (rc == 0)
        return;
    if (!err->code[0] || !err->message[0])
        fail_msg("%s: failed without an error", file);
}

typedef void (*fixture_fn)(fixture *f, const char *path, const char *base);

/* Runs fn on every file of tests/fixtures/fuzz/<reader>/; returns the count. */
static int each_fixture(fixture *f, const char *reader, fixture_fn fn)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/fuzz/%s", test_source_dir(), reader);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(f, path, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static int64_t profile_trace(fixture *f)
{
    if (sqlite3_exec(f->s->db, "INSERT INTO traces(name, kind, format) VALUES ('t', 'profile', 'test')", NULL,
                     NULL, NULL) != SQLITE_OK)
        fail_msg("cannot insert a trace");
    return sqlite3_last_insert_rowid(f->s->db);
}

typedef int (*profile_read_fn)(const char *path, const char *name, const ari_profile_sink *k, ari_error *err);

/* Reads through the store's profile writer, inside a rolled-back transaction. */
static int read_profile(fixture *f, const char *path, const char *name, profile_read_fn read, ari_error *err)
{
    int64_t id = profile_trace(f);
    memset(err, 0, sizeof *err);
    assert_int_equal(ari_store_begin(f->s, err), 0);
    ari_profile_writer *pw = ari_profile_writer_begin_store(f->s, id, err);
    assert_non_null(pw);
    int rc = read(path, name, ari_profile_writer_sink(pw), err);
    if (rc == 0)
        rc = ari_profile_writer_finish(pw, err);
    ari_profile_writer_free(pw);
    ari_store_rollback(f->s);
    return rc;
}

/* ---- the kept fuzz inputs, reader by reader ---- */

static void run_hwloc(fixture *f, const char *path, const char *base)
{
    (void)f;
    ari_topology t;
    ari_error err = {0};
    int rc = ari_topology_from_xml(path, base, &t, &err);
    if (rc == 0)
        ari_topology_free(&t);
    /* all of these crashed libhwloc: each is malformed and must be refused */
    assert_int_equal(rc, -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, base));
}

static int count_sample(void *ctx, const char *metric, int gpu, double ts, double value)
{
    (void)metric, (void)ts, (void)value;
    if (gpu < 0)
        fail_msg("negative GPU index");
    ++*(int *)ctx;
    return 0;
}

static void run_nvsmi(fixture *f, const char *path, const char *base)
{
    (void)f;
    int n = 0;
    ari_nvsmi_sink sink = {&n, count_sample};
    ari_error err = {0};
    assert_clean(ari_nvsmi_read(path, base, &sink, &err), &err, base);
}

static void run_hatchet(fixture *f, const char *path, const char *base)
{
    ari_error err;
    assert_clean(read_profile(f, path, base, ari_hatchet_json_read, &err), &err, base);
}

static void run_records(fixture *f, const char *path, const char *base)
{
    ari_error err;
    assert_clean(read_profile(f, path, base, ari_caliper_json_records_read, &err), &err, base);
}

/* Splits a fuzz input on FUZZ_FILE_MARK into files of a fresh directory. */
static char *split_into_dir(const char *path, const char *const *names, size_t nnames, size_t *nfiles)
{
    size_t len;
    char *data = read_all(path, &len);
    fuzz_part parts[FUZZ_MAX_FILES];
    size_t n = fuzz_split((const uint8_t *)data, len, parts, nnames < FUZZ_MAX_FILES ? nnames : FUZZ_MAX_FILES);
    char *dir = test_tmpdir();
    for (size_t i = 0; i < n; i++)
        free(test_write_file(dir, names[i], parts[i].data, parts[i].size));
    free(data);
    *nfiles = n;
    return dir;
}

static const char *const hpctoolkit_names[] = {
    "experiment.xml", "1.app-000000-000-a8c00270-1000-0.metric-db", "1.app-000001-000-a8c00270-1000-0.metric-db",
    "1.app-000002-000-a8c00270-1000-0.metric-db", "1.app-000003-000-a8c00270-1000-0.metric-db",
};

static const char *db_paths[4], *db_names[4];
static size_t db_count;

static int read_hpctoolkit(const char *path, const char *name, const ari_profile_sink *k, ari_error *err)
{
    return ari_hpctoolkit_read(path, name, db_paths, db_names, db_count, k, err);
}

static void run_hpctoolkit(fixture *f, const char *path, const char *base)
{
    size_t n;
    char *dir = split_into_dir(path, hpctoolkit_names, 5, &n);
    char xml[4096], dbs[4][4096];
    snprintf(xml, sizeof xml, "%s/experiment.xml", dir);
    db_count = n - 1;
    for (size_t i = 0; i < db_count; i++) {
        snprintf(dbs[i], sizeof dbs[i], "%s/%s", dir, hpctoolkit_names[i + 1]);
        db_paths[i] = dbs[i];
        db_names[i] = hpctoolkit_names[i + 1];
    }
    ari_error err;
    assert_clean(read_profile(f, xml, base, read_hpctoolkit, &err), &err, base);
    ari_remove_tree(dir);
    free(dir);
}

static const char *const starvz_names[] = {
    "paje.worker_state.csv", "entities.csv", "paje.link.csv", "paje.variable.csv", "rec.tasks.csv",
    "rec.data_handles.csv", "dag.csv", "atree.csv", "paje.comm_state.csv", "paje.memory_state.csv",
    "paje.other_state.csv", "paje.events.csv", "conf.txt",
};

static int import_dir(fixture *f, const char *dir, ari_error *err)
{
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    memset(err, 0, sizeof *err);
    int rc = ari_import(f->s, &req, &res, err);
    if (rc == 0)
        ari_import_result_free(&res);
    return rc;
}

static void run_starvz(fixture *f, const char *path, const char *base)
{
    size_t n;
    char *dir = split_into_dir(path, starvz_names, sizeof starvz_names / sizeof starvz_names[0], &n);
    ari_error err;
    assert_clean(import_dir(f, dir, &err), &err, base);
    ari_remove_tree(dir);
    free(dir);
}

static void run_archive(fixture *f, const char *path, const char *base)
{
    (void)f;
    char *out = test_tmpdir();
    ari_error err = {0};
    int rc = ari_archive_detect(path, &err);
    if (rc > 0)
        rc = ari_archive_extract(path, out, 1 << 20, &err);
    assert_clean(rc < 0 ? -1 : 0, &err, base);
    ari_remove_tree(out);
    free(out);
}

static void test_kept_fuzz_inputs(void **state)
{
    fixture *f = *state;
    /* the hwloc crash inputs of issue 12 must be there */
    assert_true(each_fixture(f, "hwloc", run_hwloc) >= 10);
    each_fixture(f, "nvsmi", run_nvsmi);
    each_fixture(f, "hatchet", run_hatchet);
    each_fixture(f, "caliper_records", run_records);
    each_fixture(f, "hpctoolkit", run_hpctoolkit);
    each_fixture(f, "starvz", run_starvz);
    each_fixture(f, "archive", run_archive);
}

/* ---- untrusted numbers that become integers ---- */

static int nvsmi_text(const char *text, int *samples, ari_error *err)
{
    char *dir = test_tmpdir(), *path = test_write_file(dir, "gpu.csv", text, strlen(text));
    ari_nvsmi_sink sink = {samples, count_sample};
    memset(err, 0, sizeof *err);
    int rc = ari_nvsmi_read(path, "gpu.csv", &sink, err);
    ari_remove_tree(dir);
    free(path);
    free(dir);
    return rc;
}

static void test_nvsmi_gpu_index_range(void **state)
{
    (void)state;
    static const char *const bad[] = {"1e30", "-1", "2.5", "nan", "inf", "70069272388607128532"};
    ari_error err;
    int n = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "timestamp(ns), index, utilization.gpu [%%]\n1000, %s, 5\n", bad[i]);
        assert_int_equal(nvsmi_text(text, &n, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        assert_non_null(strstr(err.message, "gpu.csv:2: bad GPU index"));
    }
    assert_int_equal(n, 0);
    assert_int_equal(nvsmi_text("timestamp(ns), index, utilization.gpu [%]\n1000, 3, 5\n2000, 3.0, 6\n", &n, &err), 0);
    assert_int_equal(n, 2);
}

static void write_worker_states(const char *dir, const char *depth)
{
    char text[1024];
    snprintf(text, sizeof text,
             "Nature, ResourceId, Type, Start, End, Duration, Depth, Value, JobId\n"
             "State, 0_CPU0, Worker State, 0.5, 1.0, 0.5, 0, dgemm, 1\n"
             "State, 0_CPU0, Worker State, 1.0, 2.0, 1.0, %s, Idle, \n", depth);
    free(test_write_file(dir, "paje.worker_state.csv", text, strlen(text)));
}

static void test_starvz_depth_range(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {"1e300", "-1", "0.5", "2147483648", "deep"};
    ari_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *dir = test_tmpdir();
        write_worker_states(dir, bad[i]);
        assert_int_equal(import_dir(f, dir, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        assert_non_null(strstr(err.message, "bad Depth"));
        ari_remove_tree(dir);
        free(dir);
    }
    char *dir = test_tmpdir();
    write_worker_states(dir, "2");
    assert_int_equal(import_dir(f, dir, &err), 0);
    ari_remove_tree(dir);
    free(dir);
}

static int read_text(fixture *f, const char *name, const char *text, profile_read_fn read, ari_error *err)
{
    char *dir = test_tmpdir(), *path = test_write_file(dir, name, text, strlen(text));
    int rc = read_profile(f, path, name, read, err);
    ari_remove_tree(dir);
    free(path);
    free(dir);
    return rc;
}

static void test_caliper_records_rank_range(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {"1e300", "-1", "0.5", "-9.3e18"};
    ari_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "[{\"path\":\"main\",\"time\":1.5,\"mpi.rank\":%s}]", bad[i]);
        assert_int_equal(read_text(f, "r.json", text, ari_caliper_json_records_read, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        assert_non_null(strstr(err.message, "bad mpi.rank"));
    }
    assert_int_equal(read_text(f, "r.json", "[{\"path\":\"main\",\"time\":1.5,\"mpi.rank\":2}]",
                               ari_caliper_json_records_read, &err), 0);
}

static void test_hatchet_rank_range(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {"\"rank\": 1e300", "\"thread\": -4", "\"rank\": 1.5"};
    ari_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"graph\": [{\"0\": {\"data\": {\"name\": \"foo\", \"type\": \"function\"}, \"children\": []}}],"
                 " \"dataframe_indices\": [\"node\", \"rank\"], \"dataframe\": [{\"node\": 0, %s, \"name\": \"foo\","
                 " \"time\": 1}], \"exclusive_metrics\": [\"time\"], \"inclusive_metrics\": []}", bad[i]);
        assert_int_equal(read_text(f, "h.json", text, ari_hatchet_json_read, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        assert_non_null(strstr(err.message, "not a whole number"));
    }
}

static void test_cali_rank_range(void **state)
{
    fixture *f = *state;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/profiles/small.cali", test_source_dir());
    size_t len;
    char *cali = read_all(path, &len);
    ari_error err;
    assert_int_equal(read_text(f, "s.cali", cali, ari_cali_read, &err), 0);
    static const char *const bad[] = {"99999999999999999999", "-2", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *at = strstr(cali, "data=1.5=0\n");
        assert_non_null(at);
        char *text;
        assert_true(asprintf(&text, "%.*sdata=1.5=%s\n%s", (int)(at - cali), cali, bad[i], at + 11) > 0);
        assert_int_equal(read_text(f, "s.cali", text, ari_cali_read, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        assert_non_null(strstr(err.message, "bad mpi.rank"));
        free(text);
    }
    free(cali);
}

/* ---- the hwloc reader's bounds and shaping ---- */

static int topology_text(const char *text, ari_topology *t, ari_error *err)
{
    memset(err, 0, sizeof *err);
    return ari_topology_from_xml_buffer(text, strlen(text), "t.xml", t, err);
}

#define SETS "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\""

static void test_hwloc_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *xml, *message;
    } bad[] = {
        {"<topology version=\"2.0\"><object type=\"Machine\" " SETS "><object type=\"Toaster\" " SETS
         "/></object></topology>", "t.xml:1: unknown object type 'Toaster'"},
        {"<!DOCTYPE t [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><topology/>",
         "entity declarations are not allowed"},
        {"<topology version=\"3.0\"><object type=\"Machine\"/></topology>", "version 3 is not supported"},
        {"<topology version=\"2.0\"><object os_index=\"0\" type=\"Machine\"/></topology>", "before its type"},
        {"<topology version=\"2.0\"><object type=\"Machine\" " SETS "><object type=\"PCIDev\"><object "
         "type=\"Core\" " SETS "/></object></object></topology>", "cannot be a child of PCIDev"},
        {"<topology version=\"2.0\"><object type=\"Machine\" " SETS "><object type=\"PU\" " SETS
         "/><info name=\"a\" value=\"b\"/></object></topology>", "<info> after the child objects"},
        {"<topology version=\"2.0\"><object type=\"Machine\" cpuset=\"0x1\" complete_cpuset=\"0x1\">"
         "</object></topology>", "no nodeset"},
        {"<topology version=\"2.0\"></topology>", "no root <object>"},
        {"<topology version=\"2.0\"><object type=\"Machine\" " SETS "><object type=\"Cache\" " SETS
         " depth=\"2\"/></object></topology>", "an untyped Cache object in a 2.x file"},
        {"<topology version=\"2.0\"><object type=\"Machine\" " SETS "><object", "not well-formed XML"},
    };
    ari_topology t;
    ari_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(topology_text(bad[i].xml, &t, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        if (!strstr(err.message, bad[i].message))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, bad[i].message);
    }
    /* nesting deeper than the reader allows */
    char *deep = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&deep, &len);
    fprintf(m, "<topology version=\"2.0\"><object type=\"Machine\" %s>", SETS);
    for (int i = 0; i < 100; i++)
        fprintf(m, "<object type=\"Group\" %s>", SETS);
    fclose(m);
    assert_int_equal(topology_text(deep, &t, &err), -1);
    assert_non_null(strstr(err.message, "nested more than"));
    free(deep);
}

/* What libhwloc's import does to a tree, done by our reader: instruction
 * caches dropped, Groups without structure merged, logical indices per
 * level, pre-2.0 NUMA nodes turned into memory children. */
static void test_hwloc_shaping(void **state)
{
    (void)state;
    ari_topology t;
    ari_error err;
    const char *v2 =
        "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\""
        " nodeset=\"0x1\" complete_nodeset=\"0x1\">"
        "<object type=\"NUMANode\" os_index=\"0\" " SETS " local_memory=\"1024\"/>"
        "<object type=\"Group\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\">"
        "<object type=\"L1iCache\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
        " cache_size=\"32768\" depth=\"1\" cache_type=\"2\">"
        "<object type=\"PU\" os_index=\"0\" " SETS "/>"
        "<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\" nodeset=\"0x1\""
        " complete_nodeset=\"0x1\"/></object></object></object></topology>";
    assert_int_equal(topology_text(v2, &t, &err), 0);
    assert_int_equal(t.n, 4); /* Machine, NUMANode, PU, PU: no Group, no L1i */
    assert_string_equal(t.comps[1].kind, "NUMANode");
    assert_string_equal(t.comps[1].key, "host");
    assert_string_equal(t.comps[3].name, "PU #1");
    assert_int_equal(t.comps[3].parent, 0);
    ari_topology_free(&t);

    const char *v1 =
        "<topology><object type=\"NUMANode\" os_index=\"0\" " SETS " local_memory=\"4096\">"
        "<info name=\"HostName\" value=\"n1\"/>"
        "<object type=\"Socket\" os_index=\"0\" " SETS "><object type=\"Cache\" " SETS " depth=\"2\""
        " cache_size=\"1024\"><object type=\"PU\" os_index=\"0\" " SETS "/></object></object>"
        "</object></topology>";
    assert_int_equal(topology_text(v1, &t, &err), 0);
    assert_int_equal(t.n, 5); /* a Machine above the NUMA root, then Package, L2, PU */
    assert_string_equal(t.comps[0].kind, "Machine");
    assert_int_equal(t.comps[0].os_index, -1);
    assert_non_null(strstr(t.comps[0].attrs_json, "\"HostName\":\"n1\""));
    assert_string_equal(t.comps[1].kind, "NUMANode");
    assert_string_equal(t.comps[2].kind, "Package");
    assert_string_equal(t.comps[3].kind, "L2Cache");
    assert_string_equal(t.comps[3].name, "L2 #0");
    ari_topology_free(&t);
}

static void test_caliper_split_source_location_range(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {"1e300", "0.5", "-1e19"};
    ari_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"data\": [[1.0, %s, 0]], \"columns\": [\"sum#time.duration\", \"sourceloc#cali.sampler.pc\", \"path\"],"
                 " \"column_metadata\": [{\"is_value\": true}, {\"is_value\": false}, {\"is_value\": false}],"
                 " \"nodes\": [{\"label\": \"main\", \"column\": \"path\"}]}", bad[i]);
        assert_int_equal(read_text(f, "s.json", text, ari_caliper_json_split_read, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        if (!strstr(err.message, "bad source location"))
            fail_msg("%s: %s", bad[i], err.message);
    }
    const char *good = "{\"data\": [[1.0, 4096, 0]], \"columns\": [\"sum#time.duration\", \"sourceloc#cali.sampler.pc\","
                       " \"path\"], \"column_metadata\": [{\"is_value\": true}, {\"is_value\": false}, {\"is_value\": false}],"
                       " \"nodes\": [{\"label\": \"main\", \"column\": \"path\"}]}";
    assert_int_equal(read_text(f, "s.json", good, ari_caliper_json_split_read, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kept_fuzz_inputs, test_db_setup, test_db_teardown),
        cmocka_unit_test(test_nvsmi_gpu_index_range),
        cmocka_unit_test(test_hwloc_refusals),
        cmocka_unit_test(test_hwloc_shaping),
        cmocka_unit_test_setup_teardown(test_starvz_depth_range, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_caliper_records_rank_range, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_rank_range, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_caliper_split_source_location_range, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_cali_rank_range, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
