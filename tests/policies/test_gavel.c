/* test_gavel.c -- the gavel-* policies: their linear programs against
 * optima derived by hand in closed form, and schedules traced by hand
 * round by round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "gavel_internal.h"
#include "helpers.h"
#include "lp_internal.h"
#include "policy.h"

#define TOL 1e-9

/* ---- The LP ------------------------------------------------------------- */

/* Solves 2 jobs x 2 types, one GPU per job, CAP GPUs per type. */
static void solve2(const double coef[4], const int32_t cap[2],
                   enum pol_lp_goal goal, double x[4], double *value)
{
    static const int32_t gpus[2] = {1, 1};
    struct pol_lp lp = {2, 2, coef, NULL, gpus, cap};
    char why[200] = "";
    cr_assert_eq(pol_lp_solve(&lp, goal, x, value, why, sizeof why), 0, "%s",
                 why);
}

static void expect_x(const double *x, const double *want, int n)
{
    for (int i = 0; i < n; i++)
        cr_expect_float_eq(x[i], want[i], TOL, "x[%d] = %.17g, not %.17g", i,
                           x[i], want[i]);
}

/* Gavel's max-min on one GPU of each of two types, throughputs T = [[a, b],
 * [c, d]] (job 1 gets a on type 1, b on type 2). Equal share: half the time
 * on each type, E1 = (a + b)/2, E2 = (c + d)/2; the LP's coefficients are
 * T / E. An optimum uses both GPUs all the time (raising any X[j][t] only
 * raises v_j), so X = [[x, 1-x], [1-x, x]]:
 *   rho1(x) = 2 (b + (a - b) x) / (a + b),
 *   rho2(x) = 2 (c + (d - c) x) / (c + d).
 * Both are 1 at x = 1/2. If a > b and d > c (each prefers another type),
 * both grow with x: x = 1, z = min(2a/(a+b), 2d/(c+d)). If a > b and c > d
 * (type 1 dominates for both), rho1 grows and rho2 falls: x = 1/2, z = 1,
 * and no x does better for both. */
static void maxmin_2x2(double a, double b, double c, double d, double *x,
                       double *z)
{
    const double coef[4] = {2 * a / (a + b), 2 * b / (a + b), 2 * c / (c + d),
                            2 * d / (c + d)};
    solve2(coef, (const int32_t[]){1, 1}, POL_LP_MAX_MIN, x, z);
}

Test(gavel_lp, each_job_gets_the_type_it_prefers)
{
    /* T = [[3, 1], [1, 2]]: z = min(6/4, 4/3) = 4/3 with X = I. Job 1 is
     * not the bottleneck: the max-min stage alone would let it have less
     * of type 1; the sum stage gives it all of it. */
    double x[4], z;
    maxmin_2x2(3, 1, 1, 2, x, &z);
    expect_x(x, (const double[]){1, 0, 0, 1}, 4);
    cr_expect_float_eq(z, 4.0 / 3, TOL);
}

Test(gavel_lp, a_dominant_type_is_split_evenly)
{
    /* T = [[4, 1], [3, 2]]: type 1 is faster for both; x = 1/2, z = 1. */
    double x[4], z;
    maxmin_2x2(4, 1, 3, 2, x, &z);
    expect_x(x, (const double[]){0.5, 0.5, 0.5, 0.5}, 4);
    cr_expect_float_eq(z, 1, TOL);
}

Test(gavel_lp, the_closed_form_holds_over_a_range_of_matrices)
{
    /* Both cases of the closed form over matrices with a > b, for d > c
     * and for c > d (ratios never equal, so the optimum is unique). */
    static const double m[][4] = {{5, 1, 1, 7},     {2, 1, 1, 9}, {10, 9, 2, 3},
                                  {1.5, 1, 1, 1.2}, {6, 1, 5, 4}, {9, 2, 7, 6},
                                  {3, 2, 8, 1}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        double a = m[i][0], b = m[i][1], c = m[i][2], d = m[i][3], x[4], z;
        maxmin_2x2(a, b, c, d, x, &z);
        if (d > c) {
            expect_x(x, (const double[]){1, 0, 0, 1}, 4);
            cr_expect_float_eq(z, fmin(2 * a / (a + b), 2 * d / (c + d)), TOL);
        } else {
            expect_x(x, (const double[]){0.5, 0.5, 0.5, 0.5}, 4);
            cr_expect_float_eq(z, 1, TOL);
        }
    }
}

