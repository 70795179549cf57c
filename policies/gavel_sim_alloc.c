/* gavel_sim_alloc.c -- the allocations of the gavel:* policies (Gavel's
 * scheduler/policies/ at commit c4fa400; rules R7, R8, R10 of
 * tests/data/gavel-reference/MANIFEST.md), recomputed by gavel_sim.c.
 *
 * fifo (FIFOPolicy 'base'): persistent. Queue = the active jobs it has not
 *   allocated, by job id. For each allocated job by id: if it has left, the
 *   queue's head takes its type when its GPUs fit the type's free count so
 *   far and its throughput there is > 0 (else it stays at the head);
 *   otherwise
 *   its GPUs count as used. Then, while jobs and types with free GPUs
 *   (alphabetical) remain: the head needs a type with enough free GPUs
 *   (none: stop); an index among those is drawn (random.Random(seed)
 *   .randrange); the job goes to that type -- or, with fifo_bug (Gavel's
 *   loop-variable bug, the default), to the alphabetically last type with
 *   free GPUs; the type at the drawn index leaves the list when the chosen
 *   type's free count hits exactly 0.
 * fifo_perf (mode 'perf'): rebuilt from nothing on every recompute, so
 *   running jobs may move; each job by id takes the type with the highest
 *   throughput among those with enough free GPUs (strict >, alphabetical:
 *   ties to k80), skipped when that throughput is 0; the first job that
 *   fits no type stops it.
 * max_min_fairness_perf: maximise min_i sum_t c[i][t] x[i][t], c = thr *
 *   sf_i / prop_i, prop_i = sum_t thr[i][t] G_t / G (Gavel's proportional
 *   share), subject to x >= 0, sum_t x[i][t] <= 1, sum_i sf_i x[i][t] <=
 *   G_t; solved with GLPK's simplex (Gavel: cvxpy/ECOS; its fixture:
 *   HiGHS), x clipped to [0, 1]. Among several optima the solvers may
 *   pick different ones (MANIFEST.md, "Checks").
 * max_min_fairness: the same with every throughput 1, which has many
 *   optima: gs_mmf_allocation (gavel_sim_mmf.c) stops where the
 *   reference's interior-point solver does.
 * min_total_duration_perf: gs_mtd_allocation (gavel_sim_mtd.c).
 * finish_time_fairness_perf: gs_ftf_allocation (gavel_sim_ftf.c). */
#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "gavel_sim_internal.h"

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void gs_active_by_id(const struct gs *g, uint32_t *out)
{
    memcpy(out, g->active, g->nactive * sizeof *out);
    qsort(out, g->nactive, sizeof *out, by_id);
}

void gs_set_alloc(struct gs *g, const uint32_t *jobs, size_t m, const double *x)
{
    size_t nt = (size_t)g->nt;
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < nt; k++) {
            double v = x[i * nt + k];
            v = v < 0 ? 0 : v > 1 ? 1 : v;
            g->alloc[(size_t)jobs[i] * nt + (size_t)g->alpha[k]] = v;
        }
}

/* Types with free GPUs, alphabetical; returns how many. */
static int32_t free_types(const struct gs *g, const int64_t *avail,
                          int32_t *out)
{
    int32_t n = 0;
    for (int32_t k = 0; k < g->nt; k++)
        if (avail[g->alpha[k]] > 0)
            out[n++] = g->alpha[k];
    return n;
}

