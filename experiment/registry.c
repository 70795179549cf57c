/* registry.c -- the published experiments `hetsim reproduce` knows. */
#include <string.h>

#include "experiment.h"

static const struct exp_info EXPERIMENTS[] = {
    {"gavel-continuous",
     "Narayanan et al., Heterogeneity-Aware Cluster Scheduling Policies for "
     "Deep Learning Workloads, OSDI'20 (Gavel)",
     "Fig. 8 (continuous-single)",
     "average JCT of jobs 4000-4999 against the input rate (jobs/h): Gavel's "
     "single-GPU job mix, Poisson arrivals, 36 V100 + 36 P100 + 36 K80",
     "avg JCT (h)"},
    {"gavel-makespan", "Narayanan et al., OSDI'20 (Gavel)",
     "evaluation of the makespan policy (defined in sec. 4.2) on static traces",
     "makespan against the number of jobs: Gavel's multi-GPU job mix, every "
     "job at time 0, 36 V100 + 36 P100 + 36 K80",
     "makespan (h)"},
    {"fgd",
     "Weng et al., Beware of Fragmentation: Scheduling GPU-Sharing Workloads "
     "with Fragmentation Gradient Descent, USENIX ATC'23",
     "evaluation: GPU allocation rate as the workload arrives; abstract: up "
     "to 49 % fewer unallocated GPUs than packing baselines",
     "GPU allocation ratio against the arrived workload (GPUs asked / "
     "cluster GPUs), pods never leave: fgd against its packing baselines",
     "allocation ratio"},
};
#define NEXP (sizeof EXPERIMENTS / sizeof EXPERIMENTS[0])

const struct exp_info *exp_info_at(size_t i)
{
    return i < NEXP ? &EXPERIMENTS[i] : NULL;
}

const struct exp_info *exp_find(const char *name)
{
    for (size_t i = 0; i < NEXP; i++)
        if (strcmp(EXPERIMENTS[i].name, name) == 0)
            return &EXPERIMENTS[i];
    return NULL;
}

/* Levenshtein distance of A and B (traces' nearest.c), 99 when too long. */
static size_t edits(const char *a, const char *b)
{
    size_t d = trace_edit_distance(a, strlen(a), b);
    return d == (size_t)-1 ? 99 : d;
}

const char *exp_suggest(const char *name)
{
    const char *best = NULL;
    size_t best_d = 4;
    for (size_t i = 0; i < NEXP; i++) {
        const char *n = EXPERIMENTS[i].name;
        if (*name && strncmp(n, name, strlen(name)) == 0)
            return n;
        size_t d = edits(name, n);
        if (d < best_d) {
            best_d = d;
            best = n;
        }
    }
    return best;
}