Test(gavel_lp, unequal_type_sizes_meet_where_the_values_cross)
{
    /* 1 GPU of type 1, 2 of type 2 (N = 3); T = [[4, 1], [3, 2]]. Equal
     * share: E1 = (4 + 2*1)/3 = 2, E2 = (3 + 2*2)/3 = 7/3. Type 2 has room
     * for both, so only type 1 is contended: job 1 gets x of it and 1 - x
     * of type 2, job 2 gets 1 - x of type 1 and x of type 2:
     *   rho1 = (4x + (1 - x))/2 = (1 + 3x)/2, rising;
     *   rho2 = (3(1 - x) + 2x)/(7/3) = 3(3 - x)/7, falling.
     * Equal when 7(1 + 3x) = 6(3 - x): x = 11/27, z = (1 + 33/27)/2 = 10/9. */
    const double coef[4] = {4.0 / 2, 1.0 / 2, 3 / (7.0 / 3), 2 / (7.0 / 3)};
    double x[4], z;
    solve2(coef, (const int32_t[]){1, 2}, POL_LP_MAX_MIN, x, &z);
    expect_x(x, (const double[]){11.0 / 27, 16.0 / 27, 16.0 / 27, 11.0 / 27},
             4);
    cr_expect_float_eq(z, 10.0 / 9, TOL);
}

Test(gavel_lp, a_job_on_more_gpus_gets_less_time)
{
    /* One type of 2 GPUs; job 1 uses 2 GPUs, job 2 one; equal throughputs,
     * so the coefficients are Gavel's scale factors 2 and 1. Max-min of
     * (2 x1, x2) with 2 x1 + x2 <= 2, x <= 1: x2 = 1, x1 = 1/2, z = 1:
     * each job gets one GPU's worth of time. */
    static const double coef[2] = {2, 1};
    static const int32_t gpus[2] = {2, 1}, cap[1] = {2};
    struct pol_lp lp = {2, 1, coef, NULL, gpus, cap};
    double x[2], z;
    char why[200] = "";
    cr_assert_eq(pol_lp_solve(&lp, POL_LP_MAX_MIN, x, &z, why, sizeof why), 0);
    expect_x(x, (const double[]){0.5, 1}, 2);
    cr_expect_float_eq(z, 1, TOL);
}

Test(gavel_lp, fifo_gives_the_first_job_its_fastest_type)
{
    /* gavel-fifo's weights: (M - m) T / max T, M = 2. T = [[2, 1], [4, 1]]:
     * coefficients [[2, 1], [1, 1/4]]. On X = [[x, 1-x], [1-x, x]] the sum
     * is 2x + (1 - x) + (1 - x) + x/4 = 2 + x/4: x = 1, value 2.25. */
    double x[4], v;
    solve2((const double[]){2, 1, 1, 0.25}, (const int32_t[]){1, 1},
           POL_LP_MAX_SUM, x, &v);
    expect_x(x, (const double[]){1, 0, 0, 1}, 4);
    cr_expect_float_eq(v, 2.25, TOL);
}

Test(gavel_lp, fifo_moves_an_indifferent_first_job_aside)
{
    /* T = [[1.1, 1], [10, 1]]: coefficients [[2, 2/1.1], [1, 0.1]]. The sum
     * on X = [[x, 1-x], [1-x, x]] is 2x + (2/1.1)(1 - x) + (1 - x) + 0.1x
     * = 2/1.1 + 1 - (2/1.1 - 1.1) x, falling: x = 0, value 2/1.1 + 1. The
     * first job takes its slower type, which costs it 10 %, for the second
     * to run 10 times faster. */
    double x[4], v;
    solve2((const double[]){2, 2 / 1.1, 1, 0.1}, (const int32_t[]){1, 1},
           POL_LP_MAX_SUM, x, &v);
    expect_x(x, (const double[]){0, 1, 1, 0}, 4);
    cr_expect_float_eq(v, 2 / 1.1 + 1, TOL);
}

