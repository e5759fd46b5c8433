/* format_events.c: the event-trace import formats (see format_events.h):
 * their claims (names and heads) and the pipeline of one import:
 *   ari_event_read -> derived CCT tee (event_cct) -> event_paje -> the trace
 *   writer's Paje sink, the event writer observing event_paje,
 * then the derived CCT into a profile writer on the same trace, the read's
 * report as warnings, the summary, and the time unit (ns). Messages name
 * files as the user knows them: the readers' server paths are renamed. */
#include "import/format_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/event_cct.h"
#include "ingest/event_paje.h"
#include "ingest/event_read.h"
#include "ingest/hpctoolkit_db.h"
#include "ingest/input.h"
#include "ingest/otf2.h"
#include "ingest/projections.h"
#include "store/event_writer.h"
#include "store/profile_writer.h"
#include "store/trace_writer.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* 1 if f is in directory dir and its name there is stem + tail (tail
 * NULL: stem followed by anything). */
static int named(const ari_import_file *f, const char *dir, const char *stem, const char *tail)
{
    size_t d = strlen(dir), s = strlen(stem);
    if (strcmp(f->dir, dir) != 0 || strncmp(f->name + d, stem, s) != 0)
        return 0;
    return !tail || strcmp(f->name + d + s, tail) == 0;
}

/* ---- messages ---- */

/* Replaces, in err's message, the directory of `path` (on the server) by
 * that of `name` (as the user knows it); a message that starts with a file
 * named relative to it ("traces/1.evt: ...", the readers' way) gets the
 * user's directory in front. */
static void rename_paths(ari_error *err, const char *path, const char *name)
{
    char disk[4096], shown[4096], out[sizeof err->message];
    size_t dl = (size_t)(base_name(path) - path), nl = (size_t)(base_name(name) - name);
    if (!err || dl == 0 || dl >= sizeof disk || nl >= sizeof shown)
        return;
    memcpy(disk, path, dl);
    disk[dl] = '\0';
    memcpy(shown, name, nl);
    shown[nl] = '\0';
    size_t used = 0;
    const char *p = err->message, *hit;
    while ((hit = strstr(p, disk)) != NULL && used < sizeof out) {
        used += (size_t)snprintf(out + used, sizeof out - used, "%.*s%s", (int)(hit - p), p, shown);
        p = hit + dl;
    }
    if (used >= sizeof out)
        return;
    if (p == err->message) { /* a name relative to path's directory ("traces/1.evt: ..."): prefixed */
        const char *colon = strstr(p, ": ");
        if (!colon || colon == p || p[0] == '/' || memchr(p, ' ', (size_t)(colon - p)))
            return;
        used = (size_t)snprintf(out, sizeof out, "%s", shown);
    }
    snprintf(out + used, sizeof out - used, "%s", p);
    memcpy(err->message, out, sizeof out);
}

/* The read's report as the trace's warnings. */
static int warn_report(ari_trace_writer *w, const char *what, int by_request, const ari_event_paje_report *rep)
{
    char msg[1200];
    if (rep->unmatched_sends || rep->unmatched_receives) {
        snprintf(msg, sizeof msg, "%s: %llu sends and %llu receives found no partner (matched %s): they are not "
                 "among the messages",
                 what, (unsigned long long)rep->unmatched_sends, (unsigned long long)rep->unmatched_receives,
                 by_request ? "by sending PE and its event number"
                            : "in order per sender, receiver, tag and communicator");
        if (ari_trace_writer_warn(w, "unmatched_messages", msg) < 0)
            return -1;
    }
    if (rep->unclosed) {
        snprintf(msg, sizeof msg,
                 "%s: %llu regions were still open at the end of their location and were closed at its last "
                 "event",
                 what, (unsigned long long)rep->unclosed);
        if (ari_trace_writer_warn(w, "regions_closed_at_end", msg) < 0)
            return -1;
    }
    return 0;
}

/* ---- the files, and progress over their bytes ---- */

typedef const char *(*role_fn)(const ari_import_file *f, const ari_import_file *first);

