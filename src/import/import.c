/* import.c: the import driver. It lists the input files (walking
 * directories, unpacking archives into a scratch directory of its own),
 * groups them by format (formats.c), then writes every group as a trace
 * inside one transaction, marking the job succeeded in that same
 * transaction.
 *
 * Limits that keep one upload from taking the server down: one unpacking
 * budget for the whole import (bytes written and files and directories
 * seen, all nesting levels together), archives nested at most
 * ARI_IMPORT_MAX_NESTING deep, directories at most 16 deep. The scratch
 * directory is removed whatever happens (success, error, cancellation).
 * Grouping sorts the files by directory, so it is O(n log n); a group
 * may also take a companion subdirectory (OTF2's traces/, formats.h). */
#include "import/import.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/archive.h"
#include "import/formats.h"
#include "ingest/input.h"
#include "store/import_outcome.h"
#include "store/staging.h"
#include "store/trace_writer.h"
#include "util/clock.h"
#include "util/free_all.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/vec.h"

#define MAX_DIR_DEPTH 16

typedef struct file_list {
    ari_import_file *items;
    size_t n, cap;
    uint64_t total_bytes;
    int archives; /* archives unpacked so far, to name their directories */
} file_list;

typedef struct group_list {
    ari_group *items;
    size_t n, cap;
} group_list;

/* The state of listing an import's inputs. */
typedef struct collector {
    file_list *fl;
    const ari_import_request *req;
    ari_unpack_budget budget;
    char scratch[4096]; /* the import's own directory under req->work_dir; "" until needed */
} collector;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int add_file(file_list *fl, const char *path, const char *name, const char *dir,
                    uint64_t bytes, ari_error *err)
{
    if (ari_vec_reserve((void **)&fl->items, &fl->cap, fl->n + 1, sizeof *fl->items) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_import_file *f = &fl->items[fl->n];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->name = strdup(name);
    f->dir = strdup(dir);
    f->bytes = bytes;
    fl->n++;
    fl->total_bytes += bytes;
    if (!f->path || !f->name || !f->dir)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return 0;
}

static void free_files(file_list *fl)
{
    for (size_t i = 0; i < fl->n; i++) {
        void *owned[] = {fl->items[i].path, fl->items[i].name, fl->items[i].dir};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(fl->items);
}

/* ---- the scratch directory ---- */

static void remove_scratch(collector *c)
{
    if (c->scratch[0])
        ari_remove_tree(c->scratch);
    c->scratch[0] = '\0';
}

/* Makes the import's scratch directory on the first archive. Messages name
 * the user's file, never a server path. */
static int make_scratch(collector *c, const char *name, ari_error *err)
{
    if (c->scratch[0])
        return 0;
    if (!c->req->work_dir)
        return ari_error_set(err, ARI_E_IO, "%s: no work directory to unpack the archive", name);
    snprintf(c->scratch, sizeof c->scratch, "%s/unpack-XXXXXX", c->req->work_dir);
    if (!mkdtemp(c->scratch)) {
        c->scratch[0] = '\0';
        return ari_error_set(err, ARI_E_IO, "%s: cannot make a directory to unpack it: %s", name,
                             ari_io_reason(errno));
    }
    return 0;
}

/* ---- listing the inputs ---- */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect(collector *c, const char *path, const char *name, int depth, int nesting,
                   ari_error *err);

/* The names in a directory, without those starting with a dot, sorted;
 * *n of them, counted against the budget as they are read. */
static char **list_dir(collector *c, const char *path, const char *name, size_t *n, ari_error *err)
{
    DIR *d = opendir(path);
    if (!d) {
        ari_error_set(err, ARI_E_IO, "%s: %s", name, ari_io_reason(errno));
        return NULL;
    }
    char **entries = NULL;
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    *n = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n + c->budget.entries >= c->budget.max_entries) {
            rc = ari_archive_too_many(&c->budget, name, err);
            break;
        }
        if (ari_vec_reserve((void **)&entries, &cap, *n + 1, sizeof *entries) < 0) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        if (!(entries[*n] = strdup(e->d_name)))
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        else
            (*n)++;
    }
    closedir(d);
    if (rc == 0) {
        qsort(entries, *n, sizeof *entries, compare_names);
        return entries ? entries : calloc(1, sizeof *entries);
    }
    for (size_t i = 0; i < *n; i++)
        free(entries[i]);
    free(entries);
    return NULL;
}

