/* test_colocate.c -- GPU sharing in the one engine (sim/colocate.c) under
 * the ordering policies and sharing placements, every expectation worked
 * out by hand in the comment above its test. Jobs are class 0: work in
 * seconds alone on the reference type. Co-located jobs run at PAIR (the
 * interference factor) each, unless a test says otherwise. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "helpers.h"

static const char *const one_gpu =
    "{\"name\": \"one\", \"gpu_types\": ["
    " {\"name\": \"A\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 1, \"count\": 1}]}";

static const char *const two_gpus =
    "{\"name\": \"two\", \"gpu_types\": ["
    " {\"name\": \"A\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 2, \"count\": 1}]}";

/* Node 0: one A (16 GB); node 1: one B (32 GB); same speed. */
static const char *const small_big =
    "{\"name\": \"sb\", \"gpu_types\": ["
    " {\"name\": \"A\", \"memory_mb\": 16384, \"speed\": 1},"
    " {\"name\": \"B\", \"memory_mb\": 32768, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 1, \"count\": 1},"
    "            {\"gpu_type\": \"B\", \"gpus_per_node\": 1, \"count\": 1}]}";

static double pair = 0.5;

static double pair_speed(void *ctx, int32_t t, uint32_t a, uint32_t b)
{
    (void)ctx, (void)t, (void)a, (void)b;
    return pair;
}

/* What the test's estimator predicts: GPU utilization per job. */
static double util[8];

static int util_estimate(void *ctx, const struct sim *s, uint32_t job,
                         struct sim_estimate *out)
{
    (void)ctx, (void)s;
    out->gpu_util = util[job];
    return 0;
}

struct fixture {
    struct cluster *c;
    struct sim *s;
    struct share_workload *w;
};

/* Adds the N jobs (submit, work, milli or 1000 x GPUs) and turns sharing
 * on with BOUND for util-pack. */
static void make(struct fixture *f, const char *cluster, const double *submit,
                 const double *work, const int *milli, size_t n, double bound)
{
    struct share_demand d[8];
    f->c = th_cluster(cluster);
    f->s = sim_create(f->c, 1);
    cr_assert_not_null(f->s);
    for (size_t j = 0; j < n; j++) {
        int gpus = milli[j] > 1000 ? milli[j] / 1000 : 1;
        th_add(f->s, submit[j], work[j], work[j], gpus, 0);
        d[j] = (struct share_demand){0, 0, gpus, milli[j] > 1000 ? 1000
                                                                 : milli[j],
                                     0};
    }
    cr_assert_eq(share_workload_build(d, n, &f->w), 0);
    struct sim_sharing sh = {d, f->w, NULL, NULL, pair_speed, NULL, bound};
    cr_assert_eq(sim_enable_sharing(f->s, &sh), 0);
}

static void run(struct fixture *f, const char *policy, const char *placement,
                const char *const *opts, size_t nopts)
{
    char keys[4][64], values[4][64];
    const char *k[4], *v[4];
    for (size_t i = 0; i < nopts; i++) {
        th_split_opt(opts[i], keys[i], sizeof keys[i], values[i],
                     sizeof values[i]);
        k[i] = keys[i];
        v[i] = values[i];
    }
    struct pol_config cfg = {.cluster = f->c,
                             .seed = 1,
                             .has_estimates = 1,
                             .backfill = POL_BACKFILL_GREEDY,
                             .keys = k,
                             .values = v,
                             .nopts = nopts,
                             .sharing = 1,
                             .share_rule = pol_share_rule_parse(placement),
                             .share_w = f->w};
    const struct pol_ops *ops = th_find(policy);
    if (ops->preemptive)
        cfg.backfill = POL_BACKFILL_NONE;
    cr_assert_eq(th_bind_run(f->s, ops, &cfg, NULL), 0);
}

static void done(struct fixture *f)
{
    sim_destroy(f->s);
    share_workload_destroy(f->w);
    cluster_destroy(f->c);
}

static double finish(const struct fixture *f, uint32_t j)
{
    return sim_job(f->s, j)->finish_time;
}

