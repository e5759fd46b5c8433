/* task_filter_sql.c: binding a task filter to the parameters of
 * ARI_TASK_FILTER_WHERE (task_filter_sql.h): its lists as JSON arrays. */
#include "store/task_filter_sql.h"

#include <math.h>
#include <stdlib.h>

#include "util/sbuf.h"

/* A JSON array of a filter's list, n strings (names) or integers (nodes),
 * or NULL (no list) in *out; -1 on no memory. */
static int list_json(char *const *names, const int64_t *nodes, size_t n, char **out)
{
    *out = NULL;
    if (!names && !nodes)
        return 0;
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            ari_sbuf_add_char(&b, ',');
        if (names)
            ari_sbuf_json_string(&b, names[i]);
        else
            ari_sbuf_json_int(&b, nodes[i]);
    }
    ari_sbuf_add_char(&b, ']');
    if (ari_sbuf_failed(&b)) {
        ari_sbuf_free(&b);
        return -1;
    }
    *out = ari_sbuf_take(&b);
    return *out ? 0 : -1;
}

static ari_arg text_or_null(const char *s)
{
    return s ? ari_arg_text(s) : ari_arg_null();
}

static ari_arg real_or_null(double v)
{
    return isnan(v) ? ari_arg_null() : ari_arg_real(v);
}

#define FILTER_ARGS 7
#define MAX_EXTRA 8

ari_stmt *ari_task_filter_bound(ari_store *s, const char *sql, int64_t trace_id, const ari_task_filter *f,
                                const ari_arg *extra, int nextra, ari_error *err)
{
    if (nextra < 0 || nextra > MAX_EXTRA) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "task filter: %d extra parameters", nextra);
        return NULL;
    }
    char *types = NULL, *restypes = NULL, *nodes = NULL;
    if (f && (list_json(f->types, NULL, f->ntypes, &types) < 0 ||
              list_json(f->resources, NULL, f->nresources, &restypes) < 0 ||
              list_json(NULL, f->nodes, f->nnodes, &nodes) < 0)) {
        free(types), free(restypes), free(nodes);
        ari_error_set(err, ARI_E_NOMEM, "task filter: out of memory");
        return NULL;
    }
    ari_arg args[FILTER_ARGS + MAX_EXTRA] = {ari_arg_int(trace_id),
                                             text_or_null(types),
                                             text_or_null(restypes),
                                             text_or_null(nodes),
                                             real_or_null(f ? f->min_duration : NAN),
                                             real_or_null(f ? f->start : NAN),
                                             real_or_null(f ? f->end : NAN)};
    for (int i = 0; i < nextra; i++)
        args[FILTER_ARGS + i] = extra[i];
    ari_stmt *st = ari_store_bound(s, sql, args, FILTER_ARGS + nextra, err);
    free(types), free(restypes), free(nodes);
    return st;
}
