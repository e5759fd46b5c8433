/* supergraph.c: building CallFlow's super graph from a CCT (see
 * supergraph.h): group keys, supernode instances along each call path,
 * splits, cycle breaking by duplication, then the per-process metrics,
 * entry functions, callers, levels and the collapsed views.
 *
 * The structure (which CCT node goes to which supernode) is decided first
 * on collapsed scalars; the per-process sums are made once at the end, so
 * the cost is one pass over the metric arrays. */
#include "analysis/supergraph.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/compare.h"
#include "util/free_all.h"
#include "util/log.h"
#include "util/strmap.h"
#include "util/vec.h"

#define MAX_CYCLE_PASSES 64

/* ---- names ------------------------------------------------------------------------ */

static int parse_choice(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++) {
        if (strcmp(s, names[i]) == 0)
            return i;
    }
    return -1;
}

int ari_group_by_parse(const char *s, ari_group_by *out)
{
    static const char *const names[] = {"module", "name", "file", "map"};
    int i = parse_choice(s, names, 4);
    if (i < 0)
        return -1;
    *out = (ari_group_by)i;
    return 0;
}

int ari_split_by_parse(const char *s, ari_split_by *out)
{
    static const char *const names[] = {"entry", "caller", "callsite"};
    int i = parse_choice(s, names, 3);
    if (i < 0)
        return -1;
    *out = (ari_split_by)i;
    return 0;
}

const char *ari_sg_kind_name(ari_sg_kind k)
{
    switch (k) {
    case ARI_SG_SPLIT:
        return "split";
    case ARI_SG_DUPLICATE:
        return "duplicate";
    default:
        return "supernode";
    }
}

/* ---- module maps ------------------------------------------------------------------ */

struct ari_module_map {
    int n;
    size_t cap_module, cap_re;
    char **module;
    regex_t *re;
};

ari_module_map *ari_module_map_new(void)
{
    return calloc(1, sizeof(ari_module_map));
}

int ari_module_map_add(ari_module_map *m, const char *module, const char *regex, ari_error *err)
{
    if (!module || !*module)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "module map: empty module name");
    size_t need = (size_t)m->n + 1;
    if (ari_vec_reserve((void **)&m->module, &m->cap_module, need, sizeof *m->module) < 0 ||
        ari_vec_reserve((void **)&m->re, &m->cap_re, need, sizeof *m->re) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = regcomp(&m->re[m->n], regex ? regex : "", REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &m->re[m->n], why, sizeof why);
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "module map: bad regular expression '%.100s' for %.64s: %s",
                             regex ? regex : "", module, why);
    }
    m->module[m->n] = strdup(module);
    if (!m->module[m->n]) {
        regfree(&m->re[m->n]);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    m->n++;
    return 0;
}

int ari_module_map_count(const ari_module_map *m)
{
    return m ? m->n : 0;
}

const char *ari_module_map_match(const ari_module_map *m, const char *name)
{
    for (int i = 0; m && i < m->n; i++) {
        if (regexec(&m->re[i], name ? name : "", 0, NULL, 0) == 0)
            return m->module[i];
    }
    return NULL;
}

void ari_module_map_free(ari_module_map *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++) {
        free(m->module[i]);
        regfree(&m->re[i]);
    }
    void *owned[] = {m->module, m->re, m};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* ---- the builder ------------------------------------------------------------------ */

typedef struct sg_group {
    char *id;
    char *label;
    int64_t key;        /* group key (index into keys) */
    ari_sg_kind kind;
    char *stem;         /* what duplicates are numbered after */
} sg_group;

typedef struct builder {
    const ari_cct *c;
    const ari_cct_times *t;
    const unsigned char *keep;
    const ari_sg_params *p;
    ari_error *err;
    int64_t n;
    int np;
    int64_t *key;          /* [n] group key of each CCT node */
    char **keys;           /* [nkeys] */
    int64_t nkeys;
    int64_t *name_id;      /* [n] interned function name */
    const char **names;    /* [nnames] borrowed from the CCT */
    int64_t nnames;
    double *vinc, *vexc;   /* [n] collapsed over all processes */
    int64_t *group;        /* [n] current supernode, -1 filtered */
    sg_group *groups;
    int64_t ngroups;
    size_t cap;
    ari_strmap *ids;       /* id -> group + 1 */
    ari_strmap *stems;     /* stem -> next duplicate number */
    unsigned char *mark;   /* [n] scratch */
    int duplicates;
    int64_t *dropped;      /* pairs (u, v) removed as a last resort */
    int64_t ndropped;
} builder;

static int oom(builder *b)
{
    return ari_error_set(b->err, ARI_E_NOMEM, "out of memory building the super graph");
}

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash && slash[1] ? slash + 1 : s;
}

/* Adds a supernode; returns its index or -1. Takes ownership of id and
 * label; an id already taken gets a "~n" suffix (only for odd names). */
static int64_t add_group(builder *b, char *id, char *label, int64_t key, ari_sg_kind kind,
                         const char *stem)
{
    if (!id || !label)
        goto fail;
    for (int dup = 2; ari_strmap_get(b->ids, id, strlen(id)); dup++) {
        char *alt;
        if (asprintf(&alt, "%s~%d", id, dup) < 0)
            goto fail;
        free(id);
        id = alt;
    }
    if (ari_vec_reserve((void **)&b->groups, &b->cap, (size_t)b->ngroups + 1, sizeof *b->groups) < 0)
        goto fail;
    sg_group *g = &b->groups[b->ngroups];
    g->stem = strdup(stem ? stem : id);
    if (!g->stem || !ari_strmap_put(b->ids, id, strlen(id), (void *)(intptr_t)(b->ngroups + 1))) {
        free(g->stem);
        goto fail;
    }
    g->id = id;
    g->label = label;
    g->key = key;
    g->kind = kind;
    return b->ngroups++;
fail:
    free(id);
    free(label);
    oom(b);
    return -1;
}

