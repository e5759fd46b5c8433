/* fuzz_cali.c: libFuzzer target for the native .cali reader (cali.c),
 * through the profile writer (see fuzz_profile.h). */
#include "fuzz_profile.h"
#include "ingest/cali.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "fuzz.cali", ari_cali_read_mem);
}
