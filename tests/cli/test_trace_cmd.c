/* test_trace_cmd.c -- `hetsim trace stats|convert|generate` as a user meets
 * them: figures computed by hand on small fixtures (tests/data/trace_cmd),
 * round trips, exit codes, and files that appear whole or not at all. Runs
 * the built binary. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helpers.h"
#include "traces.h"

#define TDATA HETSIM_TEST_DATA "/trace_cmd"
#define MATRIX HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"

static char tc_out[1 << 17], tc_err[1 << 16];
static char tc_dir[64];

#define slurp clitest_read_file
#define entries clitest_count_entries

/* Runs `hetsim trace ARGS` (a shell fragment) in the test's folder;
 * returns the exit code, with stdout and stderr in tc_out and tc_err. */
static int trace_cmd(const char *fmt, ...)
{
    char args[4096], full[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "trace %s", args);
    return clitest_run(tc_dir, full, tc_out, sizeof tc_out, tc_err,
                       sizeof tc_err);
}

static void make_dir(void)
{
    clitest_make_dir(tc_dir, "hetsim-trace-cmd");
}
static void remove_dir(void)
{
    clitest_remove_dir(tc_dir);
}

static int exists(const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tc_dir, name);
    return stat(path, &st) == 0;
}

/* The number at dotted KEY ("run_time_s.p90") of the JSON in tc_out. */
static double json_number(const char *key)
{
    cJSON *root = cJSON_Parse(tc_out);
    cr_assert_not_null(root, "not JSON: %s", tc_out);
    const cJSON *o = root;
    char path[128];
    snprintf(path, sizeof path, "%s", key);
    for (char *part = strtok(path, "."); part; part = strtok(NULL, "."))
        o = cJSON_GetObjectItemCaseSensitive(o, part);
    cr_assert(cJSON_IsNumber(o), "%s is not a number in %s", key, tc_out);
    double v = o->valuedouble;
    cJSON_Delete(root);
    return v;
}

static void expect_near(const char *key, double want, double tol)
{
    double got = json_number(key);
    cr_expect(fabs(got - want) <= tol, "%s = %.17g, want %.17g +- %g", key, got,
              want, tol);
}

TestSuite(trace_cmd, .init = make_dir, .fini = remove_dir);

/* ---- stats -------------------------------------------------------------- */

/* small.csv: submits 0, 100, 200, 300, 1000; GPUs 1, 2, 1, 4, 1; durations
 * 100, 200, 300, 400, 1000 (job c only on K80). Quantiles as GSL's
 * gsl_stats_quantile_from_sorted_data: index p * (n - 1) interpolated, so
 * p90 = 400 + 0.6 * 600 = 760 and p99 = 400 + 0.96 * 600 = 976. Offered
 * load on small_cluster.json (4 V100 + 4 K80 at speed 0.5: C = 6):
 * job c runs 300 / 0.5 = 600 s on K80, worth 600 * 0.5 = 300 V100-s;
 * sum num_gpus * r = 100 + 400 + 300 + 1600 + 1000 = 3400 over T = 1000:
 * rho = 3400 / 6000 = 0.5666... */
Test(trace_cmd, stats_reports_hand_computed_figures_and_offered_load)
{
    cr_assert_eq(trace_cmd("stats %s/small.csv --cluster %s/small_cluster.json"
                           " --json",
                           TDATA, TDATA),
                 0, "%s", tc_err);
    expect_near("jobs", 5, 0);
    expect_near("rows_skipped", 0, 0);
    expect_near("first_submit_s", 0, 0);
    expect_near("last_submit_s", 1000, 0);
    expect_near("span_s", 1000, 0);
    expect_near("span_days", 1000.0 / 86400, 1e-15);
    expect_near("run_time_s.min", 100, 0);
    expect_near("run_time_s.p50", 300, 0);
    expect_near("run_time_s.p90", 760, 1e-9);
    expect_near("run_time_s.p99", 976, 1e-9);
    expect_near("run_time_s.max", 1000, 0);
    expect_near("run_time_s.mean", 400, 1e-12);
    expect_near("capacity_gpus", 6, 1e-12);
    expect_near("offered_load", 3400.0 / 6000, 1e-12);
    cr_expect(strstr(tc_out, "\"num_gpus\":\t4") != NULL, "%s", tc_out);
    cr_expect(strstr(tc_out, "\"fraction\":\t0.6") != NULL, "%s", tc_out);
}

