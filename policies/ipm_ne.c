/* ipm_ne.c -- the interior-point method's normal equations (ipm.h). scipy
 * factors M = A diag(d) A^T densely (Cholesky, then LU when that fails);
 * the same system here costs linear time on Gavel's LPs: every x[i][t]
 * column links job i's rows and one capacity row, so M is block diagonal
 * with a border of capacity rows, plus a rank-one term per epigraph
 * column. The dense path (lu, or no such structure) is the fallback. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipm.h"

#define DENSE_COL 16   /* a column with more entries goes to the low rank */
#define BORDER_ROW 16  /* a row with more entries (past those) is border */
#define MAX_BLOCK 64   /* larger blocks, or border: factor M whole */
#define DENSE_MAX 3000 /* rows of the largest M factored whole (72 MB) */

struct ipm_ne {
    const struct ipm_std *s;
    size_t nr, nloc, k, nblk, ndc, bsize;
    int structured;
    size_t *dc;     /* (ndc) the low-rank columns */
    size_t *pos;    /* (nr) row -> position: blocks' rows, then border */
    size_t *bstart; /* (nblk + 1) first position of each block */
    size_t *boff;   /* (nblk) offset of its matrix in bmat */
    size_t *blk;    /* (nloc) block of each local position */
    double *bmat, *y, *sm, *tmp;
    double *pv, *beta, *dbar; /* (ndc * nr) the rank-one factors */
    double *m;                /* (nr * nr) dense M, or its factor */
    size_t *piv;              /* (nr) LU's row swaps */
    int is_lu;
};

static size_t find(size_t *up, size_t a)
{
    while (up[a] != a)
        a = up[a] = up[up[a]];
    return a;
}

/* Positions: the blocks (rows linked by up[]; SIZE_MAX = border) by their
 * first row, rows in order; then the border rows. Returns the largest
 * block's size, or SIZE_MAX when memory ran out. */
static size_t layout(struct ipm_ne *ne, size_t *up)
{
    size_t nr = ne->nr, p = 0, off = 0, big = 0;
    size_t *root_blk = calloc(nr + 1, sizeof *root_blk); /* block + 1 */
    size_t *size = calloc(nr + 1, sizeof *size);
    ne->pos = malloc((nr + 1) * sizeof *ne->pos);
    ne->bstart = malloc((nr + 2) * sizeof *ne->bstart);
    ne->boff = malloc((nr + 1) * sizeof *ne->boff);
    ne->blk = malloc((nr + 1) * sizeof *ne->blk);
    if (!root_blk || !size || !ne->pos || !ne->bstart || !ne->boff ||
        !ne->blk) {
        free(root_blk), free(size);
        return SIZE_MAX;
    }
    for (size_t i = 0; i < nr; i++) {
        if (up[i] == SIZE_MAX)
            continue;
        size_t r = find(up, i);
        if (!root_blk[r])
            root_blk[r] = ++ne->nblk;
        size[root_blk[r] - 1]++;
    }
    for (size_t g = 0; g < ne->nblk; g++) {
        ne->bstart[g] = p;
        ne->boff[g] = off;
        p += size[g];
        off += size[g] * size[g];
        big = size[g] > big ? size[g] : big;
    }
    ne->bstart[ne->nblk] = ne->nloc = p;
    ne->bsize = off;
    ne->k = nr - p;
    memset(size, 0, (nr + 1) * sizeof *size);
    for (size_t i = 0, b = p; i < nr; i++) {
        if (up[i] == SIZE_MAX) {
            ne->pos[i] = b++;
            continue;
        }
        size_t g = root_blk[find(up, i)] - 1;
        ne->pos[i] = ne->bstart[g] + size[g]++;
        ne->blk[ne->pos[i]] = g;
    }
    free(root_blk), free(size);
    return big;
}

/* Finds the structure: the low-rank columns, the border rows, the blocks;
 * 0 when it is there, 1 when not, -1 when memory ran out. */
