/* test_progression.c: the progression metrics, steps, clusters, flows and
 * bounds (src/analysis/progression.c).
 *
 * A small trace computed by hand checks equations (1), (2) and (3), the
 * per-step and global ABE; random traces check that every metric is in
 * [0, 1], never decreases, is below 1 before the node's last task ends and
 * exactly 1 from then on, and that clusters and flows partition the nodes.
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

#include "analysis/progression.h"
#include "test_rng.h"

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)))
        fail_msg("got %.15g, want %.15g", got, want);
}

/* ---- the hand-computed trace ----------------------------------------------------
 * Two nodes (ranks 0 and 5), types A and B, resource types CPU and CUDA.
 * Node 0: 2 CPUs + 1 GPU. A on CPU [0,4] x2 (mean 4), A on GPU [0,1] [1,2]
 * [2,3] [3,4] (mean 1), B on CPU [4,6] x2 (mean 2).
 *   W_A = 1 / (2/4 + 1/1) = 2/3; W_B = 1 / (2/2) = 1; total 6 * 2/3 + 2 * 1 = 6.
 * Node 5: 1 CPU. B on CPU [0,3] [3,6] (mean 3): W_B = 3; total 6.
 * Steps = 3: t = 2, 4, 6.
 *   node 0, eq. 3: (2 * 2/3)/6 = 2/9, (6 * 2/3)/6 = 2/3, 1;  eq. 1: 2/8, 6/8, 1
 *   node 5, eq. 3 = eq. 1: 0, 1/2, 1
 * Bounds (3 CPUs, 1 GPU; means A: CPU 4, GPU 1; B: CPU 2.5):
 *   step 1 (2 A): x_g = T, 4 x_c = 3T, x_c + x_g = 2 -> T = 8/7
 *   step 2 (4 A, 1 B): 4 (4 - T) + 2.5 = 3T -> T = 18.5/7
 *   step 3 (3 B, CPU only): 3 * 2.5 / 3 = 2.5
 *   global (6 A, 4 B): 4 (6 - T) + 10 = 3T -> T = 34/7
 * These are the all_workers weights (options.weight = ARI_PROG_WEIGHT_ALL_WORKERS).
 * Under the default (StarVZ's per-worker reading) with the workers below
 * (node 0: CPUs 11, 12, GPU 13; node 5: CPU 21; both A CPU tasks ran on CPU
 * 11, so CPU 12 never ran A): W_A = 1 / (1/4 + 1/1) = 4/5, W_B = 1 / (1/2 +
 * 1/2) = 1, total 6 * 4/5 + 2 = 34/5; node 0, eq. 3: (2 * 4/5) / (34/5) =
 * 4/17, (6 * 4/5) / (34/5) = 12/17, 1. Node 5 unchanged (W_B = 3).
 */
static ari_prog_task hand_tasks[] = {
    {0, 0, 0, 0, 4, 11}, {0, 0, 0, 0, 4, 11},
    {0, 0, 1, 0, 1, 13}, {0, 0, 1, 1, 2, 13}, {0, 0, 1, 2, 3, 13}, {0, 0, 1, 3, 4, 13},
    {0, 1, 0, 4, 6, 11}, {0, 1, 0, 4, 6, 12},
    {1, 1, 0, 0, 3, 21}, {1, 1, 0, 3, 6, 21},
};
static int hand_node_ids[] = {0, 5};
static int hand_workers[] = {2, 1, /* node 5: */ 1, 0};

static ari_prog_data hand_data(void)
{
    ari_prog_data d = {.nnodes = 2, .node_ids = hand_node_ids, .ntypes = 2, .nrestypes = 2,
                       .workers = hand_workers, .ntasks = 10, .tasks = hand_tasks};
    return d;
}

static ari_prog_options options(int steps, ari_prog_metric metric)
{
    ari_prog_options o = {.steps = steps, .bandwidth = 0.01, .metric = metric, .with_bounds = 1};
    return o;
}

static void test_weights_eq2(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    double w[4];
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_ALL_WORKERS, w, NULL), 0);
    assert_near(w[0], 2.0 / 3); /* node 0, A */
    assert_near(w[1], 1.0);     /* node 0, B */
    assert_true(isnan(w[2]));   /* node 5 never ran A */
    assert_near(w[3], 3.0);     /* node 5, B */
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_STARVZ, w, NULL), 0);
    assert_near(w[0], 4.0 / 5); /* only CPU 11 and GPU 13 ran A */
    assert_near(w[1], 1.0);
    assert_true(isnan(w[2]));
    assert_near(w[3], 3.0);
}

