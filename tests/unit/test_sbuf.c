/* test_sbuf.c: the growable string buffer and its JSON appenders, checked
 * byte for byte against jansson's compact dump (reals, strings, integers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/vec.h"

static void check_real(double v)
{
    json_t *j = json_real(v);
    char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
    ari_sbuf b = {0};
    ari_sbuf_json_real(&b, v);
    assert_false(ari_sbuf_failed(&b));
    if (strcmp(ari_sbuf_text(&b), want) != 0)
        fail_msg("%.17g: got %s, jansson %s", v, ari_sbuf_text(&b), want);
    ari_sbuf_free(&b);
    free(want);
    json_decref(j);
}

static void test_reals_as_jansson(void **state)
{
    (void)state;
    static const double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1e21, 1e22, 1.5e-7, 1e-300, 5e-324, DBL_MAX,
                                   -DBL_MAX, 123456789012345678.0, 1665130868148815.0, 39.093489173756403, 1e100};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_real(fixed[i]);
    srand(7);
    for (int i = 0; i < 20000; i++) {
        double m = (double)rand() / RAND_MAX, e = (double)(rand() % 80 - 40);
        check_real((rand() & 1 ? -1 : 1) * m * pow(10, e));
    }
    ari_sbuf b = {0};
    ari_sbuf_json_real(&b, NAN); /* jansson refuses non-finite reals */
    assert_true(ari_sbuf_failed(&b));
    assert_null(ari_sbuf_take(&b));
}

static void test_strings_as_jansson(void **state)
{
    (void)state;
    static const char *const cases[] = {"", "plain", "q\"b\\s/", "\b\f\n\r\t\x01\x1f\x7f", "\xc3\xa9t\xc3\xa9"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_string(cases[i]);
        char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
        ari_sbuf b = {0};
        ari_sbuf_json_string(&b, cases[i]);
        assert_string_equal(ari_sbuf_text(&b), want);
        ari_sbuf_free(&b);
        free(want);
        json_decref(j);
    }
}

static void test_buffer(void **state)
{
    (void)state;
    ari_sbuf b = {0};
    assert_string_equal(ari_sbuf_text(&b), "");
    for (int i = 0; i < 1000; i++)
        ari_sbuf_printf(&b, "%d,", i);
    ari_sbuf_json_int(&b, -42);
    assert_int_equal(strncmp(ari_sbuf_text(&b), "0,1,2,", 6), 0);
    assert_non_null(strstr(ari_sbuf_text(&b), "999,-42"));
    char *t = ari_sbuf_take(&b);
    assert_non_null(t);
    assert_int_equal(b.len, 0);
    free(t);

    ari_sbuf capped = {.max = 8};
    ari_sbuf_add_str(&capped, "12345678");
    assert_false(ari_sbuf_failed(&capped));
    ari_sbuf_add_char(&capped, '9');
    assert_true(ari_sbuf_failed(&capped));
    ari_sbuf_add_str(&capped, "more"); /* ignored once failed */
    assert_int_equal(capped.len, 8);
    ari_sbuf_reset(&capped);
    assert_false(ari_sbuf_failed(&capped));
    assert_string_equal(ari_sbuf_text(&capped), "");
    ari_sbuf_free(&capped);

    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ari_vec_reserve((void **)&v, &cap, n + 1, sizeof *v), 0);
        v[n++] = i;
    }
    assert_true(cap >= 100);
    assert_int_equal(v[99], 99);
    assert_int_equal(ari_vec_reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof *v), -1);
    assert_int_equal(v[99], 99); /* unchanged on failure */
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reals_as_jansson),
        cmocka_unit_test(test_strings_as_jansson),
        cmocka_unit_test(test_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
