/* test_params.c: the syntax rules of the parameter toolkit
 * (server/params.c): integers, numbers, integer lists and range lists.
 * The readers that answer 400 need a live request; their messages are
 * checked through the API (tests/api/params.test.mjs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "params.h"

static void test_int64(void **state)
{
    (void)state;
    int64_t v = 0;
    assert_int_equal(ari_parse_int64("42", &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(ari_parse_int64("-7", &v), 0);
    assert_int_equal(v, -7);
    assert_int_equal(ari_parse_int64("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    const char *bad[] = {NULL, "", "-", "+1", " 1", "1 ", "1.0", "0x10", "1e3", "9223372036854775808", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ari_parse_int64(bad[i], &v), -1);
}

static void test_number(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(ari_parse_number("0.5", &v), 0);
    assert_true(v == 0.5);
    assert_int_equal(ari_parse_number("-1e3", &v), 0);
    assert_true(v == -1000);
    assert_int_equal(ari_parse_number("+2", &v), 0);
    assert_true(v == 2);
    const char *bad[] = {NULL, "", "nan", "inf", "1e400", "0x1p3", " 1", "1,5", "1e",
                         "00000000000000000000000000000000000000000000000000000000000000001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ari_parse_number(bad[i], &v), -1);
}

static void test_int_list(void **state)
{
    (void)state;
    int64_t *v;
    size_t n;
    assert_int_equal(ari_parse_int_list("0,3,7", 0, 10, 5, &v, &n), ARI_LIST_OK);
    assert_int_equal(n, 3);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[2], 7);
    free(v);
    assert_int_equal(ari_parse_int_list("5", 0, 10, 1, &v, &n), ARI_LIST_OK);
    assert_int_equal(n, 1);
    free(v);
    assert_int_equal(ari_parse_int_list("1,2,3", 0, 10, 2, &v, &n), ARI_LIST_TOO_LONG);
    assert_null(v);
    /* too long is checked before the syntax */
    assert_int_equal(ari_parse_int_list("x,y,z", 0, 10, 2, &v, &n), ARI_LIST_TOO_LONG);
    const char *bad[] = {"", "1,", ",1", "1,,2", "1, 2", "+1", "11", "-1", "a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ari_parse_int_list(bad[i], 0, 10, 5, &v, &n), ARI_LIST_BAD);
        assert_null(v);
        assert_int_equal(n, 0);
    }
}

static void test_range_list(void **state)
{
    (void)state;
    ari_int_range *v;
    size_t n;
    assert_int_equal(ari_parse_range_list("0-3,7,9-9", 10, &v, &n), ARI_LIST_OK);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].lo, 0);
    assert_int_equal(v[0].hi, 3);
    assert_int_equal(v[1].lo, 7);
    assert_int_equal(v[1].hi, 7);
    assert_int_equal(v[2].lo, 9);
    assert_int_equal(v[2].hi, 9);
    free(v);
    assert_int_equal(ari_parse_range_list("1,2", 1, &v, &n), ARI_LIST_TOO_LONG);
    const char *bad[] = {"", "3-1", "-1", "1-", "1-2-3", "1,", "1, 2", "+1", "a-b", "1--2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ari_parse_range_list(bad[i], 10, &v, &n), ARI_LIST_BAD);
        assert_null(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_number),
        cmocka_unit_test(test_int_list),
        cmocka_unit_test(test_range_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
