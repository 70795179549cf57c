/* test_list.c -- the non-preemptive list policies (sjf, edf) and
 * --backfill easy|conservative, against a textbook reference model and
 * against schedules drawn by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "helpers.h"
#include "policy.h"

/* One node of 4 identical GPUs. */
static const char *const four_gpus =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 4}]}";

/* V100 node 0 (2 GPUs, speed 1), K80 node 1 (2 GPUs, speed 0.5). */
static const char *const two_types =
    "{\"reference_gpu\": \"V100\","
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
    "                 {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.5}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 2},"
    "           {\"gpu_type\": \"K80\", \"gpus_per_node\": 2}]}";

static struct cluster *cluster_of(const char *json)
{
    return th_cluster(json);
}

/* A job of WORK seconds on the reference type that policies believe takes
 * EST (0 = no estimate). */
static void add(struct sim *s, double submit, double work, double est, int gpus,
                uint32_t allowed)
{
    th_add(s, submit, work, est, gpus, allowed);
}

static void run(struct sim *s, const char *name, enum pol_backfill backfill,
                const double *deadlines)
{
    const struct pol_ops *ops = th_find(name);
    char why[256] = "";
    struct pol_config cfg = {.cluster = sim_cluster(s),
                             .backfill = backfill,
                             .deadlines = deadlines,
                             .error = why,
                             .error_cap = sizeof why};
    cfg.has_estimates = 1;
    for (uint32_t j = 0; j < sim_njobs(s); j++)
        if (!(sim_job(s, j)->est_work > 0))
            cfg.has_estimates = 0;
    cr_assert_eq(th_bind_run(s, ops, &cfg, NULL), 0, "%s", why);
}

/* Every job's start and finish, and GPU type when TYPE is not NULL. */
static void expect(const struct sim *s, const double *start,
                   const double *finish, const int *type)
{
    for (uint32_t j = 0; j < sim_njobs(s); j++) {
        const struct sim_job *job = sim_job(s, j);
        cr_expect_float_eq(job->start_time, start[j], 1e-9,
                           "job %u starts at %g", j, job->start_time);
        cr_expect_float_eq(job->finish_time, finish[j], 1e-9,
                           "job %u ends at %g", j, job->finish_time);
        if (type)
            cr_expect_eq(job->gpu_type, type[j], "job %u on type %d", j,
                         job->gpu_type);
    }
}

/* ---- sjf ---------------------------------------------------------------- */

/* Non-preemptive SJF on C identical servers, from the textbook definition:
 * whenever a server is free, the waiting job with the smallest size starts
 * on it; equal sizes in arrival order. ARRIVAL is sorted; fills START. */
static void sjf_reference(int c, size_t n, const double *arrival,
                          const double *size, double *start)
{
    double free_at[64] = {0};
    char *done = calloc(n, 1);
    size_t arrived = 0;
    for (size_t started = 0; started < n; started++) {
        int k = 0; /* the server free first */
        for (int i = 1; i < c; i++)
            if (free_at[i] < free_at[k])
                k = i;
        double t = free_at[k];
        if (arrived == started && arrival[arrived] > t)
            t = arrival[arrived]; /* nobody waits: idle until the next one */
        while (arrived < n && arrival[arrived] <= t)
            arrived++;
        size_t best = n;
        for (size_t j = 0; j < arrived; j++)
            if (!done[j] && (best == n || size[j] < size[best]))
                best = j;
        done[best] = 1;
        start[best] = t;
        free_at[k] = t + size[best];
    }
    free(done);
}

