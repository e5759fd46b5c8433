/* abe.c: the area-bound linear program, built and solved with GLPK.
 *
 * Column 1 is T; columns 2.. are the usable pairs (r, k) (known mean
 * duration and count[r] > 0). Rows 1..K fix sum_r x[r][k] = n[k]; rows
 * K+1..K+R bound sum_k w[r][k] x[r][k] - count[r] T <= 0. GLPK runs
 * silently (terminal output off for the call, then restored).
 */
#include "analysis/abe.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

static int check_finite_nonneg(const double *v, int n, const char *what, ari_error *err)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "abe: %s[%d] = %g must be finite and >= 0", what, i, v[i]);
    return 0;
}

static int validate(const ari_abe_input *in, ari_error *err)
{
    if (!in)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "abe: no input");
    if (in->ntypes < 1 || in->ntypes > ARI_ABE_MAX_TYPES || in->nrestypes < 1 ||
        in->nrestypes > ARI_ABE_MAX_RESTYPES ||
        (long long)in->ntypes * in->nrestypes > ARI_ABE_MAX_PAIRS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "abe: %d task types x %d resource types is out of range "
                             "(1..%d x 1..%d, at most %d pairs)",
                             in->ntypes, in->nrestypes, ARI_ABE_MAX_TYPES, ARI_ABE_MAX_RESTYPES,
                             ARI_ABE_MAX_PAIRS);
    if (!in->task_count || !in->res_count || !in->mean_duration)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "abe: missing input arrays");
    if (check_finite_nonneg(in->task_count, in->ntypes, "task_count", err) ||
        check_finite_nonneg(in->res_count, in->nrestypes, "res_count", err))
        return -1;
    int pairs = in->ntypes * in->nrestypes;
    for (int i = 0; i < pairs; i++) {
        double w = in->mean_duration[i];
        if (!isnan(w) && (!isfinite(w) || w < 0))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "abe: mean_duration for resource type %d, task type %d is %g "
                                 "(must be >= 0, or NAN when unknown)",
                                 i / in->ntypes, i % in->ntypes, w);
    }
    return 0;
}

static int usable(const ari_abe_input *in, int r, int k)
{
    return in->res_count[r] > 0 && !isnan(in->mean_duration[r * in->ntypes + k]);
}

/* Every type with tasks needs at least one usable resource type. */
static int check_feasible(const ari_abe_input *in, ari_error *err)
{
    double total = 0;
    for (int r = 0; r < in->nrestypes; r++)
        total += in->res_count[r];
    for (int k = 0; k < in->ntypes; k++) {
        if (in->task_count[k] == 0)
            continue;
        if (total == 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "abe: infeasible: there are tasks but no resources");
        int ok = 0;
        for (int r = 0; r < in->nrestypes && !ok; r++)
            ok = usable(in, r, k);
        if (!ok)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "abe: infeasible: task type %d has %g tasks but no resource "
                                 "type with a known duration for it",
                                 k, in->task_count[k]);
    }
    return 0;
}

/* Builds the LP into P; colmap[r * K + k] receives the GLPK column of x[r][k]
 * (0 when excluded). Returns 0, or -1 when out of memory. */
