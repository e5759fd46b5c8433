/* ensemble_cct.c: builds the unified calling context tree of an ensemble
 * (ensemble_cct.h): a trie keyed by (parent, frame key, occurrence) over
 * the members' CCTs, with the per-member node and metric maps. */
#include "analysis/ensemble_cct.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

/* The growing node table while members are inserted. */
typedef struct builder {
    ari_ecct *e;
    size_t cap;
    ari_strmap *trie; /* full key -> unified id + 1 */
    ari_sbuf key;
} builder;

static int uses_location(const char *kind)
{
    return kind && (strcmp(kind, "loop") == 0 || strcmp(kind, "statement") == 0);
}

/* Appends the decimal digits of v (printf is too slow for 600,000 keys). */
static void add_int(ari_sbuf *b, long long v)
{
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        digits[sizeof digits - 1 - n++] = '-';
    ari_sbuf_add(b, digits + sizeof digits - n, (size_t)n);
}

/* "parent \x1f name \x1f kind \x1f file:line" of member node j under
 * unified parent up (the occurrence is appended by the caller). */
static int frame_key(ari_sbuf *b, const ari_cct *c, int64_t j, int64_t up)
{
    ari_sbuf_reset(b);
    const char *kind = c->kind && c->kind[j] ? c->kind[j] : "";
    add_int(b, up);
    ari_sbuf_add_char(b, '\x1f');
    ari_sbuf_add_str(b, c->name[j]);
    ari_sbuf_add_char(b, '\x1f');
    ari_sbuf_add_str(b, kind);
    if (uses_location(kind)) {
        ari_sbuf_add_char(b, '\x1f');
        ari_sbuf_add_str(b, c->file && c->file[j] ? c->file[j] : "");
        ari_sbuf_add_char(b, ':');
        add_int(b, c->line ? c->line[j] : 0);
    }
    return b->failed ? -1 : 0;
}

static int grow(builder *b)
{
    ari_ecct *e = b->e;
    size_t need = (size_t)e->nnodes + 1, cap = b->cap;
    void *arrays[] = {&e->parent, &e->depth, &e->name, &e->module,
                      &e->file,   &e->kind,  &e->line, &e->npresent};
    size_t sizes[] = {sizeof *e->parent, sizeof *e->depth, sizeof *e->name, sizeof *e->module,
                      sizeof *e->file,   sizeof *e->kind,  sizeof *e->line, sizeof *e->npresent};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
        size_t c = cap;
        if (ari_vec_reserve((void **)arrays[a], &c, need, sizes[a]) < 0)
            return -1;
        b->cap = c;
    }
    return 0;
}

/* A new unified node for member node j of c under unified parent up. */
static int64_t add_node(builder *b, const ari_cct *c, int64_t j, int64_t up)
{
    if (grow(b) < 0)
        return -1;
    ari_ecct *e = b->e;
    int64_t id = e->nnodes++;
    e->parent[id] = up;
    e->depth[id] = up < 0 ? 0 : e->depth[up] + 1;
    e->name[id] = c->name[j];
    e->module[id] = c->module && c->module[j] ? c->module[j] : "";
    e->file[id] = c->file && c->file[j] ? c->file[j] : "";
    e->kind[id] = c->kind && c->kind[j] ? c->kind[j] : "";
    e->line[id] = c->line ? c->line[j] : 0;
    e->npresent[id] = 0;
    return id;
}

/* The unified id of member node j (parent already mapped to up), creating
 * it when new. occ counts this member's siblings with the same key. */
static int64_t unify_node(builder *b, ari_strmap *occ, const ari_cct *c, int64_t j, int64_t up)
{
    if (frame_key(&b->key, c, j, up) < 0)
        return -1;
    size_t base = b->key.len;
    intptr_t k = (intptr_t)ari_strmap_get(occ, b->key.p, base);
    if (!ari_strmap_put(occ, b->key.p, base, (void *)(k + 1)))
        return -1;
    ari_sbuf_add_char(&b->key, '\x1f');
    add_int(&b->key, k);
    if (b->key.failed)
        return -1;
    intptr_t found = (intptr_t)ari_strmap_get(b->trie, b->key.p, b->key.len);
    if (found)
        return (int64_t)found - 1;
    int64_t id = add_node(b, c, j, up);
    if (id >= 0 && !ari_strmap_put(b->trie, b->key.p, b->key.len, (void *)(intptr_t)(id + 1)))
        return -1;
    return id;
}

