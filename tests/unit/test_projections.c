/* test_projections.c: the Charm++ Projections reader (projections.c) into
 * the recording event sink: the project's tiny fixture
 * (tests/fixtures/projections, every event written out here by hand from
 * the records), the same log gzipped, Pipit's assertions on the
 * ping-pong-projections logs when ../shared/data is there (with counts
 * taken from the log records with awk), and bad input: no .sts, a
 * truncated .gz, malformed records, a sink that fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "ingest/input.h"
#include "ingest/projections.h"
#include "test_event_sink.h"
#include "test_helpers.h"
#include "util/fs.h"

static char *fixture(const char *name)
{
    char *p;
    if (asprintf(&p, "%s/tests/fixtures/projections/%s", test_source_dir(), name) < 0)
        abort();
    return p;
}

static char *wf(const char *dir, const char *name, const char *text)
{
    return test_write_file(dir, name, text, strlen(text));
}

/* The value of a note (the sink keeps them all). */
static const char *note_of(const tes_sink *s, const char *key)
{
    for (size_t i = 0; i < s->n_notes; i++)
        if (strcmp(s->notes[i].key, key) == 0)
            return s->notes[i].value;
    return "(none)";
}

static int read_into(tes_sink *s, const char *sts, const char *const *logs, size_t n, ari_error *err)
{
    tes_init(s);
    ari_event_sink k = tes_sink_of(s);
    memset(err, 0, sizeof *err);
    return ari_projections_read(sts, logs, n, &k, err);
}

/* The events of one rank in arrival order, as "E name@us", "L name@us",
 * "I name@us" joined by spaces. */
static void sequence(const tes_sink *s, int64_t rank, char *out, size_t cap)
{
    out[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < s->n_events; i++) {
        const tes_event *e = &s->events[i];
        if (e->process != rank)
            continue;
        int w = snprintf(out + used, cap - used, "%s%c %s@%g", used ? " " : "",
                         e->type == TES_ENTER   ? 'E'
                         : e->type == TES_LEAVE ? 'L'
                                                : 'I',
                         e->name, e->time / 1e3);
        assert_true(w > 0 && (size_t)w < cap - used);
        used += (size_t)w;
    }
}

/* ---- the tiny fixture ------------------------------------------------------------------- */

static const char *const tiny_pe0 =
    "E Computation@100 E Main(CkArgMsg* m)@110 I MpiSend@120 I MpiCollectiveBegin@125 "
    "I MpiCollectiveEnd@125 L Main(CkArgMsg* m)@130 E Idle@140 L Idle@200 I phase marker@205 "
    "I MpiRecv@210 E done()@210 L done()@220 L Computation@230";
/* the user event at 175 comes after 180 in the log: raised to 180; the
 * open work(int n) is closed at END_COMPUTATION; END_IDLE at 240 has no
 * BEGIN and is skipped */
static const char *const tiny_pe1 =
    "E Computation@90 E Idle@95 L Idle@150 I MpiRecv@150 E work(int n)@150 E Pack@155 L Pack@158 "
    "I MpiSend@160 L work(int n)@170 I MpiRecv@180 E work(int n)@180 I phase marker@180 "
    "L work(int n)@250 L Computation@250";

