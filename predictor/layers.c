/* layers.c -- the matrix product (CBLAS and a naive reference) and the
 * simple layers: linear, layer norm, ReLU, dropout, token embedding and
 * pooling. Every backward adds into its gradients. */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "nn_internal.h"

int pred_naive_kernels = 0;

void pred_gemm_naive(int trans_a, int trans_b, int m, int n, int k,
                     pfloat alpha, const pfloat *a, int lda, const pfloat *b,
                     int ldb, pfloat beta, pfloat *c, int ldc)
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < k; l++) {
                pfloat av = trans_a ? a[l * lda + i] : a[i * lda + l];
                pfloat bv = trans_b ? b[j * ldb + l] : b[l * ldb + j];
                s += (double)av * (double)bv;
            }
            pfloat *cij = &c[i * ldc + j];
            /* beta 0 ignores C, as BLAS does (C may hold garbage). */
            *cij = (pfloat)(alpha * s + (beta == 0 ? 0 : beta * *cij));
        }
    }
}

void pred_gemm(int trans_a, int trans_b, int m, int n, int k, pfloat alpha,
               const pfloat *a, int lda, const pfloat *b, int ldb, pfloat beta,
               pfloat *c, int ldc)
{
    if (m == 0 || n == 0)
        return;
    if (pred_naive_kernels) {
        pred_gemm_naive(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta,
                        c, ldc);
        return;
    }
    enum CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;
#ifdef PRED_F64
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
#else
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
#endif
}

void pred_linear_forward(pfloat *out, const pfloat *inp, const pfloat *w,
                         const pfloat *b, int n, int ic, int oc)
{
    /* The bias first, then the product added to it: BLAS would otherwise
     * clear OUT (beta 0) only for the bias to be added in another pass. */
    if (b)
        for (int i = 0; i < n; i++)
            memcpy(out + (size_t)i * (size_t)oc, b, (size_t)oc * sizeof *out);
    pred_gemm(0, 0, n, oc, ic, 1, inp, ic, w, oc, b ? 1 : 0, out, oc);
}

void pred_linear_backward(pfloat *dinp, pfloat *dw, pfloat *db,
                          const pfloat *dout, const pfloat *inp,
                          const pfloat *w, int n, int ic, int oc)
{
    if (dinp) /* dinp (N, IC) += dout (N, OC) w^T */
        pred_gemm(0, 1, n, ic, oc, 1, dout, oc, w, oc, 1, dinp, ic);
    /* dw (IC, OC) += inp^T dout */
    pred_gemm(1, 0, ic, oc, n, 1, inp, ic, dout, oc, 1, dw, oc);
    if (db)
        for (int i = 0; i < n; i++)
            for (int o = 0; o < oc; o++)
                db[o] += dout[i * oc + o];
}

/* The sums of a row go over four interleaved partial sums in double: a
 * fixed order (the same bits every run) whose four chains of additions
 * run side by side, where one chain would wait on each addition. */
