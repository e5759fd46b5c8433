/* test_supergraph.c: CallFlow super graphs (src/analysis/supergraph.c)
 * and the CCT operations under them (src/analysis/cct_ops.c).
 *
 * CCTs built by hand: the Sankey example of the thesis' Figure 4.2 (node
 * values 40/20/30/35 and LIB1's outgoing edges summing to 65 under a max
 * collapse), cycles along a path and across paths, splits by entry
 * function, by caller and into call sites, rank brushing, module maps with
 * regular expressions (read from JSON by server/module_map_json.c), and
 * the filter as a view. Random trees check flow
 * conservation and acyclicity under every combination. When the shared
 * Hatchet test profiles and the profile readers are present, the same
 * checks run on them through the real import.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "module_map_json.h" /* server/: the JSON form of a module map */

#if __has_include("store/profile_queries.h")
#include "import/import.h"
#include "store/profile_queries.h"
#include "test_helpers.h"
#define HAVE_PROFILE_LOADER 1
#endif

/* ---- hand-made CCTs ----------------------------------------------------------------- */

#define MAXN 256
#define MAXP 16

typedef struct hand {
    ari_cct c;
    int64_t parent[MAXN];
    const char *name[MAXN], *module[MAXN], *file[MAXN], *kind[MAXN];
    int line[MAXN];
    int rank[MAXP], thread[MAXP];
    ari_cct_metric metrics[2];
    double *values[2];
} hand;

/* A CCT with exclusive times only (metric 0, "time"); the inclusive ones
 * are derived by ari_cct_times_init. exc is [n * np] (NAN: not measured). */
static hand *hand_new(int n, int np, const int64_t *parent, const char *const *name,
                      const char *const *module, const double *exc)
{
    hand *h = calloc(1, sizeof *h);
    assert_non_null(h);
    assert_true(n <= MAXN && np <= MAXP);
    for (int i = 0; i < n; i++) {
        h->parent[i] = parent[i];
        h->name[i] = name[i];
        h->module[i] = module ? module[i] : "";
        h->file[i] = "";
        h->kind[i] = "function";
    }
    for (int p = 0; p < np; p++)
        h->rank[p] = p;
    h->values[0] = malloc((size_t)(n * np + 1) * sizeof(double));
    memcpy(h->values[0], exc, (size_t)(n * np) * sizeof(double));
    h->metrics[0] = (ari_cct_metric){"time", "usec", 0, -1};
    h->c = (ari_cct){.nnodes = n, .parent = h->parent, .name = h->name, .module = h->module,
                     .file = h->file, .line = h->line, .kind = h->kind, .nprocs = np,
                     .proc_rank = h->rank, .proc_thread = h->thread, .nmetrics = 1,
                     .metrics = h->metrics, .values = (const double *const *)h->values};
    return h;
}

static void hand_free(hand *h)
{
    free(h->values[0]);
    free(h->values[1]);
    free(h);
}

/* Builds a super graph (no filter unless keep) and its mean view. */
typedef struct built {
    ari_cct_times t;
    ari_supergraph g;
    ari_sg_view v;
} built;

static void build(const ari_cct *c, const unsigned char *keep, const ari_sg_params *p, built *b)
{
    ari_error err = {0};
    int m = ari_cct_metric_find(c, "time");
    assert_true(m >= 0);
    assert_int_equal(ari_cct_times_init(&b->t, c, m, &err), 0);
    if (ari_supergraph_build(c, &b->t, keep, p, &b->g, &err) != 0)
        fail_msg("build: %s: %s", err.code, err.message);
    assert_int_equal(ari_sg_view_compute(&b->g, NULL, ARI_COLLAPSE_MEAN, 20, &b->v, &err), 0);
}

static void built_free(built *b)
{
    ari_sg_view_free(&b->v);
    ari_supergraph_free(&b->g);
    ari_cct_times_free(&b->t);
}

static void assert_flow(const ari_supergraph *g, const ari_sg_view *v)
{
    char msg[512];
    if (ari_sg_check_flow(g, v, 1e-9, msg, sizeof msg) != 0)
        fail_msg("flow: %s", msg);
}

static int64_t node_of(const ari_supergraph *g, const char *id)
{
    int64_t j = ari_supergraph_find(g, id);
    if (j < 0) {
        for (int64_t k = 0; k < g->nnodes; k++)
            print_message("  have node %s\n", g->nodes[k].id);
        fail_msg("no node %s", id);
    }
    return j;
}

