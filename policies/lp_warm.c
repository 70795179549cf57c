/* lp_warm.c -- the max-sum LP of gavel-fifo (lp_internal.h), solved from
 * the previous solve's basis instead of from scratch.
 *
 * gavel-fifo solves its LP once per round in which a job arrived or left:
 * on Gavel's trace 6214e9 about 2,000 LPs of some 900 jobs x 3 types, each
 * about 220 simplex iterations from GLPK's slack basis (lp.c). Between two
 * solves only a few jobs come or go and the weights shift, so the previous
 * optimal basis is nearly optimal: a few iterations finish it.
 *
 * The result must be the one lp.c's solve from scratch gives. A simplex
 * started elsewhere may stop at another optimum when there are several, so
 * the warm result is kept only when it is provably the LP's only optimum:
 * every nonbasic variable (column or row slack) has a reduced cost farther
 * than LP_WARM_TOL from 0 (a dual nondegenerate optimal basis; its primal
 * optimum is unique). Otherwise pol_lp_solve solves it from scratch, as
 * before. Only that unique vertex can be returned either way; its values,
 * x = k / gpus for this transportation-like LP, came out bit for bit the
 * same on every solve of 6214e9 (checked when this was written, and the
 * gavel-fifo results are byte-identical).
 *
 * Only the jobs that can matter are in the LP: of some 740 active jobs
 * about 110 get time on 108 GPUs. choose() takes the jobs new since the
 * last solve, those that had time in it, and those whose columns come
 * within LP_WARM_NEAR of gaining at its prices (the dual values of the type
 * rows). After the solve, every left-out job is priced at the new prices;
 * any whose column would gain (reduced cost coef - gpus * price not below
 * -LP_WARM_TOL; its own row's price is 0, its slack being basic) joins and
 * the LP is solved again, up to LP_WARM_ROUNDS times, the last with every
 * job. When none would gain, the smaller LP's basis, extended by the
 * left-out columns at 0 and their rows' slacks, is an optimal basis of the
 * whole LP whose nonbasic reduced costs are all away from 0: the uniqueness
 * argument above holds for the whole LP.
 *
 * The problem is rebuilt each solve (O(nonzeros)); only the basis carries
 * over, by job id: a job seen last time gets its row's and columns' status
 * back, a new one a basic slack and columns at 0, the type rows keep theirs.
 * A job that left may take with it the link between the rows of its basic
 * columns and leave a part of the basis without a basic slack: a singular
 * basis. mend_basis makes it regular (below); a basis GLPK still rejects
 * is replaced by the slack basis. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lp_internal.h"
#include "sim.h"

#define LP_WARM_TOL 1e-7  /* GLPK's dual feasibility tolerance */
#define LP_WARM_NEAR 0.05 /* of the largest coef: near enough to gain */
#define LP_WARM_ROUNDS 4  /* smaller LPs tried, the last with every job */

struct warm_buf { /* a smaller LP's arrays */
    uint8_t *in;  /* (n) 1: the job is in it */
    double *coef; /* (n, nt) */
    double *x;    /* (n, nt) */
    int32_t *gpus;
    uint32_t *ids;
    int *col;        /* (n * nt + 1) */
    int *colst;      /* (n * nt + 1) the seeded basis: columns' statuses, */
    int *rowst;      /* (nt + n) rows' statuses, */
    int32_t *up;     /* (nt + n) scratch of mend_basis */
    uint8_t *rooted; /* (nt + n) */
};

struct pol_lp_warm {
    int32_t ntypes;
    uint32_t solves; /* solves so far; a stamp of 0 is never */
    size_t cap;      /* ids with room in stamp and stat */
    uint32_t *stamp; /* (cap) solve that saw the id last */
    uint8_t *stat;   /* (cap, 1 + ntypes) row, then columns (0: none) */
    int type_stat[SIM_MAX_GPU_TYPES];
    double price[SIM_MAX_GPU_TYPES]; /* the types' dual values last time */
    uint32_t rejected; /* seeded bases GLPK rejected (test_lp_warm.c) */
};

struct pol_lp_warm *pol_lp_warm_create(void)
{
    return calloc(1, sizeof(struct pol_lp_warm));
}

