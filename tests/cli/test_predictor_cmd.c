/* test_predictor_cmd.c -- `hetsim dataset` and `hetsim predictor` as a user
 * meets them. Runs the built binary. The Gavel values below were read by
 * hand from traces/gavel/simulation_throughputs.json. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "run_helpers.h"

#define GAVEL_JSON HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"

static char out[1 << 16], err[1 << 16], buf[1 << 20], buf2[1 << 20];
static char dir[64];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-pred");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return clitest_run(dir, args, out, sizeof out, err, sizeof err);
}

static void read_in_dir(const char *name, char *to, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    clitest_read_file(path, to, cap);
}

TestSuite(predictor_cmd, .init = setup, .fini = teardown);

Test(predictor_cmd, gavel_rows_carry_the_measured_throughputs)
{
    cr_assert_eq(run("dataset gavel --throughputs %s -o gavel.csv", GAVEL_JSON),
                 0, "%s", err);
    read_in_dir("gavel.csv", buf, sizeof buf);
    /* k80, ('ResNet-18 (batch size 16)', 1): "null": 4.795294551566172;
     * ResNet-18 has 11.17 M parameters and 18 layers (README table);
     * a K80 die: 12 GB, 4.37 TFLOP/s, 240 GB/s. */
    cr_assert(strstr(buf, "\"ResNet-18 (batch size 16)\",ResNet-18,"
                          "image_classification,16,11.17,18,k80,1,12,4.37,"
                          "240,1,4.795294551566172\n"),
              "%.400s", buf);
    /* k80, ('ResNet-50 (batch size 128)', 2): "null": 0.0 -- cannot run,
     * kept and flagged. */
    cr_assert(strstr(buf, "\"ResNet-50 (batch size 128)\",ResNet-50,"
                          "image_classification,128,25.56,50,k80,2,12,4.37,"
                          "240,0,0\n"));
    /* v100, ('Transformer (batch size 32)', 1) */
    cr_assert(strstr(buf, "\"Transformer (batch size 32)\",Transformer,"
                          "translation,32,65,12,v100,1,16,15.7,900,1,"));
    cr_assert(strstr(err, "3 cannot run"), "%s", err);
}

Test(predictor_cmd, synth_is_seeded_and_has_the_papers_columns)
{
    cr_assert_eq(run("dataset synth --schema gflops --seed 4 -o a.csv"), 0,
                 "%s", err);
    cr_assert_eq(run("dataset synth --schema gflops --seed 4 -o b.csv"), 0);
    read_in_dir("a.csv", buf, sizeof buf);
    read_in_dir("b.csv", buf2, sizeof buf2);
    cr_assert_str_eq(buf, buf2);
    cr_assert_eq(strncmp(buf,
                         "model_type,params_m,batch_size,input_dim,"
                         "num_layers,iterations,precision,optimizer,"
                         "learning_rate,gpu_demand_gflops\n",
                         101),
                 0);
    size_t lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 518); /* header + 517 rows (Hu's count) */
    cr_assert_eq(run("dataset synth --schema memory -o - | head -1"), 0);
    cr_assert_str_eq(out, "input_dim,model_arch,num_layers,num_params,"
                          "precision,params_per_layer,memory_mb\n");
    cr_assert_eq(run("dataset synth --schema watts -o x.csv"), 2);
}

Test(predictor_cmd, bad_dataset_rows_exit_3_with_file_and_line)
{
    FILE *f;
    char path[256];
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    cr_assert((f = fopen(path, "w")));
    fputs("a,b,y\n1,2,3\n4,5\n", f);
    fclose(f);
    cr_assert_eq(run("predictor train --data bad.csv --target y --model "
                     "linear -o m"),
                 3);
    cr_assert(strstr(err, "hetsim: error: bad.csv:3: expected 3 fields"), "%s",
              err);
    cr_assert_eq(run("predictor train --data bad.csv --target y --model "
                     "svm -o m"),
                 2);
    cr_assert((f = fopen(path, "w")));
    fputs("a,y\n1,3\n2,0\n", f);
    fclose(f);
    cr_assert_eq(run("predictor train --data bad.csv --target y --model "
                     "rf --log-target -o m"),
                 3);
    cr_assert(strstr(err, "bad.csv:3: target 'y' is 0: --log-target"), "%s",
              err);
    cr_assert_eq(run("predictor eval --model nothing --data bad.csv"), 3);
}

