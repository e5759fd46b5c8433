/* projections.c: the Charm++ Projections reader (see projections.h): the
 * .sts definitions into sorted tables, then each PE's log streamed one
 * record line at a time into the event sink, with a small stack per PE
 * that keeps enters and leaves paired. */
#include "ingest/projections.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "util/vec.h"

#define PRJ_MAX_DEPTH  1024       /* open regions per PE */
#define PRJ_MAX_PES    (1L << 24) /* PROCESSORS accepted */
#define PRJ_MAX_TOK    16         /* leading fields a record keeps */
#define PRJ_TIME_LIMIT 9.0e15     /* |microseconds| kept exact in a double */

/* Record types (Charm++ trace-projections.h). */
enum {
    R_CREATION = 1,
    R_BEGIN_PROCESSING = 2,
    R_END_PROCESSING = 3,
    R_ENQUEUE = 4,
    R_DEQUEUE = 5,
    R_BEGIN_COMPUTATION = 6,
    R_END_COMPUTATION = 7,
    R_BEGIN_INTERRUPT = 8,
    R_END_INTERRUPT = 9,
    R_MESSAGE_RECV = 10,
    R_BEGIN_TRACE = 11,
    R_END_TRACE = 12,
    R_USER_EVENT = 13,
    R_BEGIN_IDLE = 14,
    R_END_IDLE = 15,
    R_BEGIN_PACK = 16,
    R_END_PACK = 17,
    R_BEGIN_UNPACK = 18,
    R_END_UNPACK = 19,
    R_CREATION_BCAST = 20,
    R_CREATION_MULTICAST = 21,
    R_USER_SUPPLIED = 26,
    R_MEMORY_USAGE = 27,
    R_USER_SUPPLIED_NOTE = 28,
    R_USER_SUPPLIED_BRACKETED_NOTE = 29,
    R_USER_STAT = 32,
    R_BEGIN_USER_EVENT_PAIR = 98,
    R_END_USER_EVENT_PAIR = 99,
    R_USER_EVENT_PAIR = 100,
};

/* Fixed regions, by index into prj.fixed. */
enum { F_COMPUTATION, F_IDLE, F_PACK, F_UNPACK, F_INTERRUPT, F_TRACE, F_COUNT };
static const char *const fixed_names[F_COUNT] = {"Computation", "Idle",      "Pack",
                                                 "Unpack",      "Interrupt", "Trace"};
static const char *const fixed_roles[F_COUNT] = {"program", "idle",    "runtime",
                                                 "runtime", "runtime", "runtime"};

typedef struct named {
    int64_t id;
    char *name;
    int64_t aux;    /* an entry's chare */
    int64_t region; /* sink handle, -1 until first used */
} named;

typedef struct table {
    named *v;
    size_t n, cap;
} table;

typedef struct prj {
    const ari_event_sink *k;
    ari_error *err;
    const char *sts_name;
    int64_t npes;
    char *machine, *charm_version;
    table entries, chares, events, stats;
    int64_t fixed[F_COUNT];
    int64_t unknown_user; /* region of user event pairs the .sts lacks */
    /* the log being read */
    const char *log_name;
    uint64_t lineno;
    int64_t pe, loc;
    double last;                  /* ns of the PE's latest event */
    int64_t stack[PRJ_MAX_DEPTH]; /* open region handles */
    int depth;
    /* counts for the notes */
    uint64_t records, clamped, unmatched, closed, skipped;
} prj;