Test(gavel_lp, makespan_is_one_over_the_max_min_of_throughput_per_step)
{
    /* gavel-makespan's form: coef = T / max_t T (relative speed), need =
     * S / max_t T (seconds to finish on the best type), so v_j = T X / S.
     * T = [[3, 1], [1, 1]], S = (300, 100): coef [[1, 1/3], [1, 1]], need
     * (100, 100). Job 2 runs 1 step/s anywhere: it needs all of one GPU for
     * u = 1/100; job 1 then reaches 3 steps/s only with all of type 1
     * (3x + (1 - x) >= 3 means x = 1). X = I, u = 1/100: makespan 100 s. */
    static const double coef[4] = {1, 1.0 / 3, 1, 1}, need[2] = {100, 100};
    static const int32_t gpus[2] = {1, 1}, cap[2] = {1, 1};
    struct pol_lp lp = {2, 2, coef, need, gpus, cap};
    double x[4], u;
    char why[200] = "";
    cr_assert_eq(pol_lp_solve(&lp, POL_LP_MAX_MIN, x, &u, why, sizeof why), 0,
                 "%s", why);
    expect_x(x, (const double[]){1, 0, 0, 1}, 4);
    cr_expect_float_eq(1 / u, 100, 1e-7);
}

Test(gavel_lp, needs_over_many_orders_of_magnitude_still_solve)
{
    /* One type of 1 GPU, two 1-GPU jobs at 1 unit/s with needs 1e-6 and
     * 1e6 (a job about to finish, a long one). Max-min of (x1/1e-6,
     * x2/1e6) with x1 + x2 <= 1: equal when x1 = 1e-12 x2, so x2 =
     * 1/(1 + 1e-12), z = x2 / 1e6; the sum stage keeps x1 + x2 = 1. */
    static const double coef[2] = {1, 1}, need[2] = {1e-6, 1e6};
    static const int32_t gpus[2] = {1, 1}, cap[1] = {1};
    struct pol_lp lp = {2, 1, coef, need, gpus, cap};
    double x[2], z;
    char why[200] = "";
    cr_assert_eq(pol_lp_solve(&lp, POL_LP_MAX_MIN, x, &z, why, sizeof why), 0,
                 "%s", why);
    cr_expect_float_eq(x[0] + x[1], 1, TOL);
    cr_expect_float_eq(x[1], 1 / (1 + 1e-12), TOL);
    cr_expect_float_eq(z * 1e6, 1 / (1 + 1e-12), 1e-9);
}

Test(gavel_lp, identical_jobs_get_identical_shares)
{
    /* One type of 2 GPUs, maximizing the sum of coef x with coefficients
     * 1, 1, 2: the third job is worth most per second and gets all of one
     * GPU (its x is at most 1); the two identical jobs share the other, and
     * every split of it is optimal. lp.c solves identical jobs as one group
     * and returns the symmetric optimum: 1/2 each; value 2 + 1/2 + 1/2 = 3. */
    static const double coef[3] = {1, 1, 2};
    static const int32_t gpus[3] = {1, 1, 1}, cap[1] = {2};
    struct pol_lp lp = {3, 1, coef, NULL, gpus, cap};
    double x[3], v;
    char why[200] = "";
    cr_assert_eq(pol_lp_solve(&lp, POL_LP_MAX_SUM, x, &v, why, sizeof why), 0,
                 "%s", why);
    expect_x(x, (const double[]){0.5, 0.5, 1}, 3);
    cr_expect_float_eq(v, 3, TOL);
}

Test(gavel_lp, a_need_that_is_not_positive_is_refused_with_a_reason)
{
    static const double coef[2] = {1, 1}, need[2] = {1, 0};
    static const int32_t gpus[2] = {1, 1}, cap[1] = {1};
    struct pol_lp lp = {2, 1, coef, need, gpus, cap};
    double x[2], z;
    char why[200] = "";
    cr_expect_eq(pol_lp_solve(&lp, POL_LP_MAX_MIN, x, &z, why, sizeof why),
                 SIM_EINVAL);
    cr_expect(strstr(why, "job 1") != NULL, "%s", why);
}

Test(gavel_lp, no_runnable_job_allocates_nothing)
{
    double x[4] = {9, 9, 9, 9}, v = 9;
    solve2((const double[]){0, 0, 0, 0}, (const int32_t[]){1, 1},
           POL_LP_MAX_MIN, x, &v);
    expect_x(x, (const double[]){0, 0, 0, 0}, 4);
    cr_expect_eq(v, 0);
}

/* ---- Rounds ------------------------------------------------------------- */

