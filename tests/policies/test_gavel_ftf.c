/* test_gavel_ftf.c -- gavel:finish_time_fairness_perf (policies/
 * gavel_sim_ftf.c): the bisection over the finish-time ratio R on LPs whose
 * optimum is worked out by hand, and a run of the policy on the first jobs
 * of one of Gavel's traces. No run of Gavel's own simulator exists for
 * this policy, so nothing here compares with Gavel's numbers.
 *
 * rho_i = (since_i + left_i / (thr_i . x_i)) / E_i, E_i the job's finish
 * time in isolation; the search returns the least feasible R it tried, so
 * R* <= R <= R* + tol (R* - 1e-7 for the interior point's own tolerance). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gavel_sim_internal.h"

#define TOL 1e-4

/* One type of 1 GPU, two 1-GPU jobs at 1 step/s, 1000 steps left each;
 * job 0 arrived just now (since 0), job 1 1000 s ago; in isolation (a
 * quarter of the GPU each, as among four such jobs) they would finish
 * 4000 s and 5000 s after their arrival. With both ratios equal to R and
 * the GPU shared out, x_i = left_i / (R E_i - since_i):
 *     1000 / (4000 R) + 1000 / (5000 R - 1000) = 1
 *     <=> 20 R^2 - 13 R + 1 = 0,  R* = (13 + sqrt(89)) / 40 = 0.56085
 * (the other root is below since_1 / E_1 = 0.2), x = (1 / (4 R*),
 * 1 / (5 R* - 1)) = (0.44575, 0.55425). */
Test(gavel_ftf, two_jobs_on_one_type_share_it_as_the_closed_form_says)
{
    double gpus[] = {1}, sf[] = {1, 1}, thr[] = {1, 1};
    double left[] = {1000, 1000}, since[] = {0, 1000}, iso[] = {4000, 5000};
    double x[2] = {-1, -1}, r = -1;
    struct gs_feas d;
    cr_assert_eq(gs_feas_init(&d, 2, 1, gpus, sf, thr), 0);
    cr_assert_eq(gs_ftf_search(&d, left, since, iso, TOL, x, &r), 1);
    gs_feas_free(&d);
    double rs = (13 + sqrt(89)) / 40;
    cr_expect(r >= rs - 1e-7 && r <= rs + TOL, "R = %.8f, R* = %.8f", r, rs);
    cr_expect(fabs(x[0] - 1 / (4 * rs)) < 1e-3 &&
                  fabs(x[1] - 1 / (5 * rs - 1)) < 1e-3,
              "x = (%.6f, %.6f)", x[0], x[1]);
    for (int i = 0; i < 2; i++) { /* the ratio the point gives is R's */
        double rho = (since[i] + left[i] / x[i]) / iso[i];
        cr_expect(rho <= r + 1e-6, "rho_%d = %.8f > R = %.8f", i, rho, r);
    }
}

/* Two types A and B of 1 GPU each; job 0 runs 2 steps/s on A and 1 on B,
 * job 1 the reverse. Isolated (half of each type each) both get 1.5
 * steps/s. Job 0: 3600 s since arrival, 7200 steps left, E_0 = 3600 +
 * 7200 / 1.5 = 8400 s; job 1: just arrived, 3600 left, E_1 = 2400 s. A
 * job holds at most one GPU (sum_t x <= 1), so its throughput is at most
 * 2 and rho_0 >= (3600 + 3600) / 8400 = 6/7, rho_1 >= 1.8 / 2 = 0.75;
 * both at once with job 0 on A, job 1 on B: R* = 6/7, job 0's x on A
 * -> 1 and job 1's on B >= 0.875 (1.5 / R* / 2). */
Test(gavel_ftf, two_types_go_to_the_jobs_that_run_fastest_on_them)
{
    double gpus[] = {1, 1}, sf[] = {1, 1}, thr[] = {2, 1, 1, 2};
    double left[] = {7200, 3600}, since[] = {3600, 0}, iso[] = {8400, 2400};
    double x[4], r = -1;
    struct gs_feas d;
    cr_assert_eq(gs_feas_init(&d, 2, 2, gpus, sf, thr), 0);
    cr_assert_eq(gs_ftf_search(&d, left, since, iso, TOL, x, &r), 1);
    gs_feas_free(&d);
    cr_expect(r >= 6. / 7 - 1e-7 && r <= 6. / 7 + TOL, "R = %.8f", r);
    cr_expect(x[0] > 0.999 && x[3] > 0.875 - 1e-3, "x = (%.5f %.5f; %.5f %.5f)",
              x[0], x[1], x[2], x[3]);
}

