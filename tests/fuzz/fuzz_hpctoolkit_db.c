/* fuzz_hpctoolkit_db.c: libFuzzer target for the HPCToolkit 4.x database
 * reader (hpctoolkit_db.c: meta.db, profile.db and trace.db, as a profile
 * and as an event trace), through its in-memory entry point.
 *
 * Input: u32 meta.db length, u32 profile.db length (little-endian), then
 * meta.db, profile.db and the rest as trace.db (lengths cut to what is
 * there). Seeds: tests/fixtures/fuzz/hpctoolkit_db/, written by
 * tests/fixtures/hpctoolkit_db/make_tiny.py. The sinks check what the
 * reader promises (known handles and nodes, finite values, per location
 * times that never go back, a Leave for the innermost open Enter only);
 * a clean error is fine; a crash, leak, hang or sanitizer report is a bug.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/hpctoolkit_db.h"

#define MAXLOC   64
#define MAXDEPTH 4096

static int nmetrics, nprocs;
static int64_t nregions, nprocesses, nlocs;
static int64_t stack[MAXLOC][MAXDEPTH];
static int depth[MAXLOC];
static double last[MAXLOC];

static int on_metric(void *ctx, const ari_profile_metric *m, int *index)
{
    (void)ctx;
    if (!m->name || !m->name[0])
        abort();
    *index = nmetrics++;
    return 0;
}

static int on_proc(void *ctx, int64_t rank, int64_t thread, int *index)
{
    (void)ctx;
    if (rank < 0 || thread < 0)
        abort();
    *index = nprocs++;
    return 0;
}

static int on_node(void *ctx, const ari_profile_node *n)
{
    (void)ctx;
    if (!n->name || n->id < 0 || n->id >= ARI_PROFILE_MAX_NODE_ID || n->parent >= n->id)
        abort(); /* parents come first, as the tree is walked */
    return 0;
}

static int on_value(void *ctx, int metric, int64_t node, int proc, double v)
{
    (void)ctx;
    if (metric < 0 || metric >= nmetrics || node < 0 || proc < 0 || proc >= nprocs || !isfinite(v))
        abort();
    return 0;
}

static int on_meta(void *ctx, const char *key, const char *json_value)
{
    (void)ctx;
    return !key[0] || !json_value[0] ? (abort(), -1) : 0;
}

static int on_time_unit(void *ctx, const char *unit, const char *source)
{
    (void)ctx, (void)unit, (void)source;
    return 0;
}

static int64_t process(void *ctx, int64_t rank, const char *name)
{
    (void)ctx, (void)name;
    if (rank < 0)
        abort();
    return nprocesses++;
}

static int64_t location(void *ctx, int64_t proc, int64_t thread, const char *name)
{
    (void)ctx, (void)name;
    if (proc < 0 || proc >= nprocesses || thread < 0)
        abort();
    if (nlocs == MAXLOC)
        return -1; /* the reader must stop cleanly */
    depth[nlocs] = 0;
    last[nlocs] = 0;
    return nlocs++;
}

/* The system tree: handles given in order, parents and placements among them. */
static int64_t nnodes;

static int64_t on_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    (void)ctx, (void)cls;
    if (parent < -1 || parent >= nnodes || !name)
        abort();
    return nnodes++;
}

static int on_process_node(void *ctx, int64_t rank, int64_t node)
{
    (void)ctx, (void)rank;
    if (node < 0 || node >= nnodes)
        abort();
    return 0;
}

static int64_t region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    (void)ctx, (void)file, (void)line;
    if (!name || !role)
        abort();
    return nregions++;
}

static int check_time(int64_t loc, double t)
{
    if (loc < 0 || loc >= nlocs || !isfinite(t) || t < 0 || t < last[loc])
        abort();
    last[loc] = t;
    return 0;
}

static int enter(void *ctx, int64_t loc, double t, int64_t r)
{
    (void)ctx;
    check_time(loc, t);
    if (r < 0 || r >= nregions)
        abort();
    if (depth[loc] == MAXDEPTH)
        return -1;
    stack[loc][depth[loc]++] = r;
    return 0;
}

static int leave(void *ctx, int64_t loc, double t, int64_t r)
{
    (void)ctx;
    check_time(loc, t);
    if (depth[loc] == 0 || stack[loc][depth[loc] - 1] != r)
        abort();
    depth[loc]--;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    size_t mn = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    size_t pn = (size_t)data[4] | (size_t)data[5] << 8 | (size_t)data[6] << 16 | (size_t)data[7] << 24;
    const uint8_t *p = data + 8;
    size_t left = size - 8;
    mn = mn > left ? left : mn;
    pn = pn > left - mn ? left - mn : pn;
    /* private copies, so reads past a part's end are caught */
    unsigned char *m = malloc(mn ? mn : 1), *pr = malloc(pn ? pn : 1), *t = malloc(left - mn - pn + 1);
    if (!m || !pr || !t)
        abort();
    memcpy(m, p, mn);
    memcpy(pr, p + mn, pn);
    memcpy(t, p + mn + pn, left - mn - pn);
    nmetrics = nprocs = 0;
    nregions = nprocesses = nlocs = nnodes = 0;
    ari_profile_sink k = {NULL, on_metric, on_proc, on_node, on_value, on_meta, NULL, on_time_unit};
    ari_event_sink ek = {NULL, process, location, region, NULL, enter, leave,
                         NULL, NULL,    NULL,     NULL,   NULL, NULL, on_system_node, on_process_node};
    ari_error err = {0};
    int rc = ari_hpctoolkit_db_read_mem(m, mn, pr, pn, t, left - mn - pn, &k, &ek, &err);
    if (rc != 0 && !err.message[0])
        abort(); /* an error always says what */
    if (rc == 0)
        for (int64_t l = 0; l < nlocs; l++)
            if (depth[l] != 0)
                abort(); /* every Enter left by the end */
    free(m);
    free(pr);
    free(t);
    return 0;
}
