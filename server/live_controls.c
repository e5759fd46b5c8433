/* live_controls.c: defaults, validation, resolution and JSON of a live
 * run's shared controls (live_controls.h). */
#include "live_controls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ari_live_controls_defaults(ari_live_controls *c)
{
    memset(c, 0, sizeof *c);
    c->k = 3;
    c->alpha = 0.01;
    c->cause_threshold = 0.05;
    c->window = 50;
    c->cluster_ms = 50;
    c->dr_ms = 10;
    c->var_ms = 100;
}

static int bad(ari_error *err, const char *field, const char *want)
{
    return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control '%s' wants %s", field, want);
}

/* A metric name of the run (when ld knows metrics) into out. */
static int metric_member(json_t *obj, const char *field, const ari_live_data *ld, char *out, ari_error *err)
{
    json_t *v = json_object_get(obj, field);
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    if (!s || !*s || strlen(s) >= ARI_LIVE_NAME)
        return bad(err, field, "a metric name");
    if (ld && ari_live_data_n_metrics(ld) > 0 && ari_live_data_metric_find(ld, s) < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control '%s': the run has no metric '%.100s'", field,
                             s);
    snprintf(out, ARI_LIVE_NAME, "%s", s);
    return 0;
}

static int number_member(json_t *obj, const char *field, double lo, double hi, int lo_open, double *out,
                         ari_error *err)
{
    json_t *v = json_object_get(obj, field);
    if (!v)
        return 0;
    double x = json_number_value(v);
    char want[96];
    snprintf(want, sizeof want, "a number in %s%g, %g]", lo_open ? "(" : "[", lo, hi);
    if (!json_is_number(v) || !isfinite(x) || x > hi || x < lo || (lo_open && x == lo))
        return bad(err, field, want);
    *out = x;
    return 0;
}

static int int_member(json_t *obj, const char *field, int lo, int hi, int *out, ari_error *err)
{
    json_t *v = json_object_get(obj, field);
    if (!v)
        return 0;
    char want[64];
    snprintf(want, sizeof want, "a whole number in [%d, %d]", lo, hi);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(err, field, want);
    *out = (int)json_integer_value(v);
    return 0;
}

/* One of two words (0 / 1) into *out. */
static int choice_member(json_t *obj, const char *field, const char *w0, const char *w1, int *out,
                         ari_error *err)
{
    json_t *v = json_object_get(obj, field);
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    char want[64];
    snprintf(want, sizeof want, "\"%s\" or \"%s\"", w0, w1);
    if (!s || (strcmp(s, w0) != 0 && strcmp(s, w1) != 0))
        return bad(err, field, want);
    *out = strcmp(s, w1) == 0;
    return 0;
}

static int level_member(json_t *obj, const ari_live_data *ld, char *out, ari_error *err)
{
    json_t *v = json_object_get(obj, "granularity");
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    if (!s || !*s || strlen(s) >= ARI_LIVE_NAME)
        return bad(err, "granularity", "a level name (PE, KP, LP)");
    size_t n = 0;
    const char *const *levels = ld ? ari_live_data_levels(ld, &n) : NULL;
    int found = n == 0 && (strcmp(s, "PE") == 0 || strcmp(s, "KP") == 0 || strcmp(s, "LP") == 0);
    for (size_t i = 0; i < n; i++)
        found |= strcmp(levels[i], s) == 0;
    if (!found)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control 'granularity': the run has no level '%.100s'",
                             s);
    snprintf(out, ARI_LIVE_NAME, "%s", s);
    return 0;
}

static int causality_member(json_t *obj, const ari_live_data *ld, ari_live_controls *c, ari_error *err)
{
    json_t *v = json_object_get(obj, "causality");
    if (!v)
        return 0;
    if (!json_is_object(v))
        return bad(err, "causality", "an object {target, direction, threshold}");
    const char *key;
    json_t *member;
    json_object_foreach(v, key, member)
        if (strcmp(key, "target") && strcmp(key, "direction") && strcmp(key, "threshold"))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control 'causality.%.60s' is unknown", key);
    if (metric_member(v, "target", ld, c->cause_target, err) < 0 ||
        choice_member(v, "direction", "from", "to", &c->cause_to, err) < 0 ||
        number_member(v, "threshold", 0, 1, 1, &c->cause_threshold, err) < 0) {
        char m[sizeof err->message];
        snprintf(m, sizeof m, "%s", err->message);
        if (strncmp(m, "control '", 9) == 0)
            ari_error_set(err, ARI_E_INVALID_PARAMETER, "control 'causality.%s", m + 9);
        return -1;
    }
    return 0;
}

