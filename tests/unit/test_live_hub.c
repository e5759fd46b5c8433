/* test_live_hub.c: the live hub's pieces without HTTP (issue 18): SSE
 * frames, the shared controls (validation naming the field, resolution of
 * the defaults), and the engine's messages against brute force on a small
 * ROSS-form run: windows, the PE granularity as the mean of its KPs, the
 * summary, the change points (the same as an ari_ocpd fed by hand, and the
 * same after a reset), the live communication matrix. */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/online_cpd.h"
#include "ingest/stream_records.h"
#include "live_controls.h"
#include "live_message.h"
#include "live_sse.h"
#include "store/live_data.h"

#define NPE 2
#define NKP 4 /* KPs in all, 2 per PE */
#define NT 40

/* RbTotal of KP g at time t: two phases (a jump at t = 20), distinct per KP. */
static double rb(int g, int t)
{
    return (t < 20 ? 10.0 : 50.0) + g * 1.5 + (t % 3) * 0.25;
}

static double net_send(int g, int t)
{
    return 100.0 - g - t * 0.5;
}

/* CommData of KP g at t: to KP (g + 1) % NKP, t + g messages. */
static double comm(int g, int dst, int t)
{
    return dst == (g + 1) % NKP ? t + g : 0;
}

static ari_live_data *build_run(void)
{
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    assert_non_null(ld);
    for (int t = 0; t < NT; t++) {
        char rec[4096];
        int n = snprintf(rec, sizeof rec, "{\"LastGvt\":%d,\"VirtualTs\":%d,\"RealTs\":%d,\"Mode\":1,\"KpData\":[",
                         100 * (t + 1), t, t);
        for (int g = 0; g < NKP; g++) {
            n += snprintf(rec + n, sizeof rec - (size_t)n,
                          "%s{\"Peid\":%d,\"Kpid\":%d,\"KpGid\":%d,\"RbTotal\":%.17g,\"NetworkSend\":%.17g,\"CommData\":[",
                          g ? "," : "", g / 2, g % 2, g, rb(g, t), net_send(g, t));
            for (int d = 0; d < NKP; d++)
                n += snprintf(rec + n, sizeof rec - (size_t)n, "%s%g", d ? "," : "", comm(g, d, t));
            n += snprintf(rec + n, sizeof rec - (size_t)n, "]}");
        }
        n += snprintf(rec + n, sizeof rec - (size_t)n, "]}");
        ari_stream_batch b;
        assert_int_equal(ari_stream_batch_init(&b, 2, &err), 0);
        assert_int_equal(ari_stream_parse_buffer(&b, rec, (size_t)n, 0, &err), 0);
        assert_int_equal(ari_live_data_apply(ld, &b, t + 1, NULL, &err), 0);
        ari_stream_batch_free(&b);
    }
    return ld;
}

static void test_frames(void **state)
{
    (void)state;
    ari_live_msg *m = ari_live_msg_new("point", 7, "{\"a\":1}", 7);
    assert_non_null(m);
    assert_string_equal(m->text, "id: 7\nevent: point\ndata: {\"a\":1}\n\n");
    assert_int_equal(m->len, strlen(m->text));
    ari_live_msg_unref(m);
    m = ari_live_msg_new("closed", -1, "{}", 2);
    assert_string_equal(m->text, "event: closed\ndata: {}\n\n");
    ari_live_msg_unref(m);
}

/* Applies text; expects an error naming `field`, and c unchanged. */
static void bad_control(ari_live_controls *c, const ari_live_data *ld, const char *text, const char *field)
{
    ari_live_controls before = *c;
    ari_error err = {0};
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    assert_int_equal(ari_live_controls_apply(c, j, ld, &err), -1);
    assert_string_equal(err.code, "invalid_parameter");
    char want[128];
    snprintf(want, sizeof want, "'%s'", field);
    if (!strstr(err.message, want))
        fail_msg("'%s': the message '%s' does not name %s", text, err.message, want);
    assert_memory_equal(&before, c, sizeof before);
    json_decref(j);
}

