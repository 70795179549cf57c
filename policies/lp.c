/* lp.c -- the allocation LPs of the gavel-* policies, solved with GLPK's
 * primal simplex. With lp_warm.c (gavel-fifo's warm starts), the only
 * file that includes glpk.h.
 *
 * Jobs with identical rows (coefficients, need, GPUs) form one group of k
 * jobs, solved as one: averaging an optimum over the permutations of such
 * jobs keeps it feasible and optimal (the constraints are symmetric in
 * them, the objectives linear or a minimum over them), so an optimum gives
 * them equal x, and that is the one solved for. On Gavel's traces (26 job
 * types at a few GPU counts) this turns a thousand jobs into a few dozen
 * groups for gavel-maxmin.
 *
 * Columns: one x[g][t] in [0, 1] per group and nonzero coefficient (a zero
 * one would stay 0 at any optimum of these goals), plus z >= 0 for
 * max-min. Rows: "a job of g runs at most all the time" (sum_t x[g][t] <=
 * 1), "type t has capacity[t] GPUs" (sum_g k_g gpus_g x[g][t] <=
 * capacity[t]), and for max-min "a job of g reaches z" (w_g - need_g z >=
 * 0). Max-min is solved twice on the same problem: first maximize z; then
 * fix z >= z* and maximize sum_g k_g w_g, starting from the first basis.
 *
 * Coefficients are divided by the largest, needs by the largest, before
 * GLPK sees them, and the value is scaled back. GLPK's terminal output is
 * off; it aborts the process only when its own memory runs out. */
#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lp_internal.h"
#include "sim.h"

/* Relative slack on z* in the second stage, so that rounding in the first
 * cannot make the second infeasible; far below the tests' 1e-9. */
#define LP_Z_SLACK 1e-12

struct lp_key { /* a job's row, for grouping */
    const double *coef;
    double need;
    int32_t gpus, ntypes, job;
};

struct lp_build {
    const struct pol_lp *lp;
    glp_prob *p;
    int *ia, *ja; /* (nnz + 1) GLPK counts from 1 */
    double *ar;
    int nnz;
    struct lp_key *key; /* (njobs) sorted: groups are runs of equal rows */
    int32_t *group;     /* (njobs) each job's group */
    int32_t *first;     /* (ngroups) the job that stands for a group */
    int32_t *count;     /* (ngroups) its jobs */
    int *col;           /* (ngroups * ntypes) column of x[g][t], or 0 */
    int32_t ngroups;
};

static int row_cmp(const struct lp_key *a, const struct lp_key *b)
{
    for (int32_t t = 0; t < a->ntypes; t++)
        if (a->coef[t] != b->coef[t])
            return a->coef[t] < b->coef[t] ? -1 : 1;
    if (a->need != b->need)
        return a->need < b->need ? -1 : 1;
    return a->gpus < b->gpus ? -1 : a->gpus > b->gpus;
}

static int by_row(const void *x, const void *y)
{
    const struct lp_key *a = x, *b = y;
    int c = row_cmp(a, b);
    return c ? c : (a->job < b->job ? -1 : a->job > b->job);
}

/* Fills the groups; their order (and so the LP's) follows the rows. */
static void make_groups(struct lp_build *b)
{
    const struct pol_lp *lp = b->lp;
    for (int32_t j = 0; j < lp->njobs; j++)
        b->key[j] = (struct lp_key){&lp->coef[(size_t)j * (size_t)lp->ntypes],
                                    lp->need ? lp->need[j] : 1, lp->gpus[j],
                                    lp->ntypes, j};
    qsort(b->key, (size_t)lp->njobs, sizeof *b->key, by_row);
    b->ngroups = 0;
    for (int32_t i = 0; i < lp->njobs; i++) {
        if (i == 0 || row_cmp(&b->key[i - 1], &b->key[i]) != 0) {
            b->first[b->ngroups] = b->key[i].job;
            b->count[b->ngroups++] = 0;
        }
        b->group[b->key[i].job] = b->ngroups - 1;
        b->count[b->ngroups - 1]++;
    }
}