#define LN_LANES 4
static double lanes_total(const double *s)
{
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void pred_layernorm_forward(pfloat *out, pfloat *mean, pfloat *rstd,
                            const pfloat *inp, const pfloat *g, const pfloat *b,
                            int n, int c)
{
    int c4 = c - c % LN_LANES;
    for (int i = 0; i < n; i++) {
        const pfloat *x = inp + (size_t)i * (size_t)c;
        double s[LN_LANES] = {0}, v[LN_LANES] = {0};
        for (int j = 0; j < c4; j += LN_LANES)
            for (int u = 0; u < LN_LANES; u++)
                s[u] += x[j + u];
        for (int j = c4; j < c; j++)
            s[0] += x[j];
        double mu = lanes_total(s) / c;
        for (int j = 0; j < c4; j += LN_LANES)
            for (int u = 0; u < LN_LANES; u++)
                v[u] += (x[j + u] - mu) * (x[j + u] - mu);
        for (int j = c4; j < c; j++)
            v[0] += (x[j] - mu) * (x[j] - mu);
        double var = lanes_total(v) / c;
        pfloat m = (pfloat)mu, rs = (pfloat)(1.0 / sqrt(var + 1e-5));
        pfloat *o = out + (size_t)i * (size_t)c;
        for (int j = 0; j < c; j++)
            o[j] = (x[j] - m) * rs * g[j] + b[j];
        mean[i] = m;
        rstd[i] = rs;
    }
}

/* The gradients of one row, once its two means A and BX are known.
 * RESTRICT (the gradients, the row and the weights never overlap) lets the
 * compiler vectorize the loop, which it otherwise keeps scalar for the
 * many overlaps it would have to check. */
static void layernorm_backward_row(pfloat *restrict dx, pfloat *restrict dg,
                                   pfloat *restrict db,
                                   const pfloat *restrict x,
                                   const pfloat *restrict d,
                                   const pfloat *restrict g, pfloat m,
                                   pfloat rs, pfloat a, pfloat bx, int c)
{
    for (int j = 0; j < c; j++) {
        pfloat xh = (x[j] - m) * rs;
        db[j] += d[j];
        dg[j] += xh * d[j];
        dx[j] += rs * (g[j] * d[j] - a - xh * bx);
    }
}

void pred_layernorm_backward(pfloat *dinp, pfloat *dg, pfloat *db,
                             const pfloat *dout, const pfloat *inp,
                             const pfloat *g, const pfloat *mean,
                             const pfloat *rstd, int n, int c)
{
    for (int i = 0; i < n; i++) {
        size_t o = (size_t)i * (size_t)c;
        const pfloat *x = inp + o, *d = dout + o;
        pfloat m = mean[i], rs = rstd[i], *dx = dinp + o;
        /* dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)) */
        double s[LN_LANES] = {0}, sx[LN_LANES] = {0};
        int c4 = c - c % LN_LANES;
        for (int j = 0; j < c4; j += LN_LANES) {
            for (int u = 0; u < LN_LANES; u++) {
                pfloat xh = (x[j + u] - m) * rs, dn = g[j + u] * d[j + u];
                s[u] += dn;
                sx[u] += dn * xh;
            }
        }
        for (int j = c4; j < c; j++) {
            pfloat xh = (x[j] - m) * rs, dn = g[j] * d[j];
            s[0] += dn;
            sx[0] += dn * xh;
        }
        pfloat a = (pfloat)(lanes_total(s) / c);
        pfloat bx = (pfloat)(lanes_total(sx) / c);
        layernorm_backward_row(dx, dg, db, x, d, g, m, rs, a, bx, c);
    }
}

void pred_relu_forward(pfloat *out, const pfloat *inp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] > 0 ? inp[i] : 0;
}

void pred_relu_backward(pfloat *dinp, const pfloat *dout, const pfloat *out,
                        size_t n)
{
    /* A mask, not a branch (half the signs are random, mispredicted), so
     * that the loop vectorizes. */
    for (size_t i = 0; i < n; i++)
        dinp[i] += dout[i] * (pfloat)(out[i] > 0);
}

void pred_dropout_forward(pfloat *out, pfloat *mask, const pfloat *inp,
                          size_t n, double p, gsl_rng *rng)
{
    pfloat keep = p > 0 && rng ? (pfloat)(1.0 / (1.0 - p)) : 1;
    for (size_t i = 0; i < n; i++)
        mask[i] = keep;
    /* Each element is dropped with probability p, independently: the gap
     * before the next dropped one is geometric, P(gap >= g) = (1-p)^g, and
     * floor(log U / log(1-p)) draws it from one uniform. One draw per
     * dropped element instead of one per element (100 times fewer at
     * seed000's p = 0.01). */
    double lq = p > 0 && rng ? log1p(-p) : 0;
    for (size_t i = 0; lq < 0;) {
        double gap = floor(log(gsl_rng_uniform_pos(rng)) / lq);
        if (gap >= (double)(n - i))
            break;
        i += (size_t)gap;
        mask[i++] = 0;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] * mask[i];
}

void pred_dropout_backward(pfloat *dinp, const pfloat *dout, const pfloat *mask,
                           size_t n)
{
    for (size_t i = 0; i < n; i++)
        dinp[i] += dout[i] * mask[i];
}

