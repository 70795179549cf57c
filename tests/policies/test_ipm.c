/* test_ipm.c -- the interior-point LP solver (policies/ipm.h): small LPs
 * whose answers are worked out by hand, and the points scipy 1.10.1's
 * legacy interior-point linprog itself returns on LPs that the gavel:*
 * policies solve (tests/data/ipm/points.txt, made by
 * tests/data/ipm/scipy_points.py; README.md there). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "ipm.h"

#define POINTS HETSIM_TEST_DATA "/ipm/points.txt"

/* Solves min c x, A x <= b (dense rows), bounds lb/ub (NULL: x >= 0). */
static int solve(size_t n, size_t m, const double *a, const double *b,
                 const double *c, const double *lb, const double *ub, double *x)
{
    size_t row[64], col[64], nnz = 0;
    double val[64];
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            if (a[i * n + j] != 0) {
                row[nnz] = i, col[nnz] = j, val[nnz++] = a[i * n + j];
            }
    struct ipm_lp lp = {n, m, nnz, row, col, val, b, c, lb, ub};
    return ipm_solve(&lp, x, NULL);
}

/* max x + y, x + 2y <= 4, 3x + y <= 6: both rows tight at (1.6, 1.2). */
Test(ipm, finds_the_unique_vertex_optimum)
{
    double a[] = {1, 2, 3, 1}, b[] = {4, 6}, c[] = {-1, -1}, x[2];
    cr_assert_eq(solve(2, 2, a, b, c, NULL, NULL, x), IPM_OK);
    cr_expect(fabs(x[0] - 1.6) < 1e-7 && fabs(x[1] - 1.2) < 1e-7,
              "x = (%g, %g)", x[0], x[1]);
}

/* A singleton row becomes a bound, an upper bound becomes a row, a free
 * variable is split: min -2 x0 + x1, x0 <= 2 (a row of one entry), x1 free
 * with x1 >= x0 - 5 written as x0 - x1 <= 5, x0 <= 3 (bound): x0 = 2,
 * x1 = -3. */
Test(ipm, presolve_bounds_and_free_variables_give_the_optimum)
{
    double a[] = {1, 0, 1, -1}, b[] = {2, 5}, c[] = {-2, 1}, x[2];
    double lb[] = {0, -HUGE_VAL}, ub[] = {3, HUGE_VAL};
    cr_assert_eq(solve(2, 2, a, b, c, lb, ub, x), IPM_OK);
    cr_expect(fabs(x[0] - 2) < 1e-7 && fabs(x[1] + 3) < 1e-7, "x = (%g, %g)",
              x[0], x[1]);
}

/* x0 + x1 <= 1 and -x0 - x1 <= -2 cannot both hold. */
Test(ipm, reports_an_infeasible_lp)
{
    double a[] = {1, 1, -1, -1}, b[] = {1, -2}, c[] = {0, 0}, x[2];
    cr_expect_eq(solve(2, 2, a, b, c, NULL, NULL, x), IPM_INFEASIBLE);
}

/* min -x0, x0 - x1 <= 1: x0 grows with x1 for ever. */
Test(ipm, reports_an_unbounded_lp)
{
    double a[] = {1, -1}, b[] = {1}, c[] = {-1, 0}, x[2];
    cr_expect_eq(solve(2, 1, a, b, c, NULL, NULL, x), IPM_UNBOUNDED);
}

/* A constant objective: the point is the one the path reaches, which the
 * symmetry of the LP fixes: x0 + x1 <= 1 with x0 and x1 alike gives
 * x0 = x1. */
Test(ipm, a_feasibility_lp_ends_at_a_symmetric_interior_point)
{
    double a[] = {1, 1}, b[] = {1}, c[] = {0, 0}, x[2];
    cr_assert_eq(solve(2, 1, a, b, c, NULL, NULL, x), IPM_OK);
    cr_expect(fabs(x[0] - x[1]) < 1e-12 && x[0] > 0 && x[0] + x[1] <= 1,
              "x = (%g, %g)", x[0], x[1]);
}

struct fixture_lp {
    struct ipm_lp lp;
    size_t *row, *col;
    double *val, *b, *c, *lb, *ub, *want;
    int status;
};

static int read_lp(FILE *f, struct fixture_lp *t)
{
    size_t n, m, nnz;
    if (fscanf(f, " lp %zu %zu %zu", &n, &m, &nnz) != 3)
        return 0;
    t->row = malloc((nnz + 1) * sizeof *t->row);
    t->col = malloc((nnz + 1) * sizeof *t->col);
    t->val = malloc((nnz + 1) * sizeof *t->val);
    t->b = malloc((m + 1) * sizeof *t->b);
    double *v = malloc((5 * n + 1) * sizeof *v);
    cr_assert(t->row && t->col && t->val && t->b && v);
    t->c = v, t->lb = v + n, t->ub = v + 2 * n, t->want = v + 3 * n;
    for (size_t k = 0; k < nnz; k++)
        cr_assert_eq(
            fscanf(f, "%zu %zu %lf", &t->row[k], &t->col[k], &t->val[k]), 3);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(fscanf(f, "%lf", &t->b[i]), 1);
    for (size_t j = 0; j < 3 * n; j++)
        cr_assert_eq(fscanf(f, "%lf", &v[j]), 1);
    int nit;
    cr_assert_eq(fscanf(f, " scipy %d %d", &t->status, &nit), 2);
    for (size_t j = 0; j < n; j++)
        cr_assert_eq(fscanf(f, "%lf", &t->want[j]), 1);
    t->lp = (struct ipm_lp){n,      m,    nnz,  t->row, t->col,
                            t->val, t->b, t->c, t->lb,  t->ub};
    return 1;
}

/* Every LP of the fixture: scipy's status, and its point within 1e-6. */
static void check_points(const char *dense)
{
    setenv("HETSIM_IPM_DENSE", dense, 1);
    FILE *f = fopen(POINTS, "r");
    cr_assert(f, "cannot open %s", POINTS);
    struct fixture_lp t;
    size_t count = 0, n_ok = 0;
    double worst = 0;
    while (read_lp(f, &t)) {
        double *x = malloc((t.lp.n + 1) * sizeof *x);
        cr_assert(x);
        int st = ipm_solve(&t.lp, x, NULL);
        double d = 0;
        for (size_t j = 0; j < t.lp.n; j++)
            d = fmax(d, fabs(x[j] - t.want[j]));
        cr_expect_eq(st, t.status,
                     "LP %zu (%zu variables): status %d, scipy %d", count,
                     t.lp.n, st, t.status);
        if (t.status == IPM_OK) {
            cr_expect(d <= 1e-6, "LP %zu: |x - scipy's x| = %.3g", count, d);
            worst = fmax(worst, d);
            n_ok++;
        }
        count++;
        free(x), free(t.row), free(t.col), free(t.val), free(t.b), free(t.c);
    }
    fclose(f);
    unsetenv("HETSIM_IPM_DENSE");
    cr_assert(count >= 20 && n_ok >= 10, "%zu LPs read", count);
    cr_log_info("ipm vs scipy (%s): %zu LPs, %zu optimal, largest |dx| %.2e",
                *dense == '1' ? "dense" : "structured", count, n_ok, worst);
}

Test(ipm, lands_on_scipys_points_for_gavels_lps)
{
    check_points("0");
}

Test(ipm, the_dense_normal_equations_land_there_too)
{
    check_points("1");
}