/* ---- small helpers ---------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* A whole token as a 64-bit integer. */
static int parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || !(isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+'))
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int oom(prj *p)
{
    return ari_error_set(p->err, ARI_E_NOMEM, "%s: out of memory", p->log_name ? p->log_name : p->sts_name);
}

/* Error at the current line of the file being read. */
__attribute__((format(printf, 2, 3))) static int bad(prj *p, const char *fmt, ...)
{
    const char *name = p->log_name ? p->log_name : p->sts_name;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ari_error_set(p->err, ARI_E_INVALID_INPUT, "%s:%" PRIu64 ": %s", name, p->lineno, msg);
}

/* Splits line in place on blanks into at most max tokens; *rest receives
 * the text after them (NULL if none). Returns the count. */
static int split(char *line, char **tok, int max, char **rest)
{
    int n = 0;
    char *s = line;
    *rest = NULL;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        if (n == max) {
            *rest = s;
            return n;
        }
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

/* ---- tables ------------------------------------------------------------------------------ */

static int table_add(table *t, int64_t id, const char *name, size_t len, int64_t aux)
{
    char *copy = malloc(len + 1);
    if (!copy || ari_vec_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v) < 0) {
        free(copy);
        return -1;
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    t->v[t->n++] = (named){id, copy, aux, -1};
    return 0;
}

static int cmp_named(const void *a, const void *b)
{
    int64_t x = ((const named *)a)->id, y = ((const named *)b)->id;
    return (x > y) - (x < y);
}

/* Sorts by id; returns the first duplicated id's index or -1. */
static long table_sort(table *t)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, cmp_named);
    for (size_t i = 1; i < t->n; i++)
        if (t->v[i].id == t->v[i - 1].id)
            return (long)i;
    return -1;
}

static int by_id(const void *key, const void *item)
{
    int64_t a = *(const int64_t *)key, b = ((const named *)item)->id;
    return (a > b) - (a < b);
}

/* The entry of id in a table sorted by id (ids are distinct: a duplicate
 * is refused when the table is sorted). */
static named *table_find(const table *t, int64_t id)
{
    return t->n ? bsearch(&id, t->v, t->n, sizeof *t->v, by_id) : NULL;
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
}

/* ---- the .sts file ----------------------------------------------------------------------- */

/* The text between the first and the last '"' of s (which must follow). */
static int quoted(char *s, char **name, size_t *len, char **after)
{
    char *a = strchr(s, '"'), *b = strrchr(s, '"');
    if (!a || b == a)
        return -1;
    *name = a + 1;
    *len = (size_t)(b - a - 1);
    *after = b + 1;
    return 0;
}

/* "ENTRY CHARE <id> "<name>" <chare> <msg>" */
static int sts_entry(prj *p, char *rest)
{
    char *tok[2] = {0}, *more, *name, *after;
    size_t len;
    int64_t id, chare, msg;
    if (split(rest, tok, 2, &more) != 2 || strcmp(tok[0], "CHARE") != 0 || parse_i64(tok[1], &id) < 0 ||
        !more || quoted(more, &name, &len, &after) < 0)
        return bad(p, "malformed %s line (ENTRY CHARE <id> \"<name>\" <chare> <msg>)", "ENTRY");
    char *t2[3];
    if (split(after, t2, 3, &more) != 2 || parse_i64(t2[0], &chare) < 0 || parse_i64(t2[1], &msg) < 0 ||
        id < 0)
        return bad(p, "malformed %s line (ENTRY CHARE <id> \"<name>\" <chare> <msg>)", "ENTRY");
    return table_add(&p->entries, id, name, len, chare) < 0 ? oom(p) : 0;
}

/* "CHARE <id> "<name>" <dimensions>" */
static int sts_chare(prj *p, char *rest)
{
    char *tok[2] = {0}, *more, *name, *after;
    size_t len;
    int64_t id, dims;
    if (split(rest, tok, 1, &more) != 1 || parse_i64(tok[0], &id) < 0 || id < 0 || !more ||
        quoted(more, &name, &len, &after) < 0 || split(after, tok, 2, &more) != 1 ||
        parse_i64(tok[0], &dims) < 0)
        return bad(p, "malformed %s line (CHARE <id> \"<name>\" <dimensions>)", "CHARE");
    return table_add(&p->chares, id, name, len, dims) < 0 ? oom(p) : 0;
}

/* "EVENT <id> <name...>" and "STAT <id> <name...>" */
static int sts_named(prj *p, table *t, const char *kw, char *rest)
{
    char *tok[1] = {0}, *more;
    int64_t id;
    if (split(rest, tok, 1, &more) != 1 || parse_i64(tok[0], &id) < 0)
        return bad(p, "malformed %s line (<keyword> <id> <name>)", kw);
    const char *name = more ? more : "";
    size_t len = strlen(name);
    while (len && isspace((unsigned char)name[len - 1]))
        len--;
    return table_add(t, id, name, len, 0) < 0 ? oom(p) : 0;
}