static double edge_value(const ari_supergraph *g, const ari_sg_view *v, const char *src, const char *dst)
{
    int64_t s = node_of(g, src), t = node_of(g, dst);
    for (int64_t e = 0; e < g->nedges; e++) {
        if (g->edges[e].source == s && g->edges[e].target == t)
            return v->weight[e];
    }
    fail_msg("no edge %s -> %s", src, dst);
    return NAN;
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* ---- Figure 4.2 ------------------------------------------------------------------------ */

/* LIB1 foo calls LIB2 bar (which calls LIB3 corge), LIB3 baz and LIB4 qux.
 * Three processes stand for the figure's three runs: under the max
 * collapse the nodes are 40, 20, 30 and 35 and LIB1's outgoing edges 20, 10
 * and 35, which sum to 65 > 40; under the mean, flow is conserved. */
static void test_figure_4_2(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 1, 0, 0};
    const char *name[] = {"foo", "bar", "corge", "baz", "qux"};
    const char *module[] = {"LIB1", "LIB2", "LIB3", "LIB3", "LIB4"};
    const double exc[] = {
        0, 5, 5,        /* foo */
        NAN, 0, 5,      /* bar: not called by process 0 */
        NAN, 20, 5,     /* corge */
        5, 10, 10,      /* baz */
        35, 5, 10,      /* qux */
    };
    hand *h = hand_new(5, 3, parent, name, module, exc);
    ari_sg_params p = {.group_by = ARI_GROUP_MODULE};
    built b;
    build(&h->c, NULL, &p, &b);
    assert_int_equal(b.g.nnodes, 4);
    assert_int_equal(b.g.nedges, 4);
    assert_flow(&b.g, &b.v);

    ari_sg_view mx;
    ari_error err = {0};
    assert_int_equal(ari_sg_view_compute(&b.g, NULL, ARI_COLLAPSE_MAX, 20, &mx, &err), 0);
    assert_near(mx.inc[node_of(&b.g, "LIB1#0")], 40);
    assert_near(mx.inc[node_of(&b.g, "LIB2#0")], 20);
    assert_near(mx.inc[node_of(&b.g, "LIB3#0")], 30);
    assert_near(mx.inc[node_of(&b.g, "LIB4#0")], 35);
    double e12 = edge_value(&b.g, &mx, "LIB1#0", "LIB2#0");
    double e13 = edge_value(&b.g, &mx, "LIB1#0", "LIB3#0");
    double e14 = edge_value(&b.g, &mx, "LIB1#0", "LIB4#0");
    assert_near(e12, 20);
    assert_near(e13, 10);
    assert_near(e14, 35);
    assert_near(e12 + e13 + e14, 65);
    /* the max view does not conserve flow: that is why the ensemble Sankey
     * scales both ends of an edge (spec 2.12) */
    char msg[256];
    assert_int_not_equal(ari_sg_check_flow(&b.g, &mx, 1e-9, msg, sizeof msg), 0);
    /* mean view: LIB1 = (40 + 40 + 35) / 3, exclusive (0 + 5 + 5) / 3 */
    assert_near(b.v.inc[node_of(&b.g, "LIB1#0")], 115.0 / 3);
    assert_near(b.v.exc[node_of(&b.g, "LIB1#0")], 10.0 / 3);
    /* LIB3 has two entry functions, baz and corge, and two callers */
    const ari_sg_node *lib3 = &b.g.nodes[node_of(&b.g, "LIB3#0")];
    assert_int_equal(lib3->nentries, 2);
    assert_string_equal(lib3->entries[0].name, "corge"); /* (0 + 20 + 5) / 3 > 25 / 3 */
    assert_int_equal(lib3->ncallers, 2);
    assert_int_equal(lib3->level, 2);
    ari_sg_view_free(&mx);
    built_free(&b);
    hand_free(h);
}

/* ---- cycles ------------------------------------------------------------------------------ */

/* main -> lib1:a -> lib2:b -> lib1:c (Figure 3.2's cycle along a path) and
 * main -> A:x -> B:y, main -> B:z -> A:w (a cycle across paths). */