static void test_controls(void **state)
{
    (void)state;
    ari_live_data *ld = build_run();
    ari_live_controls c, r;
    ari_live_controls_defaults(&c);
    ari_live_controls_resolve(&c, ld, &r);
    assert_string_equal(r.top, "RbTotal");
    assert_string_equal(r.bottom, "NetworkSend");
    assert_string_equal(r.cluster_metric, "RbTotal");
    assert_string_equal(r.cause_target, "RbTotal");
    assert_string_equal(r.granularity, "KP");
    assert_int_equal(r.k, 3);
    assert_int_equal(r.window, 50);
    assert_true(r.alpha == 0.01 && r.cluster_ms == 50 && r.dr_ms == 10 && r.var_ms == 100);
    ari_error err = {0};
    json_t *j = json_loads("{\"k\":5,\"cpd_target\":\"bottom\",\"granularity\":\"PE\",\"window\":10,"
                           "\"causality\":{\"direction\":\"to\",\"threshold\":0.1},\"budgets\":{\"dr_ms\":3}}", 0, NULL);
    assert_int_equal(ari_live_controls_apply(&c, j, ld, &err), 0);
    json_decref(j);
    assert_int_equal(c.k, 5);
    assert_int_equal(c.cpd_bottom, 1);
    assert_string_equal(c.granularity, "PE");
    assert_int_equal(c.window, 10);
    assert_int_equal(c.cause_to, 1);
    assert_true(c.cause_threshold == 0.1 && c.dr_ms == 3 && c.cluster_ms == 50);
    assert_int_equal(c.version, 1);
    bad_control(&c, ld, "{\"k\":0}", "k");
    bad_control(&c, ld, "{\"k\":2.5}", "k");
    bad_control(&c, ld, "{\"alpha\":0}", "alpha");
    bad_control(&c, ld, "{\"top\":\"Nope\"}", "top");
    bad_control(&c, ld, "{\"top\":3}", "top");
    bad_control(&c, ld, "{\"granularity\":\"LP\"}", "granularity");
    bad_control(&c, ld, "{\"window\":1}", "window");
    bad_control(&c, ld, "{\"window\":7.5}", "window");
    bad_control(&c, ld, "{\"cpd_target\":\"left\"}", "cpd_target");
    bad_control(&c, ld, "{\"causality\":{\"direction\":\"up\"}}", "causality.direction");
    bad_control(&c, ld, "{\"causality\":{\"threshold\":2}}", "causality.threshold");
    bad_control(&c, ld, "{\"causality\":{\"x\":1}}", "causality.x");
    bad_control(&c, ld, "{\"budgets\":{\"var_ms\":-1}}", "budgets.var_ms");
    bad_control(&c, ld, "{\"budgets\":3}", "budgets");
    bad_control(&c, ld, "{\"k\":3,\"what\":1}", "what");
    json_t *out = ari_live_controls_json(&c);
    assert_int_equal(json_integer_value(json_object_get(out, "k")), 5);
    assert_string_equal(json_string_value(json_object_get(json_object_get(out, "causality"), "direction")), "to");
    json_decref(out);
    ari_live_data_free(ld);
}

/* The message of point t over [0, t + 1), parsed. */
static json_t *message(ari_live_engine *e, ari_live_data *ld, const ari_live_controls *ctl, size_t t)
{
    ari_error err = {0};
    ari_live_point pt = {.seq = (int64_t)t + 1, .t_idx = t, .update = 0, .arrival = 0};
    assert_int_equal(ari_live_engine_snapshot(e, ld, ctl, t + 1, &pt, &err), 0);
    size_t len = 0;
    char *text = ari_live_engine_compose(e, &len, &err);
    assert_non_null(text);
    json_error_t jerr;
    json_t *m = json_loadb(text, len, 0, &jerr);
    if (!m)
        fail_msg("message %zu is not JSON: %s", t, jerr.text);
    free(text);
    return m;
}

static double num(json_t *v)
{
    return json_is_null(v) ? NAN : json_number_value(v);
}

/* The change points of ari_ocpd fed the given entity columns by hand. */
static size_t hand_cpd(const double *cols /* NT x n */, size_t n, size_t upto, size_t *out)
{
    ari_ocpd *c = ari_ocpd_new(NULL, n);
    for (size_t t = 0; t < upto; t++)
        ari_ocpd_push(c, cols + t * n, n, NULL);
    const size_t *idx;
    size_t k = ari_ocpd_changes(c, &idx);
    if (k)
        memcpy(out, idx, k * sizeof *idx);
    ari_ocpd_free(c);
    return k;
}

static void check_cpd(json_t *m, const double *cols, size_t n, size_t t)
{
    size_t want[NT];
    size_t k = hand_cpd(cols, n, t + 1, want);
    json_t *cps = json_object_get(json_object_get(m, "cpd"), "change_points");
    assert_int_equal(json_array_size(cps), k);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(json_integer_value(json_array_get(cps, i)), want[i]);
}

