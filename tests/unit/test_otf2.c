/* test_otf2.c: the OTF2 reader (src/ingest/otf2.c) into the recording
 * event sink (test_event_sink.h):
 *  - a trace written here with libotf2's own writer (2 ranks, a second
 *    thread, messages over MPI_COMM_WORLD and over a communicator whose
 *    ranks are reversed, a collective, non-blocking send and receive, a
 *    metric), every value known by construction;
 *  - with ../shared/data, Pipit's ping-pong traces and the values Pipit's
 *    tests assert (otf2-tests.py, trace.py), the PAPI variant's counters,
 *    and otf2-print (otf2-tools) run on the same files, which must agree
 *    on every location's sequence of event names;
 *  - bad input: a missing .evt, truncated traces.def and .evt, a
 *    non-OTF2 anchor, a corrupt anchor, a sink that fails at any callback:
 *    each -1 with a clear message, no crash or leak.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "ingest/otf2.h"
#include "test_event_sink.h"
#include "test_helpers.h"
#include "util/fs.h"

/* libotf2 3.0.2 leaks the anchor's file handle (otf2_file_posix_open,
 * with its path from OTF2_UTILS_IO_JoinPath) when OTF2_Reader_Open accepts
 * an anchor whose file substrate is unknown and the reader is then closed:
 * 147 bytes inside the library per such file, not ours to free. LeakSanitizer
 * reads these suppressions by itself; leaks of our code are still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:otf2_file_posix_open\nleak:OTF2_UTILS_IO_JoinPath\n";
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

/* ---- a trace written with libotf2 ------------------------------------------ */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
    (void)u, (void)ft, (void)loc, (void)cb, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)u, (void)ft, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

enum { S_EMPTY, S_MAIN, S_SEND, S_RECV, S_ALLRED, S_FILE, S_THREAD, S_RANK0, S_RANK1, S_WORLD, S_NODE_CLASS,
       S_NODE, S_CYC, S_UNIT, S_REVERSED, S_PROG, S_MPI, S_NSTRINGS };
static const char *const gen_strings[S_NSTRINGS] = {
    "", "main", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "ring.c", "Master thread", "MPI Rank 0", "MPI Rank 1",
    "MPI_COMM_WORLD", "node", "n0", "PAPI_TOT_CYC", "#", "REVERSED", "prog", "MPI"};
enum { R_MAIN, R_SEND, R_RECV, R_ALLRED };
enum { C_WORLD, C_REVERSED };

/* Ticks: 2 GHz from an offset of 1000, so ns = (t - 1000) / 2. */
#define GEN_RES 2000000000ULL
#define GEN_OFFSET 1000ULL

static void gen_events_rank0(OTF2_EvtWriter *w)
{
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v = {.unsigned_int = 5};
    OTF2_EvtWriter_ProgramBegin(w, NULL, 1000, S_PROG, 0, NULL);
    OTF2_EvtWriter_Enter(w, NULL, 1100, R_MAIN);
    OTF2_EvtWriter_Metric(w, NULL, 1100, 0, 1, &type, &v);
    OTF2_EvtWriter_Enter(w, NULL, 1200, R_SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, 1210, 1, C_WORLD, 7, 100);
    OTF2_EvtWriter_Leave(w, NULL, 1300, R_SEND);
    OTF2_EvtWriter_Enter(w, NULL, 1400, R_RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 1500, 0, C_REVERSED, 8, 200); /* rank 0 of REVERSED is world rank 1 */
    OTF2_EvtWriter_Leave(w, NULL, 1600, R_RECV);
    OTF2_EvtWriter_Enter(w, NULL, 1700, R_ALLRED);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1710);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 1790, OTF2_COLLECTIVE_OP_ALLREDUCE, C_WORLD, OTF2_UNDEFINED_UINT32,
                                    8, 16);
    OTF2_EvtWriter_Leave(w, NULL, 1800, R_ALLRED);
    OTF2_EvtWriter_MpiIsend(w, NULL, 1900, 1, C_WORLD, 9, 300, 42);
    OTF2_EvtWriter_MpiIsendComplete(w, NULL, 1950, 42);
    OTF2_EvtWriter_Leave(w, NULL, 2000, R_MAIN);
    OTF2_EvtWriter_ProgramEnd(w, NULL, 2100, 0);
}

