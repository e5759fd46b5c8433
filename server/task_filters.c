/* task_filters.c: the common filters of the task-trace analyses
 * (types, resources, nodes, start, end, min_duration), their check
 * against a trace and their canonical form, and the trace list of a
 * comparison (see task_filters.h). */
#include "task_filters.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"
#include "reply.h"
#include "util/sbuf.h"

/* ---- lists ---- */

static void free_strings(char **list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i]);
    free(list);
}

void ari_filter_free(ari_task_filter *f)
{
    free_strings(f->types, f->ntypes);
    free_strings(f->resources, f->nresources);
    free(f->nodes);
    memset(f, 0, sizeof *f);
    f->start = f->end = f->min_duration = NAN;
}

/* Splits "a,b,c" into trimmed, non-empty items. Returns the count, or -1
 * (with why set) when an item is empty or too long, or there are too many. */
static long split_list(const char *s, char ***out, const char **why)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *a = p, *b = p + len;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        *why = a == b ? "has an empty item" : (size_t)(b - a) > ARI_FILTER_MAX_ITEM_LEN ? "has a too long item"
               : n >= ARI_FILTER_MAX_ITEMS ? "has too many items" : NULL;
        if (!*why && n == cap) {
            cap = cap ? cap * 2 : 8;
            char **grown = realloc(*out, cap * sizeof *grown);
            if (!grown)
                *why = "is too large (out of memory)";
            else
                *out = grown;
        }
        if (!*why && !((*out)[n] = strndup(a, (size_t)(b - a))))
            *why = "is too large (out of memory)";
        if (*why) {
            free_strings(*out, n);
            *out = NULL;
            return -1;
        }
        n++;
        if (!p[len])
            break;
        p += len + 1;
    }
    return (long)n;
}

static int parse_strings(ari_request *r, const char *name, char ***list, size_t *n)
{
    const char *s = ari_param(r, name);
    if (!s)
        return 0;
    const char *why = NULL;
    long count = split_list(s, list, &why);
    if (count < 0) {
        char safe[ARI_PRINTABLE_SIZE];
        ari_reply_error(r, 400, "invalid_parameter", "%s %s (a comma-separated list is expected), got '%s'",
                        name, why, ari_printable(s, safe));
        return -1;
    }
    *n = (size_t)count;
    return 0;
}

static int parse_nodes(ari_request *r, ari_task_filter *f)
{
    char **items = NULL;
    size_t n = 0;
    if (parse_strings(r, "nodes", &items, &n) < 0)
        return -1;
    if (!items)
        return 0;
    f->nodes = malloc(n * sizeof *f->nodes);
    int rc = f->nodes ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *end;
        errno = 0;
        long long v = strtoll(items[i], &end, 10);
        if (errno || *end || end == items[i] || v < 0 || v > INT32_MAX ||
            strspn(items[i], "0123456789") != strlen(items[i])) {
            char safe[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, "invalid_parameter",
                            "nodes must list node numbers (integers >= 0), got '%s'", ari_printable(items[i], safe));
            rc = -2;
        }
        f->nodes[i] = v;
    }
    free_strings(items, n);
    if (rc == -1)
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    if (rc < 0)
        return -1;
    f->nnodes = n;
    return 0;
}

int ari_filter_parse(ari_request *r, ari_task_filter *f)
{
    memset(f, 0, sizeof *f);
    f->start = f->end = f->min_duration = NAN;
    if (parse_strings(r, "types", &f->types, &f->ntypes) < 0 ||
        parse_strings(r, "resources", &f->resources, &f->nresources) < 0 || parse_nodes(r, f) < 0 ||
        ari_param_number(r, "start", NAN, -DBL_MAX, DBL_MAX, &f->start) < 0 ||
        ari_param_number(r, "end", NAN, -DBL_MAX, DBL_MAX, &f->end) < 0 ||
        ari_param_number(r, "min_duration", NAN, 0, DBL_MAX, &f->min_duration) < 0) {
        ari_filter_free(f);
        return -1;
    }
    if (!isnan(f->start) && !isnan(f->end) && !(f->start < f->end)) {
        ari_reply_error(r, 400, "invalid_parameter", "start (%g) must be less than end (%g)", f->start, f->end);
        ari_filter_free(f);
        return -1;
    }
    return 0;
}

/* ---- checking names against the traces ---- */

/* How many known values an "unknown value" message lists. */
#define KNOWN_SHOWN 8

/* Appends "; known: a, b, c and N more" to b: the distinct values of
 * every trace (names, or nums when names is NULL), the first KNOWN_SHOWN. */
