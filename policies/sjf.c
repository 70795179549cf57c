/* sjf.c -- shortest job first, non-preemptive.
 *
 * Waiting jobs start in increasing estimated run time, the estimate taken
 * once at arrival (pol_est_remaining_s: estimated work on the job's fastest
 * allowed GPU type, one node); ties by arrival. A running job is never
 * stopped, and a head that cannot be placed blocks the rest unless
 * --backfill says so. With exact (oracle) estimates on identical GPUs this
 * is textbook non-preemptive SJF. */
#include "policies_internal.h"

static double estimate_key(const struct sim *s, uint32_t job)
{
    return pol_est_remaining_s(s, job);
}

static int sjf_create(const struct pol_config *cfg, void **state)
{
    return pol_list_create(cfg, estimate_key, (struct pol_list **)state);
}

static void sjf_destroy(void *state)
{
    pol_list_destroy(state);
}

static void sjf_arrival(void *state, struct sim *s, uint32_t job)
{
    pol_list_arrival(state, s, job);
}

static int sjf_schedule(void *state, struct sim *s)
{
    return pol_list_schedule(state, s);
}

const struct pol_ops pol_sjf = {
    .name = "sjf",
    .description = "shortest estimated run time first, non-preemptive; the "
                   "head of the queue blocks the rest",
    .needs_estimates = 1,
    .create = sjf_create,
    .destroy = sjf_destroy,
    .on_arrival = sjf_arrival,
    .schedule = sjf_schedule,
};