static int structure(struct ipm_ne *ne)
{
    const struct ipm_std *s = ne->s;
    size_t nr = s->nrow, *cnt = calloc(nr + 1, sizeof *cnt);
    size_t *up = malloc((nr + 1) * sizeof *up);
    ne->dc = malloc((s->ncol + 1) * sizeof *ne->dc);
    int rc = -1;
    if (!cnt || !up || !ne->dc)
        goto out;
    for (size_t j = 0; j < s->ncol; j++) {
        if (s->colptr[j + 1] - s->colptr[j] > DENSE_COL)
            ne->dc[ne->ndc++] = j;
        else
            for (size_t q = s->colptr[j]; q < s->colptr[j + 1]; q++)
                cnt[s->rowidx[q]]++;
    }
    for (size_t i = 0; i < nr; i++)
        up[i] = cnt[i] > BORDER_ROW ? SIZE_MAX : i;
    for (size_t j = 0, d = 0; j < s->ncol; j++) { /* union the rows */
        if (d < ne->ndc && ne->dc[d] == j) {
            d++;
            continue;
        }
        size_t first = SIZE_MAX;
        for (size_t q = s->colptr[j]; q < s->colptr[j + 1]; q++) {
            size_t r = s->rowidx[q];
            if (up[r] == SIZE_MAX)
                continue;
            if (first == SIZE_MAX)
                first = find(up, r);
            else
                up[find(up, r)] = first = find(up, first);
        }
    }
    size_t big = layout(ne, up);
    if (big == SIZE_MAX)
        goto out;
    rc = 1;
    if (big > MAX_BLOCK || ne->k > MAX_BLOCK || ne->ndc > MAX_BLOCK)
        goto out;
    ne->bmat = malloc((ne->bsize + 1) * sizeof *ne->bmat);
    ne->y = malloc((ne->nloc * ne->k + 1) * sizeof *ne->y);
    ne->sm = malloc((ne->k * ne->k + 1) * sizeof *ne->sm);
    ne->pv = malloc((nr * ne->ndc + 1) * sizeof *ne->pv);
    ne->beta = malloc((nr * ne->ndc + 1) * sizeof *ne->beta);
    ne->dbar = malloc((nr * ne->ndc + 1) * sizeof *ne->dbar);
    ne->tmp = malloc((nr + 1) * sizeof *ne->tmp);
    rc =
        ne->bmat && ne->y && ne->sm && ne->pv && ne->beta && ne->dbar && ne->tmp
            ? 0
            : -1;
out:
    free(cnt);
    free(up);
    return rc;
}

struct ipm_ne *ipm_ne_create(const struct ipm_std *s, int dense)
{
    struct ipm_ne *ne = calloc(1, sizeof *ne);
    if (!ne)
        return NULL;
    ne->s = s;
    ne->nr = s->nrow;
    int rc = dense ? 1 : structure(ne);
    if (rc < 0) {
        ipm_ne_destroy(ne);
        return NULL;
    }
    ne->structured = rc == 0;
    if (!ne->tmp)
        ne->tmp = malloc((ne->nr + 1) * sizeof *ne->tmp);
    if (!ne->tmp) {
        ipm_ne_destroy(ne);
        return NULL;
    }
    return ne;
}

void ipm_ne_destroy(struct ipm_ne *ne)
{
    if (!ne)
        return;
    free(ne->dc), free(ne->pos), free(ne->bstart), free(ne->boff);
    free(ne->blk), free(ne->bmat), free(ne->y), free(ne->sm), free(ne->pv);
    free(ne->beta), free(ne->dbar), free(ne->tmp), free(ne->m), free(ne->piv);
    free(ne);
}

/* In-place lower Cholesky of the n x n row-major a; 1 when not SPD. */
static int chol(double *a, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (size_t q = 0; q < j; q++)
            d -= a[j * n + q] * a[j * n + q];
        if (!(d > 0))
            return 1;
        d = sqrt(d);
        a[j * n + j] = d;
        for (size_t i = j + 1; i < n; i++) {
            double v = a[i * n + j];
            for (size_t q = 0; q < j; q++)
                v -= a[i * n + q] * a[j * n + q];
            a[i * n + j] = v / d;
        }
    }
    return 0;
}

/* x := L^-1 x (t = 0) or L^-T x (t = 1), L lower n x n; x strided. */
static void tri(const double *l, size_t n, double *x, size_t stride, int t)
{
    if (!t)
        for (size_t i = 0; i < n; i++) {
            double v = x[i * stride];
            for (size_t q = 0; q < i; q++)
                v -= l[i * n + q] * x[q * stride];
            x[i * stride] = v / l[i * n + i];
        }
    else
        for (size_t i = n; i-- > 0;) {
            double v = x[i * stride];
            for (size_t q = i + 1; q < n; q++)
                v -= l[q * n + i] * x[q * stride];
            x[i * stride] = v / l[i * n + i];
        }
}