void pol_lp_warm_destroy(struct pol_lp_warm *w)
{
    if (!w)
        return;
    free(w->stamp);
    free(w->stat);
    free(w);
}

uint32_t pol_lp_warm_rejected(const struct pol_lp_warm *w)
{
    return w->rejected;
}

static int warm_grow(struct pol_lp_warm *w, const uint32_t *ids, int32_t n,
                     int32_t nt)
{
    if (w->ntypes != nt) { /* another problem: forget the basis */
        free(w->stamp);
        free(w->stat);
        *w = (struct pol_lp_warm){.ntypes = nt};
    }
    size_t need = 0;
    for (int32_t j = 0; j < n; j++)
        need = ids[j] + 1u > need ? ids[j] + 1u : need;
    if (need <= w->cap)
        return 0;
    size_t cap = 2 * need, width = 1 + (size_t)nt;
    uint32_t *stamp = realloc(w->stamp, cap * sizeof *stamp);
    if (stamp)
        w->stamp = stamp;
    uint8_t *stat = realloc(w->stat, cap * width);
    if (stat)
        w->stat = stat;
    if (!stamp || !stat)
        return SIM_ENOMEM;
    memset(&w->stamp[w->cap], 0, (cap - w->cap) * sizeof *stamp);
    w->cap = cap;
    return 0;
}

/* Rows 1..nt: the types' GPUs; nt + 1 + j: job j's time. One column per
 * nonzero coefficient, valued coef / SCALE. COL gets (n, nt) columns. */
static glp_prob *build_warm(const struct pol_lp *lp, double scale, int *col)
{
    int32_t n = lp->njobs, nt = lp->ntypes;
    glp_prob *p = glp_create_prob();
    glp_set_obj_dir(p, GLP_MAX);
    glp_add_rows(p, nt + n);
    for (int32_t t = 0; t < nt; t++)
        glp_set_row_bnds(p, t + 1, GLP_UP, 0, lp->capacity[t]);
    for (int32_t j = 0; j < n; j++)
        glp_set_row_bnds(p, nt + j + 1, GLP_UP, 0, 1);
    int ncols = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)nt; i++)
        col[i] = lp->coef[i] > 0 ? ++ncols : 0;
    if (ncols)
        glp_add_cols(p, ncols);
    for (int32_t j = 0; j < n; j++)
        for (int32_t t = 0; t < nt; t++) {
            size_t i = (size_t)j * (size_t)nt + (size_t)t;
            int k = col[i];
            if (!k)
                continue;
            int ind[3] = {0, t + 1, nt + j + 1};
            double val[3] = {0, lp->gpus[j], 1};
            glp_set_col_bnds(p, k, GLP_DB, 0, 1);
            glp_set_obj_coef(p, k, lp->coef[i] / scale);
            glp_set_mat_col(p, k, 2, ind, val);
        }
    return p;
}

/* The root of row R's set in the union-find UP. */
static int32_t find(int32_t *up, int32_t r)
{
    while (up[r] != r)
        r = up[r] = up[up[r]];
    return r;
}

/* Makes the statuses ROW (rows 0 to nt + n - 1) and COLST (columns, by
 * GLPK's index from 1) a regular basis. Seen as a graph, each basic
 * column joins its type's row to its job's row and each basic slack roots
 * its row's part. The basis is regular when every part is a tree with one
 * root: a cycle of columns is singular (every column of job j holds gpus_j
 * on its type's row and 1 on j's, so the coefficients around a cycle
 * multiply to 1), a part without a root too, and a second root is a basic
 * variable too many. So a column that would close a cycle leaves the
 * basis, a second slack of a part leaves it at its bound, and a part
 * without a root gets the slack of its first row, type rows first. UP
 * and ROOTED: scratch of nt + n each. */
