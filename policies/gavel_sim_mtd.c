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
 * point the solver returns for a constant objective; Gavel's ECOS (and
 * its fixture's scipy interior-point) return one inside the feasible set,
 * so we solve with GLPK's interior-point method too (glp_interior); any
 * status but optimal counts as infeasible, as in Gavel. Each job's row is
 * divided by its largest throughput (the same set, better scaled). */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>

#include "gavel_sim_internal.h"

#define MTD_T_LIMIT 1e15 /* Gavel would search for ever; we stop here */

struct mtd {
    glp_prob *lp;
    size_t m, nt;
    int *col;     /* (m * nt) column of x[i][t], or 0 */
    double *need; /* (m) steps left / largest throughput */
};

/* The LP without the T-dependent bounds. */
static int build(struct mtd *d, const struct gs *g, const struct sim *s)
{
    size_t m = d->m, nt = d->nt, cells = m * nt;
    int *ia = malloc((3 * cells + 1) * sizeof *ia);
    int *ja = malloc((3 * cells + 1) * sizeof *ja);
    double *ar = malloc((3 * cells + 1) * sizeof *ar);
    if (!ia || !ja || !ar) {
        free(ia);
        free(ja);
        free(ar);
        return SIM_ENOMEM;
    }
    glp_add_rows(d->lp, (int)(2 * m + nt));
    for (size_t i = 0; i < m; i++)
        glp_set_row_bnds(d->lp, (int)(m + i + 1), GLP_UP, 0, 1);
    for (size_t t = 0; t < nt; t++)
        glp_set_row_bnds(d->lp, (int)(2 * m + t + 1), GLP_UP, 0,
                         g->c->types[t].gpus);
    int ne = 0, nc = 0;
    for (size_t i = 0; i < m; i++) {
        uint32_t j = g->active[i];
        const struct sim_job *job = sim_job(s, j);
        double best = 0;
        for (size_t t = 0; t < nt; t++)
            best = g->thr[j * nt + t] > best ? g->thr[j * nt + t] : best;
        double left = job->work - (double)g->steps_done[j];
        d->need[i] = best > 0 ? left / best : INFINITY;
        for (size_t t = 0; t < nt; t++) {
            d->col[i * nt + t] = 0;
            if (!(g->thr[j * nt + t] > 0))
                continue;
            d->col[i * nt + t] = ++nc;
            glp_add_cols(d->lp, 1);
            glp_set_col_bnds(d->lp, nc, GLP_LO, 0, 0);
            ne++;
            ia[ne] = (int)(i + 1), ja[ne] = nc;
            ar[ne] = g->thr[j * nt + t] / best;
            ne++;
            ia[ne] = (int)(m + i + 1), ja[ne] = nc, ar[ne] = 1;
            ne++;
            ia[ne] = (int)(2 * m + t + 1), ja[ne] = nc;
            ar[ne] = job->num_gpus;
        }
    }
    glp_load_matrix(d->lp, ne, ia, ja, ar);
    free(ia);
    free(ja);
    free(ar);
    return 0;
}

/* Whether every job can finish within T; the point found stays in LP. */
static int feasible(struct mtd *d, double T)
{
    for (size_t i = 0; i < d->m; i++) {
        if (!(d->need[i] < INFINITY))
            return 0;
        glp_set_row_bnds(d->lp, (int)(i + 1), GLP_LO, d->need[i] / T, 0);
    }
    glp_iptcp parm;
    glp_init_iptcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    return glp_interior(d->lp, &parm) == 0 && glp_ipt_status(d->lp) == GLP_OPT;
}

int gs_mtd_allocation(struct gs *g, struct sim *s)
{
    struct mtd d = {glp_create_prob(), g->nactive, (size_t)g->nt, NULL, NULL};
    size_t cells = d.m * d.nt;
    double *x = malloc((cells + 1) * sizeof *x);
    d.col = malloc((cells + 1) * sizeof *d.col);
    d.need = malloc((d.m + 1) * sizeof *d.need);
    int rc = !x || !d.col || !d.need ? SIM_ENOMEM : build(&d, g, s);
    int found = 0;
    double lo = 100, hi = 1e6, last_hi = 1e6;
    while (rc == 0 && !found) {
        while (1.05 * lo < hi) {
            double T = (lo + hi) / 2.;
            if (feasible(&d, T)) {
                found = 1;
                hi = T;
                for (size_t c = 0; c < cells; c++)
                    x[c] = d.col[c] ? glp_ipt_col_prim(d.lp, d.col[c]) : 0;
            } else
                lo = T;
        }
        hi = last_hi * 10.;
        lo = last_hi;
        last_hi *= 10;
        if (!found && lo > MTD_T_LIMIT)
            rc = sim_fail(s, "gavel:min_total_duration_perf: no allocation "
                             "finishes the active jobs (a job that runs "
                             "nowhere?)");
    }
    for (size_t i = 0; rc == 0 && i < d.m; i++)
        for (size_t t = 0; t < d.nt; t++) {
            double v = x[i * d.nt + t];
            g->alloc[g->active[i] * d.nt + t] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
    glp_delete_prob(d.lp);
    free(x);
    free(d.col);
    free(d.need);
    return rc;
}
