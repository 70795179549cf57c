/* dropout.c -- the dropout mask against the Bernoulli law it must follow:
 * each element dropped with probability p, independently of the others,
 * the kept ones scaled by 1/(1-p). The expected figures are binomial
 * moments, not outputs of the program. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "nn_internal.h"

#define N 200000

Test(dropout, drops_a_fraction_p_independently_and_scales_the_rest)
{
    static pfloat in[N], out[N], mask[N];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (size_t i = 0; i < N; i++)
        in[i] = (pfloat)(1 + (double)(i % 7));
    double ps[] = {0.01, 0.1, 0.5};
    for (int k = 0; k < 3; k++) {
        double p = ps[k];
        pred_dropout_forward(out, mask, in, N, p, r);
        size_t dropped = 0, pairs = 0;
        for (size_t i = 0; i < N; i++) {
            cr_assert(mask[i] == 0 || fabs(mask[i] - 1 / (1 - p)) < 1e-12,
                      "p %g mask[%zu] = %g", p, i, (double)mask[i]);
            cr_assert_float_eq(out[i], in[i] * mask[i], 1e-12);
            dropped += mask[i] == 0;
            pairs += i > 0 && mask[i] == 0 && mask[i - 1] == 0;
        }
        /* Dropped count ~ Binomial(N, p): within 5 standard deviations,
         * sqrt(N p (1-p)) (p = 0.01: 44.5). Neighbours both dropped, the
         * check of independence: mean (N-1) p^2, and a sd below
         * sqrt((N-1) p^2 (1 + 2p)) (the pairs overlap). */
        double sd = sqrt(N * p * (1 - p));
        cr_assert_lt(fabs((double)dropped - N * p), 5 * sd, "p %g: %zu", p,
                     dropped);
        double mp = (N - 1) * p * p, sdp = sqrt(mp * (1 + 2 * p));
        cr_assert_lt(fabs((double)pairs - mp), 5 * sdp + 1, "p %g: %zu pairs",
                     p, pairs);
    }
    /* p = 0 or no generator: the identity. */
    pred_dropout_forward(out, mask, in, N, 0, r);
    for (size_t i = 0; i < N; i++)
        cr_assert(mask[i] == 1 && out[i] == in[i]);
    pred_dropout_forward(out, mask, in, N, 0.3, NULL);
    for (size_t i = 0; i < N; i++)
        cr_assert(mask[i] == 1 && out[i] == in[i]);
    gsl_rng_free(r);
}