static void test_cycles_are_broken_by_duplicates(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 1, 2, 0, 4, 0, 6};
    const char *name[] = {"main", "a", "b", "c", "x", "y", "z", "w"};
    const char *module[] = {"app", "lib1", "lib2", "lib1", "A", "B", "B", "A"};
    double exc[8];
    for (int i = 0; i < 8; i++)
        exc[i] = i + 1;
    hand *h = hand_new(8, 1, parent, name, module, exc);
    ari_sg_params p = {.group_by = ARI_GROUP_MODULE};
    built b;
    build(&h->c, NULL, &p, &b);
    assert_flow(&b.g, &b.v); /* includes acyclicity */
    int64_t l1 = node_of(&b.g, "lib1#0"), l1b = node_of(&b.g, "lib1#1");
    assert_int_equal(b.g.nodes[l1b].kind, ARI_SG_DUPLICATE);
    assert_string_equal(b.g.nodes[l1b].label, "lib1");
    assert_near(b.v.inc[l1], 2 + 3 + 4);
    assert_near(b.v.inc[l1b], 4);
    assert_near(edge_value(&b.g, &b.v, "lib2#0", "lib1#1"), 4);
    /* A and B call each other on different paths: one of them is duplicated */
    assert_true(b.g.duplicates >= 1);
    assert_int_equal(b.g.dropped_edges, 0);
    int64_t a = node_of(&b.g, "A#0"), bb = node_of(&b.g, "B#0");
    assert_true(b.g.nodes[a].label && b.g.nodes[bb].label);
    assert_int_equal(b.g.nnodes, 7); /* app, lib1 x2, lib2, A, B, and a duplicate */
    built_free(&b);
    hand_free(h);
}

/* ---- splits ------------------------------------------------------------------------------- */

/* Figure 3.2(c): lib5 entered through f (twice) and g: split by entry
 * gives lib5-f and lib5-g; MPI called by A and B: split by caller. */
static void test_splits(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 1, 2, 0, 4, 0, 6, 1, 6};
    const char *name[] = {"main", "a", "f", "f2", "b", "f", "c", "g", "MPI_Send", "MPI_Recv"};
    const char *module[] = {"app", "A", "lib5", "lib5", "B", "lib5", "C", "lib5", "MPI", "MPI"};
    double exc[10];
    for (int i = 0; i < 10; i++)
        exc[i] = 10 * (i + 1);
    hand *h = hand_new(10, 1, parent, name, module, exc);
    ari_sg_split split_entry = {"lib5#0", ARI_SPLIT_ENTRY};
    ari_sg_params p = {.group_by = ARI_GROUP_MODULE, .splits = &split_entry, .nsplits = 1};
    built b;
    build(&h->c, NULL, &p, &b);
    assert_flow(&b.g, &b.v);
    assert_int_equal(ari_supergraph_find(&b.g, "lib5#0"), -1); /* every component went */
    int64_t sf = node_of(&b.g, "lib5#0-f"), sg = node_of(&b.g, "lib5#0-g");
    assert_int_equal(b.g.nodes[sf].kind, ARI_SG_SPLIT);
    assert_string_equal(b.g.nodes[sf].label, "lib5-f");
    assert_near(b.v.inc[sf], 30 + 40 + 60); /* f (with f2) under a, f under b */
    assert_near(b.v.exc[sf], 30 + 40 + 60);
    assert_near(b.v.inc[sg], 80);
    assert_int_equal(b.g.nodes[sf].ncallers, 2);
    built_free(&b);

    /* by caller: MPI (called from A and C) becomes MPI#0-A#0 and MPI#0-C#0 */
    ari_sg_split split_caller = {"MPI#0", ARI_SPLIT_CALLER};
    p.splits = &split_caller;
    build(&h->c, NULL, &p, &b);
    assert_flow(&b.g, &b.v);
    assert_near(b.v.inc[node_of(&b.g, "MPI#0-A#0")], 90);
    assert_near(b.v.inc[node_of(&b.g, "MPI#0-C#0")], 100);
    assert_string_equal(b.g.nodes[node_of(&b.g, "MPI#0-C#0")].label, "MPI-C");
    built_free(&b);

    /* splits compose: split lib5 by entry, then lib5-f by caller; then
     * expand MPI into its call sites */
    ari_sg_split ops[] = {{"lib5#0", ARI_SPLIT_ENTRY}, {"lib5#0-f", ARI_SPLIT_CALLER},
                          {"MPI#0", ARI_SPLIT_CALLSITE}};
    p.splits = ops;
    p.nsplits = 3;
    build(&h->c, NULL, &p, &b);
    assert_flow(&b.g, &b.v);
    assert_near(b.v.inc[node_of(&b.g, "lib5#0-f-A#0")], 70);
    assert_near(b.v.inc[node_of(&b.g, "lib5#0-f-B#0")], 60);
    assert_near(b.v.inc[node_of(&b.g, "MPI#0=MPI_Send")], 90);
    assert_string_equal(b.g.nodes[node_of(&b.g, "MPI#0=MPI_Recv")].label, "MPI_Recv");
    built_free(&b);

    /* an unknown id is a clear error */
    ari_sg_split bad = {"nope#0", ARI_SPLIT_ENTRY};
    p.splits = &bad;
    p.nsplits = 1;
    ari_cct_times t;
    ari_supergraph g;
    ari_error err = {0};
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
    assert_int_equal(ari_supergraph_build(&h->c, &t, NULL, &p, &g, &err), -1);
    assert_string_equal(err.code, "invalid_parameter");
    assert_non_null(strstr(err.message, "nope#0"));
    ari_cct_times_free(&t);
    hand_free(h);
}