static void put(struct lp_build *b, int row, int col, double v)
{
    b->nnz++;
    b->ia[b->nnz] = row;
    b->ja[b->nnz] = col;
    b->ar[b->nnz] = v;
}

static double coef_of(const struct lp_build *b, int32_t g, int32_t t)
{
    size_t j = (size_t)b->first[g];
    return b->lp->coef[j * (size_t)b->lp->ntypes + (size_t)t];
}

/* Builds the rows and columns; returns the column of z (0 without). */
static int build(struct lp_build *b, enum pol_lp_goal goal, double scale,
                 double need_scale)
{
    const struct pol_lp *lp = b->lp;
    int32_t n = b->ngroups, nt = lp->ntypes;
    int ncols = 0;
    for (int32_t g = 0; g < n; g++)
        for (int32_t t = 0; t < nt; t++)
            b->col[g * nt + t] = coef_of(b, g, t) > 0 ? ++ncols : 0;
    int zcol = goal == POL_LP_MAX_MIN ? ncols + 1 : 0;
    glp_set_obj_dir(b->p, GLP_MAX);
    glp_add_cols(b->p, ncols + (zcol ? 1 : 0));
    for (int k = 1; k <= ncols; k++)
        glp_set_col_bnds(b->p, k, GLP_DB, 0, 1);
    if (zcol)
        glp_set_col_bnds(b->p, zcol, GLP_LO, 0, 0);
    /* Rows 1..n: each group's time; n+1..n+nt: each type's GPUs; then
     * each group's value against z. */
    glp_add_rows(b->p, n + nt + (zcol ? n : 0));
    for (int32_t g = 0; g < n; g++)
        glp_set_row_bnds(b->p, g + 1, GLP_UP, 0, 1);
    for (int32_t t = 0; t < nt; t++)
        glp_set_row_bnds(b->p, n + t + 1, GLP_UP, 0, lp->capacity[t]);
    for (int32_t g = 0; g < n; g++) {
        int32_t j = b->first[g];
        int has = 0;
        for (int32_t t = 0; t < nt; t++) {
            int k = b->col[g * nt + t];
            if (!k)
                continue;
            double c = coef_of(b, g, t) / scale;
            has = 1;
            put(b, g + 1, k, 1);
            put(b, n + t + 1, k, (double)b->count[g] * lp->gpus[j]);
            if (zcol)
                put(b, n + nt + g + 1, k, c);
            else
                glp_set_obj_coef(b->p, k, b->count[g] * c);
        }
        if (zcol) {
            int row = n + nt + g + 1;
            if (has) {
                put(b, row, zcol, -(lp->need ? lp->need[j] : 1) / need_scale);
                glp_set_row_bnds(b->p, row, GLP_LO, 0, 0);
            } else /* jobs that can run nowhere do not bound z */
                glp_set_row_bnds(b->p, row, GLP_FR, 0, 0);
        }
    }
    if (zcol)
        glp_set_obj_coef(b->p, zcol, 1);
    glp_load_matrix(b->p, b->nnz, b->ia, b->ja, b->ar);
    return zcol;
}

/* One simplex run from the current basis; 0 or SIM_EINVAL with WHY. */
static int simplex(glp_prob *p, const char *stage, char *why, size_t cap)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    int rc = glp_simplex(p, &parm);
    int status = glp_get_status(p);
    if (rc == 0 && status == GLP_OPT)
        return 0;
    if (rc != 0)
        snprintf(why, cap,
                 "GLPK's simplex failed in the %s (glp_simplex "
                 "returned %d)",
                 stage, rc);
    else
        snprintf(why, cap, "GLPK found no optimum in the %s (status %s)", stage,
                 status == GLP_NOFEAS  ? "infeasible"
                 : status == GLP_UNBND ? "unbounded"
                                       : "not optimal");
    return SIM_EINVAL;
}

