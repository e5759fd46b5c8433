/* starpu_writer.c: line formatting, buffered files and the paje.trace body
 * writer (FxT-like interleaved buffers, or a time-ordered heap merge). */
#include "gen/starpu_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/heap.h"

/* ---- line builder -------------------------------------------------------- */

void sw_reset(sw_line *l) { l->n = 0; }

static int sw_room(const sw_line *l, size_t n) { return l->n + n < SW_LINE_MAX; }

void sw_str(sw_line *l, const char *s)
{
    size_t n = strlen(s);
    if (!sw_room(l, n))
        n = SW_LINE_MAX - 1 - l->n;
    memcpy(l->s + l->n, s, n);
    l->n += n;
}

void sw_chr(sw_line *l, char c)
{
    if (sw_room(l, 1))
        l->s[l->n++] = c;
}

/* Writes the digits of v in `base` (10 or 16, lower case), left-padded with
 * zeros to `width`. */
static void sw_digits(sw_line *l, uint64_t v, unsigned base, int width)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = digits[v % base];
        v /= base;
    } while (v && i < 24);
    while (i < width && i < 24)
        tmp[i++] = '0';
    if (!sw_room(l, (size_t)i))
        return;
    while (i > 0)
        l->s[l->n++] = tmp[--i];
}

static void sw_u64_padded(sw_line *l, uint64_t v, int width)
{
    sw_digits(l, v, 10, width);
}

void sw_i64(sw_line *l, int64_t v)
{
    if (v < 0) {
        sw_chr(l, '-');
        sw_u64_padded(l, (uint64_t)(-(v + 1)) + 1u, 1);
    } else {
        sw_u64_padded(l, (uint64_t)v, 1);
    }
}

void sw_hex(sw_line *l, uint64_t v, int min_digits)
{
    sw_digits(l, v, 16, min_digits);
}

void sw_ms(sw_line *l, int64_t ps, int decimals)
{
    if (ps < 0) {
        sw_chr(l, '-');
        ps = -ps;
    }
    sw_u64_padded(l, (uint64_t)(ps / 1000000000), 1);
    sw_chr(l, '.');
    uint64_t frac = (uint64_t)(ps % 1000000000);
    if (decimals == 6)
        sw_u64_padded(l, frac / 1000, 6);
    else
        sw_u64_padded(l, frac, 9);
}

void sw_f6(sw_line *l, double v)
{
    if (!(v >= 0) || v > 1e12)
        v = 0;
    uint64_t micro = (uint64_t)(v * 1e6 + 0.5);
    sw_u64_padded(l, micro / 1000000, 1);
    sw_chr(l, '.');
    sw_u64_padded(l, micro % 1000000, 6);
}

/* ---- files ----------------------------------------------------------------- */

