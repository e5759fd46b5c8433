/* gen_otf2.c: writes a synthetic OTF2 archive with libotf2's writer: N MPI
 * ranks exchanging messages in a ring, with one known late sender, for the
 * event-trace tests (tests/api/events_ring.test.mjs) and the import
 * benchmark (tests/bench/bench_otf2.sh). It prints what a reader must find
 * (the matrix, the wait states, the per-rank function times) as JSON with
 * --expect, computed from the parameters alone.
 *
 *   gen_otf2 [--ranks N] [--iterations K | --events M] [--late-sender R]
 *            [--late-ns D] [--bytes B] [--nonblocking] [--ranks-per-node G]
 *            [--expect] [--out DIR]
 *
 * The archive is DIR/traces.otf2 (+ traces.def, traces/). Its system tree is
 * one "machine" over one "node" holding every rank, or with
 * --ranks-per-node G, ceil(N/G) nodes "node 0", "node 1", ... (class
 * "node", system-tree ids 1, 2, ...) holding ranks 0..G-1, G..2G-1, ...
 * One location group
 * (MPI process, id = rank) and one location (CPU thread, id = rank) per rank;
 * MPI_COMM_WORLD is comm 0 over the group of all ranks. The clock has 1e9
 * ticks per second (a tick is a ns) and a non-zero global offset: every
 * time below is in ns from that offset, which is the trace's origin.
 *
 * Schedule of every rank (ns; constants below; E = the end):
 *   0          ProgramBegin, Enter main
 *   W          MPI_Barrier [W, W + BAR] (MpiCollectiveBegin/End)
 *   t_i = S + i*P, i = 0..K-1 (S = W + BAR + GAP):
 *     compute    [t_i, t_i + C]
 *     phases     phase k starts at q_k = t_i + C + k*PHI (PHI = L + D + GAP)
 *                phase 0: every even rank r (but r = N-1 when N is odd) sends
 *                         to r+1; phase 1: every odd rank r sends to (r+1)%N;
 *                phase 2 (N odd only): rank N-1 sends to rank 0. A rank
 *                receives from r-1 in the phase its sender sends in, so no
 *                rank does two things in one phase (the classic deadlock-
 *                free odd/even ring of blocking calls).
 *                In a phase, sender and receiver enter MPI_Send and MPI_Recv
 *                at the same time q (so neither waits: no late sender and no
 *                late receiver) and both leave at q + L; the MpiSend record
 *                is at the send's Enter, the MpiRecv record at the receive's
 *                Leave. Rank R (--late-sender) instead enters MPI_Send at
 *                q + D and leaves at q + D + L; its receiver (R+1)%N entered
 *                MPI_Recv at q and leaves at q + D + L. Hence exactly K late
 *                senders, all on the pair (R, R+1), each waiting D
 *                (send enter - receive enter), and no late receiver anywhere.
 *     allreduce  [t_i + C + NPH*PHI, + A] (MpiCollectiveBegin/End)
 *                P = C + NPH*PHI + A
 *   E = S + K*P + TAIL: Leave main, ProgramEnd. main's inclusive = E.
 * --nonblocking replaces each send by MPI_Isend [q, q+EPS] + MPI_Wait
 * [q+EPS, q+L] (MpiIsend, MpiIsendComplete at the Wait's Leave), each receive
 * by MPI_Irecv [q, q+EPS] + MPI_Wait [q+EPS, q+L] (MpiIrecvRequest, MpiIrecv
 * at the Wait's Leave); the late sender shifts its Isend and Wait by D and
 * its receiver's Wait leaves at q + D + L. The matrix is the same.
 *
 * --events M chooses K so that the archive holds about M events in all (the
 * benchmark). Locations are written one after the other and each writer is
 * closed before the next opens, so memory stays one location's buffer
 * whatever the size.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

/* durations of the schedule, ns */
enum { W = 1000, BAR = 2000, GAP = 500, C = 10000, L = 2000, A = 3000, TAIL = 1000, EPS = 100 };
static const uint64_t OFFSET = 1700000000123456789ULL; /* the clock's global offset, ticks */
static const uint32_t TAG = 42;

