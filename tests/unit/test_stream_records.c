/* test_stream_records.c: the live-run record parser (ingest/stream_records.h):
 * ROSS records named as the offline reader names them (PE p, KP g under its
 * PE, attributes, CommData rows, the nested "Data" object, nKP derived),
 * the generic form, frames, files read streaming equal to buffers, and
 * errors naming the line or frame. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "ingest/stream_records.h"
#include "test_helpers.h"

static void parse_ok(ari_stream_batch *b, const char *text, int frames)
{
    ari_error err = {0};
    if (ari_stream_parse_buffer(b, text, strlen(text), frames, &err) != 0)
        fail_msg("parse: %s", err.message);
}

static const ari_stream_entity *entity(const ari_stream_batch *b, const char *level, const char *name)
{
    int64_t i = ari_stream_batch_entity(b, level, name);
    if (i < 0)
        fail_msg("no entity %s %s", level, name);
    return &b->entities[i];
}

/* The value of (metric, entity) in record r, NaN if none. */
static double value_of(const ari_stream_batch *b, size_t r, const char *metric, const char *level, const char *name)
{
    int64_t m = ari_stream_batch_metric(b, metric), e = ari_stream_batch_entity(b, level, name);
    const ari_stream_record *rec = &b->records[r];
    for (size_t i = rec->value0; i < rec->value0 + rec->nvalues; i++)
        if ((int64_t)b->values[i].metric == m && (int64_t)b->values[i].entity == e)
            return b->values[i].v;
    return NAN;
}

static void ross_record(void **state)
{
    (void)state;
    ari_stream_batch b;
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    parse_ok(&b,
             "{\"LastGvt\":1000.5,\"VirtualTs\":7,\"RealTs\":0.5,\"Mode\":1,"
             "\"PeData\":[{\"Peid\":1,\"NumGvt\":3}],"
             "\"KpData\":[{\"Peid\":1,\"Kpid\":1,\"KpGid\":5,\"RbTotal\":20,\"Mode\":1,\"NetworkSend\":null,"
             "\"CommData\":[0,0,2,0,0,10,0,0,0,3,0,0]},"
             "{\"KpGid\":2,\"Data\":{\"RbTotal\":34.5}}]}\n",
             0);
    assert_int_equal(b.nrecords, 1);
    assert_int_equal(b.kps_per_pe, 4); /* KpGid 5 = Peid 1 * 4 + Kpid 1 */
    const ari_stream_record *r = &b.records[0];
    assert_int_equal(r->domain, ARI_MT_LASTGVT);
    assert_true(r->key == 1000.5 && r->other[ARI_MT_VIRTUALTS] == 7 && r->other[ARI_MT_REALTS] == 0.5);
    assert_true(isnan(r->other[ARI_MT_TIME]));
    const ari_stream_entity *kp5 = entity(&b, "KP", "KP 5"), *kp2 = entity(&b, "KP", "KP 2");
    assert_string_equal(b.entities[kp5->parent].name, "PE 1");
    assert_string_equal(b.entities[kp2->parent].name, "PE 0"); /* 2 / 4 */
    assert_int_equal(entity(&b, "PE", "PE 1")->parent, -1);
    assert_true(value_of(&b, 0, "RbTotal", "KP", "KP 5") == 20);
    assert_true(value_of(&b, 0, "RbTotal", "KP", "KP 2") == 34.5);
    assert_true(value_of(&b, 0, "NumGvt", "PE", "PE 1") == 3);
    assert_true(isnan(value_of(&b, 0, "NetworkSend", "KP", "KP 5"))); /* null: no sample */
    assert_int_equal(b.metrics[ari_stream_batch_metric(&b, "Mode")].attribute, 1);
    assert_int_equal(b.metrics[ari_stream_batch_metric(&b, "RbTotal")].attribute, 0);
    assert_int_equal(r->nrows, 1); /* one CommData row: KP 5 -> KPs 2, 5, 9 */
    const ari_stream_comm_row *row = &b.rows[r->row0];
    assert_string_equal(b.entities[row->src].name, "KP 5");
    assert_int_equal(row->nentries, 3);
    assert_string_equal(b.entities[b.comm[row->entry0].dst].name, "KP 2");
    assert_true(b.comm[row->entry0].count == 2);
    assert_string_equal(b.entities[b.comm[row->entry0 + 2].dst].name, "KP 9");
    assert_string_equal(b.entities[entity(&b, "KP", "KP 9")->parent].name, "PE 2");
    ari_stream_batch_free(&b);
}

