/* fuzz_paje.c: libFuzzer target for the Paje reader (and the line reader).
 *
 * Each input is written to a private temporary file (the reader takes a
 * path and needs a seekable file for its second pass) and read with a sink
 * that only counts, in strict mode or not and with or without incomplete
 * links depending on the input's length. Any crash, leak, hang or sanitizer
 * report is a bug; a clean error is fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_sink.h"
#include "ingest/paje.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_paje.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    ari_paje_report report; /* every other size: a cut last line is tolerated */
    ari_paje_options opt = {(int)(size & 1), (int)((size >> 1) & 1), (size >> 2) & 1 ? &report : NULL};
    ari_error err;
    ari_paje_read(path, "fuzz", &opt, &fuzz_counting_sink, &err);
    unlink(path);
    return 0;
}