Test(trace_cmd, stats_prints_an_aligned_report)
{
    cr_assert_eq(trace_cmd("stats %s/small.csv --cluster %s/small_cluster.json",
                           TDATA, TDATA),
                 0, "%s", tc_err);
    cr_expect(strstr(tc_out, "  format           native\n") != NULL, "%s",
              tc_out);
    cr_expect(strstr(tc_out, "  jobs             5\n") != NULL, "%s", tc_out);
    cr_expect(strstr(tc_out, "                 1          3     60.0\n") !=
                  NULL,
              "%s", tc_out);
    cr_expect(strstr(tc_out, "    p90                 760.0\n") != NULL, "%s",
              tc_out);
    cr_expect(strstr(tc_out, "rho = 0.567") != NULL, "%s", tc_out);
    /* Without a cluster: the durations as written, and no load. */
    cr_assert_eq(trace_cmd("stats %s/small.csv", TDATA), 0, "%s", tc_err);
    cr_expect(strstr(tc_out, "duration (s, as in the trace), 5 jobs") != NULL,
              "%s", tc_out);
    cr_expect(strstr(tc_out, "rho") == NULL);
}

/* gavel_fills.trace: which jobs count as filled by the throughput fallback.
 * From simulation_throughputs.json (read with python3): ResNet-18 (32) x1 is
 * measured everywhere, spread too; ResNet-50 (64) x2 is measured on one
 * server of every type but k80_unconsolidated lacks it, so only its spread
 * K80 value is filled, which matters where K80 has several servers
 * (gavel-108: 9) and not on one 8-GPU server; ResNet-50 (128) x2 lacks
 * k80_unconsolidated too, but its one-server K80 value is 0.0 (it does not
 * fit), so no spread value is filled; A3C x2 has no entry at all (filled
 * on every type). */
Test(trace_cmd, stats_counts_only_the_fills_that_can_matter)
{
    cr_assert_eq(trace_cmd("stats %s/gavel_fills.trace --cluster gavel-108 "
                           "--throughputs %s --json",
                           TDATA, MATRIX),
                 0, "%s", tc_err);
    expect_near("matrix_jobs", 4, 0);
    expect_near("fallback_jobs", 2, 0);
    expect_near("fallback_spread_only_jobs", 1, 0);
    cr_expect(strstr(tc_out, "\"spread_only\":\t\"K80\"") != NULL, "%s",
              tc_out);
    cr_assert_eq(trace_cmd("stats %s/gavel_fills.trace --cluster "
                           "%s/one_server_each.json --throughputs %s --json",
                           TDATA, TDATA, MATRIX),
                 0, "%s", tc_err);
    expect_near("fallback_jobs", 1, 0);
    expect_near("fallback_spread_only_jobs", 0, 0);
    cr_assert_eq(trace_cmd("stats %s/gavel_fills.trace --cluster gavel-108 "
                           "--throughputs %s",
                           TDATA, MATRIX),
                 0, "%s", tc_err);
    cr_expect(strstr(tc_out, "2 of them at a (job type,") != NULL, "%s",
              tc_out);
    cr_expect(strstr(tc_out, "      ResNet-50 (batch size 64) x2, 1 job: only "
                             "spread over servers on K80\n") != NULL,
              "%s", tc_out);
    cr_expect(strstr(tc_out, "      A3C x2, 1 job: on V100, P100, K80\n") !=
                  NULL,
              "%s", tc_out);
}

