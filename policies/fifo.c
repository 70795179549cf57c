/* fifo.c -- strict first-come first-served.
 *
 * Jobs start in submit order; when the head of the queue cannot be placed,
 * nothing behind it starts (no backfilling), as in the FIFO baselines of
 * Gavel and Tiresias. Placement: the "fastest" rule of place.c. */
#include "policy.h"

static int fifo_create(const struct cluster *c, void **state)
{
    *state = pol_placer_create(c);
    return *state ? 0 : SIM_ENOMEM;
}

static void fifo_destroy(void *state) { pol_placer_destroy(state); }

static int fifo_schedule(void *state, struct sim *s)
{
    struct sim_placement p;
    int32_t j = sim_queue_head(s);
    while (j >= 0) {
        int32_t next = sim_queue_next(s, (uint32_t)j);
        int rc = pol_place_fastest(state, s, (uint32_t)j, &p);
        if (rc == 1)
            return 0;
        if (rc == 0)
            rc = sim_start(s, (uint32_t)j, &p);
        if (rc)
            return rc;
        j = next;
    }
    return 0;
}

const struct pol_ops pol_fifo = {
    .name = "fifo",
    .description = "first come, first served; the head of the queue blocks "
                   "the rest",
    .create = fifo_create,
    .destroy = fifo_destroy,
    .schedule = fifo_schedule,
};