Test(predictor_cmd, train_eval_predict_round_trip)
{
    cr_assert_eq(run("dataset synth --schema memory --rows 120 -o m.csv"), 0);
    cr_assert_eq(run("predictor train --data m.csv --target memory_mb "
                     "--model xgboost --rounds 50 -o m.model"),
                 0, "%s", err);
    cr_assert_eq(run("predictor eval --model m.model --data m.csv"), 0, "%s",
                 err);
    cr_assert(strstr(out, "rows 120\n"), "%s", out);
    cr_assert_eq(run("predictor predict --model m.model --data m.csv -o "
                     "p.csv"),
                 0, "%s", err);
    read_in_dir("p.csv", buf, sizeof buf);
    /* The model's features, the target the model file names, then the
     * prediction. */
    cr_assert(strstr(buf, ",params_per_layer,memory_mb,predicted\n"), "%.200s",
              buf);
    /* Without the target column: features and prediction only. */
    char path[256];
    snprintf(path, sizeof path, "%s/f.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("input_dim,model_arch,num_layers,num_params,precision,"
          "params_per_layer\n64,transformer,9,1523970,fp16,169330\n",
          f);
    fclose(f);
    cr_assert_eq(run("predictor predict --model m.model --data f.csv -o "
                     "p2.csv"),
                 0, "%s", err);
    read_in_dir("p2.csv", buf, sizeof buf);
    cr_assert(strstr(buf, ",params_per_layer,predicted\n64,transformer,"),
              "%.200s", buf);
}

/* compare.csv without its two wall-clock columns. */
static void strip_timings(char *s)
{
    char *w = s;
    for (char *line = s; *line;) {
        char *end = strchr(line, '\n'), *cut = end;
        for (int k = 0; k < 2 && cut > line; k++)
            while (--cut > line && *cut != ',')
                ;
        memmove(w, line, (size_t)(cut - line));
        w += cut - line;
        *w++ = '\n';
        line = end + 1;
    }
    *w = '\0';
}

Test(predictor_cmd, compare_is_deterministic_and_writes_the_table)
{
    cr_assert_eq(run("dataset synth --schema memory --rows 150 -o m.csv"), 0);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(run("predictor compare --data m.csv --target memory_mb "
                         "--models xgboost,rf,tree,linear,tbigru "
                         "--epochs 3 --repeats 2 --no-plots --out %s",
                         k ? "b" : "a"),
                     0, "%s", err);
    }
    cr_assert(strstr(out, "ExtraTrees"), "%s", out);
    read_in_dir("a/compare.csv", buf, sizeof buf);
    read_in_dir("b/compare.csv", buf2, sizeof buf2);
    cr_assert(strstr(buf, "model,repeats,mse,rmse,mae,mape,r2,mse_sd,r2_sd,"
                          "train_s,infer_us_per_row\nxgboost,2,") == buf,
              "%.200s", buf);
    strip_timings(buf);
    strip_timings(buf2);
    cr_assert_str_eq(buf, buf2);
    read_in_dir("a/splits.csv", buf, sizeof buf);
    read_in_dir("b/splits.csv", buf2, sizeof buf2);
    cr_assert_str_eq(buf, buf2);
    read_in_dir("a/predictions.csv", buf, sizeof buf);
    read_in_dir("b/predictions.csv", buf2, sizeof buf2);
    cr_assert_str_eq(buf, buf2);
}

