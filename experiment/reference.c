/* reference.c -- the published figures and Gavel's own simulator's.
 *
 * Gavel continuous-single (paper Fig. 8), mean JCT of jobs 4000-4999 in
 * hours, seed 0: "published" are the saved outputs of Gavel's notebook
 * scheduler/notebooks/figures/evaluation/continuous_jobs.ipynb (cell 10) at
 * commit c4fa400; "gavel" is Gavel's simulator at c4fa400 run on the same
 * traces (tests/data/gavel-reference/summary.csv, from
 * shared/data/gavel-reference; MIT, Narayanan et al., OSDI'20). */
#include <math.h>
#include <string.h>

#include "experiment_internal.h"

struct ref_row {
    const char *policy;
    double rate;
    double published_h;
    double gavel_s, gavel_wall_s;
};

static const struct ref_row REFS[] = {
    {"fifo", 0.4, 17.58, 63273.122, 46.1},
    {"fifo_perf", 0.4, 15.31, 55827.086, 44.7},
    {"max_min_fairness", 0.4, 23.26, 84495.361, 106.1},
    {"max_min_fairness_perf", 0.4, 17.58, 63273.122, 62.6},
    {"fifo", 2.8, 18.62, 71028.993, 36.3},
    {"fifo_perf", 2.8, 15.68, 57466.000, 31.8},
    {"max_min_fairness", 2.8, 23.59, 85790.673, 70.5},
    {"max_min_fairness_perf", 2.8, 16.04, 59121.518, 41.1},
    /* published only: Gavel's simulator was not run with this policy */
    {"finish_time_fairness_perf", 0.4, 17.58, NAN, NAN},
    {"finish_time_fairness_perf", 2.8, 16.41, NAN, NAN},
};

void exp_gavel_reference(const char *gavel_name, double rate,
                         struct exp_reference *out)
{
    out->published_h = out->gavel_h = out->gavel_wall_s = NAN;
    if (!gavel_name)
        return;
    for (size_t i = 0; i < sizeof REFS / sizeof *REFS; i++)
        if (strcmp(REFS[i].policy, gavel_name) == 0 &&
            fabs(REFS[i].rate - rate) < 1e-9) {
            out->published_h = REFS[i].published_h;
            out->gavel_h = REFS[i].gavel_s / 3600.0;
            out->gavel_wall_s = REFS[i].gavel_wall_s;
        }
}

const char *exp_gavel_name(const char *policy)
{
    return strncmp(policy, "gavel:", 6) == 0 ? policy + 6 : NULL;
}

enum exp_kind exp_kind(const struct exp_info *info)
{
    if (strcmp(info->name, "gavel-makespan") == 0)
        return EXP_MAKESPAN;
    if (strcmp(info->name, "fgd") == 0)
        return EXP_FGD;
    return EXP_CONTINUOUS;
}

void exp_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

double exp_rel_diff(double a, double b)
{
    if (!isfinite(a) || !isfinite(b) || b == 0)
        return NAN;
    return 100.0 * (a - b) / b;
}