static int sts_string(prj *p, char **field, char *rest)
{
    char *name, *after;
    size_t len;
    if (!rest || quoted(rest, &name, &len, &after) < 0) {
        name = rest ? rest : "";
        len = strlen(name);
    }
    free(*field);
    if (!(*field = strndup(name, len)))
        return oom(p);
    return 0;
}

static int sts_line(prj *p, char *line)
{
    char *tok[1] = {0}, *rest;
    if (split(line, tok, 1, &rest) == 0)
        return 0;
    const char *kw = tok[0];
    if (strcmp(kw, "ENTRY") == 0)
        return rest ? sts_entry(p, rest) : bad(p, "malformed %s line", kw);
    if (strcmp(kw, "CHARE") == 0)
        return rest ? sts_chare(p, rest) : bad(p, "malformed %s line", kw);
    if (strcmp(kw, "EVENT") == 0)
        return rest ? sts_named(p, &p->events, kw, rest) : bad(p, "malformed %s line", kw);
    if (strcmp(kw, "STAT") == 0)
        return rest ? sts_named(p, &p->stats, kw, rest) : bad(p, "malformed %s line", kw);
    if (strcmp(kw, "MACHINE") == 0)
        return sts_string(p, &p->machine, rest);
    if (strcmp(kw, "CHARMVERSION") == 0)
        return sts_string(p, &p->charm_version, rest);
    if (strcmp(kw, "PROCESSORS") == 0) {
        int64_t n;
        char *t[2], *more;
        if (!rest || split(rest, t, 2, &more) != 1 || parse_i64(t[0], &n) < 0 || n < 1 || n > PRJ_MAX_PES)
            return bad(p, "PROCESSORS must be a count of PEs (1 to %s)", "16777216");
        p->npes = n;
    }
    return 0; /* other keywords (VERSION, TOTAL_*, MESSAGE, PAPI_EVENT, END, ...) are not needed */
}

static int read_sts(prj *p, const char *path)
{
    ari_error e = {{0}, {0}};
    ari_input *in = ari_input_open(path, p->sts_name, &e);
    if (!in)
        return ari_error_set(p->err, e.code[0] ? e.code : ARI_E_IO,
                             "%s: cannot read the Projections .sts file the logs need: %s", p->sts_name,
                             e.message);
    char *line;
    size_t len;
    int rc = 0, first = 1;
    while (rc == 0 && (line = ari_input_getline(in, &len, p->err))) {
        p->lineno = ari_input_lineno(in);
        if (first) {
            first = 0;
            if (!ari_projections_sts_probe(line, len)) {
                rc = bad(p, "not a Projections .sts file (no %s or VERSION line first)", "PROJECTIONS_ID");
                break;
            }
        }
        rc = sts_line(p, line);
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    ari_input_close(in);
    if (rc < 0)
        return -1;
    p->lineno = 0;
    if (first)
        return ari_error_set(p->err, ARI_E_INVALID_INPUT, "%s: empty .sts file", p->sts_name);
    if (p->npes == 0)
        return ari_error_set(p->err, ARI_E_INVALID_INPUT, "%s: no PROCESSORS line", p->sts_name);
    const char *kinds[4] = {"ENTRY", "CHARE", "EVENT", "STAT"};
    table *tables[4] = {&p->entries, &p->chares, &p->events, &p->stats};
    for (int i = 0; i < 4; i++) {
        long dup = table_sort(tables[i]);
        if (dup >= 0)
            return ari_error_set(p->err, ARI_E_INVALID_INPUT, "%s: %s %" PRId64 " is defined twice",
                                 p->sts_name, kinds[i], tables[i]->v[dup].id);
    }
    return 0;
}

/* ---- notes --------------------------------------------------------------------------------- */

static int note_raw(prj *p, const char *key, const char *json)
{
    if (!p->k->note)
        return 0;
    return p->k->note(p->k->ctx, key, json);
}

static int note_u64(prj *p, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return note_raw(p, key, buf);
}

/* s as a JSON string (control characters dropped). */
static int note_str(prj *p, const char *key, const char *s)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    char *buf = malloc(2 * n + 3), *w = buf;
    if (!buf)
        return oom(p);
    *w++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20)
            continue;
        if (c == '"' || c == '\\')
            *w++ = '\\';
        *w++ = (char)c;
    }
    *w++ = '"';
    *w = '\0';
    int rc = note_raw(p, key, buf);
    free(buf);
    return rc;
}

