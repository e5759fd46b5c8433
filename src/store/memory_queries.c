/* memory_queries.c: the memory-manager states and the data-handle
 * presence events of the memory panels (see memory_queries.h). */
#include "store/memory_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "store/task_queries.h"
#include "util/vec.h"

#define MS_TYPE "Memory Node State"

/* ---- states ---- */

int ari_mq_have_states(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT EXISTS (SELECT 1 FROM entity_types t JOIN states x ON x.trace_id = t.trace_id"
        " AND x.type_id = t.id JOIN names n ON n.trace_id = x.trace_id AND n.id = x.value_id"
        " WHERE t.trace_id = ?1 AND t.nature = 'state' AND t.name = '" MS_TYPE "'"
        " AND n.name NOT IN ('Nothing', 'No'))",
        trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find memory manager states", err) < 0)
        return -1;
    return any ? 1 : 0;
}

void ari_mq_states_free(ari_mq_states *st)
{
    for (int i = 0; st && i < st->ngroups; i++) {
        free(st->container[i]);
        free(st->value[i]);
        free(st->color[i]);
    }
    if (st) {
        free(st->container);
        free(st->value);
        free(st->color);
        free(st->node);
        free(st->group);
        free(st->start);
        free(st->end);
        memset(st, 0, sizeof *st);
    }
}

static const char *col(ari_stmt *q, int i)
{
    const char *t = (const char *)ari_col_text(q, i);
    return t ? t : "";
}

/* Opens a new group when the row's (container, value) differs from the last. */
static int states_group(ari_mq_states *st, size_t *gcap, ari_stmt *q)
{
    int last = st->ngroups - 1;
    if (last >= 0 && strcmp(st->container[last], col(q, 0)) == 0 && strcmp(st->value[last], col(q, 1)) == 0)
        return 0;
    size_t need = (size_t)st->ngroups + 1, c1 = *gcap, c2 = *gcap, c3 = *gcap;
    if (ari_vec_reserve((void **)&st->container, &c1, need, sizeof *st->container) < 0 ||
        ari_vec_reserve((void **)&st->value, &c2, need, sizeof *st->value) < 0 ||
        ari_vec_reserve((void **)&st->color, &c3, need, sizeof *st->color) < 0 ||
        ari_vec_reserve((void **)&st->node, gcap, need, sizeof *st->node) < 0)
        return -1;
    st->container[st->ngroups] = strdup(col(q, 0));
    st->value[st->ngroups] = strdup(col(q, 1));
    st->color[st->ngroups] = strdup(col(q, 4));
    st->node[st->ngroups] = ari_tq_node_of_name(col(q, 0));
    st->ngroups++;
    int g = st->ngroups - 1;
    return st->container[g] && st->value[g] && st->color[g] ? 0 : -1;
}

static int states_push(ari_mq_states *st, size_t *cap, size_t *gcap, ari_stmt *q)
{
    if (states_group(st, gcap, q) < 0)
        return -1;
    size_t need = st->n + 1, c1 = *cap, c2 = *cap;
    if (ari_vec_reserve((void **)&st->group, &c1, need, sizeof *st->group) < 0 ||
        ari_vec_reserve((void **)&st->start, &c2, need, sizeof *st->start) < 0 ||
        ari_vec_reserve((void **)&st->end, cap, need, sizeof *st->end) < 0)
        return -1;
    st->group[st->n] = st->ngroups - 1;
    st->start[st->n] = ari_col_double(q, 2);
    st->end[st->n] = ari_col_double(q, 3);
    st->n++;
    return 0;
}

int ari_mq_states_load(ari_store *s, int64_t trace_id, double t0, double t1, ari_mq_states *out,
                       ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *q = ari_store_bound(
        s,
        "SELECT c.name, n.name, x.start, x.end, (SELECT v.color FROM entity_types v WHERE v.trace_id = "
        "t.trace_id"
        " AND v.nature = 'value' AND v.parent_id = t.id AND v.name = n.name LIMIT 1) FROM entity_types t"
        " JOIN states x ON x.trace_id = t.trace_id AND x.type_id = t.id"
        " JOIN names n ON n.trace_id = x.trace_id AND n.id = x.value_id"
        " JOIN containers c ON c.trace_id = x.trace_id AND c.id = x.container_id"
        " WHERE t.trace_id = ?1 AND t.nature = 'state' AND t.name = '" MS_TYPE "'"
        " AND n.name NOT IN ('Nothing', 'No') AND x.start < ?3 AND x.end > ?2"
        " ORDER BY c.id, n.name, x.start",
        args, ARI_NARGS(args), err);
    if (!q)
        return -1;
    size_t cap = 0, gcap = 0;
    int rc;
    while ((rc = ari_step(q)) == ARI_ROW)
        if (states_push(out, &cap, &gcap, q) < 0) {
            ari_reset(q);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    return ari_store_rows_end(s, q, rc, "read memory manager states", err);
}

/* ---- data handle presence ---- */

/* The data-state events of memory managers with their handle's size; ?1
 * the trace. The rank of a container "<rank>_..." matches data.rec's
 * MPIRank when both have one. */
#define PRESENCE_FROM                                                                                        \
    " FROM events e JOIN entity_types t ON t.trace_id = e.trace_id AND t.id = e.type_id"                     \
    " JOIN names n ON n.trace_id = e.trace_id AND n.id = e.value_id"                                         \
    " JOIN containers c ON c.trace_id = e.trace_id AND c.id = e.container_id"                                \
    " WHERE e.trace_id = ?1 AND t.nature = 'event'"                                                          \
    " AND t.name IN ('data state owner', 'data state shared', 'data state invalid')"
#define PRESENCE_SIZE                                                                                        \
    "(SELECT d.size FROM data_handles d WHERE d.trace_id = e.trace_id AND d.handle = n.name"                 \
    " AND (d.mpi_rank IS NULL OR instr(c.name, '_') = 0"                                                     \
    "  OR d.mpi_rank = CAST(substr(c.name, 1, instr(c.name, '_') - 1) AS INTEGER)) LIMIT 1)"

int ari_mq_have_presence(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT EXISTS (SELECT 1" PRESENCE_FROM " AND " PRESENCE_SIZE " IS NOT NULL)", trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find data handle events", err) < 0)
        return -1;
    return any ? 1 : 0;
}