/* The group's files are recorded (ari_trace_writer_file: their digest,
 * the job's phase "reading X") as the reader's progress passes their share
 * of the group's bytes, files[0] first (the reader opens it first), so a
 * job's progress moves over every file the reader reads (an OTF2 trace's
 * .evt files), not over the few bytes of one. What the read did not reach
 * is recorded after it. */
typedef struct file_feed {
    ari_trace_writer *w;
    ari_import_file *files;
    const ari_group *g;
    role_fn role;
    size_t next;            /* the next file to record (k of ari_group_file) */
    uint64_t total, before; /* the group's bytes; those of the files before the current one */
    uint64_t cur;           /* the current file's bytes */
    ari_error err;          /* the first failure to record a file */
} file_feed;

/* The feed of this thread's import, for feed_progress (a sink's progress
 * has only the sink's context). */
static _Thread_local file_feed *feed_now;

/* The progress within the current file, 0..1, through the writer's sink. */
static void feed_report(file_feed *fd, double within)
{
    const ari_sink *ws = ari_trace_writer_sink(fd->w);
    if (ws->on_progress)
        ws->on_progress(ws->ctx, within < 0 ? 0 : within > 1 ? 1 : within, 1.0);
}

static int feed_next(file_feed *fd)
{
    const ari_import_file *first = &fd->files[fd->g->files[0]];
    const ari_import_file *f = &fd->files[ari_group_file(fd->g, fd->next)];
    if (fd->next > 0) {
        feed_report(fd, 1.0);
        fd->before += fd->cur;
    }
    if (ari_trace_writer_file(fd->w, f->path, f->name, fd->role(f, first), &fd->err) < 0)
        return -1;
    fd->cur = f->bytes;
    fd->next++;
    return 0;
}

/* Records the files up to the one holding `fraction` of the bytes and
 * reports the progress within it. */
static void feed_to(file_feed *fd, double fraction)
{
    size_t n = ari_group_size(fd->g);
    double target = fraction * (double)fd->total;
    while (!fd->err.code[0] && fd->next < n && (fd->next == 0 || (double)(fd->before + fd->cur) < target))
        feed_next(fd);
    if (fd->err.code[0] || fd->cur == 0)
        return;
    feed_report(fd, (target - (double)fd->before) / (double)fd->cur);
}

static void feed_progress(void *ctx, double fraction)
{
    (void)ctx;
    if (feed_now)
        feed_to(feed_now, fraction);
}

/* Records the files the read did not reach. 0, or -1 with err set. */
static int feed_rest(file_feed *fd, ari_error *err)
{
    while (!fd->err.code[0] && fd->next < ari_group_size(fd->g))
        feed_next(fd);
    if (fd->err.code[0]) {
        *err = fd->err;
        return -1;
    }
    return 0;
}

/* ---- the pipeline ---- */

typedef struct ev_read {
    ari_event_reader reader;
    const char *const *paths;
    size_t npaths;
    int by_request;          /* match messages by the sender's request (Projections) */
    const char *path, *name; /* a file read, to rename the readers' paths in messages */
    const char *unit_source; /* how the times became ns */
    ari_import_file *files;  /* the group's files, recorded by a file_feed */
    const ari_group *g;
    role_fn role;
} ev_read;

/* Reads with the files recorded as the read goes (file_feed): 0; -1 when
 * the read failed (its error is picked by the caller); -2 when recording
 * a file failed (err says). */
static int read_feeding(file_feed *fd, ari_event_sink *k, const ev_read *r, ari_error *err)
{
    for (size_t i = 0; i < ari_group_size(r->g); i++)
        fd->total += r->files[ari_group_file(r->g, i)].bytes;
    k->progress = feed_progress;
    if (feed_next(fd) < 0) {
        *err = fd->err;
        return -2;
    }
    feed_now = fd;
    int rc = ari_event_read(r->reader, r->paths, r->npaths, k, err);
    feed_now = NULL;
    if (rc != 0)
        return -1;
    return feed_rest(fd, err) < 0 ? -2 : 0;
}