/* Adds the files below a directory, in name order, each named
 * "<name>/<relative path>" and grouped by its own directory. */
static int collect_dir(collector *c, const char *path, const char *name, int depth, int nesting,
                       ari_error *err)
{
    size_t n;
    char **entries = list_dir(c, path, name, &n, err);
    if (!entries)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char child[4096], child_name[4096];
        if (snprintf(child, sizeof child, "%s/%s", path, entries[i]) >= (int)sizeof child ||
            snprintf(child_name, sizeof child_name, "%s/%s", name, entries[i]) >= (int)sizeof child_name)
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%.200s...: path too long", child_name);
        else
            rc = collect(c, child, child_name, depth + 1, nesting, err);
    }
    for (size_t i = 0; i < n; i++)
        free(entries[i]);
    free(entries);
    return rc;
}

static int collect_archive(collector *c, const char *path, const char *name, int depth, int nesting,
                           ari_error *err)
{
    if (nesting >= ARI_IMPORT_MAX_NESTING)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: archives nested more than %d deep", name,
                             ARI_IMPORT_MAX_NESTING);
    if (make_scratch(c, name, err) < 0)
        return -1;
    char dest[sizeof c->scratch + 16];
    snprintf(dest, sizeof dest, "%s/%d", c->scratch, c->fl->archives++);
    if (mkdir(dest, 0700) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: cannot make a directory to unpack it: %s", name,
                             ari_io_reason(errno));
    if (c->req->progress) {
        char phase[160], shown[140];
        snprintf(phase, sizeof phase, "unpacking %s", ari_utf8_copy(shown, sizeof shown, name));
        c->req->progress(c->req->progress_ctx, 0, phase);
    }
    if (ari_archive_unpack(path, name, dest, &c->budget, err) < 0)
        return -1;
    return collect_dir(c, dest, name, depth, nesting + 1, err);
}

/* Adds a file, the files below a directory, or those of an archive. Every
 * file and directory seen counts against the budget's entries. */