static int budgets_member(json_t *obj, ari_live_controls *c, ari_error *err)
{
    json_t *v = json_object_get(obj, "budgets");
    if (!v)
        return 0;
    if (!json_is_object(v))
        return bad(err, "budgets", "an object {cluster_ms, dr_ms, var_ms}");
    const char *key;
    json_t *member;
    json_object_foreach(v, key, member)
        if (strcmp(key, "cluster_ms") && strcmp(key, "dr_ms") && strcmp(key, "var_ms"))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control 'budgets.%.60s' is unknown", key);
    if (number_member(v, "cluster_ms", 0, ARI_LIVE_MAX_BUDGET_MS, 1, &c->cluster_ms, err) < 0 ||
        number_member(v, "dr_ms", 0, ARI_LIVE_MAX_BUDGET_MS, 1, &c->dr_ms, err) < 0 ||
        number_member(v, "var_ms", 0, ARI_LIVE_MAX_BUDGET_MS, 1, &c->var_ms, err) < 0) {
        char m[sizeof err->message];
        snprintf(m, sizeof m, "%s", err->message);
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "control 'budgets.%s", m + 9);
        return -1;
    }
    return 0;
}

static const char *const known[] = {"top", "bottom", "cluster_metric", "k", "cpd_target", "alpha", "causality",
                                    "granularity", "window", "budgets"};

int ari_live_controls_apply(ari_live_controls *c, json_t *obj, const ari_live_data *ld, ari_error *err)
{
    if (!json_is_object(obj))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "the controls are a JSON object");
    const char *key;
    json_t *member;
    json_object_foreach(obj, key, member) {
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "control '%.60s' is unknown (known: top, bottom, "
                                 "cluster_metric, k, cpd_target, alpha, causality, granularity, window, budgets)",
                                 key);
    }
    ari_live_controls n = *c;
    double window = n.window;
    if (metric_member(obj, "top", ld, n.top, err) < 0 || metric_member(obj, "bottom", ld, n.bottom, err) < 0 ||
        metric_member(obj, "cluster_metric", ld, n.cluster_metric, err) < 0 ||
        int_member(obj, "k", 1, ARI_LIVE_MAX_K, &n.k, err) < 0 ||
        choice_member(obj, "cpd_target", "top", "bottom", &n.cpd_bottom, err) < 0 ||
        number_member(obj, "alpha", 0, 0.5, 1, &n.alpha, err) < 0 || causality_member(obj, ld, &n, err) < 0 ||
        level_member(obj, ld, n.granularity, err) < 0 ||
        number_member(obj, "window", 2, ARI_LIVE_MAX_WINDOW, 0, &window, err) < 0 || budgets_member(obj, &n, err) < 0)
        return -1;
    if (window != floor(window))
        return bad(err, "window", "a whole number in [2, 1000]");
    n.window = (int)window;
    n.version = c->version + 1;
    *c = n;
    return 0;
}

/* The first metric that is not an attribute, skipping `not` (may be NULL). */
static const char *first_metric(const ari_live_data *ld, const char *not)
{
    size_t n = ari_live_data_n_metrics(ld);
    for (size_t i = 0; i < n; i++) {
        const char *name = ari_live_data_metric_name(ld, i);
        if (!ari_live_data_metric_attribute(ld, i) && (!not || strcmp(name, not) != 0))
            return name;
    }
    return n ? ari_live_data_metric_name(ld, 0) : "";
}

void ari_live_controls_resolve(const ari_live_controls *c, const ari_live_data *ld, ari_live_controls *out)
{
    *out = *c;
    if (!out->top[0])
        snprintf(out->top, ARI_LIVE_NAME, "%s",
                 ari_live_data_metric_find(ld, "RbTotal") >= 0 ? "RbTotal" : first_metric(ld, NULL));
    if (!out->bottom[0])
        snprintf(out->bottom, ARI_LIVE_NAME, "%s",
                 ari_live_data_metric_find(ld, "NetworkSend") >= 0 ? "NetworkSend" : first_metric(ld, out->top));
    if (!out->cluster_metric[0])
        snprintf(out->cluster_metric, ARI_LIVE_NAME, "%s", out->top);
    if (!out->cause_target[0])
        snprintf(out->cause_target, ARI_LIVE_NAME, "%s", out->top);
    if (!out->granularity[0]) {
        const char *leaf = ari_live_data_leaf_level(ld);
        snprintf(out->granularity, ARI_LIVE_NAME, "%s", leaf ? leaf : "");
    }
}

json_t *ari_live_controls_json(const ari_live_controls *c)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:s, s:f, s:{s:s, s:s, s:f}, s:s, s:i, s:{s:f, s:f, s:f}, s:i}",
                     "top", c->top, "bottom", c->bottom, "cluster_metric", c->cluster_metric, "k", c->k,
                     "cpd_target", c->cpd_bottom ? "bottom" : "top", "alpha", c->alpha, "causality", "target",
                     c->cause_target, "direction", c->cause_to ? "to" : "from", "threshold", c->cause_threshold,
                     "granularity", c->granularity, "window", c->window, "budgets", "cluster_ms", c->cluster_ms,
                     "dr_ms", c->dr_ms, "var_ms", c->var_ms, "version", c->version);
}