static int write_notes(prj *p)
{
    if (note_u64(p, "projections_pes", (uint64_t)p->npes) < 0 ||
        note_u64(p, "projections_entries", p->entries.n) < 0 ||
        note_u64(p, "projections_chares", p->chares.n) < 0 ||
        note_u64(p, "projections_user_events", p->events.n) < 0 ||
        note_str(p, "projections_machine", p->machine) < 0 ||
        note_str(p, "charm_version", p->charm_version) < 0 ||
        note_u64(p, "projections_records", p->records) < 0 ||
        note_u64(p, "projections_times_raised", p->clamped) < 0 ||
        note_u64(p, "projections_unmatched_ends", p->unmatched) < 0 ||
        note_u64(p, "projections_closed_at_end", p->closed) < 0 ||
        note_u64(p, "projections_skipped_records", p->skipped) < 0)
        return -1;
    return 0;
}

/* ---- events of one PE --------------------------------------------------------------------- */

static int64_t fixed_region(prj *p, int f)
{
    if (p->fixed[f] < 0)
        p->fixed[f] = p->k->region(p->k->ctx, fixed_names[f], NULL, 0, fixed_roles[f]);
    return p->fixed[f];
}

static int64_t entry_region(prj *p, int64_t entry)
{
    named *e = table_find(&p->entries, entry);
    if (!e) {
        char id[32];
        snprintf(id, sizeof id, "%" PRId64, entry);
        bad(p, "entry method %s is not in the .sts file", id);
        return -2;
    }
    if (e->region < 0)
        e->region = p->k->region(p->k->ctx, e->name, NULL, 0, "entry");
    return e->region;
}

/* The name of user event id (a fallback when the .sts lacks it). */
static const char *user_name(const table *t, int64_t id, char *buf, size_t n)
{
    named *e = table_find(t, id);
    if (e && e->name[0])
        return e->name;
    snprintf(buf, n, "User event %" PRId64, id);
    return buf;
}

static int64_t user_region(prj *p, int64_t id)
{
    named *e = table_find(&p->events, id);
    if (e) {
        if (e->region < 0)
            e->region = p->k->region(p->k->ctx, e->name[0] ? e->name : "User event", NULL, 0, "user");
        return e->region;
    }
    if (p->unknown_user < 0)
        p->unknown_user = p->k->region(p->k->ctx, "Unknown user event", NULL, 0, "user");
    return p->unknown_user;
}

/* Microseconds to ns, raised to the PE's latest time if earlier. */
static int stamp(prj *p, int64_t us, double *ns)
{
    if (fabs((double)us) > PRJ_TIME_LIMIT)
        return bad(p, "time %s is out of range", "(microseconds)");
    double t = (double)us * 1e3;
    if (t < p->last) {
        p->clamped++;
        t = p->last;
    }
    p->last = t;
    *ns = t;
    return 0;
}

static int enter(prj *p, int64_t region, double t)
{
    if (region < 0)
        return -1;
    if (p->depth == PRJ_MAX_DEPTH)
        return bad(p, "regions nested deeper than %s", "1024");
    p->stack[p->depth++] = region;
    return p->k->enter(p->k->ctx, p->loc, t, region);
}

/* Leaves region and whatever opened inside it; an END with no open BEGIN
 * is counted and skipped. */
static int leave(prj *p, int64_t region, double t)
{
    if (region < 0)
        return -1;
    int i = p->depth - 1;
    while (i >= 0 && p->stack[i] != region)
        i--;
    if (i < 0) {
        p->unmatched++;
        return 0;
    }
    while (p->depth > i) {
        if (p->depth - 1 > i)
            p->closed++;
        if (p->k->leave(p->k->ctx, p->loc, t, p->stack[--p->depth]) < 0)
            return -1;
    }
    return 0;
}