/* Inserts member m's nodes; map[j] gets the unified id of its node j. */
static int insert_member(builder *b, const ari_cct *c, int64_t *map, ari_error *err)
{
    ari_strmap *occ = ari_strmap_new();
    if (!occ)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (int64_t j = 0; j < c->nnodes && rc == 0; j++) {
        int64_t p = c->parent[j];
        if (p >= j || p < -1) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT,
                               "member CCT node %lld has parent %lld (not before it)", (long long)j,
                               (long long)p);
            break;
        }
        map[j] = unify_node(b, occ, c, j, p < 0 ? -1 : map[p]);
        if (map[j] < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_strmap_free(occ);
    return rc;
}

/* The union of the members' metrics by name, first met first. */
static int unify_metrics(ari_ecct *e, const ari_cct *const *members, int n, ari_error *err)
{
    size_t cap = 0;
    for (int m = 0; m < n; m++)
        for (int k = 0; k < members[m]->nmetrics; k++) {
            if (ari_ecct_metric_index(e, members[m]->metrics[k].name) >= 0)
                continue;
            if (ari_vec_reserve((void **)&e->metrics, &cap, (size_t)e->nmetrics + 1, sizeof *e->metrics) < 0)
                return ari_error_set(err, ARI_E_NOMEM, "out of memory");
            e->metrics[e->nmetrics] = members[m]->metrics[k];
            e->metrics[e->nmetrics++].partner = -1;
        }
    for (int k = 0; k < e->nmetrics; k++)
        for (int m = 0; m < n && e->metrics[k].partner < 0; m++) {
            int own = -1;
            for (int q = 0; q < members[m]->nmetrics; q++)
                if (strcmp(members[m]->metrics[q].name, e->metrics[k].name) == 0)
                    own = q;
            int pq = own < 0 ? -1 : members[m]->metrics[own].partner;
            if (pq >= 0)
                e->metrics[k].partner = ari_ecct_metric_index(e, members[m]->metrics[pq].name);
        }
    return 0;
}

/* Member m's metric map: unified index -> its own index (-1 if none). */
static int map_metrics(const ari_ecct *e, ari_ecct_member *mem)
{
    mem->metric_of = malloc((e->nmetrics ? (size_t)e->nmetrics : 1) * sizeof *mem->metric_of);
    if (!mem->metric_of)
        return -1;
    for (int k = 0; k < e->nmetrics; k++) {
        mem->metric_of[k] = -1;
        for (int q = 0; q < mem->cct->nmetrics; q++)
            if (strcmp(mem->cct->metrics[q].name, e->metrics[k].name) == 0)
                mem->metric_of[k] = q;
    }
    return 0;
}

/* Member m's node map (unified -> own) from its own -> unified map. */
static int map_nodes(ari_ecct *e, ari_ecct_member *mem, const int64_t *own_to_unified)
{
    mem->node_of = malloc((e->nnodes ? (size_t)e->nnodes : 1) * sizeof *mem->node_of);
    if (!mem->node_of)
        return -1;
    for (int64_t i = 0; i < e->nnodes; i++)
        mem->node_of[i] = -1;
    for (int64_t j = 0; j < mem->cct->nnodes; j++) {
        mem->node_of[own_to_unified[j]] = j;
        e->npresent[own_to_unified[j]]++;
    }
    return 0;
}

/* Inserts every member, keeping each one's own -> unified map in maps. */
static int insert_all(builder *b, const ari_cct *const *members, int n, int64_t **maps, ari_error *err)
{
    for (int m = 0; m < n; m++) {
        size_t nn = members[m]->nnodes > 0 ? (size_t)members[m]->nnodes : 1;
        maps[m] = malloc(nn * sizeof *maps[m]);
        if (!maps[m])
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (insert_member(b, members[m], maps[m], err) < 0)
            return -1;
    }
    return 0;
}

