/* fuzz_hatchet_json.c: libFuzzer target for the Hatchet JSON reader
 * (hatchet_json.c: graph-frame JSON and "literal" node lists), read from
 * memory through the profile writer (see fuzz_profile.h). */
#include "fuzz_profile.h"
#include "ingest/hatchet_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "fuzz.json", ari_hatchet_json_read_mem);
}
