/* gavel_sim_feas.c -- the feasibility LP that gavel:min_total_duration_perf
 * (gavel_sim_mtd.c) and gavel:finish_time_fairness_perf (gavel_sim_ftf.c)
 * solve at each step of their bisections: is there an allocation x with
 *     sum_t thr[i][t] x[i][t] >= need_i      for every job i,
 *     x >= 0,  sum_t x[i][t] <= 1,  sum_i sf_i x[i][t] <= G_t ?
 * Built as the reference's wrapper of MinTotalDurationPolicyWithPerf did
 * (MANIFEST.md "Policy notes"): x[i][t] by job id then type name, rows
 * capacity, share, throughput (written -thr x <= -need_i), c = 0; a zero
 * throughput has no entry. Solved by scipy's legacy interior point
 * (ipm.h), whose point among the feasible ones is what the policies keep. */
#include <stdlib.h>

#include "gavel_sim_internal.h"

void gs_feas_data(const struct gs *g, const struct sim *s, const uint32_t *jobs,
                  double *gpus, double *left, double *sf, double *thr)
{
    size_t m = g->nactive, nt = (size_t)g->nt;
    for (size_t k = 0; k < nt; k++)
        gpus[k] = (double)g->c->types[g->alpha[k]].gpus;
    for (size_t i = 0; i < m; i++) {
        const struct sim_job *job = sim_job(s, jobs[i]);
        left[i] = job->work - (double)g->steps_done[jobs[i]];
        sf[i] = job->num_gpus;
        for (size_t k = 0; k < nt; k++)
            thr[i * nt + k] =
                g->thr[(size_t)jobs[i] * nt + (size_t)g->alpha[k]];
    }
}

int gs_feas_init(struct gs_feas *d, size_t m, size_t nt, const double *gpus,
                 const double *sf, const double *thr)
{
    size_t cells = m * nt, nz = 3 * cells + 1;
    *d = (struct gs_feas){.m = m, .nt = nt};
    d->row = malloc(nz * sizeof *d->row);
    d->col = malloc(nz * sizeof *d->col);
    d->val = malloc(nz * sizeof *d->val);
    d->b = malloc((nt + 2 * m + 1) * sizeof *d->b);
    d->c = malloc((cells + 1) * sizeof *d->c);
    if (!d->row || !d->col || !d->val || !d->b || !d->c) {
        gs_feas_free(d);
        return SIM_ENOMEM;
    }
    size_t nnz = 0;
    for (size_t k = 0; k < nt; k++)
        d->b[k] = gpus[k];
    for (size_t i = 0; i < m; i++) {
        d->b[nt + i] = 1;
        for (size_t k = 0; k < nt; k++) {
            size_t v = i * nt + k;
            d->c[v] = 0;
            d->row[nnz] = k, d->col[nnz] = v, d->val[nnz++] = sf[i];
            d->row[nnz] = nt + i, d->col[nnz] = v, d->val[nnz++] = 1;
            if (thr[v] != 0) {
                d->row[nnz] = nt + m + i, d->col[nnz] = v;
                d->val[nnz++] = -thr[v];
            }
        }
    }
    d->lp = (struct ipm_lp){cells,  nt + 2 * m, nnz,  d->row, d->col,
                            d->val, d->b,       d->c, NULL,   NULL};
    return 0;
}

int gs_feas_solve(struct gs_feas *d, const double *need, double *x)
{
    for (size_t i = 0; i < d->m; i++)
        d->b[d->nt + d->m + i] = -need[i];
    return ipm_solve(&d->lp, x, NULL);
}

void gs_feas_free(struct gs_feas *d)
{
    free(d->row), free(d->col), free(d->val), free(d->b), free(d->c);
    *d = (struct gs_feas){0};
}