Test(sjf, matches_textbook_nonpreemptive_sjf_with_oracle_estimates)
{
    enum { C = 4, N = 3000 };
    static double arrival[N], size[N], start[N];
    struct cluster *c = cluster_of(four_gpus);
    for (unsigned long seed = 1; seed <= 5; seed++) {
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, seed);
        struct sim *s = sim_create(c, seed);
        double t = 0;
        for (int i = 0; i < N; i++) { /* load 0.9, heavy-tailed sizes */
            t += gsl_ran_exponential(r, 100.0 / (0.9 * C));
            arrival[i] = t;
            size[i] = 100 * gsl_ran_lognormal(r, -0.5, 1.0);
            add(s, arrival[i], size[i], size[i], 1, 0);
        }
        gsl_rng_free(r);
        run(s, "sjf", POL_BACKFILL_NONE, NULL);
        sjf_reference(C, N, arrival, size, start);
        int overtakes = 0;
        for (uint32_t j = 0; j < N; j++) {
            const struct sim_job *job = sim_job(s, j);
            cr_assert_float_eq(job->start_time, start[j], 1e-6,
                               "seed %lu job %u: %.9g, reference %.9g", seed, j,
                               job->start_time, start[j]);
            cr_assert_float_eq(job->finish_time, start[j] + size[j], 1e-6);
            overtakes +=
                j > 0 && job->start_time < sim_job(s, j - 1)->start_time;
        }
        cr_assert_gt(overtakes, 100, "sjf hardly differs from fifo");
        sim_destroy(s);
    }
    cluster_destroy(c);
}

Test(sjf, refuses_to_bind_without_estimates)
{
    struct cluster *c = cluster_of(four_gpus);
    const struct pol_ops *ops = pol_find("sjf");
    cr_assert_not_null(ops);
    cr_assert(ops->needs_estimates);
    struct sim_policy hooks = {0};
    char why[256] = "";
    struct pol_config cfg = {
        .cluster = c, .error = why, .error_cap = sizeof why};
    cr_assert_eq(pol_bind(ops, &cfg, &hooks), SIM_EINVAL);
    cr_assert_not_null(strstr(why, "sjf needs run-time estimates"), "%s", why);
    cr_assert_null(hooks.state);
    cluster_destroy(c);
}

/* ---- edf ---------------------------------------------------------------- */

/* One GPU; every job runs 10 s. j0 (no deadline) starts alone at 0 and is
 * not stopped when j6 arrives with an earlier deadline (non-preemptive).
 * Then: j6 (deadline 5, already missed: still first), j3 and j4 (100, a
 * tie kept in arrival order), j1 (500), then the jobs without a deadline
 * (NaN, negative) in arrival order: j2, j5. */
