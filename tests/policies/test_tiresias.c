/* test_tiresias.c -- tiresias (discretized 2D-LAS) and gittins (discretized
 * 2D-Gittins index), both on mlfq.c: schedules drawn by hand, the Gittins
 * index computed by hand, and options. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "helpers.h"
#include "mlfq_internal.h"
#include "policy.h"

/* One node of N identical GPUs (speed 1). */
static struct cluster *gpus(int n)
{
    char json[256];
    snprintf(json, sizeof json,
             "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, "
             "\"speed\": 1}], \"nodes\": [{\"gpu_type\": \"G\", "
             "\"gpus_per_node\": %d}]}", n);
    return th_cluster(json);
}

static void job(struct sim *s, double submit, double work, int n,
                uint32_t allowed)
{
    th_add(s, submit, work, 0, n, allowed);
}

/* Binds POLICY with OPTS ("key=value" strings, NULL-terminated); when that
 * works, runs it to the end. Returns pol_bind's code, its message in WHY. */
static int bind_and_run(struct sim *s, const char *policy,
                        const char *const *opts, char *why, size_t cap)
{
    char keys[8][64], values[8][64];
    const char *k[8], *v[8];
    size_t n = 0;
    for (; opts && opts[n]; n++) {
        th_split_opt(opts[n], keys[n], sizeof keys[n], values[n],
                     sizeof values[n]);
        k[n] = keys[n];
        v[n] = values[n];
    }
    const struct pol_ops *ops = th_find(policy);
    struct pol_config cfg = {.cluster = sim_cluster(s), .keys = k,
                             .values = v, .nopts = n, .error = why,
                             .error_cap = cap};
    return th_bind_run(s, ops, &cfg, NULL);
}

static void run(struct sim *s, const char *policy, const char *const *opts)
{
    char why[256] = "";
    cr_assert_eq(bind_and_run(s, policy, opts, why, sizeof why), 0, "%s",
                 why);
}

/* 2 GPUs; queues=2, threshold 100 GPU-s; restart overhead R.
 *  j0 t=0  2 GPUs 200 s: Q1; 2 GPUs, so it reaches 100 GPU-s at t=50
 *  j1 t=40 1 GPU   10 s: Q1 behind j0, which runs: j1 waits (a job never
 *                        preempts one of its own queue)
 *  t=50 j0 moves to Q2; j1 (Q1) preempts it (j0 has done 50 s, 150 left)
 *       and runs 50-60; j0 needs 2 GPUs, 1 is free: it waits
 *  t=60 j0 starts again, pays R, then its 150 s: ends at 210 + R. */
static void demotion_case(double overhead, struct sim_summary *m)
{
    struct cluster *c = gpus(2);
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, overhead);
    job(s, 0, 200, 2, 0);
    job(s, 40, 10, 1, 0);
    run(s, "tiresias", (const char *[]){"queues=2", "thresholds=100", NULL});
    th_expect_finish(s, (double[]){210 + overhead, 60}, (int[]){1, 0});
    cr_expect_float_eq(sim_job(s, 1)->start_time, 50, 1e-9);
    cr_assert_eq(sim_summarize(s, m), 0);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(tiresias, demotes_at_the_threshold_and_a_higher_queue_preempts)
{
    struct sim_summary m;
    demotion_case(0, &m);
    cr_expect_eq(m.preemptions_total, 1);
}

Test(tiresias, a_preempted_job_pays_the_restart_overhead)
{
    struct sim_summary m;
    demotion_case(7, &m);
    cr_expect_eq(m.preemptions_total, 1);
    cr_expect_float_eq(m.overhead_gpu_s, 14, 1e-9); /* 7 s on 2 GPUs */
}

/* 3 GPUs; queues=2, threshold 10 GPU-s. Waiting jobs of a queue are taken
 * in the order they entered it, not by arrival:
 *  p t=0  1 GPU  100 s: reaches 10 GPU-s at t=10 (enters Q2 second)
 *  q t=1  2 GPUs 100 s: reaches 10 GPU-s at 1 + 10/2 = 6 (enters Q2 first)
 *  r t=12 3 GPUs   1 s: Q1, preempts both (p done 12, q done 11); 12-13
 *  s t=13 1 GPU   50 s: Q1 first; then Q2 in entry order: q (2 GPUs)
 *                        starts, p finds no GPU. s reaches Q2 at 23 and
 *                        keeps its GPU (p waits in Q2 behind it): 13-63
 *  q 13 + 89 = 102; p 63 + 88 = 151. (By arrival, p would start at 13.) */
