/* fuzz_nvsmi.c: libFuzzer target for the nvidia-smi sample CSV reader
 * (nvsmi_csv.c). Each input is written to a private temporary file (the
 * reader takes a path) and read with a sink that only checks and counts
 * the samples. A clean error is fine; a crash, leak, hang or sanitizer
 * report is a bug.
 */
#include <math.h>
#include <stdlib.h>

#include "fuzz_files.h"
#include "ingest/nvsmi_csv.h"

static size_t samples;

static int count_sample(void *ctx, const char *metric, int gpu, double ts, double value)
{
    (void)ctx;
    if (gpu < 0 || !isfinite(ts) || !isfinite(value))
        abort(); /* the reader promised finite values and a GPU index */
    samples += strlen(metric) + 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    if (fuzz_write("gpu.csv", data, size, path, sizeof path) == 0) {
        ari_nvsmi_sink sink = {NULL, count_sample};
        ari_error err;
        ari_nvsmi_read(path, "fuzz.csv", &sink, &err);
    }
    fuzz_empty(fuzz_dir());
    return 0;
}
