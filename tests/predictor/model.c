/* model.c -- the whole network: its gradient against central differences
 * (with dropout on, its masks fixed by reseeding), and the CBLAS matrix
 * product against the naive reference, alone and inside the model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "nn_internal.h"

static const char *const levels[] = {"x", "y", "z"};
static const struct pred_feature feats[] = {{"n1", 0, NULL},
                                            {"c1", 3, levels},
                                            {"n2", 0, NULL},
                                            {"c2", 2, levels},
                                            {"n3", 0, NULL}};
static const struct pred_schema schema = {5, feats};

/* A small model of ARCH with random parameters and a batch of 4 rows. */
static struct pred_model *small_model(const struct pred_arch *arch, pfloat *y)
{
    char err[200];
    struct pred_model *m = pred_create(arch, &schema, 3, err, sizeof err);
    cr_assert(m, "%s", err);
    cr_assert_eq(pred_acts_reserve(m, 4), 0);
    pfloat x[20] = {0.5, 0, -1,  1, 0.2,  -0.3, 2,  0.8, 0, 1.5,
                    1.1, 1, 0.1, 1, -0.7, -1.4, -1, 0.6, 0, 0.3};
    memcpy(m->a.x, x, sizeof x);
    pfloat yy[4] = {0.4, -1.2, 0.9, 0.1};
    memcpy(y, yy, sizeof yy);
    return m;
}

static double model_loss(struct pred_model *m, const pfloat *y, int train)
{
    gsl_rng_set(m->rng, 5); /* the same dropout masks every time */
    pred_forward(m, 4, train);
    double l = 0;
    for (int i = 0; i < 4; i++)
        l += (m->a.y[i] - y[i]) * (m->a.y[i] - y[i]) / 4;
    return l;
}

static void model_gradcheck(const struct pred_arch *arch, int train)
{
    pfloat y[4];
    struct pred_model *m = small_model(arch, y);
    for (int i = 0; arch->linear_skip && i < m->nx; i++) /* not 0 */
        m->w.skip[i] = (pfloat)(0.3 * (i + 1) - 0.8);
    model_loss(m, y, train);
    for (int i = 0; i < 4; i++)
        m->da.y[i] = 2 * (m->a.y[i] - y[i]) / 4;
    memset(m->grads, 0, m->nparams * sizeof *m->grads);
    pred_backward(m, 4);
    double h = 1e-5;
    for (size_t i = 0; i < m->nparams; i++) {
        pfloat keep = m->params[i];
        m->params[i] = keep + h;
        double up = model_loss(m, y, train);
        m->params[i] = keep - h;
        double down = model_loss(m, y, train);
        m->params[i] = keep;
        double num = (up - down) / (2 * h), an = m->grads[i];
        double e = fabs(an - num) / fmax(fmax(fabs(an), fabs(num)), 1e-4);
        cr_assert_lt(e, 1e-6,
                     "%s parameter %zu: analytic %.12g, numeric "
                     "%.12g",
                     arch->name, i, an, num);
    }
    pred_destroy(m);
}

static struct pred_arch tiny(void)
{
    struct pred_arch a = {"tiny",
                          6,
                          3,
                          4,
                          2,
                          2,
                          3,
                          8,
                          0.3,
                          PRED_GRU_FIRST,
                          PRED_POOL_MEAN,
                          PRED_TOKENS_FEATURE,
                          0,
                          0};
    return a;
}

Test(gradcheck, whole_model_gru_first_with_dropout)
{
    struct pred_arch a = tiny();
    model_gradcheck(&a, 1);
}

Test(gradcheck, whole_model_attention_first_last_token)
{
    struct pred_arch a = tiny();
    a.order = PRED_ATTENTION_FIRST;
    a.pool = PRED_POOL_LAST;
    model_gradcheck(&a, 1);
}

Test(gradcheck, whole_model_presets_shapes_without_gru_or_attention)
{
    struct pred_arch a = tiny();
    a.gru_fwd = a.gru_bwd = 0;
    model_gradcheck(&a, 0);
    a = tiny();
    a.n_attn = 0;
    model_gradcheck(&a, 0);
}

/* Hu's Table 2 shape: one token whose channels are the features, blocks
 * without feed-forward or second norm, ReLU before the output dropout. */
