/* ipm.c -- scipy 1.10.1 linprog(method='interior-point') around the
 * iterations (ipm.h): _presolve (zero rows, zero columns, singleton rows
 * to bounds, fixed variables; tol 1e-9), _get_Abc (upper bounds become
 * rows after A's, a free variable gets a negated copy, slacks last, lower
 * bounds shifted out), _postsolve and _check_result (a point that misses
 * a row or bound by more than sqrt(1e-9) * 10 is status 4). Written from
 * scipy's documented algorithm and source reading; no code copied. */
#include "ipm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRESOLVE_TOL 1e-9

struct pre {
    const struct ipm_lp *lp;
    double *lb, *ub, *b;
    unsigned char *row_on, *fixed;
    size_t *rcount, *ccount;
};

/* Nonzeros of each kept row and of each column over kept rows. */
static void count(struct pre *p)
{
    const struct ipm_lp *lp = p->lp;
    memset(p->rcount, 0, lp->m * sizeof *p->rcount);
    memset(p->ccount, 0, lp->n * sizeof *p->ccount);
    for (size_t k = 0; k < lp->nnz; k++)
        if (lp->val[k] != 0 && p->row_on[lp->row[k]]) {
            p->rcount[lp->row[k]]++;
            p->ccount[lp->col[k]]++;
        }
}

/* _presolve's row and column rules; 0 = go on, else a status. */
static int presolve(struct pre *p, double *x)
{
    const struct ipm_lp *lp = p->lp;
    size_t n = lp->n, m = lp->m, rows = 0;
    for (size_t j = 0; j < n; j++)
        if (p->ub[j] < p->lb[j] || p->lb[j] == HUGE_VAL ||
            p->ub[j] == -HUGE_VAL)
            return IPM_INFEASIBLE;
    for (size_t i = 0; i < m; i++)
        p->row_on[i] = 1;
    count(p);
    for (size_t i = 0; i < m; i++)
        if (p->rcount[i] == 0 && p->b[i] < -PRESOLVE_TOL)
            return IPM_INFEASIBLE;
    for (size_t i = 0; i < m; i++) {
        p->row_on[i] = p->rcount[i] > 0;
        rows += p->row_on[i];
    }
    count(p);
    for (size_t j = 0; rows > 0 && j < n; j++) {
        if (p->ccount[j] > 0 || lp->c[j] == 0)
            continue;
        x[j] = lp->c[j] < 0 ? p->ub[j] : p->lb[j];
        if (isinf(x[j]))
            return IPM_UNBOUNDED;
        if (lp->c[j] < 0)
            p->lb[j] = p->ub[j];
        else
            p->ub[j] = p->lb[j];
    }
    for (size_t k = 0; k < lp->nnz; k++) { /* singleton rows, by row */
        size_t i = lp->row[k], j = lp->col[k];
        double a = lp->val[k];
        if (a == 0 || !p->row_on[i] || p->rcount[i] != 1)
            continue;
        double v = p->b[i] / a;
        if (a > 0 ? v < p->lb[j] - PRESOLVE_TOL : v > p->ub[j] + PRESOLVE_TOL)
            return IPM_INFEASIBLE;
        if (a > 0 && v < p->ub[j])
            p->ub[j] = v;
        else if (a < 0 && v > p->lb[j])
            p->lb[j] = v;
    }
    for (size_t i = 0; i < m; i++)
        if (p->rcount[i] == 1)
            p->row_on[i] = 0;
    size_t nfixed = 0;
    for (size_t j = 0; j < n; j++) {
        p->fixed[j] = fabs(p->lb[j] - p->ub[j]) < PRESOLVE_TOL;
        nfixed += p->fixed[j];
    }
    for (size_t k = 0; k < lp->nnz; k++) /* b -= A[:, fixed] lb */
        if (p->fixed[lp->col[k]] && p->row_on[lp->row[k]])
            p->b[lp->row[k]] -= lp->val[k] * p->lb[lp->col[k]];
    if (nfixed == n && m > 0)
        for (size_t i = 0; i < m; i++)
            if (p->row_on[i] && p->b[i] < 0)
                return IPM_INFEASIBLE;
    return 0;
}

/* The kept entries of A by column, each column's by row: column j's are
 * (tr, tv)[start[j] .. start[j] + fill[j]), rows renumbered by rowmap. */
