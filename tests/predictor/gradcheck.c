/* gradcheck.c -- every layer's backward and the whole model's against
 * central differences, in double. The loss of a layer is sum(out * R)
 * for a fixed random R, so its output gradient is R. The relative error
 * is |analytic - numeric| / max(|analytic|, |numeric|, 1e-4): with steps
 * of 1e-5 the differences carry about 1e-11 of rounding, so gradients
 * below 1e-4 are compared at that absolute scale. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "nn_internal.h"

#define STEP 1e-5
#define MAX_VARS 8

enum layer {
    L_LINEAR,
    L_LAYERNORM,
    L_RELU,
    L_DROPOUT,
    L_EMBED,
    L_GRU,
    L_ATTENTION,
    L_POOL
};

struct gc {
    enum layer kind;
    int n, a, b, c, d; /* sizes, by layer */
    int flag;          /* GRU: reverse; pool: mode */
    pfloat *in[MAX_VARS], *grad[MAX_VARS];
    size_t len[MAX_VARS];
    int nvars, ndiff; /* the first NDIFF variables are differentiated */
    pfloat *out, *r, *s1, *s2, *s3, *s4;
    size_t nout;
    int kind_of[4], nlev[4];
    gsl_rng *rng;
};

static pfloat *vec(size_t n, gsl_rng *r, double lo, double hi)
{
    pfloat *p = calloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; r && i < n; i++)
        p[i] = lo + (hi - lo) * gsl_rng_uniform(r);
    return p;
}

static void add_var(struct gc *g, size_t n, double lo, double hi)
{
    g->in[g->nvars] = vec(n, g->rng, lo, hi);
    g->grad[g->nvars] = vec(n, NULL, 0, 0);
    g->len[g->nvars++] = n;
}

static void forward(struct gc *g)
{
    pfloat **v = g->in;
    switch (g->kind) {
    case L_LINEAR:
        pred_linear_forward(g->out, v[0], v[1], v[2], g->n, g->a, g->b);
        break;
    case L_LAYERNORM:
        pred_layernorm_forward(g->out, g->s1, g->s2, v[0], v[1], v[2], g->n,
                               g->a);
        break;
    case L_RELU: pred_relu_forward(g->out, v[0], g->nout); break;
    case L_DROPOUT:
        gsl_rng_set(g->rng, 11); /* the same mask every time */
        pred_dropout_forward(g->out, g->s1, v[0], g->nout, 0.4, g->rng);
        break;
    case L_EMBED:
        pred_embed_forward(g->out, v[4], g->kind_of, g->nlev, v[0], v[1], v[2],
                           v[3], g->n, g->a, g->b);
        break;
    case L_GRU: {
        struct pred_gru_w w = {v[1], v[2], v[3], v[4]};
        pred_gru_forward(g->out, g->s1, g->s2, g->s3, v[0], &w, g->n, g->a,
                         g->b, g->c, g->flag);
        break;
    }
    case L_ATTENTION:
        pred_attention_forward(g->out, g->s1, v[0], g->n, g->a, g->b, g->c);
        break;
    case L_POOL:
        pred_pool_forward(g->out, v[0], g->n, g->a, g->b,
                          (enum pred_pool)g->flag);
        break;
    }
}