/* On one type, the isolated share is already the best: with half of one
 * GPU each, E_i = since_i + 2 left_i, and any other split raises one
 * job's ratio above 1; the search finds no R < 1 and keeps x. */
Test(gavel_ftf, on_one_type_the_isolated_share_is_optimal)
{
    double gpus[] = {1}, sf[] = {1, 1}, thr[] = {1, 1};
    double left[] = {1000, 3000}, since[] = {500, 0};
    double iso[] = {2500, 6000}, x[2] = {-1, -1}, r = -1;
    struct gs_feas d;
    cr_assert_eq(gs_feas_init(&d, 2, 1, gpus, sf, thr), 0);
    cr_expect_eq(gs_ftf_search(&d, left, since, iso, TOL, x, &r), 0);
    gs_feas_free(&d);
    cr_expect(r == 1 && x[0] == -1 && x[1] == -1, "R = %g", r);
}

/* A job with no isolated throughput (E = inf) bounds nothing: job 1 takes
 * no part, job 0 (alone in effect, 2 GPUs of 2 free, 1 GPU per job) runs
 * at full speed: rho_0 = (100 + 900 / 1) / 1900 = 10/19. */
Test(gavel_ftf, a_job_without_isolated_throughput_is_left_out)
{
    double gpus[] = {2}, sf[] = {1, 1}, thr[] = {1, 1};
    double left[] = {900, 500}, since[] = {100, 0};
    double iso[] = {1900, HUGE_VAL}, x[2], r = -1;
    struct gs_feas d;
    cr_assert_eq(gs_feas_init(&d, 2, 1, gpus, sf, thr), 0);
    cr_assert_eq(gs_ftf_search(&d, left, since, iso, TOL, x, &r), 1);
    gs_feas_free(&d);
    cr_expect(r >= 10. / 19 - 1e-7 && r <= 10. / 19 + TOL, "R = %.8f", r);
    cr_expect(x[0] > 0.999, "x_0 = %.6f", x[0]);
}

/* Runs hetsim under the policy on TRACE into DIR; returns the status. */
static int run(const char *trace, const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s' run -q -t '%s' -T '%s/traces/gavel/simulation_throughputs"
             ".json' -c gavel-108 -p gavel:finish_time_fairness_perf "
             "-o '%s'",
             HETSIM_BIN, trace, HETSIM_SOURCE_DIR, dir);
    return system(cmd);
}

/* The first 30 jobs of Gavel's trace 6214e9 (1- to 8-GPU jobs, three GPU
 * types): every job completes, and a second run writes the same jobs.csv. */
Test(gavel_ftf, a_small_gavel_trace_completes_every_job, .timeout = 600)
{
    char dir[] = "/tmp/hetsim-ftf-XXXXXX", path[1024], line[1024];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path,
             "head -n 30 '%s/traces/gavel/msr/seed=0/6214e9.trace' > "
             "'%s/t.trace'",
             HETSIM_SOURCE_DIR, dir);
    cr_assert_eq(system(path), 0);
    char trace[64], out1[64], out2[64];
    snprintf(trace, sizeof trace, "%s/t.trace", dir);
    snprintf(out1, sizeof out1, "%s/a", dir);
    snprintf(out2, sizeof out2, "%s/b", dir);
    cr_assert_eq(run(trace, out1), 0);
    cr_assert_eq(run(trace, out2), 0);
    snprintf(path, sizeof path, "%s/jobs.csv", out1);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    size_t rows = 0, done = 0;
    cr_assert(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        rows++;
        done += strstr(line, ",completed,") != NULL;
    }
    fclose(f);
    cr_expect(rows == 30 && done == rows, "%zu of %zu completed", done, rows);
    snprintf(path, sizeof path, "cmp -s '%s/jobs.csv' '%s/jobs.csv'", out1,
             out2);
    cr_expect_eq(system(path), 0, "two runs differ");
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    cr_assert_eq(system(path), 0);
}