struct cols {
    size_t *start, *fill, *tr;
    double *tv;
};

static int gather(const struct pre *p, const size_t *rowmap, struct cols *g)
{
    const struct ipm_lp *lp = p->lp;
    size_t n = lp->n, pos = 0;
    g->start = malloc((n + 1) * sizeof *g->start);
    g->fill = calloc(n + 1, sizeof *g->fill);
    if (!g->start || !g->fill)
        return -1;
    for (size_t k = 0; k < lp->nnz; k++)
        if (lp->val[k] != 0 && p->row_on[lp->row[k]] && !p->fixed[lp->col[k]])
            g->fill[lp->col[k]]++;
    for (size_t j = 0; j < n; j++) {
        g->start[j] = pos;
        pos += g->fill[j];
        g->fill[j] = 0;
    }
    g->tv = malloc((pos + 1) * sizeof *g->tv);
    g->tr = malloc((pos + 1) * sizeof *g->tr);
    if (!g->tv || !g->tr)
        return -1;
    for (size_t k = 0; k < lp->nnz; k++) {
        size_t j = lp->col[k], at = g->start[j] + g->fill[j];
        if (lp->val[k] != 0 && p->row_on[lp->row[k]] && !p->fixed[j]) {
            g->tr[at] = rowmap[lp->row[k]];
            g->tv[at] = lp->val[k];
            g->fill[j]++;
        }
    }
    for (size_t j = 0; j < n; j++) /* insertion sort: columns are short */
        for (size_t a = g->start[j] + 1; a < g->start[j] + g->fill[j]; a++)
            for (size_t q = a; q > g->start[j] && g->tr[q - 1] > g->tr[q];
                 q--) {
                size_t t = g->tr[q];
                g->tr[q] = g->tr[q - 1], g->tr[q - 1] = t;
                double u = g->tv[q];
                g->tv[q] = g->tv[q - 1], g->tv[q - 1] = u;
            }
    return 0;
}

/* Sizes s and fills b's kept rows; *mr = kept rows, *nv, *nfree. */
static int std_alloc(const struct pre *p, struct ipm_std *s, size_t *rowmap,
                     size_t *var, size_t counts[3])
{
    const struct ipm_lp *lp = p->lp;
    size_t mr = 0, nv = 0, nfree = 0, nb = 0;
    for (size_t i = 0; i < lp->m; i++)
        rowmap[i] = p->row_on[i] ? mr++ : SIZE_MAX;
    for (size_t j = 0; j < lp->n; j++) {
        var[j] = p->fixed[j] ? SIZE_MAX : nv++;
        if (!p->fixed[j] && isinf(p->ub[j]) && p->lb[j] == -HUGE_VAL)
            nfree++;
        if (!p->fixed[j] && !isinf(p->ub[j]) && p->lb[j] != -HUGE_VAL)
            nb++; /* a finite upper bound becomes a row unless flipped */
    }
    s->nrow = mr + nb;
    s->ncol = nv + nfree + s->nrow;
    size_t cap = 2 * lp->nnz + lp->n + s->nrow + 1; /* A, bounds, copies */
    s->colptr = calloc(s->ncol + 1, sizeof *s->colptr);
    s->rowidx = malloc(cap * sizeof *s->rowidx);
    s->val = malloc(cap * sizeof *s->val);
    s->b = calloc(s->nrow + 1, sizeof *s->b);
    s->c = calloc(s->ncol + 1, sizeof *s->c);
    if (!s->colptr || !s->rowidx || !s->val || !s->b || !s->c)
        return -1;
    for (size_t i = 0; i < lp->m; i++)
        if (p->row_on[i])
            s->b[rowmap[i]] = p->b[i];
    counts[0] = mr, counts[1] = nv, counts[2] = nfree;
    return 0;
}

/* Fills s from the presolved problem (_get_Abc); var[j] = standard-form
 * column of variable j (or SIZE_MAX when fixed), neg[j] = its negated copy
 * (free variables). */
