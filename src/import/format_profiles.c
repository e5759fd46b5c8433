/* format_profiles.c: the profile import formats (see format_profiles.h):
 * their claim functions (file heads and names) and the glue from a reader
 * to the profile writer, inside the import's transaction. */
#include "import/format_profiles.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/cali.h"
#include "ingest/caliper_json.h"
#include "ingest/hatchet_json.h"
#include "ingest/hpctoolkit.h"
#include "ingest/hpctoolkit_db.h"
#include "ingest/input.h"
#include "ingest/tau.h"
#include "store/profile_writer.h"
#include "store/trace_writer.h"

#define PROBE_BYTES ARI_PROBE_BYTES

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}


/* Runs a reader into a fresh profile writer and writes the profile. */
typedef int (*reader_fn)(const char *path, const char *name, const ari_profile_sink *k, ari_error *err);

static int finish_read(ari_profile_writer *pw, int rc, ari_error *err)
{
    const ari_error *perr = ari_profile_writer_error(pw);
    if (rc != 0 && perr->code[0] && err)
        *err = *perr; /* the writer refused (or the import was cancelled) */
    if (rc == 0)
        rc = ari_profile_writer_finish(pw, err);
    ari_profile_writer_free(pw);
    return rc ? -1 : 0;
}

static int import_single(ari_trace_writer *w, const ari_import_file *f, const char *role, reader_fn read,
                         ari_error *err)
{
    if (ari_trace_writer_file(w, f->path, f->name, role, err) < 0)
        return -1;
    ari_profile_writer *pw = ari_profile_writer_begin(w, err);
    if (!pw)
        return -1;
    int rc = read(f->path, f->name, ari_profile_writer_sink(pw), err);
    return finish_read(pw, rc, err);
}

/* ---- HPCToolkit ---- */

/* HPCToolkit 4.x: meta.db (by its magic) with the other *.db files of its
 * directory; the import needs profile.db and says so when it is missing.
 * trace.db is listed even when the hpctoolkit_trace format claimed it
 * first (the event trace of the same database), so that the profile's
 * digest covers every file of the database like the event trace's. */
static int claim_hpctoolkit_db(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    static const char *const others[] = {"profile.db", "cct.db", "trace.db"};
    char head[16];
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || strcmp(base_name(f->name), "meta.db") != 0)
            continue;
        long got = ari_input_head(f->path, head, sizeof head);
        if (got <= 0 || !ari_hpctoolkit_db_probe(head, (size_t)got))
            continue;
        f->claimed = 1;
        g->files[0] = idx[i];
        g->nfiles = 1;
        for (size_t o = 0; o < sizeof others / sizeof others[0]; o++)
            for (size_t j = 0; j < n; j++) {
                ari_import_file *d = &files[idx[j]];
                /* (the driver offers every file past the claimed ones in
                 * front: trace.db sorts after meta.db, never claimed then) */
                int shared = strcmp(others[o], "trace.db") == 0;
                if ((!d->claimed || shared) && strcmp(base_name(d->name), others[o]) == 0) {
                    d->claimed = 1;
                    g->files[g->nfiles++] = idx[j];
                    break;
                }
            }
        return 1;
    }
    return 0;
}

static int claim_hpctoolkit(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    char head[PROBE_BYTES];
    if (claim_hpctoolkit_db(files, idx, n, g))
        return 1;
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || strcmp(base_name(f->name), "experiment.xml") != 0)
            continue;
        long got = ari_input_head(f->path, head, sizeof head);
        if (got <= 0 || !ari_hpctoolkit_xml_probe(head, (size_t)got))
            continue;
        f->claimed = 1;
        g->files[0] = idx[i];
        g->nfiles = 1;
        /* every metric-db of the directory belongs to it (the group lists
         * the first ones; the import reads them all from the directory) */
        for (size_t j = 0; j < n; j++) {
            ari_import_file *d = &files[idx[j]];
            if (d->claimed || !ari_hpctoolkit_is_metricdb(d->name))
                continue;
            d->claimed = 1;
            if (g->nfiles < sizeof g->files / sizeof g->files[0])
                g->files[g->nfiles++] = idx[j];
        }
        return 1;
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_siblings(char **paths, char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(paths[i]);
        free(names[i]);
    }
    free(paths);
    free(names);
}

/* The files next to `xml` whose names `match` accepts (HPCToolkit's
 * metric-db files next to experiment.xml, TAU's profile.N.C.T files),
 * sorted by name. */
static int list_siblings(const ari_import_file *xml, int (*match)(const char *name), char ***paths, char ***names,
                         size_t *n, ari_error *err)
{
    char dir[4096], name_dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(base_name(xml->path) - xml->path), xml->path);
    snprintf(name_dir, sizeof name_dir, "%.*s", (int)(base_name(xml->name) - xml->name), xml->name);
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return ari_error_set(err, ARI_E_IO, "%s: cannot list its directory", xml->name);
    char **entries = NULL;
    size_t count = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL && rc == 0) {
        if (e->d_name[0] == '.' || !match(e->d_name))
            continue;
        char **grown = realloc(entries, (count + 1) * sizeof *grown);
        if (!grown || !(grown[count] = strdup(e->d_name))) {
            entries = grown ? grown : entries;
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        entries = grown;
        count++;
    }
    closedir(d);
    if (rc == 0)
        qsort(entries, count, sizeof *entries, compare_names);
    *paths = calloc(count ? count : 1, sizeof **paths);
    *names = calloc(count ? count : 1, sizeof **names);
    if (rc == 0 && (!*paths || !*names))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (asprintf(&(*paths)[i], "%s%s", dir, entries[i]) < 0 ||
            asprintf(&(*names)[i], "%s%s", name_dir, entries[i]) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < count; i++)
        free(entries[i]);
    free(entries);
    *n = count;
    return rc;
}