static int message(prj *p, double t, ari_msg_kind kind, int64_t peer, int64_t entry, int64_t event,
                   int64_t len)
{
    if (peer < -1 || peer >= p->npes)
        return bad(p, "destination PE %" PRId64 " is not one of the PEs", peer);
    ari_event_msg m = {
        p->loc, t, kind, peer, entry, -1, len > 0 ? (uint64_t)len : 0, event >= 0 ? (uint64_t)event : 0};
    return p->k->message(p->k->ctx, &m);
}

static int instant(prj *p, double t, const char *name)
{
    return p->k->instant(p->k->ctx, p->loc, t, name);
}

static int metric(prj *p, double t, const char *name, const char *unit, double v)
{
    if (!p->k->metric)
        return 0;
    return p->k->metric(p->k->ctx, p->loc, t, name, unit, v);
}

/* Needs at least `need` fields (with the type) and all of tok[0..n) integers. */
static int numbers(prj *p, char **tok, int n, int need, int64_t *v, int float_at)
{
    if (n < need)
        return bad(p, "malformed record: too few fields for type %s", tok[0]);
    for (int i = 0; i < n; i++) {
        if (i == float_at) {
            char *end;
            double d = strtod(tok[i], &end);
            if (*end || end == tok[i] || !isfinite(d))
                return bad(p, "malformed record: field '%.40s' is not a number", tok[i]);
            v[i] = 0;
            continue;
        }
        if (parse_i64(tok[i], &v[i]) < 0)
            return bad(p, "malformed record: field '%.40s' is not an integer", tok[i]);
    }
    return 0;
}

/* Checks that the fields past the kept ones are integers too. */
static int rest_numbers(prj *p, char *rest)
{
    while (rest) {
        char *tok[1] = {0};
        int64_t v;
        if (split(rest, tok, 1, &rest) == 0)
            break;
        if (parse_i64(tok[0], &v) < 0)
            return bad(p, "malformed record: field '%.40s' is not an integer", tok[0]);
    }
    return 0;
}

/* CREATION_MULTICAST: mtype entry time event pe msglen sendTime npes pe... */
static int multicast(prj *p, double t, const int64_t *v, int n, char *rest)
{
    if (n < 9 || v[8] < 0)
        return bad(p, "malformed record: multicast without its PE count (type %s)", "21");
    int64_t count = v[8], seen = 0;
    for (int i = 9; i < n && seen < count; i++, seen++)
        if (message(p, t, ARI_MSG_SEND, v[i], v[2], v[4], v[6]) < 0)
            return -1;
    while (seen < count) {
        char *tok[1] = {0};
        int64_t pe;
        if (!rest || split(rest, tok, 1, &rest) == 0)
            return bad(p, "malformed record: multicast lists fewer PEs than it %s", "counts");
        if (parse_i64(tok[0], &pe) < 0)
            return bad(p, "malformed record: field '%.40s' is not an integer", tok[0]);
        if (message(p, t, ARI_MSG_SEND, pe, v[2], v[4], v[6]) < 0)
            return -1;
        seen++;
    }
    return rest_numbers(p, rest);
}

/* Records whose first field after the type is the time. */
static int simple_record(prj *p, int64_t type, const int64_t *v)
{
    double t = 0;
    if (stamp(p, v[1], &t) < 0)
        return -1;
    switch (type) {
    case R_BEGIN_COMPUTATION:
        return enter(p, fixed_region(p, F_COMPUTATION), t);
    case R_END_COMPUTATION:
        return leave(p, fixed_region(p, F_COMPUTATION), t);
    case R_BEGIN_INTERRUPT:
        return enter(p, fixed_region(p, F_INTERRUPT), t);
    case R_END_INTERRUPT:
        return leave(p, fixed_region(p, F_INTERRUPT), t);
    case R_BEGIN_TRACE:
        return enter(p, fixed_region(p, F_TRACE), t);
    case R_END_TRACE:
        return leave(p, fixed_region(p, F_TRACE), t);
    case R_BEGIN_IDLE:
        return enter(p, fixed_region(p, F_IDLE), t);
    case R_END_IDLE:
        return leave(p, fixed_region(p, F_IDLE), t);
    case R_BEGIN_PACK:
        return enter(p, fixed_region(p, F_PACK), t);
    case R_END_PACK:
        return leave(p, fixed_region(p, F_PACK), t);
    case R_BEGIN_UNPACK:
        return enter(p, fixed_region(p, F_UNPACK), t);
    default:
        return leave(p, fixed_region(p, F_UNPACK), t);
    }
}