static int standard_form(const struct pre *p, struct ipm_std *s, size_t *var,
                         size_t *neg)
{
    size_t n = p->lp->n, counts[3];
    size_t *rowmap = malloc((p->lp->m + 1) * sizeof *rowmap);
    struct cols g = {NULL, NULL, NULL, NULL};
    int rc = -1;
    if (!rowmap || std_alloc(p, s, rowmap, var, counts) ||
        gather(p, rowmap, &g))
        goto out;
    size_t nv = counts[1], nfree = counts[2], brow = counts[0], fcol = nv;
    size_t *start = g.start, *fill = g.fill, *tr = g.tr;
    double *tv = g.tv;
    size_t nz = 0;
    for (size_t j = 0; j < n; j++) {
        if (p->fixed[j])
            continue;
        double lo = p->lb[j], hi = p->ub[j], sign = 1;
        if (lo == -HUGE_VAL && !isinf(hi)) { /* flipped: -x >= -hi */
            sign = -1;
            lo = -hi;
            hi = HUGE_VAL;
        }
        size_t col = var[j];
        s->colptr[col] = nz;
        s->c[col] = sign * p->lp->c[j];
        for (size_t q = start[j]; q < start[j] + fill[j]; q++) {
            s->rowidx[nz] = tr[q];
            s->val[nz++] = sign * tv[q];
        }
        if (!isinf(hi)) {
            s->b[brow] = hi;
            s->rowidx[nz] = brow++;
            s->val[nz++] = 1;
        }
        neg[j] = SIZE_MAX;
        if (lo == -HUGE_VAL)
            neg[j] = fcol++;
        else /* shift x = x' + lo out of every row of the column */
            for (size_t q = s->colptr[col]; q < nz; q++)
                s->b[s->rowidx[q]] -= s->val[q] * lo;
    }
    s->colptr[nv] = nz; /* the end of the last variable's column */
    /* negated copies of the free columns, then the slacks */
    for (size_t j = 0; j < n; j++) {
        if (p->fixed[j] || neg[j] == SIZE_MAX)
            continue;
        size_t col = var[j], from = s->colptr[col], to = s->colptr[col + 1];
        s->colptr[neg[j]] = nz;
        s->c[neg[j]] = -s->c[col];
        for (size_t q = from; q < to; q++) {
            s->rowidx[nz] = s->rowidx[q];
            s->val[nz++] = -s->val[q];
        }
    }
    for (size_t i = 0; i < s->nrow; i++) {
        s->colptr[nv + nfree + i] = nz;
        s->rowidx[nz] = i;
        s->val[nz++] = 1;
    }
    s->colptr[s->ncol] = nz;
    rc = 0;
out:
    free(rowmap), free(g.start), free(g.fill), free(g.tv), free(g.tr);
    return rc;
}

/* _postsolve then _check_result: x (n) from the standard form's xs. */
static int postsolve(const struct pre *p, const double *xs, const size_t *var,
                     const size_t *neg, double *x, int status)
{
    const struct ipm_lp *lp = p->lp;
    const double tol = sqrt(PRESOLVE_TOL) * 10;
    for (size_t j = 0; j < lp->n; j++) {
        if (p->fixed[j])
            x[j] = p->lb[j];
        else if (neg[j] != SIZE_MAX)
            x[j] = xs[var[j]] - xs[neg[j]];
        else if (p->lb[j] == -HUGE_VAL)
            x[j] = p->ub[j] - xs[var[j]];
        else
            x[j] = xs[var[j]] + p->lb[j];
    }
    int ok = 1;
    double *slack = malloc((lp->m + 1) * sizeof *slack);
    if (!slack)
        return -1;
    for (size_t i = 0; i < lp->m; i++)
        slack[i] = lp->b[i];
    for (size_t k = 0; k < lp->nnz; k++)
        slack[lp->row[k]] -= lp->val[k] * x[lp->col[k]];
    for (size_t i = 0; i < lp->m; i++)
        if (isnan(slack[i]) || (status != IPM_UNBOUNDED && slack[i] < -tol))
            ok = 0;
    for (size_t j = 0; j < lp->n; j++) {
        double lo = lp->lb ? lp->lb[j] : 0, hi = lp->ub ? lp->ub[j] : HUGE_VAL;
        if (isnan(x[j]) || x[j] < lo - tol || x[j] > hi + tol)
            ok = 0;
    }
    free(slack);
    if (status == IPM_OK && !ok)
        return IPM_NUMERICAL;
    if (status == IPM_INFEASIBLE && ok)
        return IPM_NUMERICAL;
    return status;
}