/* StarVZ's weight (R/phase2_progress.R, total_tasks_completed_node_het)
 * against all_workers on a heterogeneous node where they differ: 3 CPUs
 * (ids 1, 2, 3) and 1 GPU (id 4). Type A: CPU 1 runs durations 2 and 4 (its
 * mean 3), CPU 2 runs 6 (mean 6); CPU 3 and the GPU never run A. Type B: the
 * GPU runs 1 and 3 (mean 2), CPU 3 runs 8.
 *   starvz:      W_A = 1 / (1/3 + 1/6) = 2;     W_B = 1 / (1/2 + 1/8) = 8/5
 *   all_workers: W_A = 1 / (3 / ((2+4+6)/3)) = 4/3 (CPU mean 4, 3 CPUs; no GPU
 *                term, the GPU ran no A); W_B = 1 / (3/8 + 1/2) = 8/7.
 * Eq. 3 at t = 4 (steps 2, 4, 6, 8; completed A [0,2], B [0,1] [1,4]):
 *   starvz      (2 + 2 * 8/5) / (3 * 2 + 3 * 8/5) = 5.2 / 10.8 = 13/27
 *   all_workers (4/3 + 2 * 8/7) / (3 * 4/3 + 3 * 8/7) = (76/21) / (52/7) = 19/39 */
static void test_weights_starvz_vs_all_workers(void **state)
{
    (void)state;
    ari_prog_task t[] = {{0, 0, 0, 0, 2, 1}, {0, 0, 0, 2, 6, 1}, {0, 0, 0, 0, 6, 2},
                         {0, 1, 1, 0, 1, 4}, {0, 1, 1, 1, 4, 4}, {0, 1, 0, 0, 8, 3}};
    int ids[] = {0}, workers[] = {3, 1};
    ari_prog_data d = {.nnodes = 1, .node_ids = ids, .ntypes = 2, .nrestypes = 2,
                       .workers = workers, .ntasks = 6, .tasks = t};
    double w[2];
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_STARVZ, w, NULL), 0);
    assert_near(w[0], 2.0);
    assert_near(w[1], 8.0 / 5);
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_ALL_WORKERS, w, NULL), 0);
    assert_near(w[0], 4.0 / 3);
    assert_near(w[1], 8.0 / 7);
    /* the default option is StarVZ's, and result.weights follow the option */
    ari_prog_options o = options(4, ARI_PROG_WEIGHTED);
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    assert_near(r.weights[0], 2.0);
    assert_near(r.weights[1], 8.0 / 5);
    assert_near(r.values[1], 13.0 / 27);
    ari_prog_result_free(&r);
    o.weight = ARI_PROG_WEIGHT_ALL_WORKERS;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    assert_near(r.weights[0], 4.0 / 3);
    assert_near(r.values[1], 19.0 / 39);
    ari_prog_result_free(&r);
    o.weight = (ari_prog_weight)7;
    ari_error err = {0};
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
}

/* The hand values above, made for the all_workers reading of eq. 2 (the
 * former default); test_hand_trace_eq3_starvz checks the default. */
static void test_hand_trace_eq3(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    ari_prog_options o = options(3, ARI_PROG_WEIGHTED);
    o.weight = ARI_PROG_WEIGHT_ALL_WORKERS;
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    assert_int_equal(r.nsteps, 3);
    assert_near(r.t0, 0);
    assert_near(r.t1, 6);
    assert_near(r.steps[0].time, 2);
    assert_near(r.steps[1].time, 4);
    assert_true(r.steps[2].time == 6);
    const double want[3][2] = {{2.0 / 9, 0}, {2.0 / 3, 0.5}, {1, 1}};
    for (int s = 0; s < 3; s++)
        for (int n = 0; n < 2; n++)
            assert_near(r.values[s * 2 + n], want[s][n]);
    assert_int_equal(r.steps[0].completed, 2);
    assert_int_equal(r.steps[1].completed, 5);
    assert_int_equal(r.steps[2].completed, 3);
    assert_near(r.last_end[0], 6);
    assert_int_equal(r.node_tasks[0], 8);
    assert_int_equal(r.node_tasks[1], 2);
    assert_near(r.steps[0].abe, 8.0 / 7);
    assert_near(r.steps[1].abe, 18.5 / 7);
    assert_near(r.steps[2].abe, 2.5);
    assert_near(r.steps[2].cumulative_abe, 8.0 / 7 + 18.5 / 7 + 2.5);
    assert_near(r.global_abe, 34.0 / 7);
    assert_near(r.steps[1].mean_value, (2.0 / 3 + 0.5) / 2);
    ari_prog_result_free(&r);
}

