/* test_json_tokens.c: the readers' JSON tokenizer (ingest/json_tokens.h):
 * the scanners (plain and cautious), the member and element walkers, the
 * string decoder, and the stream's cutter across refills and at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ingest/json_tokens.h"

static int scans(const char *text, int flags)
{
    const char *end = text + strlen(text);
    return ari_json_skip_value(text, end, flags) == end;
}

static void test_scanners(void **state)
{
    (void)state;
    assert_true(scans("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\"]}", 0));
    assert_true(scans("12345678901234567890", 0));
    assert_false(scans("12345678901234567890", ARI_JSON_CAUTIOUS)); /* left to jansson */
    assert_true(scans("\"\\u0000\"", 0));
    assert_false(scans("\"\\u0000\"", ARI_JSON_CAUTIOUS));
    assert_false(scans("[1, 2", 0));
    assert_false(scans("{\"a\" 1}", 0));
    assert_false(scans("01", 0));
    assert_false(scans("\"\xff\"", 0)); /* not UTF-8 */
    char deep[100];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 40);
    deep[80] = '\0';
    assert_true(scans(deep, 0));
    assert_false(scans(deep, ARI_JSON_CAUTIOUS));
}

static void test_walkers(void **state)
{
    (void)state;
    const char *obj = "{ \"id\" : 1, \"name\": \"A\\\"100\\u00e9\", \"id\": 2, \"x\": {\"id\": 9} }";
    size_t pos = 0, n;
    ari_json_member m;
    int count = 0;
    while (ari_json_member_next(obj, strlen(obj), 0, &pos, &m))
        count++;
    assert_int_equal(count, 4);
    const char *v;
    assert_int_equal(ari_json_member_get(obj, strlen(obj), "id", &v, &n), 1);
    int64_t id;
    assert_int_equal(ari_json_integer(v, n, &id), 1);
    assert_int_equal(id, 2); /* the last one, as jansson keeps */
    assert_int_equal(ari_json_member_get(obj, strlen(obj), "name", &v, &n), 1);
    char name[32];
    assert_int_equal(ari_json_string_decode(v, n, name, sizeof name), 0);
    assert_string_equal(name, "A\"100\xc3\xa9");
    assert_int_equal(ari_json_member_get(obj, strlen(obj), "missing", &v, &n), 0);
    assert_int_equal(ari_json_member_get("[1]", 3, "id", &v, &n), 0);
    assert_int_equal(ari_json_integer("1.0", 3, &id), 0);

    const char *arr = "[ {\"id\":0}, 5 ,\"s\" ]";
    pos = 0;
    count = 0;
    while (ari_json_element_next(arr, strlen(arr), 0, &pos, &v, &n))
        count++;
    assert_int_equal(count, 3);
    pos = 0;
    assert_int_equal(ari_json_element_next("[]", 2, 0, &pos, &v, &n), 0);

    assert_int_equal(ari_json_string_decode("\"\\ud83d\\ude00\"", 14, name, sizeof name), 0);
    assert_string_equal(name, "\xf0\x9f\x98\x80");
    assert_int_equal(ari_json_string_decode("\"abcdef\"", 8, name, 4), 0);
    assert_string_equal(name, "abc");
    assert_int_equal(ari_json_string_decode("\"ab", 3, name, sizeof name), -1);
}

/* Cuts the values of text one by one, joined by '|'. */
static void cut_all(const char *text, char *out, size_t size, int *ended_inside)
{
    ari_json_stream s;
    ari_error err = {0};
    ari_json_stream_init(&s, NULL, text, strlen(text), "t", 1 << 20);
    out[0] = '\0';
    *ended_inside = 0;
    while (ari_json_stream_peek(&s, &err) >= 0) {
        size_t n;
        int rc = ari_json_stream_cut(&s, &n, 0, &err);
        assert_true(rc >= 0);
        if (rc == 1) {
            *ended_inside = 1;
            break;
        }
        strncat(out, s.buf + s.start, n < size - strlen(out) - 2 ? n : 0);
        strcat(out, "|");
        s.start += n;
    }
    ari_json_stream_free(&s);
}

static void test_stream(void **state)
{
    (void)state;
    char out[256];
    int inside;
    cut_all("{\"a\": \"]}\"} [1, [2]] \"s\\\"\" 42 true", out, sizeof out, &inside);
    assert_string_equal(out, "{\"a\": \"]}\"}|[1, [2]]|\"s\\\"\"|42|true|");
    assert_false(inside);
    cut_all("[1, {\"b\": 2}", out, sizeof out, &inside);
    assert_true(inside);

    /* a value longer than a refill, and one over the cap */
    size_t big = 3 << 20;
    char *text = malloc(big + 3);
    text[0] = '"';
    memset(text + 1, 'x', big);
    text[big + 1] = '"';
    text[big + 2] = '\0';
    ari_json_stream s;
    ari_error err = {0};
    ari_json_stream_init(&s, NULL, text, big + 2, "big", 8 << 20);
    size_t n;
    assert_int_equal(ari_json_stream_peek(&s, &err), '"');
    assert_int_equal(ari_json_stream_cut(&s, &n, 0, &err), 0);
    assert_int_equal(n, big + 2);
    ari_json_stream_free(&s);
    ari_json_stream_init(&s, NULL, text, big + 2, "big", 1 << 20);
    assert_int_equal(ari_json_stream_cut(&s, &n, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    ari_json_stream_free(&s);
    ari_json_stream_init(&s, NULL, text, big + 2, "big", 1 << 20); /* discarded: no cap */
    assert_int_equal(ari_json_stream_cut(&s, &n, 1, &err), 0);
    ari_json_stream_free(&s);
    free(text);

    ari_json_stream_init(&s, NULL, "[1]\0", 4, "nul", 1 << 20);
    assert_int_equal(ari_json_stream_peek(&s, &err), -2);
    assert_non_null(strstr(err.message, "NUL byte"));
    ari_json_stream_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanners),
        cmocka_unit_test(test_walkers),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
