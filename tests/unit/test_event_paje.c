/* test_event_paje.c: event traces into the Paje model (ingest/event_paje.h):
 * nested states with depths, messages matched FIFO per (sender, receiver,
 * tag, communicator) whichever side comes first, instants and collectives
 * as events, metric samples as pieces, what stays open closed at the end,
 * the system tree as containers above the processes, and the errors of a
 * Leave without its Enter or of the wrong region. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/event_paje.h"

/* A sink that prints every row it gets, one line each, into a buffer. */
typedef struct rec {
    char text[8192];
    size_t n;
} rec;

static void add(rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(rec *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(r->text + r->n, sizeof r->text - r->n, fmt, ap);
    va_end(ap);
    if (k > 0 && r->n + (size_t)k < sizeof r->text)
        r->n += (size_t)k;
}

static int r_type(void *ctx, const ari_type_def *t)
{
    add(ctx, "type %s %s\n", t->alias, t->name);
    return 0;
}

static int r_container(void *ctx, const ari_container *c)
{
    add(ctx, "container %s '%s' in %s\n", c->alias, c->name, c->parent);
    return 0;
}

static int r_container_end(void *ctx, const char *alias, double end)
{
    add(ctx, "end %s %g\n", alias, end);
    return 0;
}

static int r_state(void *ctx, const ari_state *s)
{
    add(ctx, "state %s %s %g %g d%d\n", s->container, s->value, s->start, s->end, s->depth);
    return 0;
}

static int r_variable(void *ctx, const ari_variable *v)
{
    add(ctx, "variable %s %s %g %g %g\n", v->container, v->type, v->start, v->end, v->value);
    return 0;
}

static int r_link(void *ctx, const ari_link *l)
{
    add(ctx, "link %s %s->%s %g %g %s=%s\n", l->key, l->start_container, l->end_container, l->start, l->end,
        l->fields[0].name, l->fields[0].value);
    return 0;
}

static int r_event(void *ctx, const ari_event *e)
{
    add(ctx, "event %s %s %g\n", e->container, e->value, e->time);
    return 0;
}

static ari_sink recording(rec *r)
{
    return (ari_sink){r, r_type, r_container, r_container_end, r_state, r_variable, r_link, r_event, NULL};
}

static ari_event_msg msg(int64_t loc, double t, ari_msg_kind kind, int64_t peer, uint64_t bytes)
{
    return (ari_event_msg){loc, t, kind, peer, 7, 0, bytes, 0};
}

/* Two ranks of one thread: nested functions, a ping-pong where rank 1's
 * receive is read before rank 0's send, a non-blocking pair, an instant, a
 * collective and a counter. */
static void test_mapping(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    assert_non_null(ep);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t p0 = k->process(k->ctx, 0, NULL), p1 = k->process(k->ctx, 1, NULL);
    assert_int_equal(k->process(k->ctx, 1, NULL), p1); /* the same rank: the same process */
    int64_t l0 = k->location(k->ctx, p0, 0, NULL), l1 = k->location(k->ctx, p1, 0, NULL);
    int64_t main_r = k->region(k->ctx, "main", "pp.c", 3, "function");
    int64_t send_r = k->region(k->ctx, "MPI_Send", NULL, 0, "mpi");
    int64_t recv_r = k->region(k->ctx, "MPI_Recv", NULL, 0, "mpi");
    /* rank 1 first (a reader going location by location) */
    assert_int_equal(k->enter(k->ctx, l1, 0, main_r), 0);
    assert_int_equal(k->metric(k->ctx, l1, 5, "PAPI_TOT_INS", NULL, 100), 0);
    assert_int_equal(k->enter(k->ctx, l1, 10, recv_r), 0);
    ari_event_msg m = msg(l1, 20, ARI_MSG_RECV, 0, 64);
    assert_int_equal(k->message(k->ctx, &m), 0); /* waits for its send */
    assert_int_equal(k->leave(k->ctx, l1, 21, recv_r), 0);
    assert_int_equal(k->metric(k->ctx, l1, 25, "PAPI_TOT_INS", NULL, 300), 0);
    m = msg(l1, 30, ARI_MSG_ISEND, 0, 128);
    assert_int_equal(k->message(k->ctx, &m), 0);
    assert_int_equal(k->leave(k->ctx, l1, 40, main_r), 0);
    /* rank 0 */
    assert_int_equal(k->instant(k->ctx, l0, 0, "ProgramBegin"), 0);
    assert_int_equal(k->enter(k->ctx, l0, 1, main_r), 0);
    assert_int_equal(k->enter(k->ctx, l0, 2, send_r), 0);
    m = msg(l0, 3, ARI_MSG_SEND, 1, 64);
    assert_int_equal(k->message(k->ctx, &m), 0); /* matches rank 1's receive */
    assert_int_equal(k->leave(k->ctx, l0, 4, send_r), 0);
    m = msg(l0, 31, ARI_MSG_IRECV_REQUEST, 1, 0);
    assert_int_equal(k->message(k->ctx, &m), 0); /* no data moved: nothing */
    m = msg(l0, 35, ARI_MSG_IRECV, 1, 128);
    assert_int_equal(k->message(k->ctx, &m), 0); /* matches rank 1's isend */
    ari_event_collective c = {l0, 36, 38, "MPI_Barrier", 0, -1, 0, 0, 0, 0};
    assert_int_equal(k->collective(k->ctx, &c), 0);
    assert_int_equal(k->enter(k->ctx, l0, 39, send_r), 0); /* left open: closed at the end */
    m = msg(l0, 39.5, ARI_MSG_SEND, 1, 8); /* never received */
    assert_int_equal(k->message(k->ctx, &m), 0);
    ari_event_paje_report rep;
    assert_int_equal(ari_event_paje_finish(ep, &rep, &err), 0);
    ari_event_paje_free(ep);

    const char *want =
        "type P Process\ntype T Thread\ntype F Function\ntype E Instant\ntype M Message\n"
        "container p0 'rank 0' in 0\ncontainer p1 'rank 1' in 0\n"
        "container l0 'thread 0' in p0\ncontainer l1 'thread 0' in p1\n"
        "type V0 PAPI_TOT_INS\n"
        "state l1 MPI_Recv 10 21 d1\n"
        "variable l1 V0 5 25 100\n"
        "state l1 main 0 40 d0\n"
        "event l0 ProgramBegin 0\n"
        "link m0 l0->l1 3 20 bytes=64\n"
        "state l0 MPI_Send 2 4 d1\n"
        "link m1 l1->l0 30 35 bytes=128\n"
        "event l0 MPI_Barrier 36\n"
        "state l0 MPI_Send 39 39.5 d1\n"
        "state l0 main 1 39.5 d0\n"
        "variable l1 V0 25 40 300\n"
        "end l0 39.5\nend l1 40\nend p0 39.5\nend p1 40\n";
    if (strcmp(r.text, want) != 0)
        fail_msg("got:\n%s\nwanted:\n%s", r.text, want);
    assert_int_equal(rep.states, 5);
    assert_int_equal(rep.links, 2);
    assert_int_equal(rep.events, 2);
    assert_int_equal(rep.variables, 2);
    assert_int_equal(rep.unclosed, 2);
    assert_int_equal(rep.unmatched_sends, 1);
    assert_int_equal(rep.unmatched_receives, 0);
}

/* Several messages of one (sender, receiver, tag, communicator) match in
 * order (MPI's non-overtaking rule); another tag is another queue. */
static void test_fifo(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t l0 = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t l1 = k->location(k->ctx, k->process(k->ctx, 1, NULL), 0, NULL);
    for (int i = 0; i < 3; i++) {
        ari_event_msg m = msg(l0, 10 * i, ARI_MSG_SEND, 1, (uint64_t)(i + 1));
        assert_int_equal(k->message(k->ctx, &m), 0);
    }
    ari_event_msg other = {l0, 1, ARI_MSG_SEND, 1, 9, 0, 99, 0}; /* tag 9 */
    assert_int_equal(k->message(k->ctx, &other), 0);
    for (int i = 0; i < 3; i++) {
        ari_event_msg m = msg(l1, 10 * i + 5, ARI_MSG_RECV, 0, (uint64_t)(i + 1));
        assert_int_equal(k->message(k->ctx, &m), 0);
    }
    ari_event_paje_report rep;
    assert_int_equal(ari_event_paje_finish(ep, &rep, &err), 0);
    ari_event_paje_free(ep);
    assert_non_null(strstr(r.text, "link m0 l0->l1 0 5 bytes=1\nlink m1 l0->l1 10 15 bytes=2\n"
                                   "link m2 l0->l1 20 25 bytes=3\n"));
    assert_int_equal(rep.unmatched_sends, 1); /* the tag-9 message */
}

/* FIFO matching (OTF2): a receive left over in a queue that matched before
 * is unmatched, not a re-delivery (those are Projections' only). */
static void test_fifo_leftover(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t l0 = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t l1 = k->location(k->ctx, k->process(k->ctx, 1, NULL), 0, NULL);
    ari_event_msg m = msg(l0, 1, ARI_MSG_SEND, 1, 8);
    assert_int_equal(k->message(k->ctx, &m), 0);
    for (int i = 0; i < 2; i++) {
        m = msg(l1, 2 + i, ARI_MSG_RECV, 0, 8);
        assert_int_equal(k->message(k->ctx, &m), 0);
    }
    ari_event_paje_report rep;
    assert_int_equal(ari_event_paje_finish(ep, &rep, &err), 0);
    ari_event_paje_free(ep);
    assert_int_equal(rep.links, 1);
    assert_int_equal(rep.unmatched_receives, 1);
    assert_int_equal(rep.redelivered, 0);
}

/* A system tree machine > {node a, node b} (+ an empty node c): container
 * types "Machine" > "Node" > "Process", the nodes given to the sink only
 * when a process sits under them, ends from their last process; a rank
 * placed under a deeper node stands under its ancestor at the first
 * rank's depth, one under a shallower node is an error. */
static void test_system_tree(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t m = k->system_node(k->ctx, -1, "machine", "Linux");
    int64_t a = k->system_node(k->ctx, m, "node", "a"), b = k->system_node(k->ctx, m, "node", "b");
    int64_t c = k->system_node(k->ctx, m, "node", "c"), sock = k->system_node(k->ctx, b, "socket", "s0");
    assert_true(m >= 0 && a >= 0 && b >= 0 && c >= 0 && sock >= 0);
    assert_int_equal(k->system_node(k->ctx, 99, "node", "x"), -1); /* an unknown parent */
    assert_int_equal(k->process_node(k->ctx, 0, a), 0);
    assert_int_equal(k->process_node(k->ctx, 1, sock), 0);
    assert_int_equal(k->process_node(k->ctx, 2, m), 0);
    int64_t l0 = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t l1 = k->location(k->ctx, k->process(k->ctx, 1, NULL), 0, NULL);
    int64_t f = k->region(k->ctx, "f", NULL, 0, NULL);
    assert_int_equal(k->enter(k->ctx, l0, 1, f), 0);
    assert_int_equal(k->leave(k->ctx, l0, 5, f), 0);
    assert_int_equal(k->enter(k->ctx, l1, 2, f), 0);
    assert_int_equal(k->leave(k->ctx, l1, 9, f), 0);
    int64_t d = k->system_node(k->ctx, m, "node", "d"); /* after the first process: fine */
    assert_int_equal(k->process_node(k->ctx, 4, d), 0);
    assert_true(k->process(k->ctx, 4, NULL) >= 0);
    assert_int_equal(k->process(k->ctx, 2, NULL), -1); /* under the machine: too high */
    assert_non_null(strstr(ari_event_paje_error(ep)->message, "rank 2 is not at the depth"));
    ari_event_paje_report rep;
    assert_int_equal(ari_event_paje_finish(ep, &rep, &err), 0);
    ari_event_paje_free(ep);
    const char *want = "type S0 Machine\ntype S1 Node\ntype P Process\ntype T Thread\n";
    if (strncmp(r.text, want, strlen(want)) != 0)
        fail_msg("got:\n%s", r.text);
    assert_non_null(strstr(r.text, "container n0 'Linux' in 0\ncontainer n1 'a' in n0\ncontainer p0 'rank 0' in n1\n"));
    assert_non_null(strstr(r.text, "container n2 'b' in n0\ncontainer p1 'rank 1' in n2\n"));
    assert_null(strstr(r.text, "'c'"));
    assert_null(strstr(r.text, "'s0'"));
    assert_non_null(strstr(r.text, "container n5 'd' in n0\ncontainer p2 'rank 4' in n5\n"));
    assert_non_null(strstr(r.text, "end p0 5\nend p1 9\nend p2 0\nend n5 0\nend n2 9\nend n1 5\nend n0 9\n"));
}

/* Without a tree, or with classes that clash with the other types, the
 * levels are named "Level <d>"; processes with no node when the first had
 * none stay under the root. */
static void test_tree_names(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t t = k->system_node(k->ctx, -1, "thread", "x");
    int64_t u = k->system_node(k->ctx, t, NULL, "y");
    assert_int_equal(k->process_node(k->ctx, 3, u), 0);
    assert_true(k->process(k->ctx, 3, NULL) >= 0);
    assert_int_equal(k->process_node(k->ctx, 3, t), 0); /* after its process: ignored */
    assert_int_equal(ari_event_paje_finish(ep, NULL, &err), 0);
    ari_event_paje_free(ep);
    assert_non_null(strstr(r.text, "type S0 Level 0\ntype S1 Level 1\ntype P Process\n"));
    assert_non_null(strstr(r.text, "container p0 'rank 3' in n1\n"));
}

/* By request (Projections): a message begun three times is one link and
 * two re-deliveries, whichever side is read first; the receives of a
 * broadcast (a collective with a request) are its deliveries, before or
 * after it; a receive of nothing sent stays unmatched. */
static void test_redelivered(void **state)
{
    (void)state;
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    ari_event_paje_match_by_request(ep);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t l0 = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t l1 = k->location(k->ctx, k->process(k->ctx, 1, NULL), 0, NULL);
    /* PE 0 read first: three receives of PE 1's event 19, one of PE 1's
     * broadcast 0, one of PE 0's own event 57 after its send, one of
     * event 99 that nobody sent */
    ari_event_msg m = {l0, 10, ARI_MSG_SEND, -1, 4, -1, 192, 57};
    assert_int_equal(k->message(k->ctx, &m), 0);
    for (int i = 0; i < 3; i++) {
        m = (ari_event_msg){l0, 11 + i, ARI_MSG_RECV, 0, 4, -1, 192, 57};
        assert_int_equal(k->message(k->ctx, &m), 0);
        m = (ari_event_msg){l0, 20 + i, ARI_MSG_RECV, 1, 4, -1, 192, 19};
        assert_int_equal(k->message(k->ctx, &m), 0);
    }
    m = (ari_event_msg){l0, 30, ARI_MSG_RECV, 1, 4, -1, 64, 0};
    assert_int_equal(k->message(k->ctx, &m), 0);
    m = (ari_event_msg){l0, 31, ARI_MSG_RECV, 1, 4, -1, 64, 99};
    assert_int_equal(k->message(k->ctx, &m), 0);
    /* PE 1: its send of event 19, its broadcast 0, then a receive of the broadcast on itself */
    m = (ari_event_msg){l1, 5, ARI_MSG_SEND, -1, 4, -1, 192, 19};
    assert_int_equal(k->message(k->ctx, &m), 0);
    ari_event_collective c = {l1, 1, 1, "Broadcast", -1, 1, 64, 0, 1, 0};
    assert_int_equal(k->collective(k->ctx, &c), 0);
    m = (ari_event_msg){l1, 40, ARI_MSG_RECV, 1, 4, -1, 64, 0};
    assert_int_equal(k->message(k->ctx, &m), 0);
    ari_event_paje_report rep;
    assert_int_equal(ari_event_paje_finish(ep, &rep, &err), 0);
    assert_non_null(strstr(ari_event_paje_notes(ep), "\"redelivered_receives\":6"));
    ari_event_paje_free(ep);
    assert_int_equal(rep.links, 2);
    assert_non_null(strstr(r.text, "link m0 l0->l0 10 11 bytes=192\n"));
    assert_non_null(strstr(r.text, "link m1 l1->l0 5 20 bytes=192\n"));
    assert_int_equal(rep.redelivered, 2 + 2 + 2);
    assert_int_equal(rep.unmatched_receives, 1);
    assert_int_equal(rep.unmatched_sends, 0);
}

static void expect_error(const char *what, int leave_first)
{
    rec r = {0};
    ari_sink out = recording(&r);
    ari_error err = {0};
    ari_event_paje *ep = ari_event_paje_new(&out, &err);
    const ari_event_sink *k = ari_event_paje_sink(ep);
    int64_t l0 = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t a = k->region(k->ctx, "a", NULL, 0, NULL), b = k->region(k->ctx, "b", NULL, 0, NULL);
    if (leave_first) {
        assert_int_equal(k->leave(k->ctx, l0, 1, a), -1);
    } else {
        assert_int_equal(k->enter(k->ctx, l0, 1, a), 0);
        assert_int_equal(k->leave(k->ctx, l0, 2, b), -1);
    }
    const ari_error *e = ari_event_paje_error(ep);
    if (!strstr(e->message, what))
        fail_msg("got '%s', wanted '%s'", e->message, what);
    assert_int_equal(k->enter(k->ctx, 99, 1, a), -1); /* an unknown location */
    ari_event_paje_free(ep);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("a Leave of 'a' at 1 ns on location 0 without its Enter", 1);
    expect_error("a Leave of 'b' at 2 ns on location 0 while 'a' is open", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_fifo_leftover),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_system_tree),
        cmocka_unit_test(test_tree_names),
        cmocka_unit_test(test_redelivered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
