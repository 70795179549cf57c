/* edf.c -- earliest deadline first, non-preemptive.
 *
 * Waiting jobs start in increasing deadline (cfg->deadlines, seconds since
 * the trace start, from the trace's `deadline` column); jobs without one
 * (no column, or a NaN or negative entry) come after every job with one, in
 * arrival order, as do equal deadlines. A running job is never stopped,
 * even by a job with an earlier deadline: preemptive deadline scheduling
 * would pay restart overheads this policy does not model. A missed
 * deadline changes nothing; the job still runs. A head that cannot be
 * placed blocks the rest unless --backfill says so. */
#include <math.h>
#include <stdlib.h>

#include "listsched_internal.h"
#include "policies_internal.h"

struct edf {
    struct pol_list *list;
    const double *deadlines; /* borrowed; NULL = none */
};

static int edf_create(const struct pol_config *cfg, void **state)
{
    struct edf *e = calloc(1, sizeof *e);
    if (!e)
        return SIM_ENOMEM;
    e->deadlines = cfg->deadlines;
    int rc = pol_list_create(cfg, NULL, &e->list);
    if (rc) {
        free(e);
        return rc;
    }
    *state = e;
    return 0;
}

static void edf_destroy(void *state)
{
    struct edf *e = state;
    if (!e)
        return;
    pol_list_destroy(e->list);
    free(e);
}

static void edf_arrival(void *state, struct sim *s, uint32_t job)
{
    (void)s;
    struct edf *e = state;
    double key = e->deadlines ? e->deadlines[job] : NAN;
    pol_list_push(e->list, job, key >= 0 ? key : INFINITY);
}

static int edf_schedule(void *state, struct sim *s)
{
    return pol_list_schedule(((struct edf *)state)->list, s);
}

const struct pol_ops pol_edf = {
    .name = "edf",
    .description = "earliest deadline first, non-preemptive; jobs without a "
                   "deadline last, in arrival order",
    .create = edf_create,
    .destroy = edf_destroy,
    .on_arrival = edf_arrival,
    .schedule = edf_schedule,
};
