/* test_fair.c -- fair: max-min fair shares of GPUs across groups, against
 * schedules drawn by hand. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "helpers.h"
#include "policy.h"
#include "waterfill_internal.h"

/* The water level by the book: sort the demands, give each in turn what it
 * wants while that is no more than an equal split of what is left. */
static double naive_level(const int64_t *d, int n, double capacity)
{
    int64_t s[64];
    memcpy(s, d, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && s[k] < s[k - 1]; k--) {
            int64_t x = s[k];
            s[k] = s[k - 1];
            s[k - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        double cut = capacity / (n - i);
        if ((double)s[i] > cut)
            return cut;
        capacity -= (double)s[i];
    }
    return INFINITY;
}

static double level_of(int32_t capacity, const int64_t *d, int n)
{
    struct pol_waterfill *w = pol_waterfill_create(capacity);
    cr_assert_not_null(w);
    for (int i = 0; i < n; i++)
        pol_waterfill_add(w, d[i], 1);
    double level = pol_waterfill_level(w);
    pol_waterfill_destroy(w);
    return level;
}

/* 8 GPUs, demands 6, 1, 4: 1 goes to the small one, 7 split in 3.5 + 3.5.
 * 8 GPUs, 8 and 4: 4 each. 4 GPUs, 4 and 1: 1, then 3. One demand of 20 on
 * 8: 8. Three of 3 on 8: 8/3 each. 1 and 2 on 8: all fit. */
Test(fair, water_fills_shares_by_hand)
{
    cr_expect_float_eq(level_of(8, (int64_t[]){6, 1, 4}, 3), 3.5, 1e-12);
    cr_expect_float_eq(level_of(8, (int64_t[]){8, 4}, 2), 4, 1e-12);
    cr_expect_float_eq(level_of(4, (int64_t[]){4, 1}, 2), 3, 1e-12);
    cr_expect_float_eq(level_of(8, (int64_t[]){20}, 1), 8, 1e-12);
    cr_expect_float_eq(level_of(8, (int64_t[]){3, 3, 3}, 3), 8.0 / 3, 1e-12);
    cr_expect_eq(level_of(8, (int64_t[]){1, 2}, 2), INFINITY);
}

/* The Fenwick descent against the book, demands coming and going. */
Test(fair, water_fills_like_the_naive_reference)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int round = 0; round < 500; round++) {
        int32_t capacity = 1 + (int32_t)gsl_rng_uniform_int(r, 100);
        struct pol_waterfill *w = pol_waterfill_create(capacity);
        int64_t d[64];
        int n = 0;
        for (int step = 0; step < 100; step++) {
            if (n > 0 && (n == 64 || gsl_rng_uniform(r) < 0.4)) {
                int i = (int)gsl_rng_uniform_int(r, (unsigned long)n);
                pol_waterfill_add(w, d[i], -1);
                d[i] = d[--n];
            } else {
                d[n] = 1 + (int64_t)gsl_rng_uniform_int(r, 2 * (unsigned long)capacity);
                pol_waterfill_add(w, d[n++], 1);
            }
            double want = naive_level(d, n, capacity);
            double got = pol_waterfill_level(w);
            if (want == INFINITY)
                cr_assert_eq(got, INFINITY);
            else
                cr_assert_float_eq(got, want, 1e-9, "capacity %d", capacity);
        }
        pol_waterfill_destroy(w);
    }
    gsl_rng_free(r);
}

static struct cluster *fair_cluster(const char *json)
{
    return th_cluster(json);
}

/* One node of 8 identical GPUs. */
static const char *const eight =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 8}]}";

/* Adds COUNT jobs of group G (or POL_NO_GROUP) to S and GROUPS. */
static void jobs(struct sim *s, uint32_t *groups, int count, double submit,
                 double work, int gpus, uint32_t allowed, uint32_t g)
{
    for (int i = 0; i < count; i++) {
        groups[sim_njobs(s)] = g;
        th_add(s, submit, work, 0, gpus, allowed);
    }
}

/* Binds fair with GROUPS (NGROUPS) and one option OPT ("key=value" or
 * NULL); runs it when that works. Returns pol_bind's code. */
static int fair_run(struct sim *s, const uint32_t *groups, size_t ngroups,
                    const char *opt, char *why, size_t cap)
{
    char key[64] = "", value[64] = "";
    if (opt)
        th_split_opt(opt, key, sizeof key, value, sizeof value);
    const char *keys[] = {key}, *values[] = {value};
    const struct pol_ops *ops = th_find("fair");
    struct pol_config cfg = {.cluster = sim_cluster(s), .groups = groups,
                             .ngroups = ngroups, .keys = keys,
                             .values = values, .nopts = opt ? 1 : 0,
                             .error = why, .error_cap = cap};
    return th_bind_run(s, ops, &cfg, NULL);
}