/* FIFOPolicy.get_allocation into g->fifo_type. */
static int fifo(struct gs *g, struct sim *s, int perf)
{
    uint32_t *queue = malloc((g->nactive + 1) * sizeof *queue);
    if (!queue)
        return SIM_ENOMEM;
    int64_t avail[SIM_MAX_GPU_TYPES];
    for (int32_t t = 0; t < g->nt; t++)
        avail[t] = g->c->types[t].gpus;
    if (perf)
        for (size_t j = 0; j < g->njobs; j++)
            g->fifo_type[j] = -1;
    size_t nq = 0, head = 0;
    for (size_t i = 0; i < g->nactive; i++)
        if (g->fifo_type[g->active[i]] < 0)
            queue[nq++] = g->active[i];
    qsort(queue, nq, sizeof *queue, by_id);
    for (size_t j = 0; !perf && j < g->njobs; j++) {
        int32_t t = g->fifo_type[j];
        if (t < 0 || t >= SIM_MAX_GPU_TYPES)
            continue; /* none, or taken over in this call */
        if (!g->gone[j]) {
            avail[t] -= sim_job(s, (uint32_t)j)->num_gpus;
            continue;
        }
        g->fifo_type[j] = -1;
        if (head == nq)
            continue;
        uint32_t h = queue[head]; /* taken only when it fits there */
        int32_t sf = sim_job(s, h)->num_gpus;
        double thr = g->thr[(size_t)h * (size_t)g->nt + (size_t)t];
        if (sf <= avail[t] && thr > 0.0) {
            head++; /* marked: Python loops over a snapshot of the jobs */
            g->fifo_type[h] = t + SIM_MAX_GPU_TYPES; /* allocated before */
            avail[t] -= sf;
        }
    }
    for (size_t j = 0; j < g->njobs; j++)
        if (g->fifo_type[j] >= SIM_MAX_GPU_TYPES)
            g->fifo_type[j] -= SIM_MAX_GPU_TYPES;
    int32_t types[SIM_MAX_GPU_TYPES], cand[SIM_MAX_GPU_TYPES];
    int32_t nty = free_types(g, avail, types);
    size_t nt = (size_t)g->nt;
    while (head < nq && nty > 0) {
        uint32_t h = queue[head++];
        int32_t sf = sim_job(s, h)->num_gpus, nc = 0, idx = 0, t;
        for (int32_t i = 0; i < nty; i++)
            if (avail[types[i]] >= sf)
                cand[nc++] = i;
        if (nc == 0)
            break;
        if (!perf) {
            idx = (int32_t)sim_pyrand_below(&g->fifo_rng, (uint32_t)nc);
            t = g->fifo_bug ? types[nty - 1] : types[cand[idx]];
        } else {
            double best = -1;
            t = -1;
            for (int32_t i = 0; i < nc; i++)
                if (g->thr[h * nt + (size_t)types[cand[i]]] > best) {
                    best = g->thr[h * nt + (size_t)types[cand[i]]];
                    t = types[cand[i]];
                    idx = i;
                }
        }
        if (!(g->thr[h * nt + (size_t)t] > 0.0))
            continue; /* not on a type where it cannot run: skipped */
        g->fifo_type[h] = t;
        avail[t] -= sf;
        if (avail[t] == 0) {
            memmove(&types[cand[idx]], &types[cand[idx] + 1],
                    (size_t)(nty - cand[idx] - 1) * sizeof *types);
            nty--;
        }
    }
    free(queue);
    for (size_t i = 0; i < g->nactive; i++) {
        uint32_t j = g->active[i];
        for (size_t t2 = 0; t2 < nt; t2++)
            g->alloc[j * nt + t2] = 0.0;
        if (g->fifo_type[j] >= 0)
            g->alloc[j * nt + (size_t)g->fifo_type[j]] = 1.0;
    }
    return 0;
}

/* max_min_fairness_perf's LP with GLPK: column 1 is z, then x[i][t] for
 * every (job, type) with a throughput. */
