/* fuzz_caliper_json.c: libFuzzer target for the Caliper json-split reader
 * (caliper_json.c: its streaming tokenizer, the two-pass read when "data"
 * comes first, sampled-profile statement splitting), through the profile
 * writer (see fuzz_profile.h). */
#include "fuzz_profile.h"
#include "ingest/caliper_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "fuzz.json", ari_caliper_json_split_read_mem);
}