typedef struct ev_parts {
    ari_event_paje *ep;
    ari_event_writer *ew;
    ari_event_cct *cct;
} ev_parts;

/* The error of the part that failed first: the store, the event writer,
 * event_paje, the CCT tee, else the reader's own. */
static void pick_error(ari_trace_writer *w, const ev_parts *p, ari_error *err)
{
    const ari_error *cands[] = {ari_trace_writer_error(w), ari_event_writer_error(p->ew),
                                ari_event_paje_error(p->ep), ari_event_cct_error(p->cct)};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
        if (cands[i]->code[0]) {
            if (err)
                *err = *cands[i];
            return;
        }
}

/* The derived CCT into a profile of the same trace. */
static int write_cct(ari_trace_writer *w, ari_event_cct *cct, ari_error *err)
{
    ari_profile_writer *pw = ari_profile_writer_begin(w, err);
    if (!pw)
        return -1;
    int rc = ari_event_cct_write(cct, ari_profile_writer_sink(pw), err);
    const ari_error *perr = ari_profile_writer_error(pw);
    if (rc != 0 && perr->code[0] && err)
        *err = *perr;
    if (rc == 0)
        rc = ari_profile_writer_finish(pw, err);
    ari_profile_writer_free(pw);
    return rc;
}

static int finish_read(ari_trace_writer *w, const ev_read *r, ev_parts *p, ari_error *err)
{
    ari_event_paje_report rep;
    if (ari_event_paje_finish(p->ep, &rep, err) < 0)
        return -1;
    if (warn_report(w, r->name, r->by_request, &rep) < 0) {
        *err = *ari_trace_writer_error(w);
        return -1;
    }
    if (rep.states > 0 && write_cct(w, p->cct, err) < 0)
        return -1;
    const char *notes = ari_event_paje_notes(p->ep);
    if (!notes)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (ari_event_writer_finish(p->ew, &rep, notes, err) < 0)
        return -1;
    if (ari_trace_writer_set_time_unit_from(w, "ns", r->unit_source) < 0) {
        *err = *ari_trace_writer_error(w);
        return -1;
    }
    return 0;
}

static int read_events(ari_trace_writer *w, const ev_read *r, ari_error *err)
{
    ev_parts p = {0};
    int rc = -1;
    p.ep = ari_trace_writer_pack_states(w, err) < 0 || ari_trace_writer_pack_events(w, err) < 0
               ? NULL
               : ari_event_paje_new(ari_trace_writer_sink(w), err);
    p.ew = p.ep ? ari_event_writer_begin(w, err) : NULL;
    p.cct = p.ew ? ari_event_cct_new(err) : NULL;
    if (p.cct) {
        ari_event_paje_observe(p.ep, ari_event_writer_observer(p.ew));
        if (r->by_request)
            ari_event_paje_match_by_request(p.ep);
        ari_event_sink k = *ari_event_cct_tee(p.cct, ari_event_paje_sink(p.ep));
        file_feed fd = {.w = w, .files = r->files, .g = r->g, .role = r->role};
        rc = read_feeding(&fd, &k, r, err);
        if (rc == -1) {
            pick_error(w, &p, err);
            rename_paths(err, r->path, r->name);
        } else if (rc == 0) {
            rc = finish_read(w, r, &p, err);
        }
    }
    ari_event_cct_free(p.cct);
    ari_event_writer_free(p.ew);
    ari_event_paje_free(p.ep);
    return rc ? -1 : 0;
}

/* ---- OTF2 ---- */

/* X.otf2 (by its head), X.def beside it, and the directory X/ (the driver
 * adds it: companion_dir). */
