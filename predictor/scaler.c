/* scaler.c -- feature standardization, with a two-pass mean and variance
 * (numerically safer than the one-pass sum of squares). */
#include <math.h>

#include "predictor.h"

int pred_scaler_fit(struct pred_scaler *sc, const double *x, size_t n,
                    size_t stride)
{
    if (n == 0)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i * stride]))
            return -1;
        sum += x[i * stride];
    }
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i * stride] - mean;
        ss += d * d;
    }
    double sd = sqrt(ss / (double)n);
    sc->mean = mean;
    sc->sd = sd > 0 ? sd : 1.0;
    return 0;
}

void pred_scaler_apply(const struct pred_scaler *sc, double *x, size_t n,
                       size_t stride)
{
    for (size_t i = 0; i < n; i++)
        x[i * stride] = (x[i * stride] - sc->mean) / sc->sd;
}

void pred_scaler_invert(const struct pred_scaler *sc, double *x, size_t n,
                        size_t stride)
{
    for (size_t i = 0; i < n; i++)
        x[i * stride] = x[i * stride] * sc->sd + sc->mean;
}