static void add_known(ari_sbuf *b, char *const *const *names, const int64_t *const *nums,
                      const int *counts, int n)
{
    int shown = 0, total = 0;
    ari_sbuf_add_str(b, "; known: ");
    for (int m = 0; m < n; m++) {
        for (int i = 0; i < counts[m]; i++) {
            int seen = 0; /* listed by an earlier trace? */
            for (int p = 0; p < m && !seen; p++)
                for (int k = 0; k < counts[p] && !seen; k++)
                    seen = names ? strcmp(names[p][k], names[m][i]) == 0 : nums[p][k] == nums[m][i];
            if (seen)
                continue;
            if (total++ >= KNOWN_SHOWN)
                continue;
            ari_sbuf_add_str(b, shown++ ? ", " : "");
            if (names)
                ari_sbuf_add_str(b, names[m][i]);
            else
                ari_sbuf_printf(b, "%lld", (long long)nums[m][i]);
        }
    }
    if (total == 0)
        ari_sbuf_add_str(b, "none (the trace has no such values)");
    else if (total > shown)
        ari_sbuf_printf(b, " and %d more", total - shown);
}

/* The known name that differs from name only in case, or NULL. */
static const char *case_match(char *const *const *names, const int *counts, int n, const char *name)
{
    for (int m = 0; m < n; m++)
        for (int i = 0; i < counts[m]; i++)
            if (strcasecmp(names[m][i], name) == 0)
                return names[m][i];
    return NULL;
}

static int has_name(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* Answers 400 "PARAM has an unknown WHAT 'VALUE' (did you mean 'X'?);
 * known: ...". */
static int reply_unknown(ari_request *r, const char *param, const char *what, const char *value,
                         char *const *const *names, const int64_t *const *nums, const int *counts, int n)
{
    ari_sbuf b = {0};
    char safe[ARI_PRINTABLE_SIZE];
    const char *quote = names ? "'" : "";
    ari_sbuf_printf(&b, "%s has an unknown %s %s%s%s", param, what, quote, ari_printable(value, safe), quote);
    const char *near = names ? case_match(names, counts, n, value) : NULL;
    if (near)
        ari_sbuf_printf(&b, " (did you mean '%s'?)", ari_printable(near, safe));
    add_known(&b, names, nums, counts, n);
    if (ari_sbuf_failed(&b))
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    else
        ari_reply_error(r, 400, "invalid_parameter", "%s", ari_sbuf_text(&b));
    ari_sbuf_free(&b);
    return -1;
}

static int check_names(ari_request *r, const char *param, const char *what, char *const *items,
                       size_t nitems, ari_tq_meta *const *metas, int n, int restypes)
{
    char *const *names[ARI_COMPARE_MAX_METAS];
    int counts[ARI_COMPARE_MAX_METAS];
    if (n > ARI_COMPARE_MAX_METAS)
        n = ARI_COMPARE_MAX_METAS;
    for (int m = 0; m < n; m++) {
        names[m] = restypes ? metas[m]->restypes : metas[m]->types;
        counts[m] = restypes ? metas[m]->nrestypes : metas[m]->ntypes;
    }
    for (size_t i = 0; i < nitems; i++) {
        int found = 0;
        for (int m = 0; m < n && !found; m++)
            found = has_name(names[m], counts[m], items[i]);
        if (!found)
            return reply_unknown(r, param, what, items[i], names, NULL, counts, n);
    }
    return 0;
}

static int check_nodes(ari_request *r, const ari_task_filter *f, ari_tq_meta *const *metas, int n)
{
    const int64_t *nums[ARI_COMPARE_MAX_METAS];
    int counts[ARI_COMPARE_MAX_METAS];
    if (n > ARI_COMPARE_MAX_METAS)
        n = ARI_COMPARE_MAX_METAS;
    for (int m = 0; m < n; m++) {
        nums[m] = metas[m]->nodes;
        counts[m] = metas[m]->nnodes;
    }
    for (size_t i = 0; i < f->nnodes; i++) {
        int found = 0;
        for (int m = 0; m < n && !found; m++)
            for (int k = 0; k < counts[m] && !found; k++)
                found = nums[m][k] == f->nodes[i];
        if (!found) {
            char value[32];
            snprintf(value, sizeof value, "%lld", (long long)f->nodes[i]);
            return reply_unknown(r, "nodes", "node", value, NULL, nums, counts, n);
        }
    }
    return 0;
}

int ari_filter_check(ari_request *r, const ari_task_filter *f, ari_tq_meta *const *metas, int n)
{
    if (check_names(r, "types", "task type", f->types, f->ntypes, metas, n, 0) < 0 ||
        check_names(r, "resources", "resource type", f->resources, f->nresources, metas, n, 1) < 0 ||
        check_nodes(r, f, metas, n) < 0)
        return -1;
    return 0;
}

int ari_filter_check_type(ari_request *r, const char *param, const char *name, ari_tq_meta *const *metas,
                          int n)
{
    char *items[1] = {(char *)name};
    return check_names(r, param, "task type", items, 1, metas, n, 0);
}

/* ---- canonical form ---- */

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A growing string; on allocation failure it becomes NULL and stays so. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *text)
{
    if (!b->s && b->cap)
        return;
    size_t n = strlen(text);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, text, n + 1);
    b->len += n;
}