static void mend_basis(const struct pol_lp *lp, const int *col, int *row,
                       int *colst, int32_t *up, uint8_t *rooted)
{
    int32_t n = lp->njobs, nt = lp->ntypes, rows = nt + n;
    for (int32_t r = 0; r < rows; r++)
        up[r] = r, rooted[r] = 0;
    for (int32_t j = 0; j < n; j++)
        for (int32_t t = 0; t < nt; t++) {
            int k = col[(size_t)j * (size_t)nt + (size_t)t];
            if (!k || colst[k] != GLP_BS)
                continue;
            int32_t a = find(up, t), c = find(up, nt + j);
            if (a == c)
                colst[k] = GLP_NL;
            else
                up[a] = c;
        }
    for (int32_t r = 0; r < rows; r++) {
        if (row[r] != GLP_BS)
            continue;
        int32_t c = find(up, r);
        if (rooted[c])
            row[r] = GLP_NU;
        rooted[c] = 1;
    }
    for (int32_t r = 0; r < rows; r++) {
        int32_t c = find(up, r);
        if (!rooted[c])
            row[r] = GLP_BS, rooted[c] = 1;
    }
}

/* Puts the saved statuses of B's jobs (B's ids) on P, mended to a regular
 * basis (B's scratch). */
static void seed_basis(struct pol_lp_warm *w, glp_prob *p,
                       const struct pol_lp *lp, struct warm_buf *b)
{
    const int *col = b->col;
    const uint32_t *ids = b->ids;
    int32_t n = lp->njobs, nt = lp->ntypes;
    size_t width = 1 + (size_t)nt;
    int *row = b->rowst, *colst = b->colst;
    for (int32_t t = 0; t < nt; t++)
        row[t] = w->solves ? w->type_stat[t] : GLP_BS;
    for (int32_t j = 0; j < n; j++) {
        const uint8_t *st = &w->stat[ids[j] * width];
        int seen = w->stamp[ids[j]] == w->solves && w->solves;
        row[nt + j] = seen && st[0] ? st[0] : GLP_BS;
        for (int32_t t = 0; t < nt; t++) {
            int k = col[(size_t)j * (size_t)nt + (size_t)t];
            if (k)
                colst[k] = seen && st[1 + t] ? st[1 + t] : GLP_NL;
        }
    }
    mend_basis(lp, col, row, colst, b->up, b->rooted);
    for (int32_t r = 0; r < nt + n; r++)
        glp_set_row_stat(p, r + 1, row[r]);
    int ncols = glp_get_num_cols(p);
    for (int k = 1; k <= ncols; k++)
        glp_set_col_stat(p, k, colst[k]);
}

/* Saves P's statuses under the jobs' ids for the next solve. */
static void save_basis(struct pol_lp_warm *w, glp_prob *p,
                       const struct pol_lp *lp, const uint32_t *ids,
                       const int *col)
{
    int32_t n = lp->njobs, nt = lp->ntypes;
    size_t width = 1 + (size_t)nt;
    w->solves++;
    for (int32_t t = 0; t < nt; t++)
        w->type_stat[t] = glp_get_row_stat(p, t + 1);
    for (int32_t j = 0; j < n; j++) {
        uint8_t *st = &w->stat[ids[j] * width];
        w->stamp[ids[j]] = w->solves;
        st[0] = (uint8_t)glp_get_row_stat(p, nt + j + 1);
        for (int32_t t = 0; t < nt; t++) {
            int k = col[(size_t)j * (size_t)nt + (size_t)t];
            st[1 + t] = k ? (uint8_t)glp_get_col_stat(p, k) : 0;
        }
    }
}

/* Whether P's optimal basis is dual nondegenerate (its optimum unique). */
static int unique_optimum(glp_prob *p)
{
    int ncols = glp_get_num_cols(p), nrows = glp_get_num_rows(p);
    for (int k = 1; k <= ncols; k++)
        if (glp_get_col_stat(p, k) != GLP_BS &&
            !(fabs(glp_get_col_dual(p, k)) > LP_WARM_TOL))
            return 0;
    for (int r = 1; r <= nrows; r++)
        if (glp_get_row_stat(p, r) != GLP_BS &&
            !(fabs(glp_get_row_dual(p, r)) > LP_WARM_TOL))
            return 0;
    return 1;
}

/* The simplex from P's basis; 0 at an optimum, else -1. A basis GLPK
 * rejects (none should, mended) counts in W's `rejected`, and the simplex
 * starts again from the slack basis. */