static void generic_record(void **state)
{
    (void)state;
    ari_stream_batch b;
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    parse_ok(&b,
             "\n{\"time\":2.5,\"values\":{\"rank 0\":{\"flops\":10,\"bytes\":1e3},\"rank 1\":{\"flops\":11}},"
             "\"comm\":[[\"rank 1\",\"rank 0\",4],[\"rank 0\",\"rank 1\",2],[\"rank 1\",\"rank 1\",0],"
             "[\"rank 0\",\"rank 0\",1]]}\r\n\n{\"time\":3,\"values\":{}}",
             0);
    assert_int_equal(b.nrecords, 2);
    assert_int_equal(b.records[0].domain, ARI_MT_TIME);
    assert_true(b.records[0].key == 2.5 && b.records[1].key == 3);
    assert_int_equal(b.records[0].line, 2);
    assert_int_equal(b.records[1].line, 4);
    assert_true(value_of(&b, 0, "bytes", "entity", "rank 0") == 1000);
    assert_int_equal(entity(&b, "entity", "rank 1")->parent, -1);
    /* one row per source, entries in their order, zeros left out */
    assert_int_equal(b.records[0].nrows, 2);
    const ari_stream_comm_row *r0 = &b.rows[0], *r1 = &b.rows[1];
    assert_string_equal(b.entities[r0->src].name, "rank 0");
    assert_int_equal(r0->nentries, 2);
    assert_string_equal(b.entities[r1->src].name, "rank 1");
    assert_int_equal(r1->nentries, 1);
    assert_true(b.comm[r1->entry0].count == 4);
    /* groups: the entity under its group, as the generic CSVs name them */
    parse_ok(&b, "{\"time\":4,\"values\":{\"rank 7\":{\"flops\":1}},\"groups\":{\"rank 7\":\"node 1\"}}", 0);
    const ari_stream_entity *r7 = entity(&b, "entity", "rank 7");
    assert_int_equal(b.entities[r7->parent].parent, -1);
    assert_string_equal(b.entities[r7->parent].name, "node 1");
    assert_string_equal(b.entities[r7->parent].level, "group");
    ari_error err = {0};
    const char *again = "{\"time\":5,\"values\":{\"rank 7\":{\"flops\":1}}}";
    assert_int_equal(ari_stream_parse_buffer(&b, again, strlen(again), 0, &err), -1); /* its group is not given */
    assert_non_null(strstr(err.message, "rank 7 is under nothing here and under node 1"));
    ari_stream_batch_free(&b);
}

