/* test_estimates.c -- the predictor in the loop as `hetsim run` shows it:
 * the history estimator, the estimate-quality figures of summary.json, and
 * the --estimates parser. Every expected number is worked out by hand in
 * the comments. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimators.h"
#include "run_helpers.h"

#define DATA HETSIM_TEST_DATA "/cli/estimates"

static char est_out[1 << 16], est_err[1 << 16];
static char est_dir[64];

static void setup(void) { clitest_make_dir(est_dir, "hetsim-estimates"); }
static void teardown(void) { clitest_remove_dir(est_dir); }

TestSuite(estimates, .init = setup, .fini = teardown);

Test(estimates, mape_and_r2_match_a_hand_computation)
{
    /* APEs 10/100, 20/200, 0/400: MAPE = 100 * 0.2 / 3 = 6.667 %.
     * Mean truth 700/3; SS_tot = (400/3)^2 + (100/3)^2 + (500/3)^2
     * = 420000/9 = 46666.67; SS_res = 100 + 400 + 0 = 500;
     * R^2 = 1 - 500 / 46666.67 = 1 - 9/840 = 0.98928571. */
    double truth[] = {100, 200, 400}, est[] = {110, 180, 400};
    double mape, r2;
    cli_mape_r2(truth, est, 3, &mape, &r2);
    cr_assert_float_eq(mape, 20.0 / 3, 1e-12);
    cr_assert_float_eq(r2, 1 - 9.0 / 840, 1e-12);
    cli_mape_r2(truth, est, 0, &mape, &r2);
    cr_assert(isnan(mape) && isnan(r2), "no jobs: no figure");
    double same[] = {5, 5};
    cli_mape_r2(same, same, 2, &mape, &r2);
    cr_assert_float_eq(mape, 0, 1e-12);
    cr_assert(isnan(r2), "R^2 is undefined when every truth is equal");
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(v != NULL, "no %s", key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static cJSON *run_summary(const char *policy, const char *estimates)
{
    char args[2048], path[256];
    snprintf(args, sizeof args,
             "run -q --trace " DATA "/history.csv --cluster " DATA
             "/one_gpu.json --policy %s --estimates %s --out %s/r",
             policy, estimates, est_dir);
    cr_assert_eq(clitest_run(NULL, args, est_out, sizeof est_out, est_err,
                             sizeof est_err), 0, "%s", est_err);
    static char json[1 << 16];
    snprintf(path, sizeof path, "%s/r/summary.json", est_dir);
    clitest_read_file(path, json, sizeof json);
    cJSON *o = cJSON_Parse(json);
    cr_assert_not_null(o);
    return o;
}

Test(estimates, history_estimates_from_finished_jobs_of_the_same_vc)
{
    /* One GPU, SJF on history:vc (prior 3600 s before anything finished).
     *   j1 (a, 10 s) arrives at 0 and starts at once: runs 0-10.
     *   j2 (a, 2 s) at 5 and j3 (b, 100 s) at 6: nothing finished: 3600.
     *   At 10 j1 ends (a: mean 10); tie at 3600: j2 10-12, then j3 12-112.
     *   j4 (a, 40 s) at 20: a's mean (10 + 2) / 2 = 6.
     *   j5 (c, 5 s) at 21: no c job finished: all finished, 6.
     *   j6 (b, 1 s) at 22: no b job finished yet (j3 runs): 6.
     *   At 112 the tie at 6 goes by arrival: j4 112-152, j5 152-157,
     *   j6 157-158.
     * JCTs 10, 7, 106, 132, 136, 136: average 527 / 6.
     * APEs 3590/10, 3598/2, 3500/100, 34/40, 1/5, 5/1 = 359, 1799, 35,
     * 0.85, 0.2, 5: MAPE = 100 * 2199.05 / 6 %. */
    cJSON *o = run_summary("sjf", "history");
    cr_assert_float_eq(num(o, "avg_jct_s"), 527.0 / 6, 1e-9);
    cr_assert_float_eq(num(o, "estimate_runtime_mape"), 100 * 2199.05 / 6,
                       1e-6);
    cr_assert_float_eq(num(o, "estimate_runtime_jobs"), 6, 0);
    cr_assert_float_eq(num(o, "predict_calls"), 6, 0);
    cr_assert(isnan(num(o, "estimate_memory_mape")), "history: no memory");
    cJSON_Delete(o);
}

Test(estimates, oracle_memory_is_exact_and_noise_is_measured)
{
    cJSON *o = run_summary("fifo", "oracle");
    cr_assert_float_eq(num(o, "estimate_runtime_mape"), 0, 1e-12);
    cr_assert_float_eq(num(o, "estimate_runtime_r2"), 1, 1e-12);
    cr_assert_float_eq(num(o, "estimate_memory_mape"), 0, 1e-12);
    cr_assert_float_eq(num(o, "estimate_memory_jobs"), 6, 0);
    cr_assert_float_eq(num(o, "predict_calls"), 0, 0);
    cJSON_Delete(o);
    o = run_summary("fifo", "noisy:0.5");
    cr_assert(num(o, "estimate_runtime_mape") > 0);
    cr_assert(num(o, "estimate_memory_mape") > 0);
    cJSON_Delete(o);
}

Test(estimates, the_parser_refuses_malformed_specs_with_exit_2)
{
    static const char *const bad[] = {
        "history:team", "predictor:", "predictor:m.bin,mem=x.bin",
        "predictor:m.bin,memory=", "oracles"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[512];
        snprintf(args, sizeof args,
                 "run --trace " DATA "/history.csv --cluster " DATA
                 "/one_gpu.json --estimates %s --out %s/bad", bad[i],
                 est_dir);
        cr_assert_eq(clitest_run(NULL, args, est_out, sizeof est_out,
                                 est_err, sizeof est_err), 2, "%s", bad[i]);
        cr_assert(strstr(est_err, "--estimates") != NULL, "%s", est_err);
    }
}

/* Writes a sweep SPEC over the history fixture with ESTIMATES (a JSON
 * array's inside) and returns the exit code of `hetsim sweep` on it. */
static int sweep_with(const char *estimates)
{
    char spec[256], args[1024];
    snprintf(spec, sizeof spec, "%s/spec.json", est_dir);
    FILE *f = fopen(spec, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"traces\": [\"" DATA "/history.csv\"], \"clusters\": [\""
               DATA "/one_gpu.json\"], \"policies\": [\"sjf\"], "
               "\"estimates\": [%s], \"seeds\": 1}\n", estimates);
    fclose(f);
    snprintf(args, sizeof args, "sweep %s -q -j 1 --out %s/sweep", spec,
             est_dir);
    return clitest_run(NULL, args, est_out, sizeof est_out, est_err,
                       sizeof est_err);
}

Test(estimates, sweep_specs_take_history_and_predictor_estimates)
{
    cr_assert_eq(sweep_with("\"history\", \"history:user\""), 0, "%s",
                 est_err);
    /* SJF on history (by vc) is the run worked out by hand above: the
     * mean over its one seed of avg JCT is 527 / 6. */
    char path[256];
    static char csv[1 << 14];
    snprintf(path, sizeof path, "%s/sweep/sweep.csv", est_dir);
    clitest_read_file(path, csv, sizeof csv);
    int col = 0;
    for (const char *p = csv; p < strstr(csv, "avg_jct_s_mean"); p++)
        col += *p == ',';
    const char *row = strstr(csv, ",history,");
    cr_assert(row != NULL && strstr(csv, "avg_jct_s_mean"), "%s", csv);
    while (row > csv && row[-1] != '\n')
        row--;
    for (int k = 0; k < col; k++)
        row = strchr(row, ',') + 1;
    cr_assert_float_eq(strtod(row, NULL), 527.0 / 6, 1e-9);
    cr_assert_eq(sweep_with("\"predictor:\""), 3, "empty model path");
    cr_assert(strstr(est_err, "predictor:MODEL.bin") != NULL, "%s", est_err);
    cr_assert_eq(sweep_with("\"history:team\""), 3);
}

Test(estimates, the_prediction_cache_keeps_every_key_through_growth)
{
    /* 1,000 keys (job type i / 7, GPU count i % 7 + 1) are distinct; each
     * is new the first time and found the second, with its value. */
    struct est_memo m = {0};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < 1000; i++) {
            struct est_key k = {i / 7, (int32_t)(i % 7) + 1};
            int found;
            struct sim_estimate *v = est_memo_slot(&m, &k, &found);
            cr_assert_not_null(v);
            cr_assert_eq(found, pass, "key %u, pass %d", i, pass);
            if (!pass)
                v->mem_mb = i;
            else
                cr_assert_float_eq(v->mem_mb, i, 0);
        }
    cr_assert_eq(m.len, 1000);
    est_memo_free(&m);
}