/* gavel_small.trace on gavel-108 with Gavel's matrix, run times on V100
 * (steps / the "null" steps/s of simulation_throughputs.json, looked up
 * with python3):
 *   ResNet-18 (batch size 32), 1 GPU: 29947 / 29.947157347732464
 *     = 999.994745820759 s
 *   Transformer (batch size 128), 2 GPUs: 5000 / 10.069238394742342
 *     = 496.5618852177293 s
 *   LM (batch size 20), 3 GPUs: no entry; 8 GPUs scaled: 6000 /
 *     (497.2952582330656 * 3 / 8) = 32.17404496646404 s (a fallback job)
 * rho = (d1 + 2 d2 + 3 d3) / (400 s * 80.64) = 0.0647830062982270. */
Test(trace_cmd, stats_of_a_gavel_trace_uses_the_matrix_on_the_reference)
{
    cr_assert_eq(trace_cmd("stats %s/gavel_small.trace --cluster gavel-108 "
                           "--throughputs %s --json",
                           TDATA, MATRIX),
                 0, "%s", tc_err);
    cr_expect(strstr(tc_out, "\"format\":\t\"gavel\"") != NULL);
    expect_near("run_time_s.max", 999.994745820759, 1e-9);
    expect_near("run_time_s.p50", 496.5618852177293, 1e-9);
    expect_near("run_time_s.min", 32.17404496646404, 1e-9);
    expect_near("matrix_jobs", 3, 0);
    expect_near("fallback_jobs", 1, 0);
    expect_near("offered_load", 0.0647830062982270, 1e-12);
    /* Without the matrix the durations are unknown: say so, exit 2. */
    cr_expect_eq(
        trace_cmd("stats %s/gavel_small.trace --cluster gavel-108", TDATA), 2);
    cr_expect(strstr(tc_err, "--throughputs") != NULL, "%s", tc_err);
}

/* ---- convert ------------------------------------------------------------ */

static struct trace *read_native(const char *path)
{
    struct trace *t = NULL;
    struct trace_error err = {0};
    cr_assert_eq(trace_read_native(path, 0, &t, &err), 0, "%s:%ld: %s", path,
                 err.line, err.text);
    return t;
}

static void expect_same_jobs(const struct trace *a, const struct trace *b)
{
    cr_assert_eq(a->njobs, b->njobs);
    for (size_t i = 0; i < a->njobs; i++) {
        const struct trace_job *x = &a->jobs[i], *y = &b->jobs[i];
        const uint32_t sx[] = {x->id,  x->job_type, x->gpu_types, x->user,
                               x->vc,  x->model,    x->precision, x->optimizer,
                               x->qos, x->status};
        const uint32_t sy[] = {y->id,  y->job_type, y->gpu_types, y->user,
                               y->vc,  y->model,    y->precision, y->optimizer,
                               y->qos, y->status};
        for (size_t k = 0; k < sizeof sx / sizeof *sx; k++)
            cr_expect_str_eq(trace_str(a, sx[k]), trace_str(b, sy[k]),
                             "job %zu, string %zu", i, k);
        /* Every number bit for bit, NANs included. */
        const double dx[] = {x->submit_time, x->duration,      x->gpu_mem_mb,
                             x->params_m,    x->learning_rate, x->est_duration,
                             x->deadline,    x->weight,        x->host_mem_mb};
        const double dy[] = {y->submit_time, y->duration,      y->gpu_mem_mb,
                             y->params_m,    y->learning_rate, y->est_duration,
                             y->deadline,    y->weight,        y->host_mem_mb};
        cr_expect_eq(memcmp(dx, dy, sizeof dx), 0, "job %zu: a number", i);
        const int64_t ix[] = {x->iterations, x->num_gpus,   x->gpu_milli,
                              x->priority,   x->batch_size, x->layers,
                              x->input_dim,  x->cpu_milli};
        const int64_t iy[] = {y->iterations, y->num_gpus,   y->gpu_milli,
                              y->priority,   y->batch_size, y->layers,
                              y->input_dim,  y->cpu_milli};
        cr_expect_eq(memcmp(ix, iy, sizeof ix), 0, "job %zu: an integer", i);
    }
}

