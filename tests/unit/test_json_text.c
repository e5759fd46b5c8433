/* test_json_text.c: server/json_text.c writes numbers exactly as jansson
 * dumps them (integers; reals at 15 and 17 digits: whole numbers, shares
 * k / 10^4 for every k, tiny and huge values, negative zero), the
 * timeline's shares the way api_states.c's share_text takes them, and
 * the splice of a text in place of a "key": null member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "test_rng.h"

/* jansson's text of v at precision p. */
static char *jansson_real(double v, int p)
{
    json_t *a = json_pack("[f]", v);
    assert_non_null(a);
    char *s = json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(p));
    json_decref(a);
    assert_non_null(s);
    size_t n = strlen(s);
    memmove(s, s + 1, n - 2); /* strip the brackets */
    s[n - 2] = '\0';
    return s;
}

static void check_real(double v, int p)
{
    ari_json_text t = {0};
    ari_json_text_real(&t, v, p);
    assert_false(t.failed);
    char *want = jansson_real(v, p);
    if (strcmp(t.p, want) != 0)
        fail_msg("%.17g at %d digits: wrote %s, jansson %s", v, p, t.p, want);
    free(want);
    ari_json_text_free(&t);
}

static void test_reals(void **unused)
{
    (void)unused;
    const double fixed[] = {0,
                            -0.0,
                            1,
                            -1,
                            0.5,
                            1e-4,
                            9.99999e-5,
                            123456789,
                            1e14,
                            -1e14,
                            999999999999999.0,
                            1e15,
                            1e16,
                            1e300,
                            -1e-300,
                            1.25e-7,
                            364564500,
                            180460500.25,
                            0.1,
                            1.0 / 3,
                            2.5e22,
                            4.9e-324,
                            1e21,
                            123456.5};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        check_real(fixed[i], 15);
        check_real(fixed[i], 17);
        check_real(fixed[i], 6);
    }
    for (int k = 0; k <= 10000; k++) { /* every drawn share, also as written without printf */
        check_real(k / 1e4, 15);
        if (k == 0)
            continue;
        ari_json_text t = {0};
        ari_json_text_ten_thousandths(&t, k);
        char *want = jansson_real(k / 1e4, 15);
        assert_string_equal(t.p, want);
        free(want);
        ari_json_text_free(&t);
    }
    rng_state = 77;
    for (int i = 0; i < 20000; i++) {
        double e = floor(rng_uniform() * 40) - 20;
        double v = (rng_uniform() - 0.3) * pow(10, e);
        if (i % 3 == 0)
            v = floor(v);
        check_real(v, 15);
        check_real(v, 17);
    }
}

static void test_integers(void **unused)
{
    (void)unused;
    const int64_t v[] = {0, 1, -1, 9, 10, 1919, -1920, INT64_MAX, INT64_MIN, 4294967296LL};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        ari_json_text t = {0};
        ari_json_text_int(&t, v[i]);
        json_t *j = json_integer(v[i]);
        char *want = json_dumps(j, JSON_ENCODE_ANY);
        assert_string_equal(t.p, want);
        free(want);
        json_decref(j);
        ari_json_text_free(&t);
    }
}

static void test_value_and_splice(void **unused)
{
    (void)unused;
    ari_json_text t = {0};
    json_t *o = json_pack("{s:s,s:i}", "name", "a \"rows\":null \\ é", "n", 3);
    ari_json_text_value(&t, o, JSON_COMPACT);
    char *want = json_dumps(o, JSON_COMPACT);
    assert_string_equal(t.p, want);
    free(want);
    ari_json_text_free(&t);
    /* the member is found past a string that holds its words escaped */
    json_t *doc = json_pack("{s:O,s:n,s:i}", "o", o, "rows", "after", 1);
    char *head = json_dumps(doc, JSON_COMPACT);
    char *out = ari_json_text_splice(head, "rows", "[[1,2]]xx", 7);
    assert_non_null(out);
    json_object_set_new(doc, "rows", json_pack("[[i,i]]", 1, 2));
    char *whole = json_dumps(doc, JSON_COMPACT);
    assert_string_equal(out, whole);
    free(out);
    free(whole);
    assert_null(ari_json_text_splice(head, "missing", "1", 1));
    free(head);
    json_decref(doc);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_value_and_splice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