static int run_simplex(struct pol_lp_warm *w, glp_prob *p)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    /* Textbook pricing, not GLPK's default projected steepest edge: from
     * the last basis the simplex takes about 15 iterations, too few to
     * repay the edge weights' upkeep (gavel-fifo on Gavel's 6214e9: 7 %
     * less time, the same results: the optimum kept is the only one) */
    parm.pricing = GLP_PT_STD;
    int rc = glp_simplex(p, &parm);
    if (rc == 0 && glp_get_status(p) == GLP_OPT)
        return 0;
    if (rc != 0)
        w->rejected++;
    glp_std_basis(p);
    rc = glp_simplex(p, &parm);
    return rc == 0 && glp_get_status(p) == GLP_OPT ? 0 : -1;
}

/* One solve of LP (a subset of the jobs, in B's arrays), its basis seeded
 * and saved by id: 0 with B's x, *VALUE and the types' prices (their rows'
 * dual values, in units of coef), or 1 (GLPK failed, or maybe not the
 * only optimum). */
static int solve_once(struct pol_lp_warm *w, const struct pol_lp *lp,
                      double scale, struct warm_buf *b, double *value)
{
    size_t cells = (size_t)lp->njobs * (size_t)lp->ntypes;
    const int *col = b->col;
    glp_prob *p = build_warm(lp, scale, b->col);
    seed_basis(w, p, lp, b);
    int rc = run_simplex(w, p) == 0 ? 0 : 1;
    if (rc == 0)
        save_basis(w, p, lp, b->ids, col);
    if (rc == 0 && !unique_optimum(p))
        rc = 1;
    for (size_t i = 0; rc == 0 && i < cells; i++)
        b->x[i] = col[i] ? fmin(fmax(glp_get_col_prim(p, col[i]), 0), 1) : 0;
    if (rc == 0) {
        *value = glp_get_obj_val(p) * scale;
        for (int32_t t = 0; t < lp->ntypes; t++)
            w->price[t] = glp_get_row_dual(p, t + 1) * scale;
    }
    glp_delete_prob(p);
    return rc;
}

/* Whether job J's column on some type gains at the last solve's prices,
 * by more than -SLACK (in units of coef). */
static int gains(const struct pol_lp_warm *w, const struct pol_lp *lp,
                 int32_t j, double slack)
{
    size_t nt = (size_t)lp->ntypes;
    for (size_t t = 0; t < nt; t++) {
        double c = lp->coef[(size_t)j * nt + t];
        if (c > 0 && c - lp->gpus[j] * w->price[t] >= -slack)
            return 1;
    }
    return 0;
}

/* Marks in IN the jobs of the first smaller LP: those new since the last
 * solve, those that had time in it, and those whose columns come within
 * LP_WARM_NEAR of gaining at its prices; all when that is most of them.
 * Returns how many. */
static int32_t choose(const struct pol_lp_warm *w, const struct pol_lp *lp,
                      const uint32_t *ids, double scale, uint8_t *in)
{
    int32_t n = lp->njobs, nt = lp->ntypes, m = 0;
    size_t width = 1 + (size_t)nt;
    for (int32_t j = 0; j < n; j++) {
        const uint8_t *st = &w->stat[ids[j] * width];
        int take = !w->solves || w->stamp[ids[j]] != w->solves;
        for (int32_t t = 0; t < nt && !take; t++)
            take = st[1 + t] == GLP_BS || st[1 + t] == GLP_NU;
        in[j] = (uint8_t)(take || gains(w, lp, j, LP_WARM_NEAR * scale));
        m += in[j];
    }
    if (m > n / 2)
        memset(in, 1, (size_t)n), m = n;
    return m;
}

/* Copies the jobs marked IN into SUB (B's arrays); returns how many. */
static void pack(const struct pol_lp *lp, const uint32_t *ids,
                 const uint8_t *in, struct warm_buf *b, struct pol_lp *sub)
{
    size_t nt = (size_t)lp->ntypes;
    int32_t m = 0;
    for (int32_t j = 0; j < lp->njobs; j++)
        if (in[j]) {
            memcpy(&b->coef[(size_t)m * nt], &lp->coef[(size_t)j * nt],
                   nt * sizeof *b->coef);
            b->gpus[m] = lp->gpus[j];
            b->ids[m++] = ids[j];
        }
    *sub = (struct pol_lp){m, lp->ntypes, b->coef, NULL, b->gpus, lp->capacity};
}