static void gen_events_rank1(OTF2_EvtWriter *w)
{
    OTF2_EvtWriter_ProgramBegin(w, NULL, 1050, S_PROG, 0, NULL);
    OTF2_EvtWriter_Enter(w, NULL, 1150, R_MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 1160, R_RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 1250, 0, C_WORLD, 7, 100);
    OTF2_EvtWriter_Leave(w, NULL, 1260, R_RECV);
    OTF2_EvtWriter_Enter(w, NULL, 1300, R_SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, 1350, 1, C_REVERSED, 8, 200); /* rank 1 of REVERSED is world rank 0 */
    OTF2_EvtWriter_Leave(w, NULL, 1360, R_SEND);
    OTF2_EvtWriter_Enter(w, NULL, 1700, R_ALLRED);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1705);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 1795, OTF2_COLLECTIVE_OP_ALLREDUCE, C_WORLD, OTF2_UNDEFINED_UINT32,
                                    8, 16);
    OTF2_EvtWriter_Leave(w, NULL, 1800, R_ALLRED);
    OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 1850, 7);
    OTF2_EvtWriter_MpiIrecv(w, NULL, 1950, 0, C_WORLD, 9, 300, 7);
    OTF2_EvtWriter_Leave(w, NULL, 2000, R_MAIN);
    OTF2_EvtWriter_ProgramEnd(w, NULL, 2100, 0);
}

static void gen_events_thread(OTF2_EvtWriter *w)
{
    OTF2_EvtWriter_Enter(w, NULL, 1500, R_MAIN);
    OTF2_EvtWriter_Leave(w, NULL, 1600, R_MAIN);
}

/* Locations: 0 (rank 0), 1 (rank 1), 5 (rank 1's second thread). */
static const uint64_t gen_locations[3] = {0, 1, 5};
static const uint64_t gen_nevents[3] = {17, 16, 2};