static void expect_jobs(const struct sim *s, const double *start,
                        const double *finish, const int *preemptions)
{
    for (uint32_t j = 0; j < sim_njobs(s); j++) {
        const struct sim_job *x = sim_job(s, j);
        if (start)
            cr_expect_float_eq(x->start_time, start[j], 1e-9,
                               "job %u starts at %g, not %g", j,
                               x->start_time, start[j]);
        cr_expect_float_eq(x->finish_time, finish[j], 1e-9,
                           "job %u ends at %g, not %g", j, x->finish_time,
                           finish[j]);
        cr_expect_eq(x->preemptions, preemptions[j],
                     "job %u preempted %d times, not %d", j, x->preemptions,
                     preemptions[j]);
    }
}

/* 8 GPUs; at t=0 group A brings 6 one-GPU jobs (ids 0-5), B 1 (6), C 4
 * (7-10), all of 100 s. Water-filling: B 1, then A and C share the 7
 * left: 3.5 each. Served lowest alloc/share first, ties to the group whose
 * first waiting job arrived first (same time: lower id):
 *   A0 (A 1/3.5), B0 (B 1/1), C0 (C 1/3.5), A1, C1, A2, C2 (A, C 3/3.5),
 *   A3 (tie: A first): A 4, B 1, C 3; A4, A5, C3 wait.
 * No preemption: C is below its share by 0.5 GPU, less than a job. At 100
 * the eight end and the three others run 100-200. */