Test(trace_cmd, convert_of_a_native_trace_gives_the_same_jobs)
{
    cr_assert_eq(
        trace_cmd("convert %s/roundtrip.csv --to native -o rt.csv", TDATA), 0,
        "%s", tc_err);
    char path[256], again[256];
    snprintf(path, sizeof path, "%s/rt.csv", tc_dir);
    struct trace *a = read_native(TDATA "/roundtrip.csv");
    struct trace *b = read_native(path);
    expect_same_jobs(a, b);
    trace_destroy(a);
    trace_destroy(b);
    /* Written text reads back and writes again byte for byte. */
    cr_assert_eq(trace_cmd("convert rt.csv -o rt2.csv -q"), 0, "%s", tc_err);
    cr_expect_str_empty(tc_out);
    static char x[4096], y[4096];
    snprintf(again, sizeof again, "%s/rt2.csv", tc_dir);
    slurp(path, x, sizeof x);
    slurp(again, y, sizeof y);
    cr_expect_str_eq(x, y);
    cr_expect(strstr(x, "\"alice \"\"the\"\" admin\"") != NULL, "%s", x);
    cr_expect(strstr(x, "\"c\r\nd\"") != NULL, "%s", x);
    cr_expect(strstr(x, "9007199254740993") != NULL, "%s", x);
}

Test(trace_cmd, convert_to_stdout_writes_only_the_columns_present)
{
    cr_assert_eq(trace_cmd("convert %s/small.csv -o -", TDATA), 0, "%s",
                 tc_err);
    cr_expect_str_eq(tc_out, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                             "a,0,1,100,\nb,100,2,200,\nc,200,1,300,K80\n"
                             "d,300,4,400,\ne,1000,1,1000,\n");
}

/* Durations by hand as in stats_of_a_gavel_trace_... above; the engine
 * multiplies by 1 / steps-per-s, so allow a few ulps. */
Test(trace_cmd, convert_of_a_gavel_trace_takes_run_times_on_the_reference)
{
    cr_assert_eq(trace_cmd("convert %s/gavel_small.trace --to native "
                           "--throughputs %s --cluster gavel-108 -o g.csv",
                           TDATA, MATRIX),
                 0, "%s", tc_err);
    char path[256];
    snprintf(path, sizeof path, "%s/g.csv", tc_dir);
    struct trace *t = read_native(path);
    cr_assert_eq(t->njobs, 3);
    cr_expect(fabs(t->jobs[0].duration - 999.994745820759) < 1e-9);
    cr_expect(fabs(t->jobs[1].duration - 496.5618852177293) < 1e-9);
    cr_expect_str_eq(trace_str(t, t->jobs[1].job_type),
                     "Transformer (batch size 128)");
    cr_expect_eq(t->jobs[1].iterations, 5000);
    cr_expect_eq(t->jobs[1].num_gpus, 2);
    cr_expect_eq(t->jobs[1].submit_time, 100);
    trace_destroy(t);
}

Test(trace_cmd, convert_of_a_gavel_trace_without_a_matrix_is_a_usage_error)
{
    cr_expect_eq(trace_cmd("convert %s/gavel_small.trace -o g.csv", TDATA), 2);
    cr_expect(strstr(tc_err, "no duration") != NULL, "%s", tc_err);
    cr_expect(strstr(tc_err, "Try 'hetsim trace convert --help'") != NULL);
    cr_expect(!exists("g.csv"));
}

Test(trace_cmd, a_failed_convert_leaves_no_file)
{
    cr_expect_eq(trace_cmd("convert %s/bad_row.csv -o out.csv", TDATA), 3);
    cr_expect(strstr(tc_err, "bad_row.csv:3:") != NULL, "%s", tc_err);
    cr_expect_eq(entries(tc_dir), 0);
    /* An existing file stays as it was. */
    cr_assert_eq(trace_cmd("convert %s/small.csv -o out.csv", TDATA), 0);
    cr_expect_eq(trace_cmd("convert %s/bad_row.csv -o out.csv", TDATA), 3);
    cr_expect_eq(entries(tc_dir), 1);
    cr_expect_eq(trace_cmd("stats out.csv --json"), 0);
    expect_near("jobs", 5, 0);
}

/* gavel_k80.trace on a K80-only cluster: Gavel measured 0 steps/s for
 * ResNet-50 (batch size 128) on 2 K80s and nothing spread over servers. */
