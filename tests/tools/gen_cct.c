/* gen_cct.c: writes a generated calling context tree measured on many
 * ranks, for the profile benchmark (tests/bench/bench_profiles.sh), as a
 * Caliper json-split file (the default) or a Hatchet literal JSON.
 *
 *   gen_cct [--nodes N] [--ranks R] [--format split|literal] [--seed S] --out FILE
 *
 * The tree: node i > 0 hangs from a node among the previous few hundred
 * (a bushy tree about 10-20 deep); exclusive time per node and rank is a
 * node base time scaled by a per-rank factor and noise; the inclusive time
 * is its subtree sum, so the file is consistent as Caliper writes it. Rows
 * are written rank by rank ([inclusive, rank, exclusive, node]). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void) /* xorshift64 */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double uniform(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_cct [--nodes N] [--ranks R] [--format split|literal] [--seed S] --out FILE\n");
    return 2;
}

static void exclusive_of_rank(int64_t n, const double *base, int r, double *exc)
{
    double rank_factor = 1.0 + 0.2 * (double)(r % 7) / 7.0;
    for (int64_t i = 0; i < n; i++)
        exc[i] = base[i] * rank_factor * (0.9 + 0.2 * uniform());
}

static void inclusive(int64_t n, const int64_t *parent, const double *exc, double *inc)
{
    memcpy(inc, exc, (size_t)n * sizeof *inc);
    for (int64_t i = n - 1; i > 0; i--)
        inc[parent[i]] += inc[i];
}

static int write_split(FILE *out, int64_t n, int ranks, const int64_t *parent, const double *base)
{
    double *exc = malloc((size_t)n * sizeof *exc), *inc = malloc((size_t)n * sizeof *inc);
    if (!exc || !inc)
        return -1;
    fputs("{\n\"data\": [\n", out);
    for (int r = 0; r < ranks; r++) {
        exclusive_of_rank(n, base, r, exc);
        inclusive(n, parent, exc, inc);
        for (int64_t i = 0; i < n; i++)
            fprintf(out, "%s[%.9g,%d,%.9g,%" PRId64 "]", r == 0 && i == 0 ? "" : ",\n", inc[i], r, exc[i], i);
    }
    fputs("\n],\n\"columns\": [\"inclusive#sum#time.duration\", \"mpi.rank\", \"sum#time.duration\", \"path\"],\n", out);
    fputs("\"column_metadata\": [{\"is_value\": true}, {\"is_value\": true}, {\"is_value\": true}, {\"is_value\": false}],\n", out);
    fputs("\"nodes\": [\n", out);
    for (int64_t i = 0; i < n; i++) {
        if (parent[i] < 0)
            fprintf(out, "{\"label\": \"main\", \"column\": \"path\"}");
        else
            fprintf(out, ",\n{\"label\": \"f%" PRId64 "\", \"column\": \"path\", \"parent\": %" PRId64 "}", i % 5000, parent[i]);
    }
    fprintf(out, "\n],\n\"generator\": \"gen_cct\", \"mpi.world.size\": %d\n}\n", ranks);
    free(exc);
    free(inc);
    return 0;
}

/* Literal: per-rank arrays in each node; written depth first. */
static int write_literal(FILE *out, int64_t n, int ranks, const int64_t *parent, const double *base)
{
    double *exc = malloc((size_t)n * ranks * sizeof *exc), *inc = malloc((size_t)n * ranks * sizeof *inc);
    int64_t *first = malloc((size_t)n * sizeof *first), *next = malloc((size_t)n * sizeof *next);
    int64_t *last = malloc((size_t)n * sizeof *last), *stack = malloc((size_t)n * 2 * sizeof *stack);
    double *e = malloc((size_t)n * sizeof *e), *c = malloc((size_t)n * sizeof *c);
    if (!exc || !inc || !first || !next || !last || !stack || !e || !c)
        return -1;
    for (int r = 0; r < ranks; r++) {
        exclusive_of_rank(n, base, r, e);
        inclusive(n, parent, e, c);
        for (int64_t i = 0; i < n; i++) {
            exc[i * ranks + r] = e[i];
            inc[i * ranks + r] = c[i];
        }
    }
    for (int64_t i = 0; i < n; i++)
        first[i] = next[i] = last[i] = -1;
    for (int64_t i = 1; i < n; i++) {
        if (last[parent[i]] < 0)
            first[parent[i]] = i;
        else
            next[last[parent[i]]] = i;
        last[parent[i]] = i;
    }
    /* iterative: stack entries are node*2 (open) or node*2+1 (close) */
    int64_t top = 0;
    stack[top++] = 0;
    fputs("[", out);
    while (top > 0) {
        int64_t v = stack[--top], i = v / 2;
        if (v & 1) {
            fputs("]}", out);
            if (next[i] >= 0)
                fputs(",", out);
            continue;
        }
        fprintf(out, "{\"frame\": {\"name\": \"%s%" PRId64 "\", \"type\": \"function\"}, \"metrics\": {\"time (inc)\": [",
                i ? "f" : "main", i ? i % 5000 : 0);
        for (int r = 0; r < ranks; r++)
            fprintf(out, "%s%.9g", r ? "," : "", inc[i * ranks + r]);
        fputs("], \"time\": [", out);
        for (int r = 0; r < ranks; r++)
            fprintf(out, "%s%.9g", r ? "," : "", exc[i * ranks + r]);
        fputs("]}, \"children\": [", out);
        stack[top++] = 2 * i + 1;
        int64_t k = 0;
        for (int64_t ch = first[i]; ch >= 0; ch = next[ch])
            k++;
        int64_t at = top + k;
        for (int64_t ch = first[i]; ch >= 0; ch = next[ch])
            stack[--at] = 2 * ch;
        top += k;
    }
    fputs("]\n", out);
    free(exc), free(inc), free(first), free(next), free(last), free(stack), free(e), free(c);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t nodes = 100000;
    int ranks = 1024;
    const char *format = "split", *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--nodes") == 0)
            nodes = strtoll(argv[++i], NULL, 10);
        else if (i + 1 < argc && strcmp(argv[i], "--ranks") == 0)
            ranks = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--format") == 0)
            format = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
            rng_state = strtoull(argv[++i], NULL, 10) | 1;
        else if (i + 1 < argc && strcmp(argv[i], "--out") == 0)
            path = argv[++i];
        else
            return usage();
    }
    if (!path || nodes < 1 || ranks < 1 || (strcmp(format, "split") != 0 && strcmp(format, "literal") != 0))
        return usage();
    int64_t *parent = malloc((size_t)nodes * sizeof *parent);
    double *base = malloc((size_t)nodes * sizeof *base);
    if (!parent || !base)
        return 1;
    parent[0] = -1;
    base[0] = 1000;
    for (int64_t i = 1; i < nodes; i++) {
        int64_t window = i < 300 ? i : 300;
        parent[i] = i - 1 - (int64_t)(rng() % (uint64_t)window);
        base[i] = 10 + 1000 * uniform() * uniform();
    }
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(out, buf, _IOFBF, sizeof buf);
    int rc = strcmp(format, "split") == 0 ? write_split(out, nodes, ranks, parent, base)
                                          : write_literal(out, nodes, ranks, parent, base);
    if (fclose(out) != 0 || rc != 0) {
        fprintf(stderr, "gen_cct: writing %s failed\n", path);
        return 1;
    }
    free(parent);
    free(base);
    return 0;
}