static void check_tiny(const tes_sink *s)
{
    char seq[4096];
    assert_int_equal(s->n_procs, 2);
    assert_int_equal(s->n_locs, 2);
    assert_string_equal(s->procs[0].name, "PE 0");
    sequence(s, 0, seq, sizeof seq);
    assert_string_equal(seq, tiny_pe0);
    sequence(s, 1, seq, sizeof seq);
    assert_string_equal(seq, tiny_pe1);
    assert_int_equal(s->backwards, 0);
    assert_int_equal(s->bad_handles, 0);
    /* messages: sends have no destination, receives name the sender; tag
     * is the entry index, request the sender's event number */
    assert_int_equal(s->n_msgs, 5);
    const ari_event_msg *m = &s->msgs[0];
    assert_int_equal(m->kind, ARI_MSG_SEND);
    assert_int_equal(m->peer, -1);
    assert_int_equal(m->tag, 1);
    assert_int_equal(m->bytes, 48);
    assert_int_equal(m->request, 1);
    m = &s->msgs[1]; /* PE 0 receives PE 1's event 5, 16 bytes, for done() */
    assert_int_equal(m->kind, ARI_MSG_RECV);
    assert_int_equal(m->peer, 1);
    assert_int_equal(m->tag, 2);
    assert_int_equal(m->bytes, 16);
    assert_int_equal(m->request, 5);
    assert_true(m->time == 210e3);
    m = &s->msgs[2]; /* PE 1 receives PE 0's event 1 (the send above) */
    assert_int_equal(m->kind, ARI_MSG_RECV);
    assert_int_equal(m->peer, 0);
    assert_int_equal(m->request, 1);
    assert_int_equal(m->bytes, 48);
    assert_int_equal(s->n_colls, 1);
    assert_string_equal(s->colls[0].c.op, "Broadcast");
    assert_int_equal(s->colls[0].c.root, 0);
    assert_int_equal(s->colls[0].c.bytes_sent, 48);
    /* regions: entry methods with role "entry", Idle "idle" */
    int entries = 0;
    for (size_t i = 0; i < s->n_regions; i++) {
        if (strcmp(s->regions[i].name, "Idle") == 0)
            assert_string_equal(s->regions[i].role, "idle");
        entries += strcmp(s->regions[i].role, "entry") == 0;
    }
    assert_int_equal(entries, 3);
    assert_string_equal(note_of(s, "projections_pes"), "2");
    assert_string_equal(note_of(s, "charm_version"), "\"v7.0.0\"");
    assert_string_equal(note_of(s, "projections_machine"), "\"test-linux-x86_64\"");
    assert_string_equal(note_of(s, "projections_times_raised"), "1");
    assert_string_equal(note_of(s, "projections_unmatched_ends"), "1");
    assert_string_equal(note_of(s, "projections_closed_at_end"), "1");
    assert_true(s->progress == 1.0);
}

static void test_tiny(void **state)
{
    (void)state;
    char *sts = fixture("tiny.sts"), *l0 = fixture("tiny.0.log"), *l1 = fixture("tiny.1.log");
    const char *logs[] = {l0, l1};
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, 2, &err), 0);
    check_tiny(&s);
    tes_free(&s);
    /* the PE comes from the name, not the order */
    const char *swapped[] = {l1, l0};
    assert_int_equal(read_into(&s, sts, swapped, 2, &err), 0);
    assert_int_equal(s.procs[0].rank, 1);
    char seq[4096];
    sequence(&s, 1, seq, sizeof seq);
    assert_string_equal(seq, tiny_pe1);
    tes_free(&s);
    free(sts), free(l0), free(l1);
}

/* Writes len bytes of data gzipped to dir/name (only the first `keep`
 * bytes of the gzip stream, if keep > 0); returns the path. */
static char *gzip_bytes(const char *data, size_t len, const char *dir, const char *name, size_t keep)
{
    uLongf cap = compressBound(len) + 64;
    unsigned char *out = malloc(cap);
    z_stream z = {0};
    assert_non_null(out);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)data, z.avail_in = (uInt)len;
    z.next_out = out, z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    assert_true(keep < n);
    char *path = test_write_file(dir, name, out, keep ? keep : n);
    free(out);
    return path;
}

static char *gzip_copy(const char *src, const char *dir, const char *name, size_t keep)
{
    char *data;
    size_t len;
    ari_error err;
    assert_int_equal(ari_input_load(src, NULL, &data, &len, &err), 0);
    char *path = gzip_bytes(data, len, dir, name, keep);
    free(data);
    return path;
}

static size_t count_name_rank(const tes_sink *s, int64_t rank, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += s->events[i].process == rank && strcmp(s->events[i].name, name) == 0;
    return n;
}

