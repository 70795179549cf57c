/* test_memory.c -- the memory model of the engine: a run on a GPU type with
 * less memory than the job needs fails after oom_detect_s, its GPU time is
 * wasted, and the job waits again without that type; and the estimate
 * accessors (sim_est_runtime_s, sim_set_est_runtime, sim_est_mem_mb).
 *
 * Every expected number is worked out by hand in the comment above it. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fixtures.h"

/* Most cases run on ts_k80_p100: K80 (12 GB, half the speed) is type 0,
 * P100 (16 GB, the reference) type 1, one node of 2 GPUs each. */
static struct cluster *parse(const char *json)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(json, "test", &c, &err), 0, "%s", err.text);
    return c;
}

static void add(struct sim *s, double submit, double work, int gpus,
                double mem, double est_work, double est_mem)
{
    struct sim_job_spec spec = {submit, work, gpus, 0, (uint32_t)sim_njobs(s),
                                0, est_work, mem, est_mem};
    cr_assert_eq(sim_add_job(s, &spec), 0);
}

/* A memory-blind greedy policy: waiting jobs in queue order, each on the
 * first allowed type (K80 before P100) with a node that holds it. It also
 * counts the hooks the engine calls, to check the OOM contract. */
struct greedy {
    int arrivals, finishes;
    int finish_state[8]; /* the job's state when on_finish came */
};

static void greedy_arrival(void *st, struct sim *s, uint32_t job)
{
    (void)s;
    (void)job;
    ((struct greedy *)st)->arrivals++;
}

static void greedy_finish(void *st, struct sim *s, uint32_t job)
{
    struct greedy *g = st;
    if (g->finishes < 8)
        g->finish_state[g->finishes] = sim_job(s, job)->state;
    g->finishes++;
}

static void run_greedy(struct sim *s, struct greedy *g)
{
    struct sim_policy p = {"greedy", g, greedy_arrival, greedy_finish,
                           ts_first_node_schedule};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), 0, "%s", err.text);
}

/* Job A (2 GPUs, 100 s on P100, needs 16,000 MB) and job B (2 GPUs, 50 s
 * on P100, needs 8,000 MB) both come at 0. Greedy puts A on the K80 (12,288
 * MB: too small) and B on the P100.
 *   t = 50   B finishes (50 s on P100).
 *   t = 60   A runs out of memory on K80: 60 s x 2 GPUs = 120 GPU-s wasted;
 *            K80 leaves its allowed types; it waits again and starts on the
 *            now free P100 at once, for 100 s.
 *   t = 160  A finishes. JCT A 160, B 50: avg 105; makespan 160.
 * Busy GPU-s: K80 120 (the wasted run), P100 2 x 50 + 2 x 100 = 300, so
 * utilization 420 / (4 x 160) = 0.65625, K80 120 / 320 = 0.375, P100
 * 300 / 320 = 0.9375. Completion per type: P100 160, K80 none. */
Test(memory, oom_wastes_the_run_and_requeues_without_that_type)
{
    struct cluster *c = parse(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 2, 16000, 0, 0);
    add(s, 0, 50, 2, 8000, 0, 0);
    struct greedy g = {0};
    run_greedy(s, &g);
    const struct sim_job *a = sim_job(s, 0), *b = sim_job(s, 1);
    cr_assert_eq(a->state, JOB_COMPLETED);
    cr_assert_float_eq(a->finish_time, 160, 1e-9);
    cr_assert_float_eq(a->start_time, 0, 1e-9); /* the first start */
    cr_assert_eq(a->ooms, 1);
    cr_assert_float_eq(a->wasted_s, 60, 1e-9);
    cr_assert_eq(a->gpu_type, 1);
    cr_assert_eq(a->allowed, 2u); /* P100 only now */
    cr_assert_float_eq(b->finish_time, 50, 1e-9);
    /* The policy saw A finish (back in QUEUED) then arrive again. */
    cr_assert_eq(g.arrivals, 3);
    cr_assert_eq(g.finishes, 3);
    cr_assert_eq(g.finish_state[1], JOB_QUEUED);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.oom_events, 1);
    cr_assert_float_eq(m.wasted_gpu_s, 120, 1e-9);
    cr_assert_float_eq(m.avg_jct_s, 105, 1e-9);
    cr_assert_float_eq(m.makespan_s, 160, 1e-9);
    cr_assert_float_eq(m.gpu_utilization, 0.65625, 1e-12);
    cr_assert_float_eq(m.utilization_by_type[0], 0.375, 1e-12);
    cr_assert_float_eq(m.utilization_by_type[1], 0.9375, 1e-12);
    cr_assert_float_eq(m.per_type_completion_s[1], 160, 1e-9);
    cr_assert(isnan(m.per_type_completion_s[0]));
    sim_destroy(s);
    cluster_destroy(c);
}

