/* tau.c: TAU text profiles into an ari_profile_sink (see tau.h). One pass
 * per file through ari_input; call paths are interned in a map from the
 * path text (components joined by '\n') to the node id, so that the nodes
 * of all ranks and threads form one tree. */
#include "ingest/tau.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "util/sbuf.h"
#include "util/strmap.h"

#define MAX_FUNCTIONS 10000000L
#define MAX_DEPTH 1000

typedef struct tau_reader {
    const ari_profile_sink *k;
    ari_strmap *paths;  /* call path text -> node id + 1 */
    int64_t next_id;
    int metric_exc, metric_inc;
    int have_metrics;
    char metric[64];    /* "time" or TAU's metric name */
    const char *name;   /* the file, for messages */
    uint64_t line;
} tau_reader;

static int fail(tau_reader *t, ari_error *err, const char *what)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %s", t->name, (unsigned long long)t->line, what);
}

int ari_tau_probe(const char *head, size_t n)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)head[i]))
        i++;
    static const char tag[] = " templated_functions";
    return i > 0 && n - i >= sizeof tag - 1 && memcmp(head + i, tag, sizeof tag - 1) == 0;
}

int ari_tau_profile_name(const char *name, long long *rank, long long *thread)
{
    long long node, context, th;
    int end = 0;
    if (sscanf(name, "profile.%lld.%lld.%lld%n", &node, &context, &th, &end) != 3 || name[end] || node < 0 ||
        th < 0 || context < 0 || !isdigit((unsigned char)name[8]))
        return 0;
    *rank = node;
    *thread = th;
    return 1;
}

/* ---- frames ---- */

typedef struct frame {
    char name[1024];
    char file[512];
    int line;
} frame;

