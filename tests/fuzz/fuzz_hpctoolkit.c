/* fuzz_hpctoolkit.c: libFuzzer target for the HPCToolkit database reader
 * (hpctoolkit.c: experiment.xml through expat, then the binary metric-db
 * files), through the profile writer (see fuzz_profile.h).
 *
 * The input is split on FUZZ_FILE_MARK (fuzz_files.h): the first part is
 * experiment.xml, each further part one metric-db file, in order.
 */
#include "fuzz_files.h"
#include "fuzz_profile.h"
#include "ingest/hpctoolkit.h"

static int read_database(const char *data, size_t len, const char *name, const ari_profile_sink *sink,
                         ari_error *err)
{
    fuzz_part parts[FUZZ_MAX_FILES];
    size_t n = fuzz_split((const uint8_t *)data, len, parts, FUZZ_MAX_FILES);
    char xml[4096], paths[FUZZ_MAX_FILES][4096], names[FUZZ_MAX_FILES][64];
    const char *path_list[FUZZ_MAX_FILES], *name_list[FUZZ_MAX_FILES];
    int rc = fuzz_write("experiment.xml", parts[0].data, parts[0].size, xml, sizeof xml);
    for (size_t i = 1; i < n && rc == 0; i++) {
        snprintf(names[i - 1], sizeof names[i - 1], "1.app-%06zu-000-a8c00270-1000-0.metric-db", i - 1);
        rc = fuzz_write(names[i - 1], parts[i].data, parts[i].size, paths[i - 1], sizeof paths[i - 1]);
        path_list[i - 1] = paths[i - 1];
        name_list[i - 1] = names[i - 1];
    }
    if (rc == 0)
        rc = ari_hpctoolkit_read(xml, name, path_list, name_list, n - 1, sink, err);
    else
        ari_error_set(err, ARI_E_IO, "cannot write the database");
    fuzz_empty(fuzz_dir());
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_profile_input(data, size, "experiment.xml", read_database);
}
