/* test_tabular.c -- datasets, splits, metrics, synthetic generators and
 * baselines, the tabular part of predictor.h. Every expected number is
 * computed by hand in the comment beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "predictor.h"

/* ---- metrics ------------------------------------------------------------ */

Test(metrics, match_values_computed_by_hand)
{
    /* errors 0.5, 0, -1, 1: SSE 2.25, MSE 0.5625, RMSE 0.75,
     * MAE 2.5 / 4 = 0.625; APE 0.5, 0, 1/3, 1/4 -> MAPE 100 * (13/12) / 4
     * = 27.0833..%; mean y 2.5, SST 2.25 + 0.25 + 0.25 + 2.25 = 5,
     * R2 = 1 - 2.25 / 5 = 0.55. */
    double y[] = {1, 2, 3, 4}, yhat[] = {1.5, 2, 2, 5};
    struct pred_metrics m;
    pred_metrics_compute(y, yhat, 4, &m);
    cr_assert_float_eq(m.mse, 0.5625, 1e-15);
    cr_assert_float_eq(m.rmse, 0.75, 1e-15);
    cr_assert_float_eq(m.mae, 0.625, 1e-15);
    cr_assert_float_eq(m.mape, 100.0 * 13.0 / 48.0, 1e-12);
    cr_assert_float_eq(m.r2, 0.55, 1e-15);
}

Test(metrics, mape_skips_zero_targets_and_r2_of_a_constant_is_nan)
{
    /* y = 0 is left out of MAPE: |1 - 2| / 2 = 50 %. SST = 0 on {2, 2}. */
    double y[] = {0, 2}, yhat[] = {1, 1};
    struct pred_metrics m;
    pred_metrics_compute(y, yhat, 2, &m);
    cr_assert_eq(m.n_mape, 1);
    cr_assert_float_eq(m.mape, 50.0, 1e-12);
    double c[] = {2, 2};
    pred_metrics_compute(c, yhat, 2, &m);
    cr_assert(isnan(m.r2));
}

Test(split, is_a_seeded_permutation_with_seventy_percent_first)
{
    size_t a[10], b[10], c[10], seen[10] = {0};
    cr_assert_eq(pred_split(10, 0.7, 5, a), 7);
    cr_assert_eq(pred_split(10, 0.7, 5, b), 7);
    pred_split(10, 0.7, 6, c);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    cr_assert_neq(memcmp(a, c, sizeof a), 0);
    for (int i = 0; i < 10; i++)
        seen[a[i]]++;
    for (int i = 0; i < 10; i++)
        cr_assert_eq(seen[i], 1);
    /* 0.7 * 2 rounds to 1; never all rows in one part. */
    cr_assert_eq(pred_split(2, 0.99, 1, a), 1);
}

/* ---- synthetic datasets -------------------------------------------------- */

Test(synth, gflops_of_hand_computed_jobs)
{
    /* MLP, 1 M params, batch 10, 1000 iterations, SGD, fp32: 6 * 1e6 * 10
     * (reuse 1) = 6e7 FLOPs a step + update 2 * 1e6 = 6.2e7; * 1000 =
     * 6.2e10 FLOPs = 62 GFLOPs. */
    struct pred_gflops_job mlp = {"mlp", 1,      10,    100, 2,
                                  1000,  "fp32", "sgd", 0.01};
    cr_assert_float_eq(pred_synth_gflops(&mlp), 62.0, 1e-9);
    /* Transformer, 12 M params, 1 layer -> d = sqrt(1.2e7 / 12) = 1000,
     * context 10: 6 * 1.2e7 * 10 = 7.2e8, attention 6 * 1 * 10 * 1000 * 10
     * = 6e5; Adam in fp16: 1.2e7 * (12 + 4) = 1.92e8; batch 1, 1
     * iteration: (7.206e8 + 1.92e8) / 1e9 = 0.9126 GFLOPs. */
    struct pred_gflops_job tf = {"transformer", 12,     1,   10, 1, 1,
                                 "fp16",        "adam", 0.01};
    cr_assert_float_eq(pred_synth_gflops(&tf), 0.9126, 1e-12);
    /* CNN, 1 M params, 32 px -> (32 / 16)^2 = 4 uses: 6 * 1e6 * 4 =
     * 2.4e7, momentum in bf16 1e6 * (4 + 4) = 8e6; 10 iterations:
     * 3.2e8 FLOPs = 0.32 GFLOPs. */
    struct pred_gflops_job cnn = {"cnn", 1,      1,          32,  5,
                                  10,    "bf16", "momentum", 0.01};
    cr_assert_float_eq(pred_synth_gflops(&cnn), 0.32, 1e-12);
    struct pred_gflops_job bad = mlp;
    bad.optimizer = "lamb";
    cr_assert(isnan(pred_synth_gflops(&bad)));
}