static int collect(collector *c, const char *path, const char *name, int depth, int nesting,
                   ari_error *err)
{
    struct stat st;
    if (depth > MAX_DIR_DEPTH)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: directories nested too deep", name);
    if (c->budget.cancel && *c->budget.cancel)
        return ari_error_set(err, ARI_E_CANCELLED, "import cancelled");
    if (++c->budget.entries > c->budget.max_entries)
        return ari_archive_too_many(&c->budget, name, err);
    if (stat(path, &st) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: %s", name, ari_io_reason(errno));
    if (S_ISDIR(st.st_mode))
        return collect_dir(c, path, name, depth, nesting, err);
    if (!S_ISREG(st.st_mode))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not a regular file", name);
    if (access(path, R_OK) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: %s", name, ari_io_reason(errno));
    int is_archive = ari_archive_detect(path, err);
    if (is_archive < 0)
        return -1;
    if (is_archive)
        return collect_archive(c, path, name, depth, nesting, err);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(base_name(name) - name), name);
    return add_file(c->fl, path, name, dir, (uint64_t)st.st_size, err);
}

/* ---- grouping ---- */

static int push_group(group_list *gl, const ari_group *g, ari_error *err)
{
    if (ari_vec_reserve((void **)&gl->items, &gl->cap, gl->n + 1, sizeof *gl->items) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    gl->items[gl->n++] = *g; /* the claim function has marked its files */
    return 0;
}

/* The files of a group's companion directory (ari_group.companion_dir):
 * "run/traces.otf2" takes every unclaimed file below "run/traces/". */
static int add_companions(file_list *fl, ari_group *g, ari_error *err)
{
    const char *anchor = fl->items[g->files[0]].name;
    const char *base = base_name(anchor), *dot = strrchr(base, '.');
    size_t len = (size_t)((dot && dot != base ? dot : base + strlen(base)) - anchor);
    for (size_t i = 0; i < fl->n; i++) {
        ari_import_file *f = &fl->items[i];
        if (f->claimed || strncmp(f->dir, anchor, len) != 0 || f->dir[len] != '/')
            continue;
        if (ari_group_add(g, i) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        f->claimed = 1;
    }
    return 0;
}

/* Offers the files of one directory to each format of `formats` in turn.
 * The claimed files at the front are not offered again, so a format that
 * takes the files one by one costs one pass. */
static int group_dir(file_list *fl, const size_t *idx, size_t n, const ari_format *const *formats,
                     group_list *gl, ari_error *err)
{
    size_t from = 0;
    for (const ari_format *const *f = formats; *f && from < n; f++) {
        ari_group g;
        int got;
        memset(&g, 0, sizeof g);
        while (from < n && (got = (*f)->claim(fl->items, idx + from, n - from, &g)) != 0) {
            g.format = *f;
            if (got < 0)
                ari_error_set(err, ARI_E_NOMEM, "out of memory");
            if (got < 0 || (g.companion_dir && add_companions(fl, &g, err) < 0) || push_group(gl, &g, err) < 0) {
                free(g.more);
                return -1;
            }
            memset(&g, 0, sizeof g);
            while (from < n && fl->items[idx[from]].claimed)
                from++;
        }
    }
    return 0;
}

static void known_formats(char *out, size_t size)
{
    const char *const *names = ari_import_formats();
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; names[i] && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", names[i]);
    if (!names[0])
        snprintf(out, size, "none yet");
}

/* Why no format took a file: it is empty, its compressed content is cut
 * short, or no reader knows it. */
static int unclaimed_error(const ari_import_file *f, ari_error *err)
{
    char known[256];
    if (f->bytes == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file", f->name);
    if (ari_input_check_head(f->path, f->name, ARI_PROBE_BYTES, err) < 0)
        return -1;
    known_formats(known, sizeof known);
    return ari_error_set(err, ARI_E_UNSUPPORTED, "%s: no reader recognises this file (formats: %s)",
                         f->name, known);
}

/* Lists a file no format took, with the reason (unclaimed_error's message
 * without the file name in front, nor the list of formats). */
static int skip_file(ari_import_result *res, const ari_import_file *f, ari_error *err)
{
    ari_error why = {0};
    (void)err;
    if (res->nskipped == ARI_IMPORT_MAX_LISTED) {
        res->skipped_more++;
        return 0;
    }
    ari_skipped *k = &res->skipped[res->nskipped++];
    unclaimed_error(f, &why);
    size_t len = strlen(f->name);
    const char *reason = strncmp(why.message, f->name, len) == 0 && why.message[len] == ':'
                             ? why.message + len + 1 + (why.message[len + 1] == ' ')
                             : why.message;
    ari_utf8_copy(k->name, sizeof k->name, f->name);
    ari_utf8_copy(k->reason, sizeof k->reason, reason);
    char *formats = strstr(k->reason, " (formats: ");
    if (formats)
        *formats = '\0';
    return 0;
}

/* Nothing recognised: one file keeps its own error; several are listed
 * with their reasons and the formats this build reads. */
static int nothing_recognised(const file_list *fl, const ari_import_result *res, ari_error *err)
{
    if (fl->n == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "nothing to import: no files");
    if (fl->n == 1)
        return unclaimed_error(&fl->items[0], err);
    char known[256], list[700];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < res->nskipped && used + 8 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%s)", i ? ", " : "",
                                 res->skipped[i].name, res->skipped[i].reason);
    if (res->skipped_more && used + 8 < sizeof list)
        snprintf(list + used, sizeof list - used, " and %zu more", res->skipped_more);
    known_formats(known, sizeof known);
    return ari_error_set(err, ARI_E_UNSUPPORTED,
                         "nothing to import: no reader recognises any of the %zu files: %s. "
                         "ariadne reads %s (a StarPU folder needs paje.trace and tasks.rec)",
                         fl->n, list, known);
}

typedef struct dir_key {
    const char *dir;
    size_t index;
} dir_key;

static int compare_dir_keys(const void *a, const void *b)
{
    const dir_key *x = a, *y = b;
    int c = strcmp(x->dir, y->dir);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct dir_run {
    size_t start, n; /* in the sorted keys */
    size_t first;    /* the index of its first file: directories keep their order */
} dir_run;

static int compare_runs(const void *a, const void *b)
{
    const dir_run *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Groups the files directory by directory, in the order the directories
 * were first met: the files sorted by (directory, position), cut into runs
 * of one directory each. A file no format takes is skipped (listed in
 * res->skipped). */
static int group_files(file_list *fl, group_list *gl, ari_import_result *res, ari_error *err)
{
    size_t n = fl->n;
    dir_key *keys = malloc((n ? n : 1) * sizeof *keys);
    dir_run *runs = malloc((n ? n : 1) * sizeof *runs);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    int rc = 0;
    if (!keys || !runs || !idx)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t nruns = 0;
    if (rc == 0) {
        for (size_t i = 0; i < n; i++)
            keys[i] = (dir_key){fl->items[i].dir, i};
        qsort(keys, n, sizeof *keys, compare_dir_keys);
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || strcmp(keys[i].dir, keys[i - 1].dir) != 0)
                runs[nruns++] = (dir_run){i, 0, keys[i].index};
            runs[nruns - 1].n++;
            idx[i] = keys[i].index;
        }
        qsort(runs, nruns, sizeof *runs, compare_runs);
    }
    /* two rounds: the formats that take a companion subdirectory see every
     * directory first; then all of them */
    for (size_t r = 0; r < nruns && rc == 0; r++)
        rc = group_dir(fl, idx + runs[r].start, runs[r].n, ari_formats_first, gl, err);
    for (size_t r = 0; r < nruns && rc == 0; r++)
        rc = group_dir(fl, idx + runs[r].start, runs[r].n, ari_formats, gl, err);
    for (size_t r = 0; r < nruns && rc == 0; r++) {
        const size_t *files = idx + runs[r].start;
        for (size_t i = 0; i < runs[r].n && rc == 0; i++)
            if (!fl->items[files[i]].claimed)
                rc = skip_file(res, &fl->items[files[i]], err);
    }
    void *owned[] = {keys, runs, idx};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc;
}

/* ---- names ---- */

/* "run1/paje.trace" in a bundle -> "run1"; a single "lu.trace" -> "lu";
 * a group whose format names it after its first file (a trace with its
 * companions) -> that file's name. Valid UTF-8, cut between characters. */
static void default_trace_name(const ari_import_file *files, const ari_group *g, char *out, size_t size)
{
    const ari_import_file *first = &files[g->files[0]];
    const char *name;
    size_t len;
    if (g->nfiles > 1 && first->dir[0] && !g->name_from_first) {
        len = strlen(first->dir) - 1; /* without the trailing slash */
        name = first->dir;
        const char *slash = memrchr(name, '/', len);
        if (slash) {
            len -= (size_t)(slash + 1 - name);
            name = slash + 1;
        }
    } else {
        name = base_name(first->name);
        const char *dot = strchr(name, '.');
        len = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    }
    char raw[1024];
    snprintf(raw, sizeof raw, "%.*s", (int)len, name);
    ari_utf8_copy(out, size, raw);
}

static void trace_name(const ari_import_request *req, const ari_import_file *files,
                       const ari_group *g, size_t ngroups, char *out, size_t size)
{
    char fallback[256], given[256], part1[121], part2[121];
    default_trace_name(files, g, fallback, sizeof fallback);
    ari_utf8_copy(given, sizeof given, req->trace_name ? req->trace_name : "");
    if (given[0] && ngroups == 1)
        ari_utf8_copy(out, size, given);
    else if (given[0])
        snprintf(out, size, "%s (%s)", ari_utf8_copy(part1, sizeof part1, given),
                 ari_utf8_copy(part2, sizeof part2, fallback));
    else
        ari_utf8_copy(out, size, fallback);
}

const char *const ari_time_units[] = {"s", "ms", "us", "ns", NULL};

int ari_time_unit_known(const char *unit)
{
    for (size_t i = 0; unit && ari_time_units[i]; i++)
        if (strcmp(unit, ari_time_units[i]) == 0)
            return 1;
    return 0;
}

/* The user's unit over the format's, for task traces only. */
static int user_time_unit(ari_trace_writer *w, const ari_import_request *req, const ari_imported *t,
                          ari_error *err)
{
    if (!req->time_unit)
        return 0;
    if (strcmp(t->kind, "tasks") != 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "a time unit applies to task traces only, and %s is a %s trace (%s)", t->name,
                             t->kind, t->format);
    if (ari_trace_writer_set_time_unit_from(w, req->time_unit, "set by the user at import") < 0) {
        *err = *ari_trace_writer_error(w);
        return -1;
    }
    return 0;
}

static int import_group(ari_store *s, const ari_import_request *req, file_list *fl,
                        const ari_group *g, size_t ngroups, uint64_t *bytes_done,
                        ari_imported *out, ari_error *err)
{
    ari_writer_progress progress = {req->progress, req->progress_ctx, req->cancel, fl->total_bytes};
    trace_name(req, fl->items, g, ngroups, out->name, sizeof out->name);
    snprintf(out->kind, sizeof out->kind, "%s", g->format->kind);
    snprintf(out->format, sizeof out->format, "%s", g->format->name);
    ari_trace_writer *w = ari_trace_writer_begin(s, out->name, g->format->kind, g->format->name,
                                                 "s", &progress, *bytes_done, err);
    if (!w)
        return -1;
    int rc = g->format->import(w, fl->items, g, err);
    if (rc == 0)
        rc = user_time_unit(w, req, out, err);
    if (rc == 0)
        rc = ari_trace_writer_finish(w, NULL, err);
    const char *warnings = ari_trace_writer_warnings(w);
    if (rc == 0 && warnings[0] && !(out->warnings = strdup(warnings)))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    out->id = ari_trace_writer_id(w);
    *bytes_done = ari_trace_writer_bytes_done(w);
    ari_trace_writer_free(w);
    return rc;
}

int ari_import_record_outcome(ari_store *s, int64_t job_id, const ari_import_result *res,
                              ari_error *err)
{
    for (size_t i = 0; job_id > 0 && i < res->nskipped; i++)
        if (ari_jobs_add_skipped(s, job_id, res->skipped[i].name, res->skipped[i].reason, err) < 0)
            return -1;
    char more[64];
    snprintf(more, sizeof more, "... and %zu more files", res->skipped_more);
    if (job_id > 0 && res->skipped_more &&
        ari_jobs_add_skipped(s, job_id, more, "skipped too; not listed one by one", err) < 0)
        return -1;
    for (size_t i = 0; job_id > 0 && i < res->nduplicates; i++)
        if (ari_jobs_add_duplicate(s, job_id, res->duplicates[i].trace_id, res->duplicates[i].upload,
                                   err) < 0)
            return -1;
    return 0;
}

static int finish_job(ari_store *s, const ari_import_request *req, const ari_import_result *res,
                      ari_error *err)
{
    if (req->job_id <= 0)
        return 0;
    char ids[4096];
    size_t used = (size_t)snprintf(ids, sizeof ids, "[");
    for (size_t i = 0; i < res->ntraces && used < sizeof ids - 24; i++)
        used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%lld", i ? "," : "",
                                 (long long)res->traces[i].id);
    snprintf(ids + used, sizeof ids - used, "]");
    if (ari_import_record_outcome(s, req->job_id, res, err) < 0)
        return -1;
    return ari_jobs_finish(s, req->job_id, 1, ids, NULL, NULL, err);
}

/* ---- duplicates ---- */

/* Lists the staged traces whose digest (their files' SHA-256, computed as
 * the files were stored) is that of a trace in the shared database. */
static int find_duplicates(ari_store *stage, ari_store *s, ari_import_result *res, ari_error *err)
{
    for (size_t i = 0; i < res->ntraces; i++) {
        char digest[65], name[256];
        int64_t id;
        int rc = ari_traces_digest(stage, res->traces[i].id, digest, err);
        if (rc == 0 && digest[0])
            rc = ari_traces_find_digest(s, digest, &id, name, sizeof name, err);
        else if (rc == 0)
            rc = 1;
        if (rc < 0)
            return -1;
        if (rc == 1 || res->nduplicates == ARI_IMPORT_MAX_DUPLICATES)
            continue;
        ari_duplicate *d = &res->duplicates[res->nduplicates++];
        d->trace_id = id;
        snprintf(d->name, sizeof d->name, "%s", name);
        snprintf(d->upload, sizeof d->upload, "%s", res->traces[i].name);
    }
    return 0;
}

/* Refuses an import with duplicates unless the user allowed them. */
static int refuse_duplicates(const ari_import_request *req, const ari_import_result *res,
                             ari_error *err)
{
    if (res->nduplicates == 0 || req->allow_duplicate)
        return 0;
    const ari_duplicate *d = &res->duplicates[0];
    char more[64] = "";
    if (res->nduplicates > 1)
        snprintf(more, sizeof more, " (and %zu more traces of this import)", res->nduplicates - 1);
    return ari_error_set(err, ARI_E_DUPLICATE,
                         "identical to trace %lld (%.120s)%s: the same files (SHA-256) are already "
                         "stored, so nothing was imported; open trace %lld, or import anyway with "
                         "allow_duplicate=true (ariadned import --allow-duplicate)",
                         (long long)d->trace_id, d->name, more, (long long)d->trace_id);
}

/* Parses every group into a staging database, outside the shared
 * database's write lock (which other requests need meanwhile), then
 * publishes the traces and the job's success in one short transaction. */
static int write_groups(ari_store *s, const ari_import_request *req, file_list *fl,
                        group_list *gl, ari_import_result *res, ari_error *err)
{
    res->traces = calloc(gl->n, sizeof *res->traces);
    if (!res->traces)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_staging *g = ari_staging_open(s, err);
    if (!g)
        return -1;
    ari_store *stage = ari_staging_store(g);
    double started = ari_now();
    int rc = ari_store_begin(stage, err);
    uint64_t bytes_done = 0;
    for (size_t i = 0; i < gl->n && rc == 0; i++) {
        rc = import_group(stage, req, fl, &gl->items[i], gl->n, &bytes_done, &res->traces[i], err);
        res->ntraces += rc == 0;
    }
    if (rc == 0)
        rc = ari_store_commit(stage, err);
    if (rc == 0)
        rc = find_duplicates(stage, s, res, err);
    if (rc == 0)
        rc = refuse_duplicates(req, res, err);
    if (rc == 0 && req->progress)
        req->progress(req->progress_ctx, 1.0, "publishing");
    int64_t offset = 0;
    double staged = ari_now();
    if (rc == 0)
        rc = ari_staging_publish(g, s, &offset, err);
    if (rc == 0) {
        for (size_t i = 0; i < res->ntraces; i++)
            res->traces[i].id += offset;
        int ok = finish_job(s, req, res, err) == 0;
        rc = ari_staging_end(g, s, ok, err) == 0 && ok ? 0 : -1;
        ari_log(ARI_LOG_DEBUG, "import: parsed in %.3f s, published in %.3f s", staged - started,
                ari_now() - staged);
    }
    ari_staging_close(g);
    return rc;
}

/* The name of an input without its directory: "runs/lu/" -> "lu". */
static void input_name(const char *path, char *out, size_t size)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *slash = len > 1 ? memrchr(path, '/', len - 1) : NULL;
    const char *start = slash ? slash + 1 : path;
    snprintf(out, size, "%.*s", (int)(path + len - start), start);
}

