/* test_predictor.c -- the predictor module through its public API:
 * scaler (values by hand), presets (the papers' tables), training on a
 * function it can learn, determinism, checkpoints. Layers, gradients and
 * the PyTorch fixtures are in tests/predictor/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "predictor.h"

Test(scaler, fits_mean_and_population_sd_computed_by_hand)
{
    /* 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32,
     * population variance 4, sd 2. */
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, x, 8, 1), 0);
    cr_assert_float_eq(sc.mean, 5.0, 1e-15);
    cr_assert_float_eq(sc.sd, 2.0, 1e-15);
    pred_scaler_apply(&sc, x, 8, 1);
    cr_assert_float_eq(x[0], -1.5, 1e-15);
    cr_assert_float_eq(x[7], 2.0, 1e-15);
    pred_scaler_invert(&sc, x, 8, 1);
    cr_assert_float_eq(x[0], 2.0, 1e-15);
}

Test(scaler, reads_one_column_of_a_row_major_table)
{
    double rows[] = {1, 100, 3, 200, 5, 300}; /* column 1: 100, 200, 300 */
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, rows + 1, 3, 2), 0);
    cr_assert_float_eq(sc.mean, 200.0, 1e-12);
    cr_assert_float_eq(sc.sd, sqrt(20000.0 / 3.0), 1e-9);
}

Test(scaler, maps_a_constant_feature_to_zero)
{
    double x[] = {7, 7, 7};
    struct pred_scaler sc;
    cr_assert_eq(pred_scaler_fit(&sc, x, 3, 1), 0);
    cr_assert_eq(sc.sd, 1.0);
    pred_scaler_apply(&sc, x, 3, 1);
    cr_assert_eq(x[1], 0.0);
}

Test(scaler, refuses_empty_input_and_non_finite_values)
{
    struct pred_scaler sc;
    double x[] = {1, NAN};
    cr_assert_eq(pred_scaler_fit(&sc, x, 0, 1), -1);
    cr_assert_eq(pred_scaler_fit(&sc, x, 2, 1), -1);
}

/* ---- the model through its public API ---- */

static const char *const kinds[] = {"cnn", "rnn", "transformer"};
static const struct pred_feature feats[] = {
    {"size", 0, NULL}, {"family", 3, kinds}, {"batch", 0, NULL}};
static const struct pred_schema schema = {3, feats};

/* N rows of y = 2 size - batch + 3 [family = rnn] + 1, a function the
 * model can learn; families cycle, size and batch from a fixed LCG. */
static void synthetic(double *x, double *y, size_t n, unsigned seed)
{
    unsigned s = seed;
    for (size_t r = 0; r < n; r++) {
        s = s * 1103515245u + 12345u;
        double a = (double)(s >> 8 & 0xffff) / 65535.0 * 4 - 2;
        s = s * 1103515245u + 12345u;
        double b = (double)(s >> 8 & 0xffff) / 65535.0 * 4 - 2;
        int fam = (int)(r % 3);
        x[r * 3] = a;
        x[r * 3 + 1] = fam;
        x[r * 3 + 2] = b;
        y[r] = 2 * a - b + (fam == 1 ? 3 : 0) + 1;
    }
}

static struct pred_model *trained(const char *preset, unsigned long seed,
                                  int epochs, double *loss)
{
    struct pred_arch a;
    cr_assert_eq(pred_arch_preset(&a, preset), 0);
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, seed, err, sizeof err);
    cr_assert(m, "%s", err);
    double x[200 * 3], y[200];
    synthetic(x, y, 200, 7);
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.epochs = epochs;
    o.batch = 32;
    o.lr_drop_epoch = epochs * 2 / 3;
    o.seed = seed;
    o.loss_out = loss;
    cr_assert_eq(pred_fit(m, x, y, 200, &o, err, sizeof err), 0, "%s", err);
    return m;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "/tmp/hetsim-test-pred-%ld-%s", (long)getpid(), name);
}

Test(presets, follow_hu_table_2_and_wang_section_4)
{
    struct pred_arch a;
    cr_assert_eq(pred_arch_preset(&a, "seed000"), 0);
    cr_assert_eq(a.gru_fwd, 6);
    cr_assert_eq(a.gru_bwd, 10);
    cr_assert_eq(a.n_attn, 2);
    cr_assert_eq(a.n_heads, 4);
    cr_assert_eq(a.head_dim, 32);
    cr_assert_float_eq(a.dropout, 0.01, 1e-15);
    cr_assert_eq(pred_arch_preset(&a, "seed002"), 0);
    cr_assert_eq(a.n_attn, 6);
    cr_assert_eq(a.d_model, 512);
    cr_assert_eq(a.n_heads, 8);
    cr_assert_eq(a.gru_fwd, 256);
    cr_assert_float_eq(a.dropout, 0.1, 1e-15);
    cr_assert_eq(pred_arch_preset(&a, "transformer"), 0);
    cr_assert_eq(a.gru_fwd + a.gru_bwd, 0);
    cr_assert_eq(pred_arch_preset(&a, "bigru"), 0);
    cr_assert_eq(a.n_attn, 0);
    cr_assert_eq(pred_arch_preset(&a, "lstm"), -1);
    enum pred_order o;
    cr_assert_eq(pred_order_parse(&o, "attention-first"), 0);
    cr_assert_eq(o, PRED_ATTENTION_FIRST);
    cr_assert_eq(pred_order_parse(&o, "sideways"), -1);
}