Test(synth, memory_of_hand_computed_jobs)
{
    /* MLP, 4e6 params in 4 layers -> 1e6 a layer, d = 1000; activations
     * 32 * 1 * (2 * 1000) * 4 layers * 4 bytes = 1,024,000 B; states
     * 16 * 4e6 = 64,000,000 B; (65,024,000 / 2^20) + 512 MiB. */
    struct pred_memory_job mlp = {100, "mlp", 4, 4e6, "fp32"};
    cr_assert_float_eq(pred_synth_memory_mb(&mlp), 65024000.0 / 1048576.0 + 512,
                       1e-9);
    /* Transformer, 1.2e7 params, 1 layer -> d = 1000, 128 tokens: values
     * 17 * 1000 + 2.5 * (1000 / 64) * 128 = 22,000 a token; 32 * 128 *
     * 22,000 * 2 bytes = 180,224,000 B; states 1.92e8 B. */
    struct pred_memory_job tf = {128, "transformer", 1, 1.2e7, "fp16"};
    cr_assert_float_eq(pred_synth_memory_mb(&tf), 372224000.0 / 1048576.0 + 512,
                       1e-9);
}

Test(synth, noise_free_rows_follow_the_formula_and_seeds_repeat)
{
    struct pred_table *a = pred_synth(PRED_SYNTH_MEMORY, 50, 3, 0.0);
    struct pred_table *b = pred_synth(PRED_SYNTH_MEMORY, 50, 3, 0.0);
    struct pred_table *c = pred_synth(PRED_SYNTH_MEMORY, 50, 4, 0.0);
    cr_assert(a && b && c);
    cr_assert_eq(memcmp(a->x, b->x, 50 * 6 * sizeof(double)), 0);
    cr_assert_neq(memcmp(a->x, c->x, 50 * 6 * sizeof(double)), 0);
    for (size_t i = 0; i < 50; i++) {
        const double *x = a->x + i * 6; /* input_dim, arch, layers, params,
                                           precision, per layer */
        struct pred_memory_job j = {(int)x[0], a->feat[1].levels[(int)x[1]],
                                    (int)x[2], x[3],
                                    a->feat[4].levels[(int)x[4]]};
        cr_assert_float_eq(a->y[i], pred_synth_memory_mb(&j), 1e-9);
        cr_assert_float_eq(x[5] * x[2], x[3], 1e-6);
    }
    pred_table_destroy(a);
    pred_table_destroy(b);
    pred_table_destroy(c);
}

/* ---- CSV tables ------------------------------------------------------------
 */

static char tmp_path[64];

static const char *write_tmp(const char *text)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/hetsim-tab-XXXXXX");
    int fd = mkstemp(tmp_path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return tmp_path;
}

static int read_text(const char *text, const struct pred_table_opts *o,
                     struct pred_table **t, struct pred_error *e)
{
    const char *p = write_tmp(text);
    int rc = pred_table_read(p, o, t, e);
    unlink(p);
    return rc;
}