Test(edf, runs_earliest_deadline_first_and_jobs_without_one_last)
{
    struct cluster *c = cluster_of(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1}]}");
    const double deadline[] = {NAN, 500, -1, 100, 100, NAN, 5};
    for (int with = 0; with <= 1; with++) {
        struct sim *s = sim_create(c, 1);
        for (int j = 0; j < 7; j++)
            add(s, j, 10, 0, 1, 0);
        run(s, "edf", POL_BACKFILL_NONE, with ? deadline : NULL);
        /* Without deadlines (NULL) every job has none: arrival order. */
        double by_deadline[] = {0, 40, 50, 20, 30, 60, 10};
        double by_arrival[] = {0, 10, 20, 30, 40, 50, 60};
        double *start = with ? by_deadline : by_arrival, finish[7];
        for (int j = 0; j < 7; j++)
            finish[j] = start[j] + 10;
        expect(s, start, finish, NULL);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* ---- EASY backfilling --------------------------------------------------- */

/* fifo + EASY on 4 GPUs, exact estimates. j2 (4 GPUs) blocks at 10: one GPU
 * frees at 50 (j1), two at 100 (j0), so it is reserved at 100, with no
 * extra GPU. j3 (1 GPU, 70 s) ends at 90 <= 100: it backfills at 20. j4
 * (100 s) would end after 100 on a GPU j2 needs: it must not start at 50,
 * nor at 90. j5 (40 s) backfills at 50, ending at 90. Ten seconds a column:
 *
 *        0    50   100  150  200  250
 *  GPU0  00000000002222
 *  GPU1  00000000002222
 *  GPU2  111115555 22224444444444
 *  GPU3    3333333 2222
 *
 * (j2 arrives at 10; j4 at 30 waits to 140.) Conservative backfilling
 * draws the same: j4 would delay j2's reservation, the others would not. */
Test(backfill_easy, starts_short_jobs_around_the_blocked_head_as_drawn)
{
    struct cluster *c = cluster_of(four_gpus);
    const double start[] = {0, 0, 100, 20, 140, 50};
    const double finish[] = {100, 50, 140, 90, 240, 90};
    for (int mode = POL_BACKFILL_EASY; mode <= POL_BACKFILL_CONSERVATIVE;
         mode++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 100, 100, 2, 0);
        add(s, 0, 50, 50, 1, 0);
        add(s, 10, 40, 40, 4, 0);
        add(s, 20, 70, 70, 1, 0);
        add(s, 30, 100, 100, 1, 0);
        add(s, 40, 40, 40, 1, 0);
        run(s, "fifo", (enum pol_backfill)mode, NULL);
        expect(s, start, finish, NULL); /* conservative agrees here */
        sim_destroy(s);
    }
    /* Without backfilling j3 waits behind j2. */
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 100, 2, 0);
    add(s, 0, 50, 50, 1, 0);
    add(s, 10, 40, 40, 4, 0);
    add(s, 20, 70, 70, 1, 0);
    run(s, "fifo", POL_BACKFILL_NONE, NULL);
    cr_assert_float_eq(sim_job(s, 3)->start_time, 140, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Reservations are per GPU type. j1 (K80 only, 2 GPUs) is reserved on the
 * K80 node at 100, when j0 ends. j2 may use any type: the placer puts it on
 * a V100, which j1 does not need, so it starts although it runs 500 s. j3
 * (K80 only, 500 s on K80) would hold a GPU j1 needs at 100: it waits. j4
 * (K80 only, 40 s) ends by 100 and backfills past j3. */
Test(backfill_easy, reserves_per_gpu_type)
{
    struct cluster *c = cluster_of(two_types);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 50, 50, 1, 2u);   /* K80: 100 s */
    add(s, 1, 5, 5, 2, 2u);     /* K80: 10 s */
    add(s, 2, 500, 500, 1, 0);  /* V100: 500 s */
    add(s, 3, 250, 250, 1, 2u); /* K80: 500 s */
    add(s, 4, 20, 20, 1, 2u);   /* K80: 40 s */
    run(s, "fifo", POL_BACKFILL_EASY, NULL);
    const double start[] = {0, 100, 2, 110, 4};
    const double finish[] = {100, 110, 502, 610, 44};
    const int type[] = {1, 1, 0, 1, 1};
    expect(s, start, finish, type);
    sim_destroy(s);
    cluster_destroy(c);
}

/* A head that may use several types is reserved on the one free first:
 * j2 (2 GPUs, any type) could have the V100s at 100 (j0) or the K80s at 50
 * (j1): it is reserved on the K80s over [50, 70). So j3 (K80 only, 60 s
 * from 2) must wait, though a reservation on the V100s would have let it
 * run; j4 (K80 only, 40 s) ends by 50 and backfills. Both modes agree. */