/* The same with oom_detect_s = 10: A fails at 10 (20 GPU-s wasted), waits
 * for the P100 that B holds until 50, and finishes at 150. */
Test(memory, oom_detect_s_sets_when_the_run_fails)
{
    struct cluster *c = parse(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    sim_set_oom_detect_s(s, 10);
    add(s, 0, 100, 2, 16000, 0, 0);
    add(s, 0, 50, 2, 8000, 0, 0);
    struct greedy g = {0};
    run_greedy(s, &g);
    cr_assert_float_eq(sim_job(s, 0)->finish_time, 150, 1e-9);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_float_eq(m.wasted_gpu_s, 20, 1e-9);
    cr_assert_float_eq(m.avg_jct_s, 100, 1e-9); /* (150 + 50) / 2 */
    sim_destroy(s);
    cluster_destroy(c);
}

/* A job of 1 GPU that needs 20,000 MB fits neither type: it fails on K80
 * at 60, then on P100 at 120, and is then unschedulable: 2 OOMs, 120
 * GPU-s wasted, nothing completed. */
Test(memory, a_job_too_big_for_every_type_ends_unschedulable)
{
    struct cluster *c = parse(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 1, 20000, 0, 0);
    struct greedy g = {0};
    run_greedy(s, &g);
    const struct sim_job *a = sim_job(s, 0);
    cr_assert_eq(a->state, JOB_FAILED);
    cr_assert_eq(a->failure, JOB_FAIL_UNSCHEDULABLE);
    cr_assert_eq(a->ooms, 2);
    cr_assert_eq(g.finish_state[1], JOB_FAILED);
    cr_assert_eq(g.arrivals, 2); /* no arrival after the last failure */
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.oom_events, 2);
    cr_assert_eq(m.jobs_unschedulable, 1);
    cr_assert_eq(m.jobs_completed, 0);
    cr_assert_float_eq(m.wasted_gpu_s, 120, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

/* A need of exactly the type's memory fits; 0 = unknown never fails. */
Test(memory, a_need_equal_to_the_memory_fits)
{
    struct cluster *c = parse(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 10, 1, 12288, 0, 0);
    add(s, 0, 10, 1, 12289, 0, 0);
    add(s, 0, 10, 1, 0, 0, 0);
    cr_assert_not(sim_mem_overflows(s, 0, 0));
    cr_assert(sim_mem_overflows(s, 1, 0));
    cr_assert_not(sim_mem_overflows(s, 1, 1));
    cr_assert_not(sim_mem_overflows(s, 2, 0));
    sim_destroy(s);
    cluster_destroy(c);
}

/* Estimates: est_work 100 of class 0 is 100 s on P100 (the reference) and
 * 100 / 0.5 = 200 s on K80. A class that runs on K80 only spread (unit
 * 0.5 s spread) gives 40 x 0.5 = 20 s there and -1 on P100. No est_work:
 * -1. An override wins where it is > 0 and falls back elsewhere; NULL
 * clears it. */
Test(memory, estimate_accessors_follow_est_work_class_and_overrides)
{
    struct cluster *c = parse(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec spread_only = {{0, 0}, {0.5, 0}};
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spread_only, &cls), 0);
    add(s, 0, 100, 1, 16000, 100, 15000);
    add(s, 0, 100, 1, 0, 0, 0);
    struct sim_job_spec sp = {0, 40, 2, 0, 2, cls, 40, 0, 0};
    cr_assert_eq(sim_add_job(s, &sp), 0);
    cr_assert_float_eq(sim_est_runtime_s(s, 0, 1), 100, 1e-12);
    cr_assert_float_eq(sim_est_runtime_s(s, 0, 0), 200, 1e-12);
    cr_assert_float_eq(sim_est_runtime_s(s, 1, 1), -1, 0);
    cr_assert_float_eq(sim_est_runtime_s(s, 2, 0), 20, 1e-12);
    cr_assert_float_eq(sim_est_runtime_s(s, 2, 1), -1, 0);
    cr_assert_float_eq(sim_est_mem_mb(s, 0), 15000, 0);
    cr_assert_float_eq(sim_est_mem_mb(s, 1), 0, 0);
    double per_type[2] = {0, 30}; /* K80 unknown, P100 30 s */
    sim_set_est_runtime(s, 1, per_type);
    per_type[1] = 99; /* the engine keeps its own copy */
    cr_assert_float_eq(sim_est_runtime_s(s, 1, 1), 30, 1e-12);
    cr_assert_float_eq(sim_est_runtime_s(s, 1, 0), -1, 0);
    cr_assert_float_eq(sim_est_runtime_s(s, 0, 1), 100, 1e-12);
    sim_set_est_runtime(s, 1, NULL);
    cr_assert_float_eq(sim_est_runtime_s(s, 1, 1), -1, 0);
    sim_destroy(s);
    cluster_destroy(c);
}