/* Presolve left nothing to iterate on (scipy: "determined in presolve"). */
static int trivial(const struct pre *p, double *x)
{
    const struct ipm_lp *lp = p->lp;
    int status = IPM_OK;
    for (size_t j = 0; j < lp->n; j++) {
        double c = lp->c[j];
        if ((c < 0 && p->ub[j] == HUGE_VAL) || (c > 0 && p->lb[j] == -HUGE_VAL))
            status = IPM_UNBOUNDED;
        if (p->fixed[j])
            x[j] = p->lb[j];
        else
            x[j] = c < 0             ? p->ub[j]
                   : c > 0           ? p->lb[j]
                   : isinf(p->ub[j]) ? 0
                                     : p->ub[j];
    }
    return status;
}

/* HETSIM_IPM_DUMP=FILE appends every LP solved to FILE (text: "lp N M
 * NNZ", the entries, b, c, lb, ub) for tests/data/ipm/scipy_points.py. */
static void dump(const struct ipm_lp *lp)
{
    const char *path = getenv("HETSIM_IPM_DUMP");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "lp %zu %zu %zu\n", lp->n, lp->m, lp->nnz);
    for (size_t k = 0; k < lp->nnz; k++)
        fprintf(f, "%zu %zu %.17g\n", lp->row[k], lp->col[k], lp->val[k]);
    for (size_t i = 0; i < lp->m; i++)
        fprintf(f, "%.17g%c", lp->b[i], i + 1 < lp->m ? ' ' : '\n');
    for (int w = 0; w < 3; w++)
        for (size_t j = 0; j < lp->n; j++) {
            const double *v = w == 0 ? lp->c : w == 1 ? lp->lb : lp->ub;
            double d = w == 2 ? HUGE_VAL : 0;
            fprintf(f, "%.17g%c", v ? v[j] : d, j + 1 < lp->n ? ' ' : '\n');
        }
    fclose(f);
}

int ipm_solve(const struct ipm_lp *lp, double *x, int *iters)
{
    dump(lp);
    size_t n = lp->n, m = lp->m;
    struct pre p = {lp, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    struct ipm_std s = {0, 0, NULL, NULL, NULL, NULL, NULL};
    p.lb = malloc((n + 1) * sizeof *p.lb);
    p.ub = malloc((n + 1) * sizeof *p.ub);
    p.b = malloc((m + 1) * sizeof *p.b);
    p.row_on = malloc(m + 1);
    p.fixed = calloc(n + 1, 1);
    p.rcount = malloc((m + 1) * sizeof *p.rcount);
    p.ccount = malloc((n + 1) * sizeof *p.ccount);
    size_t *var = malloc((n + 1) * sizeof *var);
    size_t *neg = malloc((n + 1) * sizeof *neg);
    double *xs = NULL;
    int rc = -1;
    if (iters)
        *iters = 0;
    if (!p.lb || !p.ub || !p.b || !p.row_on || !p.fixed || !p.rcount ||
        !p.ccount || !var || !neg)
        goto out;
    for (size_t j = 0; j < n; j++) {
        p.lb[j] = lp->lb ? lp->lb[j] : 0;
        p.ub[j] = lp->ub ? lp->ub[j] : HUGE_VAL;
        x[j] = 0;
    }
    memcpy(p.b, lp->b, m * sizeof *p.b);
    rc = presolve(&p, x);
    if (rc != 0)
        goto out; /* x: presolve's zeros, as scipy's */
    size_t rows = 0, cols = 0;
    for (size_t i = 0; i < m; i++)
        rows += p.row_on[i];
    for (size_t j = 0; j < n; j++)
        cols += !p.fixed[j];
    if (rows == 0 || cols == 0) {
        rc = trivial(&p, x);
        goto out;
    }
    rc = standard_form(&p, &s, var, neg);
    if (rc == 0)
        xs = malloc((s.ncol + 1) * sizeof *xs);
    if (rc != 0 || !xs) {
        rc = -1;
        goto out;
    }
    rc = ipm_hsd(&s, xs, iters);
    if (rc >= 0)
        rc = postsolve(&p, xs, var, neg, x, rc);
out:
    free(p.lb), free(p.ub), free(p.b), free(p.row_on), free(p.fixed);
    free(p.rcount), free(p.ccount), free(var), free(neg), free(xs);
    free(s.colptr), free(s.rowidx), free(s.val), free(s.b), free(s.c);
    return rc;
}