Test(presets, training_defaults_are_hu_table_2)
{
    struct pred_train_opts o;
    pred_train_defaults(&o);
    cr_assert_eq(o.epochs, 200);
    cr_assert_eq(o.batch, 256);
    cr_assert_float_eq(o.lr, 0.01, 1e-15);
    cr_assert_float_eq(o.lr_after, 0.001, 1e-15);
    cr_assert_eq(o.lr_drop_epoch, 80);
    cr_assert_float_eq(o.l2, 0.001, 1e-15);
    cr_assert_float_eq(o.clip, 10, 1e-15);
}

Test(schema, maps_level_names_to_codes)
{
    cr_assert_eq(pred_schema_level(&schema, 1, "transformer"), 2);
    cr_assert_eq(pred_schema_level(&schema, 1, "gnn"), -1);
    cr_assert_eq(pred_schema_level(&schema, 0, "cnn"), -1);
    cr_assert_eq(pred_schema_level(&schema, 7, "cnn"), -1);
}

Test(model, training_reduces_the_loss_on_a_learnable_function)
{
    double loss[60];
    struct pred_model *m = trained("seed000", 1, 60, loss);
    /* The target's variance is 1 after standardization: a model that has
     * learnt nothing stays near 1. */
    cr_assert_gt(loss[0], 0.3);
    cr_assert_lt(loss[59], 0.05, "final loss %g", loss[59]);
    double x[50 * 3], y[50], p[50], ss = 0, var = 0, mean = 0;
    synthetic(x, y, 50, 99); /* rows not seen in training */
    cr_assert_eq(pred_predict(m, x, 50, p, NULL, 0), 0);
    for (int i = 0; i < 50; i++)
        mean += y[i] / 50;
    for (int i = 0; i < 50; i++) {
        ss += (p[i] - y[i]) * (p[i] - y[i]);
        var += (y[i] - mean) * (y[i] - mean);
    }
    cr_assert_gt(1 - ss / var, 0.9, "R2 %g on new rows", 1 - ss / var);
    pred_destroy(m);
}

Test(model, same_seed_gives_bit_identical_predictions)
{
    struct pred_model *a = trained("seed000", 4, 5, NULL);
    struct pred_model *b = trained("seed000", 4, 5, NULL);
    struct pred_model *c = trained("seed000", 5, 5, NULL);
    double x[10 * 3], y[10], pa[10], pb[10], pc[10];
    synthetic(x, y, 10, 3);
    pred_predict(a, x, 10, pa, NULL, 0);
    pred_predict(b, x, 10, pb, NULL, 0);
    pred_predict(c, x, 10, pc, NULL, 0);
    cr_assert_eq(memcmp(pa, pb, sizeof pa), 0);
    cr_assert_neq(memcmp(pa, pc, sizeof pa), 0);
    pred_destroy(a);
    pred_destroy(b);
    pred_destroy(c);
}

Test(model, batch_one_and_batched_predictions_agree)
{
    struct pred_model *m = trained("transformer", 2, 3, NULL);
    double x[300 * 3], y[300], all[300], one;
    synthetic(x, y, 300, 5); /* more rows than one predict chunk */
    cr_assert_eq(pred_predict(m, x, 300, all, NULL, 0), 0);
    for (int r = 0; r < 300; r += 37) {
        cr_assert_eq(pred_predict(m, x + r * 3, 1, &one, NULL, 0), 0);
        cr_assert_float_eq(one, all[r], 1e-12);
    }
    pred_destroy(m);
}

Test(model, unknown_level_and_bad_values)
{
    struct pred_model *m = trained("bigru", 2, 2, NULL);
    double row[3] = {0.5, -1, 0.2}, out;
    char err[200];
    cr_assert_eq(pred_predict(m, row, 1, &out, err, sizeof err), 0);
    cr_assert(isfinite(out));
    row[0] = NAN;
    cr_assert_eq(pred_predict(m, row, 1, &out, err, sizeof err), -1);
    cr_assert(strstr(err, "not finite"), "%s", err);
    double y[2] = {1, -2}, x[6] = {0, 0, 0, 1, 1, 1};
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.log_target = 1;
    cr_assert_eq(pred_fit(m, x, y, 2, &o, err, sizeof err), -1);
    cr_assert(strstr(err, "row 2") && strstr(err, "positive"), "%s", err);
    o.epochs = 0;
    cr_assert_eq(pred_fit(m, x, y, 2, &o, err, sizeof err), -1);
    pred_destroy(m);
    struct pred_arch a;
    pred_arch_preset(&a, "seed000");
    a.dropout = 1.5;
    cr_assert_null(pred_create(&a, &schema, 1, err, sizeof err));
    cr_assert(strstr(err, "dropout"), "%s", err);
}