/* ---- rank brushing ------------------------------------------------------------------------ */

static void test_rank_brushing(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 0};
    const char *name[] = {"main", "compute", "MPI_Wait"};
    const char *module[] = {"app", "app", "MPI"};
    /* ranks 0, 1 compute a lot and wait little; ranks 2, 3 the reverse */
    const double exc[] = {1, 1, 1, 1, 90, 80, 10, 20, 5, 15, 85, 75};
    hand *h = hand_new(3, 4, parent, name, module, exc);
    ari_sg_params p = {.group_by = ARI_GROUP_MODULE};
    built b;
    build(&h->c, NULL, &p, &b);
    unsigned char sel[4] = {1, 1, 0, 0}, rest[4] = {0, 0, 1, 1};
    ari_sg_view vs, vr;
    ari_error err = {0};
    assert_int_equal(ari_sg_view_compute(&b.g, sel, ARI_COLLAPSE_MEAN, 4, &vs, &err), 0);
    assert_int_equal(ari_sg_view_compute(&b.g, rest, ARI_COLLAPSE_MEAN, 4, &vr, &err), 0);
    assert_int_equal(vs.nselected, 2);
    assert_flow(&b.g, &vs);
    assert_flow(&b.g, &vr);
    int64_t mpi = node_of(&b.g, "MPI#0"), app = node_of(&b.g, "app#0");
    assert_near(vs.exc[mpi], 10);
    assert_near(vr.exc[mpi], 80);
    assert_near(vs.exc[mpi] - vr.exc[mpi], -70);
    assert_near(vs.exc[app] - vr.exc[app], 86 - 16);
    /* histograms: 4 bins over the selected processes' inclusive values */
    int total = 0;
    for (int k = 0; k < 4; k++)
        total += vs.hist[mpi * 4 + k];
    assert_int_equal(total, 2);
    assert_near(vs.hist_min[mpi], 5);
    assert_near(vs.hist_max[mpi], 15);
    ari_sg_view_free(&vs);
    ari_sg_view_free(&vr);
    built_free(&b);
    hand_free(h);
}

/* ---- module maps ---------------------------------------------------------------------------- */

