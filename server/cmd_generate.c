/* cmd_generate.c: command-line front end of the simulated trace generator
 * (`ariadned generate ...`): option parsing, per-node overrides, summary. */
#include "cmd_generate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_generate_pdes.h"
#include "gen/cholesky_sim.h"
#include "version.h"

static const char usage_text[] =
    "usage: ariadned generate --out DIR [options]\n"
    "\n"
    "Writes a SIMULATED StarPU trace of a tiled Cholesky factorisation (dplgsy, dpotrf,\n"
    "dtrsm, dsyrk, dgemm) in the formats of starpu_fxt_tool: paje.trace, tasks.rec,\n"
    "dag.dot, data.rec, comms.rec (several nodes), plus README.txt and manifest.json.\n"
    "The task count is T(T+1)/2 + T + T(T-1) + T(T-1)(T-2)/6 (T = 180 gives ~1M).\n"
    "\n"
    "options:\n"
    "  --kind KIND            tasks (this simulation, the default) or pdes (a ROSS\n"
    "                         run: see --kind pdes --help)\n"
    "  --out DIR              output directory (created if missing; required)\n"
    "  --tiles T              matrix of T x T tiles (default 12)\n"
    "  --block-size NB        tile size in elements (default 960)\n"
    "  --nodes N              number of nodes / MPI ranks (default 2)\n"
    "  --cpus C               CPU workers per node (default 4)\n"
    "  --gpus G               CUDA workers per node (default 1)\n"
    "  --seed S               random seed (default 1); same seed, same bytes\n"
    "  --slow-nodes LIST      slower nodes: NODE[:FACTOR],... (durations x FACTOR,\n"
    "                         default factor from --slow-factor)\n"
    "  --slow-factor F        default slowdown for --slow-nodes (default 2)\n"
    "  --fewer-workers LIST   nodes with other worker counts: NODE:CPUS[:GPUS],...\n"
    "                         e.g. --nodes 30 --fewer-workers 7:1,21:1\n"
    "  --sorted               write paje.trace time-ordered (default: interleaved\n"
    "                         per-worker buffers, not time-ordered, like StarPU)\n"
    "  --help                 show this help\n"
    "  --version              show the version\n";

typedef struct gen_args {
    chol_options opt;
    int cpus, gpus;
    double slow_factor;
    const char *slow_list;
    const char *fewer_list;
    int help;
    int version;
} gen_args;

static int parse_int(const char *name, const char *v, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "ariadned generate: %s must be an integer in %ld..%ld (got '%s')\n", name,
                lo, hi, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int parse_double(const char *name, const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end != '\0' || !(x >= lo && x <= hi)) {
        fprintf(stderr, "ariadned generate: %s must be a number in %g..%g (got '%s')\n", name, lo,
                hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_seed(const char *v, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || end == v || *end != '\0' || v[0] == '-') {
        fprintf(stderr, "ariadned generate: --seed must be a non-negative integer (got '%s')\n", v);
        return -1;
    }
    *out = x;
    return 0;
}

/* Matches "--name VALUE" or "--name=VALUE"; advances *i past the value. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ariadned generate: %s needs a value\n", name);
        *value = NULL;
        return 1;
    }
    *value = argv[++*i];
    return 1;
}

static int parse_args(int argc, char **argv, gen_args *g)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            g->help = 1;
        } else if (strcmp(a, "--version") == 0) {
            g->version = 1;
        } else if (strcmp(a, "--sorted") == 0) {
            g->opt.sorted = 1;
        } else if (option_value(argc, argv, &i, "--kind", &v)) {
            if (!v) /* "tasks": checked by cmd_generate */
                return -1;
        } else if (option_value(argc, argv, &i, "--out", &v)) {
            if (!v || !*v)
                return v ? (fprintf(stderr, "ariadned generate: empty --out\n"), -1) : -1;
            g->opt.out_dir = v;
        } else if (option_value(argc, argv, &i, "--tiles", &v)) {
            if (!v || parse_int("--tiles", v, 1, CHOL_MAX_TILES, &g->opt.tiles))
                return -1;
        } else if (option_value(argc, argv, &i, "--block-size", &v)) {
            if (!v || parse_int("--block-size", v, 16, 8192, &g->opt.block_size))
                return -1;
        } else if (option_value(argc, argv, &i, "--nodes", &v)) {
            if (!v || parse_int("--nodes", v, 1, CHOL_MAX_NODES, &g->opt.nodes))
                return -1;
        } else if (option_value(argc, argv, &i, "--cpus", &v)) {
            if (!v || parse_int("--cpus", v, 0, CHOL_MAX_CPUS, &g->cpus))
                return -1;
        } else if (option_value(argc, argv, &i, "--gpus", &v)) {
            if (!v || parse_int("--gpus", v, 0, CHOL_MAX_GPUS, &g->gpus))
                return -1;
        } else if (option_value(argc, argv, &i, "--seed", &v)) {
            if (!v || parse_seed(v, &g->opt.seed))
                return -1;
        } else if (option_value(argc, argv, &i, "--slow-factor", &v)) {
            if (!v || parse_double("--slow-factor", v, 0.1, 100.0, &g->slow_factor))
                return -1;
        } else if (option_value(argc, argv, &i, "--slow-nodes", &v)) {
            if (!v)
                return -1;
            g->slow_list = v;
        } else if (option_value(argc, argv, &i, "--fewer-workers", &v)) {
            if (!v)
                return -1;
            g->fewer_list = v;
        } else {
            fprintf(stderr, "ariadned generate: unknown option '%s' (see --help)\n", a);
            return -1;
        }
    }
    return 0;
}

