/* tiresias.c -- Tiresias' Discretized 2D-LAS (Gu et al., NSDI'19): least
 * attained GPU-time first, discretized into K priority queues.
 *
 * The queues, demotion at the thresholds, preemption of lower queues and
 * starvation promotion are mlfq.c's. Waiting jobs of a queue go first in,
 * first out by the instant they entered it: arrival for Q1, the demotion
 * (or promotion) instant otherwise; a preempted job keeps its place. This
 * is the Tiresias simulator's order (run_sim.py, dlas_sim_jobs: arrivals,
 * demoted and promoted jobs are appended to their queue, served front to
 * back, running jobs ahead of the waiting ones).
 */
#include <stdlib.h>

#include "mlfq_internal.h"
#include "policies_internal.h"

struct tiresias {
    struct mlfq *queues;
    double entries; /* jobs that have entered a queue so far */
};

static const struct pol_param tiresias_params[] = {
    MLFQ_PARAMS,
    {NULL, NULL, NULL},
};

static double tiresias_key(void *ctx, const struct sim *s, uint32_t job,
                           const struct mlfq_at *at, double old)
{
    (void)s;
    (void)job;
    struct tiresias *t = ctx;
    return at->why == MLFQ_ENTERED ? ++t->entries : old;
}

static void tiresias_destroy(void *state)
{
    struct tiresias *t = state;
    if (!t)
        return;
    mlfq_destroy(t->queues);
    free(t);
}

static int tiresias_create(const struct pol_config *cfg, void **state)
{
    struct tiresias *t = calloc(1, sizeof *t);
    if (!t)
        return SIM_ENOMEM;
    int rc = mlfq_create(cfg, tiresias_key, t, &t->queues);
    if (rc) {
        free(t);
        return rc;
    }
    *state = t;
    return 0;
}

static void tiresias_arrival(void *state, struct sim *s, uint32_t job)
{
    mlfq_arrival(((struct tiresias *)state)->queues, s, job);
}

static void tiresias_finish(void *state, struct sim *s, uint32_t job)
{
    mlfq_finish(((struct tiresias *)state)->queues, s, job);
}

static int tiresias_schedule(void *state, struct sim *s)
{
    return mlfq_schedule(((struct tiresias *)state)->queues, s);
}

const struct pol_ops pol_tiresias = {
    .name = "tiresias",
    .description = "Tiresias' discretized 2D-LAS: priority queues on "
                   "attained GPU-time, FIFO within a queue, preemptive",
    .params = tiresias_params,
    .preemptive = 1,
    .create = tiresias_create,
    .destroy = tiresias_destroy,
    .on_arrival = tiresias_arrival,
    .on_finish = tiresias_finish,
    .schedule = tiresias_schedule,
};
