/* nn_math.c -- the float build's exp against exp in double (glibc): the
 * error bound is the float format's (a few units in the last place of
 * 2^-23 = 1.19e-7 relative), not a figure taken from the program. */
#include <math.h>

#include <cblas.h>
#include <criterion/criterion.h>

#include "nn_internal.h"

Test(nn_math, float_exp_within_a_few_ulp_of_exp_in_double)
{
    double worst = 0, at = 0;
    for (long i = -870000; i <= 880000; i++) {
        float x = (float)i * 1e-4f;
        double want = exp((double)x), got = (double)pred_expf_poly(x);
        double e = fabs(got - want) / want;
        if (e > worst) {
            worst = e;
            at = x;
        }
    }
    /* 3 ulp of float at most (the 8 rounded steps of Horner's rule and
     * the reduction stay within that). */
    cr_assert_lt(worst, 3 * 1.19e-7, "relative error %g at x = %g", worst, at);
    cr_assert_float_eq(pred_expf_poly(0), 1, 0);
    cr_assert_float_eq(pred_expf_poly(1), 2.718281828, 3e-7);
    /* Clamped ends: e^-87 below -87 (no subnormals), e^88 above 88. */
    cr_assert_float_eq(pred_expf_poly(-200), exp(-87.0), 3e-7 * exp(-87.0));
    cr_assert_float_eq(pred_expf_poly(1000), exp(88.0), 3e-7 * exp(88.0));
    cr_assert(isnan(pred_expf_poly(NAN)));
}

/* OpenBLAS's threads split a product and change the order of its sums, so
 * hetsim links OpenBLAS's serial build: a model then does not depend on
 * the machine's core count (or OPENBLAS_NUM_THREADS), and no worker
 * threads spin at start-up (predictor/CMakeLists.txt). */
Test(nn_math, products_run_on_openblas_serial_build)
{
    cr_assert_eq(openblas_get_parallel(), OPENBLAS_SEQUENTIAL,
                 "linked OpenBLAS is not the serial build (%d)",
                 openblas_get_parallel());
    openblas_set_num_threads(2); /* a no-op in the serial build */
    cr_assert_eq(openblas_get_num_threads(), 1);
    pfloat a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    pred_gemm(0, 0, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
    /* by hand: [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50] */
    cr_assert_float_eq(c[0], 19, 1e-6);
    cr_assert_float_eq(c[3], 50, 1e-6);
}