/* Next duplicate number of a stem (1, 2, ...; base instances use 0..). */
static int next_instance(builder *b, const char *stem, int at_least)
{
    size_t len = strlen(stem);
    int k = (int)(intptr_t)ari_strmap_get(b->stems, stem, len);
    if (k < at_least)
        k = at_least;
    if (!ari_strmap_put(b->stems, stem, len, (void *)(intptr_t)(k + 1)))
        return -1;
    return k;
}

/* The load module of node i: its own, else its nearest ancestor's (loops
 * and statements, which HPCToolkit gives no module, belong to their
 * procedure's), else NULL. mod[] holds the answers of earlier nodes. */
static const char *effective_module(const ari_cct *c, int64_t i, const char **mod)
{
    const char *m = c->module && c->module[i] ? c->module[i] : "";
    if (*m)
        return m;
    return c->parent[i] >= 0 ? mod[c->parent[i]] : NULL;
}

static const char *node_key_string(builder *b, int64_t i, const char *module)
{
    const ari_cct *c = b->c;
    const char *name = c->name[i] ? c->name[i] : "";
    const char *file = c->file && c->file[i] ? c->file[i] : "";
    switch (b->p->group_by) {
    case ARI_GROUP_NAME:
        return name;
    case ARI_GROUP_FILE:
        return *file ? file : name;
    case ARI_GROUP_MAP: {
        const char *m = ari_module_map_match(b->p->map, name);
        return m ? m : module ? module : name;
    }
    case ARI_GROUP_MODULE:
    default:
        return module ? module : name;
    }
}

static int assign_keys(builder *b)
{
    size_t n = (size_t)(b->n ? b->n : 1);
    const char **s = malloc(n * sizeof *s);
    const char **mod = malloc(n * sizeof *mod);
    if (!s || !mod) {
        free(s);
        free(mod);
        return oom(b);
    }
    for (int64_t i = 0; i < b->n; i++) {
        mod[i] = effective_module(b->c, i, mod);
        s[i] = node_key_string(b, i, mod[i]);
    }
    free(mod);
    int rc = ari_intern_strings(s, b->n, b->key, &b->nkeys);
    if (rc == 0)
        b->keys = calloc((size_t)b->nkeys + 1, sizeof *b->keys);
    for (int64_t i = 0; rc == 0 && b->keys && i < b->n; i++) {
        if (!b->keys[b->key[i]] && !(b->keys[b->key[i]] = strdup(s[i])))
            rc = -1;
    }
    free(s);
    return rc == 0 && b->keys ? 0 : oom(b);
}

static int assign_names(builder *b)
{
    if (ari_intern_strings(b->c->name, b->n, b->name_id, &b->nnames) < 0 ||
        !(b->names = calloc((size_t)b->nnames + 1, sizeof *b->names)))
        return oom(b);
    for (int64_t i = 0; i < b->n; i++) {
        if (!b->names[b->name_id[i]])
            b->names[b->name_id[i]] = b->c->name[i] ? b->c->name[i] : "";
    }
    return 0;
}

static char *group_label(builder *b, int64_t key)
{
    const char *k = b->keys[key];
    int path_like = b->p->group_by == ARI_GROUP_MODULE || b->p->group_by == ARI_GROUP_FILE;
    return strdup(path_like ? base_name(k) : k);
}

/* The base instance (key, k) of spec 2.4 step 1, created on first use. */
static int64_t base_instance(builder *b, ari_strmap *inst, int64_t key, int k)
{
    int64_t pair[2] = {key, k};
    void *v = ari_strmap_get(inst, (const char *)pair, sizeof pair);
    if (v)
        return (int64_t)(intptr_t)v - 1;
    char *id;
    if (asprintf(&id, "%s#%d", b->keys[key], k) < 0)
        return oom(b);
    if (next_instance(b, b->keys[key], k) < 0)
        return oom(b);
    int64_t g = add_group(b, id, group_label(b, key), key, k ? ARI_SG_DUPLICATE : ARI_SG_SUPERNODE,
                          b->keys[key]);
    if (g >= 0 && !ari_strmap_put(inst, (const char *)pair, sizeof pair, (void *)(intptr_t)(g + 1)))
        return oom(b);
    return g;
}

/* Every kept node joins its parent's supernode when they share a key; an
 * entry node gets instance k = the number of earlier runs of its key on
 * its call path, so no single path goes through a supernode twice. */
static int assign_instances(builder *b)
{
    const int64_t *parent = b->c->parent;
    int64_t *entry = malloc((size_t)(b->n ? b->n : 1) * sizeof *entry);
    ari_strmap *inst = ari_strmap_new();
    int rc = -1;
    if (!entry || !inst) {
        oom(b);
        goto done;
    }
    for (int64_t i = 0; i < b->n; i++) {
        int64_t p = parent[i];
        b->group[i] = entry[i] = -1;
        if (b->keep && !b->keep[i])
            continue;
        if (p >= 0 && b->group[p] < 0) {
            ari_error_set(b->err, ARI_E_INVALID_PARAMETER,
                          "super graph: node %lld is kept but its parent is filtered", (long long)i);
            goto done;
        }
        if (p >= 0 && b->key[p] == b->key[i]) {
            b->group[i] = b->group[p];
            entry[i] = entry[p];
            continue;
        }
        int k = 0;
        for (int64_t e = p >= 0 ? entry[p] : -1; e >= 0; e = parent[e] >= 0 ? entry[parent[e]] : -1)
            k += b->key[e] == b->key[i];
        if ((b->group[i] = base_instance(b, inst, b->key[i], k)) < 0)
            goto done;
        entry[i] = i;
    }
    rc = 0;
done:
    free(entry);
    ari_strmap_free(inst);
    return rc;
}

/* ---- splits ----------------------------------------------------------------------- */