/* After a kept solve: the left-out jobs are at 0, slacks basic. */
static void save_left_out(struct pol_lp_warm *w, const struct pol_lp *lp,
                          const uint32_t *ids, const uint8_t *in)
{
    size_t width = 1 + (size_t)lp->ntypes;
    for (int32_t j = 0; j < lp->njobs; j++)
        if (!in[j]) {
            w->stamp[ids[j]] = w->solves;
            memset(&w->stat[ids[j] * width], 0, width);
        }
}

static void buf_free(struct warm_buf *b)
{
    free(b->in);
    free(b->coef);
    free(b->x);
    free(b->gpus);
    free(b->ids);
    free(b->col);
    free(b->colst);
    free(b->rowst);
    free(b->up);
    free(b->rooted);
}

/* B's arrays for N jobs of NT types; 0, or -1 when out of memory (B's
 * arrays freed and NULL). */
static int buf_alloc(struct warm_buf *b, size_t n, size_t nt)
{
    size_t cells = n * nt, rows = nt + n;
    *b = (struct warm_buf){malloc(n),
                           malloc(cells * sizeof *b->coef),
                           malloc(cells * sizeof *b->x),
                           malloc(n * sizeof *b->gpus),
                           malloc(n * sizeof *b->ids),
                           malloc((cells + 1) * sizeof *b->col),
                           malloc((cells + 1) * sizeof *b->colst),
                           malloc(rows * sizeof *b->rowst),
                           malloc(rows * sizeof *b->up),
                           malloc(rows)};
    if (b->in && b->coef && b->x && b->gpus && b->ids && b->col && b->colst &&
        b->rowst && b->up && b->rooted)
        return 0;
    buf_free(b);
    *b = (struct warm_buf){0};
    return -1;
}

/* The warm solve (the smaller LPs, then all of it); 0 when it is kept in
 * X, 1 when pol_lp_solve must solve it. */
static int solve_warm(struct pol_lp_warm *w, const struct pol_lp *lp,
                      const uint32_t *ids, double scale, double *x,
                      double *value)
{
    size_t n = (size_t)lp->njobs, nt = (size_t)lp->ntypes;
    struct warm_buf b;
    int rc = 1;
    if (buf_alloc(&b, n, nt) == 0 &&
        !warm_grow(w, ids, lp->njobs, lp->ntypes)) {
        glp_term_out(GLP_OFF);
        choose(w, lp, ids, scale, b.in);
        for (int round = 0; round < LP_WARM_ROUNDS; round++) {
            if (round == LP_WARM_ROUNDS - 1)
                memset(b.in, 1, n);
            struct pol_lp sub;
            pack(lp, ids, b.in, &b, &sub);
            if (solve_once(w, &sub, scale, &b, value))
                break;
            int more = 0;
            for (size_t j = 0; j < n; j++)
                if (!b.in[j] && gains(w, lp, (int32_t)j, LP_WARM_TOL * scale))
                    b.in[j] = 1, more = 1;
            if (!more) {
                rc = 0;
                break;
            }
        }
    }
    for (size_t j = 0, k = 0; rc == 0 && j < n; j++) {
        if (b.in[j])
            memcpy(&x[j * nt], &b.x[k++ * nt], nt * sizeof *x);
        else
            memset(&x[j * nt], 0, nt * sizeof *x);
    }
    if (rc == 0)
        save_left_out(w, lp, ids, b.in);
    buf_free(&b);
    return rc;
}

int pol_lp_solve_warm(struct pol_lp_warm *w, const struct pol_lp *lp,
                      const uint32_t *ids, double *x, double *value, char *why,
                      size_t cap)
{
    size_t cells = (size_t)lp->njobs * (size_t)lp->ntypes;
    double scale = 0;
    for (size_t i = 0; i < cells; i++)
        scale = fmax(scale, lp->coef[i]);
    if (w && lp->njobs > 0 && scale > 0 && scale < INFINITY &&
        solve_warm(w, lp, ids, scale, x, value) == 0)
        return 0;
    return pol_lp_solve(lp, POL_LP_MAX_SUM, x, value, why, cap);
}
