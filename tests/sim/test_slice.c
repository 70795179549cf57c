/* test_slice.c -- the engine hooks of round-based simulators: bounded runs
 * (sim_start_slice) and dropped jobs (sim_drop). Every figure is worked
 * out by hand in the comments. */
#include <criterion/criterion.h>
#include <math.h>

#include "fixtures.h"

/* A policy that starts job 0 on P100 (type 1) in slices of 4 units, the
 * second one without progress, and drops job 1 at its first pass. */
struct slicer {
    int passes;
};

static int slicer_schedule(void *state, struct sim *s)
{
    struct slicer *sl = state;
    if (sim_job(s, 1)->state == JOB_QUEUED &&
        sim_drop(s, 1, "given up by the test") != 0)
        return SIM_EDECISION;
    const struct sim_job *j = sim_job(s, 0);
    if (j->state != JOB_QUEUED && j->state != JOB_PREEMPTED)
        return 0;
    struct sim_seg seg = {1, 1}; /* node 1: the P100 node */
    struct sim_placement p = {1, 1, &seg, NULL};
    unsigned flags = sl->passes == 1 ? SIM_RUN_NO_PROGRESS : 0;
    sl->passes++;
    return sim_start_slice(s, 0, &p, 4, flags);
}

/* Job 0: 10 units of class 0, 1 s each on P100 (the reference). Slices of
 * 4: [0, 4] does 4 (6 left), [4, 8] none (6 left, 4 s wasted), [8, 12]
 * does 4 (2 left), [12, 14] ends the job: finish 14, run 14 s, wasted 4 s,
 * no preemption. Job 1 is dropped at 0 and fails with the reason. */
Test(slice, bounded_runs_progress_exactly_and_drops_fail_with_a_reason)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_k80_p100, "test", &c, NULL), 0);
    struct sim *s = sim_create(c, 1);
    struct sim_job_spec spec = {0, 10, 1, 0, 0, 0, 0, 0, 0};
    cr_assert_eq(sim_add_job(s, &spec), 0);
    spec.trace_index = 1;
    cr_assert_eq(sim_add_job(s, &spec), 0);
    struct slicer sl = {0};
    struct sim_policy p = {"slicer", &sl, NULL, NULL, slicer_schedule};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), 0, "%s", err.text);
    const struct sim_job *j = sim_job(s, 0);
    cr_expect_eq(j->state, JOB_COMPLETED);
    cr_expect_float_eq(j->finish_time, 14.0, 1e-12);
    cr_expect_float_eq(j->run_s, 14.0, 1e-12);
    cr_expect_float_eq(j->wasted_s, 4.0, 1e-12);
    cr_expect_eq(j->preemptions, 0);
    cr_expect_eq(sl.passes, 4);
    cr_expect_eq(sim_job(s, 1)->state, JOB_FAILED);
    cr_expect_eq(sim_job(s, 1)->failure, JOB_FAIL_DROPPED);
    cr_expect_str_eq(sim_job_failure_text(s, 1), "given up by the test");
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_expect_eq(m.jobs_completed, 1);
    cr_expect_eq(m.jobs_failed, 1);
    cr_expect_float_eq(m.avg_jct_s, 14.0, 1e-12); /* the dropped one left out */
    sim_destroy(s);
    cluster_destroy(c);
}

static int spread_schedule(void *state, struct sim *s)
{
    (void)state;
    if (sim_job(s, 0)->state != JOB_QUEUED)
        return 0;
    struct sim_seg seg[2] = {{0, 2}, {1, 4}};
    struct sim_placement p = {0, 2, seg, NULL};
    return sim_start_slice(s, 0, &p, 6, SIM_RUN_CONSOLIDATED);
}

/* Consolidated slices run at the one-node speed even when spread, and last
 * WORK / rate where the class has its measured rate: a class of 0.5 s per
 * unit on one node and 2 s spread, given the rate 3 units/s (the rate
 * wins over 1 / 0.5); 6 units over nodes 0 and 1 (2 + 4 GPUs of type A)
 * end at 6 / 3 = 2 s (spread speed: 12 s; one-node unit: 3 s). */
Test(slice, consolidated_slices_use_the_measured_rate)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec cls = {{0.5, 0.5}, {2, 2}};
    int32_t id;
    cr_assert_eq(sim_add_class(s, &cls, &id), 0);
    double rate[2] = {3, 0};
    cr_assert_eq(sim_set_class_rate(s, id, rate), 0);
    cr_expect_float_eq(sim_class_rate(s, id, 0), 3.0, 0);
    struct sim_job_spec spec = {0, 6, 6, 0, 0, id, 0, 0, 0};
    cr_assert_eq(sim_add_job(s, &spec), 0);
    struct sim_policy p = {"spread", NULL, NULL, NULL, spread_schedule};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), 0, "%s", err.text);
    cr_expect_float_eq(sim_job(s, 0)->finish_time, 2.0, 1e-12);
    cr_expect(sim_job(s, 0)->spread);
    sim_destroy(s);
    cluster_destroy(c);
}