static void test_module_map(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_module_map *m = ari_module_map_from_json(
        "{\"MPI\": [\"^MPI_\", \"^PMPI_\"], \"Lulesh\": \"^(Calc|Lagrange)\"}", &err);
    assert_non_null(m);
    assert_int_equal(ari_module_map_count(m), 3);
    assert_string_equal(ari_module_map_match(m, "PMPI_Wait"), "MPI");
    assert_string_equal(ari_module_map_match(m, "CalcForce"), "Lulesh");
    assert_null(ari_module_map_match(m, "main"));

    const int64_t parent[] = {-1, 0, 1, 1, 0, 4};
    const char *name[] = {"main", "LagrangeNodal", "CalcForce", "MPI_Wait", "MPI_Allreduce", "PMPI_Allreduce"};
    const double exc[] = {1, 2, 3, 4, 5, 6};
    hand *h = hand_new(6, 1, parent, name, NULL, exc);
    ari_sg_params p = {.group_by = ARI_GROUP_MAP, .map = m};
    built b;
    build(&h->c, NULL, &p, &b);
    assert_flow(&b.g, &b.v);
    assert_int_equal(b.g.nnodes, 3); /* main (unmapped: its name), Lulesh, MPI */
    assert_near(b.v.inc[node_of(&b.g, "Lulesh#0")], 2 + 3 + 4);
    assert_near(b.v.exc[node_of(&b.g, "Lulesh#0")], 5);
    assert_near(b.v.inc[node_of(&b.g, "MPI#0")], 4 + 5 + 6);
    /* MPI_Wait (under Lulesh) and MPI_Allreduce (under main) are the first
     * MPI on their paths: one supernode */
    assert_near(edge_value(&b.g, &b.v, "Lulesh#0", "MPI#0"), 4);
    assert_string_equal(b.g.nodes[node_of(&b.g, "main#0")].module, "main");
    built_free(&b);
    ari_module_map_free(m);

    /* array form keeps order: the first matching rule wins */
    m = ari_module_map_from_json("[{\"module\":\"Wait\",\"pattern\":\"Wait$\"},"
                                 "{\"module\":\"MPI\",\"pattern\":\"^MPI_\"}]", &err);
    assert_non_null(m);
    assert_string_equal(ari_module_map_match(m, "MPI_Wait"), "Wait");
    ari_module_map_free(m);

    /* bad input is a clear error */
    assert_null(ari_module_map_from_json("{\"MPI\": \"(unclosed\"}", &err));
    assert_string_equal(err.code, "invalid_parameter");
    assert_non_null(strstr(err.message, "(unclosed"));
    assert_null(ari_module_map_from_json("not json", &err));
    assert_null(ari_module_map_from_json("{\"MPI\": 3}", &err));
    assert_null(ari_module_map_from_json("{}", &err));
    assert_null(ari_module_map_from_json("[{\"pattern\":\"x\"}]", &err));

    /* group_by=map without a map */
    ari_cct_times t;
    ari_supergraph g;
    ari_sg_params nomap = {.group_by = ARI_GROUP_MAP};
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
    assert_int_equal(ari_supergraph_build(&h->c, &t, NULL, &nomap, &g, &err), -1);
    ari_cct_times_free(&t);
    hand_free(h);
}

/* ---- the filter is a view ---------------------------------------------------------------------- */

static void test_filter_is_a_view(void **state)
{
    (void)state;
    /* main 1000 exclusive; big 500; tiny 0.5 (0.025% of the root) called
     * twice; sub 0.3 under tiny; shared: 0.5 under main and 3 under big:
     * each instance is small but the total passes 0.1% */
    const int64_t parent[] = {-1, 0, 0, 1, 3, 0, 1};
    const char *name[] = {"main", "big", "tiny", "tiny", "sub", "shared", "shared"};
    const char *module[] = {"m", "m", "t", "t", "t", "s", "s"};
    const double exc[] = {1000, 500, 0.5, 0.5, 0.3, 0.5, 3};
    hand *h = hand_new(7, 1, parent, name, module, exc);
    const double *before = h->values[0];
    double copy[7];
    memcpy(copy, before, sizeof copy);
    ari_error err = {0};
    ari_cct_times t;
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
    assert_near(t.inc[0], 1000 + 503.8 + 0.5 + 0.5);
    unsigned char keep[7];
    int64_t kept = 0;
    ari_cct_filter f = {.fraction = 0.001};
    assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, &kept, &err), 0);
    /* threshold 1.5048: tiny's total (0.5 + 0.8) fails, shared's (0.5 + 3) passes */
    const unsigned char want[] = {1, 1, 0, 0, 0, 1, 1};
    assert_memory_equal(keep, want, 7);
    assert_int_equal(kept, 4);
    assert_memory_equal(h->values[0], copy, sizeof copy); /* data untouched */

    ari_sg_params p = {.group_by = ARI_GROUP_MODULE};
    built b;
    build(&h->c, keep, &p, &b);
    assert_flow(&b.g, &b.v); /* inc - out = exc + filtered */
    int64_t m = node_of(&b.g, "m#0");
    assert_near(b.v.filtered[m], 0.5 + 0.8);
    assert_near(b.v.inc[m], 1504.8);
    assert_int_equal(b.g.kept, 4);
    assert_int_equal(b.g.group[2], -1);
    built_free(&b);

    /* repopulation: a lower threshold brings tiny back */
    f.fraction = 0.0001;
    assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, &kept, &err), 0);
    assert_int_equal(kept, 7);
    /* exclusive mode: tiny's exclusive total 1.0 fails, sub (0.3) fails */
    f.fraction = 0.001;
    f.by_exclusive = 1;
    assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, &kept, &err), 0);
    assert_int_equal(kept, 4);
    /* recursion is not counted twice: rec(10) -> rec(9) gives T(rec) = 19 */
    ari_cct_times_free(&t);
    hand_free(h);

    const int64_t rp[] = {-1, 0, 1};
    const char *rn[] = {"main", "rec", "rec"};
    const double re[] = {9981, 1, 18};
    h = hand_new(3, 1, rp, rn, NULL, re);
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
    f = (ari_cct_filter){.fraction = 0.00185}; /* threshold 18.5 */
    assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, &kept, &err), 0);
    assert_int_equal(kept, 3);
    f.fraction = 0.00195; /* 19.5: rec's 19 (not 19 + 18) fails */
    assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, &kept, &err), 0);
    assert_int_equal(kept, 1);
    ari_cct_times_free(&t);
    hand_free(h);
}

