/* bench_event_read.c: the cost of the isolated event-trace read (event_read.h,
 * event_wire.h): reads one trace into a sink that only counts, in process
 * and then isolated through `ARIADNED event-reader`, and prints the calls
 * per second of each as one JSON line.
 *
 *   bench_event_read ARIADNED otf2|projections|hpctoolkit PATH...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/event_read.h"

static int64_t defs, events;

static int64_t on_def(void) { return defs++; }
static int64_t on_process(void *c, int64_t r, const char *n) { (void)c, (void)r, (void)n; return on_def(); }
static int64_t on_location(void *c, int64_t p, int64_t t, const char *n) { (void)c, (void)p, (void)t, (void)n; return on_def(); }
static int64_t on_region(void *c, const char *n, const char *f, int l, const char *r) { (void)c, (void)n, (void)f, (void)l, (void)r; return on_def(); }
static int64_t on_comm(void *c, const char *n, int64_t s) { (void)c, (void)n, (void)s; return on_def(); }
static int on_enter(void *c, int64_t l, double t, int64_t r) { (void)c, (void)l, (void)t, (void)r; events++; return 0; }
static int on_instant(void *c, int64_t l, double t, const char *n) { (void)c, (void)l, (void)t, (void)n; events++; return 0; }
static int on_message(void *c, const ari_event_msg *m) { (void)c, (void)m; events++; return 0; }
static int on_coll(void *c, const ari_event_collective *e) { (void)c, (void)e; events++; return 0; }
static int on_metric(void *c, int64_t l, double t, const char *m, const char *u, double v) { (void)c, (void)l, (void)t, (void)m, (void)u, (void)v; events++; return 0; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double run(ari_event_reader r, const char *const *paths, size_t n)
{
    ari_event_sink k = {.process = on_process, .location = on_location, .region = on_region, .communicator = on_comm,
                        .enter = on_enter, .leave = on_enter, .instant = on_instant, .message = on_message,
                        .collective = on_coll, .metric = on_metric};
    ari_error err = {0};
    defs = events = 0;
    double t0 = now_s();
    if (ari_event_read(r, paths, n, &k, &err) < 0) {
        fprintf(stderr, "bench_event_read: %s\n", err.message);
        exit(1);
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fputs("usage: bench_event_read ARIADNED otf2|projections|hpctoolkit PATH...\n", stderr);
        return 2;
    }
    ari_event_reader r = strcmp(argv[2], "otf2") == 0 ? ARI_EVREAD_OTF2
                         : strcmp(argv[2], "projections") == 0 ? ARI_EVREAD_PROJECTIONS : ARI_EVREAD_HPCTOOLKIT;
    const char *const *paths = (const char *const *)argv + 3;
    size_t n = (size_t)argc - 3;
    double in = run(r, paths, n);
    int64_t ev = events;
    ari_event_read_isolate(argv[1], (size_t)4 << 30, 14400);
    double iso = run(r, paths, n);
    if (events != ev) {
        fprintf(stderr, "bench_event_read: %lld events isolated, %lld in process\n", (long long)events, (long long)ev);
        return 1;
    }
    printf("{\"events\":%lld,\"definitions\":%lld,\"in_process_s\":%.3f,\"isolated_s\":%.3f,"
           "\"in_process_events_per_s\":%.0f,\"isolated_events_per_s\":%.0f}\n",
           (long long)ev, (long long)defs, in, iso, ev / in, ev / iso);
    return 0;
}
