/* test_predictor.c -- the predictor module. Expected values by hand. */
#include <math.h>

#include <criterion/criterion.h>

#include "predictor.h"

Test(scaler, fits_mean_and_population_sd_computed_by_hand)
{
    /* 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32,
     * population variance 4, sd 2. */
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, x, 8, 1), 0);
    cr_assert_float_eq(sc.mean, 5.0, 1e-15);
    cr_assert_float_eq(sc.sd, 2.0, 1e-15);
    pred_scaler_apply(&sc, x, 8, 1);
    cr_assert_float_eq(x[0], -1.5, 1e-15);
    cr_assert_float_eq(x[7], 2.0, 1e-15);
    pred_scaler_invert(&sc, x, 8, 1);
    cr_assert_float_eq(x[0], 2.0, 1e-15);
}

Test(scaler, reads_one_column_of_a_row_major_table)
{
    double rows[] = {1, 100, 3, 200, 5, 300}; /* column 1: 100, 200, 300 */
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, rows + 1, 3, 2), 0);
    cr_assert_float_eq(sc.mean, 200.0, 1e-12);
    cr_assert_float_eq(sc.sd, sqrt(20000.0 / 3.0), 1e-9);
}

Test(scaler, maps_a_constant_feature_to_zero)
{
    double x[] = {7, 7, 7};
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, x, 3, 1), 0);
    cr_assert_eq(sc.sd, 1.0);
    pred_scaler_apply(&sc, x, 3, 1);
    cr_assert_eq(x[1], 0.0);
}

Test(scaler, refuses_empty_input_and_non_finite_values)
{
    struct pred_scaler sc;
    double x[] = {1, NAN};
    cr_assert_eq(pred_scaler_fit(&sc, x, 0, 1), -1);
    cr_assert_eq(pred_scaler_fit(&sc, x, 2, 1), -1);
}
