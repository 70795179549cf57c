/* predictor.h -- the resource predictor: feature scaling today; the
 * Transformer-BiGRU model, its training and its baselines come next
 * (see the predictor issue). Depends on nothing else of hetsim. */
#ifndef HETSIM_PREDICTOR_H
#define HETSIM_PREDICTOR_H

#include <stddef.h>

/* Standardization of one numeric feature: z = (x - mean) / sd. Fitted on a
 * training split only, stored in checkpoints, applied to new rows. */
struct pred_scaler {
    double mean;
    double sd; /* population standard deviation; 1 when the feature is
                  constant, so constant features map to 0 */
};

/* Fits a scaler to X[0], X[stride], ... (N values, N >= 1). Returns 0, or
 * -1 when N is 0 or a value is not finite. */
int pred_scaler_fit(struct pred_scaler *sc, const double *x, size_t n,
                    size_t stride);

/* Standardizes X in place (N values, STRIDE apart). */
void pred_scaler_apply(const struct pred_scaler *sc, double *x, size_t n,
                       size_t stride);

/* The inverse: original units from standardized values, in place. */
void pred_scaler_invert(const struct pred_scaler *sc, double *x, size_t n,
                        size_t stride);

#endif