/* M's pieces from the columns kept out of the low rank. */
static void assemble(struct ipm_ne *ne, const double *d)
{
    const struct ipm_std *s = ne->s;
    size_t nloc = ne->nloc, k = ne->k;
    memset(ne->bmat, 0, ne->bsize * sizeof *ne->bmat);
    memset(ne->y, 0, nloc * k * sizeof *ne->y);
    memset(ne->sm, 0, k * k * sizeof *ne->sm);
    for (size_t j = 0, dci = 0; j < s->ncol; j++) {
        if (dci < ne->ndc && ne->dc[dci] == j) {
            dci++;
            continue;
        }
        for (size_t q1 = s->colptr[j]; q1 < s->colptr[j + 1]; q1++) {
            size_t p1 = ne->pos[s->rowidx[q1]];
            double w1 = d[j] * s->val[q1];
            for (size_t q2 = s->colptr[j]; q2 < s->colptr[j + 1]; q2++) {
                size_t p2 = ne->pos[s->rowidx[q2]];
                double w = w1 * s->val[q2];
                if (p1 < nloc && p2 < nloc) {
                    size_t g = ne->blk[p1], bs = ne->bstart[g];
                    size_t sz = ne->bstart[g + 1] - bs;
                    ne->bmat[ne->boff[g] + (p1 - bs) * sz + (p2 - bs)] += w;
                } else if (p1 < nloc)
                    ne->y[p1 * k + (p2 - nloc)] += w;
                else if (p2 >= nloc)
                    ne->sm[(p1 - nloc) * k + (p2 - nloc)] += w;
            }
        }
    }
}

/* t := L^-1 t (back = 0) or L^-T t (back = 1), t in positions, L the
 * factor of P (M without the low-rank columns): [[L_B, 0], [Y^T, L_S]]. */
static void solve_l(struct ipm_ne *ne, double *t, int back)
{
    size_t nloc = ne->nloc, k = ne->k;
    if (back) {
        tri(ne->sm, k, t + nloc, 1, 1);
        for (size_t p = 0; p < nloc; p++)
            for (size_t e = 0; e < k; e++)
                t[p] -= ne->y[p * k + e] * t[nloc + e];
    }
    for (size_t g = 0; g < ne->nblk; g++) {
        size_t bs = ne->bstart[g];
        tri(ne->bmat + ne->boff[g], ne->bstart[g + 1] - bs, t + bs, 1, back);
    }
    if (back)
        return;
    for (size_t e = 0; e < k; e++) {
        double v = t[nloc + e];
        for (size_t p = 0; p < nloc; p++)
            v -= ne->y[p * k + e] * t[p];
        t[nloc + e] = v;
    }
    tri(ne->sm, k, t + nloc, 1, 0);
}

/* t := (T D^1/2)^-1 t (back = 0) or (T D^1/2)^-T t for the rank-one
 * factor c: I + a p p^T = T D T^T, T unit lower with T[i][j] = p_i beta_j
 * (Gill, Golub, Murray and Saunders 1974, method C1: stable, linear). */
static void solve_r1(const struct ipm_ne *ne, size_t c, double *t, int back)
{
    size_t nr = ne->nr;
    const double *p = ne->pv + c * nr, *beta = ne->beta + c * nr;
    const double *d = ne->dbar + c * nr;
    double acc = 0;
    if (!back)
        for (size_t i = 0; i < nr; i++) {
            t[i] -= p[i] * acc;
            acc += beta[i] * t[i];
        }
    for (size_t i = 0; i < nr; i++)
        t[i] /= sqrt(d[i]);
    if (back)
        for (size_t i = nr; i-- > 0;) {
            t[i] -= beta[i] * acc;
            acc += p[i] * t[i];
        }
}

/* r := M^-1 r through the factors. */
static void solve_structured(struct ipm_ne *ne, double *r)
{
    size_t nr = ne->nr;
    double *t = ne->tmp;
    for (size_t i = 0; i < nr; i++)
        t[ne->pos[i]] = r[i];
    solve_l(ne, t, 0);
    for (size_t c = 0; c < ne->ndc; c++)
        solve_r1(ne, c, t, 0);
    for (size_t c = ne->ndc; c-- > 0;)
        solve_r1(ne, c, t, 1);
    solve_l(ne, t, 1);
    for (size_t i = 0; i < nr; i++)
        r[i] = t[ne->pos[i]];
}

