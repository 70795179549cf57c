/* test_predictor_loop.c -- `--estimates predictor:MODEL.bin`: a model of
 * predictor/, trained here on a few rows and saved, is asked through
 * hetsim run's cache. The expected figures are computed here from the
 * model directly (rows built by this test, not by hetsim) and from the
 * schedule in jobs.csv; the cache figures by counting job configurations
 * by hand. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predictor.h"
#include "run_helpers.h"

#define DATA HETSIM_TEST_DATA "/cli/estimates"

static char pl_out[1 << 16], pl_err[1 << 16];
static char pl_dir[64], model_path[128];

static const char *const gpu_levels[] = {"v100", "k80"};
static const struct pred_feature features[] = {
    {"gpu_type", 2, gpu_levels},
    {"batch_size", 0, NULL},
    {"gpu_count", 0, NULL},
};
static const struct pred_schema schema = {3, features};

/* A small model of throughput (steps/s) from (gpu_type, batch, GPUs). */
static void train_model(void)
{
    struct pred_arch arch;
    cr_assert_eq(pred_arch_preset(&arch, "seed000"), 0);
    char err[256];
    struct pred_model *m = pred_create(&arch, &schema, 7, err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    double x[8 * 3], y[8];
    for (int i = 0; i < 8; i++) {
        x[3 * i] = i % 2;
        x[3 * i + 1] = 16 << (i % 4);
        x[3 * i + 2] = 1 + i / 4;
        y[i] = (i % 2 ? 5.0 : 10.0) * x[3 * i + 2] / (1 + (i % 4));
    }
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.epochs = 3;
    o.batch = 4;
    o.log_target = 1; /* predictions stay > 0 */
    cr_assert_eq(pred_fit(m, x, y, 8, &o, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pred_save(m, model_path, err, sizeof err), 0, "%s", err);
    pred_destroy(m);
}

static void setup(void)
{
    clitest_make_dir(pl_dir, "hetsim-predloop");
    snprintf(model_path, sizeof model_path, "%s/runtime.bin", pl_dir);
    train_model();
}
static void teardown(void) { clitest_remove_dir(pl_dir); }

TestSuite(predictor_loop, .init = setup, .fini = teardown);

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(v != NULL, "no %s", key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

Test(predictor_loop, estimates_are_steps_over_predicted_throughput)
{
    char args[2048], path[256];
    snprintf(args, sizeof args,
             "run -q --trace " DATA "/gavel_types.csv --cluster " DATA
             "/v100_k80.json --policy fifo --estimates predictor:%s "
             "--out %s/r", model_path, pl_dir);
    cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                             sizeof pl_err), 0, "%s", pl_err);
    static char json[1 << 16], jobs[1 << 14];
    snprintf(path, sizeof path, "%s/r/summary.json", pl_dir);
    clitest_read_file(path, json, sizeof json);
    snprintf(path, sizeof path, "%s/r/jobs.csv", pl_dir);
    clitest_read_file(path, jobs, sizeof jobs);
    cJSON *o = cJSON_Parse(json);
    cr_assert_not_null(o);
    /* 5 arrivals; configurations (R18 b32, 1), (R18 b64, 1), (R18 b32, 2),
     * (LM b20, 1): 4 misses, 1 hit (job c repeats job a). */
    cr_assert_float_eq(num(o, "predict_calls"), 5, 0);
    cr_assert_float_eq(num(o, "predict_cache_hit_rate"), 0.2, 1e-12);
    /* Truth on the type each job ran: duration x (1 on V100, 2 on K80);
     * estimate: steps / the model's throughput there, asked here. */
    static const double duration[] = {100, 200, 100, 100, 50};
    static const double steps[] = {1000, 1000, 1000, 500, 2000};
    static const double batch[] = {32, 64, 32, 32, 20};
    static const double gpus[] = {1, 1, 1, 2, 1};
    char err[256];
    struct pred_model *m = pred_load(model_path, err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    const char *line = strchr(jobs, '\n') + 1;
    double ape = 0;
    for (int i = 0; i < 5; i++, line = strchr(line, '\n') + 1) {
        int k80 = strstr(line, ",K80,") != NULL &&
                  strstr(line, ",K80,") < strchr(line, '\n');
        double row[3] = {k80, batch[i], gpus[i]}, thr;
        cr_assert_eq(pred_predict(m, row, 1, &thr, err, sizeof err), 0);
        double truth = duration[i] * (k80 ? 2 : 1), est = steps[i] / thr;
        ape += fabs(est - truth) / truth;
    }
    pred_destroy(m);
    cr_assert_float_eq(num(o, "estimate_runtime_mape"), 100 * ape / 5,
                       1e-6 * (100 * ape / 5));
    cr_assert_float_eq(num(o, "estimate_runtime_jobs"), 5, 0);
    cJSON_Delete(o);
}

Test(predictor_loop, refuses_traces_without_model_features)
{
    char args[2048];
    snprintf(args, sizeof args,
             "run -q --trace " DATA "/history.csv --cluster " DATA
             "/one_gpu.json --policy fifo --estimates predictor:%s "
             "--out %s/r", model_path, pl_dir);
    cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                             sizeof pl_err), 3, "%s", pl_err);
    cr_assert(strstr(pl_err, "history.csv:2:") != NULL, "%s", pl_err);
    cr_assert(strstr(pl_err, "no job_type") != NULL, "%s", pl_err);
    snprintf(args, sizeof args,
             "run -q --trace " DATA "/history.csv --cluster " DATA
             "/one_gpu.json --estimates predictor:%s/missing.bin --out "
             "%s/r", pl_dir, pl_dir);
    cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                             sizeof pl_err), 3, "%s", pl_err);
    cr_assert(strstr(pl_err, "missing.bin") != NULL, "%s", pl_err);
}