static void backward(struct gc *g)
{
    pfloat **v = g->in, **d = g->grad;
    switch (g->kind) {
    case L_LINEAR:
        pred_linear_backward(d[0], d[1], d[2], g->r, v[0], v[1], g->n, g->a,
                             g->b);
        break;
    case L_LAYERNORM:
        pred_layernorm_backward(d[0], d[1], d[2], g->r, v[0], v[1], g->s1,
                                g->s2, g->n, g->a);
        break;
    case L_RELU: pred_relu_backward(d[0], g->r, g->out, g->nout); break;
    case L_DROPOUT: pred_dropout_backward(d[0], g->r, g->s1, g->nout); break;
    case L_EMBED:
        pred_embed_backward(d[0], d[1], d[2], d[3], g->r, v[4], g->kind_of,
                            g->nlev, g->n, g->a, g->b);
        break;
    case L_GRU: {
        struct pred_gru_w w = {v[1], v[2], v[3], v[4]};
        struct pred_gru_dw dw = {d[1], d[2], d[3], d[4]};
        pred_gru_backward(d[0], &dw, g->r, g->out, g->s2, g->s3, v[0], &w,
                          g->s4, g->n, g->a, g->b, g->c, g->flag);
        break;
    }
    case L_ATTENTION:
        pred_attention_backward(d[0], g->r, v[0], g->s1, g->s2, g->n, g->a,
                                g->b, g->c);
        break;
    case L_POOL:
        pred_pool_backward(d[0], g->r, g->n, g->a, g->b,
                           (enum pred_pool)g->flag);
        break;
    }
}

static double loss(struct gc *g)
{
    forward(g);
    double s = 0;
    for (size_t i = 0; i < g->nout; i++)
        s += g->out[i] * g->r[i];
    return s;
}

static double rel_err(double a, double n)
{
    return fabs(a - n) / fmax(fmax(fabs(a), fabs(n)), 1e-4);
}

/* Runs the check on G, which it then frees. */
static void check(struct gc *g, const char *what)
{
    g->r = vec(g->nout, g->rng, -1, 1);
    forward(g);
    backward(g);
    double worst = 0;
    for (int k = 0; k < g->ndiff; k++) {
        for (size_t i = 0; i < g->len[k]; i++) {
            pfloat keep = g->in[k][i];
            g->in[k][i] = keep + STEP;
            double up = loss(g);
            g->in[k][i] = keep - STEP;
            double down = loss(g);
            g->in[k][i] = keep;
            double e = rel_err(g->grad[k][i], (up - down) / (2 * STEP));
            worst = fmax(worst, e);
            cr_assert_lt(e, 1e-6,
                         "%s: variable %d [%zu]: analytic %.12g, "
                         "numeric %.12g",
                         what, k, i, g->grad[k][i], (up - down) / (2 * STEP));
        }
    }
    cr_assert_gt(worst, 0, "%s: nothing was compared", what);
    for (int k = 0; k < g->nvars; k++) {
        free(g->in[k]);
        free(g->grad[k]);
    }
    free(g->out), free(g->r), free(g->s1), free(g->s2), free(g->s3);
    free(g->s4);
    gsl_rng_free(g->rng);
}

static struct gc start(enum layer kind, size_t nout, unsigned long seed)
{
    struct gc g = {.kind = kind, .nout = nout};
    g.rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g.rng, seed);
    g.out = vec(nout, NULL, 0, 0);
    return g;
}

Test(gradcheck, linear_layer)
{
    struct gc g = start(L_LINEAR, 4 * 5, 1);
    g.n = 4, g.a = 3, g.b = 5;
    add_var(&g, 4 * 3, -1, 1);
    add_var(&g, 5 * 3, -1, 1);
    add_var(&g, 5, -1, 1);
    g.ndiff = 3;
    check(&g, "linear");
}

Test(gradcheck, layer_norm)
{
    struct gc g = start(L_LAYERNORM, 3 * 6, 2);
    g.n = 3, g.a = 6;
    add_var(&g, 3 * 6, -2, 2);
    add_var(&g, 6, 0.5, 1.5);
    add_var(&g, 6, -1, 1);
    g.ndiff = 3;
    g.s1 = vec(3, NULL, 0, 0), g.s2 = vec(3, NULL, 0, 0);
    check(&g, "layernorm");
}

Test(gradcheck, relu_away_from_its_kink)
{
    struct gc g = start(L_RELU, 40, 3);
    add_var(&g, 40, -1, 1);
    for (int i = 0; i < 40; i++) /* keep |x| >= 0.1 */
        g.in[0][i] += g.in[0][i] < 0 ? -0.1 : 0.1;
    g.ndiff = 1;
    check(&g, "relu");
}