Test(backfill, reserves_a_multi_type_head_on_the_type_free_first)
{
    struct cluster *c = cluster_of(two_types);
    for (int mode = POL_BACKFILL_EASY; mode <= POL_BACKFILL_CONSERVATIVE;
         mode++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 100, 100, 2, 1u); /* V100: 100 s */
        add(s, 0, 25, 25, 1, 2u);   /* K80: 50 s */
        add(s, 1, 10, 10, 2, 0);    /* V100 10 s, K80 20 s */
        add(s, 2, 30, 30, 1, 2u);   /* K80: 60 s */
        add(s, 3, 20, 20, 1, 2u);   /* K80: 40 s */
        run(s, "fifo", (enum pol_backfill)mode, NULL);
        const double start[] = {0, 0, 50, 70, 3};
        const double finish[] = {100, 50, 70, 130, 43};
        const int type[] = {0, 1, 1, 1, 1};
        expect(s, start, finish, type);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* ---- Conservative against EASY ------------------------------------------ */

/* 4 GPUs, fifo, exact estimates. j0 holds 3 GPUs until 100; j1 (3 GPUs)
 * is reserved at 100, leaving one extra GPU; j2 (4 GPUs) comes next.
 *
 * EASY protects only the head: j3 (1 GPU, 200 s) takes the extra GPU at 3,
 * so j2 waits for it until 203; j4 (40 s) backfills at 150 before 203.
 *
 *        0    50   100  150  200  250
 *  GPU0  000000000011111     22222
 *  GPU1  0000000000111114444 22222
 *  GPU2  000000000011111     22222
 *  GPU3  3333333333333333333322222       (j3 to 203, j2 203-253)
 *
 * Conservative reserves j2 too, over [150, 200): j3 would overlap it and
 * waits to 200; j4 (40 s) fits in the hole at 4 before j1's reservation.
 *
 *        0    50   100  150  200  250  300  350  400
 *  GPU0  00000000001111122222333333333333333333333
 *  GPU1  00000000001111122222
 *  GPU2  00000000001111122222
 *  GPU3  4444           22222 */
Test(backfill_conservative, protects_every_waiting_job_where_easy_does_not)
{
    struct cluster *c = cluster_of(four_gpus);
    const double easy_start[] = {0, 100, 203, 3, 150};
    const double easy_finish[] = {100, 150, 253, 203, 190};
    const double cons_start[] = {0, 100, 150, 200, 4};
    const double cons_finish[] = {100, 150, 200, 400, 44};
    for (int mode = POL_BACKFILL_EASY; mode <= POL_BACKFILL_CONSERVATIVE;
         mode++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 100, 100, 3, 0);
        add(s, 1, 50, 50, 3, 0);
        add(s, 2, 50, 50, 4, 0);
        add(s, 3, 200, 200, 1, 0);
        add(s, 4, 40, 40, 1, 0);
        run(s, "fifo", (enum pol_backfill)mode, NULL);
        if (mode == POL_BACKFILL_EASY)
            expect(s, easy_start, easy_finish, NULL);
        else
            expect(s, cons_start, cons_finish, NULL);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* ---- Wrong estimates ---------------------------------------------------- */

/* j0 is believed to take 50 s but takes 100. j1 (4 GPUs) is reserved at
 * 50; j2 (40 s) backfills before it. At 45, j3 (10 s) would end after 50:
 * refused. From 50 on, j0 has outlived its estimate and is expected to end
 * at once, so the reservation is "now": j4 (5 s) is refused at 70. j1
 * starts when j0 really ends; it was never delayed by a backfilled job. */
Test(backfill_easy, waits_with_a_job_that_outlives_its_estimate)
{
    struct cluster *c = cluster_of(four_gpus);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 50, 3, 0);
    add(s, 1, 10, 10, 4, 0);
    add(s, 2, 40, 40, 1, 0);
    add(s, 45, 10, 10, 1, 0);
    add(s, 70, 5, 5, 1, 0);
    run(s, "fifo", POL_BACKFILL_EASY, NULL);
    const double start[] = {0, 100, 2, 110, 110};
    const double finish[] = {100, 110, 42, 120, 115};
    expect(s, start, finish, NULL);
    sim_destroy(s);
    cluster_destroy(c);
}

/* j2 is believed to end by 42, before j1's reservation at 50, but runs 80
 * s: it delays j1 to 82 (the documented price of a wrong estimate). From
 * 50 the reservation waits with j2, so j3 is refused at 60. */
Test(backfill_easy, lets_a_backfilled_job_that_overruns_delay_the_head)
{
    struct cluster *c = cluster_of(four_gpus);
    for (int mode = POL_BACKFILL_EASY; mode <= POL_BACKFILL_CONSERVATIVE;
         mode++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 50, 50, 3, 0);
        add(s, 1, 10, 10, 4, 0);
        add(s, 2, 80, 40, 1, 0);
        add(s, 60, 5, 5, 1, 0);
        run(s, "fifo", (enum pol_backfill)mode, NULL);
        const double start[] = {0, 82, 2, 92};
        const double finish[] = {50, 92, 82, 97};
        expect(s, start, finish, NULL);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* Random multi-GPU jobs on two GPU types, some spread over nodes, with
 * noisy estimates, under every list policy and backfill mode: the engine
 * accepts every decision and every job ends. */
Test(backfill, runs_random_noisy_workloads_to_the_end)
{
    const char *const policies[] = {"fifo", "sjf", "edf"};
    struct cluster *c = cluster_of(
        "{\"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
        " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
        "  {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.5}],"
        " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 4, "
        "\"count\": 2},"
        "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 2, \"count\": 3}]}");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    enum { N = 400 };
    static double deadline[N];
    for (int p = 0; p < 3; p++) {
        for (int mode = 0; mode <= POL_BACKFILL_CONSERVATIVE; mode++) {
            struct sim *s = sim_create(c, 1);
            double t = 0;
            for (int i = 0; i < N; i++) {
                t += gsl_ran_exponential(r, 20);
                double work = 10 + gsl_ran_exponential(r, 60);
                double est = work * gsl_ran_lognormal(r, 0, 0.5);
                int gpus = 1 + (int)gsl_rng_uniform_int(r, 6);
                add(s, t, work, est, gpus, (uint32_t)gsl_rng_uniform_int(r, 4));
                deadline[i] = gsl_rng_uniform(r) < 0.3 ? NAN : t + 500;
            }
            run(s, policies[p], (enum pol_backfill)mode, deadline);
            for (uint32_t j = 0; j < N; j++) {
                const struct sim_job *job = sim_job(s, j);
                cr_assert(job->state == JOB_COMPLETED ||
                              job->failure == JOB_FAIL_UNSCHEDULABLE,
                          "%s mode %d job %u", policies[p], mode, j);
            }
            sim_destroy(s);
        }
    }
    gsl_rng_free(r);
    cluster_destroy(c);
}

/* A conservative pass looks at no more than 100 waiting jobs, the blocked
 * head included (EASY has no such limit). j0 holds 3 of 4 GPUs until 100;
 * j1 (4 GPUs) is reserved at 100; LONG jobs of 1000 s cannot start before
 * it; a short job (10 s at 5) then backfills if it is among the first 100. */
static double short_job_start(int longs, enum pol_backfill mode)
{
    struct cluster *c = cluster_of(four_gpus);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 100, 3, 0);
    add(s, 1, 10, 10, 4, 0);
    for (int i = 0; i < longs; i++)
        add(s, 2, 1000, 1000, 1, 0);
    add(s, 5, 10, 10, 1, 0);
    run(s, "fifo", mode, NULL);
    double start = sim_job(s, (uint32_t)longs + 2)->start_time;
    sim_destroy(s);
    cluster_destroy(c);
    return start;
}

Test(backfill_conservative, looks_at_most_100_waiting_jobs_per_pass)
{
    cr_assert_float_eq(short_job_start(98, POL_BACKFILL_CONSERVATIVE), 5, 1e-9);
    cr_assert_float_eq(short_job_start(99, POL_BACKFILL_EASY), 5, 1e-9);
    /* 99 long jobs push it to 101st: it waits its turn in FIFO order.
     * From 110, when j1 ends, four long jobs start every 1000 s; after 24
     * rounds it starts beside the last three. */
    cr_assert_float_eq(short_job_start(99, POL_BACKFILL_CONSERVATIVE),
                       110 + 24 * 1000, 1e-9);
}
