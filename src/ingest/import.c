/* import.c: the import driver. It lists the input files (walking
 * directories, unpacking archives into the work directory), groups them by
 * format (formats.c), then writes every group as a trace into a staging
 * database and publishes them all in one transaction of the shared
 * database, marking the job succeeded in that same transaction. */
#include "ingest/import.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/archive.h"
#include "ingest/formats.h"
#include "store/staging.h"
#include "store/trace_writer.h"

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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int add_file(file_list *fl, const char *path, const char *name, const char *dir,
                    uint64_t bytes, ari_error *err)
{
    if (fl->n == fl->cap) {
        size_t cap = fl->cap ? 2 * fl->cap : 16;
        ari_import_file *grown = realloc(fl->items, cap * sizeof *grown);
        if (!grown)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        fl->items = grown;
        fl->cap = cap;
    }
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
        free(fl->items[i].path);
        free(fl->items[i].name);
        free(fl->items[i].dir);
    }
    free(fl->items);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect(file_list *fl, const char *path, const char *name, const char *work_dir,
                   uint64_t max_unpacked, int depth, ari_error *err);

/* Adds the files below a directory, in name order, each named
 * "<name>/<relative path>" and grouped by its own directory. */
static int collect_dir(file_list *fl, const char *path, const char *name, const char *work_dir,
                       uint64_t max_unpacked, int depth, ari_error *err)
{
    DIR *d = opendir(path);
    if (!d)
        return ari_error_set(err, ARI_E_IO, "%s: %s", name, strerror(errno));
    char **entries = NULL;
    size_t n = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(entries, (n + 1) * sizeof *entries);
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            entries = grown ? grown : entries;
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        entries = grown;
        n++;
    }
    closedir(d);
    if (rc == 0)
        qsort(entries, n, sizeof *entries, compare_names);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char child[4096], child_name[4096];
        snprintf(child, sizeof child, "%s/%s", path, entries[i]);
        snprintf(child_name, sizeof child_name, "%s/%s", name, entries[i]);
        rc = collect(fl, child, child_name, work_dir, max_unpacked, depth + 1, err);
    }
    for (size_t i = 0; i < n; i++)
        free(entries[i]);
    free(entries);
    return rc;
}

static int collect_archive(file_list *fl, const char *path, const char *name, const char *work_dir,
                           uint64_t max_unpacked, int depth, ari_error *err)
{
    char dest[4096];
    snprintf(dest, sizeof dest, "%s/unpacked-%d", work_dir, fl->archives++);
    if (mkdir(dest, 0700) != 0)
        return ari_error_set(err, ARI_E_IO, "cannot create %s: %s", dest, strerror(errno));
    if (ari_archive_extract(path, dest, max_unpacked ? max_unpacked : UINT64_MAX, err) < 0)
        return -1;
    return collect_dir(fl, dest, name, work_dir, max_unpacked, depth, err);
}

static int collect(file_list *fl, const char *path, const char *name, const char *work_dir,
                   uint64_t max_unpacked, int depth, ari_error *err)
{
    struct stat st;
    if (depth > 16)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: directories nested too deep", name);
    if (stat(path, &st) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: %s", name, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return collect_dir(fl, path, name, work_dir, max_unpacked, depth, err);
    if (!S_ISREG(st.st_mode))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not a regular file", name);
    int is_archive = ari_archive_detect(path, err);
    if (is_archive < 0)
        return -1;
    if (is_archive) {
        if (!work_dir)
            return ari_error_set(err, ARI_E_IO, "%s: no work directory to unpack the archive", name);
        return collect_archive(fl, path, name, work_dir, max_unpacked, depth, err);
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(base_name(name) - name), name);
    return add_file(fl, path, name, dir, (uint64_t)st.st_size, err);
}

static int push_group(group_list *gl, const ari_group *g, ari_error *err)
{
    if (gl->n == gl->cap) {
        size_t cap = gl->cap ? 2 * gl->cap : 8;
        ari_group *grown = realloc(gl->items, cap * sizeof *grown);
        if (!grown)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        gl->items = grown;
        gl->cap = cap;
    }
    gl->items[gl->n++] = *g; /* the claim function has marked its files */
    return 0;
}

/* Offers the files of one directory to each format in turn. */
static int group_dir(file_list *fl, const size_t *idx, size_t n, group_list *gl, ari_error *err)
{
    for (const ari_format *const *f = ari_formats; *f; f++) {
        ari_group g;
        memset(&g, 0, sizeof g);
        while ((*f)->claim(fl->items, idx, n, &g)) {
            g.format = *f;
            if (push_group(gl, &g, err) < 0)
                return -1;
            memset(&g, 0, sizeof g);
        }
    }
    return 0;
}

static int group_files(file_list *fl, group_list *gl, ari_error *err)
{
    size_t *idx = malloc((fl->n ? fl->n : 1) * sizeof *idx);
    if (!idx)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < fl->n && rc == 0; i++) {
        if (i > 0 && strcmp(fl->items[i].dir, fl->items[i - 1].dir) == 0)
            continue; /* directory already offered */
        size_t n = 0;
        for (size_t j = i; j < fl->n; j++)
            if (strcmp(fl->items[j].dir, fl->items[i].dir) == 0)
                idx[n++] = j;
        rc = group_dir(fl, idx, n, gl, err);
    }
    free(idx);
    return rc;
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

/* Every file must belong to a trace: an unclaimed file is an error, so a
 * user never gets a partial import without being told. */
static int check_all_claimed(const file_list *fl, const group_list *gl, ari_error *err)
{
    char known[256];
    known_formats(known, sizeof known);
    for (size_t i = 0; i < fl->n; i++) {
        if (fl->items[i].claimed)
            continue;
        if (fl->items[i].bytes == 0)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file", fl->items[i].name);
        return ari_error_set(err, ARI_E_UNSUPPORTED,
                             "%s: no reader recognises this file (formats: %s)", fl->items[i].name, known);
    }
    if (gl->n == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "nothing to import: no files");
    return 0;
}

/* "run1/paje.trace" in a bundle -> "run1"; a single "lu.trace" -> "lu";
 * a group whose format names it after its first file (a trace with its
 * companions) -> that file's name. */
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
    snprintf(out, size, "%.*s", (int)len, name);
}

