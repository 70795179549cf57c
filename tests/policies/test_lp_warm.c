/* test_lp_warm.c -- gavel-fifo's warm-started max-sum LP (lp_warm.c):
 * optima derived by hand over a sequence of solves in which jobs come and
 * go, a tie that must come out as lp.c's symmetric answer, and agreement
 * with lp.c's solve from scratch on random sequences. */
#include <stdlib.h>

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "lp_internal.h"
#include "sim.h"

#define MAXJ 400

/* FIFO's LP on one type of CAP GPUs: 1-GPU jobs valued M - rank (the
 * earlier the more). Each job's x is at most 1 and each GPU-second is
 * worth most to the earliest jobs, so the CAP earliest get x = 1, the
 * rest 0; value = the sum of their weights. */
Test(gavel_lp_warm, the_earliest_jobs_fill_the_gpus_as_jobs_come_and_go)
{
    static double coef[MAXJ], x[MAXJ];
    static int32_t gpus[MAXJ];
    static uint32_t ids[MAXJ];
    const int32_t cap[1] = {10};
    struct pol_lp_warm *w = pol_lp_warm_create();
    cr_assert(w);
    uint32_t first = 0, next = 200; /* active: ids first .. next - 1 */
    char why[200] = "";
    for (int step = 0; step < 30; step++) {
        int32_t n = (int32_t)(next - first);
        for (int32_t j = 0; j < n; j++) {
            ids[j] = first + (uint32_t)j;
            gpus[j] = 1;
            coef[j] = n - j;
        }
        struct pol_lp lp = {n, 1, coef, NULL, gpus, cap};
        double v = -1;
        cr_assert_eq(pol_lp_solve_warm(w, &lp, ids, x, &v, why, sizeof why), 0,
                     "%s", why);
        double want = 0;
        for (int32_t j = 0; j < n; j++) {
            cr_expect_eq(x[j], j < 10 ? 1.0 : 0.0, "step %d job %u: x %.17g",
                         step, ids[j], x[j]);
            want += j < 10 ? coef[j] : 0;
        }
        cr_expect_float_eq(v, want, 1e-9 * want);
        first += (uint32_t)(step % 3);     /* 0 to 2 finish */
        next += (uint32_t)(step % 4 == 0); /* one arrives now and then */
    }
    pol_lp_warm_destroy(w);
}

/* Two identical jobs share one GPU (every split is optimal): the warm
 * solver cannot prove its vertex is the only optimum and hands the LP to
 * lp.c, which returns the symmetric one, 1/2 each (test_gavel.c). */
Test(gavel_lp_warm, a_tie_gets_lp_c_s_symmetric_answer)
{
    static const double coef[3] = {1, 1, 2};
    static const int32_t gpus[3] = {1, 1, 1}, cap[1] = {2};
    static const uint32_t ids[3] = {0, 1, 2};
    struct pol_lp lp = {3, 1, coef, NULL, gpus, cap};
    struct pol_lp_warm *w = pol_lp_warm_create();
    double x[3], v;
    char why[200] = "";
    for (int k = 0; k < 2; k++) { /* cold, then from its basis */
        cr_assert_eq(pol_lp_solve_warm(w, &lp, ids, x, &v, why, sizeof why), 0,
                     "%s", why);
        cr_expect_eq(x[0], 0.5);
        cr_expect_eq(x[1], 0.5);
        cr_expect_eq(x[2], 1.0);
        cr_expect_float_eq(v, 3, 1e-12);
    }
    pol_lp_warm_destroy(w);
}

/* Random sequences of FIFO-like LPs (3 types, 1 to 8 GPUs per job, jobs
 * arriving and leaving): every solve gives lp.c's x, bit for bit, and
 * GLPK takes every seeded basis (jobs split over two types leave, which
 * unmended leaves parts of the basis without a basic slack: singular). */
Test(gavel_lp_warm, agrees_with_the_solve_from_scratch)
{
    static double coef[MAXJ * 3], x[MAXJ * 3], y[MAXJ * 3], speed[MAXJ * 3];
    static int32_t gpus[MAXJ], g[MAXJ];
    static uint32_t ids[MAXJ];
    const int32_t cap[3] = {24, 24, 12};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int i = 0; i < MAXJ * 3; i++) /* relative speeds, best 1 */
        speed[i] = (i % 3 == 0) ? 1 : 0.2 + 0.8 * gsl_rng_uniform(r);
    for (int i = 0; i < MAXJ; i++)
        g[i] = (int32_t)1 << gsl_rng_uniform_int(r, 4);
    struct pol_lp_warm *w = pol_lp_warm_create();
    uint32_t first = 0, next = 150;
    char why[200] = "";
    int solves = 0;
    while (next < MAXJ && solves < 120) {
        int32_t n = (int32_t)(next - first);
        for (int32_t j = 0; j < n; j++) {
            uint32_t id = first + (uint32_t)j;
            ids[j] = id;
            gpus[j] = g[id];
            for (int t = 0; t < 3; t++)
                coef[j * 3 + t] = (double)(n - j) * speed[id * 3 + (uint32_t)t];
        }
        struct pol_lp lp = {n, 3, coef, NULL, gpus, cap};
        double v, u;
        cr_assert_eq(pol_lp_solve_warm(w, &lp, ids, x, &v, why, sizeof why), 0,
                     "%s", why);
        cr_assert_eq(pol_lp_solve(&lp, POL_LP_MAX_SUM, y, &u, why, sizeof why),
                     0, "%s", why);
        for (int32_t i = 0; i < n * 3; i++)
            cr_expect_eq(x[i], y[i], "solve %d cell %d: %.17g, not %.17g",
                         solves, i, x[i], y[i]);
        cr_expect_float_eq(v, u, 1e-9 * u);
        first += (uint32_t)gsl_rng_uniform_int(r, 3);
        next += (uint32_t)gsl_rng_uniform_int(r, 4);
        solves++;
    }
    cr_expect_eq(pol_lp_warm_rejected(w), 0, "%u seeded bases rejected",
                 pol_lp_warm_rejected(w));
    gsl_rng_free(r);
    pol_lp_warm_destroy(w);
}