/* One GPU. Shares of 500 milli: j0 (0, 100 s), j1 (20, 30 s), j2 (30,
 * 10 s); j3 asks 2 GPUs and fits no node.
 *   [0, 20]   j0 alone: 20 done, 80 left;
 *   20        j1 joins, both at .5;  30: j2 arrives, the GPU is full;
 *   80        j1 ends (30 / .5 = 60 s); j0 did 30 more, 50 left; j2 starts;
 *   100       j2 ends (10 / .5); j0 did 10 more, 40 left, now alone;
 *   140       j0 ends.
 * JCT 140, 60, 70: mean 90. Allocated milli 500 on [0, 20], 1000 on
 * [20, 100], 500 on [100, 140]: 110000 / (1000 x 140) = 11/14; work
 * 500 x (100 + 30 + 10) / 140000 = 1/2. Fragmentation: the workload is
 * share 500 (3/4) and two GPUs (1/4); the share fits whenever anything is
 * free, so F = 1/4 x free: 1/4 x (500 x 20 + 500 x 40) = 7500, over
 * 140000: 3/56. All three shares had company: jobs_shared 3. */
Test(colocate, fifo_shares_change_speed_as_company_comes_and_goes)
{
    struct fixture f;
    double submit[] = {0, 20, 30, 30}, work[] = {100, 30, 10, 10};
    int milli[] = {500, 500, 500, 2000};
    struct sim_summary m;
    make(&f, one_gpu, submit, work, milli, 4, 0);
    run(&f, "fifo", "first-fit", NULL, 0);
    cr_assert_float_eq(finish(&f, 0), 140, 1e-9);
    cr_assert_float_eq(finish(&f, 1), 80, 1e-9);
    cr_assert_float_eq(sim_job(f.s, 2)->start_time, 80, 1e-9);
    cr_assert_float_eq(finish(&f, 2), 100, 1e-9);
    cr_assert_eq(sim_job(f.s, 3)->state, JOB_FAILED);
    cr_assert_eq(sim_summarize(f.s, &m), 0);
    cr_assert_eq(m.jobs_completed, 3);
    cr_assert_eq(m.jobs_unschedulable, 1);
    cr_assert_float_eq(m.avg_jct_s, 90, 1e-9);
    cr_assert_float_eq(m.makespan_s, 140, 1e-9);
    cr_assert_float_eq(m.gpu_utilization, 11 / 14.0, 1e-12);
    cr_assert_float_eq(m.effective_utilization, 0.5, 1e-12);
    cr_assert_float_eq(m.frag_rate_mean, 3 / 56.0, 1e-12);
    cr_assert_eq(m.jobs_shared, 3);
    cr_assert_eq(sim_share_cluster(f.s)->used_milli, 0);
    done(&f);
}

/* One GPU, shares of 500, pair speed .5. j0 (0, 100 s) starts alone; j1
 * (10, 60 s) and j2 (10, 20 s) arrive together; one of them fits.
 * SJF takes j2: j0 has 90 left at 10; both at .5, j2 ends at 10 + 40 = 50,
 * j0 has 70 left; j1 starts at 50 (60 / .5: 170); j0 would need 140 s, so
 * j1 ends first at 170, j0 did 60 and ends its last 10 alone at 180.
 * FIFO takes j1: it ends at 10 + 120 = 130, j0 did 60 (30 left); j2
 * starts at 130, ends at 170 (20 / .5), j0 did 20 and ends alone at 180.
 * Mean JCT: SJF (180 + 160 + 40) / 3, FIFO (180 + 120 + 160) / 3. */
Test(colocate, sjf_over_shares_with_interference)
{
    double submit[] = {0, 10, 10}, work[] = {100, 60, 20};
    int milli[] = {500, 500, 500};
    const char *pols[] = {"sjf", "fifo"};
    const double want[2][3] = {{180, 170, 50}, {180, 130, 170}};
    const double jct[2] = {380 / 3.0, 460 / 3.0};
    for (int p = 0; p < 2; p++) {
        struct fixture f;
        struct sim_summary m;
        make(&f, one_gpu, submit, work, milli, 3, 0);
        run(&f, pols[p], "best-fit", NULL, 0);
        for (uint32_t j = 0; j < 3; j++)
            cr_assert_float_eq(finish(&f, j), want[p][j], 1e-9, "%s job %u",
                               pols[p], j);
        cr_assert_eq(sim_summarize(f.s, &m), 0);
        cr_assert_float_eq(m.avg_jct_s, jct[p], 1e-9);
        cr_assert_eq(m.jobs_shared, 3);
        done(&f);
    }
}