/* Both stages of max-min, or the one of max-sum, on the built problem. */
static int solve_built(struct lp_build *b, int zcol, double scale,
                       double need_scale, double *value, char *why, size_t cap)
{
    glp_scale_prob(b->p, GLP_SF_AUTO);
    int rc = simplex(b->p, zcol ? "max-min stage" : "LP", why, cap);
    if (rc)
        return rc;
    if (!zcol) {
        *value = glp_get_obj_val(b->p) * scale;
        return 0;
    }
    double z = glp_get_obj_val(b->p);
    *value = z * scale / need_scale;
    glp_set_col_bnds(b->p, zcol, GLP_LO, fmax(z * (1 - LP_Z_SLACK), 0), 0);
    glp_set_obj_coef(b->p, zcol, 0);
    for (int32_t g = 0; g < b->ngroups; g++)
        for (int32_t t = 0; t < b->lp->ntypes; t++) {
            int k = b->col[g * b->lp->ntypes + t];
            if (k)
                glp_set_obj_coef(b->p, k,
                                 b->count[g] * coef_of(b, g, t) / scale);
        }
    return simplex(b->p, "second (sum) stage", why, cap);
}

int pol_lp_solve(const struct pol_lp *lp, enum pol_lp_goal goal, double *x,
                 double *value, char *why, size_t cap)
{
    size_t n = (size_t)lp->njobs, nt = (size_t)lp->ntypes, cells = n * nt;
    double scale = 0, need_scale = 0;
    for (size_t i = 0; i < cells; i++)
        scale = fmax(scale, lp->coef[i]);
    for (size_t i = 0; i < cells; i++)
        x[i] = 0;
    *value = 0;
    for (size_t j = 0; j < n; j++) {
        double need = lp->need ? lp->need[j] : 1;
        if (!(need > 0 && need < INFINITY)) {
            snprintf(why, cap,
                     "job %zu of the LP needs %g, not a positive "
                     "number",
                     j, need);
            return SIM_EINVAL;
        }
        need_scale = fmax(need_scale, need);
    }
    if (!(scale > 0))
        return 0; /* no job can run anywhere: nothing to allocate */
    size_t nnz = 3 * cells + n + 1;
    struct lp_build b = {.lp = lp};
    b.ia = malloc(nnz * sizeof *b.ia);
    b.ja = malloc(nnz * sizeof *b.ja);
    b.ar = malloc(nnz * sizeof *b.ar);
    b.key = malloc(n * sizeof *b.key);
    b.group = malloc(n * sizeof *b.group);
    b.first = malloc(n * sizeof *b.first);
    b.count = malloc(n * sizeof *b.count);
    b.col = malloc((cells + 1) * sizeof *b.col);
    int rc = SIM_ENOMEM;
    if (b.ia && b.ja && b.ar && b.key && b.group && b.first && b.count &&
        b.col) {
        make_groups(&b);
        glp_term_out(GLP_OFF);
        b.p = glp_create_prob();
        int zcol = build(&b, goal, scale, need_scale);
        rc = solve_built(&b, zcol, scale, need_scale, value, why, cap);
    }
    for (size_t j = 0; rc == 0 && j < n; j++)
        for (size_t t = 0; t < nt; t++) {
            int k = b.col[(size_t)b.group[j] * nt + t];
            if (k) /* within [0, 1] up to GLPK's tolerance */
                x[j * nt + t] = fmin(fmax(glp_get_col_prim(b.p, k), 0), 1);
        }
    if (b.p)
        glp_delete_prob(b.p);
    free(b.ia);
    free(b.ja);
    free(b.ar);
    free(b.key);
    free(b.group);
    free(b.first);
    free(b.count);
    free(b.col);
    return rc;
}