Test(model, log_target_predicts_in_original_units)
{
    struct pred_arch a;
    pred_arch_preset(&a, "bigru");
    char err[200];
    struct pred_model *m = pred_create(&a, &schema, 1, err, sizeof err);
    double x[200 * 3], y[200];
    synthetic(x, y, 200, 7);
    for (int i = 0; i < 200; i++) /* positive, over three decades */
        y[i] = exp(y[i] / 2);
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.epochs = 40;
    o.batch = 32;
    o.log_target = 1;
    cr_assert_eq(pred_fit(m, x, y, 200, &o, err, sizeof err), 0, "%s", err);
    double p[200];
    pred_predict(m, x, 200, p, NULL, 0);
    double worst = 0;
    for (int i = 0; i < 200; i++)
        worst = fmax(worst, fabs(log(p[i] / y[i])));
    cr_assert_lt(worst, 1.0, "a prediction is off by a factor e^%g", worst);
    pred_destroy(m);
}

Test(checkpoint, round_trip_predicts_identically)
{
    struct pred_model *m = trained("seed000", 3, 3, NULL);
    char path[256], err[200];
    tmp_path(path, sizeof path, "rt.ckpt");
    cr_assert_eq(pred_save(m, path, err, sizeof err), 0, "%s", err);
    struct pred_model *l = pred_load(path, err, sizeof err);
    cr_assert(l, "%s", err);
    double x[20 * 3], y[20], p1[20], p2[20];
    synthetic(x, y, 20, 11);
    pred_predict(m, x, 20, p1, NULL, 0);
    pred_predict(l, x, 20, p2, NULL, 0);
    cr_assert_eq(memcmp(p1, p2, sizeof p1), 0);
    cr_assert_str_eq(pred_model_arch(l)->name, "seed000");
    cr_assert_eq(pred_model_arch(l)->gru_bwd, 10);
    cr_assert_eq(pred_param_count(l), pred_param_count(m));
    const struct pred_schema *s = pred_model_schema(l);
    cr_assert_eq(s->nfeat, 3);
    cr_assert_str_eq(s->feat[2].name, "batch");
    cr_assert_eq(pred_schema_level(s, 1, "rnn"), 1);
    pred_destroy(m);
    pred_destroy(l);
    remove(path);
}

/* Saves a model to PATH and returns the file's bytes (*N of them). */
static unsigned char *saved_bytes(const char *path, long *n)
{
    struct pred_model *m = trained("bigru", 3, 1, NULL);
    cr_assert_eq(pred_save(m, path, NULL, 0), 0);
    pred_destroy(m);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)*n);
    cr_assert_eq(fread(b, 1, (size_t)*n, f), (size_t)*n);
    fclose(f);
    return b;
}

static void write_bytes(const char *path, const unsigned char *b, long n)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, (size_t)n, f);
    fclose(f);
}

static void expect_load_error(const char *path, const char *text)
{
    char err[300];
    struct pred_model *m = pred_load(path, err, sizeof err);
    cr_assert_null(m);
    cr_assert(strstr(err, text), "error '%s' lacks '%s'", err, text);
}

Test(checkpoint, refuses_another_version_truncation_and_corruption)
{
    char path[256];
    tmp_path(path, sizeof path, "bad.ckpt");
    long n;
    unsigned char *b = saved_bytes(path, &n);
    b[8] = 5; /* version 4 -> 5, little-endian u32 after the magic */
    write_bytes(path, b, n);
    expect_load_error(path, "version 5");
    b[8] = 1;
    write_bytes(path, b, n);
    expect_load_error(path, "version 1");
    b[8] = 4;
    write_bytes(path, b, n / 2);
    expect_load_error(path, "truncated");
    write_bytes(path, b, n - 3);
    expect_load_error(path, "truncated");
    /* d_model (after magic 8, version 4, name length 4, "bigru" 5 bytes)
     * set to 2^31 - 1: refused before any allocation. */
    unsigned char keep[4];
    memcpy(keep, b + 21, 4);
    memcpy(b + 21, "\xff\xff\xff\x7f", 4);
    write_bytes(path, b, n);
    expect_load_error(path, "bad architecture");
    memcpy(b + 21, keep, 4);
    b[n - 20] ^= 0x40; /* a bit of the last parameter */
    write_bytes(path, b, n);
    expect_load_error(path, "corrupt");
    write_bytes(path, (const unsigned char *)"model_type,params\n", 18);
    expect_load_error(path, "not a hetsim predictor checkpoint");
    remove(path);
    expect_load_error(path, "No such file");
    free(b);
}