static void test_tiny_gzip(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *sts = fixture("tiny.sts"), *l0 = fixture("tiny.0.log"),
         *l1 = fixture("tiny.1.log");
    char *g1 = gzip_copy(l1, dir, "tiny.1.log.gz", 0);
    const char *logs[] = {l0, g1};
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, 2, &err), 0);
    check_tiny(&s);
    tes_free(&s);
    /* truncated: an error naming the file */
    char *t1 = gzip_copy(l1, dir, "tiny.1.log.gz", 60);
    assert_int_equal(read_into(&s, sts, logs, 2, &err), -1);
    assert_non_null(strstr(err.message, "tiny.1.log.gz"));
    assert_non_null(strstr(err.message, "truncated"));
    tes_free(&s);
    /* a long log (idle periods with distinct times) cut in the middle:
     * the error says how far it got */
    size_t cap = 64 * 40000, used = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    used += (size_t)snprintf(big, cap, "6 1\n");
    for (int i = 0; i < 40000; i++)
        used += (size_t)snprintf(big + used, cap - used, "14 %d 0\n15 %d 0\n", 10 + 7 * i, 13 + 7 * i);
    char *b1 = gzip_bytes(big, used, dir, "big.1.log.gz", 0);
    const char *blogs[] = {l0, b1};
    assert_int_equal(read_into(&s, sts, blogs, 2, &err), 0);
    assert_int_equal(count_name_rank(&s, 1, "Idle"), 80000);
    tes_free(&s);
    free(b1);
    b1 = gzip_bytes(big, used, dir, "big.1.log.gz", 40000);
    blogs[1] = b1;
    assert_int_equal(read_into(&s, sts, blogs, 2, &err), -1);
    assert_non_null(strstr(err.message, "big.1.log.gz: truncated gzip stream after line "));
    tes_free(&s);
    free(big), free(b1);
    ari_remove_tree(dir);
    free(dir), free(sts), free(l0), free(l1), free(g1), free(t1);
}

/* Every record type the reader knows, each once, on PE 0. */
static void test_every_record(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *sts = wf(dir, "e.sts",
                   "PROJECTIONS_ID\nVERSION 11.0\nPROCESSORS 2\nCHARE 1 \"Worker\" 1\n"
                   "ENTRY CHARE 1 \"work(int n)\" 1 0\nENTRY CHARE 2 \"done()\" 1 0\n"
                   "EVENT 7 phase marker\nSTAT 3 queue length\nEND\n");
    char *log = wf(dir, "e.0.log",
                   "PROJECTIONS-RECORD 30\n6 10\n11 11\n2 0 1 12 4 1 32 0 0 12\n21 0 2 13 5 0 16 1 2 0 1\n"
                   "4 0 14 6 0\n5 0 15 6 0\n10 0 16 7 1 24\n8 17 8 0\n9 18 8 0\n13 7 19 9 0\n"
                   "98 7 20 10 0 1\n99 7 21 10 0 1\n100 7 22 11 0 1\n26 42\n27 1048576 23\n"
                   "28 24 a note with words\n29 25 26 7 bracketed note text\n32 27 27 3.5 0 3\n"
                   "3 0 1 28 4 1 32 28\n40 29 0\n12 30\n7 31\n");
    const char *logs[] = {log};
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, 1, &err), 0);
    char seq[4096];
    sequence(&s, 0, seq, sizeof seq);
    assert_string_equal(seq,
                        "E Computation@10 E Trace@11 I MpiRecv@12 E work(int n)@12 I MpiSend@13 I MpiSend@13 "
                        "I Enque@14 I Deque@15 I Message Receive@16 E Interrupt@17 L Interrupt@18 "
                        "I phase marker@19 E phase marker@20 L phase marker@21 I phase marker@22 "
                        "I User Supplied@22 I User Supplied Note@24 I phase marker@25 L work(int n)@28 "
                        "L Trace@30 L Computation@31");
    /* the multicast: one send to each listed PE */
    assert_int_equal(s.n_msgs, 3);
    assert_int_equal(s.msgs[1].peer, 0);
    assert_int_equal(s.msgs[2].peer, 1);
    assert_int_equal(s.msgs[2].tag, 2);
    assert_int_equal(s.msgs[2].bytes, 16);
    assert_int_equal(s.n_metrics, 2);
    assert_string_equal(s.metrics[0].name, "Memory Usage");
    assert_true(s.metrics[0].value == 1048576 && s.metrics[0].time == 23e3);
    assert_string_equal(s.metrics[1].name, "queue length");
    assert_true(s.metrics[1].value == 3.5 && s.metrics[1].time == 27e3);
    assert_string_equal(note_of(&s, "projections_skipped_records"), "1");
    assert_string_equal(note_of(&s, "projections_records"), "22");
    for (size_t i = 0; i < s.n_regions; i++)
        if (!strcmp(s.regions[i].name, "phase marker"))
            assert_string_equal(s.regions[i].role, "user");
    tes_free(&s);
    ari_remove_tree(dir);
    free(dir), free(sts), free(log);
}