enum region { R_MAIN, R_COMPUTE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_BARRIER, R_ALLREDUCE, R_N };
static const char *region_names[R_N] = {"main",      "compute",  "MPI_Send",    "MPI_Recv",     "MPI_Isend",
                                        "MPI_Irecv", "MPI_Wait", "MPI_Barrier", "MPI_Allreduce"};

typedef struct params {
    uint32_t ranks;
    uint64_t iterations;
    uint64_t events;  /* --events: the wanted total, 0 if not given */
    int64_t late;     /* the late sender's rank, -1 for none */
    uint64_t late_ns; /* D */
    uint64_t bytes;
    uint32_t per_node; /* --ranks-per-node, 0: all ranks on one node */
    bool nonblocking, expect;
    const char *out;
} params;

/* ---- the schedule ------------------------------------------------------- */

static uint32_t nphases(const params *p)
{
    return p->ranks % 2 ? 3 : 2;
}
static uint64_t phi(const params *p)
{
    return L + p->late_ns + GAP;
}
static uint64_t period(const params *p)
{
    return C + nphases(p) * phi(p) + A;
}
static uint64_t start(void)
{
    return W + BAR + GAP;
}
static uint64_t end_time(const params *p)
{
    return start() + p->iterations * period(p) + TAIL;
}

/* The phase in which rank r sends to (r+1) % N. */
static uint32_t send_phase(const params *p, uint32_t r)
{
    if (p->ranks % 2 && r == p->ranks - 1)
        return 2;
    return r % 2;
}
static uint32_t prev_rank(const params *p, uint32_t r)
{
    return (r + p->ranks - 1) % p->ranks;
}
static bool is_late(const params *p, uint32_t r)
{
    return p->late >= 0 && (uint32_t)p->late == r;
}

/* Events of one rank: fixed (ProgramBegin/End, main, barrier) + per iteration. */
static uint64_t events_per_iteration(const params *p)
{
    return p->nonblocking ? 18 : 12;
}
static uint64_t events_per_rank(const params *p)
{
    return 8 + p->iterations * events_per_iteration(p);
}

/* ---- errors --------------------------------------------------------------- */

static void check(OTF2_ErrorCode e, const char *what)
{
    if (e != OTF2_SUCCESS) {
        fprintf(stderr, "gen_otf2: %s: %s (%s)\n", what, OTF2_Error_GetName(e), OTF2_Error_GetDescription(e));
        exit(1);
    }
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *d, bool final)
{
    (void)u, (void)t, (void)l, (void)d, (void) final;
    return OTF2_FLUSH;
}
/* no post-flush callback: libotf2 then writes no BufferFlush records */
static OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

/* ---- events of one rank --------------------------------------------------- */

typedef struct ev {
    OTF2_EvtWriter *w;
    uint64_t n; /* records written */
} ev;

static OTF2_TimeStamp ts(uint64_t t)
{
    return OFFSET + t;
}
static void enter(ev *e, uint64_t t, enum region r)
{
    check(OTF2_EvtWriter_Enter(e->w, NULL, ts(t), r), "Enter");
    e->n++;
}
static void leave(ev *e, uint64_t t, enum region r)
{
    check(OTF2_EvtWriter_Leave(e->w, NULL, ts(t), r), "Leave");
    e->n++;
}

static void collective(ev *e, uint64_t t, uint64_t d, enum region r, OTF2_CollectiveOp op, uint64_t bytes)
{
    enter(e, t, r);
    check(OTF2_EvtWriter_MpiCollectiveBegin(e->w, NULL, ts(t)), "MpiCollectiveBegin");
    check(OTF2_EvtWriter_MpiCollectiveEnd(e->w, NULL, ts(t + d), op, 0, OTF2_UNDEFINED_UINT32, bytes, bytes),
          "MpiCollectiveEnd");
    leave(e, t + d, r);
    e->n += 2;
}

