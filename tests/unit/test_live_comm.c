/* test_live_comm.c: communication matrices by hierarchy level
 * (src/analysis/live_comm.c). A small hierarchy with unequal groups (PE 0:
 * KPs 2, 3, 4; PE 1: KPs 5, 6; LPs below the KPs, which carry no triples)
 * is checked against hand-written block means and against a brute force
 * over random triples (dense leaf matrix, block sums from explicit member
 * lists); drill-down, leaf level, diffs, labels and errors. When the ROSS
 * sample is there (ARIADNE_SHARED_DATA or ../shared/data), the CommData row
 * of KP 100 (PE 6) aggregated to 16 PEs of 16 KPs equals the hand sums of
 * its 16-entry blocks / (16 x 16) on PE 6's row, i.e. (block sum / 16) for
 * the KP, averaged over the 16 KPs of PE 6 (the others send nothing here). */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/live_comm.h"
#include "test_rng.h"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* ids: 0, 1 PEs; 2..6 KPs; 7..10 LPs (7, 8 under KP 2; 9 under KP 5; 10 under KP 6) */
static const int32_t small_parent[11] = {-1, -1, 0, 0, 0, 1, 1, 2, 2, 5, 6};
static const ari_lcomm_tree small_tree = {11, small_parent, 1, NULL};

/* With names, rows go in their natural order ("PE 2" before "PE 10"),
 * whatever the ids, and the cells follow their rows. */
static void test_natural_order(void **state)
{
    (void)state;
    /* 0: PE 10, 1: PE 2, 2: PE 02b; KPs 3 (under PE 10), 4 (PE 2), 5 (PE 02b) */
    static const int32_t parent[6] = {-1, -1, -1, 0, 1, 2};
    static const char *const names[6] = {"PE 10", "PE 2", "PE 2b", "KP 30", "KP 4", "KP 5"};
    ari_lcomm_tree tree = {6, parent, 1, names};
    ari_error err = {0};
    ari_lcomm_view *v = ari_lcomm_view_new(&tree, 0, -1, &err);
    assert_non_null(v);
    const int32_t *ids = ari_lcomm_view_ids(v);
    assert_int_equal(ids[0], 1); /* PE 2 */
    assert_int_equal(ids[1], 2); /* PE 2b */
    assert_int_equal(ids[2], 0); /* PE 10 */
    assert_int_equal(ari_lcomm_view_row(v, 3), 2);
    const ari_lcomm_triple tr[] = {{3, 4, 7}};
    double m[9];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, 1, m, &err), 0);
    near(m[2 * 3 + 0], 7, 0); /* PE 10 -> PE 2 */
    near(m[0 * 3 + 2], 0, 0);
    ari_lcomm_view_free(v);
}