/* Tiresias with 2 queues, threshold 50 GPU-s; one GPU, shares of 500 at
 * .5. j0 and j1 (0, 100 s each) share the GPU from 0; both are demoted to
 * Q2 at 50 (attained 50 s on one GPU). j2 (60, 20 s) arrives in Q1: the
 * GPU is full, and the latest arrival of Q2, j1, is preempted with
 * 100 - 60 x .5 = 70 left; j2 takes its place: j0 (70 left) and j2 at .5,
 * j2 ends at 60 + 40 = 100, j0 has 50 left. j1 restarts at 100: j0 (50 at
 * .5) ends at 200, j1 has 70 - 50 = 20 left, alone to 220. */
Test(colocate, tiresias_over_shares_with_interference)
{
    struct fixture f;
    double submit[] = {0, 0, 60}, work[] = {100, 100, 20};
    int milli[] = {500, 500, 500};
    const char *opts[] = {"queues=2", "thresholds=50"};
    make(&f, one_gpu, submit, work, milli, 3, 0);
    run(&f, "tiresias", "fgd", opts, 2);
    cr_assert_float_eq(finish(&f, 0), 200, 1e-9);
    cr_assert_float_eq(finish(&f, 1), 220, 1e-9);
    cr_assert_float_eq(finish(&f, 2), 100, 1e-9);
    cr_assert_eq(sim_job(f.s, 1)->preemptions, 1);
    cr_assert_eq(sim_job(f.s, 0)->preemptions, 0);
    done(&f);
}

/* A share of m milli has m/1000 of its GPU's memory. Node 0 has one A
 * (16384 MB), node 1 one B (32768 MB). j0 (0, 100 s, 250 milli, needs
 * 6000 MB) goes first-fit to A, where 250 milli hold 4096 MB: it runs out
 * of memory after oom_detect_s = 30 s, A leaves its types, and it runs on
 * B (8192 MB) from 30 to 130. j1 (40, 50 s, 500 milli, 6000 MB) goes to A,
 * where 500 milli hold 8192 MB: it runs 40 to 90. One OOM, 30 GPU-s
 * wasted. */
Test(colocate, a_share_runs_out_of_its_part_of_the_memory)
{
    struct fixture f = {0};
    struct share_demand d[2] = {{0, 0, 1, 250, 0}, {0, 0, 1, 500, 0}};
    struct sim_summary m;
    f.c = th_cluster(small_big);
    f.s = sim_create(f.c, 1);
    struct sim_job_spec a = {0, 100, 1, 0, 0, 0, 100, 6000, 0};
    struct sim_job_spec b = {40, 50, 1, 0, 1, 0, 50, 6000, 0};
    cr_assert_eq(sim_add_job(f.s, &a), 0);
    cr_assert_eq(sim_add_job(f.s, &b), 0);
    sim_set_oom_detect_s(f.s, 30);
    cr_assert_eq(share_workload_build(d, 2, &f.w), 0);
    struct sim_sharing sh = {d, f.w, NULL, NULL, pair_speed, NULL, 0};
    cr_assert_eq(sim_enable_sharing(f.s, &sh), 0);
    run(&f, "fifo", "first-fit", NULL, 0);
    cr_assert_float_eq(finish(&f, 0), 130, 1e-9);
    cr_assert_eq(sim_job(f.s, 0)->gpu_type, 1);
    cr_assert_float_eq(sim_job(f.s, 1)->start_time, 40, 1e-9);
    cr_assert_float_eq(finish(&f, 1), 90, 1e-9);
    cr_assert_eq(sim_job(f.s, 1)->gpu_type, 0);
    cr_assert_eq(sim_summarize(f.s, &m), 0);
    cr_assert_eq(m.oom_events, 1);
    cr_assert_float_eq(m.wasted_gpu_s, 30, 1e-9);
    done(&f);
}

/* util-pack, one GPU, whole one-GPU jobs a (0, 100 s) and b (0, 60 s),
 * pair speed .5, bound 1.
 * Oracle (demands shrunk before the run, as `hetsim run` does from the
 * trace's utilization): u = .25 and .5 ask 250 and 500 milli and share:
 * b ends at 120, a has done 60 and ends alone at 160.
 * Predicted on arrival (the estimator says .25 and .5): the same.
 * Predicted .6 and .6: 600 + 600 > 1000, they do not share: a over
 * [0, 100], b over [100, 160]. Predicted .3 and .7 (bound 1): 300 + 700
 * share again: 160 and 120. */
