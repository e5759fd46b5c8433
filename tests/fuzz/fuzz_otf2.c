/* fuzz_otf2.c: libFuzzer target for the OTF2 reader (otf2.c over libotf2).
 * libotf2 reads an archive by path, so each input is split on
 * FUZZ_FILE_MARK (fuzz_files.h) into the files of an archive,
 * in this order: traces.otf2 (the anchor), traces.def, traces/0.evt,
 * traces/0.def, traces/1.evt, traces/1.def, traces/5.evt, traces/5.def
 * (the locations of test_otf2.c's generated trace); missing parts are
 * missing files. The probe sees the anchor's bytes. The sink checks what the
 * reader promises (handles it gave, finite times, each location's times
 * not going back, a collective's begin not after its end, known message
 * kinds) and aborts otherwise; a clean error (-1 with a code) is fine.
 *
 * libotf2 is the system's uninstrumented library: the target explores our
 * checks of what libotf2 hands over, and finds libotf2's own crashes
 * (SEGV) but not its silent out-of-bounds reads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_files.h"
#include "ingest/otf2.h"

/* libotf2 3.0.2 leaks inside itself on some bad anchors: the anchor's file
 * handle (otf2_file_posix_open, its path from OTF2_UTILS_IO_JoinPath) when
 * OTF2_Reader_Open accepts an unknown file substrate and the reader is then
 * closed (147 bytes), and the whole archive (otf2_archive_open, about
 * 10 kB) whenever OTF2_Reader_Open fails after reading the anchor, and
 * the members of a Group record cut in its middle (16 bytes, an unnamed
 * internal function). otf2.c refuses the anchor causes it knows before
 * libotf2 sees the file (a property count larger than the file, bad
 * property names); the rest are suppressed here, by the library's name, so
 * the fuzzer can go on. That also hides a leak of our callbacks' own
 * allocations (they run under libotf2's frames): test_otf2.c checks those
 * under ASan with only the first two suppressions, over hundreds of cut
 * files. LeakSanitizer reads these suppressions by itself. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libopen-trace-format2.so\n";
}

/* libotf2 allocates a Group record's members as the record says (up to
 * 32 GB for a cut or corrupt traces.def) and fails cleanly when malloc
 * returns NULL ("Could not allocate memory for members array!"), as it does
 * outside the sanitizers; ASan would abort instead (def-huge-group.bin). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

#define MAX_HANDLES 100000

static int64_t nprocs, nlocs, nregions, ncomms, nevents;
static double last_time[MAX_HANDLES];
static int seen[MAX_HANDLES];

static void check_time(int64_t loc, double t)
{
    if (loc < 0 || loc >= nlocs || !isfinite(t))
        abort();
    if (seen[loc] && t < last_time[loc])
        abort();
    seen[loc] = 1;
    last_time[loc] = t;
    nevents++;
}

static int64_t on_process(void *ctx, int64_t rank, const char *name)
{
    (void)ctx, (void)name;
    if (rank < 0 || nprocs >= MAX_HANDLES)
        abort();
    return nprocs++;
}

static int64_t on_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    (void)ctx, (void)name;
    if (process < 0 || process >= nprocs || thread < 0 || nlocs >= MAX_HANDLES)
        abort();
    seen[nlocs] = 0;
    return nlocs++;
}

static int64_t on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    (void)ctx, (void)file, (void)role;
    if (!name || line < 0)
        abort();
    return nregions++;
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

static int64_t on_comm(void *ctx, const char *name, int64_t size)
{
    (void)ctx, (void)name;
    if (size < -1)
        abort();
    return ncomms++;
}

static int on_region_event(void *ctx, int64_t loc, double t, int64_t region)
{
    (void)ctx;
    if (region < 0 || region >= nregions)
        abort();
    check_time(loc, t);
    return 0;
}

static int on_instant(void *ctx, int64_t loc, double t, const char *name)
{
    (void)ctx;
    if (!name || !name[0])
        abort();
    check_time(loc, t);
    return 0;
}

static int on_message(void *ctx, const ari_event_msg *m)
{
    (void)ctx;
    if ((unsigned)m->kind > ARI_MSG_IRECV || m->communicator < -1 || m->communicator >= ncomms || m->peer < -1)
        abort();
    check_time(m->location, m->time);
    return 0;
}

static int on_collective(void *ctx, const ari_event_collective *c)
{
    (void)ctx;
    if (!c->op || !isfinite(c->begin) || c->begin > c->end || c->communicator < -1 || c->communicator >= ncomms)
        abort();
    check_time(c->location, c->end);
    return 0;
}

static int on_metric(void *ctx, int64_t loc, double t, const char *metric, const char *unit, double v)
{
    (void)ctx, (void)unit;
    if (!metric || !isfinite(v))
        abort();
    check_time(loc, t);
    return 0;
}

static int on_note(void *ctx, const char *key, const char *json)
{
    (void)ctx;
    if (!key || !json || !json[0])
        abort();
    return 0;
}

static void on_progress(void *ctx, double f)
{
    (void)ctx;
    if (!(f >= 0 && f <= 1))
        abort();
}

static const char *const files[] = {"traces.otf2",  "traces.def",   "traces/0.evt", "traces/0.def",
                                    "traces/1.evt", "traces/1.def", "traces/5.evt", "traces/5.def"};
#define NFILES (sizeof files / sizeof *files)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part parts[NFILES];
    size_t n = fuzz_split(data, size, parts, NFILES);
    char path[4096], anchor[4096];
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = fuzz_write(files[i], parts[i].data, parts[i].size, i == 0 ? anchor : path, sizeof path);
    if (rc == 0) {
        (void)ari_otf2_probe((const char *)parts[0].data, parts[0].size);
        nprocs = nlocs = nregions = ncomms = nevents = nnodes = 0;
        ari_event_sink k = {NULL,           on_process,      on_location,     on_region, on_comm,
                            on_region_event, on_region_event, on_instant,      on_message, on_collective,
                            on_metric,      on_note,         on_progress,     on_system_node, on_process_node};
        ari_error err = {0};
        if (ari_otf2_read(anchor, &k, &err) < 0 && !err.code[0])
            abort(); /* our sink never fails: an error must be the reader's */
    }
    fuzz_empty(fuzz_dir());
    return 0;
}