Test(table, reads_numbers_categories_quotes_and_crlf)
{
    struct pred_table *t;
    struct pred_error e;
    struct pred_table_opts o = {.target = "y", .drop = "id"};
    cr_assert_eq(read_text("\xEF\xBB\xBFid,kind,n,y\r\n"
                           "1,\"b, quoted\",2.5,10\r\n"
                           "2,a,3,20\r\n\r\n3,\"b, quoted\",-1e1,30\r\n",
                           &o, &t, &e),
                 0, "%s", e.text);
    cr_assert_eq(t->n, 3);
    cr_assert_eq(t->nfeat, 2);
    cr_assert_str_eq(t->feat[0].name, "kind");
    cr_assert_eq(t->feat[0].nlevels, 2); /* sorted: "a", "b, quoted" */
    cr_assert_str_eq(t->feat[0].levels[1], "b, quoted");
    cr_assert_eq(t->x[0], 1.0);
    cr_assert_eq(t->x[2], 0.0);
    cr_assert_eq(t->x[5], -10.0);
    cr_assert_eq(t->y[2], 30.0);
    cr_assert_eq(t->line[2], 5); /* after the blank line 4 */
    pred_table_destroy(t);
}

Test(table, forced_categorical_and_schema_levels)
{
    struct pred_table *t, *u;
    struct pred_error e;
    struct pred_table_opts o = {.target = "y", .categorical = "n"};
    cr_assert_eq(read_text("n,y\n8,1\n2,2\n8,3\n", &o, &t, &e), 0);
    cr_assert_eq(t->feat[0].nlevels, 2); /* "2" < "8" */
    cr_assert_eq(t->x[0], 1.0);
    struct pred_table_opts o2 = {.target = "y", .schema = &t->schema};
    cr_assert_eq(read_text("y,n\n5,2\n6,9\n", &o2, &u, &e), 0);
    cr_assert_eq(u->x[0], 0.0);
    cr_assert_eq(u->x[1], -1.0); /* a level the schema does not know */
    pred_table_destroy(t);
    pred_table_destroy(u);
}

struct bad_case {
    const char *text, *target, *message;
    long line;
};

