/* cmd_generate_pdes.c: option parsing and summary of `ariadned generate
 * --kind pdes` (see cmd_generate_pdes.h and gen/pdes_sim.h). */
#include "cmd_generate_pdes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/pdes_sim.h"

static const char usage_text[] =
    "usage: ariadned generate --kind pdes [options] OUT\n"
    "\n"
    "Writes a SIMULATED ROSS PDES run into the directory OUT (created if missing):\n"
    "<Metric>.csv matrices (KP rows x GVT sample columns, header = LastGvt) for RbSec,\n"
    "RbTotal, NetworkSend, NetworkRecv, NeventProcessed, NeventRb, VirtualTimeDiff;\n"
    "records.csv with every field of the sample record, CommData included, for every\n"
    "KP and sample; ross.json (layout, simulated: true) and truth.json (the injected\n"
    "phase boundaries and anomalous KPs). `ariadned import OUT` reads it as one trace.\n"
    "\n"
    "options:\n"
    "  --pes P          processing elements (default 16)\n"
    "  --kps K          KPs per PE (default 16)\n"
    "  --lps L          LPs per KP (default 4)\n"
    "  --samples S      GVT samples (default 100, at least 10)\n"
    "  --segments N     phases, 2 to 4 (default: 2 to 4 from the seed)\n"
    "  --seed S         random seed (default 1); same options, same bytes\n"
    "  --no-records     leave out records.csv (it holds KPs x KPs numbers per sample)\n"
    "  --out DIR        the same as OUT\n"
    "  --help           show this help\n";

static int parse_int(const char *name, const char *v, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "ariadned generate: %s must be an integer in %ld..%ld (got '%s')\n", name, lo, hi,
                v ? v : "");
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* "--name V" or "--name=V": 1 and *value (NULL when missing), else 0. */
static int option(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n])
        return 0;
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

static int parse(int argc, char **argv, pdes_options *o, int *help)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int rc = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            *help = 1;
        else if (strcmp(a, "--no-records") == 0)
            o->records = 0;
        else if (option(argc, argv, &i, "--kind", &v))
            rc = v && strcmp(v, "pdes") == 0 ? 0 : -1;
        else if (option(argc, argv, &i, "--pes", &v))
            rc = parse_int("--pes", v, 1, PDES_MAX_PES, &o->pes);
        else if (option(argc, argv, &i, "--kps", &v))
            rc = parse_int("--kps", v, 1, PDES_MAX_KPS, &o->kps);
        else if (option(argc, argv, &i, "--lps", &v))
            rc = parse_int("--lps", v, 1, PDES_MAX_LPS, &o->lps);
        else if (option(argc, argv, &i, "--samples", &v))
            rc = parse_int("--samples", v, 10, PDES_MAX_SAMPLES, &o->samples);
        else if (option(argc, argv, &i, "--segments", &v))
            rc = parse_int("--segments", v, 2, PDES_MAX_SEGMENTS, &o->segments);
        else if (option(argc, argv, &i, "--seed", &v)) {
            char *end = NULL;
            errno = 0;
            o->seed = v && v[0] != '-' ? strtoull(v, &end, 10) : 0;
            rc = !v || v[0] == '-' || errno || end == v || *end ? -1 : 0;
            if (rc)
                fprintf(stderr, "ariadned generate: --seed must be a non-negative integer\n");
        } else if (option(argc, argv, &i, "--out", &v))
            rc = (o->out_dir = v) ? 0 : -1;
        else if (a[0] != '-' && !o->out_dir)
            o->out_dir = a;
        else {
            fprintf(stderr, "ariadned generate: unknown option '%s' (see --kind pdes --help)\n", a);
            rc = -1;
        }
        if (rc)
            return -1;
    }
    return 0;
}

int cmd_generate_pdes(int argc, char **argv)
{
    pdes_options o = {.pes = 16, .kps = 16, .lps = 4, .samples = 100, .seed = 1, .records = 1};
    int help = 0;
    if (parse(argc, argv, &o, &help) < 0)
        return 2;
    if (help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!o.out_dir || !*o.out_dir) {
        fprintf(stderr, "ariadned generate: the output directory OUT is required (see --kind pdes --help)\n");
        return 2;
    }
    ari_error err;
    ari_error_clear(&err);
    pdes_summary s;
    if (pdes_sim_run(&o, &s, &err) != 0) {
        fprintf(stderr, "ariadned generate: %s\n", err.message);
        return strcmp(err.code, ARI_E_INVALID_PARAMETER) == 0 ? 2 : 1;
    }
    printf("{\"simulated\": true, \"kind\": \"pdes\", \"pes\": %d, \"kps\": %lld, \"lps\": %lld, \"samples\": %d, "
           "\"segments\": %d, \"boundaries\": [",
           o.pes, (long long)s.kps, (long long)s.lps, o.samples, s.segments);
    for (int i = 0; i + 1 < s.segments; i++)
        printf("%s%d", i ? ", " : "", s.boundaries[i]);
    printf("], \"anomalous_kps\": %d}\n", s.anomalous);
    return 0;
}