/* ---- derived metrics and statistics ------------------------------------------------------------ */

static void test_cct_ops(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 0};
    const char *name[] = {"main", "a", "b"};
    const double exc[] = {1, 2, 5, 3, NAN, 1};
    hand *h = hand_new(3, 2, parent, name, NULL, exc);
    ari_error err = {0};
    ari_cct_times t;
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
    assert_int_equal(t.inc_metric, -1);
    assert_near(t.inc[0], 1 + 5 + 0);
    assert_near(t.inc[1], 2 + 3 + 1);
    /* and back: exclusive from inclusive */
    double inc_copy[6];
    memcpy(inc_copy, t.inc, sizeof inc_copy);
    h->values[1] = malloc(sizeof inc_copy);
    memcpy(h->values[1], inc_copy, sizeof inc_copy);
    h->metrics[1] = (ari_cct_metric){"time (inc)", "usec", 1, -1};
    h->c.nmetrics = 2;
    ari_cct_times t2;
    assert_int_equal(ari_cct_metric_find(&h->c, NULL), 1);
    assert_int_equal(ari_cct_metric_find(&h->c, "exc"), 0);
    assert_int_equal(ari_cct_metric_find(&h->c, "nope"), -1);
    assert_int_equal(ari_cct_times_init(&t2, &h->c, 1, &err), 0);
    assert_near(t2.exc[0], 1);
    assert_near(t2.exc[1], 2);
    assert_true(isnan(t2.exc[4])); /* not measured stays not measured */
    ari_cct_times_free(&t2);

    ari_node_stats st;
    const double row[] = {4, NAN, 1, 3};
    assert_int_equal(ari_node_stats_compute(row, 4, NULL, &st), 0);
    assert_int_equal(st.measured, 3);
    assert_near(st.mean, 2);
    assert_near(st.median, 2);
    assert_near(st.min, 0);
    assert_near(st.max, 4);
    int counts[3];
    double lo, hi;
    const double v[] = {0, 1, 2, 3, 3, 3};
    ari_histogram(v, 6, NULL, 3, counts, &lo, &hi);
    assert_int_equal(counts[0], 1);
    assert_int_equal(counts[1], 1);
    assert_int_equal(counts[2], 4); /* the last bin is closed */
    const double same[] = {7, 7};
    ari_histogram(same, 2, NULL, 3, counts, &lo, &hi);
    assert_int_equal(counts[1], 2); /* max == min: the middle bin */
    ari_collapse how;
    assert_int_equal(ari_collapse_parse("median", &how), 0);
    assert_int_equal(ari_collapse_parse("avg", &how), -1);
    ari_cct_times_free(&t);

    /* a malformed tree is refused */
    h->parent[1] = 2;
    assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), -1);
    assert_string_equal(err.code, "invalid_input");
    hand_free(h);
}

/* ---- random trees -------------------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;

static unsigned next_rand(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Random trees with few modules (so cycles appear along and across paths)
 * and random exclusive times, some missing: every super graph, filtered or
 * not, split or not, brushed or not, conserves flow and is acyclic. */