Test(colocate, util_pack_with_oracle_and_predicted_utilization)
{
    double submit[] = {0, 0}, work[] = {100, 60};
    struct sim_estimator est = {"util", NULL, util_estimate, NULL};
    const double predicted[3][2] = {{0.25, 0.5}, {0.6, 0.6}, {0.3, 0.7}};
    const double want[3][2] = {{160, 120}, {100, 160}, {160, 120}};
    struct fixture f;
    int oracle[] = {250, 500}, whole[] = {1000, 1000};
    make(&f, one_gpu, submit, work, oracle, 2, 0);
    run(&f, "fifo", "fgd", NULL, 0);
    cr_assert_float_eq(finish(&f, 0), 160, 1e-9);
    cr_assert_float_eq(finish(&f, 1), 120, 1e-9);
    done(&f);
    for (int k = 0; k < 3; k++) {
        struct sim_summary m;
        util[0] = predicted[k][0];
        util[1] = predicted[k][1];
        make(&f, one_gpu, submit, work, whole, 2, 1.0);
        sim_set_estimator(f.s, &est);
        run(&f, "fifo", "fgd", NULL, 0);
        cr_assert_float_eq(finish(&f, 0), want[k][0], 1e-9, "case %d", k);
        cr_assert_float_eq(finish(&f, 1), want[k][1], 1e-9, "case %d", k);
        cr_assert_eq(sim_summarize(f.s, &m), 0);
        cr_assert_eq(m.jobs_shared, k == 1 ? 0 : 2, "case %d", k);
        done(&f);
    }
}

/* One node of 2 GPUs; j0 a share of 500 (0, 100 s), j1 both GPUs (0,
 * 50 s). j0 takes GPU 0 and j1, which needs 2 fully free GPUs, waits to
 * 100 and runs to 150. The workload is the share (1/2) and the 2-GPU job
 * (1/2). Over [0, 100] the GPUs have 500 and 1000 free: the share fits and
 * no GPU is below 500, F = 0; the 2-GPU job does not fit, F = 1500: the
 * node's fragmentation is 750 milli. Over [100, 150] nothing is free.
 * frag_rate_mean = 750 x 100 / (2000 x 150) = 1/4; allocated
 * (500 x 100 + 2000 x 50) / 300000 = 1/2, all of it work. While j0 runs,
 * the engine counts 1 fully free GPU and 1 busy. */
static int32_t free_seen = -1, busy_seen = -1;
static void watch(void *ctx, double t, int32_t q, int32_t busy,
                  const int32_t *by_type)
{
    (void)q, (void)by_type;
    if (t == 0) {
        free_seen = sim_free_gpus(ctx, 0);
        busy_seen = busy;
    }
}

Test(colocate, fragmentation_with_whole_and_shared_jobs)
{
    struct fixture f;
    double submit[] = {0, 0}, work[] = {100, 50};
    int milli[] = {500, 2000};
    struct sim_summary m;
    make(&f, two_gpus, submit, work, milli, 2, 0);
    struct sim_observer obs = {f.s, watch};
    struct pol_config cfg = {.cluster = f.c,
                             .seed = 1,
                             .sharing = 1,
                             .share_rule = POL_SHARE_FGD,
                             .share_w = f.w};
    cr_assert_eq(th_bind_run(f.s, th_find("fifo"), &cfg, &obs), 0);
    cr_assert_float_eq(finish(&f, 0), 100, 1e-9);
    cr_assert_float_eq(sim_job(f.s, 1)->start_time, 100, 1e-9);
    cr_assert_float_eq(finish(&f, 1), 150, 1e-9);
    cr_assert_eq(free_seen, 1);
    cr_assert_eq(busy_seen, 1);
    cr_assert_eq(sim_summarize(f.s, &m), 0);
    cr_assert_float_eq(m.frag_rate_mean, 0.25, 1e-12);
    cr_assert_float_eq(m.gpu_utilization, 0.5, 1e-12);
    cr_assert_float_eq(m.effective_utilization, 0.5, 1e-12);
    cr_assert_eq(m.jobs_shared, 0);
    done(&f);
}