Test(trace_cmd, jobs_that_run_nowhere_are_counted_by_stats_and_stop_convert)
{
    cr_assert_eq(trace_cmd("stats %s/gavel_k80.trace --cluster "
                           "%s/k80_cluster.json --throughputs %s --json",
                           TDATA, TDATA, MATRIX),
                 0, "%s", tc_err);
    expect_near("jobs_without_run_time", 1, 0);
    expect_near("run_time_s.jobs", 1, 0);
    cr_expect_eq(trace_cmd("convert %s/gavel_k80.trace --cluster "
                           "%s/k80_cluster.json --throughputs %s -o k.csv",
                           TDATA, TDATA, MATRIX),
                 3);
    cr_expect(strstr(tc_err, "gavel_k80.trace:2: job \"gavel_k80-2\" can "
                             "run on no GPU type") != NULL,
              "%s", tc_err);
    cr_expect_eq(entries(tc_dir), 0);
}

/* ---- generate ----------------------------------------------------------- */

/* 20,000 jobs, one GPU, exp:3600 durations: the sum of durations and the
 * span (19,999 exponential gaps) each have a relative sd of 1/sqrt(20000)
 * = 0.7%, so the measured load has about 1% (0.005 absolute at 0.5);
 * 0.025 is 5 sd. */
Test(trace_cmd, generate_at_a_load_gives_that_load_to_stats)
{
    cr_assert_eq(trace_cmd("generate --load 0.5 --cluster gavel-108 "
                           "--jobs 20000 -o gen.csv"),
                 0, "%s", tc_err);
    cr_assert_eq(trace_cmd("stats gen.csv --cluster gavel-108 --json"), 0, "%s",
                 tc_err);
    expect_near("jobs", 20000, 0);
    expect_near("offered_load", 0.5, 0.025);
}

Test(trace_cmd, generate_same_seed_same_bytes_other_seed_other_bytes)
{
    const char *opts = "--rate 0.01 --jobs 300 --arrivals mmpp "
                       "--gpus 1:0.7,2:0.1,4:0.1,8:0.1 "
                       "--durations lognormal:8,1";
    cr_assert_eq(trace_cmd("generate %s --seed 7 -o a.csv", opts), 0);
    cr_assert_eq(trace_cmd("generate %s --seed 7 -o b.csv", opts), 0);
    cr_assert_eq(trace_cmd("generate %s --seed 8 -o c.csv", opts), 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "cd %s && cmp -s a.csv b.csv && ! cmp -s a.csv "
             "c.csv",
             tc_dir);
    cr_expect_eq(system(cmd), 0, "same seed must give the same bytes");
    /* -o - writes the same bytes to stdout. */
    static char a[1 << 16];
    snprintf(cmd, sizeof cmd, "%s/a.csv", tc_dir);
    slurp(cmd, a, sizeof a);
    cr_assert_eq(trace_cmd("generate %s --seed 7 -o -", opts), 0);
    cr_expect(strlen(a) > 300 * 20);
    cr_expect_str_eq(tc_out, a);
}

Test(trace_cmd, generate_with_job_types_writes_a_trace_the_matrix_runs)
{
    cr_assert_eq(trace_cmd("generate --rate 0.01 --jobs 200 --gpus 1:1,4:1 "
                           "--job-types-from %s -o jt.csv",
                           MATRIX),
                 0, "%s", tc_err);
    /* With the matrix, each job runs its iterations at V100's measured
     * speed: within rounding of one step of the drawn duration. */
    cr_assert_eq(trace_cmd("stats jt.csv --json"), 0);
    double plain = json_number("run_time_s.mean");
    cr_assert_eq(trace_cmd("stats jt.csv --cluster gavel-108 --throughputs "
                           "%s --json",
                           MATRIX),
                 0, "%s", tc_err);
    expect_near("matrix_jobs", 200, 0);
    expect_near("run_time_s.mean", plain, plain * 1e-3);
}

