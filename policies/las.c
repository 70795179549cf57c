/* las.c -- preemptive least attained service (Rai et al.; the base of
 * Tiresias): the job that has run least goes first.
 *
 * A job's priority is the time it has run (sim_attained_s), or with
 * metric=gpu_time that times its GPUs; ties go to the earlier arrival. The
 * preemption rule is preemptive.c's. The restart overhead a job pays counts
 * as run time, but only from when it stops or finishes: while it pays it,
 * its priority stands still. Otherwise, with a quantum shorter than the
 * overhead, jobs would take turns paying overheads and never work.
 *
 * True LAS shares the GPUs among the least-served jobs in infinitesimal
 * slices. Here, as usual, time is cut in quanta: a scheduling pass runs at
 * every arrival and completion, and after any pass that leaves a job
 * waiting another one runs `quantum` seconds later, unless a pass is due
 * by then already; each pass runs the least-served jobs. So a running job
 * overtaken in attained service by a waiting one goes on for at most a
 * quantum, and two equal jobs on one GPU take turns of a quantum each. As
 * quantum goes to 0 this approaches processor sharing among the
 * least-served jobs, at the cost of one preemption per turn.
 *
 * Cost: O(log n) at worst per job started or preempted (preemptive.c's
 * run queues, O(1) plus the log of a few runs on a burst; a one-GPU job
 * takes its victim's GPU in one engine call, sim_swap; the engine's event
 * heap drops the finish events of preempted runs, so it holds O(running
 * jobs, and sim_swap's finish events wait unsorted until due or stale)):
 * about 580 instructions per preemption and restart on a 5,000-job burst
 * and 565 on a 30,000-job one (callgrind, release build with link-time
 * optimisation), about 340 of them in the scheduler; 534 on the first in
 * the profile-guided build of `make build`. The wall time
 * follows them on an Intel host (about 100 ns a preemption whatever the
 * burst's size) and only in part on an AMD one (on the 30,000-job burst
 * it waits mostly on the started jobs' records, prefetched or not).
 * The priority is pol_las_prio, inline in preempt_internal.h (and in
 * preempt_swaps.c's swap loop). The commands, wall times and earlier
 * figures are in docs/performance.md.
 * The number of preemptions is the policy's, not a cost of this code:
 * every pass (each arrival, completion and quantum) preempts each running
 * job a waiting one has overtaken, and on a burst the preemptions per job
 * grow with the burst (all jobs at 0 on 1,000 GPUs, exponential durations
 * of mean 3,600 s, `make bench`: 5,000 jobs 506 per job, 10,000 jobs 710,
 * 30,000 jobs 905, 27 million in all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preempt_internal.h"

struct las {
    struct pol_preempt *sched;
    double quantum; /* s */
    int gpu_time;   /* metric=gpu_time */
};

static const struct pol_param las_params[] = {
    {"quantum", "60", "seconds between looks at running jobs while jobs "
                      "wait (> 0)"},
    {"metric", "time", "attained service as run time (time) or as run time "
                       "times GPUs (gpu_time)"},
    {NULL, NULL, NULL},
};

static double las_repass(void *ctx, const struct sim *s)
{
    const struct las *l = ctx;
    return sim_queue_len(s) > 0 ? sim_now(s) + l->quantum : INFINITY;
}

static void las_destroy(void *state)
{
    struct las *l = state;
    if (!l)
        return;
    pol_preempt_destroy(l->sched);
    free(l);
}

static int las_create(const struct pol_config *cfg, void **state)
{
    const char *metric;
    double quantum;
    int rc = pol_opt_double(cfg, "quantum", 1e-6, 1e9, &quantum);
    if (rc == 0)
        rc = pol_opt_string(cfg, "metric", &metric);
    if (rc)
        return rc;
    if (strcmp(metric, "time") != 0 && strcmp(metric, "gpu_time") != 0)
        return pol_refuse(cfg, "--policy-opt metric wants time or gpu_time, "
                          "got '%s'", metric);
    struct las *l = calloc(1, sizeof *l);
    if (!l)
        return SIM_ENOMEM;
    l->quantum = quantum;
    l->gpu_time = strcmp(metric, "gpu_time") == 0;
    /* No pol_prio_fn: the scheduler computes LAS's priority itself
     * (pol_las_prio, prio_kind below) */
    rc = pol_preempt_create(cfg, NULL, las_repass, l, &l->sched);
    if (rc) {
        free(l);
        return rc;
    }
    l->sched->prio_kind =
        l->gpu_time ? PRE_PRIO_LAS_GPU_TIME : PRE_PRIO_LAS_TIME;
    *state = l;
    return 0;
}

static void las_arrival(void *state, struct sim *s, uint32_t job)
{
    pol_preempt_arrival(((struct las *)state)->sched, s, job);
}

static void las_finish(void *state, struct sim *s, uint32_t job)
{
    pol_preempt_finish(((struct las *)state)->sched, s, job);
}

static int las_schedule(void *state, struct sim *s)
{
    return pol_preempt_schedule(((struct las *)state)->sched, s);
}

const struct pol_ops pol_las = {
    .name = "las",
    .description = "preemptive least attained service: the job that has run "
                   "least goes first, re-examined every quantum",
    .params = las_params,
    .preemptive = 1,
    .create = las_create,
    .destroy = las_destroy,
    .on_arrival = las_arrival,
    .on_finish = las_finish,
    .schedule = las_schedule,
};
