/* formats.c: the table of formats an import tries, in order (bundle formats
 * before single-file ones), and the helpers their claim functions share. */
#include "import/formats.h"

#include "import/format_chrome_trace.h"
#include "import/format_events.h"
#include "import/format_metrics.h"
#include "import/format_paje.h"
#include "import/format_profiles.h"
#include "import/format_starpu.h"
#include "import/format_starvz.h"

#include <string.h>

#include "util/vec.h"

#include "ingest/input.h"

const ari_format *const ari_formats[] = {
    &ari_format_otf2,
    &ari_format_projections,
    &ari_format_hpctoolkit_trace, /* trace.db, before the profile's claim of its database */
    &ari_format_starpu,
    &ari_format_starvz,
    &ari_format_chrome_slices, /* generic Chrome traces, before the data-movement ones */
    &ari_format_chrome_trace,
    &ari_format_hpctoolkit,
    &ari_format_tau,
    &ari_format_paje,
    &ari_format_cali,
    &ari_format_hatchet_json,
    &ari_format_caliper_split,
    &ari_format_caliper_records,
    &ari_format_hwloc_xml,
    &ari_format_metrics, /* ROSS runs and metric CSVs: after every format that takes CSVs by name */
    NULL,
};

const ari_format *const ari_formats_first[] = {
    &ari_format_otf2,
    NULL,
};

int ari_group_add(ari_group *g, size_t i)
{
    if (g->nfiles < sizeof g->files / sizeof g->files[0]) {
        g->files[g->nfiles++] = i;
        return 0;
    }
    if (ari_vec_reserve((void **)&g->more, &g->cap_more, g->nmore + 1, sizeof *g->more) < 0)
        return -1;
    g->more[g->nmore++] = i;
    return 0;
}

size_t ari_group_size(const ari_group *g)
{
    return g->nfiles + g->nmore;
}

size_t ari_group_file(const ari_group *g, size_t k)
{
    return k < g->nfiles ? g->files[k] : g->more[k - g->nfiles];
}

int ari_claim_single(ari_import_file *files, const size_t *idx, size_t n, ari_group *g,
                     int (*probe)(const char *head, size_t len))
{
    char head[ARI_PROBE_BYTES];
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || f->bytes == 0)
            continue;
        long got = ari_input_head(f->path, head, sizeof head);
        if (got <= 0 || !probe(head, (size_t)got))
            continue;
        f->claimed = 1;
        g->files[0] = idx[i];
        g->nfiles = 1;
        return 1;
    }
    return 0;
}
