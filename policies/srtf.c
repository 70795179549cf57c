/* srtf.c -- preemptive shortest (estimated) remaining time first.
 *
 * A job's priority is its estimated work left, in seconds on its fastest
 * allowed GPU type on one node: pol_est_remaining_s as it reads while the
 * job waits. A running job keeps that yardstick wherever it runs (on a
 * slower type its priority falls more slowly), so starting a job never
 * changes its priority and two jobs cannot preempt each other back and
 * forth; a running job past its estimate goes below 0 and is not
 * preempted. Restart overheads do not count: a job's work left does not
 * grow by being preempted, and while it pays the overhead its priority
 * stands still. The preemption rule is preemptive.c's. With exact (oracle)
 * estimates on identical GPUs and 1-GPU jobs this is textbook multi-server
 * SRPT. A running job's remaining time only falls, so it loses its GPUs
 * only to a job that arrives or is preempted: no wake-ups are needed
 * beyond the end of a restart overhead. */
#include <math.h>
#include <stdlib.h>

#include "policies_internal.h"

/* Seconds per unit of work of J on its fastest allowed type, as
 * pol_est_remaining_s takes it: one node, else spread. */
static double fastest_unit(const struct sim *s, const struct sim_job *j)
{
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    double best = INFINITY;
    for (int spread = 0; spread < 2 && best == INFINITY; spread++) {
        const double *unit = spread ? cl->spread_unit_s : cl->unit_s;
        for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++)
            if ((j->allowed & (1u << t)) && unit[t] > 0 && unit[t] < best)
                best = unit[t];
    }
    return best;
}

static double srtf_prio(void *ctx, const struct sim *s, uint32_t job,
                        double *rate, double *until)
{
    (void)ctx;
    const struct sim_job *j = sim_job(s, job);
    if (j->state != JOB_RUNNING)
        return pol_est_remaining_s(s, job);
    double best = fastest_unit(s, j);
    double left = (j->est_work - (j->work - sim_work_left(s, job))) * best;
    double resume = j->last_start + j->overhead_run; /* work goes on then */
    if (sim_now(s) < resume)
        *until = resume;
    else
        *rate = -best / j->unit_s;
    return left;
}

static int srtf_create(const struct pol_config *cfg, void **state)
{
    return pol_preempt_create(cfg, srtf_prio, NULL, NULL,
                              (struct pol_preempt **)state);
}

static void srtf_destroy(void *state) { pol_preempt_destroy(state); }

static void srtf_arrival(void *state, struct sim *s, uint32_t job)
{
    pol_preempt_arrival(state, s, job);
}

static void srtf_finish(void *state, struct sim *s, uint32_t job)
{
    pol_preempt_finish(state, s, job);
}

static int srtf_schedule(void *state, struct sim *s)
{
    return pol_preempt_schedule(state, s);
}

const struct pol_ops pol_srtf = {
    .name = "srtf",
    .description = "preemptive shortest estimated remaining time first: a "
                   "job preempts running jobs with more time left",
    .needs_estimates = 1,
    .preemptive = 1,
    .create = srtf_create,
    .destroy = srtf_destroy,
    .on_arrival = srtf_arrival,
    .on_finish = srtf_finish,
    .schedule = srtf_schedule,
};
