/* gavel_sim_mtd.c -- gavel:min_total_duration_perf's allocation. */
#include "gavel_sim_internal.h"

int gs_mtd_allocation(struct gs *g, struct sim *s)
{
    (void)g;
    return sim_fail(s, "gavel:min_total_duration_perf: not written yet");
}