/* Rank r sends to `to` in a phase starting at q (shifted by D when late). */
static void do_send(ev *e, const params *p, uint32_t r, uint64_t q, uint32_t to, uint64_t req)
{
    uint64_t s = q + (is_late(p, r) ? p->late_ns : 0);
    if (!p->nonblocking) {
        enter(e, s, R_SEND);
        check(OTF2_EvtWriter_MpiSend(e->w, NULL, ts(s), to, 0, TAG, p->bytes), "MpiSend");
        leave(e, s + L, R_SEND);
        e->n++;
        return;
    }
    enter(e, s, R_ISEND);
    check(OTF2_EvtWriter_MpiIsend(e->w, NULL, ts(s), to, 0, TAG, p->bytes, req), "MpiIsend");
    leave(e, s + EPS, R_ISEND);
    enter(e, s + EPS, R_WAIT);
    check(OTF2_EvtWriter_MpiIsendComplete(e->w, NULL, ts(s + L), req), "MpiIsendComplete");
    leave(e, s + L, R_WAIT);
    e->n += 2;
}

/* Rank r receives from `from` in a phase starting at q. */
static void do_recv(ev *e, const params *p, uint32_t from, uint64_t q, uint64_t req)
{
    uint64_t done = q + L + (is_late(p, from) ? p->late_ns : 0);
    if (!p->nonblocking) {
        enter(e, q, R_RECV);
        check(OTF2_EvtWriter_MpiRecv(e->w, NULL, ts(done), from, 0, TAG, p->bytes), "MpiRecv");
        leave(e, done, R_RECV);
        e->n++;
        return;
    }
    enter(e, q, R_IRECV);
    check(OTF2_EvtWriter_MpiIrecvRequest(e->w, NULL, ts(q), req), "MpiIrecvRequest");
    leave(e, q + EPS, R_IRECV);
    enter(e, q + EPS, R_WAIT);
    check(OTF2_EvtWriter_MpiIrecv(e->w, NULL, ts(done), from, 0, TAG, p->bytes, req), "MpiIrecv");
    leave(e, done, R_WAIT);
    e->n += 2;
}

static uint64_t write_rank(OTF2_Archive *ar, const params *p, uint32_t r)
{
    ev e = {OTF2_Archive_GetEvtWriter(ar, r), 0};
    if (!e.w) {
        fprintf(stderr, "gen_otf2: no event writer for location %" PRIu32 "\n", r);
        exit(1);
    }
    uint32_t to = (r + 1) % p->ranks, from = prev_rank(p, r);
    uint32_t sp = send_phase(p, r), rp = send_phase(p, from);
    check(OTF2_EvtWriter_ProgramBegin(e.w, NULL, ts(0), 0, 0, NULL), "ProgramBegin");
    e.n++;
    enter(&e, 0, R_MAIN);
    collective(&e, W, BAR, R_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, 0);
    uint64_t req = 1;
    for (uint64_t i = 0; i < p->iterations; i++) {
        uint64_t t = start() + i * period(p);
        enter(&e, t, R_COMPUTE);
        leave(&e, t + C, R_COMPUTE);
        for (uint32_t k = 0; k < nphases(p); k++) {
            uint64_t q = t + C + k * phi(p);
            if (k == sp)
                do_send(&e, p, r, q, to, req++);
            if (k == rp)
                do_recv(&e, p, from, q, req++);
        }
        collective(&e, t + C + nphases(p) * phi(p), A, R_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, 8);
    }
    uint64_t end = end_time(p);
    leave(&e, end, R_MAIN);
    check(OTF2_EvtWriter_ProgramEnd(e.w, NULL, ts(end), 0), "ProgramEnd");
    e.n++;
    check(OTF2_Archive_CloseEvtWriter(ar, e.w), "CloseEvtWriter");
    return e.n;
}

/* ---- definitions ---------------------------------------------------------- */

