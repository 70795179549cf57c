/* ipm_hsd.c -- the iterations of scipy 1.10.1's legacy interior-point
 * linprog (_linprog_ip.py, _ip_hsd): Andersen & Andersen's homogeneous
 * self-dual formulation (x, y, z, tau, kappa) from the blind start x = z =
 * 1, y = 0, tau = kappa = 1; each iteration a Mehrotra predictor (gamma 0)
 * and one corrector (gamma = (1 - a)^2 min(0.1, 1 - a), a the predictor's
 * full step), both solved through the normal equations; the step is
 * .99995 of the way to the boundary; stop when the relative primal, dual
 * and gap residuals are below 1e-8 (status 0), when tau vanishes against
 * kappa (2 or 3), after 1000 iterations (1), or when the normal equations
 * cannot be solved even by LU (4). Reference: E. D. Andersen and K. D.
 * Andersen, "The MOSEK interior point optimizer for linear programming",
 * 2000, as cited by scipy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipm.h"

#define TOL 1e-8
#define ALPHA0 .99995
#define MAXITER 1000

struct hsd {
    const struct ipm_std *s;
    struct ipm_ne *ne;
    size_t nr, n;
    double *x, *z, *y, *dx, *dz, *dy, *p, *q, *u, *v, *rp, *rd, *dinv, *r1;
    double tau, kappa, dtau, dkappa;
    double rp0, rd0, rg0;
};

static double dot(const double *a, const double *b, size_t n)
{
    double v = 0;
    for (size_t i = 0; i < n; i++)
        v += a[i] * b[i];
    return v;
}

/* out (nr) = A x */
static void mul(const struct ipm_std *s, const double *x, double *out)
{
    memset(out, 0, s->nrow * sizeof *out);
    for (size_t j = 0; j < s->ncol; j++)
        for (size_t q = s->colptr[j]; q < s->colptr[j + 1]; q++)
            out[s->rowidx[q]] += s->val[q] * x[j];
}

/* out (ncol) = A^T y */
static void mul_t(const struct ipm_std *s, const double *y, double *out)
{
    for (size_t j = 0; j < s->ncol; j++) {
        double v = 0;
        for (size_t q = s->colptr[j]; q < s->colptr[j + 1]; q++)
            v += s->val[q] * y[s->rowidx[q]];
        out[j] = v;
    }
}

/* _sym_solve: v = M^-1 (r2 + A (Dinv r1)), u = Dinv (A^T v - r1). */
static void sym_solve(struct hsd *h, const double *r1, const double *r2,
                      double *u, double *v)
{
    for (size_t j = 0; j < h->n; j++)
        u[j] = h->dinv[j] * r1[j];
    mul(h->s, u, v);
    for (size_t i = 0; i < h->nr; i++)
        v[i] += r2[i];
    ipm_ne_solve(h->ne, v);
    mul_t(h->s, v, u);
    for (size_t j = 0; j < h->n; j++)
        u[j] = h->dinv[j] * (u[j] - r1[j]);
}

static double step(const struct hsd *h, double alpha0)
{
    double a = 1;
    for (size_t j = 0; j < h->n; j++) {
        if (h->dx[j] < 0 && alpha0 * (h->x[j] / -h->dx[j]) < a)
            a = alpha0 * (h->x[j] / -h->dx[j]);
        if (h->dz[j] < 0 && alpha0 * (h->z[j] / -h->dz[j]) < a)
            a = alpha0 * (h->z[j] / -h->dz[j]);
    }
    if (h->dtau < 0 && alpha0 * h->tau / -h->dtau < a)
        a = alpha0 * h->tau / -h->dtau;
    if (h->dkappa < 0 && alpha0 * h->kappa / -h->dkappa < a)
        a = alpha0 * h->kappa / -h->dkappa;
    return a;
}

static int has_nan(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(a[i]))
            return 1;
    return 0;
}

/* Factors M and finds p, q (_get_delta's first solve), going from
 * Cholesky to LU as scipy does; 0, 1 (nothing solved it) or -1. */
static int factor(struct hsd *h)
{
    const struct ipm_std *s = h->s;
    for (int use_lu = 0; use_lu <= 1; use_lu++) {
        int rc = ipm_ne_factor(h->ne, h->dinv, use_lu);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        sym_solve(h, s->c, s->b, h->p, h->q);
        if (!has_nan(h->p, h->n) && !has_nan(h->q, h->nr))
            return 0;
    }
    return 1;
}

