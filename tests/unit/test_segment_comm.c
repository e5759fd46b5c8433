/* test_segment_comm.c: per-segment metric means, mean communication
 * matrices and the KP -> PE aggregation (src/analysis/segment_comm.c).
 * - Hand-made: 4 KPs in 2 PEs over 4 samples, 7 triples (one duplicated
 *   (t, src, dst)), 3 segments: every matrix entry, the PE means of block
 *   sums, the recv/sum/max directions and the metric means (with missing
 *   samples) as computed by hand below; the shared scale; bad input.
 * - Random triples: the grouped matrices straight from the triples equal
 *   the aggregation of the dense KP matrices.
 * - ROSS sample (when ../shared/data or ARIADNE_SHARED_DATA has it):
 *   kpgid100.csv, the full record of KP 100 (PE 6, KP 4 of 16) at 99 GVTs
 *   with its 256-long CommData; the segment means of KP 100's row equal a
 *   direct mean of the parsed counts, every other row is 0, PE row 6 is
 *   the block sums / 16; and RbTotal.csv row 100, averaged by segment,
 *   equals the mean of the record's RbTotal column.
 */
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

#include "analysis/segment_comm.h"
#include "test_rng.h"

static void near(double a, double b)
{
    if (!(fabs(a - b) <= 1e-12 * fmax(1, fabs(b))))
        fail_msg("%.17g != %.17g", a, b);
}

static void test_by_hand(void **state)
{
    (void)state;
    const ari_comm_triple tr[] = {{0, 0, 1, 2}, {0, 0, 3, 4}, {1, 0, 1, 6}, {1, 2, 0, 1},
                                  {2, 3, 2, 5}, {3, 1, 0, 8}, {3, 1, 0, 2}};
    const ari_segment seg[] = {{0, 2}, {2, 4}, {0, 4}};
    double m[3 * 16], want[3 * 16] = {0};
    ari_error err = {0};
    assert_int_equal(ari_segment_comm(tr, 7, 4, 4, seg, 3, m, &err), 0);
    /* [0, 2): (2 + 6) / 2 from 0 to 1, 4 / 2 from 0 to 3, 1 / 2 from 2 to 0 */
    want[0 * 4 + 1] = 4, want[0 * 4 + 3] = 2, want[2 * 4 + 0] = 0.5;
    /* [2, 4): 5 / 2 from 3 to 2, (8 + 2) / 2 from 1 to 0 */
    want[16 + 3 * 4 + 2] = 2.5, want[16 + 1 * 4 + 0] = 5;
    /* [0, 4): everything over 4 samples */
    want[32 + 0 * 4 + 1] = 2, want[32 + 0 * 4 + 3] = 1, want[32 + 2 * 4 + 0] = 0.25;
    want[32 + 3 * 4 + 2] = 1.25, want[32 + 1 * 4 + 0] = 2.5;
    for (int i = 0; i < 48; i++)
        near(m[i], want[i]);

    /* PE a = KP / 2; G[a][b] = block sum of M over a's rows and b's columns / 2 */
    const int group[] = {0, 0, 1, 1};
    const double pe[3 * 4] = {2, 1, 0.25, 0, /* [0, 2): (4 + 0) / 2, 2 / 2, 0.5 / 2, 0 */
                              2.5, 0, 0, 1.25, /* [2, 4): 5 / 2, 0, 0, 2.5 / 2 */
                              2.25, 0.5, 0.125, 0.625};
    double g[3 * 4], one[4];
    assert_int_equal(ari_segment_comm_grouped(tr, 7, 4, 4, group, 2, seg, 3, g, &err), 0);
    for (int i = 0; i < 12; i++)
        near(g[i], pe[i]);
    for (int s = 0; s < 3; s++) {
        assert_int_equal(ari_comm_aggregate(&m[s * 16], 4, group, 2, one, &err), 0);
        for (int i = 0; i < 4; i++)
            near(one[i], pe[s * 4 + i]);
    }

    double d[4];
    ari_comm_direction(pe, 2, ARI_COMM_SEND, d);
    assert_memory_equal(d, pe, sizeof d);
    ari_comm_direction(pe, 2, ARI_COMM_RECV, d);
    near(d[0], 2), near(d[1], 0.25), near(d[2], 1), near(d[3], 0);
    ari_comm_direction(pe, 2, ARI_COMM_SUM, d);
    near(d[0], 4), near(d[1], 1.25), near(d[2], 1.25), near(d[3], 0);
    ari_comm_direction(pe, 2, ARI_COMM_MAX, d);
    near(d[0], 2), near(d[1], 1), near(d[2], 1), near(d[3], 0);

    /* metric means with missing samples */
    const double x[4 * 4] = {1, 2, 3, 4, NAN, 4, 6, NAN, NAN, NAN, NAN, NAN, -1, 1, 0, 0};
    double mean[3 * 4];
    assert_int_equal(ari_segment_means(x, 4, 4, seg, 3, mean, &err), 0);
    const double mw[3 * 4] = {1.5, 4, NAN, 0, 3.5, 6, NAN, 0, 2.5, 5, NAN, 0};
    for (int i = 0; i < 12; i++) {
        if (isnan(mw[i]))
            assert_true(isnan(mean[i]));
        else
            near(mean[i], mw[i]);
    }
    double lo, hi;
    ari_segment_scale(mean, 12, &lo, &hi);
    near(lo, 0), near(hi, 6);
    ari_segment_scale(&mean[2], 1, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));

    /* bad input */
    const ari_segment bad[] = {{2, 2}};
    assert_int_equal(ari_segment_means(x, 4, 4, bad, 1, mean, &err), -1);
    assert_string_equal(err.code, "invalid_parameter");
    const ari_segment past[] = {{0, 5}};
    assert_int_equal(ari_segment_comm(tr, 7, 4, 4, past, 1, m, &err), -1);
    const ari_comm_triple off[] = {{0, 0, 4, 1}};
    assert_int_equal(ari_segment_comm(off, 1, 4, 4, seg, 1, m, &err), -1);
    assert_string_equal(err.code, "invalid_input");
    const int badgroup[] = {0, 0, 2, 1};
    assert_int_equal(ari_comm_aggregate(m, 4, badgroup, 2, one, &err), -1);
}

