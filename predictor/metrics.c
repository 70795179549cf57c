/* metrics.c -- seeded splits and the regression metrics of the papers
 * (Hu, section 4.3; Wang et al., section IV-C): MSE, RMSE, MAE, MAPE, R2. */
#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "predictor.h"

size_t pred_split(size_t n, double train_frac, unsigned long seed, size_t *idx)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r) {
        gsl_rng_set(r, seed);
        gsl_ran_shuffle(r, idx, n, sizeof *idx);
        gsl_rng_free(r);
    }
    size_t k = (size_t)floor(train_frac * (double)n + 0.5);
    if (n >= 2 && k < 1)
        k = 1;
    if (n >= 2 && k > n - 1)
        k = n - 1;
    return k > n ? n : k;
}

void pred_metrics_compute(const double *y, const double *yhat, size_t n,
                          struct pred_metrics *m)
{
    double sse = 0, sae = 0, sape = 0, mean = 0, sst = 0;
    size_t nm = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = yhat[i] - y[i];
        sse += d * d;
        sae += fabs(d);
        sst += (y[i] - mean) * (y[i] - mean);
        if (y[i] != 0) {
            sape += fabs(d / y[i]);
            nm++;
        }
    }
    m->n = n;
    m->n_mape = nm;
    m->mse = sse / (double)n;
    m->rmse = sqrt(m->mse);
    m->mae = sae / (double)n;
    m->mape = nm ? 100.0 * sape / (double)nm : NAN;
    m->r2 = sst > 0 ? 1.0 - sse / sst : NAN;
}
