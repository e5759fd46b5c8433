/* fuzz_projections.c: libFuzzer target for the Charm++ Projections reader
 * (projections.c). An input is split on FUZZ_FILE_MARK (fuzz_files.h): the
 * first part becomes p.sts, the next ones (up to four) p.0.log, p.1.log,
 * ... (compressed or not: the line reader sniffs gzip and the others from
 * the bytes themselves). The probe sees the .sts bytes. The sink checks what the reader promises (known handles,
 * finite times in order per location, leaves matching enters) and counts;
 * a clean error is fine; a crash, leak, hang or sanitizer report is a bug.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_files.h"
#include "ingest/projections.h"

#define MAXLOC   64
#define MAXDEPTH 1100

static int64_t nprocs, nlocs, nregions, nevents;
static double last[MAXLOC];
static int64_t stack[MAXLOC][MAXDEPTH];
static int depth[MAXLOC];

static int64_t on_process(void *ctx, int64_t rank, const char *name)
{
    (void)ctx, (void)name;
    if (rank < 0)
        abort();
    return nprocs++;
}

static int64_t on_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    (void)ctx, (void)thread, (void)name;
    if (process < 0 || process >= nprocs || nlocs >= MAXLOC)
        abort();
    last[nlocs] = -INFINITY;
    depth[nlocs] = 0;
    return nlocs++;
}

static int64_t on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    (void)ctx, (void)file, (void)line, (void)role;
    if (!name)
        abort();
    return nregions++;
}

static int64_t on_comm(void *ctx, const char *name, int64_t size)
{
    (void)ctx, (void)name, (void)size;
    return 0;
}

static void at(int64_t loc, double t)
{
    if (loc < 0 || loc >= nlocs || !isfinite(t) || t < last[loc])
        abort();
    last[loc] = t;
    nevents++;
}

static int on_enter(void *ctx, int64_t loc, double t, int64_t region)
{
    (void)ctx;
    at(loc, t);
    if (region < 0 || region >= nregions || depth[loc] >= MAXDEPTH)
        abort();
    stack[loc][depth[loc]++] = region;
    return 0;
}

static int on_leave(void *ctx, int64_t loc, double t, int64_t region)
{
    (void)ctx;
    at(loc, t);
    if (depth[loc] == 0 || stack[loc][--depth[loc]] != region)
        abort();
    return 0;
}

static int on_instant(void *ctx, int64_t loc, double t, const char *name)
{
    (void)ctx;
    at(loc, t);
    if (!name)
        abort();
    return 0;
}

static int on_message(void *ctx, const ari_event_msg *m)
{
    (void)ctx;
    at(m->location, m->time);
    if (m->kind != ARI_MSG_SEND && m->kind != ARI_MSG_RECV)
        abort();
    return 0;
}

static int on_collective(void *ctx, const ari_event_collective *c)
{
    (void)ctx;
    at(c->location, c->end);
    if (!c->op || c->begin > c->end)
        abort();
    return 0;
}

static int on_metric(void *ctx, int64_t loc, double t, const char *metric, const char *unit, double v)
{
    (void)ctx, (void)unit;
    at(loc, t);
    if (!metric || !isfinite(v))
        abort();
    return 0;
}

static int on_note(void *ctx, const char *key, const char *json)
{
    (void)ctx;
    if (!key || !json || json[0] == '\0')
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part parts[5];
    size_t n = fuzz_split(data, size, parts, 5);
    char sts[4096], logs[4][4096];
    const char *paths[4];
    ari_projections_sts_probe((const char *)parts[0].data, parts[0].size);
    if (fuzz_write("p.sts", parts[0].data, parts[0].size, sts, sizeof sts) < 0)
        return 0;
    for (size_t i = 1; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "p.%zu.log", i - 1);
        if (fuzz_write(name, parts[i].data, parts[i].size, logs[i - 1], sizeof logs[i - 1]) < 0)
            goto done;
        paths[i - 1] = logs[i - 1];
    }
    ari_event_sink k = {NULL,       on_process, on_location,   on_region, on_comm, on_enter, on_leave,
                        on_instant, on_message, on_collective, on_metric, on_note, NULL, NULL, NULL};
    ari_error err;
    nprocs = nlocs = nregions = nevents = 0;
    if (ari_projections_read(sts, paths, n - 1, &k, &err) == 0)
        for (int64_t l = 0; l < nlocs; l++)
            if (depth[l] != 0) /* every enter is left by the end */
                abort();
done:
    fuzz_empty(fuzz_dir());
    return 0;
}
