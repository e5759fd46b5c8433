/* fuzz_caliper_json.c: libFuzzer target for the Caliper json-split reader (caliper_json.c: its streaming tokenizer, the two-pass read when "data" comes first, sampled-profile statement splitting),
 * feeding the store's profile writer (profile_writer.c), so that tree
 * validation, renumbering, metric derivation and the writes are fuzzed too.
 *
 * One database is opened for the whole run; each input is read inside a
 * transaction that is rolled back. Any crash, leak, hang or sanitizer
 * report is a bug; a clean error is fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/caliper_json.h"
#include "store/profile_writer.h"
#include "store/store_internal.h"

static ari_store *store;
static int64_t trace_id;

static void open_store(void)
{
    char dir[] = "/tmp/ariadne-fuzz-XXXXXX", path[64];
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/f.db", dir);
    ari_error err;
    store = ari_store_open(path, &err);
    if (!store || sqlite3_exec(store->db, "INSERT INTO traces(name, kind, format) VALUES ('f', 'profile', 'fuzz')",
                               NULL, NULL, NULL) != SQLITE_OK)
        abort();
    trace_id = sqlite3_last_insert_rowid(store->db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!store)
        open_store();
    ari_error err = {0};
    if (ari_store_begin(store, &err) < 0)
        abort();
    ari_profile_writer *pw = ari_profile_writer_begin_store(store, trace_id, &err);
    if (!pw)
        abort();
    if (ari_caliper_json_split_read_mem((const char *)data, size, "fuzz.json", ari_profile_writer_sink(pw), &err) == 0)
        ari_profile_writer_finish(pw, &err);
    ari_profile_writer_free(pw);
    ari_store_rollback(store);
    return 0;
}