static void test_hand_trace_eq3_starvz(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    ari_prog_options o = options(3, ARI_PROG_WEIGHTED); /* default weight: starvz */
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    const double want[3][2] = {{4.0 / 17, 0}, {12.0 / 17, 0.5}, {1, 1}};
    for (int s = 0; s < 3; s++)
        for (int n = 0; n < 2; n++)
            assert_near(r.values[s * 2 + n], want[s][n]);
    assert_near(r.weights[0], 4.0 / 5);
    /* the bounds do not depend on the weights */
    assert_near(r.global_abe, 34.0 / 7);
    ari_prog_result_free(&r);
}

static void test_hand_trace_eq1(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    ari_prog_options o = options(3, ARI_PROG_COUNT);
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    const double want[3][2] = {{0.25, 0}, {0.75, 0.5}, {1, 1}};
    for (int s = 0; s < 3; s++)
        for (int n = 0; n < 2; n++)
            assert_near(r.values[s * 2 + n], want[s][n]);
    ari_prog_result_free(&r);
}

static void test_step_width(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    ari_prog_options o = options(0, ARI_PROG_COUNT);
    o.step_width = 2.5; /* ceil(6 / 2.5) = 3 steps: 2.5, 5, 6 */
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    assert_int_equal(r.nsteps, 3);
    assert_near(r.steps[0].time, 2.5);
    assert_near(r.steps[1].time, 5);
    assert_true(r.steps[2].time == 6);
    assert_near(r.steps[1].start, 2.5);
    assert_near(r.values[0], 2.0 / 8); /* node 0 at 2.5: the GPU tasks ending at 1 and 2 */
    ari_prog_result_free(&r);
    o.step_width = 0.001; /* 6000 steps */
    ari_error err = {0};
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_non_null(strstr(err.message, "steps"));
}

static void test_bad_options_and_data(void **state)
{
    (void)state;
    ari_prog_data d = hand_data();
    ari_prog_result r;
    ari_error err = {0};
    ari_prog_options o = options(0, ARI_PROG_COUNT);
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    o = options(ARI_PROG_MAX_STEPS + 1, ARI_PROG_COUNT);
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    o = options(3, ARI_PROG_COUNT);
    o.bandwidth = 0;
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    o.bandwidth = NAN;
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    o = options(3, (ari_prog_metric)2);
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    o = options(3, ARI_PROG_COUNT);
    ari_prog_task bad[] = {{0, 0, 0, 0, 1, 1}, {2, 0, 0, 0, 1, 1}};
    d.tasks = bad;
    d.ntasks = 2;
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    bad[1].node = 0;
    bad[1].end = NAN;
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    bad[1].end = 1; /* now node 5 has no task */
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
    assert_non_null(strstr(err.message, "node 5 has no tasks"));
    d.ntasks = 0;
    assert_int_equal(ari_progression(&d, &o, &r, &err), -1);
}

/* Zero durations make every weight 0: the node falls back to eq. 1. An
 * unknown resource type uses mean duration / node workers. */