static void test_random_trees_conserve_flow(void **state)
{
    (void)state;
    static const char *modules[] = {"A", "B", "C", "D"};
    static const char *names[] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"};
    for (int trial = 0; trial < 60; trial++) {
        int n = 2 + (int)next_rand(MAXN - 2), np = 1 + (int)next_rand(6);
        int64_t parent[MAXN];
        const char *name[MAXN], *module[MAXN];
        double *exc = malloc((size_t)(n * np) * sizeof *exc);
        for (int i = 0; i < n; i++) {
            parent[i] = i == 0 ? -1 : (int64_t)next_rand((unsigned)i);
            if (i > 3 && next_rand(10) == 0)
                parent[i] = i - 1; /* deep chains too */
            int f = (int)next_rand(8);
            name[i] = names[f];
            module[i] = modules[f % 4];
            for (int p = 0; p < np; p++)
                exc[i * np + p] = next_rand(20) == 0 ? NAN : next_rand(1000) / 10.0;
        }
        hand *h = hand_new(n, np, parent, name, module, exc);
        ari_error err = {0};
        ari_cct_times t;
        assert_int_equal(ari_cct_times_init(&t, &h->c, 0, &err), 0);
        unsigned char keep[MAXN];
        ari_cct_filter f = {.fraction = trial % 3 == 0 ? 0 : 0.02};
        assert_int_equal(ari_cct_filter_mask(&h->c, &t, &f, keep, NULL, &err), 0);
        ari_sg_params p = {.group_by = trial % 4 == 1 ? ARI_GROUP_NAME : ARI_GROUP_MODULE};
        ari_supergraph g;
        if (ari_supergraph_build(&h->c, &t, keep, &p, &g, &err) != 0)
            fail_msg("trial %d: %s", trial, err.message);
        /* split the two heaviest non-root nodes, alternately by entry, by
         * caller and into call sites */
        char ids[2][256] = {{0}};
        ari_sg_split splits[2];
        int ns = 0;
        for (int64_t j = 1; j < g.nnodes && ns < 2; j++) {
            snprintf(ids[ns], sizeof ids[ns], "%s", g.nodes[j].id);
            splits[ns] = (ari_sg_split){ids[ns], (ari_split_by)((trial + ns) % 3)};
            ns++;
        }
        ari_supergraph_free(&g);
        p.splits = splits;
        p.nsplits = ns;
        if (ari_supergraph_build(&h->c, &t, keep, &p, &g, &err) != 0)
            fail_msg("trial %d with splits: %s", trial, err.message);
        assert_int_equal(g.dropped_edges, 0);
        unsigned char mask[MAXP];
        for (int r = 0; r < np; r++)
            mask[r] = next_rand(2);
        for (int pass = 0; pass < 3; pass++) {
            ari_sg_view v;
            ari_collapse how = pass == 2 ? ARI_COLLAPSE_SUM : ARI_COLLAPSE_MEAN;
            assert_int_equal(ari_sg_view_compute(&g, pass == 1 ? mask : NULL, how, 20, &v, &err), 0);
            char msg[512];
            if (ari_sg_check_flow(&g, &v, 1e-9, msg, sizeof msg) != 0)
                fail_msg("trial %d (n=%d, np=%d, pass %d): %s", trial, n, np, pass, msg);
            /* the roots' inclusive times add up to the CCT's */
            double root_sg = 0, root_cct = 0;
            for (int64_t j = 0; j < g.nnodes; j++)
                root_sg += g.nodes[j].level == 0 ? v.inc[j] : 0;
            double scratch[MAXP];
            root_cct = ari_collapse_row(t.inc, np, pass == 1 ? mask : NULL, how, scratch);
            assert_near(root_sg, root_cct);
            ari_sg_view_free(&v);
        }
        ari_supergraph_free(&g);
        ari_cct_times_free(&t);
        hand_free(h);
        free(exc);
    }
}

/* ---- the shared Hatchet profiles through the real import ------------------------------------------- */

