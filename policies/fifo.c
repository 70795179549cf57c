/* fifo.c -- strict first-come first-served.
 *
 * Jobs start in submit order (ties in trace order); when the head of the
 * queue cannot be placed, nothing behind it starts unless --backfill says
 * so, as in the FIFO baselines of Gavel and Tiresias. */
#include "policies_internal.h"

static double submit_key(const struct sim *s, uint32_t job)
{
    return sim_job(s, job)->submit_time;
}

static int fifo_create(const struct pol_config *cfg, void **state)
{
    return pol_list_create(cfg, submit_key, (struct pol_list **)state);
}

static void fifo_destroy(void *state) { pol_list_destroy(state); }

static void fifo_arrival(void *state, struct sim *s, uint32_t job)
{
    pol_list_arrival(state, s, job);
}

static int fifo_schedule(void *state, struct sim *s)
{
    return pol_list_schedule(state, s);
}

const struct pol_ops pol_fifo = {
    .name = "fifo",
    .description = "first come, first served; the head of the queue blocks "
                   "the rest",
    .create = fifo_create,
    .destroy = fifo_destroy,
    .on_arrival = fifo_arrival,
    .schedule = fifo_schedule,
};