static void gen_definitions(OTF2_GlobalDefWriter *d)
{
    OTF2_GlobalDefWriter_WriteClockProperties(d, GEN_RES, GEN_OFFSET, 1100, OTF2_UNDEFINED_TIMESTAMP);
    for (int i = 0; i < S_NSTRINGS; i++)
        OTF2_GlobalDefWriter_WriteString(d, i, gen_strings[i]);
    OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_MPI, S_MPI, OTF2_PARADIGM_CLASS_PROCESS);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, S_NODE, S_NODE_CLASS, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteRegion(d, R_MAIN, S_MAIN, S_MAIN, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, S_FILE, 12, 40);
    OTF2_GlobalDefWriter_WriteRegion(d, R_SEND, S_SEND, S_SEND, S_EMPTY, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_MPI, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(d, R_RECV, S_RECV, S_RECV, S_EMPTY, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_MPI, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(d, R_ALLRED, S_ALLRED, S_ALLRED, S_EMPTY, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_MPI, 0, 0);
    OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, S_RANK0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(d, 1, S_RANK1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (int i = 0; i < 3; i++)
        OTF2_GlobalDefWriter_WriteLocation(d, gen_locations[i], S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           gen_nevents[i], i == 0 ? 0 : 1);
    const uint64_t world[2] = {0, 1}, reversed[2] = {1, 0};
    OTF2_GlobalDefWriter_WriteGroup(d, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, world);
    OTF2_GlobalDefWriter_WriteGroup(d, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, world);
    OTF2_GlobalDefWriter_WriteGroup(d, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, reversed);
    OTF2_GlobalDefWriter_WriteGroup(d, 3, S_EMPTY, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 0, NULL);
    OTF2_GlobalDefWriter_WriteComm(d, C_WORLD, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(d, C_REVERSED, S_REVERSED, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteMetricMember(d, 0, S_CYC, S_EMPTY, OTF2_METRIC_TYPE_PAPI,
                                           OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                           S_UNIT);
    const OTF2_MetricMemberRef members[1] = {0};
    OTF2_GlobalDefWriter_WriteMetricClass(d, 0, 1, members, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
}
/* What gen_definitions wrote: 1+17+1+1+4+2+3+4+2+1+1 definitions of 11 types. */
#define GEN_NDEFS 37
#define GEN_NTYPES 11

/* Writes the trace into dir (dir/traces.otf2, traces.def, traces/). */
static void gen_trace(const char *dir)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    OTF2_Archive_SetCreator(a, "ariadne test_otf2");
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    void (*const writers[3])(OTF2_EvtWriter *) = {gen_events_rank0, gen_events_rank1, gen_events_thread};
    for (int i = 0; i < 3; i++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, gen_locations[i]);
        assert_non_null(w);
        writers[i](w);
        uint64_t n = 0;
        OTF2_EvtWriter_GetNumberOfEvents(w, &n);
        assert_int_equal(n, gen_nevents[i]);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    assert_int_equal(OTF2_Archive_OpenDefFiles(a), OTF2_SUCCESS);
    for (int i = 0; i < 3; i++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, gen_locations[i]);
        OTF2_Archive_CloseDefWriter(a, w);
    }
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a);
    assert_non_null(d);
    gen_definitions(d);
    OTF2_Archive_CloseGlobalDefWriter(a, d);
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

static char *path_in(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

/* Reads dir/traces.otf2 into s (initialised here); the reader's result. */
static int read_into(const char *anchor, tes_sink *s, ari_error *err)
{
    tes_init(s);
    ari_event_sink k = tes_sink_of(s);
    memset(err, 0, sizeof *err);
    return ari_otf2_read(anchor, &k, err);
}

/* The rows of one location handle, in arrival order, as "name" strings. */
static size_t location_names(const tes_sink *s, int64_t loc, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events && n < cap; i++)
        if (s->events[i].location == loc)
            out[n++] = s->events[i].name;
    return n;
}

static const tes_event *row(const tes_sink *s, int64_t loc, size_t k)
{
    for (size_t i = 0; i < s->n_events; i++)
        if (s->events[i].location == loc && k-- == 0)
            return &s->events[i];
    fail_msg("location %lld has no row %zu", (long long)loc, k);
    return NULL;
}

static void test_generated(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    gen_trace(dir);
    char *anchor = path_in(dir, "traces.otf2");
    tes_sink s;
    ari_error err;
    int rc = read_into(anchor, &s, &err);
    if (rc != 0)
        fail_msg("%s", err.message);

    /* processes (rank = location group id) and threads (ordinal in the group) */
    assert_int_equal(s.n_procs, 2);
    assert_int_equal(s.procs[0].rank, 0);
    assert_string_equal(s.procs[0].name, "MPI Rank 0");
    assert_int_equal(s.procs[1].rank, 1);
    assert_int_equal(s.n_locs, 3);
    assert_int_equal(s.locs[0].thread, 0);
    assert_int_equal(s.locs[1].thread, 0);
    assert_int_equal(s.locs[2].process, 1);
    assert_int_equal(s.locs[2].thread, 1); /* location 5, the second of rank 1 */
    assert_string_equal(s.locs[2].name, "Master thread");

    /* rows: 16 + 16 + 2, in time order per location */
    assert_int_equal(s.n_events, 34);
    assert_int_equal(s.backwards, 0);
    assert_int_equal(s.bad_handles, 0);
    const char *names[20];
    static const char *const want0[] = {"ProgramBegin", "main", "MPI_Send", "MpiSend", "MPI_Send", "MPI_Recv",
                                        "MpiRecv", "MPI_Recv", "MPI_Allreduce", "MpiCollectiveBegin",
                                        "MpiCollectiveEnd", "MPI_Allreduce", "MpiIsend", "MpiIsendComplete",
                                        "main", "ProgramEnd"};
    assert_int_equal(location_names(&s, 0, names, 20), 16);
    for (int i = 0; i < 16; i++)
        assert_string_equal(names[i], want0[i]);
    assert_int_equal(location_names(&s, 2, names, 20), 2);

    /* times: (t - 1000) / 2 ns */
    assert_true(row(&s, 0, 0)->time == 0.0);
    assert_true(row(&s, 0, 1)->time == 50.0 && row(&s, 0, 1)->type == TES_ENTER);
    assert_true(row(&s, 0, 15)->time == 550.0);
    assert_true(row(&s, 1, 0)->time == 25.0);
    assert_true(row(&s, 2, 0)->time == 250.0 && row(&s, 2, 1)->type == TES_LEAVE);

    /* regions: made on first use, with file, line and role */
    assert_int_equal(s.n_regions, 4);
    assert_string_equal(s.regions[0].name, "main");
    assert_string_equal(s.regions[0].file, "ring.c");
    assert_int_equal(s.regions[0].line, 12);
    assert_string_equal(s.regions[0].role, "function");
    assert_string_equal(s.regions[1].name, "MPI_Send");
    assert_string_equal(s.regions[1].role, "mpi");

    /* messages: peers translated through the communicator's group */
    assert_int_equal(s.n_msgs, 8);
    const ari_event_msg *m = &s.msgs[0];
    assert_int_equal(m->kind, ARI_MSG_SEND);
    assert_int_equal(m->location, 0);
    assert_true(m->time == 105.0);
    assert_int_equal(m->peer, 1);
    assert_int_equal(m->tag, 7);
    assert_int_equal(m->bytes, 100);
    assert_string_equal(s.comms[m->communicator].name, "MPI_COMM_WORLD");
    assert_int_equal(s.comms[m->communicator].size, 2);
    m = &s.msgs[1]; /* rank 0's receive on REVERSED from its rank 0 = world rank 1 */
    assert_int_equal(m->kind, ARI_MSG_RECV);
    assert_int_equal(m->peer, 1);
    assert_int_equal(m->bytes, 200);
    assert_string_equal(s.comms[m->communicator].name, "REVERSED");
    m = &s.msgs[2];
    assert_int_equal(m->kind, ARI_MSG_ISEND);
    assert_int_equal(m->request, 42);
    assert_int_equal(m->peer, 1);
    m = &s.msgs[3];
    assert_int_equal(m->kind, ARI_MSG_ISEND_COMPLETE);
    assert_int_equal(m->request, 42);
    assert_int_equal(m->peer, -1);
    assert_int_equal(m->communicator, -1);
    m = &s.msgs[5]; /* rank 1's send on REVERSED to its rank 1 = world rank 0 */
    assert_int_equal(m->kind, ARI_MSG_SEND);
    assert_int_equal(m->location, 1);
    assert_int_equal(m->peer, 0);
    assert_int_equal(s.msgs[6].kind, ARI_MSG_IRECV_REQUEST);
    assert_int_equal(s.msgs[7].kind, ARI_MSG_IRECV);
    assert_int_equal(s.msgs[7].request, 7);
    assert_int_equal(s.msgs[7].peer, 0);
    assert_int_equal(s.msgs[7].bytes, 300);
    assert_int_equal(s.n_comms, 2);

    /* the collective, reported at its end with its begin time */
    assert_int_equal(s.n_colls, 2);
    assert_string_equal(s.colls[0].c.op, "Allreduce");
    assert_true(s.colls[0].c.begin == 355.0 && s.colls[0].c.end == 395.0);
    assert_int_equal(s.colls[0].c.root, -1);
    assert_int_equal(s.colls[0].c.bytes_sent, 8);
    assert_int_equal(s.colls[0].c.bytes_received, 16);
    assert_true(s.colls[1].c.begin == 352.5);

    /* the metric sample */
    assert_int_equal(s.n_metrics, 1);
    assert_string_equal(s.metrics[0].name, "PAPI_TOT_CYC");
    assert_string_equal(s.metrics[0].unit, "#");
    assert_true(s.metrics[0].value == 5.0 && s.metrics[0].time == 50.0);

    /* notes */
    char want[64];
    snprintf(want, sizeof want, "{\"total\":%d,\"types\":%d,", GEN_NDEFS, GEN_NTYPES);
    assert_non_null(tes_note_value(&s, "definitions"));
    assert_ptr_equal(strstr(tes_note_value(&s, "definitions"), want), tes_note_value(&s, "definitions"));
    assert_non_null(strstr(tes_note_value(&s, "definitions"), "\"Location\":3"));
    assert_non_null(strstr(tes_note_value(&s, "definitions"), "\"String\":17"));
    assert_string_equal(tes_note_value(&s, "clock"),
                        "{\"timer_resolution\":2000000000,\"global_offset\":1000,\"trace_length\":1100}");
    assert_string_equal(tes_note_value(&s, "creator"), "\"ariadne test_otf2\"");
    assert_true(s.progress == 1.0);

    tes_free(&s);
    free(anchor);
    ari_remove_tree(dir);
    free(dir);
}

static void test_probe(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    gen_trace(dir);
    char *anchor = path_in(dir, "traces.otf2");
    size_t n = 0;
    char *head = NULL;
    FILE *f = fopen(anchor, "rb");
    assert_non_null(f);
    head = malloc(4096);
    n = fread(head, 1, 4096, f);
    fclose(f);
    assert_true(ari_otf2_probe(head, n));
    assert_false(ari_otf2_probe(head, 6));
    assert_false(ari_otf2_probe("KIND,NAME\n", 10));
    assert_false(ari_otf2_probe("", 0));
    free(head);
    free(anchor);
    ari_remove_tree(dir);
    free(dir);
}

/* ---- Pipit's ping-pong traces ----------------------------------------------- */

static const char *shared_data(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    return d ? d : "../shared/data";
}

/* The anchor of a ping-pong trace of the shared data, or NULL (skip). */
static char *pingpong(const char *which)
{
    char *p;
    if (asprintf(&p, "%s/pipit/pipit/tests/data/%s/traces.otf2", shared_data(), which) < 0)
        abort();
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void test_pingpong_pipit(void **state)
{
    (void)state;
    char *anchor = pingpong("ping-pong-otf2");
    if (!anchor)
        skip();
    tes_sink s;
    ari_error err;
    if (read_into(anchor, &s, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(s.backwards, 0);
    assert_int_equal(s.bad_handles, 0);
    tes_sort(&s);

    /* otf2-tests.py, test_events */
    assert_int_equal(s.n_events, 120);
    assert_int_equal(tes_count_type(&s, TES_ENTER), 42);
    assert_int_equal(tes_count_type(&s, TES_LEAVE), 42);
    assert_int_equal(tes_count_type(&s, TES_INSTANT), 36);
    static const char *const want[] = {"ProgramBegin", "ProgramEnd", "MPI_Send", "MPI_Recv", "MpiSend",
                                       "MpiRecv", "MPI_Init", "MPI_Finalize", "MPI_Comm_rank", "MPI_Comm_size",
                                       "int main(int, char**)"};
    const char *names[32];
    assert_int_equal(tes_names(&s, names, 32), 11);
    for (size_t i = 0; i < 11; i++)
        assert_true(tes_has_name(&s, want[i]));
    assert_int_equal(tes_count_name(&s, "MPI_Send"), 32);
    assert_int_equal(s.n_procs, 2);
    assert_int_equal(s.n_locs, 2);
    assert_int_equal(tes_count_process(&s, 0), 60);
    assert_int_equal(tes_count_process(&s, 1), 60);
    assert_int_equal(tes_count_thread(&s, 0), 120);
    for (size_t i = 1; i < s.n_events; i++) /* strictly increasing over the whole sorted table */
        assert_true(s.events[i].time > s.events[i - 1].time);
    /* by hand from otf2-print: the first event is rank 1's ProgramBegin at the
     * global offset; rank 0's comes 644757 ticks later at 2095197216 ticks/s */
    assert_true(s.events[0].time == 0.0 && s.events[0].process == 1);
    assert_string_equal(s.events[1].name, "int main(int, char**)");
    const tes_event *pb0 = NULL;
    for (size_t i = 0; i < s.n_events && !pb0; i++)
        if (s.events[i].process == 0)
            pb0 = &s.events[i];
    assert_string_equal(pb0->name, "ProgramBegin");
    assert_true(fabs(pb0->time - 644757.0 * 1e9 / 2095197216.0) < 1e-6);

    /* otf2-tests.py, test_definitions: 533 definitions of 17 types, 2 Location, Comm */
    const char *defs = tes_note_value(&s, "definitions");
    assert_non_null(defs);
    assert_ptr_equal(strstr(defs, "{\"total\":533,\"types\":17,"), defs);
    assert_non_null(strstr(defs, "\"Location\":2"));
    assert_non_null(strstr(defs, "\"Comm\":3"));
    assert_non_null(strstr(defs, "\"String\":267"));
    assert_non_null(strstr(defs, "\"Region\":235"));

    /* trace.py: 8 messages of 4177920 bytes each way (16384 * (2^8 - 1)) */
    uint64_t bytes[2][2] = {{0}}, count[2][2] = {{0}}, recv_bytes[2] = {0};
    for (size_t i = 0; i < s.n_msgs; i++) {
        const ari_event_msg *m = &s.msgs[i];
        int64_t me = s.procs[s.locs[m->location].process].rank;
        assert_true(me >= 0 && me < 2 && m->peer >= 0 && m->peer < 2);
        assert_string_equal(s.comms[m->communicator].name, "MPI_COMM_WORLD");
        if (m->kind == ARI_MSG_SEND) {
            bytes[me][m->peer] += m->bytes;
            count[me][m->peer]++;
        } else {
            assert_int_equal(m->kind, ARI_MSG_RECV);
            recv_bytes[me] += m->bytes;
        }
    }
    assert_int_equal(s.n_msgs, 32);
    assert_int_equal(bytes[0][1], 4177920);
    assert_int_equal(bytes[1][0], 4177920);
    assert_int_equal(bytes[0][0] + bytes[1][1], 0);
    assert_int_equal(count[0][1], 8);
    assert_int_equal(count[1][0], 8);
    assert_int_equal(recv_bytes[0], 4177920);
    assert_int_equal(recv_bytes[1], 4177920);
    assert_int_equal(s.n_colls, 0);
    assert_int_equal(s.n_metrics, 0);
    assert_string_equal(tes_note_value(&s, "creator"), "\"Score-P 7.1\"");
    tes_free(&s);
    free(anchor);
}

static void test_pingpong_papi(void **state)
{
    (void)state;
    char *anchor = pingpong("ping-pong-otf2-papi");
    if (!anchor)
        skip();
    tes_sink s;
    ari_error err;
    if (read_into(anchor, &s, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(s.n_events, 120);
    /* 84 Metric events (one with each Enter and Leave), 3 PAPI members each */
    assert_int_equal(s.n_metrics, 252);
    static const char *const want[3] = {"PAPI_TOT_CYC", "PAPI_L2_TCM", "PAPI_BR_MSP"};
    for (int j = 0; j < 3; j++) {
        size_t n = 0;
        for (size_t i = 0; i < s.n_metrics; i++)
            n += strcmp(s.metrics[i].name, want[j]) == 0;
        assert_int_equal(n, 84);
    }
    /* the first sample of location 0, from otf2-print: 98850, 2191, 421 */
    assert_int_equal(s.metrics[0].location, 0);
    assert_string_equal(s.metrics[0].name, "PAPI_TOT_CYC");
    assert_string_equal(s.metrics[0].unit, "#");
    assert_true(s.metrics[0].value == 98850.0);
    assert_true(s.metrics[1].value == 2191.0 && s.metrics[2].value == 421.0);
    /* synchronous: each sample at the time of an Enter or Leave of its location */
    for (size_t i = 0; i < s.n_metrics; i++) {
        int found = 0;
        for (size_t e = 0; e < s.n_events && !found; e++)
            found = s.events[e].location == s.metrics[i].location && s.events[e].time == s.metrics[i].time &&
                    s.events[e].type != TES_INSTANT;
        assert_true(found);
    }
    assert_non_null(strstr(tes_note_value(&s, "definitions"), "\"MetricMember\":3,\"MetricClass\":1"));
    tes_free(&s);
    free(anchor);
}

/* ---- otf2-print agrees -------------------------------------------------------- */

/* Pipit's name of an otf2-print event line, NULL to skip (METRIC, other). */
static const char *print_name(const char *kind, const char *line, char *buf, size_t cap)
{
    static const char *const map[][2] = {
        {"PROGRAM_BEGIN", "ProgramBegin"}, {"PROGRAM_END", "ProgramEnd"}, {"MPI_SEND", "MpiSend"},
        {"MPI_ISEND", "MpiIsend"}, {"MPI_ISEND_COMPLETE", "MpiIsendComplete"}, {"MPI_RECV", "MpiRecv"},
        {"MPI_IRECV_REQUEST", "MpiIrecvRequest"}, {"MPI_IRECV", "MpiIrecv"},
        {"MPI_COLLECTIVE_BEGIN", "MpiCollectiveBegin"}, {"MPI_COLLECTIVE_END", "MpiCollectiveEnd"},
        {"BUFFER_FLUSH", "BufferFlush"}, {"MEASUREMENT_ON_OFF", "MeasurementOnOff"}};
    if (strcmp(kind, "ENTER") == 0 || strcmp(kind, "LEAVE") == 0) {
        const char *q = strstr(line, "Region: \"");
        const char *e = q ? strstr(q + 9, "\" <") : NULL;
        if (!e)
            return NULL;
        snprintf(buf, cap, "%.*s", (int)(e - q - 9), q + 9);
        return buf;
    }
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(kind, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* Runs otf2-print on the anchor and compares, location by location, the
 * sequence of event names with the reader's rows; location ids map to the
 * sink's handles in definition order (loc_ids). Returns 0, or -1 when
 * otf2-print is not installed. */
static int compare_with_otf2_print(const char *anchor, const tes_sink *s, const uint64_t *loc_ids, size_t nloc)
{
    if (system("command -v otf2-print >/dev/null 2>&1") != 0)
        return -1;
    char *cmd;
    if (asprintf(&cmd, "otf2-print '%s'", anchor) < 0)
        abort();
    FILE *p = popen(cmd, "r");
    free(cmd);
    assert_non_null(p);
    size_t *next = calloc(nloc, sizeof *next), printed = 0, metrics = 0;
    char line[4096], kind[64], buf[512];
    unsigned long long loc, t;
    while (fgets(line, sizeof line, p)) {
        if (sscanf(line, "%63s %llu %llu", kind, &loc, &t) != 3)
            continue;
        metrics += strcmp(kind, "METRIC") == 0;
        const char *name = print_name(kind, line, buf, sizeof buf);
        if (!name)
            continue;
        size_t h = 0;
        while (h < nloc && loc_ids[h] != loc)
            h++;
        assert_true(h < nloc);
        const char *mine[4096];
        size_t n = location_names(s, (int64_t)h, mine, 4096);
        if (next[h] >= n)
            fail_msg("otf2-print has more events than the reader on location %llu", loc);
        if (strcmp(mine[next[h]], name) != 0)
            fail_msg("location %llu event %zu: otf2-print %s, reader %s", loc, next[h], name, mine[next[h]]);
        next[h]++;
        printed++;
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(printed, s->n_events);
    size_t samples = 0;
    for (size_t i = 0; i < s->n_metrics; i++)
        samples += i == 0 || s->metrics[i].time != s->metrics[i - 1].time ||
                   s->metrics[i].location != s->metrics[i - 1].location;
    assert_int_equal(metrics, samples);
    free(next);
    return 0;
}

static void test_otf2_print(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    gen_trace(dir);
    char *anchor = path_in(dir, "traces.otf2");
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(anchor, &s, &err), 0);
    if (compare_with_otf2_print(anchor, &s, gen_locations, 3) < 0) {
        tes_free(&s);
        free(anchor);
        ari_remove_tree(dir);
        free(dir);
        skip();
    }
    tes_free(&s);
    const uint64_t ids[2] = {0, 1};
    const char *which[2] = {"ping-pong-otf2", "ping-pong-otf2-papi"};
    for (int i = 0; i < 2; i++) {
        char *a = pingpong(which[i]);
        if (!a)
            continue;
        assert_int_equal(read_into(a, &s, &err), 0);
        assert_int_equal(compare_with_otf2_print(a, &s, ids, 2), 0);
        tes_free(&s);
        free(a);
    }
    free(anchor);
    ari_remove_tree(dir);
    free(dir);
}

/* ---- bad input -------------------------------------------------------------- */

static long bad_cut = -1; /* the cut being tried, for the messages */

/* Expects the read of anchor to fail with a message containing want. */
static void expect_error(const char *anchor, const char *want)
{
    tes_sink s;
    ari_error err;
    int rc = read_into(anchor, &s, &err);
    tes_free(&s);
    if (rc != -1)
        fail_msg("read of %s did not fail (want \"%s\", cut %ld)", anchor, want, bad_cut);
    if (!strstr(err.message, want))
        fail_msg("message \"%s\" lacks \"%s\" (cut %ld)", err.message, want, bad_cut);
}

static void truncate_file(const char *path, off_t size)
{
    assert_int_equal(truncate(path, size), 0);
}

static off_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

/* Copies src to dst (whole file). */
static void copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* A fresh copy of a trace (anchor, traces.def, traces/0..n.evt/.def)
 * into a new temporary directory; returns the directory. */
static char *copy_trace(const char *anchor)
{
    char *src = strdup(anchor);
    *strrchr(src, '/') = '\0';
    char *dir = test_tmpdir();
    const char *files[] = {"traces.otf2", "traces.def", "traces/0.evt", "traces/0.def", "traces/1.evt",
                           "traces/1.def", "traces/5.evt", "traces/5.def"};
    char *sub = path_in(dir, "traces");
    mkdir(sub, 0700);
    free(sub);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *a = path_in(src, files[i]), *b = path_in(dir, files[i]);
        if (access(a, R_OK) == 0)
            copy_file(a, b);
        free(a), free(b);
    }
    free(src);
    return dir;
}

/* The file name beside an anchor: its directory + "/" + name. */
static char *sibling(const char *anchor, const char *name)
{
    const char *slash = strrchr(anchor, '/');
    char *p;
    if (asprintf(&p, "%.*s/%s", (int)(slash - anchor), anchor, name) < 0)
        abort();
    return p;
}

/* Each case on a fresh copy of the trace of anchor_src. */
static void bad_inputs_of(const char *anchor_src)
{
    char *def_src = sibling(anchor_src, "traces.def");

    /* a missing .evt */
    char *dir = copy_trace(anchor_src);
    char *anchor = path_in(dir, "traces.otf2"), *evt = path_in(dir, "traces/1.evt");
    assert_int_equal(unlink(evt), 0);
    expect_error(anchor, "traces/1.evt");
    free(evt), free(anchor);
    ari_remove_tree(dir), free(dir);

    /* a .evt cut anywhere */
    dir = copy_trace(anchor_src);
    anchor = path_in(dir, "traces.otf2"), evt = path_in(dir, "traces/0.evt");
    char *evt_src = sibling(anchor_src, "traces/0.evt");
    off_t n = file_size(evt_src);
    tes_sink whole;
    ari_error err;
    assert_int_equal(read_into(anchor, &whole, &err), 0);
    for (off_t cut = 0; cut < n; cut += cut < 64 || cut > n - 64 ? 1 : 13) {
        copy_file(evt_src, evt);
        truncate_file(evt, bad_cut = cut);
        /* a cut that loses an event fails; one that only drops the chunk's
         * trailing bytes (the end of ProgramEnd: libotf2 reads a cut record
         * as zeros, here an exit status of 0) may read everything */
        tes_sink s;
        if (read_into(anchor, &s, &err) == 0) {
            if (cut < n - 16)
                fail_msg("cut at %ld of %ld read fine: %zu events", (long)cut, (long)n, s.n_events);
            assert_int_equal(s.n_events, whole.n_events);
            assert_int_equal(s.n_metrics, whole.n_metrics);
            tes_free(&s);
            continue;
        }
        tes_free(&s);
        expect_error(anchor, "traces/0.evt");
    }
    tes_free(&whole);
    free(evt_src), free(evt), free(anchor);
    ari_remove_tree(dir), free(dir);

    /* traces.def cut anywhere, and deleted */
    dir = copy_trace(anchor_src);
    anchor = path_in(dir, "traces.otf2");
    char *def = path_in(dir, "traces.def");
    n = file_size(def_src);
    for (off_t cut = 0; cut < n; cut += cut < 64 ? 1 : 97) {
        copy_file(def_src, def);
        truncate_file(def, bad_cut = cut);
        expect_error(anchor, "traces.def");
    }
    assert_int_equal(unlink(def), 0);
    expect_error(anchor, "traces.def");
    free(def), free(anchor);
    ari_remove_tree(dir), free(dir);

    /* an anchor asking for 2^40-byte chunks (libotf2 would allocate them) */
    dir = copy_trace(anchor_src);
    anchor = path_in(dir, "traces.otf2");
    FILE *c = fopen(anchor, "r+b");
    assert_non_null(c);
    fseek(c, 12 + 5, SEEK_SET);
    fputc(0x01, c);
    fclose(c);
    expect_error(anchor, "traces.otf2: chunk sizes");
    free(anchor);
    ari_remove_tree(dir), free(dir);

    /* a corrupt anchor: the header kept, the rest overwritten; then cut short */
    dir = copy_trace(anchor_src);
    anchor = path_in(dir, "traces.otf2");
    FILE *f = fopen(anchor, "r+b");
    assert_non_null(f);
    fseek(f, 8, SEEK_SET);
    for (int i = 0; i < 64; i++)
        fputc(0xA5, f);
    fclose(f);
    expect_error(anchor, "traces.otf2");
    truncate_file(anchor, 7);
    expect_error(anchor, "traces.otf2");

    /* not an OTF2 anchor at all, and no anchor */
    FILE *g = fopen(anchor, "wb");
    fputs("Time,Event\n0,start\n", g);
    fclose(g);
    expect_error(anchor, "traces.otf2: not an OTF2 anchor file");
    unlink(anchor);
    expect_error(anchor, "traces.otf2: No such file");
    free(anchor);
    ari_remove_tree(dir), free(dir);
    free(def_src);
}

static void test_bad_input(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    gen_trace(dir);
    char *anchor = path_in(dir, "traces.otf2");
    bad_inputs_of(anchor);
    char *pp = pingpong("ping-pong-otf2");
    if (pp)
        bad_inputs_of(pp);
    free(pp);
    free(anchor);
    ari_remove_tree(dir);
    free(dir);
}

/* A sink that fails at its n-th callback stops the reader with -1 and its
 * own error left alone, for every n. */
static void test_sink_failure(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    gen_trace(dir);
    char *anchor = path_in(dir, "traces.otf2");
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(anchor, &s, &err), 0);
    int64_t calls = s.calls;
    tes_free(&s);
    assert_true(calls > 40);
    for (int64_t n = 1; n <= calls; n++) {
        tes_init(&s);
        s.fail_at = n;
        ari_event_sink k = tes_sink_of(&s);
        ari_error e = {0};
        assert_int_equal(ari_otf2_read(anchor, &k, &e), -1);
        assert_string_equal(e.code, ""); /* the sink's error, not the reader's */
        tes_free(&s);
    }
    free(anchor);
    ari_remove_tree(dir);
    free(dir);
}

/* Every file of tests/fixtures/fuzz/otf2/ (seeds and kept finds of
 * fuzz_otf2: the parts of an archive joined by the fuzz file mark, see
 * tests/fuzz/fuzz_otf2.c) reads cleanly or fails with an error code. */
static void test_fuzz_fixtures(void **state)
{
    (void)state;
    static const char *const files[] = {"traces.otf2",  "traces.def",   "traces/0.evt", "traces/0.def",
                                        "traces/1.evt", "traces/1.def", "traces/5.evt", "traces/5.def"};
    static const char mark[] = "\n--ariadne-fuzz-file--\n";
    char *fixtures = path_in(test_source_dir(), "tests/fixtures/fuzz/otf2");
    DIR *d = opendir(fixtures);
    assert_non_null(d);
    int seen = 0, many_properties = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char *path = path_in(fixtures, e->d_name), *data = NULL;
        size_t len = 0;
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        data = malloc(1 << 20);
        len = fread(data, 1, 1 << 20, f);
        fclose(f);
        char *dir = test_tmpdir(), *sub = path_in(dir, "traces");
        mkdir(sub, 0700);
        const char *p = data, *end = data + len;
        for (size_t i = 0; i < sizeof files / sizeof *files && p; i++) {
            const char *m = memmem(p, (size_t)(end - p), mark, sizeof mark - 1);
            free(test_write_file(dir, files[i], p, (size_t)((m ? m : end) - p)));
            p = m ? m + sizeof mark - 1 : NULL;
        }
        char *anchor = path_in(dir, "traces.otf2");
        tes_sink s;
        ari_error err;
        int rc = read_into(anchor, &s, &err);
        if (rc != 0 && !err.code[0])
            fail_msg("%s: failed without an error code", e->d_name);
        if (strcmp(e->d_name, "anchor-many-properties.bin") == 0) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err.message, "traces.otf2: 2147483647 properties"));
            many_properties = 1;
        }
        if (strcmp(e->d_name, "anchor-bad-property.bin") == 0) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err.message, "traces.otf2: bad property name at byte 70"));
        }
        if (strcmp(e->d_name, "def-huge-group.bin") == 0) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err.message, "traces.def: "));
        }
        if (strcmp(e->d_name, "generated.bin") == 0) {
            assert_int_equal(rc, 0);
            assert_int_equal(s.n_events, 34);
        }
        tes_free(&s);
        free(anchor), free(sub), free(data), free(path);
        ari_remove_tree(dir);
        free(dir);
        seen++;
    }
    closedir(d);
    free(fixtures);
    assert_true(seen >= 4 && many_properties);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated),   cmocka_unit_test(test_probe),
        cmocka_unit_test(test_pingpong_pipit), cmocka_unit_test(test_pingpong_papi),
        cmocka_unit_test(test_otf2_print),  cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_sink_failure), cmocka_unit_test(test_fuzz_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