static void test_weight_corner_cases(void **state)
{
    (void)state;
    ari_prog_task t[] = {{0, 0, 0, 1, 1, 1}, {0, 0, 0, 2, 2, 1}, {0, 0, 0, 3, 3, 1},
                         {0, 0, 0, 4, 4, 1}, {1, 0, -1, 0, 6, 0}, {1, 0, -1, 0, 2, 0}};
    int ids[] = {0, 1}, workers[] = {1, 2};
    ari_prog_data d = {.nnodes = 2, .node_ids = ids, .ntypes = 1, .nrestypes = 1,
                       .workers = workers, .ntasks = 6, .tasks = t};
    double w[2];
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_ALL_WORKERS, w, NULL), 0);
    assert_near(w[0], 0);
    assert_near(w[1], 4.0 / 2); /* mean 4 over 2 workers */
    /* StarVZ: the unknown worker (0) is one group, as R's NA ResourceId */
    assert_int_equal(ari_prog_weights(&d, ARI_PROG_WEIGHT_STARVZ, w, NULL), 0);
    assert_near(w[0], 0);
    assert_near(w[1], 4.0);
    ari_prog_options o = options(4, ARI_PROG_WEIGHTED);
    o.weight = ARI_PROG_WEIGHT_ALL_WORKERS;
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    /* t0 = 0, t1 = 6: steps at 1.5, 3, 4.5, 6 */
    assert_near(r.values[0 * 2 + 0], 0.25);
    assert_near(r.values[1 * 2 + 0], 0.75);
    assert_near(r.values[2 * 2 + 0], 1);
    assert_near(r.values[1 * 2 + 1], 0.5);
    /* no type ran on a known resource type except the zero-length ones */
    assert_true(isfinite(r.global_abe));
    ari_prog_result_free(&r);
}

/* ---- random traces ----------------------------------------------------------------- */

static void random_data(ari_prog_data *d, int nnodes, int ntypes, int nrestypes, long ntasks)
{
    memset(d, 0, sizeof *d);
    d->nnodes = nnodes;
    d->ntypes = ntypes;
    d->nrestypes = nrestypes;
    d->ntasks = ntasks;
    d->node_ids = malloc(nnodes * sizeof(int));
    d->workers = malloc((size_t)nnodes * nrestypes * sizeof(int));
    d->tasks = malloc(ntasks * sizeof *d->tasks);
    for (int n = 0; n < nnodes; n++) {
        d->node_ids[n] = 2 * n;
        for (int r = 0; r < nrestypes; r++)
            d->workers[n * nrestypes + r] = 1 + (int)(rng_uniform() * 4);
    }
    for (long i = 0; i < ntasks; i++) {
        ari_prog_task *t = &d->tasks[i];
        t->node = i < nnodes ? (int)i : (int)(rng_uniform() * nnodes);
        t->type = (int)(rng_uniform() * ntypes);
        t->restype = rng_uniform() < 0.05 ? -1 : (int)(rng_uniform() * nrestypes);
        t->start = rng_uniform() * 1000 * (1 + (t->node % 3 == 0)); /* some nodes lag */
        t->end = t->start + rng_uniform() * 20;
        t->worker = 1 + i % 5; /* no draw: keeps the seeded sequence */
    }
}

static void check_metric_properties(const ari_prog_data *d, const ari_prog_result *r)
{
    for (int n = 0; n < r->nnodes; n++) {
        double prev = 0;
        for (int s = 0; s < r->nsteps; s++) {
            double v = r->values[(size_t)s * r->nnodes + n];
            assert_true(v >= 0 && v <= 1);
            assert_true(v >= prev);
            if (r->steps[s].time >= r->last_end[n])
                assert_true(v == 1.0);
            else
                assert_true(v < 1.0);
            prev = v;
        }
        assert_true(r->values[(size_t)(r->nsteps - 1) * r->nnodes + n] == 1.0);
    }
    long completed = 0;
    for (int s = 0; s < r->nsteps; s++)
        completed += r->steps[s].completed;
    assert_int_equal(completed, d->ntasks);
}