Test(table, bad_rows_name_the_line_and_the_problem)
{
    static const struct bad_case cases[] = {
        {"a,y\n1,2\n3\n", "y", "expected 2 fields", 3},
        {"a,y\n1,2\n3,x\n", "y", "target 'y': 'x' is not a number", 3},
        {"a,y\n1,2\n,4\n", "y", "column 'a' is empty", 3},
        {"a,y\n1,2\n\"3,4\n", "y", "no closing quote", 3},
        {"a,b\n1,2\n", "y", "no target column 'y'", 1},
        {"a,y\n", "y", "no data rows", 2},
        {"a,y\n1,nan\n", "y", "is not a number", 2},
        {"a,a,y\n1,2,3\n", "y", "appears twice", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pred_table *t = NULL;
        struct pred_error e = {0};
        struct pred_table_opts o = {.target = cases[i].target};
        cr_assert_eq(read_text(cases[i].text, &o, &t, &e), -1, "case %zu", i);
        cr_assert_null(t);
        cr_assert(strstr(e.text, cases[i].message), "case %zu: %s", i, e.text);
        cr_assert_eq(e.line, cases[i].line, "case %zu: line %ld", i, e.line);
    }
    struct pred_table *t;
    struct pred_error e;
    struct pred_table_opts o = {.target = "y", .drop = "zz"};
    cr_assert_eq(read_text("a,y\n1,2\n", &o, &t, &e), -1);
    cr_assert(strstr(e.text, "no column 'zz'"));
}

/* ---- baselines ------------------------------------------------------------
 */

/* x1 = (-1, 1, -1, 1), x2 = (-1, -1, 1, 1): means 0, population sds 1,
 * orthogonal, so Z'Z = 4 I. y = (1, 3, 2, 6): mean 3, centred
 * (-2, 0, -1, 3); Z'y = (6, 4). Ridge: beta = Z'y / (4 + lambda) (the
 * target's own standardization cancels), so yhat = 3 + (6 x1 + 4 x2) /
 * (4 + lambda). */
static const double RX[] = {-1, -1, 1, -1, -1, 1, 1, 1};
static const double RY[] = {1, 3, 2, 6};

Test(ridge, matches_the_closed_form_of_two_orthogonal_features)
{
    struct pred_feature f[] = {{"x1", 0, NULL}, {"x2", 0, NULL}};
    struct pred_schema s = {2, f};
    struct pred_base_params p;
    pred_base_defaults(PRED_BASE_LINEAR, &p);
    p.lambda = 1;
    char err[256];
    struct pred_base *b =
        pred_base_fit(PRED_BASE_LINEAR, &p, &s, RX, RY, 4, err, sizeof err);
    cr_assert(b, "%s", err);
    double out[4], q[] = {0.5, 0}, one;
    cr_assert_eq(pred_base_predict(b, RX, 4, out, err, sizeof err), 0);
    /* lambda 1: 3 + (-6 - 4) / 5 = 1; 3 + 2 / 5; 3 - 2 / 5; 3 + 10 / 5. */
    cr_assert_float_eq(out[0], 1.0, 1e-12);
    cr_assert_float_eq(out[1], 3.4, 1e-12);
    cr_assert_float_eq(out[2], 2.6, 1e-12);
    cr_assert_float_eq(out[3], 5.0, 1e-12);
    pred_base_predict(b, q, 1, &one, err, sizeof err);
    cr_assert_float_eq(one, 3.6, 1e-12); /* 3 + 6 * 0.5 / 5 */
    pred_base_destroy(b);
    /* lambda -> 0 is least squares: 3 + 1.5 x1 + x2 = 0.5 on row 0. */
    p.lambda = 1e-12;
    b = pred_base_fit(PRED_BASE_LINEAR, &p, &s, RX, RY, 4, err, sizeof err);
    pred_base_predict(b, RX, 1, out, err, sizeof err);
    cr_assert_float_eq(out[0], 0.5, 1e-9);
    pred_base_destroy(b);
}

Test(ridge, one_hot_categories_and_survives_save_and_load)
{
    /* One categorical feature of 2 levels, y = 2 on level 0, 6 on level 1:
     * the one-hot columns are (1,1,0,0) and (0,0,1,1), standardized to
     * -+1; near lambda 0 the fit is exact. */
    static const char *const lv[] = {"a", "b"};
    struct pred_feature f[] = {{"k", 2, lv}};
    struct pred_schema s = {1, f};
    double x[] = {0, 0, 1, 1}, y[] = {2, 2, 6, 6}, out[4], back[4];
    struct pred_base_params p;
    pred_base_defaults(PRED_BASE_LINEAR, &p);
    p.lambda = 1e-9;
    char err[256], path[] = "/tmp/hetsim-ridge-XXXXXX", *target;
    struct pred_base *b =
        pred_base_fit(PRED_BASE_LINEAR, &p, &s, x, y, 4, err, sizeof err);
    cr_assert(b, "%s", err);
    pred_base_predict(b, x, 4, out, err, sizeof err);
    cr_assert_float_eq(out[0], 2.0, 1e-6);
    cr_assert_float_eq(out[3], 6.0, 1e-6);
    close(mkstemp(path));
    cr_assert_eq(pred_base_save(b, "y col", path, err, sizeof err), 0);
    struct pred_base *c = pred_base_load(path, &target, err, sizeof err);
    cr_assert(c, "%s", err);
    cr_assert_str_eq(target, "y col");
    cr_assert_str_eq(pred_base_schema(c)->feat[0].levels[1], "b");
    pred_base_predict(c, x, 4, back, err, sizeof err);
    cr_assert_eq(memcmp(out, back, sizeof out), 0);
    unlink(path);
    free(target);
    pred_base_destroy(b);
    pred_base_destroy(c);
}

Test(xgboost, one_tree_finds_the_obvious_split)
{
    /* y jumps from 1 to 5 between x = 3 and x = 4: a depth-1 tree with no
     * leaf penalty puts the mean of each side in its leaf. */
    struct pred_feature f[] = {{"x", 0, NULL}};
    struct pred_schema s = {1, f};
    double x[] = {0, 1, 2, 3, 4, 5, 6, 7}, y[] = {1, 1, 1, 1, 5, 5, 5, 5};
    struct pred_base_params p;
    pred_base_defaults(PRED_BASE_TREE, &p);
    p.max_depth = 1;
    char err[256], path[] = "/tmp/hetsim-xgb-XXXXXX", *target;
    struct pred_base *b =
        pred_base_fit(PRED_BASE_TREE, &p, &s, x, y, 8, err, sizeof err);
    cr_assert(b, "%s", err);
    double q[] = {-10, 2.9, 4.1, 100}, out[4], back[4];
    cr_assert_eq(pred_base_predict(b, q, 4, out, err, sizeof err), 0);
    cr_assert_float_eq(out[0], 1.0, 1e-5);
    cr_assert_float_eq(out[1], 1.0, 1e-5);
    cr_assert_float_eq(out[2], 5.0, 1e-5);
    cr_assert_float_eq(out[3], 5.0, 1e-5);
    close(mkstemp(path));
    cr_assert_eq(pred_base_save(b, "y", path, err, sizeof err), 0);
    struct pred_base *c = pred_base_load(path, &target, err, sizeof err);
    cr_assert(c, "%s", err);
    cr_assert_eq(pred_base_kind_of(c), PRED_BASE_TREE);
    pred_base_predict(c, q, 4, back, err, sizeof err);
    cr_assert_eq(memcmp(out, back, sizeof out), 0);
    unlink(path);
    free(target);
    pred_base_destroy(b);
    pred_base_destroy(c);
}

Test(xgboost, same_seed_gives_the_same_forest)
{
    struct pred_table *t = pred_synth(PRED_SYNTH_GFLOPS, 80, 2, 0.05);
    struct pred_base_params p;
    pred_base_defaults(PRED_BASE_RF, &p);
    p.trees = 10;
    p.log_target = 1;
    char err[256];
    double a[80], b[80];
    for (int k = 0; k < 2; k++) {
        struct pred_base *m = pred_base_fit(PRED_BASE_RF, &p, &t->schema, t->x,
                                            t->y, t->n, err, sizeof err);
        cr_assert(m, "%s", err);
        pred_base_predict(m, t->x, t->n, k ? b : a, err, sizeof err);
        pred_base_destroy(m);
    }
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    pred_table_destroy(t);
}

Test(baseline, model_files_of_another_kind_or_version_are_refused)
{
    char path[] = "/tmp/hetsim-bad-XXXXXX", err[256], *target;
    int fd = mkstemp(path);
    const char *v2 = "HSBASE 2\nkind linear\n";
    cr_assert_eq(write(fd, v2, strlen(v2)), (ssize_t)strlen(v2));
    close(fd);
    cr_assert_null(pred_base_load(path, &target, err, sizeof err));
    cr_assert(strstr(err, "version 2"), "%s", err);
    FILE *f = fopen(path, "w");
    fputs("HSBASE 1\nkind linear\nlog_target 0\nymean 0\n", f);
    fclose(f);
    cr_assert_null(pred_base_load(path, &target, err, sizeof err));
    cr_assert(strstr(err, "truncated or corrupt"), "%s", err);
    f = fopen(path, "w");
    fputs("model\n", f);
    fclose(f);
    cr_assert_null(pred_base_load(path, &target, err, sizeof err));
    cr_assert(strstr(err, "not a hetsim baseline"), "%s", err);
    unlink(path);
}

Test(table, keeps_only_the_rows_asked_for_with_their_lines)
{
    struct pred_table *t;
    struct pred_error e;
    struct pred_table_opts o = {.target = "y", .keep = "ok=1"};
    cr_assert_eq(read_text("x,ok,y\n1,1,10\n2,0,0\n3,1,30\n", &o, &t, &e), 0,
                 "%s", e.text);
    cr_assert_eq(t->n, 2);
    cr_assert_eq(t->y[1], 30.0);
    cr_assert_eq(t->line[1], 4); /* the file's line, not the kept index */
    pred_table_destroy(t);
    struct pred_table_opts bad = {.target = "y", .keep = "nope=1"};
    cr_assert_eq(read_text("x,y\n1,2\n", &bad, &t, &e), -1);
    cr_assert(strstr(e.text, "COLUMN=VALUE"), "%s", e.text);
}