Test(gradcheck, whole_model_hu2025_shape_in_both_orders)
{
    struct pred_arch a = tiny();
    a.tokens = PRED_TOKENS_ROW;
    a.d_ff = 0;
    a.head_relu = 1;
    model_gradcheck(&a, 1);
    a.order = PRED_ATTENTION_FIRST;
    model_gradcheck(&a, 1);
}

/* The linear path beside the network (linear_skip): its weights and,
 * through the shared output, every other parameter. */
Test(gradcheck, whole_model_with_the_linear_skip_path)
{
    struct pred_arch a = tiny();
    a.linear_skip = 1;
    model_gradcheck(&a, 1);
    a.tokens = PRED_TOKENS_ROW;
    a.d_ff = 0;
    a.head_relu = 1;
    model_gradcheck(&a, 1);
}

/* By hand: with the network's output weights zero, the output is
 * fc_b + v . x over the numeric features only (n1, n2, n3 of row 0:
 * 0.5, -1 and 0.2), whatever the categorical codes (weights 100). */
Test(model, linear_skip_adds_v_dot_the_numeric_features)
{
    struct pred_arch a = tiny();
    a.linear_skip = 1;
    pfloat y[4];
    struct pred_model *m = small_model(&a, y);
    memset(m->w.fc_w, 0, (size_t)m->p * sizeof *m->w.fc_w);
    m->w.fc_b[0] = (pfloat)0.25;
    pfloat v[5] = {2, 100, -3, 100, 0.5};
    memcpy(m->w.skip, v, sizeof v);
    pred_params_changed(m);
    pred_forward(m, 4, 0);
    double want = 0.25 + 2 * 0.5 - 3 * -1 + 0.5 * 0.2; /* 4.35 */
    cr_assert_float_eq(m->a.y[0], want, 1e-6, "%g", (double)m->a.y[0]);
    pred_destroy(m);
}

static void random_fill(pfloat *p, size_t n, gsl_rng *r)
{
    for (size_t i = 0; i < n; i++)
        p[i] = 2 * gsl_rng_uniform(r) - 1;
}

Test(kernels, cblas_product_matches_the_naive_reference_in_every_layout)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    /* Leading dimensions wider than the rows. */
    int m = 27, n = 25, k = 19, ld = 31;
    static pfloat a[31 * 31], b[31 * 31], c1[27 * 31], c2[27 * 31];
    for (int ta = 0; ta < 2; ta++) {
        for (int tb = 0; tb < 2; tb++) {
            random_fill(a, 31 * 31, r);
            random_fill(b, 31 * 31, r);
            random_fill(c1, 27 * 31, r);
            memcpy(c2, c1, sizeof c1);
            pred_gemm(ta, tb, m, n, k, 0.7, a, ld, b, ld, 0.3, c1, ld);
            pred_gemm_naive(ta, tb, m, n, k, 0.7, a, ld, b, ld, 0.3, c2, ld);
            for (int i = 0; i < 27 * 31; i++)
                cr_assert_float_eq(c1[i], c2[i], 1e-13, "ta %d tb %d [%d]", ta,
                                   tb, i);
        }
    }
    gsl_rng_free(r);
}

Test(kernels, model_forward_and_backward_agree_with_the_naive_kernels)
{
    struct pred_arch a = tiny();
    pfloat y[4];
    struct pred_model *m = small_model(&a, y);
    double out[2][4];
    pfloat *g[2];
    for (int naive = 0; naive < 2; naive++) {
        pred_naive_kernels = naive;
        model_loss(m, y, 1);
        for (int i = 0; i < 4; i++) {
            out[naive][i] = m->a.y[i];
            m->da.y[i] = 2 * (m->a.y[i] - y[i]) / 4;
        }
        memset(m->grads, 0, m->nparams * sizeof *m->grads);
        pred_backward(m, 4);
        g[naive] = malloc(m->nparams * sizeof *g[naive]);
        memcpy(g[naive], m->grads, m->nparams * sizeof *m->grads);
    }
    pred_naive_kernels = 0;
    for (int i = 0; i < 4; i++)
        cr_assert_float_eq(out[0][i], out[1][i], 1e-12);
    for (size_t i = 0; i < m->nparams; i++)
        cr_assert_float_eq(g[0][i], g[1][i], 1e-12, "grad %zu", i);
    free(g[0]);
    free(g[1]);
    pred_destroy(m);
}