static void test_hand_sums(void **state)
{
    (void)state;
    const ari_lcomm_triple tr[] = {
        {2, 3, 1}, {2, 5, 6}, {3, 6, 4}, {4, 4, 2}, {5, 2, 10}, {6, 5, 3}, {6, 5, 1}, {2, 5, 2},
    };
    size_t ntr = sizeof tr / sizeof tr[0];
    ari_error err = {0};
    ari_lcomm_view *v = ari_lcomm_view_new(&small_tree, 0, -1, &err);
    assert_non_null(v);
    assert_int_equal(ari_lcomm_view_size(v), 2);
    assert_int_equal(ari_lcomm_view_level(v), 0);
    assert_int_equal(ari_lcomm_view_leaves(v)[0], 3); /* LPs are not leaves of the comm level */
    assert_int_equal(ari_lcomm_view_leaves(v)[1], 2);
    assert_int_equal(ari_lcomm_view_row(v, 9), 1);
    double m[4];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, m, &err), 0);
    /* PE0->PE0: 1 + 2 over 3 x 3; PE0->PE1: 6 + 4 + 2 over 3 x 2;
     * PE1->PE0: 10 over 2 x 3; PE1->PE1: 3 + 1 over 2 x 2 */
    near(m[0], 3.0 / 9, 1e-15);
    near(m[1], 12.0 / 6, 1e-15);
    near(m[2], 10.0 / 6, 1e-15);
    near(m[3], 4.0 / 4, 1e-15);
    ari_lcomm_view_free(v);

    /* drill into PE 1: KPs 5, 6; triples leaving the group are ignored */
    v = ari_lcomm_view_new(&small_tree, 0, 1, &err);
    assert_non_null(v);
    assert_int_equal(ari_lcomm_view_size(v), 2);
    assert_int_equal(ari_lcomm_view_ids(v)[0], 5);
    assert_int_equal(ari_lcomm_view_ids(v)[1], 6);
    assert_int_equal(ari_lcomm_view_group(v), 1);
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, m, &err), 0);
    near(m[0], 0, 0);
    near(m[1], 0, 0);
    near(m[2], 4, 1e-15); /* 6 -> 5: 3 + 1 */
    near(m[3], 0, 0);
    /* labels: own label at the row's level */
    int labels[11], out[5];
    for (int i = 0; i < 11; i++)
        labels[i] = -1;
    labels[5] = 2;
    assert_int_equal(ari_lcomm_view_labels(v, labels, out, &err), 0);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], -1);
    ari_lcomm_view_free(v);

    /* the whole leaf level: 5 x 5 raw counts, (2, 5) twice adds up */
    v = ari_lcomm_view_new(&small_tree, 1, -1, &err);
    assert_non_null(v);
    assert_int_equal(ari_lcomm_view_size(v), 5);
    double leaf[25];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, leaf, &err), 0);
    near(leaf[0 * 5 + 3], 8, 0);
    near(leaf[3 * 5 + 0], 10, 0);
    near(leaf[2 * 5 + 2], 2, 0);
    ari_lcomm_view_free(v);

    /* group labels: the majority of the KPs' labels (ties to the lowest) */
    v = ari_lcomm_view_new(&small_tree, 0, -1, &err);
    labels[2] = 1, labels[3] = 0, labels[4] = 1, labels[5] = 2, labels[6] = 0;
    assert_int_equal(ari_lcomm_view_labels(v, labels, out, &err), 0);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 0);
    /* diffs: cp - base */
    const ari_lcomm_triple cp1[] = {{2, 3, 4}};
    const ari_lcomm_triple *cps[2] = {cp1, tr};
    size_t ncps[2] = {1, ntr};
    double base[4], diffs[8];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, base, &err), 0);
    assert_int_equal(ari_lcomm_view_diffs(v, base, cps, ncps, 2, diffs, &err), 0);
    near(diffs[0], 4.0 / 9 - 3.0 / 9, 1e-15);
    near(diffs[1], -2, 1e-15);
    for (int i = 4; i < 8; i++)
        near(diffs[i], 0, 0);
    ari_lcomm_view_free(v);
}

static void test_errors(void **state)
{
    (void)state;
    ari_error err = {0};
    assert_null(ari_lcomm_view_new(&small_tree, 2, -1, &err)); /* below the leaf level */
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_null(ari_lcomm_view_new(&small_tree, 0, 3, &err)); /* a leaf group */
    assert_null(ari_lcomm_view_new(&small_tree, 0, 11, &err));
    const int32_t cyc[3] = {1, 2, 0};
    const ari_lcomm_tree ct = {3, cyc, 0, NULL};
    assert_null(ari_lcomm_view_new(&ct, 0, -1, &err));
    assert_int_equal(ari_lcomm_level(&ct, 0), -1);
    ari_lcomm_view *v = ari_lcomm_view_new(&small_tree, 0, -1, &err);
    double m[4];
    const ari_lcomm_triple bad1[] = {{2, 11, 1}}, bad2[] = {{2, 3, NAN}}, bad3[] = {{0, 3, 1}};
    assert_int_equal(ari_lcomm_view_matrix(v, bad1, 1, m, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_int_equal(ari_lcomm_view_matrix(v, bad2, 1, m, &err), -1);
    assert_int_equal(ari_lcomm_view_matrix(v, bad3, 1, m, &err), -1); /* a PE is not a leaf */
    assert_int_equal(ari_lcomm_view_matrix(v, NULL, 0, m, &err), 0);
    near(m[0] + m[1] + m[2] + m[3], 0, 0);
    ari_lcomm_view_free(v);
}

/* Random triples on 4 PEs of 1..6 KPs: block means against a brute force. */
static void test_brute_force(void **state)
{
    (void)state;
    enum { NPE = 4, MAXN = 64 };
    int32_t parent[MAXN];
    int members[NPE][8], nm[NPE] = {0};
    rng_state = 0xc0ffee18ULL;
    size_t n = NPE;
    for (int g = 0; g < NPE; g++)
        parent[g] = -1;
    for (int g = 0; g < NPE; g++) {
        int kps = 1 + (int)(rng_uniform() * 6);
        for (int j = 0; j < kps; j++) {
            members[g][nm[g]++] = (int)n;
            parent[n++] = g;
        }
    }
    ari_lcomm_tree tree = {n, parent, 1, NULL};
    ari_lcomm_triple tr[300];
    double dense[MAXN][MAXN] = {{0}};
    for (int i = 0; i < 300; i++) {
        tr[i].src = NPE + (int32_t)(rng_uniform() * (double)(n - NPE));
        tr[i].dst = NPE + (int32_t)(rng_uniform() * (double)(n - NPE));
        tr[i].count = floor(rng_uniform() * 50);
        dense[tr[i].src][tr[i].dst] += tr[i].count;
    }
    ari_error err = {0};
    ari_lcomm_view *v = ari_lcomm_view_new(&tree, 0, -1, &err);
    assert_non_null(v);
    double m[NPE * NPE];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, 300, m, &err), 0);
    for (int a = 0; a < NPE; a++)
        for (int b = 0; b < NPE; b++) {
            double s = 0;
            for (int i = 0; i < nm[a]; i++)
                for (int j = 0; j < nm[b]; j++)
                    s += dense[members[a][i]][members[b][j]];
            near(m[a * NPE + b], s / (nm[a] * nm[b]), 1e-12);
        }
    ari_lcomm_view_free(v);
}