static void trace_name(const ari_import_request *req, const ari_import_file *files,
                       const ari_group *g, size_t ngroups, char *out, size_t size)
{
    char fallback[256];
    default_trace_name(files, g, fallback, sizeof fallback);
    if (req->trace_name && *req->trace_name && ngroups == 1)
        snprintf(out, size, "%s", req->trace_name);
    else if (req->trace_name && *req->trace_name)
        snprintf(out, size, "%.120s (%.120s)", req->trace_name, fallback);
    else
        snprintf(out, size, "%s", fallback);
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
        rc = ari_trace_writer_finish(w, NULL, err);
    out->id = ari_trace_writer_id(w);
    *bytes_done = ari_trace_writer_bytes_done(w);
    ari_trace_writer_free(w);
    return rc;
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
    return ari_jobs_finish(s, req->job_id, 1, ids, NULL, NULL, err);
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
    int rc = ari_store_begin(stage, err);
    uint64_t bytes_done = 0;
    for (size_t i = 0; i < gl->n && rc == 0; i++) {
        rc = import_group(stage, req, fl, &gl->items[i], gl->n, &bytes_done, &res->traces[i], err);
        res->ntraces += rc == 0;
    }
    if (rc == 0)
        rc = ari_store_commit(stage, err);
    if (rc == 0 && req->progress)
        req->progress(req->progress_ctx, 1.0, "publishing");
    int64_t offset = 0;
    if (rc == 0)
        rc = ari_staging_publish(g, s, &offset, err);
    if (rc == 0) {
        for (size_t i = 0; i < res->ntraces; i++)
            res->traces[i].id += offset;
        int ok = finish_job(s, req, res, err) == 0;
        rc = ari_staging_end(g, s, ok, err) == 0 && ok ? 0 : -1;
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

int ari_import(ari_store *s, const ari_import_request *req, ari_import_result *res, ari_error *err)
{
    file_list fl;
    group_list gl;
    memset(&fl, 0, sizeof fl);
    memset(&gl, 0, sizeof gl);
    memset(res, 0, sizeof *res);
    int rc = 0;
    if (req->ninputs == 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "nothing to import: no files");
    for (size_t i = 0; i < req->ninputs && rc == 0; i++) {
        const ari_import_input *in = &req->inputs[i];
        char name[512];
        input_name(in->name ? in->name : in->path, name, sizeof name);
        rc = collect(&fl, in->path, name, req->work_dir, req->max_unpacked, 0, err);
    }
    if (rc == 0)
        rc = group_files(&fl, &gl, err);
    if (rc == 0)
        rc = check_all_claimed(&fl, &gl, err);
    if (rc == 0)
        rc = write_groups(s, req, &fl, &gl, res, err);
    if (rc < 0)
        ari_import_result_free(res);
    free(gl.items);
    free_files(&fl);
    return rc;
}

void ari_import_result_free(ari_import_result *res)
{
    free(res->traces);
    res->traces = NULL;
    res->ntraces = 0;
}

const char *const *ari_import_formats(void)
{
    static const char *names[32];
    size_t n = 0;
    for (const ari_format *const *f = ari_formats; *f && n < 31; f++)
        names[n++] = (*f)->name;
    names[n] = NULL;
    return names;
}