static void write_defs(OTF2_Archive *ar, const params *p)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g) {
        fprintf(stderr, "gen_otf2: no global definition writer\n");
        exit(1);
    }
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, OFFSET, end_time(p),
                                                    OTF2_UNDEFINED_TIMESTAMP),
          "ClockProperties");
    /* strings: 0 "", 1.. region names, then fixed names, then per rank */
    uint32_t s = 0;
    check(OTF2_GlobalDefWriter_WriteString(g, s++, ""), "String");
    for (int i = 0; i < R_N; i++)
        check(OTF2_GlobalDefWriter_WriteString(g, s++, region_names[i]), "String");
    const uint32_t s_machine = s, s_node = s + 1, s_world = s + 2, s_mpi = s + 3;
    check(OTF2_GlobalDefWriter_WriteString(g, s++, "machine"), "String");
    check(OTF2_GlobalDefWriter_WriteString(g, s++, "node"), "String");
    check(OTF2_GlobalDefWriter_WriteString(g, s++, "MPI_COMM_WORLD"), "String");
    check(OTF2_GlobalDefWriter_WriteString(g, s++, "MPI"), "String");
    check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS),
          "Paradigm");
    for (int i = 0; i < R_N; i++) {
        bool user = i == R_MAIN || i == R_COMPUTE;
        OTF2_RegionRole role = user               ? OTF2_REGION_ROLE_FUNCTION
                               : i == R_BARRIER   ? OTF2_REGION_ROLE_BARRIER
                               : i == R_ALLREDUCE ? OTF2_REGION_ROLE_COLL_ALL2ALL
                                                  : OTF2_REGION_ROLE_POINT2POINT;
        check(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, 1 + i, 1 + i, 0, role,
                                               user ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                               OTF2_REGION_FLAG_NONE, 0, 0, 0),
              "Region");
    }
    check(
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "SystemTreeNode");
    uint32_t nodes = p->per_node ? (p->ranks + p->per_node - 1) / p->per_node : 1;
    for (uint32_t j = 0; j < nodes; j++) {
        uint32_t name = s_node;
        if (p->per_node) {
            char label[32];
            snprintf(label, sizeof label, "node %" PRIu32, j);
            check(OTF2_GlobalDefWriter_WriteString(g, name = s++, label), "String");
        }
        check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1 + j, name, s_node, 0), "SystemTreeNode");
    }
    uint64_t *members = malloc((size_t)p->ranks * sizeof *members);
    if (!members) {
        fprintf(stderr, "gen_otf2: out of memory for %" PRIu32 " ranks\n", p->ranks);
        exit(1);
    }
    for (uint32_t r = 0; r < p->ranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %" PRIu32, r);
        check(OTF2_GlobalDefWriter_WriteString(g, s, name), "String");
        uint32_t node = p->per_node ? 1 + r / p->per_node : 1;
        check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s++, OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "LocationGroup");
        snprintf(name, sizeof name, "Master thread");
        check(OTF2_GlobalDefWriter_WriteString(g, s, name), "String");
        check(OTF2_GlobalDefWriter_WriteLocation(g, r, s++, OTF2_LOCATION_TYPE_CPU_THREAD, events_per_rank(p),
                                                 r),
              "Location");
    }
    /* group 0: the MPI locations in rank order; group 1: MPI_COMM_WORLD's ranks */
    for (uint32_t r = 0; r < p->ranks; r++)
        members[r] = r;
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, p->ranks, members),
          "Group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, p->ranks, members),
          "Group");
    free(members);
    check(OTF2_GlobalDefWriter_WriteComm(g, 0, s_world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "Comm");
    check(OTF2_Archive_CloseGlobalDefWriter(ar, g), "CloseGlobalDefWriter");
}

