/* cmdscale.c: classical MDS of a distance matrix (contract in cmdscale.h). */
#include "analysis/cmdscale.h"
#include "analysis/mds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* d2 = the squared distances, a zero diagonal. */
static void square(const double *d, int n, double *d2)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double v = i == k ? 0 : d[(size_t)i * n + k];
            d2[(size_t)i * n + k] = v * v;
        }
}

int ari_cmdscale(const double *d, int n, int dims, double *coords, double *explained, ari_error *err)
{
    if (n < 0 || n > ARI_CMDSCALE_MAX_POINTS || dims < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "classical MDS of %d points to %d axes: 0..%d points, 1 axis or more",
                             n, dims, ARI_CMDSCALE_MAX_POINTS);
    for (size_t i = 0; i < (size_t)n * n; i++)
        if (!isfinite(d[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "distance %zu is not finite", i);
    memset(explained, 0, (size_t)dims * sizeof *explained);
    if (n <= 1) {
        memset(coords, 0, (size_t)(n > 0 ? n : 0) * dims * sizeof *coords);
        return 0;
    }
    double *d2 = malloc((size_t)n * n * sizeof *d2);
    if (!d2)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    square(d, n, d2);
    int rc = ari_mds_squared(d2, n, dims, coords, explained, err);
    free(d2);
    return rc;
}