/* The leading fields each record type needs (with the type), and where a
 * float sits (-1: none). 0: a type this reader skips. */
static int min_fields(int64_t type, int *float_at)
{
    *float_at = -1;
    switch (type) {
    case R_CREATION:
    case R_BEGIN_PROCESSING:
    case R_END_PROCESSING:
    case R_CREATION_BCAST:
        return 7;
    case R_CREATION_MULTICAST:
        return 9;
    case R_ENQUEUE:
    case R_DEQUEUE:
    case R_USER_EVENT:
        return 5;
    case R_MESSAGE_RECV:
        return 6;
    case R_BEGIN_INTERRUPT:
    case R_END_INTERRUPT:
        return 2;
    case R_BEGIN_COMPUTATION:
    case R_END_COMPUTATION:
    case R_BEGIN_TRACE:
    case R_END_TRACE:
    case R_BEGIN_IDLE:
    case R_END_IDLE:
    case R_BEGIN_PACK:
    case R_END_PACK:
    case R_BEGIN_UNPACK:
    case R_END_UNPACK:
    case R_USER_SUPPLIED:
        return 2;
    case R_MEMORY_USAGE:
        return 3;
    case R_USER_STAT:
        *float_at = 3;
        return 6;
    case R_BEGIN_USER_EVENT_PAIR:
    case R_END_USER_EVENT_PAIR:
    case R_USER_EVENT_PAIR:
        return 5;
    default:
        return 0;
    }
}

/* Notes: "28 <time> <text>", "29 <time> <end> <event> <text>". */
static int note_record(prj *p, int64_t type, char **tok, int n)
{
    int64_t v[4];
    double t = 0;
    int need = type == R_USER_SUPPLIED_NOTE ? 2 : 4;
    if (n < need)
        return bad(p, "malformed record: too few fields for type %s", tok[0]);
    for (int i = 1; i < need; i++)
        if (parse_i64(tok[i], &v[i]) < 0)
            return bad(p, "malformed record: field '%.40s' is not an integer", tok[i]);
    if (stamp(p, v[1], &t) < 0)
        return -1;
    if (type == R_USER_SUPPLIED_NOTE)
        return instant(p, t, "User Supplied Note");
    char buf[48];
    return instant(p, t, user_name(&p->events, v[3], buf, sizeof buf));
}