static void test_grouped_equals_aggregate(void **state)
{
    (void)state;
    enum { n = 32, npe = 4, T = 50, ntr = 500, nseg = 3 };
    static ari_comm_triple tr[ntr];
    static double dense[nseg * n * n], grouped[nseg * npe * npe], agg[npe * npe];
    int group[n];
    for (int k = 0; k < n; k++)
        group[k] = k / (n / npe);
    rng_state = 0x5e6c0001ULL;
    for (int i = 0; i < ntr; i++)
        tr[i] = (ari_comm_triple){(int)(rng_uniform() * T), (int)(rng_uniform() * n), (int)(rng_uniform() * n),
                                  (double)(int)(rng_uniform() * 100)};
    const ari_segment seg[nseg] = {{0, 17}, {17, 50}, {10, 30}};
    ari_error err = {0};
    assert_int_equal(ari_segment_comm(tr, ntr, n, T, seg, nseg, dense, &err), 0);
    assert_int_equal(ari_segment_comm_grouped(tr, ntr, n, T, group, npe, seg, nseg, grouped, &err), 0);
    for (int s = 0; s < nseg; s++) {
        assert_int_equal(ari_comm_aggregate(&dense[s * n * n], n, group, npe, agg, &err), 0);
        for (int i = 0; i < npe * npe; i++)
            near(grouped[s * npe * npe + i], agg[i]);
    }
}

/* ---- the ROSS record ------------------------------------------------------ */

enum { NKP = 256, KP_PER_PE = 16, MAXROWS = 128 };

typedef struct record {
    int rows, kpgid, peid, kpid;
    double rbtotal[MAXROWS];
    double comm[MAXROWS][NKP];
} record;

static char *data_path(const char *name)
{
    const char *dir = getenv("ARIADNE_SHARED_DATA");
    char *path;
    if (asprintf(&path, "%s/ross-sample/%s", dir ? dir : "../shared/data", name) < 0)
        abort();
    return path;
}

/* Splits a CSV line into fields (quotes removed, a quoted field may hold
 * commas); returns the count. */
static int split_csv(char *line, char **field, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            field[n++] = ++p;
            while (*p && *p != '"')
                p++;
            if (*p)
                *p++ = 0;
        } else {
            field[n++] = p;
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                p++;
        }
        if (*p == ',' || *p == '\n' || *p == '\r')
            *p++ = 0;
        while (*p == '\n' || *p == '\r')
            p++;
    }
    return n;
}

static int column(char **field, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(field[i], name) == 0)
            return i;
    fail_msg("no column %s", name);
    return -1;
}