/* ---- Pipit's assertions on the ping-pong trace ------------------------------------------- */

static char *pingpong(const char *name)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    char *p;
    if (d ? asprintf(&p, "%s/pipit/pipit/tests/data/ping-pong-projections/%s", d, name) < 0
          : asprintf(&p, "%s/../shared/data/pipit/pipit/tests/data/ping-pong-projections/%s",
                     test_source_dir(), name) < 0)
        abort();
    return p;
}

static size_t count(const tes_sink *s, int64_t rank, tes_type t, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++)
        n += s->events[i].process == rank && s->events[i].type == t &&
             (!name || !strcmp(s->events[i].name, name));
    return n;
}

static void test_pipit_pingpong(void **state)
{
    (void)state;
    char *sts = pingpong("pingpong.prj.sts"), *l0 = pingpong("pingpong.prj.0.log.gz"),
         *l1 = pingpong("pingpong.prj.1.log.gz");
    FILE *f = fopen(sts, "r");
    if (!f) {
        free(sts), free(l0), free(l1);
        skip();
    }
    fclose(f);
    const char *logs[] = {l0, l1};
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, 2, &err), 0);
    assert_int_equal(s.backwards, 0);
    assert_int_equal(s.bad_handles, 0);
    /* Pipit: each log starts and ends with Computation (in the order the
     * records come; after a sort by time, ties at the end are unordered) */
    for (int64_t r = 0; r < 2; r++) {
        const tes_event *first = NULL, *last = NULL;
        for (size_t i = 0; i < s.n_events; i++)
            if (s.events[i].process == r) {
                if (!first)
                    first = &s.events[i];
                last = &s.events[i];
            }
        assert_non_null(first);
        assert_string_equal(first->name, "Computation");
        assert_int_equal(first->type, TES_ENTER);
        assert_string_equal(last->name, "Computation");
        assert_int_equal(last->type, TES_LEAVE);
    }
    /* Pipit: 2 PEs */
    assert_int_equal(s.n_procs, 2);
    assert_int_equal(tes_count_process(&s, 0) + tes_count_process(&s, 1), s.n_events);
    /* Pipit: Enter, Leave and Instant events; its names are exactly our
     * Enter/Leave names (its Instants are the CREATION records, named after
     * their entry method, which here are all entries also processed) */
    static const char *const pipit_names[] = {"Computation",
                                              "Idle",
                                              "Pack",
                                              "Ping1()",
                                              "Ping2()",
                                              "Ping3()",
                                              "PingC()",
                                              "PingC(IdMsg* impl_msg)",
                                              "PingF()",
                                              "PingMarshall()",
                                              "Unpack",
                                              "dummy_thread_ep",
                                              "exchange(IdMsg* impl_msg)",
                                              "maindone()",
                                              "recv(PingMsg* impl_msg)",
                                              "recvHandle(const CkNcpyBuffer &destInfo)",
                                              "recv_zerocopy(CkNcpyBuffer ncpyBuffer_msg, int size)",
                                              "remoteDoneInserting()",
                                              "start(const bool &reportTime)",
                                              "traceProjectionsParallelShutdown(int impl_noname_8)",
                                              "trecv(PingMsg* impl_msg)",
                                              "updateLocation(const CkArrayIndex &idx, const CkLocEntry &e)"};
    size_t npipit = sizeof pipit_names / sizeof *pipit_names;
    const char *names[64];
    size_t nn = 0;
    for (size_t i = 0; i < s.n_events; i++) {
        if (s.events[i].type == TES_INSTANT)
            continue;
        size_t j = 0;
        while (j < nn && strcmp(names[j], s.events[i].name) != 0)
            j++;
        if (j == nn) {
            assert_true(nn < 64);
            names[nn++] = s.events[i].name;
        }
    }
    assert_int_equal(nn, npipit);
    for (size_t i = 0; i < npipit; i++) {
        size_t j = 0;
        while (j < nn && strcmp(names[j], pipit_names[i]) != 0)
            j++;
        assert_true(j < nn);
    }
    assert_true(tes_count_type(&s, TES_ENTER) > 0 && tes_count_type(&s, TES_LEAVE) > 0);
    /* the only Instants: messages and broadcasts */
    size_t ni = 0;
    for (size_t i = 0; i < s.n_events; i++)
        if (s.events[i].type == TES_INSTANT) {
            const char *n = s.events[i].name;
            assert_true(!strcmp(n, "MpiSend") || !strcmp(n, "MpiRecv") || !strcmp(n, "MpiCollectiveBegin") ||
                        !strcmp(n, "MpiCollectiveEnd"));
            ni++;
        }
    assert_true(ni > 0);
    /* Pipit: 77 create events on PE 0 and 68 on PE 1 */
    assert_int_equal(count(&s, 0, TES_INSTANT, "MpiSend"), 77);
    assert_int_equal(count(&s, 1, TES_INSTANT, "MpiSend"), 68);
    /* from the records (awk): of the BEGIN_PROCESSING (161 on PE 0, 146 on
     * PE 1), those of a message (sending PE 0 or 1, event >= 0, length > 0;
     * the others resume threads, dummy_thread_ep, with no bytes and a
     * sender of 262145 or 0 or 1) are 121 and 110 receives of 22144 and
     * 20592 bytes, 23 of PE 0's from itself; 35 CREATION_BCAST on PE 0;
     * enters (types 2, 6, 14, 16, 18) 437 and 440, each left once */
    assert_int_equal(count(&s, 0, TES_INSTANT, "MpiRecv"), 121);
    assert_int_equal(count(&s, 1, TES_INSTANT, "MpiRecv"), 110);
    uint64_t bytes[2] = {0, 0}, sent[2] = {0, 0};
    size_t self0 = 0;
    for (size_t i = 0; i < s.n_msgs; i++) {
        const ari_event_msg *m = &s.msgs[i];
        int64_t rank = s.procs[s.locs[m->location].process].rank;
        if (m->kind == ARI_MSG_RECV) {
            bytes[rank] += m->bytes;
            self0 += rank == 0 && m->peer == 0;
        } else {
            sent[rank] += m->bytes;
        }
    }
    assert_int_equal(bytes[0], 22144);
    assert_int_equal(bytes[1], 20592);
    assert_int_equal(sent[0], 11968);
    assert_int_equal(sent[1], 11056);
    assert_int_equal(self0, 23);
    assert_int_equal(s.n_colls, 35);
    assert_int_equal(count(&s, 0, TES_ENTER, NULL), 437);
    assert_int_equal(count(&s, 1, TES_ENTER, NULL), 440);
    assert_int_equal(count(&s, 0, TES_LEAVE, NULL), 437);
    assert_int_equal(count(&s, 1, TES_LEAVE, NULL), 440);
    assert_int_equal(count(&s, 0, TES_ENTER, "recv(PingMsg* impl_msg)"),
                     count(&s, 0, TES_LEAVE, "recv(PingMsg* impl_msg)"));
    /* one BEGIN_PROCESSING per PE has no END (the shutdown entry): closed */
    assert_string_equal(note_of(&s, "projections_closed_at_end"), "2");
    assert_string_equal(note_of(&s, "projections_unmatched_ends"), "0");
    assert_string_equal(note_of(&s, "projections_entries"), "228");
    /* times: microseconds to ns; PE 0 begins at 77991 us */
    for (size_t i = 0; i < s.n_events; i++)
        if (s.events[i].process == 0) {
            assert_true(s.events[i].time == 77991e3);
            break;
        }
    tes_free(&s);
    free(sts), free(l0), free(l1);
}

