/* recipe.c -- the training recipe: batch and step budget from the table's
 * size, the learning-rate schedules against values computed by hand, the
 * weight-decay mask against a hand count of the weight matrices, early
 * stopping's record, and checkpoints of the earlier version 2 still read. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "nn_internal.h"

Test(recipe, batch_follows_the_table_size_within_16_and_256)
{
    struct pred_train_opts o;
    pred_train_recipe(&o, 200); /* 200 / 8 = 25: 16 (32 > 25) */
    cr_assert_eq(o.batch, 16);
    cr_assert_eq(o.steps, 4000);
    cr_assert_eq(o.schedule, PRED_SCHED_COSINE);
    cr_assert_float_eq(o.val_frac, 0, 1e-15); /* every row fitted */
    cr_assert_float_eq(o.l2, 0, 1e-15);
    pred_train_recipe(&o, 2000); /* 250: 128 */
    cr_assert_eq(o.batch, 128);
    pred_train_recipe(&o, 20000); /* 2500: capped at 256 */
    cr_assert_eq(o.batch, 256);
    pred_train_recipe(&o, 10);
    cr_assert_eq(o.batch, 16);
}

Test(recipe, epochs_cover_the_step_budget)
{
    struct pred_train_opts o;
    pred_train_recipe(&o, 200);
    /* 200 fitted rows, ceil(200 / 16) = 13 batches an epoch, 4000 steps:
     * ceil(4000 / 13) = 308 epochs. */
    cr_assert_eq(pred_train_epochs(&o, 200), 308);
    /* 15 % validate: 170 fitted rows, 11 batches: ceil(4000 / 11) = 364. */
    o.val_frac = 0.15;
    cr_assert_eq(pred_train_epochs(&o, 200), 364);
    pred_train_defaults(&o);
    cr_assert_eq(pred_train_epochs(&o, 200), 200);
}

Test(recipe, cosine_schedule_warms_up_then_decays_to_lr_min)
{
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.schedule = PRED_SCHED_COSINE;
    o.lr = 1;
    o.warmup = 10;
    o.lr_min = 0.1;
    /* 111 steps: 10 of warm-up, then 101 over which the cosine runs
     * from 0 to pi, (s - 10) / 100 of the way at step s. */
    cr_assert_float_eq(pred_lr_at(&o, 0, 111, 0), 0.1, 1e-15);
    cr_assert_float_eq(pred_lr_at(&o, 4, 111, 0), 0.5, 1e-15);
    cr_assert_float_eq(pred_lr_at(&o, 10, 111, 0), 1, 1e-15);
    cr_assert_float_eq(pred_lr_at(&o, 60, 111, 0), 0.55, 1e-15);
    cr_assert_float_eq(pred_lr_at(&o, 110, 111, 0), 0.1, 1e-15);
    /* a quarter of the way: 0.1 + 0.45 (1 + cos(pi / 4)) */
    cr_assert_float_eq(pred_lr_at(&o, 35, 111, 0), 0.1 + 0.45 * (1 + sqrt(0.5)),
                       1e-12);
    o.schedule = PRED_SCHED_STEP; /* Hu: by epoch */
    cr_assert_float_eq(pred_lr_at(&o, 5, 111, 79), 1, 1e-15);
    cr_assert_float_eq(pred_lr_at(&o, 5, 111, 80), 0.001, 1e-15);
}

static const char *const levels[] = {"x", "y", "z"};
static const struct pred_feature feats[] = {
    {"n1", 0, NULL}, {"c1", 3, levels}, {"n2", 0, NULL}};
static const struct pred_schema schema = {3, feats};

Test(recipe, weight_decay_reaches_weight_matrices_only)
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
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 1, err, sizeof err);
    cr_assert(m, "%s", err);
    cr_assert_eq(pred_decay_mask(m), 0);
    size_t n = 0;
    for (size_t i = 0; i < m->nparams; i++)
        n += m->decay[i];
    /* GRU input and recurrent matrices: 3*3*6 + 3*3*3 + 3*4*6 + 3*4*4 =
     * 201; two blocks of width 7 (the GRU's output), 6 attention
     * channels, feed-forward 8: 3*6*7 + 7*6 + 8*7 + 7*8 = 280 each; the
     * output vector 7. Not the embeddings, positions, biases, norms. */
    cr_assert_eq(n, 201 + 2 * 280 + 7);
    cr_assert_eq(m->decay[m->w.fc_w - m->params], 1);
    cr_assert_eq(m->decay[m->w.fc_b - m->params], 0);
    cr_assert_eq(m->decay[m->w.emb_cat - m->params], 0);
    cr_assert_eq(m->decay[m->w.blk[0].ln1g - m->params], 0);
    pred_destroy(m);
}

static void rows(double *x, double *y, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        x[r * 3] = (double)(r % 17) / 8 - 1;
        x[r * 3 + 1] = (double)(r % 3);
        x[r * 3 + 2] = (double)(r % 5) / 2 - 1;
        y[r] = 2 * x[r * 3] - x[r * 3 + 2] + (r % 3 == 1 ? 3 : 0);
    }
}