/* The supernode a member of the split group goes to. */
static int64_t split_target(builder *b, ari_strmap *sub, int64_t g, ari_split_by by, int64_t i)
{
    int64_t p = b->c->parent[i];
    const char *sep = by == ARI_SPLIT_CALLSITE ? "=" : "-";
    const char *part, *label_part;
    if (by == ARI_SPLIT_CALLER) {
        part = b->groups[b->group[p]].id;
        label_part = b->groups[b->group[p]].label;
    } else {
        part = label_part = b->names[b->name_id[i]];
    }
    void *v = ari_strmap_get(sub, part, strlen(part));
    if (v)
        return (int64_t)(intptr_t)v - 1;
    char *id = NULL, *label = NULL;
    if (asprintf(&id, "%s%s%s", b->groups[g].id, sep, part) < 0)
        id = NULL;
    if (by == ARI_SPLIT_CALLSITE)
        label = strdup(label_part);
    else if (asprintf(&label, "%s-%s", b->groups[g].label, label_part) < 0)
        label = NULL;
    int64_t key = b->groups[g].key;
    int64_t ng = add_group(b, id, label, key, ARI_SG_SPLIT, NULL);
    if (ng >= 0) {
        /* the stem is the split id itself: its duplicates are id#1, id#2 */
        if (next_instance(b, b->groups[ng].stem, 0) < 0 ||
            !ari_strmap_put(sub, part, strlen(part), (void *)(intptr_t)(ng + 1)))
            return oom(b);
    }
    return ng;
}

static int apply_split(builder *b, const ari_sg_split *s)
{
    const char *want = s->id ? s->id : "";
    void *v = ari_strmap_get(b->ids, want, strlen(want));
    if (!v)
        return ari_error_set(b->err, ARI_E_INVALID_PARAMETER,
                             "split: no supernode '%.200s' in this super graph", want);
    int64_t g = (int64_t)(intptr_t)v - 1;
    const int64_t *parent = b->c->parent;
    for (int64_t i = 0; i < b->n; i++)
        b->mark[i] = b->group[i] == g;
    ari_strmap *sub = ari_strmap_new();
    if (!sub)
        return oom(b);
    int rc = 0;
    for (int64_t i = 0; i < b->n && rc == 0; i++) {
        if (!b->mark[i])
            continue;
        int64_t p = parent[i];
        int inside = p >= 0 && b->mark[p];
        if (s->by != ARI_SPLIT_CALLSITE && inside) {
            b->group[i] = b->group[p]; /* the component follows its entry node */
        } else if (s->by == ARI_SPLIT_CALLER && p < 0) {
            continue; /* a root entry has no caller: it stays in the residual */
        } else {
            int64_t ng = split_target(b, sub, g, s->by, i);
            if (ng < 0)
                rc = -1;
            else
                b->group[i] = ng;
        }
    }
    ari_strmap_free(sub);
    return rc;
}

/* ---- edges and cycles ------------------------------------------------------------- */

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int is_entry(const builder *b, int64_t i)
{
    int64_t p = b->c->parent[i];
    return b->group[i] >= 0 && (p < 0 || b->group[p] != b->group[i]);
}

/* The distinct (source, target) pairs of the current assignment, sorted. */
static int64_t *collect_edges(builder *b, int64_t *nout)
{
    int64_t cnt = 0;
    for (int64_t i = 0; i < b->n; i++)
        cnt += is_entry(b, i) && b->c->parent[i] >= 0;
    int64_t *pairs = malloc((size_t)(cnt ? cnt : 1) * 2 * sizeof *pairs);
    if (!pairs) {
        oom(b);
        return NULL;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < b->n; i++) {
        if (is_entry(b, i) && b->c->parent[i] >= 0) {
            pairs[2 * k] = b->group[b->c->parent[i]];
            pairs[2 * k + 1] = b->group[i];
            k++;
        }
    }
    qsort(pairs, (size_t)k, 2 * sizeof *pairs, cmp_pair);
    int64_t u = 0;
    for (int64_t j = 0; j < k; j++) {
        if (u > 0 && pairs[2 * (u - 1)] == pairs[2 * j] && pairs[2 * (u - 1) + 1] == pairs[2 * j + 1])
            continue;
        pairs[2 * u] = pairs[2 * j];
        pairs[2 * u + 1] = pairs[2 * j + 1];
        u++;
    }
    *nout = u;
    return pairs;
}