/* ---- bad input ----------------------------------------------------------------------------- */

static void expect_error(const char *sts, const char *const *logs, size_t n, const char *want1,
                         const char *want2)
{
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, n, &err), -1);
    if (!strstr(err.message, want1) || (want2 && !strstr(err.message, want2)))
        fail_msg("error '%s' lacks '%s' / '%s'", err.message, want1, want2 ? want2 : "");
    tes_free(&s);
}

static void test_errors(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *sts = fixture("tiny.sts"), *l0 = fixture("tiny.0.log");
    const char *logs[] = {l0};
    /* a log without its .sts */
    char *missing;
    assert_true(asprintf(&missing, "%s/gone.sts", dir) > 0);
    expect_error(missing, logs, 1, "gone.sts", ".sts");
    expect_error(NULL, logs, 1, ".sts", NULL);
    /* malformed records, each naming file and line */
    char *bad1 = wf(dir, "x.0.log", "PROJECTIONS-RECORD 2\n6 100\n2 0 1 abc 1 0 48 0 0 1\n");
    const char *b1[] = {bad1};
    expect_error(sts, b1, 1, "x.0.log:3:", "'abc' is not an integer");
    char *bad2 = wf(dir, "x.1.log", "6 100\n3 0 1 120\n");
    const char *b2[] = {bad2};
    expect_error(sts, b2, 1, "x.1.log:2:", "too few fields");
    char *bad3 = wf(dir, "x.0.log", "6 100\nhello world\n");
    expect_error(sts, b1, 1, "x.0.log:2:", "not a record type");
    char *bad4 = wf(dir, "x.0.log", "6 100\n2 0 99 110 0 0 8 0 0 110\n");
    expect_error(sts, b1, 1, "x.0.log:2:", "entry method 99");
    /* a PE the .sts does not have, and a PE twice */
    char *bad5 = wf(dir, "x.7.log", "6 100\n");
    const char *b5[] = {bad5};
    expect_error(sts, b5, 1, "x.7.log", "declares 2 PEs");
    const char *twice[] = {l0, l0};
    expect_error(sts, twice, 2, "tiny.0.log: a second log of PE 0", NULL);
    /* a sender or multicast destination beyond the PEs */
    char *bad7 = wf(dir, "x.0.log", "6 100\n21 0 1 110 0 0 8 0 2 1 9\n");
    expect_error(sts, b1, 1, "x.0.log:2:", "destination PE 9");
    free(bad7);
    /* bad .sts files */
    char *s1 = wf(dir, "a.sts", "hello\n");
    expect_error(s1, logs, 1, "a.sts:1:", "not a Projections");
    char *s2 = wf(dir, "b.sts", "PROJECTIONS_ID\nVERSION 11.0\nENTRY CHARE 3 \"x\n");
    expect_error(s2, logs, 1, "b.sts:3:", "ENTRY");
    char *s3 = wf(dir, "c.sts", "PROJECTIONS_ID\nVERSION 11.0\n");
    expect_error(s3, logs, 1, "c.sts", "PROCESSORS");
    char *s4 = wf(dir, "d.sts", "PROJECTIONS_ID\nPROCESSORS 1\nCHARE 0 \"a\" 1\nCHARE 0 \"b\" 1\n");
    expect_error(s4, logs, 1, "d.sts", "CHARE 0 is defined twice");
    ari_remove_tree(dir);
    free(dir), free(sts), free(l0), free(missing), free(bad1), free(bad2), free(bad3), free(bad4), free(bad5);
    free(s1), free(s2), free(s3), free(s4);
}

