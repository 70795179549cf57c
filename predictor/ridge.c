/* ridge.c -- ridge regression through GSL: categorical columns one-hot,
 * every expanded column standardized on the training rows, the target
 * centred (so the intercept is not penalized), then
 *     (Z'Z + lambda I) beta = Z'y
 * solved by Cholesky. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>

#include "tabular_internal.h"

size_t ridge_width(const struct pred_schema *s)
{
    size_t w = 0;
    for (int k = 0; k < s->nfeat; k++)
        w += s->feat[k].nlevels > 0 ? (size_t)s->feat[k].nlevels : 1;
    return w;
}

/* Row X expanded into OUT (ncols values), not yet standardized. */
static void expand(const struct pred_schema *s, const double *x, double *out)
{
    size_t c = 0;
    for (int k = 0; k < s->nfeat; k++) {
        int nl = s->feat[k].nlevels;
        if (nl == 0) {
            out[c++] = x[k];
            continue;
        }
        for (int l = 0; l < nl; l++)
            out[c + (size_t)l] = x[k] == l ? 1.0 : 0.0;
        c += (size_t)nl;
    }
}

int ridge_fit(struct pred_base *b, const double *x, const double *z, size_t n,
              char *err, size_t errlen)
{
    size_t w = ridge_width(&b->schema), nf = (size_t)b->schema.nfeat;
    b->ncols = w;
    b->col_mean = calloc(3 * w, sizeof *b->col_mean);
    gsl_matrix *zm = gsl_matrix_alloc(n, w), *a = gsl_matrix_alloc(w, w);
    gsl_vector *rhs = gsl_vector_alloc(w), *beta = gsl_vector_alloc(w);
    gsl_vector_const_view zy = gsl_vector_const_view_array(z, n);
    int rc = -1;
    if (!b->col_mean || !zm || !a || !rhs || !beta) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    b->col_sd = b->col_mean + w;
    b->coef = b->col_mean + 2 * w;
    for (size_t i = 0; i < n; i++)
        expand(&b->schema, x + i * nf, zm->data + i * zm->tda);
    for (size_t c = 0; c < w; c++) {
        struct pred_scaler sc;
        if (pred_scaler_fit(&sc, zm->data + c, n, zm->tda) < 0) {
            snprintf(err, errlen, "a feature value is not finite");
            goto done;
        }
        pred_scaler_apply(&sc, zm->data + c, n, zm->tda);
        b->col_mean[c] = sc.mean;
        b->col_sd[c] = sc.sd;
    }
    gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0, zm, 0.0, a);
    for (size_t c = 0; c < w; c++)
        *gsl_matrix_ptr(a, c, c) += b->p.lambda;
    gsl_blas_dgemv(CblasTrans, 1.0, zm, &zy.vector, 0.0, rhs);
    if (gsl_linalg_cholesky_decomp1(a) != 0 ||
        gsl_linalg_cholesky_solve(a, rhs, beta) != 0) {
        snprintf(err, errlen,
                 "ridge: the system is singular (lambda %g); "
                 "use a larger lambda",
                 b->p.lambda);
        goto done;
    }
    for (size_t c = 0; c < w; c++)
        b->coef[c] = gsl_vector_get(beta, c);
    rc = 0;
done:
    gsl_matrix_free(zm);
    gsl_matrix_free(a);
    gsl_vector_free(rhs);
    gsl_vector_free(beta);
    return rc;
}

void ridge_predict(const struct pred_base *b, const double *x, size_t n,
                   double *out)
{
    size_t nf = (size_t)b->schema.nfeat;
    double buf[PRED_MAX_FEATURES * 8], *row = buf;
    if (b->ncols > sizeof buf / sizeof buf[0])
        row = malloc(b->ncols * sizeof *row);
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        if (!row) {
            out[i] = NAN;
            continue;
        }
        expand(&b->schema, x + i * nf, row);
        for (size_t c = 0; c < b->ncols; c++)
            s += b->coef[c] * (row[c] - b->col_mean[c]) / b->col_sd[c];
        out[i] = s;
    }
    if (row != buf)
        free(row);
}
