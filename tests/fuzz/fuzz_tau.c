/* fuzz_tau.c: libFuzzer target for the TAU text profile reader (tau.c),
 * through the profile writer (see fuzz_profile.h). The reader takes files,
 * so each input is written to one profile.0.0.0 in a scratch directory. */
#include "fuzz_profile.h"
#include "ingest/tau.h"

static char fuzz_tau_path[64];

static int read_tau_file(const char *data, size_t len, const char *name, const ari_profile_sink *sink,
                         ari_error *err)
{
    if (!fuzz_tau_path[0]) {
        char dir[] = "/tmp/ariadne-fuzz-tau-XXXXXX";
        if (!mkdtemp(dir))
            abort();
        snprintf(fuzz_tau_path, sizeof fuzz_tau_path, "%s/profile.0.0.0", dir);
    }
    FILE *f = fopen(fuzz_tau_path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        abort();
    const char *paths[] = {fuzz_tau_path}, *names[] = {name};
    return ari_tau_read(paths, names, 1, sink, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "profile.0.0.0", read_tau_file);
}