static int build_lp(glp_prob *P, const ari_abe_input *in, int *colmap)
{
    int K = in->ntypes, R = in->nrestypes;
    int ncols = 1;
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++)
            colmap[r * K + k] = usable(in, r, k) ? ++ncols : 0;

    glp_set_obj_dir(P, GLP_MIN);
    glp_add_rows(P, K + R);
    glp_add_cols(P, ncols);
    glp_set_col_bnds(P, 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(P, 1, 1.0);
    for (int j = 2; j <= ncols; j++)
        glp_set_col_bnds(P, j, GLP_LO, 0.0, 0.0);
    for (int k = 0; k < K; k++)
        glp_set_row_bnds(P, k + 1, GLP_FX, in->task_count[k], in->task_count[k]);
    for (int r = 0; r < R; r++)
        glp_set_row_bnds(P, K + r + 1, GLP_UP, 0.0, 0.0);

    /* Each x[r][k] appears in its type row and (when w > 0) its resource
     * row; T appears in every resource row with count > 0. */
    size_t cap = 2 * (size_t)(ncols - 1) + (size_t)R + 1;
    int *ia = malloc(cap * sizeof *ia), *ja = malloc(cap * sizeof *ja);
    double *ar = malloc(cap * sizeof *ar);
    if (!ia || !ja || !ar) {
        free(ia), free(ja), free(ar);
        return -1;
    }
    int ne = 0;
    for (int r = 0; r < R; r++) {
        for (int k = 0; k < K; k++) {
            int j = colmap[r * K + k];
            if (!j)
                continue;
            ++ne, ia[ne] = k + 1, ja[ne] = j, ar[ne] = 1.0;
            double w = in->mean_duration[r * K + k];
            if (w > 0)
                ++ne, ia[ne] = K + r + 1, ja[ne] = j, ar[ne] = w;
        }
        if (in->res_count[r] > 0)
            ++ne, ia[ne] = K + r + 1, ja[ne] = 1, ar[ne] = -in->res_count[r];
    }
    glp_load_matrix(P, ne, ia, ja, ar);
    free(ia), free(ja), free(ar);
    return 0;
}

/* Runs the simplex; returns 0 at an optimum, else -1 with the error set. */
static int solve_lp(glp_prob *P, ari_error *err)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    int old_term = glp_term_out(GLP_OFF);
    glp_scale_prob(P, GLP_SF_AUTO);
    int rc = glp_simplex(P, &parm);
    glp_term_out(old_term);
    if (rc != 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "abe: GLPK simplex failed (code %d)", rc);
    int status = glp_get_status(P);
    if (status != GLP_OPT)
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "abe: GLPK found no optimum (status %d)", status);
    return 0;
}

static void read_solution(glp_prob *P, const ari_abe_input *in, const int *colmap,
                          ari_abe_result *out)
{
    int K = in->ntypes, R = in->nrestypes;
    out->bound = glp_get_col_prim(P, 1);
    for (int r = 0; r < R; r++) {
        double busy = 0;
        for (int k = 0; k < K; k++) {
            int j = colmap[r * K + k];
            double x = j ? glp_get_col_prim(P, j) : 0.0;
            out->alloc[r * K + k] = x > 0 ? x : 0.0; /* no -0 or -1e-17 */
            if (j)
                busy += in->mean_duration[r * K + k] * out->alloc[r * K + k];
        }
        out->load[r] = in->res_count[r] > 0 ? busy / in->res_count[r] : 0.0;
    }
    if (out->bound < 0)
        out->bound = 0;
}

int ari_abe_compute(const ari_abe_input *in, ari_abe_result *out, ari_error *err)
{
    if (!out)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "abe: no result");
    memset(out, 0, sizeof *out);
    if (validate(in, err) != 0 || check_feasible(in, err) != 0)
        return -1;

    size_t pairs = (size_t)in->ntypes * (size_t)in->nrestypes;
    int *colmap = malloc(pairs * sizeof *colmap);
    out->alloc = calloc(pairs, sizeof *out->alloc);
    out->load = calloc((size_t)in->nrestypes, sizeof *out->load);
    glp_prob *P = glp_create_prob();
    int rc = 0;
    if (!colmap || !out->alloc || !out->load || build_lp(P, in, colmap) != 0)
        rc = ari_error_set(err, ARI_E_NOMEM, "abe: out of memory");
    else
        rc = solve_lp(P, err);
    if (rc == 0) {
        read_solution(P, in, colmap, out);
        out->ntypes = in->ntypes;
        out->nrestypes = in->nrestypes;
    } else {
        ari_abe_result_free(out);
    }
    glp_delete_prob(P);
    /* GLPK keeps an environment per thread: free it, so that a server
     * thread that solved an LP keeps nothing (GLPK re-creates it). */
    glp_free_env();
    free(colmap);
    return rc;
}

void ari_abe_result_free(ari_abe_result *res)
{
    if (!res)
        return;
    void *owned[] = {res->alloc, res->load};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}