static void check_clusters_and_flows(const ari_prog_result *r, double bw)
{
    int *seen = malloc(r->nnodes * sizeof(int));
    for (int s = 0; s < r->nsteps; s++) {
        const ari_prog_step *st = &r->steps[s];
        memset(seen, 0, r->nnodes * sizeof(int));
        double prev_mean = -1;
        for (int c = 0; c < st->modal.nclusters; c++) {
            const ari_prog_cluster *cl = &st->clusters[c];
            double sum = 0;
            assert_true(cl->count >= 1);
            for (int i = 0; i < cl->count; i++) {
                int n = cl->nodes[i];
                seen[n]++;
                assert_int_equal(st->modal.cluster[n], c);
                sum += r->values[(size_t)s * r->nnodes + n];
            }
            assert_near(cl->mean, sum / cl->count);
            assert_true(cl->mean > prev_mean); /* numbered by increasing mean */
            prev_mean = cl->mean;
            if (c > 0) /* clusters are separated by a minimum */
                assert_true(st->clusters[c - 1].max <= cl->min);
        }
        for (int n = 0; n < r->nnodes; n++)
            assert_int_equal(seen[n], 1);
    }
    for (int s = 0; s + 1 < r->nsteps; s++) {
        int total = 0, largest = 0;
        for (int f = 0; f < r->nflows; f++)
            if (r->flows[f].step == s) {
                total += r->flows[f].count;
                largest = r->flows[f].count > largest ? r->flows[f].count : largest;
                for (int i = 0; i < r->flows[f].count; i++) {
                    int n = r->flows[f].nodes[i];
                    assert_int_equal(r->steps[s].modal.cluster[n], r->flows[f].from);
                    assert_int_equal(r->steps[s + 1].modal.cluster[n], r->flows[f].to);
                }
            }
        assert_int_equal(total, r->nnodes);
        for (int f = 0; f < r->nflows; f++)
            if (r->flows[f].step == s)
                assert_int_equal(r->flows[f].minority, r->flows[f].count < largest);
    }
    (void)bw;
    free(seen);
}

static void test_random_properties(void **state)
{
    (void)state;
    for (int round = 0; round < 12; round++) {
        ari_prog_data d;
        random_data(&d, 1 + round * 7, 1 + round % 4, 1 + round % 3, 200 + round * 300);
        ari_prog_options o = options(5 + round * 3, round % 2 ? ARI_PROG_COUNT : ARI_PROG_WEIGHTED);
        o.bandwidth = 0.005 * (1 + round % 5);
        if (round % 4 == 3) {
            o.steps = 0;
            o.step_width = 37.5;
        }
        ari_prog_result r;
        ari_error err = {0};
        if (ari_progression(&d, &o, &r, &err) != 0)
            fail_msg("round %d: %s", round, err.message);
        check_metric_properties(&d, &r);
        check_clusters_and_flows(&r, o.bandwidth);
        for (int s = 1; s < r.nsteps; s++)
            assert_true(r.steps[s].cumulative_abe >= r.steps[s - 1].cumulative_abe);
        assert_true(r.steps[r.nsteps - 1].cumulative_abe >= r.global_abe * (1 - 1e-9));
        ari_prog_result_free(&r);
        free(d.node_ids);
        free(d.workers);
        free(d.tasks);
    }
}

/* Nodes 0 and 1 run at half speed: from early steps on they are their own
 * cluster, and the flows label them as the minority path. */
static void test_slow_nodes_cluster(void **state)
{
    (void)state;
    enum { NODES = 30, PER = 40 };
    ari_prog_data d;
    random_data(&d, NODES, 1, 1, NODES * PER);
    for (long i = 0; i < d.ntasks; i++) {
        ari_prog_task *t = &d.tasks[i];
        t->node = (int)(i / PER);
        t->restype = 0;
        double speed = t->node < 2 ? 2.0 : 1.0;
        t->start = (i % PER) * 10.0 * speed;
        t->end = t->start + (5.0 + 0.1 * rng_uniform()) * speed; /* away from step times */
    }
    ari_prog_options o = options(20, ARI_PROG_WEIGHTED);
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    for (int s = 1; s < 10; s++) {
        const ari_prog_step *st = &r.steps[s];
        assert_true(st->modal.nclusters >= 2);
        assert_int_equal(st->clusters[0].count, 2);
        assert_int_equal(st->clusters[0].nodes[0], 0);
        assert_int_equal(st->clusters[0].nodes[1], 1);
    }
    int labelled = 0;
    for (int f = 0; f < r.nflows; f++)
        if (r.flows[f].step == 2 && r.flows[f].minority)
            labelled += r.flows[f].count == 2 && r.flows[f].nodes[0] == 0;
    assert_int_equal(labelled, 1);
    ari_prog_result_free(&r);
    free(d.node_ids);
    free(d.workers);
    free(d.tasks);
}

static void test_single_node(void **state)
{
    (void)state;
    ari_prog_task t[] = {{0, 0, 0, 0, 1, 1}, {0, 0, 0, 1, 3, 1}};
    int ids[] = {0}, workers[] = {1};
    ari_prog_data d = {.nnodes = 1, .node_ids = ids, .ntypes = 1, .nrestypes = 1,
                       .workers = workers, .ntasks = 2, .tasks = t};
    ari_prog_options o = options(20, ARI_PROG_WEIGHTED);
    ari_prog_result r;
    assert_int_equal(ari_progression(&d, &o, &r, NULL), 0);
    assert_int_equal(r.nnodes, 1);
    for (int s = 0; s < r.nsteps; s++)
        assert_int_equal(r.steps[s].modal.nclusters, 1);
    assert_int_equal(r.nflows, 19);
    ari_prog_result_free(&r);
}