/* One predictor-corrector direction into dx, dy, dz, dtau, dkappa. */
static int delta(struct hsd *h)
{
    const struct ipm_std *s = h->s;
    size_t n = h->n, nr = h->nr;
    double tau = h->tau, kappa = h->kappa;
    mul(s, h->x, h->rp);
    for (size_t i = 0; i < nr; i++)
        h->rp[i] = s->b[i] * tau - h->rp[i];
    mul_t(s, h->y, h->rd);
    for (size_t j = 0; j < n; j++)
        h->rd[j] = s->c[j] * tau - h->rd[j] - h->z[j];
    double rg = dot(s->c, h->x, n) - dot(s->b, h->y, nr) + kappa;
    double mu = (dot(h->x, h->z, n) + tau * kappa) / (double)(n + 1);
    for (size_t j = 0; j < n; j++)
        h->dinv[j] = h->x[j] / h->z[j];
    int rc = factor(h);
    if (rc)
        return rc;
    double gamma = 0, cp = -dot(s->c, h->p, n) + dot(s->b, h->q, nr);
    double *rhatp = h->dy; /* scratch until dy is computed */
    for (int i = 0; i <= 1; i++) {
        double eta = 1 - gamma, rhattk = gamma * mu - tau * kappa;
        if (i == 1)
            rhattk -= h->dtau * h->dkappa;
        for (size_t j = 0; j < n; j++) {
            double xs = gamma * mu - h->x[j] * h->z[j];
            if (i == 1)
                xs -= h->dx[j] * h->dz[j];
            h->dz[j] = xs; /* rhatxs, kept in dz until dz is computed */
            h->r1[j] = eta * h->rd[j] - (1 / h->x[j]) * xs;
        }
        for (size_t k = 0; k < nr; k++)
            rhatp[k] = eta * h->rp[k];
        sym_solve(h, h->r1, rhatp, h->u, h->v);
        double cu = -dot(s->c, h->u, n) + dot(s->b, h->v, nr);
        h->dtau = (eta * rg + 1 / tau * rhattk - cu) / (1 / tau * kappa + cp);
        for (size_t j = 0; j < n; j++) {
            h->dx[j] = h->u[j] + h->p[j] * h->dtau;
            h->dz[j] = (1 / h->x[j]) * (h->dz[j] - h->z[j] * h->dx[j]);
        }
        for (size_t k = 0; k < nr; k++)
            h->dy[k] = h->v[k] + h->q[k] * h->dtau;
        h->dkappa = 1 / tau * (rhattk - kappa * h->dtau);
        double alpha = step(h, 1);
        gamma = (1 - alpha) * (1 - alpha) * fmin(0.1, 1 - alpha);
    }
    return 0;
}

/* _indicators: rho_p, rho_d, rho_A, rho_g, rho_mu. */
static void indicators(struct hsd *h, double rho[5])
{
    const struct ipm_std *s = h->s;
    size_t n = h->n, nr = h->nr;
    mul(s, h->x, h->rp);
    for (size_t i = 0; i < nr; i++)
        h->rp[i] = s->b[i] * h->tau - h->rp[i];
    mul_t(s, h->y, h->rd);
    for (size_t j = 0; j < n; j++)
        h->rd[j] = s->c[j] * h->tau - h->rd[j] - h->z[j];
    double cx = dot(s->c, h->x, n), by = dot(s->b, h->y, nr);
    rho[0] = sqrt(dot(h->rp, h->rp, nr)) / fmax(1, h->rp0);
    rho[1] = sqrt(dot(h->rd, h->rd, n)) / fmax(1, h->rd0);
    rho[2] = fabs(cx - by) / (h->tau + fabs(by));
    rho[3] = fabs(h->kappa + cx - by) / fmax(1, h->rg0);
    rho[4] = (dot(h->x, h->z, n) + h->tau * h->kappa) / (double)(n + 1);
}

static int iterate(struct hsd *h, int *iters)
{
    const struct ipm_std *s = h->s;
    double rho[5];
    int it = 0, status = IPM_OK;
    indicators(h, rho);
    int go = rho[0] > TOL || rho[1] > TOL || rho[2] > TOL;
    while (go) {
        it++;
        int rc = delta(h);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            status = IPM_NUMERICAL;
            break;
        }
        double a = step(h, ALPHA0);
        for (size_t j = 0; j < h->n; j++) {
            h->x[j] += a * h->dx[j];
            h->z[j] += a * h->dz[j];
        }
        for (size_t i = 0; i < h->nr; i++)
            h->y[i] += a * h->dy[i];
        h->tau += a * h->dtau;
        h->kappa += a * h->dkappa;
        indicators(h, rho);
        go = rho[0] > TOL || rho[1] > TOL || rho[2] > TOL;
        int inf1 = rho[0] < TOL && rho[1] < TOL && rho[3] < TOL &&
                   h->tau < TOL * fmax(1, h->kappa);
        int inf2 = rho[4] < TOL && h->tau < TOL * fmin(1, h->kappa);
        if (inf1 || inf2) {
            status =
                dot(s->b, h->y, h->nr) > TOL ? IPM_INFEASIBLE : IPM_UNBOUNDED;
            break;
        }
        if (it >= MAXITER) {
            status = IPM_ITER_LIMIT;
            break;
        }
    }
    if (iters)
        *iters = it;
    return status;
}

int ipm_hsd(const struct ipm_std *s, double *xout, int *iters)
{
    struct hsd h = {.s = s, .nr = s->nrow, .n = s->ncol};
    size_t n = h.n, nr = h.nr;
    const char *dense = getenv("HETSIM_IPM_DENSE");
    h.ne = ipm_ne_create(s, dense && *dense == '1');
    double *blk = malloc((10 * n + 6 * nr + 1) * sizeof *blk);
    int rc = -1;
    if (!h.ne || !blk)
        goto out;
    double *w = blk;
    h.x = w, w += n, h.z = w, w += n, h.dx = w, w += n, h.dz = w, w += n;
    h.p = w, w += n, h.u = w, w += n, h.rd = w, w += n, h.dinv = w, w += n;
    h.r1 = w, w += n;
    h.y = w, w += nr, h.dy = w, w += nr, h.q = w, w += nr, h.v = w, w += nr;
    h.rp = w, w += nr;
    for (size_t j = 0; j < n; j++)
        h.x[j] = h.z[j] = 1;
    memset(h.y, 0, nr * sizeof *h.y);
    h.tau = h.kappa = 1;
    /* the blind start's residuals, the indicators' scales */
    indicators(&h, (double[5]){0});
    h.rp0 = sqrt(dot(h.rp, h.rp, nr));
    h.rd0 = sqrt(dot(h.rd, h.rd, n));
    h.rg0 = fabs(1 + dot(s->c, h.x, n));
    rc = iterate(&h, iters);
    for (size_t j = 0; rc >= 0 && j < n; j++)
        xout[j] = h.x[j] / h.tau;
out:
    ipm_ne_destroy(h.ne);
    free(blk);
    return rc;
}
