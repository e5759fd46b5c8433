/* live_comm.c: communication matrices of a live run by hierarchy level, as
 * means of group blocks, with drill-down (see live_comm.h). */
#include "analysis/live_comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/natural.h"

#define LCOMM_MAX_LABEL 1024

struct ari_lcomm_view {
    const ari_lcomm_tree *tree;
    int level;      /* of the rows */
    int32_t group;  /* drilled-into group or -1 */
    size_t m;       /* rows */
    int32_t *ids;   /* m */
    size_t *leaves; /* m */
    int *row_of;    /* n: row of each entity's ancestor in the view, or -1 */
    int *levels;    /* n */
};

int ari_lcomm_level(const ari_lcomm_tree *tree, int32_t e)
{
    if (!tree || e < 0 || (size_t)e >= tree->n)
        return -1;
    int depth = 0;
    int32_t cur = tree->parent[e];
    while (cur >= 0) {
        if ((size_t)cur >= tree->n || ++depth > ARI_LCOMM_MAX_DEPTH)
            return -1;
        cur = tree->parent[cur];
    }
    return depth;
}

/* levels[e] for every entity; -1 with err on a bad parent or a cycle. */
static int compute_levels(const ari_lcomm_tree *tree, int *levels, ari_error *err)
{
    for (size_t e = 0; e < tree->n; e++) {
        levels[e] = ari_lcomm_level(tree, (int32_t)e);
        if (levels[e] < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "entity %zu: bad parent, a parent cycle or deeper than %d levels", e,
                                 ARI_LCOMM_MAX_DEPTH);
    }
    return 0;
}

/* The rows: children of group (group >= 0) or every entity at level. */
/* Insertion sort of the rows by name (views are small: at most
 * ARI_LCOMM_MAX_ROWS rows, and usually already in order). */
static void sort_rows(ari_lcomm_view *v)
{
    const char *const *names = v->tree->names;
    for (size_t i = 1; i < v->m; i++) {
        int32_t id = v->ids[i];
        size_t j = i;
        while (j > 0 && ari_natural_cmp(names[v->ids[j - 1]] ? names[v->ids[j - 1]] : "", names[id] ? names[id] : "") > 0) {
            v->ids[j] = v->ids[j - 1];
            j--;
        }
        v->ids[j] = id;
    }
}

static int select_rows(ari_lcomm_view *v, int level, int32_t group, ari_error *err)
{
    const ari_lcomm_tree *t = v->tree;
    if (group >= 0) {
        if ((size_t)group >= t->n)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "group %d: no such entity", (int)group);
        if (v->levels[group] >= t->leaf_level)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "group %d is at the leaf level: nothing to drill into", (int)group);
        level = v->levels[group] + 1;
    } else if (level < 0 || level > t->leaf_level) {
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "level %d: outside 0..%d", level, t->leaf_level);
    }
    v->level = level;
    v->group = group >= 0 ? group : -1;
    size_t m = 0;
    for (size_t e = 0; e < t->n; e++)
        if (v->levels[e] == level && (group < 0 || t->parent[e] == group))
            m++;
    if (m == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no entity at level %d%s", level,
                             group >= 0 ? " in that group" : "");
    if (m > ARI_LCOMM_MAX_ROWS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%zu rows: more than %d (drill into a group)", m,
                             ARI_LCOMM_MAX_ROWS);
    v->ids = malloc(m * sizeof *v->ids);
    v->leaves = calloc(m, sizeof *v->leaves);
    if (!v->ids || !v->leaves)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    v->m = 0;
    for (size_t e = 0; e < t->n; e++)
        if (v->levels[e] == level && (group < 0 || t->parent[e] == group))
            v->ids[v->m++] = (int32_t)e;
    if (t->names)
        sort_rows(v);
    return 0;
}

/* row_of[e] = row of e's ancestor at the view's level (or -1); leaves[]. */
static void map_rows(ari_lcomm_view *v)
{
    const ari_lcomm_tree *t = v->tree;
    for (size_t e = 0; e < t->n; e++)
        v->row_of[e] = -1;
    for (size_t r = 0; r < v->m; r++)
        v->row_of[v->ids[r]] = (int)r;
    for (size_t e = 0; e < t->n; e++) {
        int32_t a = (int32_t)e;
        while (a >= 0 && v->levels[a] > v->level)
            a = t->parent[a];
        int row = a >= 0 && v->levels[a] == v->level ? v->row_of[a] : -1;
        v->row_of[e] = row;
        if (row >= 0 && v->levels[e] == t->leaf_level)
            v->leaves[row]++;
    }
}