static void sb_strings(sbuf *b, const char *key, char *const *items, size_t n)
{
    if (!items)
        return;
    char **sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted) {
        free(b->s);
        b->s = NULL;
        b->cap = 1;
        return;
    }
    memcpy(sorted, items, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_cstr);
    sb_add(b, b->len ? ";" : "");
    sb_add(b, key);
    sb_add(b, "=");
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
            continue;
        sb_add(b, i ? "," : "");
        sb_add(b, sorted[i]);
    }
    free(sorted);
}

static void sb_number(sbuf *b, const char *key, double v)
{
    if (isnan(v))
        return;
    char num[64];
    snprintf(num, sizeof num, "%.17g", v == 0 ? 0.0 : v); /* -0 is 0 */
    sb_add(b, b->len ? ";" : "");
    sb_add(b, key);
    sb_add(b, "=");
    sb_add(b, num);
}

char *ari_filter_canonical(const ari_task_filter *f, int with_window)
{
    sbuf b = {0};
    sb_strings(&b, "types", f->types, f->ntypes);
    sb_strings(&b, "resources", f->resources, f->nresources);
    if (f->nodes) {
        int64_t *sorted = malloc((f->nnodes + 1) * sizeof *sorted);
        if (!sorted) {
            free(b.s);
            return NULL;
        }
        memcpy(sorted, f->nodes, f->nnodes * sizeof *sorted);
        qsort(sorted, f->nnodes, sizeof *sorted, cmp_int64);
        sb_add(&b, b.len ? ";nodes=" : "nodes=");
        for (size_t i = 0; i < f->nnodes; i++) {
            if (i > 0 && sorted[i] == sorted[i - 1])
                continue;
            char num[32];
            snprintf(num, sizeof num, "%s%lld", i ? "," : "", (long long)sorted[i]);
            sb_add(&b, num);
        }
        free(sorted);
    }
    if (with_window) {
        sb_number(&b, "start", f->start);
        sb_number(&b, "end", f->end);
    }
    sb_number(&b, "min_duration", f->min_duration);
    sb_add(&b, "");
    return b.s;
}

int ari_filter_has_window(const ari_task_filter *f)
{
    return !isnan(f->start) || !isnan(f->end);
}

ari_task_filter ari_filter_without_window(const ari_task_filter *f)
{
    ari_task_filter g = *f;
    g.start = g.end = NAN;
    return g;
}

/* ---- lists of trace ids ---- */

int ari_param_trace_ids(ari_request *r, int min, int max, int64_t *ids, int *n)
{
    const char *s = ari_param(r, "traces");
    *n = 0;
    if (!s) {
        ari_reply_error(r, 400, "invalid_parameter", "traces is required: %d to %d trace ids, e.g. traces=1,2",
                        min, max);
        return -1;
    }
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        char item[32];
        char *end = NULL;
        long long v = 0;
        if (len > 0 && len < sizeof item) {
            memcpy(item, p, len);
            item[len] = '\0';
            errno = 0;
            v = strtoll(item, &end, 10);
        }
        if (!end || *end || errno || v <= 0 || strspn(item, "0123456789") != len || *n == max) {
            char safe[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, "invalid_parameter",
                            "traces must list %d to %d trace ids (positive integers), got '%s'", min,
                            max, ari_printable(s, safe));
            return -1;
        }
        for (int i = 0; i < *n; i++) {
            if (ids[i] == v) {
                ari_reply_error(r, 400, "invalid_parameter", "trace %lld is listed twice", v);
                return -1;
            }
        }
        ids[(*n)++] = v;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (*n < min) {
        ari_reply_error(r, 400, "invalid_parameter", "traces must list %d to %d trace ids, got %d", min,
                        max, *n);
        return -1;
    }
    return 0;
}