Test(fair, splits_the_gpus_by_max_min_shares)
{
    struct cluster *c = fair_cluster(eight);
    struct sim *s = sim_create(c, 1);
    uint32_t g[11];
    jobs(s, g, 6, 0, 100, 1, 0, 0);
    jobs(s, g, 1, 0, 100, 1, 0, 1);
    jobs(s, g, 4, 0, 100, 1, 0, 2);
    char why[256] = "";
    cr_assert_eq(fair_run(s, g, 3, NULL, why, sizeof why), 0, "%s", why);
    expect_jobs(s, (double[]){0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 100},
                (double[]){100, 100, 100, 100, 200, 200, 100, 100, 100, 100,
                           200},
                (int[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

/* 8 GPUs. A's 6 jobs (100 s, ids 0-5) start at 0: alone, A's share is 6.
 * At 10, B brings 1 job (50 s, id 6) and C 4 (50 s, ids 7-10): shares A
 * 3.5, B 1, C 3.5. B0 and C0 take the 2 free GPUs; C1 does not fit and C
 * stays within its share with it (2 <= 3.5): A is above its share, so its
 * latest started job A5 is preempted for C1, then A4 for C2 (C at 3);
 * C3 would take C to 4 > 3.5: it waits. A 4, B 1, C 3.
 * At 60 B0, C0-C2 end: shares C 1, A 6; C3 and A4, A5 (90 s left) start:
 * C3 ends at 110, A4, A5 at 150; A0-A3 at 100.
 * With preempt=0: B0, C0 start at 10 (end 60); C1, C2 at 60 (end 110), C3
 * at 100 when A's jobs end (150). */
Test(fair, preempts_groups_above_their_share)
{
    struct cluster *c = fair_cluster(eight);
    for (int preempt = 1; preempt >= 0; preempt--) {
        struct sim *s = sim_create(c, 1);
        uint32_t g[11];
        jobs(s, g, 6, 0, 100, 1, 0, 0);
        jobs(s, g, 1, 10, 50, 1, 0, 1);
        jobs(s, g, 4, 10, 50, 1, 0, 2);
        char why[256] = "";
        cr_assert_eq(fair_run(s, g, 3, preempt ? NULL : "preempt=0", why,
                              sizeof why),
                     0, "%s", why);
        if (preempt)
            expect_jobs(s, NULL,
                        (double[]){100, 100, 100, 100, 150, 150, 60, 60, 60,
                                   60, 110},
                        (int[]){0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0});
        else
            expect_jobs(s, NULL,
                        (double[]){100, 100, 100, 100, 100, 100, 60, 60, 110,
                                   110, 150},
                        (int[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* V100 node (2 GPUs, speed 1) and K80 node (2 GPUs, speed 0.5). A: A0, A1
 * (K80 only) and A2, A3 (any: the V100s), 100 s each, from t=0. B0 (K80
 * only, 10 s = 20 s on a K80) at 10: shares B 1, A 3. A's latest started
 * jobs are on V100s, where B0 cannot run; the victim is A's latest on a
 * K80: A1 (done 5 of 100 s). B0 10-30; A1 resumes at 30 with 95 s = 190 s
 * on a K80: 220. A0 200, A2, A3 100. */
Test(fair, preempts_only_on_a_gpu_type_the_job_can_use)
{
    struct cluster *c = fair_cluster(
        "{\"reference_gpu\": \"V100\", \"gpu_types\": [{\"name\": \"V100\","
        " \"memory_mb\": 1, \"speed\": 1}, {\"name\": \"K80\", "
        "\"memory_mb\": 1, \"speed\": 0.5}], \"nodes\": [{\"gpu_type\": "
        "\"V100\", \"gpus_per_node\": 2}, {\"gpu_type\": \"K80\", "
        "\"gpus_per_node\": 2}]}");
    struct sim *s = sim_create(c, 1);
    uint32_t g[5];
    jobs(s, g, 2, 0, 100, 1, 2u, 0);
    jobs(s, g, 2, 0, 100, 1, 0, 0);
    jobs(s, g, 1, 10, 10, 1, 2u, 1);
    char why[256] = "";
    cr_assert_eq(fair_run(s, g, 2, NULL, why, sizeof why), 0, "%s", why);
    expect_jobs(s, NULL, (double[]){200, 220, 100, 100, 30},
                (int[]){0, 1, 0, 0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

/* Without groups every job is its own group. 4 GPUs: X (4 GPUs, 100 s) at
 * 0; Y (1 GPU, 10 s) at 10: shares Y 1, X 3, so Y preempts X (3 GPUs then
 * idle: X needs 4). Y 10-20; X resumes at 20 with 90 s: 110. */
Test(fair, without_groups_shares_across_jobs)
{
    struct cluster *c = fair_cluster(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 4}]}");
    struct sim *s = sim_create(c, 1);
    uint32_t g[2];
    jobs(s, g, 1, 0, 100, 4, 0, POL_NO_GROUP);
    jobs(s, g, 1, 10, 10, 1, 0, POL_NO_GROUP);
    char why[256] = "";
    cr_assert_eq(fair_run(s, NULL, 0, "by=user", why, sizeof why), 0, "%s",
                 why);
    expect_jobs(s, (double[]){0, 10}, (double[]){110, 20}, (int[]){1, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

Test(fair, refuses_unknown_options_and_bad_values)
{
    struct cluster *c = fair_cluster(eight);
    const char *opts[] = {"by=team", "preempt=2", "preempt=yes", "quantum=1"};
    const char *parts[] = {"vc or user", "0 or 1", "0 or 1", "no option"};
    for (int i = 0; i < 4; i++) {
        struct sim *s = sim_create(c, 1);
        uint32_t g[1];
        jobs(s, g, 1, 0, 1, 1, 0, 0);
        char why[256] = "";
        cr_expect_eq(fair_run(s, g, 1, opts[i], why, sizeof why), SIM_EINVAL,
                     "%s accepted", opts[i]);
        cr_expect(strstr(why, parts[i]) != NULL, "'%s' lacks '%s'", why,
                  parts[i]);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* Random workloads of 5 groups (and some jobs in none) on a heterogeneous
 * cluster, with restart overheads: every job ends, no illegal decision. */
Test(fair, random_heterogeneous_workloads_run_to_the_end)
{
    struct cluster *c = fair_cluster(
        "{\"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
        " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1,"
        " \"speed\": 1}, {\"name\": \"K80\", \"memory_mb\": 1,"
        " \"speed\": 0.25}], \"nodes\": [{\"gpu_type\": \"V100\","
        " \"gpus_per_node\": 4, \"count\": 2}, {\"gpu_type\": \"K80\","
        " \"gpus_per_node\": 2, \"count\": 3}]}");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int round = 0; round < 6; round++) {
        struct sim *s = sim_create(c, 1);
        sim_set_restart_overhead(s, round % 2 ? 30 : 0);
        uint32_t g[400];
        double t = 0;
        for (int i = 0; i < 400; i++) {
            t += gsl_ran_exponential(r, 150);
            uint32_t grp = (uint32_t)gsl_rng_uniform_int(r, 6);
            jobs(s, g, 1, t, 1 + gsl_ran_exponential(r, 1500),
                 1 << gsl_rng_uniform_int(r, 3),
                 (uint32_t)gsl_rng_uniform_int(r, 4),
                 grp == 5 ? POL_NO_GROUP : grp);
        }
        char why[256] = "";
        cr_assert_eq(fair_run(s, round < 4 ? g : NULL, 5,
                              round == 2 ? "preempt=0" : NULL, why,
                              sizeof why),
                     0, "%s", why);
        struct sim_summary m;
        cr_assert_eq(sim_summarize(s, &m), 0);
        cr_expect_eq(m.jobs_completed + m.jobs_unschedulable, 400);
        sim_destroy(s);
    }
    gsl_rng_free(r);
    cluster_destroy(c);
}
