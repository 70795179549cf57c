/* lp.c -- the allocation LPs of the gavel-* policies, solved with GLPK's
 * primal simplex. The only file that includes glpk.h.
 *
 * Columns: one x[j][t] in [0, 1] per nonzero coefficient (a zero one would
 * stay 0 at any optimum of these goals, and leaving it out keeps the LP
 * small), plus z >= 0 for max-min. Rows: "job j runs at most all the time"
 * (sum_t x[j][t] <= 1), "type t has capacity[t] GPUs" (sum_j gpus[j] *
 * x[j][t] <= capacity[t]), and for max-min "job j reaches z" (w_j -
 * need_j z >= 0). Max-min is solved twice on the same problem: first
 * maximize z; then fix z >= z* and maximize sum_j w_j, starting from the
 * first basis.
 *
 * Coefficients are divided by the largest, needs by the largest, before
 * GLPK sees them, and the value is scaled back. GLPK's terminal output is off; it aborts the process only
 * when its own memory runs out. */
#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lp_internal.h"
#include "sim.h"

/* Slack on z* in the second stage, so that rounding in the first cannot
 * make the second infeasible; far below the tests' 1e-9. */
#define LP_Z_SLACK 1e-12

struct lp_build {
    glp_prob *p;
    int *ia, *ja; /* (nnz + 1) GLPK counts from 1 */
    double *ar;
    int *col;     /* (njobs * ntypes) column of x[j][t], or 0 */
    int nnz;
};

static void put(struct lp_build *b, int row, int col, double v)
{
    b->nnz++;
    b->ia[b->nnz] = row;
    b->ja[b->nnz] = col;
    b->ar[b->nnz] = v;
}

/* Builds the rows and columns; returns the column of z (0 without). */
static int build(struct lp_build *b, const struct pol_lp *lp,
                 enum pol_lp_goal goal, double scale, double need_scale)
{
    int32_t n = lp->njobs, nt = lp->ntypes;
    int ncols = 0;
    for (int32_t j = 0; j < n; j++)
        for (int32_t t = 0; t < nt; t++)
            b->col[j * nt + t] = lp->coef[j * nt + t] > 0 ? ++ncols : 0;
    int zcol = goal == POL_LP_MAX_MIN ? ncols + 1 : 0;
    glp_set_obj_dir(b->p, GLP_MAX);
    glp_add_cols(b->p, ncols + (zcol ? 1 : 0));
    for (int k = 1; k <= ncols; k++)
        glp_set_col_bnds(b->p, k, GLP_DB, 0, 1);
    if (zcol)
        glp_set_col_bnds(b->p, zcol, GLP_LO, 0, 0);
    /* Rows 1..n: each job's time; n+1..n+nt: each type's GPUs; then each
     * job's value against z. */
    int rows = n + nt + (zcol ? n : 0);
    if (rows > 0)
        glp_add_rows(b->p, rows);
    for (int32_t j = 0; j < n; j++)
        glp_set_row_bnds(b->p, j + 1, GLP_UP, 0, 1);
    for (int32_t t = 0; t < nt; t++)
        glp_set_row_bnds(b->p, n + t + 1, GLP_UP, 0, lp->capacity[t]);
    for (int32_t j = 0; j < n; j++) {
        int has = 0;
        for (int32_t t = 0; t < nt; t++) {
            int k = b->col[j * nt + t];
            if (!k)
                continue;
            double c = lp->coef[j * nt + t] / scale;
            has = 1;
            put(b, j + 1, k, 1);
            put(b, n + t + 1, k, lp->gpus[j]);
            if (zcol)
                put(b, n + nt + j + 1, k, c);
            else
                glp_set_obj_coef(b->p, k, c);
        }
        if (zcol) {
            int row = n + nt + j + 1;
            if (has) {
                put(b, row, zcol, -(lp->need ? lp->need[j] : 1) / need_scale);
                glp_set_row_bnds(b->p, row, GLP_LO, 0, 0);
            } else /* a job that can run nowhere does not bound z */
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
        snprintf(why, cap, "GLPK's simplex failed in the %s (glp_simplex "
                 "returned %d)", stage, rc);
    else
        snprintf(why, cap, "GLPK found no optimum in the %s (status %s)",
                 stage, status == GLP_NOFEAS  ? "infeasible"
                        : status == GLP_UNBND ? "unbounded"
                                              : "not optimal");
    return SIM_EINVAL;
}

int pol_lp_solve(const struct pol_lp *lp, enum pol_lp_goal goal, double *x,
                 double *value, char *why, size_t cap)
{
    size_t cells = (size_t)lp->njobs * (size_t)lp->ntypes;
    double scale = 0;
    for (size_t i = 0; i < cells; i++)
        scale = fmax(scale, lp->coef[i]);
    for (size_t i = 0; i < cells; i++)
        x[i] = 0;
    *value = 0;
    if (!(scale > 0))
        return 0; /* no job can run anywhere: nothing to allocate */
    double need_scale = 0;
    for (int32_t j = 0; j < lp->njobs; j++)
        need_scale = fmax(need_scale, lp->need ? lp->need[j] : 1);
    for (int32_t j = 0; lp->need && j < lp->njobs; j++)
        if (!(lp->need[j] > 0 && lp->need[j] < INFINITY)) {
            snprintf(why, cap, "job %d of the LP needs %g, not a positive "
                     "number", (int)j, lp->need[j]);
            return SIM_EINVAL;
        }
    size_t nnz = 3 * cells + (size_t)lp->njobs + 1;
    struct lp_build b = {0};
    b.ia = malloc(nnz * sizeof *b.ia);
    b.ja = malloc(nnz * sizeof *b.ja);
    b.ar = malloc(nnz * sizeof *b.ar);
    b.col = malloc((cells + 1) * sizeof *b.col);
    int rc = SIM_ENOMEM;
    if (!b.ia || !b.ja || !b.ar || !b.col)
        goto done;
    glp_term_out(GLP_OFF);
    b.p = glp_create_prob();
    int zcol = build(&b, lp, goal, scale, need_scale);
    glp_scale_prob(b.p, GLP_SF_AUTO);
    rc = simplex(b.p, zcol ? "max-min stage" : "LP", why, cap);
    if (rc == 0 && zcol) {
        double z = glp_get_obj_val(b.p);
        *value = z * scale / need_scale;
        glp_set_col_bnds(b.p, zcol, GLP_LO, fmax(z - LP_Z_SLACK, 0), 0);
        glp_set_obj_coef(b.p, zcol, 0);
        for (int32_t j = 0; j < lp->njobs; j++)
            for (int32_t t = 0; t < lp->ntypes; t++) {
                size_t i = (size_t)j * (size_t)lp->ntypes + (size_t)t;
                if (b.col[i])
                    glp_set_obj_coef(b.p, b.col[i], lp->coef[i] / scale);
            }
        rc = simplex(b.p, "second (sum) stage", why, cap);
    } else if (rc == 0)
        *value = glp_get_obj_val(b.p) * scale;
    for (size_t i = 0; rc == 0 && i < cells; i++)
        if (b.col[i]) /* within [0, 1] up to GLPK's tolerance */
            x[i] = fmin(fmax(glp_get_col_prim(b.p, b.col[i]), 0), 1);
done:
    if (b.p)
        glp_delete_prob(b.p);
    free(b.ia);
    free(b.ja);
    free(b.ar);
    free(b.col);
    return rc;
}
