/* ipm.h -- a re-implementation of scipy 1.10.1's legacy
 * linprog(method='interior-point') (scipy/optimize/_linprog.py,
 * _linprog_util.py, _linprog_ip.py; defaults: presolve on, no autoscale,
 * tol 1e-8, alpha0 .99995, maxiter 1000, predictor-corrector, blind start),
 * for LPs with inequality rows only:
 *
 *     minimise c x   subject to   A x <= b,   lb <= x <= ub.
 *
 * Gavel's reference runs (tests/data/gavel-reference/MANIFEST.md) keep
 * whatever point that solver returns among many optimal or feasible ones,
 * so reproducing them needs the same algorithm, not only an LP solver:
 * Andersen & Andersen's homogeneous self-dual method with Mehrotra's
 * predictor-corrector, on scipy's standard form (presolve, upper bounds as
 * rows, free variables split, slacks last). Internal to the policies
 * library; ipm.c (presolve, standard form, postsolve) and ipm_hsd.c (the
 * iterations and normal equations). */
#ifndef HETSIM_IPM_H
#define HETSIM_IPM_H

#include <stddef.h>

/* scipy's status codes (OptimizeResult.status). */
enum ipm_status {
    IPM_OK = 0,         /* converged */
    IPM_ITER_LIMIT = 1, /* 1000 iterations */
    IPM_INFEASIBLE = 2,
    IPM_UNBOUNDED = 3,
    IPM_NUMERICAL = 4, /* a failed solve, or a point that misses the rows */
};

/* The LP; borrowed. Entries (row[k], col[k], val[k]) of A, k < nnz, each
 * (row, col) at most once; lb/ub NULL = 0 / +infinity for every variable
 * (use -HUGE_VAL / HUGE_VAL for none). */
struct ipm_lp {
    size_t n, m, nnz;
    const size_t *row, *col;
    const double *val;
    const double *b;  /* (m) */
    const double *c;  /* (n) */
    const double *lb; /* (n) or NULL */
    const double *ub; /* (n) or NULL */
};

/* Solves lp into x (n) the way scipy does; returns its status (>= 0) or
 * -1 when memory ran out. *iters (may be NULL) gets the iteration count.
 * HETSIM_IPM_DENSE=1 in the environment forces the dense normal-equation
 * solve (tests compare it with the structured one). */
int ipm_solve(const struct ipm_lp *lp, double *x, int *iters);

/* ---- between ipm.c and ipm_hsd.c ---- */

/* Standard form: minimise c x subject to A x = b, x >= 0; A in compressed
 * columns (colptr (ncol + 1), rowidx / val (nnz)). */
struct ipm_std {
    size_t nrow, ncol;
    size_t *colptr, *rowidx;
    double *val, *b, *c;
};

/* The normal equations M v = r, M = A diag(d) A^T (ipm_ne.c). Columns
 * with many entries (an epigraph variable) are kept out of M's factor and
 * added back by Sherman-Morrison-Woodbury; the other rows are grouped into
 * the small blocks their columns link, plus a border of rows with many
 * entries (a type's capacity), eliminated last: linear in the number of
 * jobs. Where the structure is not there, or dense is set, M is factored
 * whole. factor: 0, 1 when M is not positive definite (or singular: lu),
 * -1 memory. */
struct ipm_ne;
struct ipm_ne *ipm_ne_create(const struct ipm_std *s, int dense);
void ipm_ne_destroy(struct ipm_ne *ne);
int ipm_ne_factor(struct ipm_ne *ne, const double *d, int lu);
void ipm_ne_solve(struct ipm_ne *ne, double *r); /* r := M^-1 r */

/* The homogeneous self-dual iterations (_ip_hsd) on s; x (ncol) gets
 * x / tau. Returns the status or -1 (memory). */
int ipm_hsd(const struct ipm_std *s, double *x, int *iters);

#endif