static void test_messages_kp(void **state)
{
    (void)state;
    ari_live_data *ld = build_run();
    ari_live_engine *e = ari_live_engine_new();
    ari_live_controls c, ctl;
    ari_live_controls_defaults(&c);
    c.window = 8;
    ari_live_controls_resolve(&c, ld, &ctl);
    double cols[NT * NKP];
    for (int t = 0; t < NT; t++)
        for (int g = 0; g < NKP; g++)
            cols[t * NKP + g] = rb(g, t);
    json_t *m = NULL;
    for (size_t t = 0; t < NT; t++) {
        json_decref(m);
        m = message(e, ld, &ctl, t);
        assert_int_equal(json_integer_value(json_object_get(m, "seq")), (json_int_t)t + 1);
        assert_int_equal(json_integer_value(json_object_get(m, "t_idx")), (json_int_t)t);
        assert_int_equal(json_integer_value(json_object_get(m, "entities_n")), NKP);
        json_t *top = json_object_get(m, "top");
        size_t w = t + 1 < 8 ? t + 1 : 8;
        assert_int_equal(json_array_size(json_object_get(top, "times")), w);
        json_t *vals = json_object_get(top, "values");
        assert_int_equal(json_array_size(vals), NKP);
        /* entities in id order: KP g is the g-th KP by id (created in that order) */
        for (int g = 0; g < NKP; g++)
            assert_true(fabs(num(json_array_get(json_array_get(vals, (size_t)g), w - 1)) - rb(g, (int)t)) < 1e-4);
        double mean = 0;
        for (int g = 0; g < NKP; g++)
            mean += rb(g, (int)t) / NKP;
        double got = num(json_object_get(json_object_get(json_object_get(m, "summary"), "means"), "RbTotal"));
        assert_true(fabs(got - mean) < 1e-4 * mean);
        check_cpd(m, cols, NKP, t);
        json_t *cl = json_object_get(m, "clusters");
        assert_int_equal(json_array_size(json_object_get(cl, "labels")), NKP);
        assert_int_equal(json_array_size(json_object_get(json_object_get(m, "dr"), "top_xy")), NKP);
    }
    /* the phase change is found, and not before it */
    json_t *cps = json_object_get(json_object_get(m, "cpd"), "change_points");
    assert_true(json_array_size(cps) >= 1);
    assert_int_equal(json_integer_value(json_array_get(cps, 0)), 20);
    /* the live communication at the KP level: CommData of the last point */
    json_t *cm = json_object_get(m, "comm_live");
    assert_string_equal(json_string_value(json_object_get(cm, "level")), "KP");
    json_t *mat = json_object_get(cm, "matrix");
    assert_int_equal(json_array_size(mat), NKP);
    for (int a = 0; a < NKP; a++)
        for (int b = 0; b < NKP; b++)
            assert_true(num(json_array_get(json_array_get(mat, (size_t)a), (size_t)b)) == comm(a, b, NT - 1));
    json_decref(m);
    /* a reset (late or changed point) feeds the states again: the same result */
    ari_live_engine_reset(e);
    m = message(e, ld, &ctl, NT - 1);
    check_cpd(m, cols, NKP, NT - 1);
    json_decref(m);
    ari_live_engine_free(e);
    ari_live_data_free(ld);
}

static void test_messages_pe(void **state)
{
    (void)state;
    ari_live_data *ld = build_run();
    ari_live_engine *e = ari_live_engine_new();
    ari_live_controls c, ctl;
    ari_live_controls_defaults(&c);
    snprintf(c.granularity, sizeof c.granularity, "PE");
    c.k = 2;
    ari_live_controls_resolve(&c, ld, &ctl);
    double cols[NT * NPE];
    for (int t = 0; t < NT; t++)
        for (int p = 0; p < NPE; p++)
            cols[t * NPE + p] = (rb(2 * p, t) + rb(2 * p + 1, t)) / 2;
    json_t *m = NULL;
    for (size_t t = 0; t < NT; t++) {
        json_decref(m);
        m = message(e, ld, &ctl, t);
        assert_int_equal(json_integer_value(json_object_get(m, "entities_n")), NPE);
        json_t *vals = json_object_get(json_object_get(m, "top"), "values");
        size_t w = json_array_size(json_array_get(vals, 0));
        for (int p = 0; p < NPE; p++)
            assert_true(fabs(num(json_array_get(json_array_get(vals, (size_t)p), w - 1)) - cols[t * NPE + p]) < 1e-4);
        check_cpd(m, cols, NPE, t);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "clusters"), "k")), 2);
    }
    /* PE matrix: block means of the KP matrix (2 x 2 blocks) */
    json_t *mat = json_object_get(json_object_get(m, "comm_live"), "matrix");
    assert_int_equal(json_array_size(mat), NPE);
    for (int a = 0; a < NPE; a++)
        for (int b = 0; b < NPE; b++) {
            double s = 0;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    s += comm(2 * a + i, 2 * b + j, NT - 1);
            assert_true(fabs(num(json_array_get(json_array_get(mat, (size_t)a), (size_t)b)) - s / 4) < 1e-9);
        }
    json_decref(m);
    ari_live_engine_free(e);
    ari_live_data_free(ld);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_messages_kp),
        cmocka_unit_test(test_messages_pe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