/* Splits "a:b:c" into at most 3 parts; returns the count or -1. */
static int split_item(char *item, char *parts[3])
{
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(item, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        if (n == 3)
            return -1;
        parts[n++] = p;
    }
    return n;
}

/* Applies "--slow-nodes" (slow = 1) or "--fewer-workers" (slow = 0). */
static int apply_list(gen_args *g, const char *list, int slow)
{
    const char *opt = slow ? "--slow-nodes" : "--fewer-workers";
    char *copy = strdup(list);
    if (!copy)
        return -1;
    int rc = 0;
    char *save = NULL;
    int items = 0;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0;
         item = strtok_r(NULL, ",", &save)) {
        char *parts[3];
        int n = split_item(item, parts);
        int node = 0;
        items++;
        if (n < 1 || parse_int(opt, parts[0], 0, g->opt.nodes - 1, &node) != 0) {
            fprintf(stderr, "ariadned generate: %s: bad item (node must be in 0..%d)\n", opt,
                    g->opt.nodes - 1);
            rc = -1;
            break;
        }
        chol_node_cfg *c = &g->opt.node_cfg[node];
        if (slow) {
            c->slowdown = g->slow_factor;
            if (n > 2 || (n == 2 && parse_double(opt, parts[1], 0.1, 100.0, &c->slowdown) != 0))
                rc = -1;
        } else {
            if (n < 2 || n > 3 || parse_int(opt, parts[1], 0, CHOL_MAX_CPUS, &c->cpus) != 0 ||
                (n == 3 && parse_int(opt, parts[2], 0, CHOL_MAX_GPUS, &c->gpus) != 0)) {
                fprintf(stderr, "ariadned generate: %s items are NODE:CPUS[:GPUS]\n", opt);
                rc = -1;
            }
        }
    }
    if (rc == 0 && items == 0) {
        fprintf(stderr, "ariadned generate: %s needs at least one item\n", opt);
        rc = -1;
    }
    free(copy);
    return rc;
}

static char *join_command(int argc, char **argv)
{
    size_t n = strlen("ariadned") + 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    strcpy(s, "ariadned");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static void print_summary(const chol_options *o, const chol_summary *u)
{
    int64_t span = u->last_end_ps - u->first_start_ps;
    printf("{\"out\": \"");
    for (const char *p = o->out_dir; *p; p++) {
        if (*p == '"' || *p == '\\')
            putchar('\\');
        if ((unsigned char)*p >= 0x20)
            putchar(*p);
    }
    printf("\", \"simulated\": true, \"tasks\": %llu, \"dependencies\": %llu, "
           "\"makespan_ms\": %lld.%06lld}\n",
           (unsigned long long)u->tasks, (unsigned long long)(u->deps_intra + u->deps_cross),
           (long long)(span / 1000000000LL), (long long)(span % 1000000000LL / 1000));
}

/* --kind pdes hands the whole command to cmd_generate_pdes.c; --kind tasks
 * (the default) is the Cholesky simulation below. */
static const char *kind_of(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--kind=", 7) == 0)
            return argv[i] + 7;
        if (strcmp(argv[i], "--kind") == 0)
            return i + 1 < argc ? argv[i + 1] : "";
    }
    return "tasks";
}

int cmd_generate(int argc, char **argv)
{
    const char *kind = kind_of(argc, argv);
    if (strcmp(kind, "pdes") == 0)
        return cmd_generate_pdes(argc - 1, argv + 1);
    if (strcmp(kind, "tasks") != 0) {
        fprintf(stderr, "ariadned generate: --kind must be tasks (the default) or pdes, got '%s'\n", kind);
        return 2;
    }
    gen_args g;
    memset(&g, 0, sizeof g);
    g.opt.tiles = 12;
    g.opt.block_size = 960;
    g.opt.nodes = 2;
    g.opt.seed = 1;
    g.cpus = 4;
    g.gpus = 1;
    g.slow_factor = 2.0;
    if (parse_args(argc, argv, &g) != 0)
        return 2;
    if (g.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (g.version) {
        printf("ariadned %s\n", ARIADNE_VERSION);
        return 0;
    }
    if (!g.opt.out_dir) {
        fprintf(stderr, "ariadned generate: --out DIR is required (see --help)\n");
        return 2;
    }
    g.opt.node_cfg = calloc((size_t)g.opt.nodes, sizeof *g.opt.node_cfg);
    if (!g.opt.node_cfg) {
        fprintf(stderr, "ariadned generate: out of memory\n");
        return 1;
    }
    for (int i = 0; i < g.opt.nodes; i++) {
        g.opt.node_cfg[i].cpus = g.cpus;
        g.opt.node_cfg[i].gpus = g.gpus;
        g.opt.node_cfg[i].slowdown = 1.0;
    }
    int rc = 0;
    if ((g.slow_list && apply_list(&g, g.slow_list, 1) != 0) ||
        (g.fewer_list && apply_list(&g, g.fewer_list, 0) != 0))
        rc = 2;
    char *cmd = rc == 0 ? join_command(argc, argv) : NULL;
    g.opt.command_line = cmd;
    if (rc == 0) {
        ari_error err;
        chol_summary sum;
        ari_error_clear(&err);
        if (chol_sim_run(&g.opt, &sum, &err) != 0) {
            fprintf(stderr, "ariadned generate: %s\n", err.message);
            rc = strcmp(err.code, ARI_E_INVALID_PARAMETER) == 0 ? 2 : 1;
        } else {
            print_summary(&g.opt, &sum);
        }
    }
    free(cmd);
    free(g.opt.node_cfg);
    return rc;
}