static int mmf_perf(struct gs *g, struct sim *s)
{
    size_t m = g->nactive, nt = (size_t)g->nt, cells = m * nt;
    int *ia = malloc((3 * cells + m + 1) * sizeof *ia);
    int *ja = malloc((3 * cells + m + 1) * sizeof *ja);
    double *ar = malloc((3 * cells + m + 1) * sizeof *ar);
    int *col = malloc((cells + 1) * sizeof *col);
    glp_prob *lp = glp_create_prob();
    int rc = 0;
    if (!ia || !ja || !ar || !col) {
        rc = SIM_ENOMEM;
        goto out;
    }
    glp_set_obj_dir(lp, GLP_MAX);
    /* rows: 1..m min, m+1..2m share, 2m+1..2m+nt capacity */
    glp_add_rows(lp, (int)(2 * m + nt));
    for (size_t i = 0; i < m; i++) {
        glp_set_row_bnds(lp, (int)(i + 1), GLP_UP, 0, 0);
        glp_set_row_bnds(lp, (int)(m + i + 1), GLP_UP, 0, 1);
    }
    for (size_t t = 0; t < nt; t++)
        glp_set_row_bnds(lp, (int)(2 * m + t + 1), GLP_UP, 0,
                         g->c->types[t].gpus);
    glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
    glp_set_obj_coef(lp, 1, 1);
    int ne = 0, nc = 1;
    for (size_t i = 0; i < m; i++) {
        uint32_t j = g->active[i];
        double prop = 0, sf = sim_job(s, j)->num_gpus;
        for (size_t t = 0; t < nt; t++)
            prop += g->thr[j * nt + t] * g->c->types[t].gpus / g->c->total_gpus;
        ne++;
        ia[ne] = (int)(i + 1), ja[ne] = 1, ar[ne] = 1;
        for (size_t t = 0; t < nt; t++) {
            col[i * nt + t] = 0;
            if (!(g->thr[j * nt + t] > 0) || !(prop > 0))
                continue;
            col[i * nt + t] = ++nc;
            glp_add_cols(lp, 1);
            glp_set_col_bnds(lp, nc, GLP_LO, 0, 0);
            ne++;
            ia[ne] = (int)(i + 1), ja[ne] = nc;
            ar[ne] = -g->thr[j * nt + t] * sf / prop;
            ne++;
            ia[ne] = (int)(m + i + 1), ja[ne] = nc, ar[ne] = 1;
            ne++;
            ia[ne] = (int)(2 * m + t + 1), ja[ne] = nc, ar[ne] = sf;
        }
    }
    glp_load_matrix(lp, ne, ia, ja, ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    if (glp_simplex(lp, &parm) != 0 || glp_get_status(lp) != GLP_OPT) {
        rc = sim_fail(s, "gavel:max_min_fairness_perf: GLPK found no "
                         "optimal allocation");
        goto out;
    }
    for (size_t i = 0; i < m; i++)
        for (size_t t = 0; t < nt; t++) {
            double x =
                col[i * nt + t] ? glp_get_col_prim(lp, col[i * nt + t]) : 0;
            g->alloc[g->active[i] * nt + t] = x < 0 ? 0 : x > 1 ? 1 : x;
        }
out:
    glp_delete_prob(lp);
    free(ia);
    free(ja);
    free(ar);
    free(col);
    return rc;
}

int gs_compute_allocation(struct gs *g, struct sim *s)
{
    int rc = 0;
    switch (g->kind) {
    case GS_FIFO:
    case GS_FIFO_PERF: rc = fifo(g, s, g->kind == GS_FIFO_PERF); break;
    case GS_MMF: rc = g->nactive > 0 ? gs_mmf_allocation(g, s) : 0; break;
    case GS_MMF_PERF: rc = g->nactive > 0 ? mmf_perf(g, s) : 0; break;
    case GS_MTD_PERF: rc = g->nactive > 0 ? gs_mtd_allocation(g, s) : 0; break;
    case GS_FTF_PERF: rc = g->nactive > 0 ? gs_ftf_allocation(g, s) : 0; break;
    }
    for (size_t i = 0; rc == 0 && i < g->nactive; i++)
        g->in_alloc[g->active[i]] = 1;
    return rc;
}