static uint64_t write_archive(const params *p)
{
    char anchor[4096];
    struct stat st;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", p->out);
    if (stat(anchor, &st) == 0) {
        fprintf(stderr, "gen_otf2: %s exists already: choose a new --out\n", anchor);
        exit(1);
    }
    OTF2_Archive *ar = OTF2_Archive_Open(p->out, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "gen_otf2: cannot create the archive %s/traces.otf2 (does it exist already?)\n",
                p->out);
        exit(1);
    }
    check(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL), "SetFlushCallbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(ar), "SetSerialCollectiveCallbacks");
    check(OTF2_Archive_SetCreator(ar, "ariadne tests/tools/gen_otf2"), "SetCreator");
    check(OTF2_Archive_OpenEvtFiles(ar), "OpenEvtFiles");
    uint64_t total = 0;
    for (uint32_t r = 0; r < p->ranks; r++)
        total += write_rank(ar, p, r);
    check(OTF2_Archive_CloseEvtFiles(ar), "CloseEvtFiles");
    check(OTF2_Archive_OpenDefFiles(ar), "OpenDefFiles");
    for (uint32_t r = 0; r < p->ranks; r++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(ar, r);
        if (!d) {
            fprintf(stderr, "gen_otf2: no definition writer for location %" PRIu32 "\n", r);
            exit(1);
        }
        check(OTF2_Archive_CloseDefWriter(ar, d), "CloseDefWriter");
    }
    check(OTF2_Archive_CloseDefFiles(ar), "CloseDefFiles");
    write_defs(ar, p);
    check(OTF2_Archive_Close(ar), "Archive_Close");
    return total;
}

/* ---- the expected values -------------------------------------------------- */

/* Time rank r spends in each region over the run, and the counts. */
static void rank_profile(const params *p, uint32_t r, uint64_t inc[R_N], uint64_t cnt[R_N])
{
    memset(inc, 0, R_N * sizeof *inc);
    memset(cnt, 0, R_N * sizeof *cnt);
    uint64_t K = p->iterations, D = p->late_ns;
    bool late_in = is_late(p, prev_rank(p, r)); /* its receives wait D longer */
    inc[R_MAIN] = end_time(p), cnt[R_MAIN] = 1;
    inc[R_BARRIER] = BAR, cnt[R_BARRIER] = 1;
    inc[R_COMPUTE] = K * C, cnt[R_COMPUTE] = K;
    inc[R_ALLREDUCE] = K * A, cnt[R_ALLREDUCE] = K;
    if (!p->nonblocking) {
        inc[R_SEND] = K * L, cnt[R_SEND] = K;
        inc[R_RECV] = K * (L + (late_in ? D : 0)), cnt[R_RECV] = K;
    } else {
        inc[R_ISEND] = K * EPS, cnt[R_ISEND] = K;
        inc[R_IRECV] = K * EPS, cnt[R_IRECV] = K;
        inc[R_WAIT] = K * (L - EPS) + K * (L - EPS + (late_in ? D : 0)), cnt[R_WAIT] = 2 * K;
    }
}

static void print_expect(const params *p, uint64_t total_events)
{
    uint64_t K = p->iterations, n = p->ranks;
    printf("{\"ranks\": %" PRIu64 ", \"iterations\": %" PRIu64 ", \"bytes\": %" PRIu64
           ", \"nonblocking\": %s,\n",
           n, K, p->bytes, p->nonblocking ? "true" : "false");
    printf(" \"timer_resolution\": 1000000000, \"global_offset\": %" PRIu64 ", \"time_unit\": \"ns\",\n",
           OFFSET);
    printf(" \"events\": %" PRIu64 ", \"events_per_rank\": %" PRIu64 ", \"duration_ns\": %" PRIu64 ",\n",
           total_events, events_per_rank(p), end_time(p));
    printf(" \"messages\": %" PRIu64 ", \"message_bytes\": %" PRIu64 ",\n", n * K, n * K * p->bytes);
    printf(" \"pairs\": [");
    for (uint64_t r = 0; r < n; r++)
        printf("%s{\"sender\": %" PRIu64 ", \"receiver\": %" PRIu64 ", \"count\": %" PRIu64
               ", \"bytes\": %" PRIu64 "}",
               r ? ", " : "", r, (r + 1) % n, K, K * p->bytes);
    printf("],\n");
    if (p->late >= 0)
        printf(" \"late_sender\": {\"sender\": %" PRId64 ", \"receiver\": %" PRIu64 ", \"count\": %" PRIu64
               ", \"time_ns\": %" PRIu64 ", \"each_ns\": %" PRIu64 "},\n",
               p->late, ((uint64_t)p->late + 1) % n, K, K * p->late_ns, p->late_ns);
    else
        printf(" \"late_sender\": null,\n");
    printf(" \"late_receiver_count\": 0,\n \"profile\": [");
    for (uint32_t r = 0; r < n; r++) {
        uint64_t inc[R_N], cnt[R_N], children = 0;
        rank_profile(p, r, inc, cnt);
        for (int i = 1; i < R_N; i++)
            children += inc[i];
        printf("%s\n  {\"rank\": %" PRIu32 ", \"main_inclusive\": %" PRIu64 ", \"main_exclusive\": %" PRIu64
               ", \"functions\": {",
               r ? "," : "", r, inc[R_MAIN], inc[R_MAIN] - children);
        int first = 1;
        for (int i = 0; i < R_N; i++) {
            if (!cnt[i])
                continue;
            printf("%s\"%s\": {\"count\": %" PRIu64 ", \"inclusive\": %" PRIu64 "}", first ? "" : ", ",
                   region_names[i], cnt[i], inc[i]);
            first = 0;
        }
        printf("}}");
    }
    printf("]}\n");
}

