/* test_estimator.c -- a predictor in the loop (struct sim_estimator): the
 * engine asks it on every arrival, policies act on what it says, and a
 * wrong one measurably hurts SJF. Expected numbers are worked out by hand
 * in the comments. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "policy.h"

/* One node with one GPU. */
static const char *const one_gpu =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1}]}";

/* V100 node 0 (1 GPU, speed 1), K80 node 1 (1 GPU, speed 0.5). */
static const char *const two_types =
    "{\"reference_gpu\": \"V100\","
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
    "                 {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.5}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 1},"
    "           {\"gpu_type\": \"K80\", \"gpus_per_node\": 1}]}";

struct fake {
    int reversed;   /* estimate (1 + 3) - truth instead of the truth */
    int calls;      /* estimate() calls */
    int finished;   /* on_finish() calls */
    double mem_mb;  /* memory estimate to return */
};

/* Run time on every type: the truth (work x seconds per unit), or for
 * the wrong predictor, the reference time mirrored around 2 s: 1 <-> 3. */
static int fake_estimate(void *ctx, const struct sim *s, uint32_t job,
                         struct sim_estimate *out)
{
    struct fake *f = ctx;
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    f->calls++;
    cr_assert_eq(j->state, JOB_QUEUED, "asked when the job arrives");
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++) {
        double w = f->reversed ? 4 - j->work : j->work;
        out->runtime_s[t] = w * cl->unit_s[t];
    }
    out->mem_mb = f->mem_mb;
    out->gpu_util = 0.25;
    return 0;
}

static void fake_finish(void *ctx, const struct sim *s, uint32_t job)
{
    struct fake *f = ctx;
    cr_assert_eq(sim_job(s, job)->state, JOB_COMPLETED);
    f->finished++;
}

/* Runs SJF on jobs of 1, 2 and 3 s (in the order 3, 1, 2), all at time 0,
 * on one GPU, under the fake estimator; returns the average JCT. */
static double sjf_avg_jct(struct fake *f)
{
    struct cluster *c = th_cluster(one_gpu);
    struct sim *s = sim_create(c, 1);
    th_add(s, 0, 3, 0, 1, 0);
    th_add(s, 0, 1, 0, 1, 0);
    th_add(s, 0, 2, 0, 1, 0);
    struct sim_estimator e = {"fake", f, fake_estimate, fake_finish};
    sim_set_estimator(s, &e);
    char why[256] = "";
    struct pol_config cfg = {.cluster = c, .has_estimates = 1,
                             .error = why, .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, th_find("sjf"), &cfg, NULL), 0, "%s", why);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.jobs_completed, 3);
    sim_destroy(s);
    cluster_destroy(c);
    return m.avg_jct_s;
}

Test(estimator, wrong_run_times_worsen_sjf_against_oracle)
{
    /* Oracle: 1 s, 2 s, 3 s in that order finish at 1, 3, 6: avg 10/3.
     * Reversed (estimates 3, 2, 1 for the 1, 2, 3 s jobs): the 3 s job
     * runs first, then 2 s, then 1 s: finish at 3, 5, 6: avg 14/3. */
    struct fake oracle = {0}, wrong = {.reversed = 1};
    double good = sjf_avg_jct(&oracle), bad = sjf_avg_jct(&wrong);
    cr_assert_float_eq(good, 10.0 / 3, 1e-12);
    cr_assert_float_eq(bad, 14.0 / 3, 1e-12);
    cr_assert_eq(oracle.calls, 3, "one call per arrival");
    cr_assert_eq(oracle.finished, 3, "one call per finish");
}

Test(estimator, per_type_estimates_are_kept_and_set_est_work)
{
    /* A 4 s job (reference V100) runs 8 s on the K80 (speed 0.5). The
     * fastest type it may use is the V100: est_work = 4 / 1 = 4. */
    struct cluster *c = th_cluster(two_types);
    struct sim *s = sim_create(c, 1);
    th_add(s, 0, 4, 0, 1, 0);
    struct fake f = {.mem_mb = 1500};
    struct sim_estimator e = {"fake", &f, fake_estimate, NULL};
    sim_set_estimator(s, &e);
    char why[256] = "";
    struct pol_config cfg = {.cluster = c, .error = why,
                             .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, th_find("fifo"), &cfg, NULL), 0, "%s", why);
    cr_assert_float_eq(sim_est_runtime_s(s, 0, 0), 4, 1e-12);
    cr_assert_float_eq(sim_est_runtime_s(s, 0, 1), 8, 1e-12);
    cr_assert_float_eq(sim_job(s, 0)->est_work, 4, 1e-12);
    cr_assert_float_eq(sim_est_mem_mb(s, 0), 1500, 1e-12);
    cr_assert_float_eq(sim_est_gpu_util(s, 0), 0.25, 1e-12);
    cr_assert_float_eq(sim_est_mem_util(s, 0), -1, 1e-12);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(estimator, est_work_follows_the_fastest_types_estimate)
{
    /* A 5 s job (V100 reference; 10 s on the K80) with est_work 6. Per-type
     * estimates 3 s (V100) and 20 s (K80): the fastest type it may use is
     * the V100, so est_work = 3 / 1 = 3. Allowed only the K80: 20 s at
     * 2 s per unit there, est_work = 10. No estimate anywhere: 0. */
    struct cluster *c = th_cluster(two_types);
    struct sim *s = sim_create(c, 1);
    th_add(s, 0, 5, 6, 1, 0);
    th_add(s, 0, 5, 6, 1, 1u << 1);
    double per_type[2] = {3, 20};
    sim_set_est_runtime(s, 0, per_type);
    sim_est_work_from_runtime(s, 0);
    cr_assert_float_eq(sim_job(s, 0)->est_work, 3, 1e-12);
    sim_set_est_runtime(s, 1, per_type);
    sim_est_work_from_runtime(s, 1);
    cr_assert_float_eq(sim_job(s, 1)->est_work, 10, 1e-12);
    double none[2] = {0, 0};
    sim_set_est_runtime(s, 0, none);
    sim_est_work_from_runtime(s, 0);
    cr_assert_float_eq(sim_job(s, 0)->est_work, 0, 1e-12);
    cr_assert_eq(sim_set_est_mem(s, 2, 10), SIM_EINVAL, "no job 2");
    cr_assert_eq(sim_set_est_mem(s, 0, -1), SIM_EINVAL);
    sim_destroy(s);
    cluster_destroy(c);
}