static int record(prj *p, char *line)
{
    char *tok[PRJ_MAX_TOK] = {0}, *rest;
    int64_t v[PRJ_MAX_TOK], type;
    int n = split(line, tok, PRJ_MAX_TOK, &rest), float_at;
    if (n == 0)
        return 0;
    if (parse_i64(tok[0], &type) < 0) {
        if (strcmp(tok[0], "PROJECTIONS-RECORD") == 0)
            return 0;
        return bad(p, "malformed record: '%.40s' is not a record type", tok[0]);
    }
    p->records++;
    if (type == R_USER_SUPPLIED_NOTE || type == R_USER_SUPPLIED_BRACKETED_NOTE)
        return note_record(p, type, tok, n);
    int need = min_fields(type, &float_at);
    if (need == 0) {
        p->skipped++;
        return 0;
    }
    if (numbers(p, tok, n, need, v, float_at) < 0)
        return -1;
    if (type != R_CREATION_MULTICAST && rest_numbers(p, rest) < 0)
        return -1;
    double t = 0;
    char buf[48];
    switch (type) {
    case R_CREATION:
    case R_BEGIN_PROCESSING:
    case R_END_PROCESSING:
    case R_CREATION_BCAST:
    case R_CREATION_MULTICAST: {
        int64_t region = entry_region(p, v[2]);
        if (region < 0 || stamp(p, v[3], &t) < 0)
            return -1;
        if (type == R_CREATION)
            return message(p, t, ARI_MSG_SEND, -1, v[2], v[4], v[6]);
        if (type == R_CREATION_MULTICAST)
            return multicast(p, t, v, n, rest);
        if (type == R_CREATION_BCAST) { /* a collective; its event number marks its deliveries */
            ari_event_collective c = {p->loc, t,     t, "Broadcast", -1, p->pe, v[6] > 0 ? (uint64_t)v[6] : 0, 0,
                                      v[4] >= 0, v[4] >= 0 ? (uint64_t)v[4] : 0};
            return p->k->collective(p->k->ctx, &c);
        }
        if (type == R_END_PROCESSING)
            return leave(p, region, t);
        /* a message from a PE; not a thread resumed (dummy_thread_ep:
         * no bytes, and a sender field that may hold flags) */
        if (v[5] >= 0 && v[5] < p->npes && v[4] >= 0 && v[6] > 0 &&
            message(p, t, ARI_MSG_RECV, v[5], v[2], v[4], v[6]) < 0)
            return -1;
        return enter(p, region, t);
    }
    case R_ENQUEUE:
    case R_DEQUEUE:
        return stamp(p, v[2], &t) < 0 ? -1 : instant(p, t, type == R_ENQUEUE ? "Enque" : "Deque");
    case R_MESSAGE_RECV:
        return stamp(p, v[2], &t) < 0 ? -1 : instant(p, t, "Message Receive");
    case R_USER_EVENT:
    case R_USER_EVENT_PAIR:
        return stamp(p, v[2], &t) < 0 ? -1 : instant(p, t, user_name(&p->events, v[1], buf, sizeof buf));
    case R_BEGIN_USER_EVENT_PAIR:
        return stamp(p, v[2], &t) < 0 ? -1 : enter(p, user_region(p, v[1]), t);
    case R_END_USER_EVENT_PAIR:
        return stamp(p, v[2], &t) < 0 ? -1 : leave(p, user_region(p, v[1]), t);
    case R_USER_SUPPLIED: /* no time of its own: the PE's latest */
        return stamp(p, isfinite(p->last) ? (int64_t)(p->last / 1e3) : 0, &t) < 0
                   ? -1
                   : instant(p, t, "User Supplied");
    case R_MEMORY_USAGE:
        return stamp(p, v[2], &t) < 0 ? -1 : metric(p, t, "Memory Usage", "bytes", (double)v[1]);
    case R_USER_STAT: {
        double stat = strtod(tok[3], NULL);
        return stamp(p, v[1], &t) < 0 ? -1
                                      : metric(p, t, user_name(&p->stats, v[5], buf, sizeof buf), NULL, stat);
    }
    default:
        return simple_record(p, type, v);
    }
}

long ari_projections_log_pe(const char *path)
{
    const char *name = base_name(path);
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
        n -= 3;
    if (n < 5 || strncmp(name + n - 4, ".log", 4) != 0)
        return -1;
    n -= 4;
    size_t d = n;
    while (d > 0 && isdigit((unsigned char)name[d - 1]))
        d--;
    if (d == n || d < 2 || name[d - 1] != '.' || n - d > 8)
        return -1;
    long pe = 0;
    for (size_t i = d; i < n; i++)
        pe = pe * 10 + (name[i] - '0');
    return pe;
}

static int read_log(prj *p, const char *path, int64_t pe, size_t index, size_t nlogs)
{
    ari_input *in = ari_input_open(path, p->log_name, p->err);
    if (!in)
        return -1;
    char pname[32];
    snprintf(pname, sizeof pname, "PE %" PRId64, pe);
    int64_t proc = p->k->process(p->k->ctx, pe, pname);
    p->loc = proc < 0 ? -1 : p->k->location(p->k->ctx, proc, 0, NULL);
    p->pe = pe;
    p->last = -INFINITY;
    p->depth = 0;
    int rc = p->loc < 0 ? -1 : 0;
    char *line;
    size_t len;
    uint64_t total = ari_input_total_bytes(in);
    while (rc == 0 && (line = ari_input_getline(in, &len, p->err))) {
        p->lineno = ari_input_lineno(in);
        rc = record(p, line);
        if (rc == 0 && p->k->progress && (p->lineno & 4095) == 0 && total > 0)
            p->k->progress(p->k->ctx, ((double)index + (double)ari_input_bytes_read(in) / (double)total) /
                                          (double)nlogs);
    }
    if (rc == 0 && ari_input_failed(in)) {
        rc = -1;
        if (p->err && !strstr(p->err->message, "line")) {
            char msg[sizeof p->err->message], code[sizeof p->err->code];
            snprintf(msg, sizeof msg, "%s", p->err->message);
            snprintf(code, sizeof code, "%s", p->err->code);
            ari_error_set(p->err, code, "%s (after line %" PRIu64 ")", msg, ari_input_lineno(in));
        }
    }
    ari_input_close(in);
    double end = isfinite(p->last) ? p->last : 0;
    while (rc == 0 && p->depth > 0) {
        p->closed++;
        rc = p->k->leave(p->k->ctx, p->loc, end, p->stack[--p->depth]);
    }
    return rc;
}