/* A sink that fails stops the reader at once, at every callback. */
static void test_sink_failure(void **state)
{
    (void)state;
    char *sts = fixture("tiny.sts"), *l0 = fixture("tiny.0.log"), *l1 = fixture("tiny.1.log");
    const char *logs[] = {l0, l1};
    tes_sink s;
    ari_error err;
    assert_int_equal(read_into(&s, sts, logs, 2, &err), 0);
    int64_t calls = s.calls;
    tes_free(&s);
    for (int64_t n = 1; n <= calls; n++) {
        tes_init(&s);
        s.fail_at = n;
        ari_event_sink k = tes_sink_of(&s);
        assert_int_equal(ari_projections_read(sts, logs, 2, &k, &err), -1);
        assert_int_equal(s.calls, n);
        tes_free(&s);
    }
    free(sts), free(l0), free(l1);
}

/* The fuzz seeds (tests/fixtures/fuzz/projections: a .sts and its logs
 * joined by the fuzz file mark), read as fuzz_projections reads them: so
 * crashes found and kept there stay regression tests. The two seeds made
 * from the fixtures read cleanly. */
static void test_fuzz_seeds(void **state)
{
    (void)state;
    static const char mark[] = "\n--ariadne-fuzz-file--\n";
    const char *seeds[] = {"tiny", "every_record"};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        char *path, *data, *dir = test_tmpdir(), *files[5] = {NULL};
        size_t len, nfiles = 0;
        ari_error err;
        assert_true(asprintf(&path, "%s/tests/fixtures/fuzz/projections/%s", test_source_dir(), seeds[i]) >
                    0);
        assert_int_equal(ari_input_load(path, NULL, &data, &len, &err), 0);
        const char *p = data, *end = data + len;
        while (nfiles < 5) {
            const char *m = memmem(p, (size_t)(end - p), mark, sizeof mark - 1);
            const char *stop = m ? m : end;
            char name[16];
            if (nfiles == 0)
                snprintf(name, sizeof name, "p.sts");
            else
                snprintf(name, sizeof name, "p.%zu.log", nfiles - 1);
            files[nfiles++] = test_write_file(dir, name, p, (size_t)(stop - p));
            if (!m)
                break;
            p = m + sizeof mark - 1;
        }
        tes_sink s;
        assert_int_equal(read_into(&s, files[0], (const char *const *)files + 1, nfiles - 1, &err), 0);
        assert_int_equal(s.backwards, 0);
        assert_true(s.n_events > 10);
        tes_free(&s);
        for (size_t j = 0; j < nfiles; j++)
            free(files[j]);
        ari_remove_tree(dir);
        free(dir), free(path), free(data);
    }
}

static void test_probe_and_names(void **state)
{
    (void)state;
    assert_true(ari_projections_sts_probe("PROJECTIONS_ID \nVERSION 11.0\n", 29));
    assert_true(ari_projections_sts_probe("VERSION 7.0\nMACHINE \"x\"\nPROCESSORS 4\n", 37));
    assert_false(ari_projections_sts_probe("VERSION 7.0\nsomething else\n", 27));
    assert_false(ari_projections_sts_probe("%EventDef PajeDefineContainerType 0\n", 36));
    assert_int_equal(ari_projections_log_pe("/a/b/pingpong.prj.12.log.gz"), 12);
    assert_int_equal(ari_projections_log_pe("x.0.log"), 0);
    assert_int_equal(ari_projections_log_pe("x.log"), -1);
    assert_int_equal(ari_projections_log_pe("x.a1.log"), -1);
    assert_int_equal(ari_projections_log_pe(".3.log"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny),         cmocka_unit_test(test_tiny_gzip),
        cmocka_unit_test(test_every_record), cmocka_unit_test(test_pipit_pingpong),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_sink_failure),
        cmocka_unit_test(test_fuzz_seeds),   cmocka_unit_test(test_probe_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