/* 0, or -1 when the file is absent. */
static int read_record(record *r)
{
    char *path = data_path("kpgid100.csv");
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return -1;
    static char line[1 << 16];
    char *field[64];
    assert_non_null(fgets(line, sizeof line, f));
    int nf = split_csv(line, field, 64);
    int c_comm = column(field, nf, "CommData"), c_rb = column(field, nf, "RbTotal");
    int c_gid = column(field, nf, "KpGid"), c_pe = column(field, nf, "Peid"), c_kp = column(field, nf, "Kpid");
    r->rows = 0;
    while (fgets(line, sizeof line, f)) {
        assert_true(r->rows < MAXROWS);
        assert_int_equal(split_csv(line, field, 64), nf);
        r->kpgid = atoi(field[c_gid]);
        r->peid = atoi(field[c_pe]);
        r->kpid = atoi(field[c_kp]);
        r->rbtotal[r->rows] = atof(field[c_rb]);
        char *p = field[c_comm];
        assert_true(*p == '[');
        p++;
        for (int j = 0; j < NKP; j++) {
            char *end;
            r->comm[r->rows][j] = strtod(p, &end);
            assert_true(end != p);
            p = end;
            while (*p == ',' || *p == ' ')
                p++;
        }
        assert_true(*p == ']');
        r->rows++;
    }
    fclose(f);
    return 0;
}

/* Row 100 of RbTotal.csv (256 KPs x T quoted values after a header). */
static void read_rbtotal_row(int kp, int T, double *out)
{
    char *path = data_path("RbTotal.csv");
    FILE *f = fopen(path, "r");
    free(path);
    assert_non_null(f);
    static char line[1 << 16];
    char *field[256];
    for (int i = 0; i <= kp + 1; i++)
        assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(split_csv(line, field, 256), T);
    for (int t = 0; t < T; t++)
        out[t] = atof(field[t]);
    fclose(f);
}

static void test_ross_record(void **state)
{
    (void)state;
    static record r;
    if (read_record(&r) < 0)
        skip();
    assert_int_equal(r.rows, 99);
    assert_int_equal(r.kpgid, 100);
    assert_int_equal(r.peid * KP_PER_PE + r.kpid, r.kpgid);
    static ari_comm_triple tr[MAXROWS * NKP];
    size_t ntr = 0;
    for (int t = 0; t < r.rows; t++)
        for (int j = 0; j < NKP; j++)
            if (r.comm[t][j] != 0)
                tr[ntr++] = (ari_comm_triple){t, r.kpgid, j, r.comm[t][j]};
    const ari_segment seg[] = {{0, 20}, {20, 57}, {57, 99}, {0, 99}};
    enum { nseg = 4, npe = NKP / KP_PER_PE };
    static double m[nseg * NKP * NKP], g[nseg * npe * npe];
    int group[NKP];
    for (int k = 0; k < NKP; k++)
        group[k] = k / KP_PER_PE;
    ari_error err = {0};
    assert_int_equal(ari_segment_comm(tr, ntr, NKP, r.rows, seg, nseg, m, &err), 0);
    assert_int_equal(ari_segment_comm_grouped(tr, ntr, NKP, r.rows, group, npe, seg, nseg, g, &err), 0);
    for (int s = 0; s < nseg; s++) {
        double row[NKP];
        for (int j = 0; j < NKP; j++) {
            double sum = 0;
            for (int t = seg[s].t0; t < seg[s].t1; t++)
                sum += r.comm[t][j];
            row[j] = sum / (seg[s].t1 - seg[s].t0);
        }
        for (int k = 0; k < NKP; k++)
            for (int j = 0; j < NKP; j++)
                near(m[((size_t)s * NKP + k) * NKP + j], k == r.kpgid ? row[j] : 0);
        for (int a = 0; a < npe; a++)
            for (int b = 0; b < npe; b++) {
                double want = 0;
                if (a == r.peid)
                    for (int j = b * KP_PER_PE; j < (b + 1) * KP_PER_PE; j++)
                        want += row[j] / KP_PER_PE;
                near(g[(s * npe + a) * npe + b], want);
            }
        if (s == nseg - 1) {
            double total = 0;
            for (int j = 0; j < NKP; j++)
                total += row[j];
            printf("KP 100 sends %.2f events per sample, %.2f of them within its PE %d\n", total,
                   g[(s * npe + r.peid) * npe + r.peid] * KP_PER_PE, r.peid);
        }
    }
    /* the metric CSV of the same run: KP 100's RbTotal row */
    double rb[99], mean[nseg];
    read_rbtotal_row(r.kpgid, r.rows, rb);
    assert_int_equal(ari_segment_means(rb, 1, r.rows, seg, nseg, mean, &err), 0);
    for (int s = 0; s < nseg; s++) {
        double sum = 0;
        for (int t = seg[s].t0; t < seg[s].t1; t++)
            sum += r.rbtotal[t];
        near(mean[s], sum / (seg[s].t1 - seg[s].t0));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_grouped_equals_aggregate),
        cmocka_unit_test(test_ross_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
