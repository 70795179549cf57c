/* gavel_sim_mmf.c -- gavel:max_min_fairness's allocation (Gavel's
 * MaxMinFairnessPolicy: MaxMinFairnessPolicyWithPerf with every throughput
 * 1; scheduler/policies/max_min_fairness.py at commit c4fa400, rule R10 of
 * MANIFEST.md). The LP has many optima (any split of a job's share across
 * types), so the allocation is whichever point the solver stops at; the
 * reference used scipy's legacy interior-point linprog on the epigraph
 * form, and so do we (ipm.h), on the same LP:
 *     maximise z  subject to  z - sum_t c[i][t] x[i][t] <= 0   (each job i)
 *                             sum_t x[i][t] <= 1,  sum_i sf_i x[i][t] <= G_t,
 *                             x >= 0, z >= 0,
 * x[i][t] by job id then type name, z last; c = thr sf_i / (w_i prop_i)
 * with thr = 1, w = 1 and prop_i Gavel's proportional throughput
 * (ProportionalPolicy: x_p[t] = (G_t / m) / sum_t (G_t / m)), computed in
 * Gavel's order of operations. x is clipped to [0, 1]. A status other than
 * 0 still gives the point, as Gavel (with a warning) does. */
#include <math.h>
#include <stdlib.h>

#include "gavel_sim_internal.h"
#include "ipm.h"

struct mmf {
    size_t m, nt, n, nnz;
    size_t *row, *col;
    double *val, *b, *c, *x, *lb;
    uint32_t *jobs;
};

static void build(struct mmf *d, const struct gs *g, const struct sim *s)
{
    size_t m = d->m, nt = d->nt, z = m * nt;
    double share[SIM_MAX_GPU_TYPES], rowsum = 0, xp[SIM_MAX_GPU_TYPES];
    for (size_t k = 0; k < nt; k++) {
        share[k] = (double)g->c->types[g->alpha[k]].gpus / (double)m;
        rowsum += share[k];
    }
    for (size_t k = 0; k < nt; k++)
        xp[k] = share[k] / rowsum;
    for (size_t i = 0; i < m; i++) {
        double prop = 0, sf = sim_job(s, d->jobs[i])->num_gpus;
        for (size_t k = 0; k < nt; k++)
            prop += 1.0 * xp[k];
        double w = 1. / 1.0 * (1.0 / prop);
        d->b[i] = 0;
        d->b[m + i] = 1;
        d->row[d->nnz] = i, d->col[d->nnz] = z, d->val[d->nnz++] = 1;
        for (size_t k = 0; k < nt; k++) {
            size_t v = i * nt + k;
            d->c[v] = 0;
            d->row[d->nnz] = i, d->col[d->nnz] = v;
            d->val[d->nnz++] = -((1.0 * w) * sf);
            d->row[d->nnz] = m + i, d->col[d->nnz] = v, d->val[d->nnz++] = 1;
            d->row[d->nnz] = 2 * m + k, d->col[d->nnz] = v;
            d->val[d->nnz++] = sf;
        }
    }
    for (size_t k = 0; k < nt; k++)
        d->b[2 * m + k] = (double)g->c->types[g->alpha[k]].gpus;
    d->c[z] = -1;
    for (size_t v = 0; v <= z; v++)
        d->lb[v] = 0;
}

int gs_mmf_allocation(struct gs *g, struct sim *s)
{
    struct mmf d = {.m = g->nactive, .nt = (size_t)g->nt};
    size_t n = d.m * d.nt + 1, nz = 4 * n + d.m + 1;
    d.row = malloc(nz * sizeof *d.row);
    d.col = malloc(nz * sizeof *d.col);
    d.val = malloc(nz * sizeof *d.val);
    d.b = malloc((2 * d.m + d.nt + 1) * sizeof *d.b);
    d.c = malloc((n + 1) * sizeof *d.c);
    d.x = malloc((n + 1) * sizeof *d.x);
    d.lb = malloc((n + 1) * sizeof *d.lb);
    d.jobs = malloc((d.m + 1) * sizeof *d.jobs);
    int rc = 0;
    if (!d.row || !d.col || !d.val || !d.b || !d.c || !d.x || !d.lb ||
        !d.jobs) {
        rc = SIM_ENOMEM;
        goto out;
    }
    gs_active_by_id(g, d.jobs);
    build(&d, g, s);
    struct ipm_lp lp = {n,   2 * d.m + d.nt, d.nnz, d.row, d.col, d.val, d.b,
                        d.c, d.lb,           NULL};
    if (ipm_solve(&lp, d.x, NULL) < 0) {
        rc = SIM_ENOMEM;
        goto out;
    }
    gs_set_alloc(g, d.jobs, d.m, d.x);
out:
    free(d.row), free(d.col), free(d.val), free(d.b), free(d.c), free(d.x);
    free(d.lb), free(d.jobs);
    return rc;
}