/* The level code of value V, or -1 when outside [0, NLEV). */
static int level_code(pfloat v, int nlev)
{
    if (!(v >= 0) || v >= (pfloat)nlev)
        return -1;
    return (int)v;
}

void pred_embed_forward(pfloat *out, const pfloat *x, const int *kind,
                        const int *nlevels, const pfloat *w, const pfloat *b,
                        const pfloat *emb, const pfloat *pos, int bsz, int t,
                        int c)
{
    for (int r = 0; r < bsz; r++) {
        for (int i = 0; i < t; i++) {
            pfloat *o = out + ((size_t)r * (size_t)t + (size_t)i) * (size_t)c;
            pfloat v = x[r * t + i];
            const pfloat *p = pos + (size_t)i * (size_t)c;
            if (kind[i] >= 0) {
                const pfloat *wi = w + (size_t)kind[i] * (size_t)c;
                const pfloat *bi = b + (size_t)kind[i] * (size_t)c;
                for (int j = 0; j < c; j++)
                    o[j] = v * wi[j] + bi[j] + p[j];
                continue;
            }
            int code = level_code(v, nlevels[i]);
            const pfloat *e =
                code < 0 ? NULL
                         : emb + (size_t)(-1 - kind[i] + code) * (size_t)c;
            for (int j = 0; j < c; j++)
                o[j] = (e ? e[j] : 0) + p[j];
        }
    }
}

void pred_embed_backward(pfloat *dw, pfloat *db, pfloat *demb, pfloat *dpos,
                         const pfloat *dout, const pfloat *x, const int *kind,
                         const int *nlevels, int bsz, int t, int c)
{
    for (int r = 0; r < bsz; r++) {
        for (int i = 0; i < t; i++) {
            const pfloat *d =
                dout + ((size_t)r * (size_t)t + (size_t)i) * (size_t)c;
            pfloat v = x[r * t + i];
            pfloat *dp = dpos + (size_t)i * (size_t)c;
            pfloat *target = NULL, *tb = NULL;
            if (kind[i] >= 0) {
                target = dw + (size_t)kind[i] * (size_t)c;
                tb = db + (size_t)kind[i] * (size_t)c;
            } else {
                int code = level_code(v, nlevels[i]);
                if (code >= 0)
                    tb = demb + (size_t)(-1 - kind[i] + code) * (size_t)c;
            }
            for (int j = 0; j < c; j++) {
                dp[j] += d[j];
                if (target)
                    target[j] += d[j] * v;
                if (tb)
                    tb[j] += d[j];
            }
        }
    }
}

void pred_pool_forward(pfloat *out, const pfloat *inp, int bsz, int t, int c,
                       enum pred_pool pool)
{
    for (int r = 0; r < bsz; r++) {
        pfloat *o = out + (size_t)r * (size_t)c;
        const pfloat *x = inp + (size_t)r * (size_t)t * (size_t)c;
        if (pool == PRED_POOL_LAST) {
            memcpy(o, x + (size_t)(t - 1) * (size_t)c, (size_t)c * sizeof *o);
            continue;
        }
        for (int j = 0; j < c; j++) {
            double s = 0;
            for (int i = 0; i < t; i++)
                s += x[(size_t)i * (size_t)c + (size_t)j];
            o[j] = (pfloat)(s / t);
        }
    }
}

void pred_pool_backward(pfloat *dinp, const pfloat *dout, int bsz, int t, int c,
                        enum pred_pool pool)
{
    for (int r = 0; r < bsz; r++) {
        const pfloat *d = dout + (size_t)r * (size_t)c;
        pfloat *dx = dinp + (size_t)r * (size_t)t * (size_t)c;
        for (int i = 0; i < t; i++) {
            if (pool == PRED_POOL_LAST && i != t - 1)
                continue;
            pfloat scale = pool == PRED_POOL_LAST ? 1 : (pfloat)1 / (pfloat)t;
            for (int j = 0; j < c; j++)
                dx[(size_t)i * (size_t)c + (size_t)j] += d[j] * scale;
        }
    }
}