static int failing_estimate(void *ctx, const struct sim *s, uint32_t job,
                            struct sim_estimate *out)
{
    (void)ctx, (void)s, (void)job, (void)out;
    return SIM_ENOMEM;
}

Test(estimator, a_failing_estimator_stops_the_run_with_its_code)
{
    struct cluster *c = th_cluster(one_gpu);
    struct sim *s = sim_create(c, 1);
    th_add(s, 0, 1, 0, 1, 0);
    th_add(s, 5, 1, 0, 1, 0);
    struct sim_estimator e = {"broken", NULL, failing_estimate, NULL};
    sim_set_estimator(s, &e);
    char why[256] = "";
    struct pol_config cfg = {.cluster = c, .error = why,
                             .error_cap = sizeof why};
    struct sim_policy hooks;
    cr_assert_eq(pol_bind(th_find("fifo"), &cfg, &hooks), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &hooks, NULL, &err), SIM_ENOMEM);
    cr_assert(strstr(err.text, "estimator broken") != NULL, "%s", err.text);
    pol_unbind(th_find("fifo"), &hooks);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Node 0: one "Small" GPU of 8,000 MB at speed 2; node 1: one "Big" GPU of
 * 16,000 MB at speed 1 (the reference). */
static const char *const small_big =
    "{\"reference_gpu\": \"Big\","
    " \"gpu_types\": [{\"name\": \"Small\", \"memory_mb\": 8000, \"speed\": 2},"
    "                 {\"name\": \"Big\", \"memory_mb\": 16000, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"Small\", \"gpus_per_node\": 1},"
    "           {\"gpu_type\": \"Big\", \"gpus_per_node\": 1}]}";

/* A memory predictor that is right: the job's true need. */
static int memory_estimate(void *ctx, const struct sim *s, uint32_t job,
                           struct sim_estimate *out)
{
    (void)ctx;
    out->mem_mb = sim_job(s, job)->gpu_mem_mb;
    return 0;
}

/* FIFO, fastest placement made mem-aware, OOM detected after 10 s, on
 * three 100 s jobs at time 0 needing 12,000, 4,000 and 12,000 MB; with the
 * memory predictor when PREDICT. */
static void run_small_big(int predict, struct sim_summary *m)
{
    struct cluster *c = th_cluster(small_big);
    struct sim *s = sim_create(c, 1);
    static const double mem[] = {12000, 4000, 12000};
    for (uint32_t i = 0; i < 3; i++) {
        struct sim_job_spec spec = {.submit_time = 0, .work = 100,
                                    .num_gpus = 1, .trace_index = i,
                                    .gpu_mem_mb = mem[i]};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    sim_set_oom_detect_s(s, 10);
    struct sim_estimator e = {"memory", NULL, memory_estimate, NULL};
    if (predict)
        sim_set_estimator(s, &e);
    char why[256] = "";
    struct pol_config cfg = {.cluster = c, .mem_aware = 1, .error = why,
                             .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, th_find("fifo"), &cfg, NULL), 0, "%s", why);
    cr_assert_eq(sim_summarize(s, m), 0);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(estimator, memory_predictions_avoid_every_oom)
{
    /* Without predictions mem-aware knows nothing: job 0 goes to the
     * fastest type, Small, job 1 to Big, job 2 waits. At 10 s job 0 runs
     * out of memory on Small (8,000 < 12,000) and waits again, Big only;
     * Small is free, so job 2 starts there and runs out of memory at
     * 20 s. Two OOM events, 10 + 10 = 20 GPU-seconds wasted. */
    struct sim_summary m;
    run_small_big(0, &m);
    cr_assert_eq(m.oom_events, 2);
    cr_assert_float_eq(m.wasted_gpu_s, 20, 1e-9);
    cr_assert_eq(m.jobs_completed, 3);
    /* With them: job 0 goes to Big (0-100 s), job 1 to Small (100 s of
     * reference work at speed 2: 0-50 s), job 2 waits for Big (100-200 s).
     * No OOM; JCTs 100, 50, 200: average 350 / 3. */
    run_small_big(1, &m);
    cr_assert_eq(m.oom_events, 0);
    cr_assert_float_eq(m.wasted_gpu_s, 0, 1e-12);
    cr_assert_float_eq(m.avg_jct_s, 350.0 / 3, 1e-9);
}
