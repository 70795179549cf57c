/* gavel_sim_mtd.c -- gavel:min_total_duration_perf's allocation (Gavel's
 * MinTotalDurationPolicyWithPerf, scheduler/policies/min_total_duration.py
 * at commit c4fa400; MANIFEST.md "Policy notes").
 *
 * Gavel searches the smallest T in which every active job can finish: T
 * halves the interval [100 s, 1e6 s] (then [1e6, 1e7], ... while nothing
 * is feasible) until 1.05 min_T >= max_T; each step asks whether
 *     sum_t thr[i][t] x[i][t] >= steps_left_i / T   for every job i
 * holds with x >= 0, sum_t x[i][t] <= 1, sum_i sf_i x[i][t] <= G_t, and
 * keeps the x of the last feasible T, clipped to [0, 1]. That x is any
 * feasible point: the one the solver returns for a constant objective.
 * The reference solved it with scipy's legacy interior-point linprog, so
 * we do too (ipm.h), on the same LP (gavel_sim_feas.c); any status but 0
 * counts as infeasible, as in Gavel. */
#include <stdlib.h>

#include "gavel_sim_internal.h"

#define MTD_T_LIMIT 1e15 /* Gavel would search for ever; we stop here */

/* Whether every job can finish within T; the point found goes to x. */
static int feasible(struct gs_feas *d, const double *left, double *need,
                    double T, double *x, int *oom)
{
    for (size_t i = 0; i < d->m; i++)
        need[i] = left[i] / T;
    int st = gs_feas_solve(d, need, x);
    *oom = st < 0;
    return st == IPM_OK;
}

int gs_mtd_allocation(struct gs *g, struct sim *s)
{
    size_t m = g->nactive, nt = (size_t)g->nt, cells = m * nt;
    struct gs_feas d = {0};
    double gpus[SIM_MAX_GPU_TYPES];
    double *best = malloc((cells + 1) * sizeof *best);
    double *x = malloc((cells + 1) * sizeof *x);
    double *thr = malloc((cells + 1) * sizeof *thr);
    double *left = malloc((3 * m + 1) * sizeof *left);
    uint32_t *jobs = malloc((m + 1) * sizeof *jobs);
    int rc = 0, found = 0, oom = 0;
    if (!best || !x || !thr || !left || !jobs) {
        rc = SIM_ENOMEM;
        goto out;
    }
    double *sf = left + m, *need = left + 2 * m;
    gs_active_by_id(g, jobs);
    gs_feas_data(g, s, jobs, gpus, left, sf, thr);
    if ((rc = gs_feas_init(&d, m, nt, gpus, sf, thr)) != 0)
        goto out;
    double lo = 100, hi = 1e6, last_hi = 1e6;
    while (rc == 0 && !found) {
        while (1.05 * lo < hi && !oom) {
            double T = (lo + hi) / 2.;
            if (feasible(&d, left, need, T, x, &oom)) {
                found = 1;
                hi = T;
                for (size_t c = 0; c < cells; c++)
                    best[c] = x[c];
            } else
                lo = T;
        }
        hi = last_hi * 10.;
        lo = last_hi;
        last_hi *= 10;
        if (oom)
            rc = SIM_ENOMEM;
        else if (!found && lo > MTD_T_LIMIT)
            rc = sim_fail(s, "gavel:min_total_duration_perf: no allocation "
                             "finishes the active jobs (a job that runs "
                             "nowhere?)");
    }
    if (rc == 0)
        gs_set_alloc(g, jobs, m, best);
out:
    gs_feas_free(&d);
    free(best), free(x), free(thr), free(left), free(jobs);
    return rc;
}