static int claim_otf2(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    char head[64];
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || !ends_with(f->name, ".otf2"))
            continue;
        long got = ari_input_head(f->path, head, sizeof head);
        if (got <= 0 || !ari_otf2_probe(head, (size_t)got))
            continue;
        char stem[1024];
        const char *base = base_name(f->name);
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(base) - 5), base);
        f->claimed = 1;
        if (ari_group_add(g, idx[i]) < 0)
            return -1;
        for (size_t j = 0; j < n; j++) {
            ari_import_file *d = &files[idx[j]];
            if (!d->claimed && named(d, f->dir, stem, ".def")) {
                d->claimed = 1;
                if (ari_group_add(g, idx[j]) < 0)
                    return -1;
            }
        }
        g->companion_dir = 1;
        return 1;
    }
    return 0;
}

static const char *otf2_role(const ari_import_file *f, const ari_import_file *anchor)
{
    if (f == anchor)
        return "otf2-anchor";
    return strcmp(f->dir, anchor->dir) == 0 ? "otf2-definitions" : "otf2-location";
}

static int import_otf2(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *anchor = &files[g->files[0]];
    size_t located = 0;
    for (size_t k = 1; k < ari_group_size(g); k++)
        located += strcmp(otf2_role(&files[ari_group_file(g, k)], anchor), "otf2-location") == 0;
    if (located == 0) {
        const char *base = base_name(anchor->name);
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s: no directory %.*s/ beside it with the locations' .evt and .def files: upload "
                             "the whole OTF2 directory as an archive (e.g. tar czf run.tar.gz run/), so its "
                             "layout is kept",
                             anchor->name, (int)(strlen(base) - 5), base);
    }
    const char *paths[] = {anchor->path};
    ev_read r = {ARI_EVREAD_OTF2, paths, 1, 0, anchor->path, anchor->name,
                 "OTF2 timestamps converted to ns with the trace's clock properties (timer resolution, global "
                 "offset)", files, g, otf2_role};
    return read_events(w, &r, err);
}

/* ---- Projections ---- */

/* The stem of a log's name: "pp.prj" of "pp.prj.0.log.gz" (its length). */
static size_t log_stem(const char *base)
{
    size_t n = strlen(base);
    if (ends_with(base, ".gz"))
        n -= 3;
    n -= 4; /* ".log" */
    while (n > 0 && base[n - 1] != '.')
        n--;
    return n ? n - 1 : 0;
}

static int is_projections_log(const ari_import_file *f)
{
    char head[32];
    if (ari_projections_log_pe(f->name) < 0)
        return 0;
    long got = ari_input_head(f->path, head, sizeof head);
    return got >= 18 && memcmp(head, "PROJECTIONS-RECORD", 18) == 0;
}

/* X.sts (by its head) and X.<pe>.log[.gz], X.projrc of its directory. */
static int claim_sts(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    char head[ARI_PROBE_BYTES];
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || !ends_with(f->name, ".sts"))
            continue;
        long got = ari_input_head(f->path, head, sizeof head);
        if (got <= 0 || !ari_projections_sts_probe(head, (size_t)got))
            continue;
        char stem[1024];
        const char *base = base_name(f->name);
        snprintf(stem, sizeof stem, "%.*s.", (int)(strlen(base) - 4), base);
        f->claimed = 1;
        if (ari_group_add(g, idx[i]) < 0)
            return -1;
        for (size_t j = 0; j < n; j++) {
            ari_import_file *d = &files[idx[j]];
            const char *db = base_name(d->name);
            if (d->claimed || !named(d, f->dir, stem, NULL))
                continue;
            if (strcmp(db + strlen(stem), "projrc") != 0 &&
                (ari_projections_log_pe(db) < 0 || log_stem(db) + 1 != strlen(stem)))
                continue;
            d->claimed = 1;
            if (ari_group_add(g, idx[j]) < 0)
                return -1;
        }
        return 1;
    }
    return 0;
}

/* A Projections log (by its name and head) with no X.sts: claimed alone,
 * to fail with that reason. */
static int claim_orphan_log(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || !is_projections_log(f))
            continue;
        f->claimed = 1;
        g->name_from_first = 1;
        return ari_group_add(g, idx[i]) < 0 ? -1 : 1;
    }
    return 0;
}

static int claim_projections(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    int got = claim_sts(files, idx, n, g);
    return got ? got : claim_orphan_log(files, idx, n, g);
}