static void copy_trimmed(char *dst, size_t size, const char *s, size_t n)
{
    while (n && s[0] == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    snprintf(dst, size, "%.*s", (int)n, s);
}

/* "... [{<file>} {<line>,<col>}-{...}]": the file and the first line. */
static void frame_location(frame *f, const char *s, size_t n)
{
    const char *open = memmem(s, n, "[{", 2);
    if (!open)
        return;
    const char *close = memchr(open, '}', (size_t)(s + n - open));
    if (!close)
        return;
    copy_trimmed(f->file, sizeof f->file, open + 2, (size_t)(close - open - 2));
    const char *brace = memchr(close + 1, '{', (size_t)(s + n - close - 1));
    if (brace)
        f->line = atoi(brace + 1);
}

/* One component of a call path, as Hatchet names it (tau_reader.py's
 * _get_name_file_module): a parent keeps only its name. */
static void parse_frame(frame *f, const char *s, size_t n, int is_parent)
{
    memset(f, 0, sizeof *f);
    const char *c = memmem(s, n, " C ", 3), *at = memmem(s, n, " [@] ", 5), *loc = memmem(s, n, " [{", 3);
    if (c) {
        copy_trimmed(f->name, sizeof f->name, s, (size_t)(c - s));
    } else if (at) {
        const char *name = at + 5, *end = s + n;
        const char *stop = memchr(name, ' ', (size_t)(end - name));
        char bare[900];
        copy_trimmed(bare, sizeof bare, name, (size_t)((stop ? stop : end) - name));
        snprintf(f->name, sizeof f->name, "[UNWIND] %s", bare);
        if (!is_parent) {
            const char *sp = memchr(s, ' ', (size_t)(at - s)); /* "[UNWIND] <file>" */
            if (sp)
                copy_trimmed(f->file, sizeof f->file, sp + 1, (size_t)(at - sp - 1));
        }
    } else if (loc) {
        copy_trimmed(f->name, sizeof f->name, s, (size_t)(loc - s));
    } else {
        copy_trimmed(f->name, sizeof f->name, s, n);
    }
    if (!is_parent && !at)
        frame_location(f, s, n);
}

/* ---- the tree ---- */

/* The node of the call path made of the first `depth` components of
 * `parts` (text of the whole path in `key`), declared with its parents on
 * first sight. Returns the id, or -1 (err set). */
static int64_t path_node(tau_reader *t, const char *const *parts, const size_t *lens, int depth, ari_sbuf *key,
                         int is_leaf, ari_error *err)
{
    ari_sbuf_reset(key);
    for (int i = 0; i < depth; i++) {
        if (i)
            ari_sbuf_add_char(key, '\n');
        frame f;
        parse_frame(&f, parts[i], lens[i], 1);
        ari_sbuf_add_str(key, f.name);
    }
    if (ari_sbuf_failed(key))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t klen = strlen(ari_sbuf_text(key));
    void *got = ari_strmap_get(t->paths, ari_sbuf_text(key), klen);
    if (got)
        return (int64_t)(intptr_t)got - 1;
    int64_t parent = -1;
    if (depth > 1) {
        ari_sbuf copy = {0};
        parent = path_node(t, parts, lens, depth - 1, &copy, 0, err);
        ari_sbuf_free(&copy);
        if (parent < 0)
            return -1;
    }
    if (t->next_id > ARI_PROFILE_MAX_NODE_ID)
        return ari_error_set(err, ARI_E_TOO_LARGE, "%s: more than %lld call paths", t->name,
                             (long long)ARI_PROFILE_MAX_NODE_ID);
    int64_t id = t->next_id++;
    frame f;
    parse_frame(&f, parts[depth - 1], lens[depth - 1], !is_leaf);
    ari_profile_node node = {id, parent, f.name, NULL, f.file, f.line, "function"};
    if (!ari_strmap_put(t->paths, ari_sbuf_text(key), klen, (void *)(intptr_t)(id + 1)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (t->k->on_node(t->k->ctx, &node))
        return ari_error_set(err, ARI_E_CANCELLED, "the profile writer stopped the read");
    return id;
}

/* ---- one file ---- */

/* '"<path>" calls subrs excl incl profilecalls GROUP=...': the quoted text
 * and the two values. */
static int split_line(tau_reader *t, const char *line, const char **text, size_t *tlen, double *excl, double *incl,
                      ari_error *err)
{
    if (line[0] != '"')
        return fail(t, err, "a function line starts with a quoted name");
    /* the name ends at the first quote followed by a number */
    const char *q = line + 1, *end = NULL;
    for (const char *p = q; *p; p++)
        if (*p == '"' && p[1] == ' ' && (isdigit((unsigned char)p[2]) || p[2] == '-')) {
            end = p;
            break;
        }
    if (!end)
        return fail(t, err, "no values after the function name");
    double calls, subrs;
    if (sscanf(end + 1, "%lf %lf %lf %lf", &calls, &subrs, excl, incl) != 4)
        return fail(t, err, "expected Calls Subrs Excl Incl after the function name");
    *text = q;
    *tlen = (size_t)(end - q);
    return 0;
}

/* Splits a call path at "=>" into at most MAX_DEPTH components. */
static int split_path(const char *s, size_t n, const char **parts, size_t *lens)
{
    int depth = 0;
    const char *start = s, *end = s + n;
    while (depth < MAX_DEPTH) {
        const char *arrow = memmem(start, (size_t)(end - start), "=>", 2);
        parts[depth] = start;
        lens[depth] = (size_t)((arrow ? arrow : end) - start);
        depth++;
        if (!arrow)
            return depth;
        start = arrow + 2;
    }
    return -1;
}

static int declare_metrics(tau_reader *t, ari_error *err)
{
    if (t->have_metrics)
        return 0;
    char inc[80];
    snprintf(inc, sizeof inc, "%s (inc)", t->metric);
    int is_time = strcmp(t->metric, "time") == 0;
    ari_profile_metric exc_m = {t->metric, t->metric, is_time ? "us" : "", 0, inc};
    ari_profile_metric inc_m = {inc, inc, is_time ? "us" : "", 1, t->metric};
    if (t->k->on_metric(t->k->ctx, &exc_m, &t->metric_exc) || t->k->on_metric(t->k->ctx, &inc_m, &t->metric_inc))
        return ari_error_set(err, ARI_E_CANCELLED, "the profile writer stopped the read");
    t->have_metrics = 1;
    return 0;
}

/* Line 2's metadata names the metric: <name>Metric Name</name><value>X</value>. */
static void metric_of(tau_reader *t, const char *line)
{
    const char *m = strstr(line, "<name>Metric Name</name><value>");
    char name[64] = "TIME";
    if (m) {
        m += strlen("<name>Metric Name</name><value>");
        const char *e = strstr(m, "</value>");
        if (e)
            snprintf(name, sizeof name, "%.*s", (int)(e - m), m);
    }
    if (strcmp(name, "TIME") == 0 || strcmp(name, "CPU_TIME") == 0)
        snprintf(name, sizeof name, "time");
    if (t->have_metrics && strcmp(name, t->metric) != 0)
        return; /* one metric per run; later files keep the first */
    snprintf(t->metric, sizeof t->metric, "%s", name);
}

static int value(tau_reader *t, int64_t node, int proc, double excl, double incl, ari_error *err)
{
    if (t->k->on_value(t->k->ctx, t->metric_exc, node, proc, excl) ||
        t->k->on_value(t->k->ctx, t->metric_inc, node, proc, incl))
        return ari_error_set(err, ARI_E_CANCELLED, "the profile writer stopped the read");
    return 0;
}

/* One function line: the root (first line) or a call path. */
static int function_line(tau_reader *t, const char *line, int is_root, int proc, ari_sbuf *key, ari_error *err)
{
    const char *text = NULL;
    size_t tlen = 0;
    double excl = 0, incl = 0;
    if (split_line(t, line, &text, &tlen, &excl, &incl, err) < 0)
        return -1;
    int is_path = memmem(text, tlen, "=>", 2) != NULL;
    if (!is_root && !is_path)
        return 0; /* a flat per-function total */
    const char *parts[MAX_DEPTH];
    size_t lens[MAX_DEPTH];
    int depth = split_path(text, tlen, parts, lens);
    if (depth < 0)
        return fail(t, err, "a call path deeper than 1000 frames");
    int64_t node = path_node(t, parts, lens, depth, key, 1, err);
    return node < 0 ? -1 : value(t, node, proc, excl, incl, err);
}

static int read_header(tau_reader *t, ari_input *in, long *count, ari_error *err)
{
    size_t len;
    char *line = ari_input_getline(in, &len, err);
    t->line = 1;
    if (!line)
        return ari_input_failed(in) ? -1 : fail(t, err, "empty file");
    if (!ari_tau_probe(line, len) || (*count = strtol(line, NULL, 10)) < 1 || *count > MAX_FUNCTIONS)
        return fail(t, err, "not a TAU profile: expected '<count> templated_functions...'");
    line = ari_input_getline(in, &len, err);
    t->line = 2;
    if (!line)
        return ari_input_failed(in) ? -1 : fail(t, err, "the file ends before its column header");
    if (strncmp(line, "# Name Calls Subrs Excl Incl", 28) != 0)
        return fail(t, err, "expected '# Name Calls Subrs Excl Incl ProfileCalls #' on line 2");
    metric_of(t, line);
    return declare_metrics(t, err);
}

static int read_file(tau_reader *t, const char *path, const char *name, long long rank, long long thread,
                     ari_error *err)
{
    t->name = name;
    int proc;
    if (t->k->on_proc(t->k->ctx, rank, thread, &proc))
        return ari_error_set(err, ARI_E_CANCELLED, "the profile writer stopped the read");
    ari_input *in = ari_input_open(path, name, err);
    if (!in)
        return -1;
    long count = 0;
    ari_sbuf key = {0};
    int rc = read_header(t, in, &count, err);
    for (long i = 0; rc == 0 && i < count; i++) {
        size_t len;
        char *line = ari_input_getline(in, &len, err);
        t->line = ari_input_lineno(in);
        if (!line) {
            rc = ari_input_failed(in) ? -1 : fail(t, err, "the file ends before its last function line");
            break;
        }
        rc = function_line(t, line, i == 0, proc, &key, err);
    }
    ari_sbuf_free(&key);
    ari_input_close(in);
    return rc;
}

int ari_tau_read(const char *const *paths, const char *const *names, size_t n, const ari_profile_sink *k,
                 ari_error *err)
{
    tau_reader t = {.k = k, .paths = ari_strmap_new()};
    if (!t.paths)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *base = strrchr(names[i], '/');
        long long rank, thread;
        if (!ari_tau_profile_name(base ? base + 1 : names[i], &rank, &thread)) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not named profile.<node>.<context>.<thread>",
                               names[i]);
            break;
        }
        rc = read_file(&t, paths[i], names[i], rank, thread, err);
        if (rc == 0 && k->on_progress)
            k->on_progress(k->ctx, (double)(i + 1) / (double)n);
    }
    ari_strmap_free(t.paths);
    return rc;
}