#ifdef HAVE_PROFILE_LOADER
static void check_imported(const char *rel)
{
    const char *shared = getenv("ARIADNE_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", shared ? shared : "/nonexistent", rel);
    if (access(path, R_OK) != 0) {
        print_message("skipped: %s is absent\n", path);
        return;
    }
    char *dir = test_tmpdir();
    char db[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    ari_error err = {0};
    ari_store *s = ari_store_open(db, &err);
    assert_non_null(s);
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = dir};
    ari_import_result res;
    if (ari_import(s, &req, &res, &err) != 0) {
        if (strcmp(err.code, "unsupported_format") != 0)
            fail_msg("%s: import failed: %s", rel, err.message);
        print_message("skipped: no reader for %s in this build (%s)\n", rel, err.message);
        ari_store_close(s);
        free(dir);
        return;
    }
    ari_cct c;
    assert_int_equal(ari_profile_load(s, res.traces[0].id, &c, &err), 0);
    ari_cct_times t;
    assert_int_equal(ari_cct_times_init(&t, &c, ari_cct_metric_find(&c, NULL), &err), 0);
    unsigned char *keep = malloc((size_t)c.nnodes + 1);
    for (int fi = 0; fi < 2; fi++) {
        ari_cct_filter f = {.fraction = fi ? 0.001 : 0};
        assert_int_equal(ari_cct_filter_mask(&c, &t, &f, keep, NULL, &err), 0);
        for (int gb = 0; gb < 2; gb++) {
            ari_sg_params p = {.group_by = gb ? ARI_GROUP_NAME : ARI_GROUP_MODULE};
            ari_supergraph g;
            assert_int_equal(ari_supergraph_build(&c, &t, keep, &p, &g, &err), 0);
            ari_sg_view v;
            assert_int_equal(ari_sg_view_compute(&g, NULL, ARI_COLLAPSE_MEAN, 20, &v, &err), 0);
            char msg[512];
            if (ari_sg_check_flow(&g, &v, 1e-6, msg, sizeof msg) != 0)
                fail_msg("%s (filter %d, group %d): %s", rel, fi, gb, msg);
            print_message("%s: %lld supernodes, %lld edges, flow conserved\n", rel,
                          (long long)g.nnodes, (long long)g.nedges);
            /* split the heaviest non-root supernode each way */
            char id[512] = "";
            for (int64_t j = 0; j < g.nnodes && !*id; j++) {
                if (g.nodes[j].level > 0)
                    snprintf(id, sizeof id, "%s", g.nodes[j].id);
            }
            ari_sg_view_free(&v);
            ari_supergraph_free(&g);
            for (int how = 0; *id && how < 3; how++) {
                ari_sg_split sp = {id, (ari_split_by)how};
                p.splits = &sp;
                p.nsplits = 1;
                assert_int_equal(ari_supergraph_build(&c, &t, keep, &p, &g, &err), 0);
                assert_int_equal(ari_sg_view_compute(&g, NULL, ARI_COLLAPSE_MEAN, 20, &v, &err), 0);
                if (ari_sg_check_flow(&g, &v, 1e-6, msg, sizeof msg) != 0)
                    fail_msg("%s split %s by %d: %s", rel, id, how, msg);
                ari_sg_view_free(&v);
                ari_supergraph_free(&g);
            }
        }
    }
    free(keep);
    ari_cct_times_free(&t);
    ari_cct_free(&c);
    ari_import_result_free(&res);
    ari_store_close(s);
    free(dir);
}

static void test_hatchet_profiles(void **state)
{
    (void)state;
    check_imported("hatchet/hatchet/tests/data/caliper-lulesh-json/lulesh-annotation-profile.json");
    check_imported("hatchet/hatchet/tests/data/hpctoolkit-cpi-database");
    check_imported("hatchet/hatchet/tests/data/hpctoolkit-allgather-database");
    check_imported("hatchet/hatchet/tests/data/caliper-cpi-json/cpi-callpath-profile.json");
    check_imported("hatchet/hatchet/tests/data/json/hatchet-graph-literal.json");
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_4_2),
        cmocka_unit_test(test_cycles_are_broken_by_duplicates),
        cmocka_unit_test(test_splits),
        cmocka_unit_test(test_rank_brushing),
        cmocka_unit_test(test_module_map),
        cmocka_unit_test(test_filter_is_a_view),
        cmocka_unit_test(test_cct_ops),
        cmocka_unit_test(test_random_trees_conserve_flow),
#ifdef HAVE_PROFILE_LOADER
        cmocka_unit_test(test_hatchet_profiles),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
