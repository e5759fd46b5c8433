/* profile_tree_text.c: Hatchet's text tree of one metric on one process
 * (see profile_tree_text.h). Nodes come depth first, so a node's
 * ancestors are the path of "last child" flags on a stack indexed by
 * depth. */
#include "profile_tree_text.h"

#include <math.h>
#include <stdlib.h>

#include "util/sbuf.h"

/* last_child[i]: the last child of node i, or -1. */
static int64_t *last_children(const ari_profile_tree_rows *t)
{
    int64_t n = t->n;
    int64_t *last = malloc((n ? (size_t)n : 1) * sizeof *last);
    for (int64_t i = 0; last && i < n; i++) {
        int64_t p = t->nodes[i].parent;
        last[i] = -1;
        if (p >= 0 && p < i)
            last[p] = i;
    }
    return last;
}

/* The indent of node i: the ancestors' continuation bars, then its own. */
static void add_indent(ari_sbuf *out, const ari_profile_tree_rows *t, const int64_t *last_child, char *last_at,
                       int64_t i)
{
    int64_t n = t->n, p = t->nodes[i].parent;
    int d = t->nodes[i].depth >= 0 && t->nodes[i].depth < n ? t->nodes[i].depth : 0;
    last_at[d] = p < 0 || last_child[p] == i;
    for (int a = 1; a < d; a++)
        ari_sbuf_add_str(out, last_at[a] ? "   " : "\xe2\x94\x82  ");
    if (d > 0)
        ari_sbuf_add_str(out, last_at[d] ? "\xe2\x94\x94\xe2\x94\x80 " : "\xe2\x94\x9c\xe2\x94\x80 ");
}

int ari_profile_tree_text(const ari_profile_tree_rows *t, int precision, char **text_out, ari_error *err)
{
    *text_out = NULL;
    if (precision < 0 || precision > 17)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "precision must be in 0..17");
    int64_t *last_child = last_children(t);
    char *last_at = malloc((t->n ? (size_t)t->n : 1) + 1);
    if (!last_child || !last_at) {
        free(last_child);
        free(last_at);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_sbuf out = {0};
    int rc = 0;
    for (int64_t i = 0; i < t->n && rc == 0; i++) {
        const ari_profile_node_row *r = &t->nodes[i];
        add_indent(&out, t, last_child, last_at, i);
        if (r->name)
            ari_sbuf_printf(&out, "%.*f %s%s%s", precision, t->value[i], r->name, t->has_files ? " " : "",
                            t->has_files ? r->file : "");
        ari_sbuf_add_char(&out, '\n');
        if (out.len > ((size_t)1 << 28))
            rc = ari_error_set(err, ARI_E_TOO_LARGE, "the tree text would exceed 256 MiB: ask for a subtree");
    }
    free(last_child);
    free(last_at);
    char *text = ari_sbuf_take(&out);
    if (rc == 0 && !text)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc != 0) {
        free(text);
        return rc;
    }
    *text_out = text;
    return 0;
}