/* Types A and B, one GPU each, on two nodes. */
static struct cluster *two_gpus(void)
{
    return th_cluster(
        "{\"reference_gpu\": \"B\", \"gpu_types\": ["
        " {\"name\": \"A\", \"memory_mb\": 1, \"speed\": 1},"
        " {\"name\": \"B\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 1},"
        "  {\"gpu_type\": \"B\", \"gpus_per_node\": 1}]}");
}

/* A job at time 0 of WORK units of a class running TA units/s on A and TB
 * on B; its estimate is the truth. */
static void add_job(struct sim *s, double ta, double tb, double work)
{
    struct sim_class_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.unit_s[0] = 1 / ta;
    spec.unit_s[1] = 1 / tb;
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
    struct sim_job_spec job = {.work = work,
                               .num_gpus = 1,
                               .trace_index = (uint32_t)sim_njobs(s),
                               .job_class = cls,
                               .est_work = work};
    cr_assert_eq(sim_add_job(s, &job), 0);
}

static void run(struct sim *s, const char *policy, const char *round_s)
{
    const char *keys[1] = {"round_s"}, *values[1] = {round_s};
    char why[256] = "";
    struct pol_config cfg = {.cluster = sim_cluster(s),
                             .has_estimates = 1,
                             .keys = keys,
                             .values = values,
                             .nopts = round_s ? 1 : 0,
                             .error = why,
                             .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, th_find(policy), &cfg, NULL), 0, "%s", why);
}

/* gavel-maxmin, rounds of 100 s, restart overhead R. T = [[4, 1], [3, 2]]:
 * X = 1/2 everywhere (gavel_lp.a_dominant_type_is_split_evenly). Each
 * round, priority = X / (rounds on t / rounds so far), infinite before the
 * first round on t; ties to the lower job id, then type A:
 *  t=0   all infinite: j0 on A, j1 on B
 *  t=100 j0: A 0.5*2/1 = 1, B inf; j1: A inf, B 1 -> j0 on B, j1 on A
 *  t=200 all 0.5*3/1 = 1.5 -> j0 on A, j1 on B (and so on, swapping)
 * j0 (700 units): 400 on A in [0, 100]; on B from 100: R, then 100 - R s
 *   at 1/s; on A from 200: R, then what is left at 4/s.
 *   R = 0:  400 + 100 = 500, 200 left: 50 s, ends at 250.
 *   R = 10: 400 + 90 = 490, 210 left: 200 + 10 + 52.5 = 262.5.
 * j1 (1000 units): B [0, 100], A from 100, B from 200 (j0 finishing inside
 *   the round changes nothing until it ends); at 300 it is alone and
 *   re-solved: its best is all of A (3 units/s), so it moves there.
 *   R = 0:  200 + 300 + 200 = 700, 300 left at 3/s: ends at 400.
 *   R = 10: 200 + 270 + 180 = 650, 350 left: 300 + 10 + 350/3 (the round
 *   at 400 keeps it on A: no preemption).
 * Preemptions: j0 at 100 and 200; j1 at 100, 200 and 300. */
static void swap_case(double overhead, struct sim_summary *m)
{
    struct cluster *c = two_gpus();
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, overhead);
    add_job(s, 4, 1, 700);
    add_job(s, 3, 2, 1000);
    run(s, "gavel-maxmin", "100");
    if (overhead == 0)
        th_expect_finish(s, (const double[]){250, 400}, (const int[]){2, 3});
    else
        th_expect_finish(s, (const double[]){262.5, 310 + 350.0 / 3},
                         (const int[]){2, 3});
    cr_assert_eq(sim_summarize(s, m), 0);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(gavel_rounds, jobs_swap_types_round_by_round)
{
    struct sim_summary m;
    swap_case(0, &m);
    cr_expect_eq(m.preemptions_total, 5);
}

Test(gavel_rounds, each_swap_pays_the_restart_overhead)
{
    struct sim_summary m;
    swap_case(10, &m);
    cr_expect_float_eq(m.overhead_gpu_s, 50, 1e-9); /* 5 restarts of 10 s */
}