/* Frames of the same records give the same batch as NDJSON. */
static void frames_equal_lines(void **state)
{
    (void)state;
    const char *recs[] = {"{\"LastGvt\":1,\"KpData\":[{\"KpGid\":0,\"RbTotal\":1}]}",
                          "{\"LastGvt\":2,\"KpData\":[{\"KpGid\":1,\"RbTotal\":2,\"CommData\":[1,0]}]}"};
    char frames[512], lines[512];
    size_t nf = 0, nl = 0;
    for (int i = 0; i < 2; i++) {
        uint32_t n = (uint32_t)strlen(recs[i]);
        unsigned char le[4] = {(unsigned char)n, (unsigned char)(n >> 8), 0, 0};
        memcpy(frames + nf, le, 4);
        memcpy(frames + nf + 4, recs[i], n);
        nf += 4 + n;
        nl += (size_t)sprintf(lines + nl, "%s\n", recs[i]);
    }
    ari_stream_batch a, b;
    ari_error err = {0};
    assert_int_equal(ari_stream_batch_init(&a, 0, NULL), 0);
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    assert_int_equal(ari_stream_parse_buffer(&a, frames, nf, 1, &err), 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    fwrite(lines, 1, nl, f);
    rewind(f);
    assert_int_equal(ari_stream_parse_file(&b, f, 0, &err), 0);
    fclose(f);
    assert_int_equal(a.nrecords, 2);
    assert_int_equal(b.nrecords, 2);
    assert_int_equal(a.nvalues, b.nvalues);
    assert_int_equal(a.ncomm, b.ncomm);
    assert_int_equal(a.nentities, b.nentities);
    for (size_t i = 0; i < a.nvalues; i++)
        assert_true(a.values[i].v == b.values[i].v);
    assert_int_equal(a.records[1].line, 2);
    /* the file reader on frames */
    ari_stream_batch c;
    assert_int_equal(ari_stream_batch_init(&c, 0, NULL), 0);
    f = tmpfile();
    fwrite(frames, 1, nf, f);
    rewind(f);
    assert_int_equal(ari_stream_parse_file(&c, f, 1, &err), 0);
    fclose(f);
    assert_int_equal(c.nrecords, 2);
    assert_int_equal(c.ncomm, a.ncomm);
    ari_stream_batch_free(&a);
    ari_stream_batch_free(&b);
    ari_stream_batch_free(&c);
}

/* Each bad input fails naming its line or frame. */
static void errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int frames;
        const char *code, *message;
    } cases[] = {
        {"{\"LastGvt\":1}\n{\"LastGvt\":2}\n{oops}\n", 0, ARI_E_INVALID_INPUT, "line 3: not JSON"},
        {"{\"LastGvt\":1}\n[1,2]\n", 0, ARI_E_INVALID_INPUT, "line 2: a record must be a JSON object"},
        {"{\"VirtualTs\":1}", 0, ARI_E_INVALID_INPUT, "line 1: a record needs LastGvt"},
        {"{\"LastGvt\":\"x\"}", 0, ARI_E_INVALID_INPUT, "line 1: LastGvt must be a finite number"},
        {"{\"LastGvt\":1,\"KpData\":[{\"KpGid\":1,\"RbTotal\":\"many\"}]}", 0, ARI_E_INVALID_INPUT,
         "line 1: the value of RbTotal must be a number or null"},
        {"{\"LastGvt\":1,\"KpData\":[{\"Kpid\":1,\"RbTotal\":1}]}", 0, ARI_E_INVALID_INPUT,
         "line 1: KpData[0]: no KpGid, and the KPs per PE are unknown"},
        {"{\"LastGvt\":1,\"KpData\":[{\"KpGid\":1,\"CommData\":[1,-2]}]}", 0, ARI_E_INVALID_INPUT,
         "line 1: KpData[0]: CommData entries must be counts"},
        {"{\"LastGvt\":1,\"KpData\":[{\"Peid\":1,\"Kpid\":1,\"KpGid\":5},{\"Peid\":1,\"Kpid\":0,\"KpGid\":8}]}", 0,
         ARI_E_INVALID_INPUT, "line 1: KpData: Peid, Kpid and KpGid give 8 KPs per PE where the run has 4"},
        {"{\"LastGvt\":1,\"KpData\":[{\"KpGid\":1,\"Peid\":0}]}\n{\"LastGvt\":2,\"KpData\":[{\"KpGid\":1,\"Peid\":2}]}",
         0, ARI_E_INVALID_INPUT, "line 2: KP 1 is under PE 2 here and under PE 0 in an earlier record"},
        {"{\"time\":1,\"comm\":[[\"a\",\"b\"]]}", 0, ARI_E_INVALID_INPUT, "line 1: comm[0] must be"},
        {"\x05\x00\x00\x00{\"LastGvt\":1}", 1, ARI_E_INVALID_INPUT, "frame 1: not JSON"},
        {"\x0d\x00\x00\x00{\"LastGvt\":1}\x09\x00\x00", 1, ARI_E_INVALID_INPUT, "frame 2: truncated"},
        {"\x00\x00\x00\x00", 1, ARI_E_INVALID_INPUT, "frame 1: an empty frame"},
        {"\x00\x00\x00\x7f", 1, ARI_E_TOO_LARGE, "frame 1: a frame of"},
        {"\x04\x00\x00\x00\x10\x00\x00\x00", 1, ARI_E_INVALID_INPUT, "frame 1: the payload is not a JSON record"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ari_stream_batch b;
        ari_error err = {0};
        assert_int_equal(ari_stream_batch_init(&b, 4, NULL), 0);
        size_t len = strlen(cases[i].text);
        if (cases[i].frames) /* the texts hold NULs: their lengths by hand */
            len = i == 10 ? 4 + 13 : i == 11 ? 4 + 13 + 3 : i == 12 ? 4 : i == 13 ? 4 : 8;
        int rc = ari_stream_parse_buffer(&b, cases[i].text, len, cases[i].frames, &err);
        if (rc != -1 || strcmp(err.code, cases[i].code) != 0 || !strstr(err.message, cases[i].message))
            fail_msg("case %zu: rc %d, %s: %s (wanted %s)", i, rc, err.code, err.message, cases[i].message);
        ari_stream_batch_free(&b);
    }
    /* CommData of a KP under a PE when the KPs per PE are unknown: the
     * destinations' PEs cannot be placed */
    ari_stream_batch b;
    ari_error err = {0};
    const char *rec = "{\"LastGvt\":1,\"KpData\":[{\"Peid\":0,\"Kpid\":0,\"KpGid\":0,\"CommData\":[1,2]}]}";
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    assert_int_equal(ari_stream_parse_buffer(&b, rec, strlen(rec), 0, &err), -1);
    assert_non_null(strstr(err.message, "line 1: KpData[0]: CommData needs the number of KPs per PE"));
    ari_stream_batch_free(&b);
}

static void long_line(void **state)
{
    (void)state;
    size_t n = ARI_STREAM_MAX_RECORD + 10;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, ' ', n);
    big[0] = '{';
    FILE *f = tmpfile();
    fwrite(big, 1, n, f);
    rewind(f);
    ari_stream_batch b;
    ari_error err = {0};
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    assert_int_equal(ari_stream_parse_file(&b, f, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_non_null(strstr(err.message, "line 1"));
    fclose(f);
    free(big);
    ari_stream_batch_free(&b);
}

/* The fuzzer's seeds and finds (tests/fixtures/fuzz/stream/: first byte =
 * mode and nKP, as fuzz_stream.c reads them) parse to a result or a clean
 * error in this build too (ASan and UBSan in CI). */
static void fuzz_inputs(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/fuzz/stream", test_source_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int seen = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        int first = fgetc(f);
        assert_true(first != EOF);
        ari_stream_batch b;
        ari_error err = {0};
        assert_int_equal(ari_stream_batch_init(&b, first >> 4, NULL), 0);
        int rc = ari_stream_parse_file(&b, f, first & 1, &err);
        assert_true(rc == 0 || err.code[0]);
        fclose(f);
        ari_stream_batch_free(&b);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ross_record),     cmocka_unit_test(generic_record), cmocka_unit_test(frames_equal_lines),
        cmocka_unit_test(errors),          cmocka_unit_test(long_line),      cmocka_unit_test(fuzz_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
