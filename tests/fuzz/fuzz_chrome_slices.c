/* fuzz_chrome_slices.c: libFuzzer target for generic Chrome traces as slice
 * timelines (chrome_slices.c): the classification (GPU / data-movement
 * content or not) and the slice reader, both from memory, into a sink that
 * only counts (fuzz_sink.h). Any crash, leak, hang or sanitizer report is a
 * bug; a clean error is fine. */
#include <stdint.h>

#include "fuzz_sink.h"
#include "ingest/chrome_slices.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ari_error err;
    ari_chrome_buffer_has_device_content((const char *)data, size, "fuzz.json", &err);
    ari_chrome_slices_read_buffer((const char *)data, size, "fuzz.json", &fuzz_counting_sink, NULL, &err);
    return 0;
}
