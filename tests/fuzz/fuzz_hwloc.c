/* fuzz_hwloc.c: libFuzzer target for the hwloc topology XML reader
 * (hwloc_xml.c), the one behind lone topologies and Chrome-trace companions.
 *
 * Each input is written to a private temporary file and read with
 * ari_topology_from_xml, as an import does; every component is touched.
 * A clean error is fine; a crash, leak, hang or sanitizer report is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/hwloc_xml.h"

static size_t touched;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_hwloc.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    ari_topology t;
    ari_error err;
    if (ari_topology_from_xml(path, "fuzz.xml", &t, &err) == 0) {
        for (size_t i = 0; i < t.n; i++)
            touched += strlen(t.comps[i].kind) + strlen(t.comps[i].name) + strlen(t.comps[i].key) +
                       strlen(t.comps[i].attrs_json) + (size_t)(t.comps[i].parent + 1);
        ari_topology_free(&t);
    }
    unlink(path);
    return 0;
}