ari_lcomm_view *ari_lcomm_view_new(const ari_lcomm_tree *tree, int level, int32_t group, ari_error *err)
{
    if (!tree || (tree->n > 0 && !tree->parent) || tree->n > (size_t)INT32_MAX || tree->leaf_level < 0) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "live_comm: bad hierarchy");
        return NULL;
    }
    ari_lcomm_view *v = ari_zalloc(sizeof *v, err);
    if (!v)
        return NULL;
    v->tree = tree;
    v->levels = malloc((tree->n ? tree->n : 1) * sizeof *v->levels);
    v->row_of = malloc((tree->n ? tree->n : 1) * sizeof *v->row_of);
    if (!v->levels || !v->row_of) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        ari_lcomm_view_free(v);
        return NULL;
    }
    if (compute_levels(tree, v->levels, err) < 0 || select_rows(v, level, group, err) < 0) {
        ari_lcomm_view_free(v);
        return NULL;
    }
    map_rows(v);
    return v;
}

size_t ari_lcomm_view_size(const ari_lcomm_view *v)
{
    return v->m;
}
const int32_t *ari_lcomm_view_ids(const ari_lcomm_view *v)
{
    return v->ids;
}
int ari_lcomm_view_level(const ari_lcomm_view *v)
{
    return v->level;
}
int32_t ari_lcomm_view_group(const ari_lcomm_view *v)
{
    return v->group;
}
const size_t *ari_lcomm_view_leaves(const ari_lcomm_view *v)
{
    return v->leaves;
}

int ari_lcomm_view_row(const ari_lcomm_view *v, int32_t e)
{
    if (e < 0 || (size_t)e >= v->tree->n)
        return -1;
    return v->row_of[e];
}

int ari_lcomm_view_matrix(const ari_lcomm_view *v, const ari_lcomm_triple *tr, size_t ntr, double *out,
                          ari_error *err)
{
    size_t m = v->m, n = v->tree->n;
    memset(out, 0, m * m * sizeof *out);
    for (size_t i = 0; i < ntr; i++) {
        int32_t s = tr[i].src, d = tr[i].dst;
        if (s < 0 || d < 0 || (size_t)s >= n || (size_t)d >= n || !isfinite(tr[i].count))
            return ari_error_set(err, ARI_E_INVALID_INPUT,
                                 "triple %zu: entity outside 0..%zu or count not finite", i, n);
        if (v->levels[s] != v->tree->leaf_level || v->levels[d] != v->tree->leaf_level)
            return ari_error_set(err, ARI_E_INVALID_INPUT,
                                 "triple %zu: entities %d, %d not at the leaf level %d", i, (int)s, (int)d,
                                 v->tree->leaf_level);
        int a = v->row_of[s], b = v->row_of[d];
        if (a >= 0 && b >= 0)
            out[(size_t)a * m + (size_t)b] += tr[i].count;
    }
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++) {
            double cells = (double)v->leaves[a] * (double)v->leaves[b];
            out[a * m + b] = cells > 0 ? out[a * m + b] / cells : 0.0;
        }
    return 0;
}

int ari_lcomm_view_diffs(const ari_lcomm_view *v, const double *base, const ari_lcomm_triple *const *cp_tr,
                         const size_t *cp_ntr, size_t ncp, double *out, ari_error *err)
{
    size_t mm = v->m * v->m;
    for (size_t c = 0; c < ncp; c++) {
        double *o = out + c * mm;
        if (ari_lcomm_view_matrix(v, cp_tr[c], cp_ntr[c], o, err) < 0)
            return -1;
        for (size_t i = 0; i < mm; i++)
            o[i] -= base[i];
    }
    return 0;
}

/* The most frequent label of row r (ties to the lowest), -1 if none. */
static int majority(const size_t *counts, int nlab)
{
    int best = -1;
    for (int l = 0; l < nlab; l++)
        if (counts[l] > 0 && (best < 0 || counts[l] > counts[best]))
            best = l;
    return best;
}

int ari_lcomm_view_labels(const ari_lcomm_view *v, const int *labels, int *out, ari_error *err)
{
    size_t n = v->tree->n, m = v->m;
    int nlab = 0;
    for (size_t e = 0; e < n; e++) {
        if (labels[e] >= LCOMM_MAX_LABEL)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "label %d: at most %d labels", labels[e],
                                 LCOMM_MAX_LABEL);
        if (labels[e] + 1 > nlab)
            nlab = labels[e] + 1;
    }
    size_t *counts = calloc(m * (size_t)(nlab ? nlab : 1), sizeof *counts);
    if (!counts)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t e = 0; e < n; e++) {
        int r = v->row_of[e];
        if (r >= 0 && labels[e] >= 0 && v->levels[e] > v->level)
            counts[(size_t)r * (size_t)nlab + (size_t)labels[e]]++;
    }
    for (size_t r = 0; r < m; r++) {
        int own = labels[v->ids[r]];
        out[r] = own >= 0 ? own : majority(counts + r * (size_t)nlab, nlab);
    }
    free(counts);
    return 0;
}

void ari_lcomm_view_free(ari_lcomm_view *v)
{
    if (!v)
        return;
    free(v->ids);
    free(v->leaves);
    free(v->row_of);
    free(v->levels);
    free(v);
}
