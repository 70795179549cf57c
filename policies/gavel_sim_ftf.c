/* gavel_sim_ftf.c -- gavel:finish_time_fairness_perf's allocation (Gavel's
 * FinishTimeFairnessPolicyWithPerf, scheduler/policies/
 * finish_time_fairness.py at commit c4fa400; its inputs from
 * scheduler.py's _get_allocation_state).
 *
 * Gavel's policy: first the isolated allocation x_iso, the one
 * MaxMinFairnessPolicy (gavel:max_min_fairness, gavel_sim_mmf.c) gives the
 * same jobs; a job's isolated throughput is iso_i = thr_i . x_iso_i (types
 * by name), and its finish time in isolation E_i = since_i + left_i /
 * iso_i, with since_i = now - its arrival (times_since_start) and left_i
 * its steps left. Then it minimises max_i rho_i,
 *     rho_i = (since_i + left_i / (thr_i . x_i)) / E_i,
 * over x >= 0, sum_t x[i][t] <= 1, sum_i sf_i x[i][t] <= G_t, and keeps x
 * clipped to [0, 1].
 *
 * That objective (an inv_pos) is not linear; Gavel hands it to cvxpy
 * (ECOS). rho_i <= R is linear in x for a fixed R, though:
 *     thr_i . x_i >= left_i / (R E_i - since_i)      (R E_i > since_i),
 * so hetsim finds the optimum by bisection over R on the feasibility LP
 * of min_total_duration_perf (gavel_sim_feas.c, scipy's interior point).
 * x_iso gives rho_i = 1 for every job, so R* <= 1, and R must exceed
 * max_i since_i / E_i: the search halves (max_i since_i / E_i, 1] until it
 * is at most ftf_tol (default 1e-4) wide and keeps the point of the least
 * feasible R it tried; if no R < 1 is feasible, x_iso itself. The optimum
 * R* is the same as Gavel's to within ftf_tol, but the point among the
 * allocations that reach it is the interior point's, not ECOS's, so the
 * schedule may differ from Gavel's (no reference run exists to check it
 * against). A job whose isolated throughput is 0 (Gavel: E_i = inf, its
 * term 0 / a numpy warning) is left out of the max. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gavel_sim_internal.h"

/* The throughput each job needs for rho_i <= R into need; 0 when some job
 * cannot reach it at any throughput. */
static int needs(size_t m, const double *left, const double *since,
                 const double *iso, double R, double *need)
{
    for (size_t i = 0; i < m; i++) {
        if (!isfinite(iso[i])) {
            need[i] = 0;
            continue;
        }
        double den = R * iso[i] - since[i];
        if (!(den > 0))
            return 0;
        need[i] = left[i] / den;
    }
    return 1;
}

int gs_ftf_search(struct gs_feas *d, const double *left, const double *since,
                  const double *iso, double tol, double *x, double *r)
{
    size_t m = d->m, cells = d->m * d->nt;
    double *need = malloc((m + 1) * sizeof *need);
    double *try = malloc((cells + 1) * sizeof *try);
    int found = 0;
    if (!need || !try) {
        found = -1;
        goto out;
    }
    double lo = 0, hi = 1;
    for (size_t i = 0; i < m; i++)
        if (isfinite(iso[i]))
            lo = fmax(lo, since[i] / iso[i]);
    while (hi - lo > tol) {
        double R = lo + (hi - lo) / 2;
        int st = needs(m, left, since, iso, R, need)
                     ? gs_feas_solve(d, need, try)
                     : IPM_INFEASIBLE;
        if (st < 0) {
            found = -1;
            goto out;
        }
        if (st == IPM_OK) {
            hi = R;
            found = 1;
            memcpy(x, try, cells * sizeof *x);
        } else
            lo = R;
    }
    *r = found ? hi : 1;
out:
    free(need), free(try);
    return found;
}

/* E_i of the active jobs (jobs, by id) from the isolated allocation in
 * g->alloc; left and thr as gs_feas_data gives them. */
static void isolated_times(const struct gs *g, const struct sim *s,
                           const uint32_t *jobs, const double *left,
                           const double *thr, double *since, double *iso)
{
    size_t m = g->nactive, nt = (size_t)g->nt;
    double now = sim_now(s);
    for (size_t i = 0; i < m; i++) {
        double t = 0;
        for (size_t k = 0; k < nt; k++)
            t += thr[i * nt + k] *
                 g->alloc[(size_t)jobs[i] * nt + (size_t)g->alpha[k]];
        since[i] = now - sim_job(s, jobs[i])->submit_time;
        iso[i] = t > 0 ? since[i] + left[i] / t : HUGE_VAL;
    }
}

int gs_ftf_allocation(struct gs *g, struct sim *s)
{
    int rc = gs_mmf_allocation(g, s); /* x_iso into g->alloc */
    if (rc)
        return rc;
    size_t m = g->nactive, nt = (size_t)g->nt, cells = m * nt;
    struct gs_feas d = {0};
    double gpus[SIM_MAX_GPU_TYPES], R;
    double *x = malloc((cells + 1) * sizeof *x);
    double *thr = malloc((cells + 1) * sizeof *thr);
    double *left = malloc((4 * m + 1) * sizeof *left);
    uint32_t *jobs = malloc((m + 1) * sizeof *jobs);
    if (!x || !thr || !left || !jobs) {
        rc = SIM_ENOMEM;
        goto out;
    }
    double *sf = left + m, *since = left + 2 * m, *iso = left + 3 * m;
    gs_active_by_id(g, jobs);
    gs_feas_data(g, s, jobs, gpus, left, sf, thr);
    isolated_times(g, s, jobs, left, thr, since, iso);
    if ((rc = gs_feas_init(&d, m, nt, gpus, sf, thr)) != 0)
        goto out;
    int found = gs_ftf_search(&d, left, since, iso, g->ftf_tol, x, &R);
    if (found < 0)
        rc = SIM_ENOMEM;
    if (found > 0)
        gs_set_alloc(g, jobs, m, x);
out:
    gs_feas_free(&d);
    free(x), free(thr), free(left), free(jobs);
    return rc;
}