Test(gavel_rounds, a_job_out_of_memory_moves_to_the_type_that_fits)
{
    /* A has 1,000 MB, B 4,000; one job of 2,000 MB, T = [2, 1], 200 units.
     * Alone, its max-min optimum is all of A (2 units/s): it starts there
     * at 0 and runs out of memory after oom_detect_s = 60 s (the default),
     * 60 GPU-s wasted. Nothing of the policy runs, so a round starts at
     * once: A is no longer allowed, X = all of B, 200 s: it ends at 260. */
    struct cluster *c =
        th_cluster("{\"reference_gpu\": \"B\", \"gpu_types\": ["
                   " {\"name\": \"A\", \"memory_mb\": 1000, \"speed\": 1},"
                   " {\"name\": \"B\", \"memory_mb\": 4000, \"speed\": 1}],"
                   " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 1},"
                   "  {\"gpu_type\": \"B\", \"gpus_per_node\": 1}]}");
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.unit_s[0] = 0.5;
    spec.unit_s[1] = 1;
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
    struct sim_job_spec job = {.work = 200,
                               .num_gpus = 1,
                               .job_class = cls,
                               .est_work = 200,
                               .gpu_mem_mb = 2000};
    cr_assert_eq(sim_add_job(s, &job), 0);
    run(s, "gavel-maxmin", NULL);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_expect_float_eq(sim_job(s, 0)->finish_time, 260, 1e-9);
    cr_expect_eq(m.oom_events, 1);
    cr_expect_float_eq(m.wasted_gpu_s, 60, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Three identical 300 s jobs on one type of 2 GPUs, rounds of 100 s: X =
 * 2/3 each (max-min of x_i with sum 2). Priorities 2/3 * R / r:
 *  t=0   all infinite: j0, j1 run
 *  t=100 j0, j1: 2/3*2/1 = 4/3; j2 infinite -> j2, j0 (j1 preempted)
 *  t=200 j0: 2/3*3/2 = 1; j1, j2: 2/3*3/1 = 2 -> j1, j2 (j0 preempted)
 *  t=300 all 2/3*4/2 = 4/3 -> j0, j1 (j2 preempted); both end at 400
 *  t=400 j2 alone, 200 s done: ends at 500.
 * The round-robin of processor sharing, one round at a time. */
Test(gavel_rounds, identical_jobs_share_gpus_in_turn)
{
    struct cluster *c = th_cluster(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 2}]}");
    struct sim *s = sim_create(c, 1);
    for (int i = 0; i < 3; i++)
        th_add(s, 0, 300, 0, 1, 0);
    run(s, "gavel-maxmin", "100");
    th_expect_finish(s, (const double[]){400, 400, 500},
                     (const int[]){1, 1, 1});
    sim_destroy(s);
    cluster_destroy(c);
}