int sw_file_open(sw_file *out, const char *dir, const char *name, ari_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(dir) + strlen(name) + 2;
    out->path = malloc(n);
    if (!out->path)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    snprintf(out->path, n, "%s/%s", dir, name);
    out->f = fopen(out->path, "wb");
    if (!out->f) {
        int e = errno;
        ari_error_set(err, ARI_E_IO, "cannot create %s: %s", out->path, strerror(e));
        free(out->path);
        out->path = NULL;
        return -1;
    }
    setvbuf(out->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

void sw_file_write(sw_file *out, const char *s, size_t n)
{
    if (!out->f || out->failed || n == 0)
        return;
    if (fwrite(s, 1, n, out->f) != n)
        out->failed = errno ? errno : EIO;
    out->bytes += n;
}

void sw_file_line(sw_file *out, const sw_line *l) { sw_file_write(out, l->s, l->n); }

int sw_file_close(sw_file *out, ari_error *err)
{
    int rc = 0;
    if (out->f) {
        if (fclose(out->f) != 0 && !out->failed)
            out->failed = errno ? errno : EIO;
        out->f = NULL;
        if (out->failed)
            rc = ari_error_set(err, ARI_E_IO, "cannot write %s: %s", out->path,
                               strerror(out->failed));
    }
    free(out->path);
    out->path = NULL;
    return rc;
}

/* ---- StarPU paje definitions ---------------------------------------------------- */

/* The %EventDef header of starpu_fxt_tool 1.4 (with StarPU's user fields). */
const char sw_starpu_eventdefs[] =
    "%EventDef\tPajeDefineContainerType\t1\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef\tPajeDefineEventType\t2\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%\tColor\tcolor\n%EndEventDef\n"
    "%EventDef\tPajeDefineStateType\t3\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef\tPajeDefineVariableType\t4\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef\tPajeDefineLinkType\t5\n%\tAlias\tstring\n%\tType\tstring\n%\tStartContainerType\tstring\n%\tEndContainerType\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef\tPajeDefineEntityValue\t6\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%\tColor\tcolor\n%EndEventDef\n"
    "%EventDef\tPajeCreateContainer\t7\n%\tTime\tdate\n%\tAlias\tstring\n%\tType\tstring\n%\tContainer\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef\tPajeDestroyContainer\t8\n%\tTime\tdate\n%\tName\tstring\n%\tType\tstring\n%EndEventDef\n"
    "%EventDef\tPajeNewEvent\t9\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%EndEventDef\n"
    "%EventDef PajeSetState 10\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%\tValue\tstring\n%EndEventDef\n"
    "%EventDef\tPajePushState\t11\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%\tValue\tstring\n%EndEventDef\n"
    "%EventDef\tPajePopState\t12\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%EndEventDef\n"
    "%EventDef\tPajeSetVariable\t13\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%\tValue\tdouble\n%EndEventDef\n"
    "%EventDef\tPajeAddVariable\t14\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tdouble\n%EndEventDef\n"
    "%EventDef\tPajeSubVariable\t15\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tdouble\n%EndEventDef\n"
    "%EventDef\tPajeStartLink\t18\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%\tStartContainer\tstring\n%\tKey\tstring\n%EndEventDef\n"
    "%EventDef\tPajeEndLink\t19\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%\tEndContainer\tstring\n%\tKey\tstring\n%EndEventDef\n"
    "%EventDef PajeSetState 20\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%\tValue\tstring\n%\tSize\tstring\n%\tParams\tstring\n%\tFootprint\tstring\n%\tTag\tstring\n%\tJobId\tstring\n%\tSubmitOrder\tstring\n%\tGFlop\tstring\n%\tX\tstring\n%\tY\tstring\n%\tIteration\tstring\n%\tSubiteration\tstring\n%\tNumaNodes\tstring\n%EndEventDef\n"
    "%EventDef PajeSetState 21\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n%\tValue\tstring\n%\tSize\tstring\n%\tParams\tstring\n%\tFootprint\tstring\n%\tTag\tstring\n%\tJobId\tstring\n%\tSubmitOrder\tstring\n%EndEventDef\n"
    "%EventDef\tPajeNewEvent\t22\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%\tHandle\tstring\n%\tInfo\tstring\n%\tSize\tstring\n%\tTid\tstring\n%EndEventDef\n"
    "%EventDef\tPajeStartLink\t23\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%\tStartContainer\tstring\n%\tKey\tstring\n%\tMPITAG\tstring\n%\tMPIType\tstring\n%\tPriority\tstring\n%\tHandle\tstring\n%\tHName\tstring\n%\tX\tstring\n%\tY\tstring\n%EndEventDef\n"
    "%EventDef\tPajeStartLink\t24\n%\tTime\tdate\n%\tType\tstring\n%\tContainer\tstring\n%\tValue\tstring\n%\tStartContainer\tstring\n%\tKey\tstring\n%\tHandle\tstring\n%\tHName\tstring\n%\tX\tstring\n%\tY\tstring\n%EndEventDef\n";

/* Container, state, variable, link types and values, with StarPU's aliases. */
const char sw_starpu_types[] =
    "1\tMPIP\t0\t\"MPI Program\"\n"
    "1\tP\tMPIP\t\"Program\"\n"
    "1\tMn\tP\t\"Memory Node\"\n"
    "1\tT\tMn\t\"Thread\"\n"
    "1\tUT\tP\t\"User Thread\"\n"
    "1\tMm\tMn\t\"Memory Manager\"\n"
    "1\tW\tT\t\"Worker\"\n"
    "1\tMPICt\tP\t\"MPI Communication Thread\"\n"
    "1\tSc\tP\t\"Scheduler State\"\n"
    "2\tprog_event\tP\t\"program event type\"\t\"1.0 1.0 1.0\"\n"
    "2\tregister\tP\t\"data registration\"\t\"1.0 1.0 1.0\"\n"
    "2\tunregister\tP\t\"data unregistration\"\t\"1.0 1.0 1.0\"\n"
    "3\tS\tT\t\"Thread State\"\n"
    "3\tCtS\tMPICt\t\"Communication Thread State\"\n"
    "3\tMS\tMm\t\"Memory Node State\"\n"
    "4\tnsubmitted\tSc\t\"Number of Submitted Uncompleted Tasks\"\n"
    "4\tnready\tSc\t\"Number of Ready Tasks\"\n"
    "4\tgft\tSc\t\"Total GFlop/s\"\n"
    "4\tuse\tMm\t\"Used (MB)\"\n"
    "4\tbwi_mm\tMm\t\"Bandwidth In (MB/s)\"\n"
    "4\tbwo_mm\tMm\t\"Bandwidth Out (MB/s)\"\n"
    "4\tbwi_mpi\tMPICt\t\"Bandwidth In (MB/s)\"\n"
    "4\tbwo_mpi\tMPICt\t\"Bandwidth Out (MB/s)\"\n"
    "4\tgf\tW\t\"GFlop/s\"\n"
    "3\tWS\tW\t\"Worker State\"\n"
    "6\tI\tWS\tIdle\t\".9 .1 .0\"\n"
    "6\tIn\tWS\tInitializing\t\"0.0 .7 1.0\"\n"
    "6\tD\tWS\tDeinitializing\t\"0.0 .1 .7\"\n"
    "6\tFi\tWS\tFetchingInput\t\"1.0 .1 1.0\"\n"
    "6\tPo\tWS\tPushingOutput\t\"0.1 1.0 1.0\"\n"
    "6\tC\tWS\tCallback\t\".0 .3 .8\"\n"
    "6\tB\tWS\tOverhead\t\".5 .18 .0\"\n"
    "6\tE\tWS\tExecuting\t\".0 .6 .5\"\n"
    "6\tSc\tWS\tScheduling\t\".7 .36 .0\"\n"
    "6\tSl\tWS\tSleeping\t\".9 .1 .0\"\n"
    "6\tP\tWS\tProgressing\t\".1 .3 .1\"\n"
    "3\tUS\tUT\t\"User Thread State\"\n"
    "6\tSu\tUS\t\"Submitting task\"\t\".3 .09 .0\"\n"
    "6\tWA\tUS\t\"Waiting all tasks\"\t\".9 .1 .0\"\n"
    "6\tPl\tCtS\tPolling\t\"1.0 .5 0\"\n"
    "6\tSl\tCtS\tSleeping\t\".9 .1 .0\"\n"
    "6\tCo\tMS\tDriverCopy\t\".3 .5 .1\"\n"
    "6\tNo\tMS\tNothing\t\".0 .0 .0\"\n"
    "5\tMPIL\tMPIP\tMPICt\tMPICt\t\"MPI communication\"\n"
    "5\tF\tP\tMm\tMm\t\"Intra-node data Fetch\"\n"
    "5\tPF\tP\tMm\tMm\t\"Intra-node data PreFetch\"\n";

/* ---- paje body --------------------------------------------------------------- */

typedef struct sw_stream {
    char *buf;
    size_t len;
} sw_stream;

typedef struct sw_pending {
    int64_t time;
    uint64_t seq;
    char *line;
    size_t len;
} sw_pending;

struct sw_paje {
    sw_file out;
    int sorted;
    int nstreams;
    size_t chunk;
    sw_stream *streams;
    sw_pending *heap;
    size_t heap_len, heap_cap;
    uint64_t seq;
    uint64_t lines;
    int nomem;
};

sw_paje *sw_paje_open(const char *dir, int sorted, int nstreams, size_t chunk,
                      ari_error *err)
{
    sw_paje *p = ari_zalloc(sizeof *p, err);
    if (!p)
        return NULL;
    p->sorted = sorted;
    p->nstreams = nstreams;
    p->chunk = chunk < 2 * SW_LINE_MAX ? 2 * SW_LINE_MAX : chunk;
    if (!sorted) {
        p->streams = calloc((size_t)nstreams, sizeof *p->streams);
        if (!p->streams) {
            free(p);
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
            return NULL;
        }
    }
    if (sw_file_open(&p->out, dir, "paje.trace", err) != 0) {
        free(p->streams);
        free(p);
        return NULL;
    }
    return p;
}

void sw_paje_raw(sw_paje *p, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p->lines += s[i] == '\n';
    sw_file_write(&p->out, s, n);
}

static int sw_stream_append(sw_paje *p, sw_stream *st, const sw_line *l)
{
    if (!st->buf) {
        st->buf = malloc(p->chunk);
        if (!st->buf)
            return -1;
    }
    if (st->len + l->n > p->chunk) {
        sw_file_write(&p->out, st->buf, st->len);
        st->len = 0;
    }
    memcpy(st->buf + st->len, l->s, l->n);
    st->len += l->n;
    return 0;
}

static int sw_pending_less(const void *pa, const void *pb)
{
    const sw_pending *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time;
    return a->seq < b->seq;
}

static int sw_heap_push(sw_paje *p, int64_t time, const sw_line *l)
{
    sw_pending e = {time, p->seq++, malloc(l->n), l->n};
    if (!e.line)
        return -1;
    memcpy(e.line, l->s, l->n);
    if (ari_heap_push((void **)&p->heap, &p->heap_len, &p->heap_cap, sizeof e, &e, sw_pending_less) == 0)
        return 0;
    free(e.line);
    return -1;
}

static sw_pending sw_heap_pop(sw_paje *p)
{
    sw_pending top;
    ari_heap_pop(p->heap, &p->heap_len, sizeof top, &top, sw_pending_less);
    return top;
}

int sw_paje_emit(sw_paje *p, int stream, int64_t ps, const sw_line *l)
{
    int rc;
    p->lines++;
    if (p->sorted)
        rc = sw_heap_push(p, ps, l);
    else
        rc = sw_stream_append(p, &p->streams[stream], l);
    if (rc != 0)
        p->nomem = 1;
    return rc;
}

void sw_paje_advance(sw_paje *p, int64_t now)
{
    if (!p->sorted)
        return;
    while (p->heap_len > 0 && p->heap[0].time <= now) {
        sw_pending e = sw_heap_pop(p);
        sw_file_write(&p->out, e.line, e.len);
        free(e.line);
    }
}

uint64_t sw_paje_lines(const sw_paje *p) { return p->lines; }

int sw_paje_failed(const sw_paje *p) { return p->out.failed != 0 || p->nomem; }

int sw_paje_close(sw_paje *p, ari_error *err)
{
    if (!p)
        return 0;
    if (p->sorted) {
        sw_paje_advance(p, INT64_MAX);
    } else {
        for (int i = 0; i < p->nstreams; i++) {
            sw_file_write(&p->out, p->streams[i].buf, p->streams[i].len);
            free(p->streams[i].buf);
        }
    }
    for (size_t i = 0; i < p->heap_len; i++)
        free(p->heap[i].line);
    free(p->heap);
    free(p->streams);
    int rc = sw_file_close(&p->out, err);
    if (rc == 0 && p->nomem)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory while writing paje.trace");
    free(p);
    return rc;
}