int ari_projections_sts_probe(const char *head, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)head[i]))
        i++;
    const char *s = head + i;
    size_t m = n - i;
    if (m >= 14 && memcmp(s, "PROJECTIONS_ID", 14) == 0)
        return 1;
    if (m >= 8 && memcmp(s, "VERSION ", 8) == 0) {
        for (size_t j = 0; j + 12 <= m; j++)
            if (memcmp(s + j, "\nPROCESSORS ", 12) == 0 || memcmp(s + j, "\nTOTAL_CHARES", 12) == 0)
                return 1;
        /* a first line alone, as read_sts checks it */
        return memchr(s, '\n', m) == NULL;
    }
    return 0;
}

static void prj_free(prj *p)
{
    table_free(&p->entries);
    table_free(&p->chares);
    table_free(&p->events);
    table_free(&p->stats);
    free(p->machine);
    free(p->charm_version);
}

/* Each PE once, and within the .sts's PROCESSORS. */
static int check_pes(prj *p, const char *const *log_paths, size_t nlogs, int64_t *pes)
{
    unsigned char *seen = calloc((size_t)p->npes / 8 + 1, 1);
    if (!seen)
        return oom(p);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nlogs; i++) {
        long pe = ari_projections_log_pe(log_paths[i]);
        pes[i] = pe >= 0 ? pe : (int64_t)i;
        if (pes[i] >= p->npes) {
            rc = ari_error_set(p->err, ARI_E_INVALID_INPUT,
                               "%s: PE %" PRId64 " but %s declares %" PRId64 " PEs", base_name(log_paths[i]),
                               pes[i], p->sts_name, p->npes);
        } else if (seen[pes[i] / 8] & (1u << (pes[i] % 8))) {
            rc = ari_error_set(p->err, ARI_E_INVALID_INPUT, "%s: a second log of PE %" PRId64,
                               base_name(log_paths[i]), pes[i]);
        }
        if (rc == 0)
            seen[pes[i] / 8] |= (unsigned char)(1u << (pes[i] % 8));
    }
    free(seen);
    return rc;
}

int ari_projections_read(const char *sts_path, const char *const *log_paths, size_t nlogs,
                         const ari_event_sink *k, ari_error *err)
{
    prj p;
    memset(&p, 0, sizeof p);
    p.k = k;
    p.err = err;
    p.sts_name = base_name(sts_path ? sts_path : "(no .sts)");
    for (int f = 0; f < F_COUNT; f++)
        p.fixed[f] = -1;
    p.unknown_user = -1;
    if (!sts_path)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "Projections logs without their .sts file");
    if (read_sts(&p, sts_path) < 0) {
        prj_free(&p);
        return -1;
    }
    int64_t *pes = calloc(nlogs ? nlogs : 1, sizeof *pes);
    int rc = pes ? check_pes(&p, log_paths, nlogs, pes) : oom(&p);
    for (size_t i = 0; rc == 0 && i < nlogs; i++) {
        p.log_name = base_name(log_paths[i]);
        p.lineno = 0;
        rc = read_log(&p, log_paths[i], pes[i], i, nlogs);
    }
    p.log_name = NULL;
    if (rc == 0)
        rc = write_notes(&p);
    if (rc == 0 && k->progress)
        k->progress(k->ctx, 1.0);
    free(pes);
    prj_free(&p);
    return rc;
}