/* Messages quote names and content as they came: make them valid UTF-8,
 * since they are stored and shown as JSON. */
static void repair_message(ari_error *err)
{
    char raw[sizeof err->message];
    if (!err)
        return;
    memcpy(raw, err->message, sizeof raw);
    raw[sizeof raw - 1] = '\0';
    ari_utf8_copy(err->message, sizeof err->message, raw);
}

static int collect_inputs(collector *c, ari_error *err)
{
    const ari_import_request *req = c->req;
    if (req->ninputs == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "nothing to import: no files");
    for (size_t i = 0; i < req->ninputs; i++) {
        const ari_import_input *in = &req->inputs[i];
        char name[512];
        input_name(in->name && *in->name ? in->name : in->path, name, sizeof name);
        if (collect(c, in->path, name, 0, 0, err) < 0)
            return -1;
    }
    return 0;
}

static void free_traces(ari_import_result *res)
{
    for (size_t i = 0; res->traces && i < res->ntraces; i++)
        free(res->traces[i].warnings);
    free(res->traces);
    res->traces = NULL;
    res->ntraces = 0;
}

int ari_import(ari_store *s, const ari_import_request *req, ari_import_result *res, ari_error *err)
{
    file_list fl;
    group_list gl;
    collector c;
    memset(&fl, 0, sizeof fl);
    memset(&gl, 0, sizeof gl);
    memset(&c, 0, sizeof c);
    memset(res, 0, sizeof *res);
    c.fl = &fl;
    c.req = req;
    c.budget = (ari_unpack_budget){
        .max_bytes = req->max_unpacked ? req->max_unpacked : UINT64_MAX,
        .bytes_left = req->max_unpacked ? req->max_unpacked : UINT64_MAX,
        .max_entries = req->max_entries ? req->max_entries : ARI_IMPORT_MAX_ENTRIES,
        .cancel = req->cancel,
    };
    int rc = collect_inputs(&c, err);
    if (rc == 0)
        rc = group_files(&fl, &gl, res, err);
    if (rc == 0 && gl.n == 0)
        rc = nothing_recognised(&fl, res, err);
    if (rc == 0)
        rc = write_groups(s, req, &fl, &gl, res, err);
    if (rc < 0) {
        free_traces(res);
        repair_message(err);
    }
    remove_scratch(&c);
    for (size_t i = 0; i < gl.n; i++)
        free(gl.items[i].more);
    free(gl.items);
    free_files(&fl);
    return rc;
}

void ari_import_result_free(ari_import_result *res)
{
    free_traces(res);
    res->nskipped = res->skipped_more = res->nduplicates = 0;
}

const char *const *ari_import_formats(void)
{
    static const char *names[32];
    size_t n = 0;
    for (const ari_format *const *f = ari_formats; *f && n < 31; f++)
        if (n == 0 || strcmp(names[n - 1], (*f)->name) != 0) /* chrome_trace has two entries */
            names[n++] = (*f)->name;
    names[n] = NULL;
    return names;
}
