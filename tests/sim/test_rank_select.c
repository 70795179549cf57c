/* test_rank_select.c -- values of given ranks (sim/rank_select.c, the
 * quantiles of a streaming run) against a sorted copy made with qsort. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Returns sim_rank_values' status; when 0, checks each rank's value. */
static int check_ranks(const double *x, size_t n, const size_t *ranks, size_t m)
{
    double *sorted = malloc(n * sizeof *sorted), out[8];
    cr_assert_not_null(sorted);
    memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_value);
    int rc = sim_rank_values(x, n, ranks, m, out);
    for (size_t r = 0; rc == 0 && r < m; r++)
        cr_expect_eq(out[r], sorted[ranks[r]],
                     "rank %zu of %zu: %.17g, not "
                     "%.17g",
                     ranks[r], n, out[r], sorted[ranks[r]]);
    free(sorted);
    return rc;
}

Test(rank_select, ranks_of_spread_values_are_those_of_the_sorted_array)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    size_t n = 200001;
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    for (size_t i = 0; i < n; i++) /* JCT-like, with ties and zeros */
        x[i] = i % 97 == 0  ? 0.0
               : i % 5 == 0 ? (double)(long)gsl_ran_lognormal(g, 8, 2)
                            : gsl_ran_lognormal(g, 8, 2);
    size_t ranks[] = {
        0,     1,     n / 2, n / 2 + 1, (size_t)(0.95 * (double)(n - 1)),
        n - 2, n - 1, n / 2};
    cr_expect_eq(check_ranks(x, n, ranks, 8), 0);
    free(x);
    gsl_rng_free(g);
}

Test(rank_select, small_arrays_and_negative_values)
{
    double one[] = {3.5};
    size_t r0[] = {0};
    cr_expect_eq(check_ranks(one, 1, r0, 1), 0);
    double mixed[] = {-1.5, 2, -0.0, 0.0, -1e300, 7, 2, -3};
    size_t all[] = {0, 1, 2, 3, 4, 5, 6, 7};
    cr_expect_eq(check_ranks(mixed, 8, all, 8), 0);
}

Test(rank_select, values_crowded_in_one_bucket_are_left_to_the_caller)
{
    size_t n = 100000;
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    for (size_t i = 0; i < n; i++) /* all of them in [1000, 1024) */
        x[i] = 1000 + (double)((i * 7919) % n) / (double)n;
    size_t ranks[] = {n / 2};
    cr_expect_eq(check_ranks(x, n, ranks, 1), -1);
    size_t bad[] = {n};
    cr_expect_eq(sim_rank_values(x, n, bad, 1, (double[1]){0}), -1);
    free(x);
}