Test(gradcheck, dropout_with_a_fixed_mask)
{
    struct gc g = start(L_DROPOUT, 40, 4);
    add_var(&g, 40, -1, 1);
    g.ndiff = 1;
    g.s1 = vec(40, NULL, 0, 0);
    check(&g, "dropout");
}

Test(gradcheck, token_embedding_numeric_and_categorical)
{
    /* 3 rows of 4 features: numeric, 3 levels, numeric, 2 levels. */
    struct gc g = start(L_EMBED, 3 * 4 * 5, 5);
    g.n = 3, g.a = 4, g.b = 5;
    int kinds[4] = {0, -1, 1, -4}, nlev[4] = {0, 3, 0, 2};
    memcpy(g.kind_of, kinds, sizeof kinds);
    memcpy(g.nlev, nlev, sizeof nlev);
    add_var(&g, 2 * 5, -1, 1); /* w */
    add_var(&g, 2 * 5, -1, 1); /* b */
    add_var(&g, 5 * 5, -1, 1); /* level embeddings */
    add_var(&g, 4 * 5, -1, 1); /* positions */
    g.ndiff = 4;
    pfloat x[12] = {0.3, 2, -1.2, 1, 0.7, 0, 0.1, 0, -0.4, 1, 2.2, 1};
    add_var(&g, 12, 0, 0);
    memcpy(g.in[4], x, sizeof x);
    check(&g, "embed");
}

static void gru_check(int reverse)
{
    int b = 3, t = 4, c = 5, h = 3;
    struct gc g = start(L_GRU, (size_t)(b * t * h), 6 + (unsigned)reverse);
    g.n = b, g.a = t, g.b = c, g.c = h, g.flag = reverse;
    add_var(&g, (size_t)(b * t * c), -1, 1);
    add_var(&g, (size_t)(3 * h * c), -0.6, 0.6);
    add_var(&g, (size_t)(3 * h * h), -0.6, 0.6);
    add_var(&g, (size_t)(3 * h), -0.6, 0.6);
    add_var(&g, (size_t)(3 * h), -0.6, 0.6);
    g.ndiff = 5;
    size_t n3 = (size_t)(b * t * 3 * h);
    g.s1 = vec(n3, NULL, 0, 0), g.s2 = vec(n3, NULL, 0, 0);
    g.s3 = vec(n3, NULL, 0, 0);
    g.s4 = vec((size_t)(b * (3 * h * t + 5 * h)), NULL, 0, 0);
    check(&g, reverse ? "gru backward direction" : "gru forward direction");
}

Test(gradcheck, gru_forward_direction)
{
    gru_check(0);
}
Test(gradcheck, gru_reading_the_flipped_sequence)
{
    gru_check(1);
}

Test(gradcheck, self_attention_core)
{
    int b = 2, t = 4, nh = 2, hd = 3;
    struct gc g = start(L_ATTENTION, (size_t)(b * t * nh * hd), 8);
    g.n = b, g.a = t, g.b = nh, g.c = hd;
    add_var(&g, (size_t)(b * t * 3 * nh * hd), -1.5, 1.5);
    g.ndiff = 1;
    g.s1 = vec((size_t)(b * nh * t * t), NULL, 0, 0);
    g.s2 = vec((size_t)(t * t), NULL, 0, 0);
    check(&g, "attention");
}

static void pool_check(enum pred_pool mode)
{
    struct gc g = start(L_POOL, 3 * 4, 9);
    g.n = 3, g.a = 5, g.b = 4, g.flag = (int)mode;
    add_var(&g, 3 * 5 * 4, -1, 1);
    g.ndiff = 1;
    check(&g, "pool");
}

Test(gradcheck, mean_pooling)
{
    pool_check(PRED_POOL_MEAN);
}
Test(gradcheck, last_token_pooling)
{
    pool_check(PRED_POOL_LAST);
}
