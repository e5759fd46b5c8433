/* test_router.c: route matching, the OpenAPI document covering every
 * route, loopback detection and CLI size parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "auth.h"
#include "cli.h"
#include "router.h"
#include "util/embedded.h"

static ari_match find(const char *method, const char *url, ari_request *r, char *allow)
{
    memset(r, 0, sizeof *r);
    r->method = method;
    r->url = url;
    return ari_route_find(r, allow, 128);
}

static void test_matching(void **state)
{
    (void)state;
    ari_request r;
    char allow[128];
    assert_int_equal(find("GET", "/api/v1/traces", &r, allow), ARI_MATCH_FOUND);
    assert_string_equal(r.route->pattern, "/api/v1/traces");
    assert_int_equal(find("GET", "/api/v1/traces/", &r, allow), ARI_MATCH_FOUND);
    assert_int_equal(find("GET", "/api/v1/traces/42", &r, allow), ARI_MATCH_FOUND);
    assert_int_equal(r.nparams, 1);
    assert_string_equal(r.params[0], "42");
    assert_int_equal(find("DELETE", "/api/v1/traces/abc", &r, allow), ARI_MATCH_FOUND);
    assert_string_equal(r.params[0], "abc");
    assert_int_equal(find("PUT", "/api/v1/traces/1", &r, allow), ARI_MATCH_NO_METHOD);
    assert_string_equal(allow, "GET, PATCH, DELETE");
    assert_int_equal(find("GET", "/api/v1/traces/1/2", &r, allow), ARI_MATCH_NO_PATH);
    assert_int_equal(find("GET", "/api/v1/trace", &r, allow), ARI_MATCH_NO_PATH);
    assert_int_equal(find("GET", "/api/v1/traces//", &r, allow), ARI_MATCH_NO_PATH);
    assert_int_equal(find("POST", "/api/v1/health", &r, allow), ARI_MATCH_NO_METHOD);
}

/* "/api/v1/traces/{id}" -> "/api/v1/traces/{}" */
static void normalise(const char *path, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = path; *p && n + 3 < size; p++) {
        out[n++] = *p;
        if (*p == '{') {
            while (*p && *p != '}')
                p++;
            out[n++] = '}';
            if (!*p)
                break;
        }
    }
    out[n] = '\0';
}

static void lower(const char *in, char *out)
{
    while ((*out++ = (char)tolower((unsigned char)*in++)))
        ;
}

static void test_openapi_covers_routes(void **state)
{
    (void)state;
    json_error_t jerr;
    json_t *doc = json_loads(ari_openapi[0].data, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "openapi")), "3.0.3");
    json_t *paths = json_object_get(doc, "paths");
    size_t n;
    const ari_route *routes = ari_routes(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *item = NULL;
        const char *key;
        json_t *value;
        json_object_foreach(paths, key, value) {
            char norm[256];
            normalise(key, norm, sizeof norm);
            if (strcmp(norm, routes[i].pattern) == 0)
                item = value;
        }
        char method[16];
        lower(routes[i].method, method);
        if (!item || !json_object_get(item, method))
            fail_msg("openapi.json lacks %s %s", routes[i].method, routes[i].pattern);
    }
    json_decref(doc);
}

static void test_loopback(void **state)
{
    (void)state;
    assert_true(ari_auth_is_loopback("127.0.0.1"));
    assert_true(ari_auth_is_loopback("127.1.2.3"));
    assert_true(ari_auth_is_loopback("::1"));
    assert_true(ari_auth_is_loopback("localhost"));
    assert_false(ari_auth_is_loopback("0.0.0.0"));
    assert_false(ari_auth_is_loopback("::"));
    assert_false(ari_auth_is_loopback("192.168.1.2"));
    assert_false(ari_auth_is_loopback("example.org"));
}

static void test_parse_bytes(void **state)
{
    (void)state;
    unsigned long long v;
    assert_int_equal(ari_cli_parse_bytes("1024", &v), 0);
    assert_int_equal(v, 1024);
    assert_int_equal(ari_cli_parse_bytes("2G", &v), 0);
    assert_int_equal(v, 2ULL << 30);
    assert_int_equal(ari_cli_parse_bytes("500m", &v), 0);
    assert_int_equal(v, 500ULL << 20);
    assert_int_equal(ari_cli_parse_bytes("-1", &v), -1);
    assert_int_equal(ari_cli_parse_bytes("12X", &v), -1);
    assert_int_equal(ari_cli_parse_bytes("", &v), -1);
    assert_int_equal(ari_cli_parse_bytes("99999999999999999999G", &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_openapi_covers_routes),
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_parse_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