static int factor_structured(struct ipm_ne *ne, const double *d)
{
    const struct ipm_std *s = ne->s;
    size_t k = ne->k, nr = ne->nr;
    assemble(ne, d);
    for (size_t g = 0; g < ne->nblk; g++) {
        size_t bs = ne->bstart[g], sz = ne->bstart[g + 1] - bs;
        if (chol(ne->bmat + ne->boff[g], sz))
            return 1;
        for (size_t e = 0; e < k; e++)
            tri(ne->bmat + ne->boff[g], sz, ne->y + bs * k + e, k, 0);
    }
    for (size_t a = 0; a < k; a++)
        for (size_t b = 0; b < k; b++) {
            double v = ne->sm[a * k + b];
            for (size_t p = 0; p < ne->nloc; p++)
                v -= ne->y[p * k + a] * ne->y[p * k + b];
            ne->sm[a * k + b] = v;
        }
    if (chol(ne->sm, k))
        return 1;
    for (size_t c = 0; c < ne->ndc; c++) { /* M += d_j u u^T, one by one */
        size_t j = ne->dc[c];
        double *p = ne->pv + c * nr, *beta = ne->beta + c * nr;
        double *db = ne->dbar + c * nr, a = d[j];
        memset(p, 0, nr * sizeof *p);
        for (size_t q = s->colptr[j]; q < s->colptr[j + 1]; q++)
            p[ne->pos[s->rowidx[q]]] = s->val[q];
        solve_l(ne, p, 0);
        for (size_t c2 = 0; c2 < c; c2++)
            solve_r1(ne, c2, p, 0);
        for (size_t i = 0; i < nr; i++) {
            db[i] = 1 + a * p[i] * p[i];
            beta[i] = p[i] * a / db[i];
            a /= db[i];
        }
        if (!(a >= 0) || !isfinite(a))
            return 1;
    }
    return 0;
}

/* LU with partial pivoting of the n x n row-major a; 1 when singular. */
static int lu(double *a, size_t *piv, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        size_t p = j;
        for (size_t i = j + 1; i < n; i++)
            p = fabs(a[i * n + j]) > fabs(a[p * n + j]) ? i : p;
        piv[j] = p;
        if (!(a[p * n + j] != 0) || !isfinite(a[p * n + j]))
            return 1;
        if (p != j)
            for (size_t q = 0; q < n; q++) {
                double t = a[j * n + q];
                a[j * n + q] = a[p * n + q], a[p * n + q] = t;
            }
        for (size_t i = j + 1; i < n; i++) {
            double f = a[i * n + j] /= a[j * n + j];
            for (size_t q = j + 1; q < n; q++)
                a[i * n + q] -= f * a[j * n + q];
        }
    }
    return 0;
}

static int factor_dense(struct ipm_ne *ne, const double *d, int use_lu)
{
    const struct ipm_std *s = ne->s;
    size_t nr = ne->nr;
    if (nr > DENSE_MAX)
        return 1; /* too large to factor whole: a numerical failure */
    if (!ne->m)
        ne->m = malloc((nr * nr + 1) * sizeof *ne->m);
    if (!ne->piv)
        ne->piv = malloc((nr + 1) * sizeof *ne->piv);
    if (!ne->m || !ne->piv)
        return -1;
    memset(ne->m, 0, nr * nr * sizeof *ne->m);
    for (size_t j = 0; j < s->ncol; j++)
        for (size_t q1 = s->colptr[j]; q1 < s->colptr[j + 1]; q1++) {
            double w = d[j] * s->val[q1];
            double *row = ne->m + s->rowidx[q1] * nr;
            for (size_t q2 = s->colptr[j]; q2 < s->colptr[j + 1]; q2++)
                row[s->rowidx[q2]] += w * s->val[q2];
        }
    ne->is_lu = use_lu;
    return use_lu ? lu(ne->m, ne->piv, nr) : chol(ne->m, nr);
}

int ipm_ne_factor(struct ipm_ne *ne, const double *d, int use_lu)
{
    ne->is_lu = -1; /* structured */
    if (ne->structured && !use_lu)
        return factor_structured(ne, d);
    return factor_dense(ne, d, use_lu);
}

void ipm_ne_solve(struct ipm_ne *ne, double *r)
{
    size_t nr = ne->nr;
    if (ne->is_lu == 0) {
        tri(ne->m, nr, r, 1, 0);
        tri(ne->m, nr, r, 1, 1);
        return;
    }
    if (ne->is_lu == 1) {
        for (size_t j = 0; j < nr; j++) {
            double t = r[j];
            r[j] = r[ne->piv[j]], r[ne->piv[j]] = t;
        }
        for (size_t i = 0; i < nr; i++) /* L: unit lower */
            for (size_t q = 0; q < i; q++)
                r[i] -= ne->m[i * nr + q] * r[q];
        for (size_t i = nr; i-- > 0;) {
            for (size_t q = i + 1; q < nr; q++)
                r[i] -= ne->m[i * nr + q] * r[q];
            r[i] /= ne->m[i * nr + i];
        }
        return;
    }
    solve_structured(ne, r);
}