Test(tiresias, takes_waiting_jobs_of_a_queue_in_the_order_they_entered_it)
{
    struct cluster *c = gpus(3);
    struct sim *s = sim_create(c, 1);
    job(s, 0, 100, 1, 0);
    job(s, 1, 100, 2, 0);
    job(s, 12, 1, 3, 0);
    job(s, 13, 50, 1, 0);
    run(s, "tiresias", (const char *[]){"queues=2", "thresholds=10", NULL});
    th_expect_finish(s, (double[]){151, 102, 13, 63}, (int[]){1, 1, 0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

/* 1 GPU; queues=2, threshold 10 GPU-s, starvation_factor f = 2: a job in
 * Q2 is promoted at t0 + (1 + f) * E (t0: its first start since it last
 * entered Q1, E: its run time since then).
 *  a t=0 100 s; b t=1 90 s
 *  0-10  a (Q1); at 10 a enters Q2, b (Q1) preempts it: a t0=0, E=10,
 *        promoted at 0 + 3 * 10 = 30
 *  10-30 b: enters Q2 at 20 and keeps the GPU (a waits in Q2)
 *  30    a promoted to Q1, preempts b (b: t0=10, E=20: promoted at 70)
 *  30-70 a: back in Q2 at 40 (10 GPU-s since its promotion), keeps going
 *  70    b promoted, preempts a (a done 50; t0=30, E=40: due at 150)
 *  70-140 b finishes its 70 s left; 140-190 a finishes its 50 s.
 * Without promotion: a 0-10, b 10-100, a 100-190. */
Test(tiresias, promotes_a_starved_job_at_the_documented_time)
{
    struct cluster *c = gpus(1);
    for (int f = 0; f <= 2; f += 2) {
        struct sim *s = sim_create(c, 1);
        job(s, 0, 100, 1, 0);
        job(s, 1, 90, 1, 0);
        char opt[64];
        snprintf(opt, sizeof opt, "starvation_factor=%d", f);
        run(s, "tiresias",
            (const char *[]){"queues=2", "thresholds=10", opt, NULL});
        if (f == 2)
            th_expect_finish(s, (double[]){190, 140}, (int[]){2, 1});
        else
            th_expect_finish(s, (double[]){190, 100}, (int[]){1, 0});
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* Defaults: 3 queues, thresholds 3250 and 7200 GPU-s. One GPU:
 *  a t=0 10000 s: Q2 at 3250; b (t=7000, 100 s, Q1) preempts it at 7000
 *  b 7000-7100; a resumes at 7100 with 7000 GPU-s: Q3 at 7300
 *  c (t=8000, 10 s, Q1) preempts a (done 7900): 8000-8010
 *  a resumes at 8010 with 2100 s left: ends at 10110. */
Test(tiresias, defaults_to_three_queues_at_3250_and_7200_gpu_seconds)
{
    struct cluster *c = gpus(1);
    struct sim *s = sim_create(c, 1);
    job(s, 0, 10000, 1, 0);
    job(s, 7000, 100, 1, 0);
    job(s, 8000, 10, 1, 0);
    run(s, "tiresias", NULL);
    th_expect_finish(s, (double[]){10110, 7100, 8010}, (int[]){2, 0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

static void refused(const char *policy, const char *const *opts,
                    const char *part)
{
    struct cluster *c = gpus(1);
    struct sim *s = sim_create(c, 1);
    job(s, 0, 1, 1, 0);
    char why[256] = "";
    cr_expect_eq(bind_and_run(s, policy, opts, why, sizeof why), SIM_EINVAL,
                 "%s %s accepted", policy, opts[0]);
    cr_expect(strstr(why, part) != NULL, "'%s' lacks '%s'", why, part);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(tiresias, refuses_unknown_options_and_bad_values)
{
    const char *pols[] = {"tiresias", "gittins"};
    for (int i = 0; i < 2; i++) {
        const char *p = pols[i];
        refused(p, (const char *[]){"quantum=60", NULL}, "no option");
        refused(p, (const char *[]){"queues=0", NULL}, "queues");
        refused(p, (const char *[]){"queues=33", NULL}, "queues");
        refused(p, (const char *[]){"queues=2.5", NULL}, "whole");
        refused(p, (const char *[]){"queues=5", NULL}, "4 thresholds");
        refused(p, (const char *[]){"thresholds=100,50", NULL}, "increasing");
        refused(p, (const char *[]){"thresholds=10,x", NULL}, "increasing");
        refused(p, (const char *[]){"thresholds=10,", NULL}, "increasing");
        refused(p, (const char *[]){"thresholds=-1,5", NULL}, "increasing");
        refused(p, (const char *[]){"thresholds=10", NULL}, "2 thresholds");
        refused(p, (const char *[]){"queues=2", "thresholds=1,2", NULL},
                "1 threshold");
        refused(p, (const char *[]){"starvation_factor=-1", NULL},
                "starvation_factor");
    }
    refused("gittins", (const char *[]){"min_finished=0", NULL},
            "min_finished");
}

/* ---- gittins ------------------------------------------------------------- */

/* Samples {10, 10, 100} GPU-s. With Delta = infinity,
 * 1/G(a) = E[S - a | S > a]:
 *  a = 0:  (10 + 10 + 100) / 3 = 40      a = 4: (6 + 6 + 96) / 3 = 36
 *  a = 8:  (2 + 2 + 92) / 3 = 32         a = 9: (1 + 1 + 91) / 3 = 31
 *  a = 10: only 100 is left: 90          a = 100: none left, index 0
 * With Delta = 20 at a = 0: P(S <= 20) = 2/3, E[min(S, 20)] = 40/3, so
 * 1/G = (40/3) / (2/3) = 20; at a = 10 with Delta 10: nothing ends in
 * (10, 20], index 0. G(0) = 1/40 > G(10) = 1/90: a fresh job goes first,
 * but G(9) = 1/31 > G(8) = 1/32 > G(0): a job about to reach 10 goes
 * before one that has run less (LAS would do the opposite). */
Test(gittins, computes_the_index_of_a_known_distribution)
{
    struct gittins_dist *d = gittins_dist_create();
    cr_assert_not_null(d);
    cr_expect_eq(gittins_dist_rank(d, 0, INFINITY), INFINITY);
    double x[] = {100, 10, 10};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(gittins_dist_add(d, x[i]), 0);
    cr_expect_eq(gittins_dist_count(d), 3);
    double a[] = {0, 4, 8, 9, 10, 0, 5};
    double delta[] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 20,
                      95};
    double want[] = {40, 36, 32, 31, 90, 20, 35};
    for (int i = 0; i < 7; i++)
        cr_expect_float_eq(gittins_dist_rank(d, a[i], delta[i]), want[i],
                           1e-12, "a=%g delta=%g", a[i], delta[i]);
    cr_expect_eq(gittins_dist_rank(d, 10, 10), INFINITY);
    cr_expect_eq(gittins_dist_rank(d, 100, INFINITY), INFINITY);
    gittins_dist_destroy(d);
}

/* Many samples: batches are merged in arrival order, so the samples a
 * query sees are the first n added, and 1/G(0, inf) is their mean. */
Test(gittins, merges_many_samples_in_batches)
{
    struct gittins_dist *d = gittins_dist_create();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double sum[5001] = {0};
    for (int i = 0; i < 5000; i++) {
        double v = 1 + floor(gsl_ran_exponential(r, 100));
        sum[i + 1] = sum[i] + v;
        cr_assert_eq(gittins_dist_add(d, v), 0);
        size_t n = gittins_dist_count(d);
        cr_assert(n <= (size_t)i + 1 && (i < 128 ? n == (size_t)i + 1
                                                 : n > (size_t)i * 63 / 64),
                  "%zu of %d merged", n, i + 1);
        cr_assert_float_eq(gittins_dist_rank(d, 0, INFINITY),
                           sum[n] / (double)n, 1e-9 * sum[n] / (double)n);
    }
    gsl_rng_free(r);
    gittins_dist_destroy(d);
}

/* Type A (1 GPU) learns, type B (3 GPUs) competes; queues=2, threshold 4
 * GPU-s, min_finished=3; before 3 jobs finish the order is least attained
 * GPU-time first (at 0, j0..j2 tie and go by id).
 *  A: j0, j1 (10 s), j2 (100 s) at t=0. j0 0-4, to Q2; j1 (Q1) preempts it
 *     4-8; j2 preempts j1 8-12, then keeps the GPU in Q2 to 108; j0 (key
 *     4, ahead of j1 by id) 108-114; j1 114-120. Samples {10, 10, 100}.
 *  B: X, Y, Z (1 GPU, 30 s) at 200, 201, 202 run; in Q2 from 204, 205,
 *     206. W (3 GPUs, 1 s) at 210 preempts all three: X has 10 GPU-s
 *     (1/G = 90), Y 9 (31), Z 8 (32). W ends at 211 as V (2 GPUs, 1 s,
 *     Q1) arrives: V starts, then the best of Q2 on the last GPU: Y. V
 *     ends at 212: Z, X start. Y 211 + 21 = 232, Z 212 + 22 = 234, X 212
 *     + 20 = 232. (LAS would start Z at 211; FIFO would start X.) */
Test(gittins, orders_a_queue_by_the_index_learnt_from_finished_jobs)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(
                     "{\"gpu_types\": [{\"name\": \"A\", \"memory_mb\": 1,"
                     " \"speed\": 1}, {\"name\": \"B\", \"memory_mb\": 1,"
                     " \"speed\": 1}], \"nodes\": [{\"gpu_type\": \"A\","
                     " \"gpus_per_node\": 1}, {\"gpu_type\": \"B\","
                     " \"gpus_per_node\": 3}]}",
                     "test", &c, &err),
                 0, "%s", err.text);
    struct sim *s = sim_create(c, 1);
    job(s, 0, 10, 1, 1u);
    job(s, 0, 10, 1, 1u);
    job(s, 0, 100, 1, 1u);
    job(s, 200, 30, 1, 2u); /* X */
    job(s, 201, 30, 1, 2u); /* Y */
    job(s, 202, 30, 1, 2u); /* Z */
    job(s, 210, 1, 3, 2u);  /* W */
    job(s, 211, 1, 2, 2u);  /* V */
    run(s, "gittins",
        (const char *[]){"queues=2", "thresholds=4", "min_finished=3", NULL});
    th_expect_finish(s, (double[]){114, 120, 108, 232, 232, 234, 211, 212},
                     (int[]){1, 1, 0, 1, 1, 1, 0, 0});
    sim_destroy(s);
    cluster_destroy(c);
}

/* ---- Both: random workloads finish, with no illegal decision ------------ */

Test(tiresias, random_heterogeneous_workloads_run_to_the_end)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(
                     "{\"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
                     " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1,"
                     " \"speed\": 1}, {\"name\": \"K80\", \"memory_mb\": 1,"
                     " \"speed\": 0.25}], \"nodes\": [{\"gpu_type\": "
                     "\"V100\", \"gpus_per_node\": 4, \"count\": 2}, "
                     "{\"gpu_type\": \"K80\", \"gpus_per_node\": 2, "
                     "\"count\": 3}]}",
                     "test", &c, &err),
                 0, "%s", err.text);
    const char *pols[] = {"tiresias", "gittins"};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int round = 0; round < 8; round++) {
        struct sim *s = sim_create(c, 1);
        sim_set_restart_overhead(s, round % 2 ? 30 : 0);
        double t = 0;
        for (int i = 0; i < 300; i++) {
            t += gsl_ran_exponential(r, 200);
            int n = 1 << gsl_rng_uniform_int(r, 3);
            job(s, t, 1 + gsl_ran_exponential(r, 1500), n,
                (uint32_t)gsl_rng_uniform_int(r, 4)); /* 0: any */
        }
        char starve[64];
        snprintf(starve, sizeof starve, "starvation_factor=%d", round % 3);
        run(s, pols[round % 2],
            (const char *[]){"thresholds=500,2000,8000", "queues=4", starve,
                             round % 2 ? "min_finished=20" : NULL, NULL});
        struct sim_summary m;
        cr_assert_eq(sim_summarize(s, &m), 0);
        cr_expect_eq(m.jobs_completed + m.jobs_unschedulable, 300);
        sim_destroy(s);
    }
    gsl_rng_free(r);
    cluster_destroy(c);
}