Test(trace_cmd, generate_resamples_durations_of_a_trace)
{
    cr_assert_eq(trace_cmd("generate --rate 1 --jobs 50 --durations "
                           "resample:%s/small.csv -o - -q",
                           TDATA),
                 0, "%s", tc_err);
    for (const char *p = strchr(tc_out, '\n') + 1; *p;
         p = strchr(p, '\n') + 1) {
        const char *d = strrchr(p, ',');
        cr_assert_not_null(d);
        double v = strtod(d + 1, NULL);
        cr_expect(v == 100 || v == 200 || v == 300 || v == 400 || v == 1000,
                  "drew %g", v);
    }
}

/* ---- exit codes --------------------------------------------------------- */

Test(trace_cmd, misuse_exits_2_with_one_line_and_a_hint)
{
    static const char *const misuse[] = {
        "",
        "nonsense",
        "stats",
        "stats a.csv b.csv",
        "stats --bogus x.csv",
        "stats x.csv --throughputs m.json",
        "convert x.csv",
        "convert x.csv -o y.csv --to json",
        "generate --rate 1",
        "generate -o x.csv",
        "generate -o x.csv --rate 1 --load 0.5 "
        "--cluster gavel-108",
        "generate -o x.csv --load 0.5",
        "generate -o x.csv --rate 0",
        "generate -o x.csv --rate 1 --jobs 0",
        "generate -o x.csv --rate 1 --durations exp:-1",
        "generate -o x.csv --rate 1 --gpus 1:0.5,1:0.5",
        "generate -o x.csv --rate 1 --burst-fraction 0.2",
        "generate -o x.csv --rate 1 --seed -1",
        "generate -o x.csv --load 1 --cluster gavel-108 --durations "
        "pareto:0.5,10"};
    for (size_t i = 0; i < sizeof misuse / sizeof *misuse; i++) {
        cr_expect_eq(trace_cmd("%s", misuse[i]), 2, "'%s': %s", misuse[i],
                     tc_err);
        cr_expect(strstr(tc_err, "Try 'hetsim trace") != NULL, "'%s': %s",
                  misuse[i], tc_err);
        cr_expect_str_empty(tc_out, "'%s'", misuse[i]);
    }
    cr_expect_eq(entries(tc_dir), 0);
}

Test(trace_cmd, bad_input_exits_3_naming_the_file)
{
    cr_expect_eq(trace_cmd("stats %s/bad_row.csv", TDATA), 3);
    cr_expect(strstr(tc_err, "hetsim: error: ") == tc_err, "%s", tc_err);
    cr_expect(strstr(tc_err, "bad_row.csv:3:") != NULL, "%s", tc_err);
    cr_expect_eq(trace_cmd("stats missing.csv"), 3);
    cr_expect_eq(trace_cmd("stats %s/small.csv --cluster nosuch", TDATA), 3);
    cr_expect_eq(trace_cmd("generate -o x.csv --rate 1 --gpus 16:1 "
                           "--job-types-from %s",
                           MATRIX),
                 3);
    cr_expect(strstr(tc_err, "16 GPUs") != NULL, "%s", tc_err);
    cr_expect_eq(trace_cmd("generate -o x.csv --rate 1 --durations "
                           "resample:%s/gavel_small.trace",
                           TDATA),
                 3);
    cr_expect_eq(entries(tc_dir), 0);
    /* --on-bad-row skip counts the row and goes on. */
    cr_expect_eq(
        trace_cmd("stats %s/bad_row.csv --on-bad-row skip --json", TDATA), 0);
    expect_near("rows_skipped", 1, 0);
    expect_near("jobs", 1, 0);
}

Test(trace_cmd, help_goes_to_stdout_and_exits_0)
{
    static const char *const cmds[] = {"--help", "stats --help",
                                       "convert --help", "generate --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        cr_expect_eq(trace_cmd("%s", cmds[i]), 0);
        cr_expect(strncmp(tc_out, "Usage: hetsim trace", 19) == 0, "%s",
                  tc_out);
        cr_expect_str_empty(tc_err);
    }
    cr_expect_eq(trace_cmd("stats --help"), 0);
    cr_expect(strstr(tc_out, "rho = sum over jobs of num_gpus x r / (T x C)") !=
              NULL);
}