static int finish_members(ari_ecct *e, const ari_cct *const *members, int n, int64_t **maps, ari_error *err)
{
    e->members = calloc(n > 0 ? (size_t)n : 1, sizeof *e->members);
    if (!e->members)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    e->nmembers = n;
    for (int m = 0; m < n; m++) {
        e->members[m].cct = members[m];
        if (map_nodes(e, &e->members[m], maps[m]) < 0 || map_metrics(e, &e->members[m]) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

int ari_ecct_build(const ari_cct *const *members, int n, ari_ecct *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a negative member count");
    builder b = {.e = out, .trie = ari_strmap_new()};
    int64_t **maps = calloc(n > 0 ? (size_t)n : 1, sizeof *maps);
    int rc = (!b.trie || !maps) ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = insert_all(&b, members, n, maps, err);
    if (rc == 0)
        rc = unify_metrics(out, members, n, err);
    if (rc == 0)
        rc = finish_members(out, members, n, maps, err);
    for (int m = 0; maps && m < n; m++)
        free(maps[m]);
    free(maps);
    ari_strmap_free(b.trie);
    ari_sbuf_free(&b.key);
    if (rc != 0)
        ari_ecct_free(out);
    return rc == 0 ? 0 : -1;
}

void ari_ecct_free(ari_ecct *e)
{
    for (int m = 0; e->members && m < e->nmembers; m++) {
        free(e->members[m].node_of);
        free(e->members[m].metric_of);
    }
    void *ptrs[] = {e->parent, e->depth, e->name,     e->module,  e->file,
                    e->kind,   e->line,  e->npresent, e->members, e->metrics};
    ari_free_all(ptrs, sizeof ptrs / sizeof ptrs[0]);
    memset(e, 0, sizeof *e);
}

int ari_ecct_present(const ari_ecct *e, int m, int64_t i)
{
    return m >= 0 && m < e->nmembers && i >= 0 && i < e->nnodes && e->members[m].node_of[i] >= 0;
}

int ari_ecct_metric_index(const ari_ecct *e, const char *name)
{
    for (int k = 0; k < e->nmetrics; k++)
        if (strcmp(e->metrics[k].name, name) == 0)
            return k;
    return -1;
}

const double *ari_ecct_ranks(const ari_ecct *e, int m, int64_t i, int k, int *nprocs)
{
    *nprocs = 0;
    if (!ari_ecct_present(e, m, i) || k < 0 || k >= e->nmetrics || e->members[m].metric_of[k] < 0)
        return NULL;
    const ari_cct *c = e->members[m].cct;
    if (!c->values)
        return NULL;
    *nprocs = c->nprocs;
    return c->values[e->members[m].metric_of[k]] + e->members[m].node_of[i] * (int64_t)c->nprocs;
}

/* Sum and count of the measured values of member m's node i; 0 when the
 * member has no per-process values (a summary) or lacks the node. */
static int64_t measured(const ari_ecct *e, int m, int64_t i, int k, double *sum)
{
    int np;
    const double *v = ari_ecct_ranks(e, m, i, k, &np);
    int64_t count = 0;
    *sum = 0;
    for (int p = 0; v && p < np; p++)
        if (!isnan(v[p])) {
            *sum += v[p];
            count++;
        }
    return count;
}

/* Member m's summary row of metric k at node i (node_sum or node_mean),
 * or NULL when it has no summary, the node or the metric. */
static const double *summary_of(const ari_ecct *e, int m, int64_t i, int k, const double *const *rows)
{
    if (!rows || !ari_ecct_present(e, m, i) || k < 0 || k >= e->nmetrics || e->members[m].metric_of[k] < 0)
        return NULL;
    return rows[e->members[m].metric_of[k]] + e->members[m].node_of[i];
}

/* The mean (or the sum) of the measured values of member m's node i, from
 * its summary or from its processes' values; NAN when none. */
static double measured_stat(const ari_ecct *e, int m, int64_t i, int k, int mean)
{
    const ari_cct *c = m >= 0 && m < e->nmembers ? e->members[m].cct : NULL;
    if (c && !c->values) {
        const double *x = summary_of(e, m, i, k, mean ? c->node_mean : c->node_sum);
        return x ? *x : NAN;
    }
    double sum;
    int64_t count = measured(e, m, i, k, &sum);
    if (!count)
        return NAN;
    return mean ? sum / (double)count : sum;
}

double ari_ecct_value(const ari_ecct *e, int m, int64_t i, int k)
{
    return measured_stat(e, m, i, k, 1);
}

double ari_ecct_sum(const ari_ecct *e, int m, int64_t i, int k)
{
    return measured_stat(e, m, i, k, 0);
}

static void add_escaped(ari_sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '/' || *s == '\\')
            ari_sbuf_add_char(b, '\\');
        ari_sbuf_add_char(b, *s);
    }
}

char *ari_ecct_path(const ari_ecct *e, int64_t i)
{
    int64_t *chain = malloc(((size_t)e->depth[i] + 1) * sizeof *chain);
    if (!chain)
        return NULL;
    int64_t n = 0;
    for (int64_t v = i; v >= 0 && n <= e->depth[i]; v = e->parent[v])
        chain[n++] = v;
    ari_sbuf b = {0};
    ari_sbuf_add_str(&b, "");
    while (n-- > 0) {
        add_escaped(&b, e->name[chain[n]]);
        if (n > 0)
            ari_sbuf_add_char(&b, '/');
    }
    free(chain);
    return ari_sbuf_take(&b);
}