/* The CommData of the first record of kpgid100.csv, its Peid and KpGid. */
static int read_kpgid100(double *comm, int cap, int *peid, int *kpgid)
{
    const char *dir = getenv("ARIADNE_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/ross-sample/kpgid100.csv", dir ? dir : "../shared/data");
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    static char line[1 << 16];
    int n = -1;
    if (fgets(line, sizeof line, f) && fgets(line, sizeof line, f)) {
        char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
        if (close) {
            *close = 0;
            n = 0;
            for (char *p = open + 1; *p && n < cap;) {
                char *end;
                comm[n++] = strtod(p, &end);
                p = *end == ',' ? end + 1 : end;
                if (end == p && *end != ',')
                    break;
            }
            char *last = strrchr(close + 1, ','); /* ...,KpGid,Kpid,Peid */
            *peid = atoi(last + 1);
            *last = 0;
            last = strrchr(close + 1, ',');
            *last = 0;
            *kpgid = atoi(strrchr(close + 1, ',') + 1);
        }
    }
    fclose(f);
    return n;
}

static void test_ross_kp100(void **state)
{
    (void)state;
    enum { NPE = 16, KPS = 16, NKP = NPE * KPS };
    double comm[NKP + 1];
    int peid = -1, kpgid = -1;
    int nc = read_kpgid100(comm, NKP + 1, &peid, &kpgid);
    if (nc < 0)
        skip();
    assert_int_equal(nc, NKP);
    assert_int_equal(kpgid, 100);
    assert_int_equal(peid, kpgid / KPS);
    int32_t parent[NPE + NKP];
    for (int g = 0; g < NPE; g++)
        parent[g] = -1;
    for (int k = 0; k < NKP; k++)
        parent[NPE + k] = k / KPS;
    ari_lcomm_tree tree = {NPE + NKP, parent, 1, NULL};
    ari_lcomm_triple tr[NKP];
    size_t ntr = 0;
    double total = 0;
    for (int j = 0; j < NKP; j++)
        if (comm[j] != 0) {
            tr[ntr++] = (ari_lcomm_triple){NPE + kpgid, NPE + j, comm[j]};
            total += comm[j];
        }
    assert_true(total > 0);
    ari_error err = {0};
    ari_lcomm_view *v = ari_lcomm_view_new(&tree, 0, -1, &err);
    assert_non_null(v);
    double m[NPE * NPE];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, m, &err), 0);
    for (int a = 0; a < NPE; a++)
        for (int b = 0; b < NPE; b++) {
            double hand = 0;
            for (int j = b * KPS; j < (b + 1) * KPS; j++)
                hand += comm[j];
            double want = a == peid ? (hand / KPS) / KPS : 0; /* the KP's block mean, over PE 6's 16 KPs */
            near(m[a * NPE + b], want, 1e-12);
        }
    ari_lcomm_view_free(v);
    /* drill into PE 6: KP 100's row is its CommData within PE 6 */
    v = ari_lcomm_view_new(&tree, 0, peid, &err);
    assert_non_null(v);
    assert_int_equal(ari_lcomm_view_size(v), KPS);
    double d[KPS * KPS];
    assert_int_equal(ari_lcomm_view_matrix(v, tr, ntr, d, &err), 0);
    int row = ari_lcomm_view_row(v, NPE + kpgid);
    assert_int_equal(row, kpgid % KPS);
    for (int b = 0; b < KPS; b++)
        near(d[row * KPS + b], comm[peid * KPS + b], 0);
    ari_lcomm_view_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_sums),
        cmocka_unit_test(test_natural_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_ross_kp100),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
