/* fuzz_caliper_records.c: libFuzzer target for Caliper's JSON record lists
 * (cali-query -q "... format json", read by ari_caliper_json_records_read
 * in caliper_json.c), through the profile writer (see fuzz_profile.h).
 * The reader takes a path, so each input goes to a temporary file first. */
#include "fuzz_files.h"
#include "fuzz_profile.h"
#include "ingest/caliper_json.h"

static int read_records(const char *data, size_t len, const char *name, const ari_profile_sink *sink,
                        ari_error *err)
{
    char path[4096];
    if (fuzz_write("records.json", (const uint8_t *)data, len, path, sizeof path) < 0)
        return ari_error_set(err, ARI_E_IO, "cannot write %s", path);
    int rc = ari_caliper_json_records_read(path, name, sink, err);
    fuzz_empty(fuzz_dir());
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "fuzz.json", read_records);
}
