/* bench_lp.c -- time of one gavel-maxmin LP (policies/lp.c, GLPK) with N
 * active jobs on gavel-108's types (36 GPUs each of 3 types): throughputs
 * of C job classes drawn at random (C = 0: one per job), 1/2/4/8 GPUs,
 * coefficients and needs as gavel.c makes them. Prints the milliseconds per
 * solve, best and median of REPS.
 *
 * Usage: bench_lp N C REPS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "lp_internal.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_lp N C REPS\n");
        return 2;
    }
    int32_t n = atoi(argv[1]), classes = atoi(argv[2]), reps = atoi(argv[3]);
    if (n < 1 || classes < 0 || reps < 1)
        return 2;
    static const int32_t cap[3] = {36, 36, 36};
    double *coef = malloc((size_t)n * 3 * sizeof *coef);
    double *x = malloc((size_t)n * 3 * sizeof *x);
    double *need = malloc((size_t)n * sizeof *need);
    double *ms = malloc((size_t)reps * sizeof *ms);
    int32_t *gpus = malloc((size_t)n * sizeof *gpus);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!coef || !x || !need || !ms || !gpus || !r)
        return 1;
    for (int rep = 0; rep < reps; rep++) {
        gsl_rng_set(r, (unsigned long)rep + 1);
        for (int32_t j = 0; j < n; j++) {
            /* V100 fastest, P100 a bit slower, K80 2-5x slower; with C
             * classes, job j is of class j mod C (drawn from its own seed) */
            if (classes > 0)
                gsl_rng_set(r, 1000 * (unsigned long)rep +
                                   (unsigned long)(j % classes) + 1);
            double v = 1 + 9 * gsl_rng_uniform(r);
            double t[3] = {v, v * (0.6 + 0.4 * gsl_rng_uniform(r)),
                           v * (0.2 + 0.3 * gsl_rng_uniform(r))};
            gpus[j] = 1 << gsl_rng_uniform_int(r, 4);
            double equal = (t[0] + t[1] + t[2]) / 3;
            for (int k = 0; k < 3; k++) /* as gavel.c: T / max T */
                coef[j * 3 + k] = t[k] / v;
            need[j] = equal / (gpus[j] * v);
        }
        struct pol_lp lp = {n, 3, coef, need, gpus, cap};
        double value, t0 = now_s();
        char why[200];
        if (pol_lp_solve(&lp, POL_LP_MAX_MIN, x, &value, why, sizeof why)) {
            fprintf(stderr, "bench_lp: %s\n", why);
            return 1;
        }
        ms[rep] = 1e3 * (now_s() - t0);
    }
    qsort(ms, (size_t)reps, sizeof *ms, by_value);
    char what[32] = "each its own class";
    if (classes > 0)
        snprintf(what, sizeof what, "%d classes", classes);
    printf("   %5d jobs x 3 types, %-18s %8.1f ms per solve (best), %8.1f "
           "(median of %d)\n",
           n, what, ms[0], ms[reps / 2], reps);
    gsl_rng_free(r);
    free(coef);
    free(x);
    free(need);
    free(ms);
    free(gpus);
    return 0;
}