/* ---- ties: one defined order of additions -------------------------------------------
 * One node, types whose weights differ by orders of magnitude, tasks
 * sharing a few end times: a node's running sum depends on the order in
 * which tied tasks are added. progression.h defines it (input order);
 * brute force here, added in that order and, to show that the order
 * shows, in reverse order of ties. */
#define TIE_TASKS 400

static void tie_data(ari_prog_data *d, ari_prog_task *tasks, int *node_ids, int *workers)
{
    static const double scale[] = {1e-7, 1.0, 3e3};
    for (int i = 0; i < TIE_TASKS; i++) {
        int type = (int)(rng_uniform() * 3);
        double end = 1e4 * (1 + (int)(rng_uniform() * 8)); /* 8 distinct ends */
        tasks[i] = (ari_prog_task){0, type, 0, end - scale[type] * (1 + rng_uniform()), end, 1 + i % 3};
    }
    node_ids[0] = 0;
    workers[0] = 3;
    *d = (ari_prog_data){1, node_ids, 3, NULL, 1, NULL, workers, TIE_TASKS, tasks};
}

/* The node's value at time t: weights added by (end, input order), ties
 * reversed when reverse_ties. */
static double tie_value(const ari_prog_data *d, const double *w, double t, int reverse_ties)
{
    double total = 0, done = 0;
    long left = 0;
    for (long i = 0; i < d->ntasks; i++)
        total += w[d->tasks[i].type];
    double last = -INFINITY;
    for (;;) { /* the next end time, then its tasks */
        double next = INFINITY;
        for (long i = 0; i < d->ntasks; i++)
            if (d->tasks[i].end > last && d->tasks[i].end < next)
                next = d->tasks[i].end;
        if (!(next <= t))
            break;
        for (long k = 0; k < d->ntasks; k++) {
            long i = reverse_ties ? d->ntasks - 1 - k : k;
            if (d->tasks[i].end == next)
                done += w[d->tasks[i].type];
        }
        last = next;
    }
    for (long i = 0; i < d->ntasks; i++)
        left += d->tasks[i].end > t;
    double v = left == 0 ? 1.0 : done / total;
    return v > 1 ? 1.0 : v;
}

static void test_ties_in_input_order(void **state)
{
    (void)state;
    ari_prog_task tasks[TIE_TASKS];
    int node_ids[1], workers[1];
    ari_prog_data d;
    tie_data(&d, tasks, node_ids, workers);
    ari_prog_options o = options(16, ARI_PROG_WEIGHTED);
    ari_prog_result r;
    ari_error err = {0};
    assert_int_equal(ari_progression(&d, &o, &r, &err), 0);
    int shows = 0;
    for (int s = 0; s < r.nsteps; s++) {
        double got = r.values[s], want = tie_value(&d, r.weights, r.steps[s].time, 0);
        if (memcmp(&got, &want, sizeof got) != 0)
            fail_msg("step %d: %.17g, by input order %.17g", s, got, want);
        shows += want != tie_value(&d, r.weights, r.steps[s].time, 1);
    }
    assert_true(shows > 0);
    ari_prog_result_free(&r);
}

int main(void)
{
    rng_state = 0x9E3779B97F4A7C15ULL; /* the seed the expectations were made with */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights_eq2),
        cmocka_unit_test(test_weights_starvz_vs_all_workers),
        cmocka_unit_test(test_hand_trace_eq3),
        cmocka_unit_test(test_hand_trace_eq3_starvz),
        cmocka_unit_test(test_hand_trace_eq1),
        cmocka_unit_test(test_step_width),
        cmocka_unit_test(test_bad_options_and_data),
        cmocka_unit_test(test_weight_corner_cases),
        cmocka_unit_test(test_random_properties),
        cmocka_unit_test(test_slow_nodes_cluster),
        cmocka_unit_test(test_single_node),
        cmocka_unit_test(test_ties_in_input_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