/* ---- main ----------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: gen_otf2 [--ranks N>=2] [--iterations K | --events M] [--late-sender R|-1]\n"
                    "                [--late-ns D] [--bytes B] [--nonblocking] [--ranks-per-node G]\n"
                    "                [--expect] [--out DIR]\n");
    return 2;
}

int main(int argc, char **argv)
{
    params p = {.ranks = 8, .iterations = 10, .late = 0, .late_ns = 5000, .bytes = 1024};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--nonblocking") == 0)
            p.nonblocking = true;
        else if (strcmp(a, "--expect") == 0)
            p.expect = true;
        else if (!v)
            return usage();
        else if (strcmp(a, "--ranks") == 0)
            p.ranks = (uint32_t)strtoul(v, NULL, 10), i++;
        else if (strcmp(a, "--iterations") == 0)
            p.iterations = strtoull(v, NULL, 10), i++;
        else if (strcmp(a, "--events") == 0)
            p.events = strtoull(v, NULL, 10), i++;
        else if (strcmp(a, "--late-sender") == 0)
            p.late = strtoll(v, NULL, 10), i++;
        else if (strcmp(a, "--late-ns") == 0)
            p.late_ns = strtoull(v, NULL, 10), i++;
        else if (strcmp(a, "--ranks-per-node") == 0)
            p.per_node = (uint32_t)strtoul(v, NULL, 10), i++;
        else if (strcmp(a, "--bytes") == 0)
            p.bytes = strtoull(v, NULL, 10), i++;
        else if (strcmp(a, "--out") == 0)
            p.out = v, i++;
        else
            return usage();
    }
    if (p.ranks < 2 || p.ranks > 1000000 || p.late >= (int64_t)p.ranks || p.late < -1 ||
        p.late_ns > 1000000000)
        return usage();
    if (p.events) {
        uint64_t per = (uint64_t)p.ranks * events_per_iteration(&p), fixed = (uint64_t)p.ranks * 8;
        p.iterations = p.events > fixed + per ? (p.events - fixed + per / 2) / per : 1;
    }
    if (p.iterations < 1 || p.iterations > (1ULL << 40) / period(&p))
        return usage();
    if (!p.out && !p.expect)
        return usage();
    uint64_t total = p.out ? write_archive(&p) : (uint64_t)p.ranks * events_per_rank(&p);
    if (total != (uint64_t)p.ranks * events_per_rank(&p)) {
        fprintf(stderr, "gen_otf2: wrote %" PRIu64 " events, planned %" PRIu64 "\n", total,
                (uint64_t)p.ranks * events_per_rank(&p));
        return 1;
    }
    if (p.expect)
        print_expect(&p, total);
    return 0;
}