Test(gavel_rounds, gavel_fifo_puts_the_first_job_on_its_slower_type)
{
    /* gavel_lp.fifo_moves_an_indifferent_first_job_aside: j0 on B (1
     * unit/s, 100 units: ends at 100), j1 on A (10 units/s, 500 units:
     * ends at 50). Strict FIFO on the fastest type would give j0 A and end
     * j1 at 500. */
    struct cluster *c = two_gpus();
    struct sim *s = sim_create(c, 1);
    add_job(s, 1.1, 1, 100);
    add_job(s, 10, 1, 500);
    run(s, "gavel-fifo", NULL);
    th_expect_finish(s, (const double[]){100, 50}, (const int[]){0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

Test(gavel_rounds, gavel_makespan_finishes_both_jobs_together)
{
    /* T = [[2, 1], [2, 1]], 150 steps each: throughputs 1 + x and 2 - x on
     * X = [[x, 1-x], [1-x, x]] are equal at x = 1/2 (1.5 steps/s each), so
     * the makespan is 150 / 1.5 = 100 s. Rounds of 10 s alternate j0 A, j1
     * B and j0 B, j1 A (as in swap_case): each gains 20 + 10 = 30 steps per
     * two rounds and finishes at 100; preempted at 10, 20, ..., 90. */
    struct cluster *c = two_gpus();
    struct sim *s = sim_create(c, 1);
    add_job(s, 2, 1, 150);
    add_job(s, 2, 1, 150);
    run(s, "gavel-makespan", "10");
    th_expect_finish(s, (const double[]){100, 100}, (const int[]){9, 9});
    sim_destroy(s);
    cluster_destroy(c);
}

Test(gavel_rounds, makespan_needs_estimates_and_round_s_must_be_positive)
{
    struct cluster *c = two_gpus();
    struct sim *s = sim_create(c, 1);
    char why[256] = "";
    struct pol_config cfg = {
        .cluster = c, .error = why, .error_cap = sizeof why};
    cr_expect_eq(th_bind_run(s, th_find("gavel-makespan"), &cfg, NULL),
                 SIM_EINVAL);
    cr_expect(strstr(why, "estimates") != NULL, "%s", why);
    const char *keys[1] = {"round_s"}, *values[1] = {"0"};
    cfg = (struct pol_config){.cluster = c,
                              .keys = keys,
                              .values = values,
                              .nopts = 1,
                              .error = why,
                              .error_cap = sizeof why};
    cr_expect_eq(th_bind_run(s, th_find("gavel-maxmin"), &cfg, NULL),
                 SIM_EINVAL);
    cr_expect(strstr(why, "round_s") != NULL, "%s", why);
    sim_destroy(s);
    cluster_destroy(c);
}

/* 40 jobs of random classes, sizes and arrivals on gavel-108, under
 * POLICY; fills FINISH (40). */
static void random_run(const char *policy, double *finish)
{
    struct cluster *c = NULL;
    cr_assert_eq(cluster_preset("gavel-108", &c), 0);
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, 30);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int i = 0; i < 40; i++) {
        struct sim_class_spec spec;
        memset(&spec, 0, sizeof spec);
        for (int t = 0; t < 3; t++) {
            spec.unit_s[t] = 0.2 + gsl_rng_uniform(r);
            spec.spread_unit_s[t] = 1.2 * spec.unit_s[t];
        }
        int32_t cls;
        cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
        int gpus = 1 << gsl_rng_uniform_int(r, 4); /* 1 to 8 */
        double work = 1000 + 20000 * gsl_rng_uniform(r);
        struct sim_job_spec job = {.submit_time =
                                       i * 300.0 * gsl_rng_uniform(r),
                                   .work = work,
                                   .num_gpus = gpus,
                                   .trace_index = (uint32_t)i,
                                   .job_class = cls,
                                   .est_work = work};
        cr_assert_eq(sim_add_job(s, &job), 0);
    }
    run(s, policy, NULL);
    for (uint32_t j = 0; j < 40; j++) {
        finish[j] = sim_job(s, j)->finish_time;
        cr_assert(finish[j] > 0, "job %u did not finish", j);
    }
    gsl_rng_free(r);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(gavel_rounds, runs_are_deterministic)
{
    static const char *const policies[] = {"gavel-maxmin", "gavel-makespan",
                                           "gavel-fifo"};
    for (int p = 0; p < 3; p++) {
        double a[40], b[40];
        random_run(policies[p], a);
        random_run(policies[p], b);
        cr_expect(memcmp(a, b, sizeof a) == 0, "%s differs between runs",
                  policies[p]);
    }
}

/* The round's order as its header says, written out for qsort. */
static int round_order(const void *a, const void *b)
{
    const struct gavel_pair *p = a, *q = b;
    if (p->prio != q->prio)
        return p->prio > q->prio ? -1 : 1;
    if (p->x != q->x)
        return p->x > q->x ? -1 : 1;
    if (p->job != q->job)
        return p->job < q->job ? -1 : 1;
    return (p->type > q->type) - (p->type < q->type);
}

/* Every size from 0 to 300 (runs of 8, merges that end short), priorities
 * and shares from few values so that every tie-break is used, INFINITY
 * among them: the order of qsort with that comparison. */
Test(gavel, a_rounds_pairs_sort_as_qsort_orders_them)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    static struct gavel_pair a[300], tmp[300], ref[300];
    for (size_t n = 0; n <= 300; n++) {
        for (size_t i = 0; i < n; i++) { /* (job, type) unique */
            unsigned long k = gsl_rng_uniform_int(r, 5);
            a[i] = (struct gavel_pair){k == 4 ? INFINITY : (double)k / 4,
                                       (double)gsl_rng_uniform_int(r, 3) / 2,
                                       (uint32_t)(i / 3), (int32_t)(i % 3)};
        }
        if (n > 1)
            gsl_ran_shuffle(r, a, n, sizeof *a);
        memcpy(ref, a, n * sizeof *a);
        qsort(ref, n, sizeof *ref, round_order);
        pol_gavel_sort_pairs(a, tmp, n);
        for (size_t i = 0; i < n; i++)
            cr_assert(memcmp(&a[i], &ref[i], sizeof *a) == 0,
                      "size %zu, place %zu: job %u, want job %u", n, i,
                      a[i].job, ref[i].job);
    }
    gsl_rng_free(r);
}