void ari_mq_presence_free(ari_mq_presence *p)
{
    for (int i = 0; p && i < p->ncontainers; i++)
        free(p->containers[i]);
    if (p) {
        free(p->containers);
        free(p->node);
        free(p->container);
        free(p->handle);
        free(p->time);
        free(p->size);
        free(p->present);
        memset(p, 0, sizeof *p);
    }
}

static int presence_container(ari_mq_presence *p, size_t *ccap, const char *name)
{
    if (p->ncontainers && strcmp(p->containers[p->ncontainers - 1], name) == 0)
        return 0;
    size_t need = (size_t)p->ncontainers + 1, c1 = *ccap;
    if (ari_vec_reserve((void **)&p->containers, &c1, need, sizeof *p->containers) < 0 ||
        ari_vec_reserve((void **)&p->node, ccap, need, sizeof *p->node) < 0)
        return -1;
    p->node[p->ncontainers] = ari_tq_node_of_name(name);
    p->containers[p->ncontainers++] = strdup(name);
    return p->containers[p->ncontainers - 1] ? 0 : -1;
}

/* Row: container, handle, type, time, size, handle sequence number. */
static int presence_push(ari_mq_presence *p, size_t *cap, size_t *ccap, ari_stmt *q)
{
    if (presence_container(p, ccap, col(q, 0)) < 0)
        return -1;
    size_t need = p->n + 1, c[5] = {*cap, *cap, *cap, *cap, *cap};
    if (ari_vec_reserve((void **)&p->container, &c[0], need, sizeof *p->container) < 0 ||
        ari_vec_reserve((void **)&p->handle, &c[1], need, sizeof *p->handle) < 0 ||
        ari_vec_reserve((void **)&p->time, &c[2], need, sizeof *p->time) < 0 ||
        ari_vec_reserve((void **)&p->size, &c[3], need, sizeof *p->size) < 0 ||
        ari_vec_reserve((void **)&p->present, cap, need, sizeof *p->present) < 0)
        return -1;
    p->container[p->n] = p->ncontainers - 1;
    p->handle[p->n] = ari_col_int64(q, 5);
    p->present[p->n] = strcmp(col(q, 2), "data state invalid") != 0;
    p->time[p->n] = ari_col_double(q, 3);
    p->size[p->n] = ari_col_type(q, 4) == ARI_NULL ? NAN : ari_col_double(q, 4);
    p->sized += !isnan(p->size[p->n]);
    p->n++;
    return 0;
}

int ari_mq_presence_load(ari_store *s, int64_t trace_id, ari_mq_presence *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_stmt *q = ari_store_stmt_id(s,
                                        "SELECT c.name, n.name, t.name, e.time, " PRESENCE_SIZE ","
                                        " dense_rank() OVER (ORDER BY c.id, n.name)" PRESENCE_FROM
                                        " ORDER BY c.id, n.name, e.time, e.seq",
                                        trace_id, err);
    if (!q)
        return -1;
    size_t cap = 0, ccap = 0;
    int rc;
    while ((rc = ari_step(q)) == ARI_ROW)
        if (presence_push(out, &cap, &ccap, q) < 0) {
            ari_reset(q);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    return ari_store_rows_end(s, q, rc, "read data handle events", err);
}

/* ---- GPU links ---- */

#define GPU_END(c)                                                                                           \
    "(" c ".name GLOB '*MEM[MN]*[0-9]' AND NOT " c ".name GLOB '*MEMMANAGER0'"                               \
    " AND NOT " c ".name GLOB '*MEMNODE0')"

int ari_mq_have_gpu_links(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT EXISTS (SELECT 1 FROM links l"
                          " JOIN containers a ON a.trace_id = l.trace_id AND a.id = l.start_container_id"
                          " JOIN containers b ON b.trace_id = l.trace_id AND b.id = l.end_container_id"
                          " WHERE l.trace_id = ?1 AND (" GPU_END("a") " OR " GPU_END("b") "))",
                          trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find GPU links", err) < 0)
        return -1;
    return any ? 1 : 0;
}