/* qsort_r comparator: indices by decreasing weight[index]. */
static int cmp_by_weight_desc(const void *a, const void *b, void *weights)
{
    const double *w = weights;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    double wx = w[x], wy = w[y];
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Back edges of a DFS from the roots (children by decreasing inclusive
 * value) into back[] as pairs; returns how many, or -1. */
static int64_t find_back_edges(builder *b, const int64_t *pairs, int64_t npairs, int64_t **back_out)
{
    int64_t ng = b->ngroups;
    double *ginc = calloc((size_t)ng + 1, sizeof *ginc);
    unsigned char *is_root = calloc((size_t)ng + 1, 1);
    int64_t *start = calloc((size_t)ng + 2, sizeof *start);
    int64_t *adj = malloc((size_t)(npairs ? npairs : 1) * sizeof *adj);
    int64_t *order = malloc((size_t)(ng ? ng : 1) * sizeof *order);
    unsigned char *color = calloc((size_t)ng + 1, 1);
    int64_t *stack = malloc((size_t)(ng ? ng : 1) * sizeof *stack);
    int64_t *pos = calloc((size_t)ng + 1, sizeof *pos);
    int64_t *back = malloc((size_t)(npairs ? npairs : 1) * 2 * sizeof *back);
    int64_t nback = -1;
    if (!ginc || !is_root || !start || !adj || !order || !color || !stack || !pos || !back) {
        oom(b);
        goto done;
    }
    for (int64_t i = 0; i < b->n; i++) {
        if (is_entry(b, i)) {
            ginc[b->group[i]] += b->vinc[i];
            if (b->c->parent[i] < 0)
                is_root[b->group[i]] = 1;
        }
    }
    for (int64_t j = 0; j < npairs; j++)
        start[pairs[2 * j] + 1]++;
    for (int64_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    for (int64_t j = 0; j < npairs; j++)
        adj[j] = pairs[2 * j + 1]; /* pairs are sorted by source */
    for (int64_t g = 0; g < ng; g++)
        qsort_r(adj + start[g], (size_t)(start[g + 1] - start[g]), sizeof *adj, cmp_by_weight_desc, ginc);
    for (int64_t g = 0; g < ng; g++)
        order[g] = g;
    qsort_r(order, (size_t)ng, sizeof *order, cmp_by_weight_desc, ginc);
    nback = 0;
    for (int64_t oi = 0; oi < ng; oi++) {
        int64_t r = order[oi];
        if (!is_root[r] || color[r])
            continue;
        int64_t sp = 0;
        stack[sp++] = r;
        color[r] = 1;
        pos[r] = start[r];
        while (sp > 0) {
            int64_t u = stack[sp - 1];
            if (pos[u] == start[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            int64_t v = adj[pos[u]++];
            if (color[v] == 1) {
                back[2 * nback] = u;
                back[2 * nback + 1] = v;
                nback++;
            } else if (color[v] == 0) {
                color[v] = 1;
                pos[v] = start[v];
                stack[sp++] = v;
            }
        }
    }
    *back_out = back;
    back = NULL;
done:
    free(ginc);
    free(is_root);
    free(start);
    free(adj);
    free(order);
    free(color);
    free(stack);
    free(pos);
    free(back);
    return nback;
}

/* A fresh duplicate of v (same label and key, the next instance number). */
static int64_t new_duplicate(builder *b, int64_t v)
{
    const sg_group *src = &b->groups[v];
    int k = next_instance(b, src->stem, 1);
    char *id = NULL;
    if (k < 0 || asprintf(&id, "%s#%d", src->stem, k) < 0)
        return oom(b);
    char *stem = strdup(src->stem);
    if (!stem) {
        free(id);
        return oom(b);
    }
    int64_t nv = add_group(b, id, strdup(src->label), src->key, ARI_SG_DUPLICATE, stem);
    free(stem);
    if (nv >= 0)
        b->duplicates++;
    return nv;
}

static int64_t find_pair(const int64_t *pairs, int64_t n, int64_t u, int64_t v);

/* For every back edge u -> v (sorted pairs), moves the components of v
 * entered from u (entry nodes with parent in u, and their descendants
 * inside v) to a fresh duplicate of v. One pass in node order: parents come
 * first, so a component follows its entry node. */
static int duplicate_for_edges(builder *b, const int64_t *back, int64_t nback)
{
    int64_t *fresh = malloc((size_t)nback * sizeof *fresh);
    int64_t *was = malloc((size_t)(b->n ? b->n : 1) * sizeof *was); /* group before the move, or -1 */
    if (!fresh || !was) {
        free(fresh);
        free(was);
        return oom(b);
    }
    int rc = 0;
    for (int64_t j = 0; j < nback && rc == 0; j++) {
        if ((fresh[j] = new_duplicate(b, back[2 * j + 1])) < 0)
            rc = -1;
    }
    for (int64_t i = 0; i < b->n && rc == 0; i++) {
        int64_t p = b->c->parent[i], gi = b->group[i];
        was[i] = -1;
        if (gi < 0 || p < 0)
            continue;
        if (was[p] == gi) { /* inside a moved component */
            b->group[i] = b->group[p];
            was[i] = gi;
            continue;
        }
        int64_t j = b->group[p] != gi ? find_pair(back, nback, b->group[p], gi) : -1;
        if (j >= 0) {
            b->group[i] = fresh[j];
            was[i] = gi;
        }
    }
    free(fresh);
    free(was);
    return rc;
}

/* Spec 2.4 steps 2-5: duplicate until no DFS finds a back edge; after
 * MAX_CYCLE_PASSES, the remaining back edges are dropped (and logged). */
static int break_cycles(builder *b)
{
    for (int pass = 0;; pass++) {
        int64_t npairs, *back = NULL;
        int64_t *pairs = collect_edges(b, &npairs);
        if (!pairs)
            return -1;
        int64_t nback = find_back_edges(b, pairs, npairs, &back);
        free(pairs);
        if (nback < 0)
            return -1;
        if (nback == 0) {
            free(back);
            return 0;
        }
        qsort(back, (size_t)nback, 2 * sizeof *back, cmp_pair);
        if (pass >= MAX_CYCLE_PASSES) {
            for (int64_t j = 0; j < nback; j++)
                ari_log(ARI_LOG_WARN, "super graph: dropped back edge %s -> %s (its flow is lost)",
                        b->groups[back[2 * j]].id, b->groups[back[2 * j + 1]].id);
            free(b->dropped);
            b->dropped = back;
            b->ndropped = nback;
            return 0;
        }
        int rc = duplicate_for_edges(b, back, nback);
        free(back);
        if (rc < 0)
            return -1;
    }
}

/* ---- the result ------------------------------------------------------------------- */

static int64_t find_pair(const int64_t *pairs, int64_t n, int64_t u, int64_t v)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int64_t key[2] = {u, v};
        int c = cmp_pair(&pairs[2 * mid], key);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int is_dropped(const builder *b, int64_t u, int64_t v)
{
    return b->ndropped > 0 && find_pair(b->dropped, b->ndropped, u, v) >= 0;
}

/* Levels (longest path from a root) by Kahn's algorithm; the final order
 * is by level, then by decreasing inclusive value. */
static int order_groups(builder *b, const int64_t *pairs, int64_t npairs, const double *ginc,
                        const int64_t *members, int64_t *rank_out, int *level_out, int64_t *nout)
{
    int64_t ng = b->ngroups;
    int64_t *indeg = calloc((size_t)ng + 1, sizeof *indeg);
    int64_t *start = calloc((size_t)ng + 2, sizeof *start);
    int64_t *queue = malloc((size_t)(ng ? ng : 1) * sizeof *queue);
    int rc = -1;
    if (!indeg || !start || !queue) {
        oom(b);
        goto done;
    }
    for (int64_t j = 0; j < npairs; j++) {
        indeg[pairs[2 * j + 1]]++;
        start[pairs[2 * j] + 1]++;
    }
    for (int64_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    int64_t head = 0, tail = 0;
    for (int64_t g = 0; g < ng; g++) {
        level_out[g] = 0;
        if (indeg[g] == 0 && members[g] > 0)
            queue[tail++] = g;
    }
    while (head < tail) {
        int64_t u = queue[head++];
        for (int64_t j = start[u]; j < start[u + 1]; j++) {
            int64_t v = pairs[2 * j + 1];
            if (level_out[v] < level_out[u] + 1)
                level_out[v] = level_out[u] + 1;
            if (--indeg[v] == 0)
                queue[tail++] = v;
        }
    }
    /* order: by level, then inc descending, then creation */
    int64_t n = 0;
    for (int64_t g = 0; g < ng; g++) {
        if (members[g] > 0)
            queue[n++] = g;
    }
    for (int64_t x = 1; x < n; x++) { /* insertion sort is fine: n is small */
        int64_t g = queue[x], y = x;
        while (y > 0) {
            int64_t h = queue[y - 1];
            int before = level_out[h] < level_out[g] ||
                         (level_out[h] == level_out[g] && (ginc[h] > ginc[g] || (ginc[h] == ginc[g] && h < g)));
            if (before)
                break;
            queue[y] = h;
            y--;
        }
        queue[y] = g;
    }
    for (int64_t g = 0; g < ng; g++)
        rank_out[g] = -1;
    for (int64_t x = 0; x < n; x++)
        rank_out[queue[x]] = x;
    *nout = n;
    rc = 0;
done:
    free(indeg);
    free(start);
    free(queue);
    return rc;
}

typedef struct agg_rec {
    int64_t node, a, b, c; /* sort keys */
    double inc, exc;
    int64_t count;
} agg_rec;

static int cmp_rec(const void *x, const void *y)
{
    const agg_rec *r = x, *s = y;
    int c = ari_cmp_i64(r->node, s->node);
    if (c == 0)
        c = ari_cmp_i64(r->a, s->a);
    if (c == 0)
        c = ari_cmp_i64(r->b, s->b);
    return c ? c : ari_cmp_i64(r->c, s->c);
}

static int cmp_rec_inc(const void *x, const void *y)
{
    const agg_rec *r = x, *s = y;
    int c = ari_cmp_i64(r->node, s->node);
    if (c == 0)
        c = ari_cmp_double(s->inc, r->inc); /* largest first */
    return c ? c : cmp_rec(x, y);
}

/* Sorts, merges equal keys, and orders each node's records by inc. */
static int64_t merge_records(agg_rec *r, int64_t n)
{
    qsort(r, (size_t)n, sizeof *r, cmp_rec);
    int64_t u = 0;
    for (int64_t j = 0; j < n; j++) {
        if (u > 0 && r[u - 1].node == r[j].node && r[u - 1].a == r[j].a && r[u - 1].b == r[j].b &&
            r[u - 1].c == r[j].c) {
            r[u - 1].inc += r[j].inc;
            r[u - 1].exc += r[j].exc;
            r[u - 1].count += r[j].count;
        } else {
            r[u++] = r[j];
        }
    }
    qsort(r, (size_t)u, sizeof *r, cmp_rec_inc);
    return u;
}

/* Entry functions (key: name) and callers (key: caller node, caller name,
 * entry name) of every supernode, from the entry CCT nodes. */
static int fill_entries_and_callers(builder *b, ari_supergraph *g, const int64_t *rank)
{
    int64_t nent = 0;
    for (int64_t i = 0; i < b->n; i++)
        nent += is_entry(b, i);
    agg_rec *ent = calloc((size_t)nent + 1, sizeof *ent);
    agg_rec *cal = calloc((size_t)nent + 1, sizeof *cal);
    if (!ent || !cal) {
        free(ent);
        free(cal);
        return oom(b);
    }
    int64_t ne = 0, nc = 0;
    for (int64_t i = 0; i < b->n; i++) {
        if (!is_entry(b, i))
            continue;
        int64_t node = rank[b->group[i]], p = b->c->parent[i];
        ent[ne++] = (agg_rec){node, b->name_id[i], 0, 0, b->vinc[i], b->vexc[i], 1};
        if (p >= 0)
            cal[nc++] = (agg_rec){node, rank[b->group[p]], b->name_id[p], b->name_id[i], b->vinc[i], 0, 1};
    }
    ne = merge_records(ent, ne);
    nc = merge_records(cal, nc);
    int rc = 0;
    for (int64_t j = 0, k = 0; j < g->nnodes; j++) {
        int64_t from = k;
        while (k < ne && ent[k].node == j)
            k++;
        ari_sg_node *nd = &g->nodes[j];
        nd->entries = calloc((size_t)(k - from) + 1, sizeof *nd->entries);
        if (!nd->entries) {
            rc = oom(b);
            break;
        }
        for (int64_t x = from; x < k; x++)
            nd->entries[nd->nentries++] = (ari_sg_entry){b->names[ent[x].a], ent[x].inc, ent[x].exc, ent[x].count};
    }
    for (int64_t j = 0, k = 0; rc == 0 && j < g->nnodes; j++) {
        int64_t from = k;
        while (k < nc && cal[k].node == j)
            k++;
        ari_sg_node *nd = &g->nodes[j];
        nd->callers = calloc((size_t)(k - from) + 1, sizeof *nd->callers);
        if (!nd->callers) {
            rc = oom(b);
            break;
        }
        for (int64_t x = from; x < k; x++)
            nd->callers[nd->ncallers++] = (ari_sg_caller){cal[x].a, b->names[cal[x].b], b->names[cal[x].c], cal[x].inc};
    }
    free(ent);
    free(cal);
    return rc;
}

static void add_row(double *dst, const double *src, int np, double sign)
{
    for (int r = 0; r < np; r++) {
        double v = src[r];
        if (v == v) /* not NAN */
            dst[r] += sign * v;
    }
}

static int cmp_edge(const void *x, const void *y)
{
    const ari_sg_edge *e = x, *f = y;
    if (e->source != f->source)
        return e->source < f->source ? -1 : 1;
    return e->target < f->target ? -1 : e->target > f->target;
}

static int64_t edge_index(const ari_supergraph *g, int64_t u, int64_t v)
{
    ari_sg_edge key = {u, v};
    ari_sg_edge *e = bsearch(&key, g->edges, (size_t)g->nedges, sizeof key, cmp_edge);
    return e ? e - g->edges : -1;
}

/* Per-process sums (arrays zeroed, g->nprocs wide) from the grouping
 * g->group of the CCT nodes: inc over entries, weights over entries with a
 * parent, filtered over cut children, and the exclusive time as the flow
 * leaves it: each node's inclusive time minus its children's. That equals
 * the profile's exclusive time when the profile is consistent, and does
 * not count twice what HPCToolkit reports both as a procedure's exclusive
 * time and as its loops' and statements' (its children in the CCT). */
static void fill_metrics(ari_supergraph *g, const int64_t *parent, const double *times)
{
    int np = g->nprocs;
    const int64_t *group = g->group;
    for (int64_t i = 0; i < g->cct_nodes; i++) {
        int64_t p = parent[i];
        const double *inc = times + i * np;
        if (p >= 0 && group[p] >= 0) {
            add_row(g->exc + group[p] * np, inc, np, -1);
            if (group[i] < 0)
                add_row(g->filtered + group[p] * np, inc, np, 1);
        }
        if (group[i] < 0)
            continue;
        int64_t node = group[i];
        add_row(g->exc + node * np, inc, np, 1);
        if (p >= 0 && group[p] == node)
            continue; /* not an entry */
        add_row(g->inc + node * np, inc, np, 1);
        if (p < 0) {
            add_row(g->root_inflow + node * np, inc, np, 1);
            continue;
        }
        int64_t x = group[p] >= 0 ? edge_index(g, group[p], node) : -1;
        if (x >= 0)
            add_row(g->weight + x * np, inc, np, 1);
    }
}

static int finish(builder *b, ari_supergraph *g)
{
    int64_t ng = b->ngroups, npairs = 0, nnodes = 0;
    int64_t *members = calloc((size_t)ng + 1, sizeof *members);
    double *ginc = calloc((size_t)ng + 1, sizeof *ginc);
    int64_t *rank = malloc((size_t)(ng ? ng : 1) * sizeof *rank);
    int *level = malloc((size_t)(ng ? ng : 1) * sizeof *level);
    int64_t *pairs = collect_edges(b, &npairs);
    int rc = -1;
    if (!members || !ginc || !rank || !level || !pairs) {
        oom(b);
        goto done;
    }
    for (int64_t i = 0; i < b->n; i++) {
        if (b->group[i] < 0)
            continue;
        members[b->group[i]]++;
        if (is_entry(b, i))
            ginc[b->group[i]] += b->vinc[i];
    }
    /* dropped edges do not exist for the layout */
    int64_t kept_pairs = 0;
    int64_t *live = malloc((size_t)(npairs ? npairs : 1) * 2 * sizeof *live);
    if (!live) {
        oom(b);
        goto done;
    }
    for (int64_t j = 0; j < npairs; j++) {
        if (!is_dropped(b, pairs[2 * j], pairs[2 * j + 1])) {
            live[2 * kept_pairs] = pairs[2 * j];
            live[2 * kept_pairs + 1] = pairs[2 * j + 1];
            kept_pairs++;
        }
    }
    rc = order_groups(b, live, kept_pairs, ginc, members, rank, level, &nnodes);
    free(live);
    if (rc < 0)
        goto done;
    rc = -1;
    size_t np = (size_t)b->np;
    g->nprocs = b->np;
    g->nnodes = nnodes;
    g->nodes = calloc((size_t)nnodes + 1, sizeof *g->nodes);
    g->edges = calloc((size_t)npairs + 1, sizeof *g->edges);
    g->inc = calloc((size_t)nnodes * np + 1, sizeof(double));
    g->exc = calloc((size_t)nnodes * np + 1, sizeof(double));
    g->filtered = calloc((size_t)nnodes * np + 1, sizeof(double));
    g->root_inflow = calloc((size_t)nnodes * np + 1, sizeof(double));
    if (!g->nodes || !g->edges || !g->inc || !g->exc || !g->filtered || !g->root_inflow) {
        oom(b);
        goto done;
    }
    for (int64_t k = 0; k < ng; k++) {
        if (rank[k] < 0)
            continue;
        ari_sg_node *nd = &g->nodes[rank[k]];
        nd->id = b->groups[k].id;
        nd->label = b->groups[k].label;
        b->groups[k].id = b->groups[k].label = NULL; /* now owned by the graph */
        nd->module = b->keys[b->groups[k].key];
        nd->kind = b->groups[k].kind;
        nd->level = level[k];
        nd->nfunctions = members[k];
    }
    for (int64_t j = 0; j < npairs; j++)
        if (!is_dropped(b, pairs[2 * j], pairs[2 * j + 1]))
            g->edges[g->nedges++] = (ari_sg_edge){rank[pairs[2 * j]], rank[pairs[2 * j + 1]]};
    qsort(g->edges, (size_t)g->nedges, sizeof *g->edges, cmp_edge);
    g->weight = calloc((size_t)g->nedges * np + 1, sizeof(double));
    g->group = malloc((size_t)(b->n ? b->n : 1) * sizeof *g->group);
    if (!g->weight || !g->group) {
        oom(b);
        goto done;
    }
    for (int64_t i = 0; i < b->n; i++)
        g->group[i] = b->group[i] >= 0 ? rank[b->group[i]] : -1;
    g->cct_nodes = b->n;
    if (b->t)
        fill_metrics(g, b->c->parent, b->t->inc); /* else the caller's (build_collapsed) */
    if (fill_entries_and_callers(b, g, rank) < 0)
        goto done;
    g->keys = b->keys;
    g->nkeys = b->nkeys;
    b->keys = NULL;
    g->duplicates = 0;
    for (int64_t j = 0; j < g->nnodes; j++)
        g->duplicates += g->nodes[j].kind == ARI_SG_DUPLICATE;
    g->dropped_edges = b->ndropped;
    rc = 0;
done:
    free(members);
    free(ginc);
    free(rank);
    free(level);
    free(pairs);
    return rc;
}

static void builder_free(builder *b)
{
    for (int64_t k = 0; k < b->ngroups; k++) {
        void *owned[] = {b->groups[k].id, b->groups[k].label, b->groups[k].stem};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(b->groups);
    if (b->keys) {
        for (int64_t k = 0; k < b->nkeys; k++)
            free(b->keys[k]);
        free(b->keys);
    }
    void *owned[] = {b->key, b->name_id, b->names, b->vinc, b->vexc, b->group, b->mark, b->dropped};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    ari_strmap_free(b->ids);
    ari_strmap_free(b->stems);
}

/* t NULL: vinc and vexc are given (build_collapsed), else collapsed here. */
static int builder_init(builder *b, const ari_cct *c, const ari_cct_times *t, const double *vinc,
                        const double *vexc, const unsigned char *keep, const ari_sg_params *p, ari_error *err)
{
    memset(b, 0, sizeof *b);
    b->c = c;
    b->t = t;
    b->keep = keep;
    b->p = p;
    b->err = err;
    b->n = c->nnodes;
    b->np = c->nprocs;
    size_t n = (size_t)(b->n ? b->n : 1);
    b->key = malloc(n * sizeof *b->key);
    b->name_id = malloc(n * sizeof *b->name_id);
    b->vinc = malloc(n * sizeof *b->vinc);
    b->vexc = malloc(n * sizeof *b->vexc);
    b->group = malloc(n * sizeof *b->group);
    b->mark = malloc(n);
    b->ids = ari_strmap_new();
    b->stems = ari_strmap_new();
    if (!b->key || !b->name_id || !b->vinc || !b->vexc || !b->group || !b->mark || !b->ids ||
        !b->stems)
        return oom(b);
    if (!t) {
        if (b->n > 0) {
            memcpy(b->vinc, vinc, (size_t)b->n * sizeof *vinc);
            memcpy(b->vexc, vexc, (size_t)b->n * sizeof *vexc);
        }
        return 0;
    }
    if (ari_cct_collapse(c, t->inc, NULL, p->collapse, b->vinc, err) < 0 ||
        ari_cct_collapse(c, t->exc, NULL, p->collapse, b->vexc, err) < 0)
        return -1;
    return 0;
}

static int build(const ari_cct *c, const ari_cct_times *t, const double *vinc, const double *vexc,
                 const unsigned char *keep, const ari_sg_params *p, ari_supergraph *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (t ? ari_cct_validate(c, err) < 0 : ari_cct_validate_tree(c, err) < 0)
        return -1;
    if (t && (t->nnodes != c->nnodes || t->nprocs != c->nprocs || (c->nnodes && c->nprocs && (!t->inc || !t->exc))))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "super graph: metric values do not match the tree");
    if (!t && c->nnodes && (!vinc || !vexc))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "super graph: no collapsed values");
    if (p->group_by == ARI_GROUP_MAP && ari_module_map_count(p->map) == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "group_by=map needs a module map");
    builder b;
    int rc = builder_init(&b, c, t, vinc, vexc, keep, p, err);
    if (rc == 0)
        rc = assign_keys(&b);
    if (rc == 0)
        rc = assign_names(&b);
    if (rc == 0)
        rc = assign_instances(&b);
    if (rc == 0)
        rc = break_cycles(&b);
    for (int s = 0; rc == 0 && s < p->nsplits; s++) {
        rc = apply_split(&b, &p->splits[s]);
        if (rc == 0)
            rc = break_cycles(&b);
    }
    if (rc == 0) {
        int64_t kept = 0;
        for (int64_t i = 0; i < b.n; i++)
            kept += b.group[i] >= 0;
        out->kept = kept;
        rc = finish(&b, out);
    }
    builder_free(&b);
    if (rc < 0)
        ari_supergraph_free(out);
    return rc;
}

int ari_supergraph_build(const ari_cct *c, const ari_cct_times *t, const unsigned char *keep,
                         const ari_sg_params *p, ari_supergraph *out, ari_error *err)
{
    return build(c, t, NULL, NULL, keep, p, out, err);
}

int ari_supergraph_build_collapsed(const ari_cct *c, const double *vinc, const double *vexc,
                                   const unsigned char *keep, const ari_sg_params *p, ari_supergraph *out,
                                   ari_error *err)
{
    return build(c, NULL, vinc, vexc, keep, p, out, err);
}

int ari_sg_node_support(const ari_supergraph *g, const int64_t *parent, int64_t j, int64_t **nodes, int64_t *n)
{
    *n = 0;
    *nodes = malloc(((size_t)g->cct_nodes + 1) * sizeof **nodes);
    if (!*nodes)
        return -1;
    for (int64_t i = 0; i < g->cct_nodes; i++)
        if (g->group[i] == j || (parent[i] >= 0 && g->group[parent[i]] == j))
            (*nodes)[(*n)++] = i;
    return 0;
}

void ari_sg_node_ranks(const ari_supergraph *g, const int64_t *parent, int64_t j, const int64_t *nodes, int64_t n,
                       const double *node_inc, int np, double *inc, double *exc)
{
    for (int p = 0; p < np; p++)
        inc[p] = exc[p] = 0;
    for (int64_t k = 0; k < n; k++) { /* fill_metrics for node j alone */
        int64_t i = nodes[k], pa = parent[i];
        const double *row = node_inc + k * np;
        if (pa >= 0 && g->group[pa] == j)
            add_row(exc, row, np, -1);
        if (g->group[i] != j)
            continue;
        add_row(exc, row, np, 1);
        if (pa < 0 || g->group[pa] != j)
            add_row(inc, row, np, 1);
    }
}

int ari_supergraph_revalue(ari_supergraph *g, const int64_t *parent, const ari_cct_times *t, ari_error *err)
{
    if (t->nnodes != g->cct_nodes)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "revalue: %lld CCT nodes, the graph has %lld",
                             (long long)t->nnodes, (long long)g->cct_nodes);
    size_t np = (size_t)t->nprocs, nn = (size_t)g->nnodes * np + 1, ne = (size_t)g->nedges * np + 1;
    double *arrays[5] = {calloc(nn, sizeof(double)), calloc(nn, sizeof(double)), calloc(nn, sizeof(double)),
                         calloc(nn, sizeof(double)), calloc(ne, sizeof(double))};
    double **owned[5] = {&g->inc, &g->exc, &g->filtered, &g->root_inflow, &g->weight};
    int ok = 1;
    for (int k = 0; k < 5; k++)
        ok &= arrays[k] != NULL;
    for (int k = 0; k < 5; k++) {
        double *old = ok ? *owned[k] : arrays[k];
        if (ok)
            *owned[k] = arrays[k];
        free(old);
    }
    if (!ok)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    g->nprocs = t->nprocs;
    fill_metrics(g, parent, t->inc);
    return 0;
}

void ari_supergraph_free(ari_supergraph *g)
{
    for (int64_t j = 0; g->nodes && j < g->nnodes; j++) {
        void *owned[] = {g->nodes[j].id, g->nodes[j].label, g->nodes[j].entries, g->nodes[j].callers};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    for (int64_t k = 0; g->keys && k < g->nkeys; k++)
        free(g->keys[k]);
    void *owned[] = {g->keys, g->nodes, g->edges, g->inc, g->exc, g->filtered, g->root_inflow, g->weight, g->group};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(g, 0, sizeof *g);
}

int64_t ari_supergraph_find(const ari_supergraph *g, const char *id)
{
    for (int64_t j = 0; id && j < g->nnodes; j++) {
        if (strcmp(g->nodes[j].id, id) == 0)
            return j;
    }
    return -1;
}

/* ---- views ------------------------------------------------------------------------- */

int ari_sg_view_compute(const ari_supergraph *g, const unsigned char *proc_mask, ari_collapse how,
                        int nbins, ari_sg_view *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (nbins < 1 || nbins > 1000)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "bins must be in 1..1000");
    int np = g->nprocs;
    size_t nn = (size_t)g->nnodes + 1, ne = (size_t)g->nedges + 1;
    out->nnodes = g->nnodes;
    out->nedges = g->nedges;
    out->nbins = nbins;
    out->inc = malloc(nn * sizeof(double));
    out->exc = malloc(nn * sizeof(double));
    out->filtered = malloc(nn * sizeof(double));
    out->root_inflow = malloc(nn * sizeof(double));
    out->weight = malloc(ne * sizeof(double));
    out->hist = malloc(nn * (size_t)nbins * sizeof(int));
    out->hist_min = malloc(nn * sizeof(double));
    out->hist_max = malloc(nn * sizeof(double));
    double *scratch = malloc((size_t)(np ? np : 1) * sizeof(double));
    if (!out->inc || !out->exc || !out->filtered || !out->root_inflow || !out->weight || !out->hist || !out->hist_min ||
        !out->hist_max || !scratch) {
        free(scratch);
        ari_sg_view_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int r = 0; r < np; r++)
        out->nselected += !proc_mask || proc_mask[r];
    for (int64_t j = 0; j < g->nnodes; j++) {
        const double *row = g->inc + j * np;
        out->inc[j] = ari_collapse_row(row, np, proc_mask, how, scratch);
        out->exc[j] = ari_collapse_row(g->exc + j * np, np, proc_mask, how, scratch);
        out->filtered[j] = ari_collapse_row(g->filtered + j * np, np, proc_mask, how, scratch);
        out->root_inflow[j] = ari_collapse_row(g->root_inflow + j * np, np, proc_mask, how, scratch);
        ari_histogram(row, np, proc_mask, nbins, out->hist + j * nbins, &out->hist_min[j],
                      &out->hist_max[j]);
    }
    for (int64_t e = 0; e < g->nedges; e++)
        out->weight[e] = ari_collapse_row(g->weight + e * np, np, proc_mask, how, scratch);
    free(scratch);
    return 0;
}

void ari_sg_view_free(ari_sg_view *v)
{
    void *owned[] = {v->inc,    v->exc,  v->filtered, v->root_inflow,
                     v->weight, v->hist, v->hist_min, v->hist_max};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(v, 0, sizeof *v);
}

int ari_sg_check_flow(const ari_supergraph *g, const ari_sg_view *v, double rel_tol, char *msg,
                      size_t msg_size)
{
    int64_t n = g->nnodes;
    double *in = calloc((size_t)n + 1, sizeof *in), *outw = calloc((size_t)n + 1, sizeof *outw);
    int rc = -1;
    if (!in || !outw) {
        snprintf(msg, msg_size, "out of memory");
        goto done;
    }
    double scale = 0;
    for (int64_t j = 0; j < n; j++)
        scale = fabs(v->inc[j]) > scale ? fabs(v->inc[j]) : scale;
    double tol = rel_tol * (scale > 0 ? scale : 1);
    for (int64_t e = 0; e < g->nedges; e++) {
        outw[g->edges[e].source] += v->weight[e];
        in[g->edges[e].target] += v->weight[e];
        if (g->edges[e].source >= g->edges[e].target) {
            /* nodes are in topological order, so every edge goes forward */
            snprintf(msg, msg_size, "edge %s -> %s goes backwards: the graph has a cycle",
                     g->nodes[g->edges[e].source].id, g->nodes[g->edges[e].target].id);
            goto done;
        }
    }
    for (int64_t j = 0; j < n; j++) {
        const char *id = g->nodes[j].id;
        if (fabs(in[j] + v->root_inflow[j] - v->inc[j]) > tol) {
            snprintf(msg, msg_size, "%s: incoming %.17g + from roots %.17g != inclusive %.17g", id,
                     in[j], v->root_inflow[j], v->inc[j]);
            goto done;
        }
        double gap = v->inc[j] - outw[j], want = v->exc[j] + v->filtered[j];
        if (fabs(gap - want) > tol) {
            snprintf(msg, msg_size, "%s: inclusive - outgoing = %.17g but exclusive + filtered = %.17g",
                     id, gap, want);
            goto done;
        }
    }
    rc = 0;
done:
    free(in);
    free(outw);
    return rc;
}