static const char *projections_role(const ari_import_file *f, const ari_import_file *sts)
{
    if (f == sts)
        return "projections-sts";
    return ends_with(f->name, ".projrc") ? "extra" : "projections-log";
}

static int import_projections(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *sts = &files[g->files[0]];
    if (!ends_with(sts->name, ".sts")) {
        const char *base = base_name(sts->name);
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s: a Projections log without its %.*s.sts beside it (the .sts names the entry "
                             "methods and PEs): upload the run's .sts with its logs",
                             sts->name, (int)log_stem(base), base);
    }
    size_t total = ari_group_size(g), nlogs = 0;
    const char **paths = calloc(total, sizeof *paths);
    if (!paths)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    paths[nlogs++] = sts->path;
    for (size_t k = 1; k < total; k++) {
        const ari_import_file *f = &files[ari_group_file(g, k)];
        if (!ends_with(f->name, ".projrc"))
            paths[nlogs++] = f->path;
    }
    int rc = 0;
    if (nlogs == 1)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT,
                           "%s: no Projections log beside it (%.*s.<pe>.log or .log.gz): upload the run's "
                           "logs with its .sts",
                           sts->name, (int)(strlen(base_name(sts->name)) - 4), base_name(sts->name));
    if (rc == 0) {
        ev_read r = {ARI_EVREAD_PROJECTIONS, paths, nlogs, 1, sts->path, sts->name,
                     "Projections logs are in microseconds, converted to ns", files, g, projections_role};
        rc = read_events(w, &r, err);
    }
    free(paths);
    return rc;
}

/* ---- HPCToolkit trace.db ---- */

/* trace.db, when its directory has an HPCToolkit meta.db; meta.db,
 * profile.db (both read) and cct.db are listed but stay unclaimed, for the
 * profile format: the event trace's digest covers every file of the
 * database, as the profile's does. */
static int claim_trace_db(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    char head[16];
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || strcmp(base_name(f->name), "trace.db") != 0)
            continue;
        size_t meta = n, prof = n, cct = n;
        for (size_t j = 0; j < n; j++) {
            const char *b = base_name(files[idx[j]].name);
            if (strcmp(b, "meta.db") == 0)
                meta = j;
            else if (strcmp(b, "profile.db") == 0)
                prof = j;
            else if (strcmp(b, "cct.db") == 0)
                cct = j;
        }
        if (meta == n)
            continue;
        long got = ari_input_head(files[idx[meta]].path, head, sizeof head);
        if (got <= 0 || !ari_hpctoolkit_db_probe(head, (size_t)got))
            continue;
        f->claimed = 1;
        if (ari_group_add(g, idx[i]) < 0 || ari_group_add(g, idx[meta]) < 0 ||
            (prof < n && ari_group_add(g, idx[prof]) < 0) || (cct < n && ari_group_add(g, idx[cct]) < 0))
            return -1;
        return 1;
    }
    return 0;
}

static const char *hpctoolkit_role(const ari_import_file *f, const ari_import_file *first)
{
    (void)f;
    (void)first;
    return "hpctoolkit-db";
}

static int import_trace_db(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *trace = &files[g->files[0]];
    char dir[4096];
    size_t len = (size_t)(base_name(trace->path) - trace->path);
    snprintf(dir, sizeof dir, "%.*s", len > 1 ? (int)len - 1 : (int)len, len ? trace->path : ".");
    const char *paths[] = {dir};
    ev_read r = {ARI_EVREAD_HPCTOOLKIT, paths, 1, 0, trace->path, trace->name,
                 "HPCToolkit trace.db timestamps in ns, from the smallest one", files, g, hpctoolkit_role};
    return read_events(w, &r, err);
}

const ari_format ari_format_otf2 = {"otf2", "events", claim_otf2, import_otf2};
const ari_format ari_format_projections = {"projections", "events", claim_projections, import_projections};
const ari_format ari_format_hpctoolkit_trace = {"hpctoolkit_trace", "events", claim_trace_db, import_trace_db};