Test(predictor_cmd, leave_one_group_out_splits_by_the_column)
{
    cr_assert_eq(run("dataset gavel --throughputs %s -o g.csv", GAVEL_JSON), 0);
    cr_assert_eq(run("predictor compare --data g.csv --target throughput "
                     "--drop job_type,model_family --leave-out model_family "
                     "--models tree,linear --no-plots --out loo"),
                 0, "%s", err);
    read_in_dir("loo/splits.csv", buf, sizeof buf);
    /* 7 families, each held out once per model. */
    cr_assert(strstr(buf, "tree,0,\"A3C\","), "%.300s", buf);
    cr_assert(strstr(buf, "linear,6,\"Transformer\","));
    read_in_dir("loo/compare.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "\ntree,7,"), "%s", buf);
}

/* --leave-out with --steps given: the networks run those steps (no inner
 * step tuning, which would choose another count); --linear-skip is kept
 * in the model and said in splits.csv. */
Test(predictor_cmd, leave_out_keeps_given_steps_and_the_linear_skip)
{
    cr_assert_eq(run("dataset gavel --throughputs %s -o g.csv", GAVEL_JSON), 0);
    cr_assert_eq(run("predictor compare --data g.csv --target throughput "
                     "--drop job_type,runnable,gpu_type --keep runnable=1 "
                     "--log-target --leave-out gpu_type --models tbigru "
                     "--linear-skip --steps 7 --no-plots --out ls"),
                 0, "%s", err);
    read_in_dir("ls/splits.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "tbigru steps=7 cosine"), "%s", buf);
    cr_assert(strstr(buf, "best_step=7/7 ensemble=1 linear_skip"), "%s", buf);
    cr_assert_eq(run("predictor train --data g.csv --target throughput "
                     "--drop job_type,runnable,gpu_type --keep runnable=1 "
                     "--model tbigru --linear-skip --steps 7 -o s.bin"),
                 0, "%s", err);
    cr_assert_eq(
        run("predictor eval --model s.bin --data g.csv --target throughput "
            "--keep runnable=1"),
        0, "%s", err);
}

/* A held-out group asks for extrapolation: compare --leave-out gives
 * tbigru the linear skip path unless --no-linear-skip says otherwise;
 * random splits and `train` keep the preset (no skip path). */
Test(predictor_cmd, leave_out_adds_the_skip_path_unless_told)
{
    cr_assert_eq(run("dataset gavel --throughputs %s -o g.csv", GAVEL_JSON), 0);
    const char *common = "predictor compare --data g.csv --target throughput "
                         "--drop job_type,runnable,gpu_type --keep runnable=1 "
                         "--models tbigru --steps 5 --no-plots";
    cr_assert_eq(run("%s --leave-out gpu_type --out on", common), 0, "%s", err);
    read_in_dir("on/splits.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "best_step=5/5 ensemble=1 linear_skip"), "%s", buf);
    cr_assert_eq(
        run("%s --leave-out gpu_type --no-linear-skip --out off", common), 0,
        "%s", err);
    read_in_dir("off/splits.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "best_step=5/5 ensemble=1\n"), "%s", buf);
    cr_assert_null(strstr(buf, "linear_skip"), "%s", buf);
    cr_assert_eq(run("%s --repeats 1 --out rnd", common), 0, "%s", err);
    read_in_dir("rnd/splits.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "best_step=5/5 ensemble=1\n"), "%s", buf);
    cr_assert_null(strstr(buf, "linear_skip"), "%s", buf);
}

Test(predictor_cmd, gavel_physics_columns_follow_flops_and_bandwidth)
{
    cr_assert_eq(
        run("dataset gavel --physics --throughputs %s -o p.csv", GAVEL_JSON), 0,
        "%s", err);
    read_in_dir("p.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "gpu_bandwidth_gbs,log10_compute_ms,"
                          "log10_memory_ms,runnable,throughput\n"),
              "%.300s", buf);
    /* ResNet-18 (CNN, 11.17 M weights, 32 px) at batch 16 on a K80:
     * 6 x 11.17e6 x (32/16)^2 x 16 = 4.28928e9 FLOPs a step over 4.37e12
     * FLOP/s = 0.981529... ms, log10 -0.0080970...; 16 x 11.17e6 bytes
     * over 240e9 B/s = 0.744667 ms, log10 -0.1280381... */
    const char *row = strstr(buf, "\"ResNet-18 (batch size 16)\",ResNet-18,"
                                  "image_classification,16,11.17,18,k80,1,12,"
                                  "4.37,240,");
    cr_assert(row, "%.400s", buf);
    double c, m;
    cr_assert_eq(sscanf(row + strlen("\"ResNet-18 (batch size 16)\",ResNet-18,"
                                     "image_classification,16,11.17,18,k80,1,"
                                     "12,4.37,240,"),
                        "%lf,%lf", &c, &m),
                 2);
    cr_assert_float_eq(c, log10(4.28928e9 / 4.37e12 * 1e3), 1e-12);
    cr_assert_float_eq(m, log10(16 * 11.17e6 / 240e9 * 1e3), 1e-12);
}

Test(predictor_cmd, training_options_are_checked_and_recorded)
{
    cr_assert_eq(run("dataset synth --schema memory --rows 60 -o m.csv"), 0);
    cr_assert_eq(run("predictor train --data m.csv --target memory_mb "
                     "--model tbigru --lr 0 -o x.bin"),
                 2);
    cr_assert(strstr(err, "--lr"), "%s", err);
    cr_assert_eq(run("predictor train --data m.csv --target memory_mb "
                     "--model tbigru --schedule linear -o x.bin"),
                 2);
    cr_assert_eq(run("predictor train --data m.csv --target memory_mb "
                     "--model hu2025 --ensemble 2 --steps 5 -o x.bin"),
                 1);
    cr_assert(strstr(err, "ensemble"), "%s", err);
    cr_assert_eq(run("predictor compare --data m.csv --target memory_mb "
                     "--models hu2025,tbigru --steps 30 --batch 8 --lr 0.002 "
                     "--weight-decay 0.1 --clip 2 --val-frac 0.2 "
                     "--ensemble 2 --repeats 1 --no-plots --out c"),
                 0, "%s", err);
    read_in_dir("c/splits.csv", buf, sizeof buf);
    cr_assert(strstr(buf, "hu2025 steps=30 cosine warmup=1 lr_min=0.01 "
                          "batch=8 lr=0.002 wd=0.1 l2=0 clip=2 dropout=0.01 "
                          "val=0.2 patience=0 best_step="),
              "%s", buf);
    cr_assert(strstr(buf, "/30 ensemble=2"), "%s", buf);
}
