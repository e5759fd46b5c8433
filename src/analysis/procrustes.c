/* procrustes.c: similarity Procrustes alignment of 2-D layouts (the
 * contract is in procrustes.h). */
#include "analysis/procrustes.h"

#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/* Mean (2) and RMS radius of the first n rows of a (n x 2). */
static double centre_of(const double *a, size_t n, double mean[2])
{
    mean[0] = mean[1] = 0;
    for (size_t i = 0; i < n; i++) {
        mean[0] += a[2 * i];
        mean[1] += a[2 * i + 1];
    }
    mean[0] /= (double)n;
    mean[1] /= (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double x = a[2 * i] - mean[0], y = a[2 * i + 1] - mean[1];
        ss += x * x + y * y;
    }
    return sqrt(ss / (double)n);
}

/* R (2 x 2, row-major) = V U^T from the SVD of C = P~^T Y~ = U S V^T. */
static void rotation_of(const double C[4], double R[4])
{
    double a[4] = {C[0], C[1], C[2], C[3]}, v[4], s[2], w[2];
    gsl_matrix_view A = gsl_matrix_view_array(a, 2, 2), Vm = gsl_matrix_view_array(v, 2, 2);
    gsl_vector_view S = gsl_vector_view_array(s, 2), W = gsl_vector_view_array(w, 2);
    gsl_linalg_SV_decomp(&A.matrix, &Vm.matrix, &S.vector, &W.vector);
    /* a now holds U. R[i][j] = sum_c V[i][c] U[j][c]. */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            R[2 * i + j] = v[2 * i] * a[2 * j] + v[2 * i + 1] * a[2 * j + 1];
}

int ari_procrustes_align(const double *prev, double *cur, size_t n_common, size_t n_total)
{
    if (n_common > n_total)
        return -1;
    if (n_common == 0)
        return 0;
    double mp[2], my[2];
    double sp = centre_of(prev, n_common, mp), sy = centre_of(cur, n_common, my);
    if (!(sy > 0) || !(sp > 0) || !isfinite(sy) || !isfinite(sp))
        return 0;
    double C[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n_common; i++) {
        double p0 = (prev[2 * i] - mp[0]) / sp, p1 = (prev[2 * i + 1] - mp[1]) / sp;
        double y0 = (cur[2 * i] - my[0]) / sy, y1 = (cur[2 * i + 1] - my[1]) / sy;
        C[0] += p0 * y0;
        C[1] += p0 * y1;
        C[2] += p1 * y0;
        C[3] += p1 * y1;
    }
    double R[4];
    rotation_of(C, R);
    double scale = sp / sy;
    for (size_t i = 0; i < n_total; i++) {
        double y0 = (cur[2 * i] - my[0]) * scale, y1 = (cur[2 * i + 1] - my[1]) * scale;
        cur[2 * i] = y0 * R[0] + y1 * R[2] + mp[0];
        cur[2 * i + 1] = y0 * R[1] + y1 * R[3] + mp[1];
    }
    return 0;
}
