/* fuzz_profile.h: what the profile fuzz targets share. They feed a reader's
 * output to the store's profile writer (profile_writer.c), so that tree
 * validation, renumbering, metric derivation and the writes are fuzzed too.
 * One database is opened for the whole run; each input is read inside a
 * transaction that is rolled back. Any crash, leak, hang or sanitizer report
 * is a bug; a clean error is fine.
 */
#ifndef ARIADNE_FUZZ_PROFILE_H
#define ARIADNE_FUZZ_PROFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/profile_writer.h"
#include "store/store_internal.h"

/* A reader of profiles held in memory (ari_cali_read_mem, ...). */
typedef int (*fuzz_profile_reader)(const char *data, size_t len, const char *name,
                                   const ari_profile_sink *sink, ari_error *err);

static ari_store *fuzz_store;
static int64_t fuzz_trace_id;

static void fuzz_open_store(void)
{
    char dir[] = "/tmp/ariadne-fuzz-XXXXXX", path[64];
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/f.db", dir);
    ari_error err;
    fuzz_store = ari_store_open(path, &err);
    if (!fuzz_store || sqlite3_exec(fuzz_store->db,
                                    "INSERT INTO traces(name, kind, format) VALUES ('f', 'profile', 'fuzz')",
                                    NULL, NULL, NULL) != SQLITE_OK)
        abort();
    fuzz_trace_id = sqlite3_last_insert_rowid(fuzz_store->db);
}

static int fuzz_profile_input(const uint8_t *data, size_t size, const char *name, fuzz_profile_reader read)
{
    if (!fuzz_store)
        fuzz_open_store();
    ari_error err = {0};
    if (ari_store_begin(fuzz_store, &err) < 0)
        abort();
    ari_profile_writer *pw = ari_profile_writer_begin_store(fuzz_store, fuzz_trace_id, &err);
    if (!pw)
        abort();
    if (read((const char *)data, size, name, ari_profile_writer_sink(pw), &err) == 0)
        ari_profile_writer_finish(pw, &err);
    ari_profile_writer_free(pw);
    ari_store_rollback(fuzz_store);
    return 0;
}

#endif
