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
 * we do too (ipm.h), on the same LP: x[i][t] by job id then type name,
 * rows capacity, share, throughput (as -thr x <= -steps_left / T), c = 0;
 * any status but 0 counts as infeasible, as in Gavel. */
#include <math.h>
#include <stdlib.h>

#include "gavel_sim_internal.h"
#include "ipm.h"

#define MTD_T_LIMIT 1e15 /* Gavel would search for ever; we stop here */

struct mtd {
    struct ipm_lp lp;
    size_t m, nt;
    size_t *row, *col;
    double *val, *b, *c, *left, *x;
    uint32_t *jobs; /* (m) active jobs by id */
};

/* The LP without the T-dependent right-hand sides. */
static void build(struct mtd *d, const struct gs *g, const struct sim *s)
{
    size_t m = d->m, nt = d->nt, nnz = 0;
    for (size_t t = 0; t < nt; t++)
        d->b[t] = (double)g->c->types[g->alpha[t]].gpus;
    for (size_t i = 0; i < m; i++) {
        uint32_t j = d->jobs[i];
        const struct sim_job *job = sim_job(s, j);
        d->b[nt + i] = 1;
        d->left[i] = job->work - (double)g->steps_done[j];
        for (size_t k = 0; k < nt; k++) {
            size_t v = i * nt + k;
            double thr = g->thr[(size_t)j * nt + (size_t)g->alpha[k]];
            d->c[v] = 0;
            d->row[nnz] = k, d->col[nnz] = v;
            d->val[nnz++] = job->num_gpus;
            d->row[nnz] = nt + i, d->col[nnz] = v, d->val[nnz++] = 1;
            if (thr != 0) {
                d->row[nnz] = nt + m + i, d->col[nnz] = v;
                d->val[nnz++] = -thr;
            }
        }
    }
    d->lp = (struct ipm_lp){m * nt, nt + 2 * m, nnz,  d->row, d->col,
                            d->val, d->b,       d->c, NULL,   NULL};
}

/* Whether every job can finish within T; the point found goes to d->x. */
static int feasible(struct mtd *d, double T, int *oom)
{
    for (size_t i = 0; i < d->m; i++)
        d->b[d->nt + d->m + i] = -(d->left[i] / T);
    int st = ipm_solve(&d->lp, d->x, NULL);
    *oom = st < 0;
    return st == IPM_OK;
}

int gs_mtd_allocation(struct gs *g, struct sim *s)
{
    struct mtd d = {.m = g->nactive, .nt = (size_t)g->nt};
    size_t cells = d.m * d.nt, nz = 3 * cells + 1, nrow = d.nt + 2 * d.m + 1;
    double *best = malloc((cells + 1) * sizeof *best);
    d.row = malloc(nz * sizeof *d.row);
    d.col = malloc(nz * sizeof *d.col);
    d.val = malloc(nz * sizeof *d.val);
    d.b = malloc(nrow * sizeof *d.b);
    d.c = malloc((cells + 1) * sizeof *d.c);
    d.left = malloc((d.m + 1) * sizeof *d.left);
    d.x = malloc((cells + 1) * sizeof *d.x);
    d.jobs = malloc((d.m + 1) * sizeof *d.jobs);
    int rc = 0, found = 0, oom = 0;
    if (!best || !d.row || !d.col || !d.val || !d.b || !d.c || !d.left ||
        !d.x || !d.jobs) {
        rc = SIM_ENOMEM;
        goto out;
    }
    gs_active_by_id(g, d.jobs);
    build(&d, g, s);
    double lo = 100, hi = 1e6, last_hi = 1e6;
    while (rc == 0 && !found) {
        while (1.05 * lo < hi && !oom) {
            double T = (lo + hi) / 2.;
            if (feasible(&d, T, &oom)) {
                found = 1;
                hi = T;
                for (size_t c = 0; c < cells; c++)
                    best[c] = d.x[c];
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
    for (size_t i = 0; rc == 0 && i < d.m; i++)
        for (size_t k = 0; k < d.nt; k++) {
            double v = best[i * d.nt + k];
            g->alloc[(size_t)d.jobs[i] * d.nt + (size_t)g->alpha[k]] = v < 0 ? 0
                                                                       : v > 1
                                                                           ? 1
                                                                           : v;
        }
out:
    free(best), free(d.row), free(d.col), free(d.val), free(d.b), free(d.c);
    free(d.left), free(d.x), free(d.jobs);
    return rc;
}