Test(predictor_loop, trains_on_hetsim_dataset_gavel_and_runs_with_it)
{
    /* The pipeline of the README: dataset gavel -> predictor train
     * --target throughput -> run --estimates predictor:runtime.bin. Two
     * epochs: this checks the plumbing, not the model. On gavel_types.csv
     * every job is estimated (5 calls, 4 configurations: hit rate 0.2). */
    static const char *const models[] = {"tbigru --epochs 2", "xgboost"};
    char args[2048], path[256];
    snprintf(args, sizeof args,
             "dataset gavel --throughputs " HETSIM_SOURCE_DIR
             "/traces/gavel/simulation_throughputs.json -o %s/g.csv",
             pl_dir);
    cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                             sizeof pl_err), 0, "%s", pl_err);
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "predictor train -q --data %s/g.csv --target throughput "
                 "--model %s -o %s/m.bin", pl_dir, models[i], pl_dir);
        cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                                 sizeof pl_err), 0, "%s: %s", models[i],
                     pl_err);
        snprintf(args, sizeof args,
                 "run -q --trace " DATA "/gavel_types.csv --cluster " DATA
                 "/v100_k80.json --policy sjf --estimates predictor:%s/m.bin "
                 "--out %s/r", pl_dir, pl_dir);
        cr_assert_eq(clitest_run(NULL, args, pl_out, sizeof pl_out, pl_err,
                                 sizeof pl_err), 0, "%s: %s", models[i],
                     pl_err);
        static char json[1 << 16];
        snprintf(path, sizeof path, "%s/r/summary.json", pl_dir);
        clitest_read_file(path, json, sizeof json);
        cJSON *o = cJSON_Parse(json);
        cr_assert_not_null(o);
        cr_assert_float_eq(num(o, "predict_calls"), 5, 0);
        cr_assert_float_eq(num(o, "predict_cache_hit_rate"), 0.2, 1e-12);
        cr_assert_float_eq(num(o, "jobs_completed"), 5, 0);
        cJSON_Delete(o);
    }
}