/* meta.db + profile.db into the profile writer (the other files listed). */
static int import_hpctoolkit_db(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *meta = &files[g->files[0]], *prof = NULL;
    for (size_t i = 1; i < g->nfiles; i++)
        if (strcmp(base_name(files[g->files[i]].name), "profile.db") == 0)
            prof = &files[g->files[i]];
    if (!prof)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: profile.db is missing next to it", meta->name);
    for (size_t i = 0; i < g->nfiles; i++) {
        const ari_import_file *f = &files[g->files[i]];
        if (ari_trace_writer_file(w, f->path, f->name, "hpctoolkit-db", err) < 0)
            return -1;
    }
    ari_profile_writer *pw = ari_profile_writer_begin(w, err);
    if (!pw)
        return -1;
    int rc = ari_hpctoolkit_db_read(meta->path, meta->name, prof->path, prof->name, ari_profile_writer_sink(pw), err);
    return finish_read(pw, rc, err);
}

static int import_hpctoolkit(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *xml = &files[g->files[0]];
    if (strcmp(base_name(xml->name), "meta.db") == 0)
        return import_hpctoolkit_db(w, files, g, err);
    char **paths = NULL, **names = NULL;
    size_t n = 0;
    int rc = list_siblings(xml, ari_hpctoolkit_is_metricdb, &paths, &names, &n, err);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = ari_trace_writer_file(w, paths[i], names[i], "metric-db", err);
    if (rc == 0)
        rc = ari_trace_writer_file(w, xml->path, xml->name, "experiment", err);
    if (rc == 0)
        rc = ari_trace_writer_set_time_unit(w, "usec");
    ari_profile_writer *pw = rc == 0 ? ari_profile_writer_begin(w, err) : NULL;
    if (pw) {
        rc = ari_hpctoolkit_read(xml->path, xml->name, (const char *const *)paths, (const char *const *)names,
                                 n, ari_profile_writer_sink(pw), err);
        rc = finish_read(pw, rc, err);
    } else {
        rc = -1;
    }
    free_siblings(paths, names, n);
    return rc;
}

/* ---- single files ---- */

static int claim_split(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, ari_caliper_json_split_probe);
}

static int import_split(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    return import_single(w, &files[g->files[0]], "json-split", ari_caliper_json_split_read, err);
}

static int claim_records(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, ari_caliper_json_records_probe);
}

static int import_records(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    return import_single(w, &files[g->files[0]], "caliper-json", ari_caliper_json_records_read, err);
}

static int claim_cali(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, ari_cali_probe);
}

static int import_cali(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    return import_single(w, &files[g->files[0]], "cali", ari_cali_read, err);
}

static int hatchet_probe(const char *head, size_t n)
{
    return ari_hatchet_json_probe(head, n) != 0;
}

static int claim_hatchet(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, hatchet_probe);
}

static int import_hatchet(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    return import_single(w, &files[g->files[0]], "hatchet-json", ari_hatchet_json_read, err);
}

/* ---- TAU ---- */

static int is_tau_profile(const char *name)
{
    long long rank, thread;
    return ari_tau_profile_name(name, &rank, &thread);
}

/* Every profile.N.C.T file of a directory is one run (the group lists the
 * first ones; the import reads them all from the directory). */
static int claim_tau(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    char head[64];
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++) {
        ari_import_file *f = &files[idx[i]];
        long got = f->claimed || !is_tau_profile(base_name(f->name)) ? 0 : ari_input_head(f->path, head, sizeof head);
        if (got > 0 && ari_tau_probe(head, (size_t)got))
            first = i;
    }
    if (first == n)
        return 0;
    g->nfiles = 0;
    for (size_t j = first; j < n; j++) {
        ari_import_file *f = &files[idx[j]];
        if (f->claimed || !is_tau_profile(base_name(f->name)))
            continue;
        f->claimed = 1;
        if (g->nfiles < sizeof g->files / sizeof g->files[0])
            g->files[g->nfiles++] = idx[j];
    }
    return 1;
}

static int import_tau(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *first = &files[g->files[0]];
    char **paths = NULL, **names = NULL;
    size_t n = 0;
    int rc = list_siblings(first, is_tau_profile, &paths, &names, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = ari_trace_writer_file(w, paths[i], names[i], "tau-profile", err);
    if (rc == 0)
        rc = ari_trace_writer_set_time_unit(w, "usec"); /* TAU's TIME, as HPCToolkit's */
    ari_profile_writer *pw = rc == 0 ? ari_profile_writer_begin(w, err) : NULL;
    if (pw)
        rc = finish_read(pw, ari_tau_read((const char *const *)paths, (const char *const *)names, n,
                                          ari_profile_writer_sink(pw), err), err);
    else
        rc = -1;
    free_siblings(paths, names, n);
    return rc;
}

const ari_format ari_format_hpctoolkit = {"hpctoolkit", "profile", claim_hpctoolkit, import_hpctoolkit};
const ari_format ari_format_tau = {"tau", "profile", claim_tau, import_tau};
const ari_format ari_format_caliper_split = {"caliper_json_split", "profile", claim_split, import_split};
const ari_format ari_format_caliper_records = {"caliper_json", "profile", claim_records, import_records};
const ari_format ari_format_cali = {"cali", "profile", claim_cali, import_cali};
const ari_format ari_format_hatchet_json = {"hatchet_json", "profile", claim_hatchet, import_hatchet};
