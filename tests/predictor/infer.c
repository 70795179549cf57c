/* infer.c -- the inference path (predictor/infer.c: hand loops, attention's
 * projections folded into two products per head) against the batched
 * forward (forward.c, itself checked against PyTorch in fixture.c), on
 * random weights of every preset small enough for it, and its cache
 * dropped when the weights change. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "nn_internal.h"

static const char *const levels[] = {"x", "y", "z"};
static const struct pred_feature feats[] = {{"n1", 0, NULL},
                                            {"c1", 3, levels},
                                            {"n2", 0, NULL},
                                            {"c2", 2, levels},
                                            {"n3", 0, NULL}};
static const struct pred_schema schema = {5, feats};
static const pfloat rows[20] = {0.5, 0, -1,  1, 0.2,  -0.3, 2,  0.8, 0, 1.5,
                                1.1, 1, 0.1, 1, -0.7, -1.4, -1, 0.6, 0, 0.3};

/* The largest relative difference between the two paths on 4 rows. */
static double max_rel_diff(struct pred_model *m)
{
    cr_assert_eq(pred_acts_reserve(m, 4), 0);
    memcpy(m->a.x, rows, sizeof rows);
    pred_forward(m, 4, 0);
    pfloat ref[4];
    memcpy(ref, m->a.y, sizeof ref);
    memset(m->a.y, 0, sizeof ref);
    cr_assert_eq(pred_fast_forward(m, 4), 0, "the fast path applies");
    double worst = 0;
    for (int i = 0; i < 4; i++) {
        double d = fabs((double)m->a.y[i] - (double)ref[i]) /
                   (fabs((double)ref[i]) + 1e-3);
        worst = d > worst ? d : worst;
    }
    return worst;
}

static void check(const char *preset, enum pred_order order,
                  enum pred_pool pool)
{
    struct pred_arch a;
    cr_assert_eq(pred_arch_preset(&a, preset), 0);
    a.order = order;
    a.pool = pool;
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 7, err, sizeof err);
    cr_assert(m, "%s", err);
    double d = max_rel_diff(m);
    /* Double build: the folded products round differently, by ~1e-15. */
    cr_assert_lt(d, 1e-10, "%s order %d pool %d: %g", preset, (int)order,
                 (int)pool, d);
    /* New weights: the folded products are rebuilt. */
    for (size_t i = 0; i < m->nparams; i++)
        m->params[i] *= (pfloat)1.1;
    pred_params_changed(m);
    d = max_rel_diff(m);
    cr_assert_lt(d, 1e-10, "%s after a change of weights: %g", preset, d);
    pred_destroy(m);
}

Test(infer, presets_match_the_batched_forward)
{
    const char *p[] = {"tbigru", "hu2025", "transformer", "bigru"};
    for (int i = 0; i < 4; i++) {
        check(p[i], PRED_GRU_FIRST, PRED_POOL_MEAN);
        check(p[i], PRED_ATTENTION_FIRST, PRED_POOL_MEAN);
        check(p[i], PRED_GRU_FIRST, PRED_POOL_LAST);
    }
}

Test(infer, the_linear_skip_path_matches_the_batched_forward)
{
    struct pred_arch a;
    cr_assert_eq(pred_arch_preset(&a, "tbigru"), 0);
    a.linear_skip = 1;
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 7, err, sizeof err);
    cr_assert(m, "%s", err);
    for (int i = 0; i < m->nx; i++)
        m->w.skip[i] = (pfloat)(0.4 * i - 0.7);
    pred_params_changed(m);
    double d = max_rel_diff(m);
    cr_assert_lt(d, 1e-10, "%g", d);
    pred_destroy(m);
}

Test(infer, wide_models_keep_the_batched_path)
{
    /* Width 64 against 2 x 16 key channels: folding would cost more. */
    struct pred_arch a;
    pred_arch_preset(&a, "transformer");
    a.d_model = 64;
    a.head_dim = 16;
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 7, err, sizeof err);
    cr_assert(m, "%s", err);
    cr_assert_eq(pred_acts_reserve(m, 1), 0);
    cr_assert_eq(pred_fast_forward(m, 1), -1);
    pred_destroy(m);
}