static struct pred_model *fit_small_skip(double val_frac, int patience,
                                         int skip)
{
    struct pred_arch a;
    cr_assert_eq(pred_arch_preset(&a, "bigru"), 0);
    a.linear_skip = skip;
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 2, err, sizeof err);
    double x[100 * 3], y[100];
    rows(x, y, 100);
    struct pred_train_opts o;
    pred_train_recipe(&o, 100);
    o.steps = 150;
    o.warmup = 10;
    o.val_frac = val_frac;
    o.patience = patience;
    cr_assert_eq(pred_fit(m, x, y, 100, &o, err, sizeof err), 0, "%s", err);
    return m;
}

static struct pred_model *fit_small(double val_frac, int patience)
{
    return fit_small_skip(val_frac, patience, 0);
}

Test(recipe, early_stopping_keeps_the_best_weights_and_records_them)
{
    struct pred_model *m = fit_small(0.2, 0);
    const struct pred_train_record *r = pred_model_record(m);
    cr_assert_eq(r->n_fit, 80);
    cr_assert_eq(r->n_val, 20);
    cr_assert_eq(r->steps_run, 150);
    cr_assert(r->best_step >= 1 && r->best_step <= 150);
    cr_assert(isfinite(r->val_mse) && r->val_mse >= 0);
    cr_assert_eq(r->opts.batch, 16);
    pred_destroy(m);
    m = fit_small(0, 0);
    r = pred_model_record(m);
    cr_assert_eq(r->n_val, 0);
    cr_assert(isnan(r->val_mse));
    cr_assert_eq(r->best_step, 150);
    pred_destroy(m);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* M and BACK (M saved and loaded) predict five rows bit for bit alike. */
static void assert_same_predictions(struct pred_model *m,
                                    struct pred_model *back)
{
    double x[5 * 3], y[5], p1[5], p2[5];
    rows(x, y, 5);
    cr_assert_eq(pred_predict(m, x, 5, p1, NULL, 0), 0);
    cr_assert_eq(pred_predict(back, x, 5, p2, NULL, 0), 0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(p1[i], p2[i]);
}

/* A version-2 file made from a version-3 one by hand: without the token
 * layout, the head flag and the training record (format in checkpoint.c),
 * with its hash recomputed. It loads and predicts the same. */
Test(checkpoint, reads_version_2_files_and_keeps_the_record_in_version_3)
{
    struct pred_model *m = fit_small(0.2, 0);
    char path[256];
    snprintf(path, sizeof path, "/tmp/hetsim-test-recipe-%ld.ckpt",
             (long)getpid());
    cr_assert_eq(pred_save(m, path, NULL, 0), 0);
    char err[300];
    struct pred_model *back = pred_load(path, err, sizeof err);
    cr_assert(back, "%s", err);
    const struct pred_train_record *r = pred_model_record(m),
                                   *rb = pred_model_record(back);
    cr_assert_eq(rb->best_step, r->best_step);
    cr_assert_eq(rb->opts.steps, 150);
    cr_assert_eq(rb->n_val, 20);
    cr_assert_float_eq(rb->val_mse, r->val_mse, 0);
    pred_destroy(back);
    FILE *f = fopen(path, "rb");
    unsigned char b[1 << 16];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    cr_assert_lt(n, sizeof b);
    /* magic 8, version 4, name "bigru" 4 + 5, 7 i32, f64, 2 i32: 65;
     * then tokens, head_relu (version 3) and linear_skip (4): 12 */
    size_t tok = 65, rec_len = 8 * 4 + 10 * 8 + 3 * 8 + 3 * 4 + 8;
    size_t rec = n - 8 - 8 * m->nparams - 8 - rec_len;
    unsigned char v2[1 << 16];
    size_t k = 0;
    memcpy(v2, b, tok);
    k = tok;
    memcpy(v2 + k, b + tok + 12, rec - tok - 12);
    k += rec - tok - 12;
    memcpy(v2 + k, b + rec + rec_len, n - 8 - rec - rec_len);
    k += n - 8 - rec - rec_len;
    v2[8] = 2;
    uint64_t h = fnv1a(v2, k);
    for (int i = 0; i < 8; i++)
        v2[k++] = (unsigned char)(h >> (8 * i));
    f = fopen(path, "wb");
    cr_assert_eq(fwrite(v2, 1, k, f), k);
    fclose(f);
    back = pred_load(path, err, sizeof err);
    cr_assert(back, "%s", err);
    cr_assert_eq(pred_model_record(back)->steps_run, 0);
    assert_same_predictions(m, back);
    remove(path);
    pred_destroy(back);
    pred_destroy(m);
}

/* A model with the linear path: trained (the path's weights move from 0),
 * saved and loaded, it keeps the flag and predicts the same. */
Test(checkpoint, keeps_the_linear_skip_path)
{
    struct pred_model *m = fit_small_skip(0, 0, 1);
    double moved = 0;
    for (int i = 0; i < m->nx; i++)
        moved += fabs((double)m->w.skip[i]);
    cr_assert_gt(moved, 0);
    char path[256];
    snprintf(path, sizeof path, "/tmp/hetsim-test-skip-%ld.ckpt",
             (long)getpid());
    cr_assert_eq(pred_save(m, path, NULL, 0), 0);
    char err[300];
    struct pred_model *back = pred_load(path, err, sizeof err);
    cr_assert(back, "%s", err);
    remove(path);
    cr_assert_eq(pred_model_arch(back)->linear_skip, 1);
    assert_same_predictions(m, back);
    pred_destroy(back);
    pred_destroy(m);
}
