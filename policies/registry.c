/* registry.c -- every built-in policy, by name. */
#include <string.h>

#include "policies_internal.h"

static const struct pol_ops *const registry[] = {
    &pol_fifo,
    &pol_sjf,
    &pol_edf,
    &pol_srtf,
    &pol_las,
    &pol_tiresias,
    &pol_gittins,
    &pol_fair,
    &pol_min_exec_time,
    &pol_max_efficiency,
    &pol_gavel_maxmin,
    &pol_gavel_makespan,
    &pol_gavel_fifo,
    &pol_gs_fifo,
    &pol_gs_fifo_perf,
    &pol_gs_mmf,
    &pol_gs_mmf_perf,
    &pol_gs_mtd_perf,
    &pol_gs_ftf_perf,
};

#define NPOLICIES (sizeof registry / sizeof registry[0])

const struct pol_ops *pol_at(size_t i)
{
    return i < NPOLICIES ? registry[i] : NULL;
}

const struct pol_ops *pol_find(const char *name)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
