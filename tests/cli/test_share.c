/* test_share.c -- `hetsim share`: jobs sharing one GPU at Gavel's pair
 * throughputs, the interference factor, and util-pack's bound, with JCTs
 * worked out by hand.
 *
 * Fixtures (tests/data/share/): v100.json, one node with one V100 (the
 * reference type); pairs.json, throughputs in steps/s on v100: A alone 10,
 * B alone 8, A and B together 5 and 6; C alone 2, no pair. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include "run_helpers.h"

static char dir[64];
static char out[1 << 14], err[1 << 14];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-share");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

TestSuite(share_cmd, .init = setup, .fini = teardown);

static int share(const char *trace, const char *extra)
{
    char args[2048];
    snprintf(
        args, sizeof args,
        "share -q --no-plots --trace %s/share/%s --cluster %s/share/v100.json "
        "--throughputs %s/share/pairs.json --placement first-fit "
        "--out %s %s",
        HETSIM_TEST_DATA, trace, HETSIM_TEST_DATA, HETSIM_TEST_DATA, dir,
        extra);
    return clitest_run(NULL, args, out, sizeof out, err, sizeof err);
}

/* Start and finish of job ID in jobs.csv. */
static void times(const char *id, double *start, double *finish)
{
    static char csv[4096];
    char path[128], key[32];
    double submit;
    snprintf(path, sizeof path, "%s/jobs.csv", dir);
    clitest_read_file(path, csv, sizeof csv);
    snprintf(key, sizeof key, "\n%s,", id);
    const char *p = strstr(csv, key);
    cr_assert_not_null(p, "%s", csv);
    cr_assert_eq(sscanf(p + strlen(key), "%lf,%lf,%lf", &submit, start, finish),
                 3, "%s", csv);
}

static double summary(const char *key)
{
    static char json[4096];
    char path[128];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    clitest_read_file(path, json, sizeof json);
    cJSON *root = cJSON_Parse(json);
    cr_assert_not_null(root);
    cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    cr_assert(cJSON_IsNumber(v), "%s", key);
    double x = v->valuedouble;
    cJSON_Delete(root);
    return x;
}

/* a (type A, 100 s alone) and b (type B, 60 s), half a GPU each, both at
 * 0 on the one GPU. Together A runs at 5/10 = .5 of its speed alone, B at
 * 6/8 = .75. b ends at 60 / .75 = 80; by then a has done 80 x .5 = 40 s
 * of its 100, and the last 60 alone: it ends at 140. Allocated: 1000
 * milli over [0, 80], 500 over [80, 140]: (80 + 30) / 140 = 11/14;
 * effective (work done): (.5 x 100 + .5 x 60) / 140 = 4/7. */
Test(share_cmd, two_shares_run_at_the_measured_pair_throughputs)
{
    double s, f;
    cr_assert_eq(share("pair_shares.csv", ""), 0, "%s", err);
    times("a", &s, &f);
    cr_assert_float_eq(f, 140, 1e-9);
    times("b", &s, &f);
    cr_assert_float_eq(f, 80, 1e-9);
    cr_assert_float_eq(summary("avg_jct_s"), 110, 1e-9);
    cr_assert_float_eq(summary("makespan_s"), 140, 1e-9);
    cr_assert_float_eq(summary("gpu_utilization"), 11 / 14.0, 1e-12);
    cr_assert_float_eq(summary("effective_utilization"), 4 / 7.0, 1e-12);
}

/* a (A, 100 s) and c (C, 40 s): no measured pair, so both run at the
 * interference factor .5: c ends at 40 / .5 = 80, a has 60 s left then
 * and ends at 140. */
Test(share_cmd, an_unmeasured_pair_runs_at_the_interference_factor)
{
    double s, f;
    cr_assert_eq(share("unmeasured_pair.csv", "--interference 0.5"), 0, "%s",
                 err);
    times("c", &s, &f);
    cr_assert_float_eq(f, 80, 1e-9);
    times("a", &s, &f);
    cr_assert_float_eq(f, 140, 1e-9);
}

/* util-pack, one-GPU jobs a (A) and b (B). Estimated utilization from the
 * pairs: u(A) = 1 - 6/8 = .25 (B keeps .75 of its speed next to A),
 * u(B) = 1 - 5/10 = .5. Bound 1: .25 + .5 <= 1, they share (A asks
 * ceil(250) = 250 milli, B 500) and end at 140 and 80 as above. */
Test(share_cmd, util_pack_shares_a_gpu_within_the_bound)
{
    double s, f;
    cr_assert_eq(share("whole_gpus.csv", "--util-pack 1"), 0, "%s", err);
    cr_assert_float_eq(summary("jobs_util_packed"), 2, 1e-12);
    times("a", &s, &f);
    cr_assert_float_eq(f, 140, 1e-9);
    times("b", &s, &f);
    cr_assert_eq(s, 0);
    cr_assert_float_eq(f, 80, 1e-9);
}

/* Bound .7 < .25 + .5: A asks ceil(250 / .7) = 358 milli and B
 * ceil(500 / .7) = 715, 1073 > 1000. a runs alone over [0, 100], b waits
 * and runs over [100, 160]. */
Test(share_cmd, util_pack_keeps_jobs_apart_above_the_bound)
{
    double s, f;
    cr_assert_eq(share("whole_gpus.csv", "--util-pack 0.7"), 0, "%s", err);
    times("a", &s, &f);
    cr_assert_float_eq(f, 100, 1e-9);
    times("b", &s, &f);
    cr_assert_float_eq(s, 100, 1e-9);
    cr_assert_float_eq(f, 160, 1e-9);
}

/* A trace's gpu_util_peak comes before the pair estimate: a 30%, b 60%.
 * Bound 1: .3 + .6 <= 1, they share (300 and 600 milli) and run at the
 * pair speeds, ending at 140 and 80 as above. Bound .8: ceil(300 / .8) =
 * 375 and ceil(600 / .8) = 750 make 1125 > 1000: a over [0, 100], b over
 * [100, 160]. */
Test(share_cmd, util_pack_takes_the_trace_utilization_first)
{
    double s, f;
    cr_assert_eq(share("whole_gpus_util.csv", "--util-pack 1"), 0, "%s", err);
    times("a", &s, &f);
    cr_assert_float_eq(f, 140, 1e-9);
    times("b", &s, &f);
    cr_assert_float_eq(f, 80, 1e-9);
    cr_assert_eq(share("whole_gpus_util.csv", "--util-pack 0.8"), 0, "%s", err);
    times("b", &s, &f);
    cr_assert_float_eq(s, 100, 1e-9);
    cr_assert_float_eq(f, 160, 1e-9);
}

Test(share_cmd, help_and_misuse)
{
    cr_assert_eq(
        clitest_run(NULL, "share --help", out, sizeof out, err, sizeof err), 0);
    cr_assert_not_null(strstr(out, "--util-pack"));
    cr_assert_eq(share("pair_shares.csv", "--interference 0"), 2);
    cr_assert_eq(share("pair_shares.csv", "--placement worst-fit"), 2);
}

/* hetsim run (whole GPUs) on the one V100: a needs 32768 MB and runs out
 * of memory 60 s after it starts (the default oom_detect_s), then fits no
 * type and is unschedulable; b runs over [60, 120]. Busy 60 + 60 = 120 of
 * 120 GPU-s: gpu_utilization 1; the 60 wasted ones did no work, so
 * effective_utilization = (120 - 60) / 120 = .5. */
Test(share_cmd, run_reports_effective_utilization_without_wasted_time)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run -q --trace %s/share/oom_then_fit.csv --cluster "
             "%s/share/v100.json --policy fifo --out %s",
             HETSIM_TEST_DATA, HETSIM_TEST_DATA, dir);
    cr_assert_eq(clitest_run(NULL, args, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    cr_assert_float_eq(summary("gpu_utilization"), 1, 1e-12);
    cr_assert_float_eq(summary("effective_utilization"), 0.5, 1e-12);
}

/* hetsim run, whole GPUs, one node of 4: j1 (2 GPUs, 0, 100 s), j2 (1, 0,
 * 50 s), j3 (4, at 10, 10 s), fifo. j1 and j2 start at 0 (1 free), j3
 * waits; j2 ends at 50 (2 free); j1 ends at 100 and j3 runs to 110. The
 * workload is k = 1, 2, 4 with 1/3 each, so F(f) = f x P(k > f):
 * F(1) = 2/3, F(2) = 2 x 1/3 = 2/3, F(0) = F(4) = 0. Over [0, 110]:
 * 2/3 x 100 = 200/3 GPU-s, over 4 GPUs x 110 s: 5/33. */
Test(share_cmd, run_reports_the_time_mean_of_whole_gpu_fragmentation)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run -q --trace %s/share/four_gpus.csv --cluster "
             "%s/share/v100x4.json --policy fifo --out %s",
             HETSIM_TEST_DATA, HETSIM_TEST_DATA, dir);
    cr_assert_eq(clitest_run(NULL, args, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    cr_assert_float_eq(summary("makespan_s"), 110, 1e-12);
    cr_assert_float_eq(summary("frag_rate_mean"), 5 / 33.0, 1e-12);
}

Test(share_cmd, same_inputs_and_seed_give_byte_identical_results)
{
    static char a[1 << 16], b[1 << 16];
    char args[1024], path[128];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "share -q --no-plots --trace %s/traces/alibaba2023/pods.csv "
                 "--cluster alibaba2023:%s/traces/alibaba2023/nodes.csv "
                 "--placement random --seed 5 --out %s/r%d",
                 HETSIM_SOURCE_DIR, HETSIM_SOURCE_DIR, dir, i);
        cr_assert_eq(clitest_run(NULL, args, out, sizeof out, err, sizeof err),
                     0, "%s", err);
    }
    const char *files[] = {"summary.json", "timeline.csv", "jobs.csv"};
    for (size_t k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/r0/%s", dir, files[k]);
        clitest_read_file(path, a, sizeof a);
        snprintf(path, sizeof path, "%s/r1/%s", dir, files[k]);
        clitest_read_file(path, b, sizeof b);
        cr_assert_str_not_empty(a);
        cr_assert_str_eq(a, b, "%s differs", files[k]);
    }
}

/* ---- the old sharing loop, reproduced ------------------------------------ */

/* Start and finish of every job of jobs.csv TEXT (first four columns:
 * id, submit, start, finish) as "id,start,finish" lines into DST. */
static void start_finish(const char *text, char *dst, size_t cap)
{
    const char *p = strchr(text, '\n');
    size_t n = 0;
    while (p && p[1]) {
        const char *line = p + 1, *c1 = strchr(line, ','), *c2, *c4;
        p = strchr(line, '\n');
        cr_assert_not_null(c1);
        c2 = strchr(c1 + 1, ',');
        cr_assert_not_null(c2);
        c4 = strchr(strchr(c2 + 1, ',') + 1, ',');
        if (!c4 || (p && c4 > p))
            c4 = p ? p : line + strlen(line);
        n += (size_t)snprintf(dst + n, cap - n, "%.*s%.*s\n",
                              (int)(c1 - line), line, (int)(c4 - c2), c2);
        cr_assert(n < cap);
    }
}

/* Every job starts and finishes when the old loop (tests/data/share/oldloop,
 * made by the old binary before it went) had it start and finish, and the
 * summary's figures are the same numbers; avg_wait_s is now JCT - time
 * running, start - submit in exact arithmetic: equal to 1e-12. */
static void expect_old_loop(const char *name, const char *args)
{
    static char a[1 << 18], b[1 << 18], x[1 << 18], y[1 << 18];
    char cmd[2048], path[512];
    static const char *const keys[] = {
        "jobs_completed", "jobs_unschedulable", "makespan_s", "avg_jct_s",
        "gpu_utilization", "effective_utilization", "frag_rate_mean",
        "jobs_util_packed"};
    snprintf(cmd, sizeof cmd, "share -q --no-plots %s --out %s/%s", args, dir,
             name);
    cr_assert_eq(clitest_run(HETSIM_SOURCE_DIR, cmd, out, sizeof out, err,
                             sizeof err),
                 0, "%s", err);
    snprintf(path, sizeof path, "%s/share/oldloop/%s-jobs.csv",
             HETSIM_TEST_DATA, name);
    clitest_read_file(path, a, sizeof a);
    snprintf(path, sizeof path, "%s/%s/jobs.csv", dir, name);
    clitest_read_file(path, b, sizeof b);
    start_finish(a, x, sizeof x);
    start_finish(b, y, sizeof y);
    cr_assert_str_eq(x, y, "%s: start and finish times differ", name);
    snprintf(path, sizeof path, "%s/share/oldloop/%s-summary.json",
             HETSIM_TEST_DATA, name);
    clitest_read_file(path, a, sizeof a);
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, name);
    clitest_read_file(path, b, sizeof b);
    cJSON *old = cJSON_Parse(a), *now = cJSON_Parse(b);
    cr_assert(old && now);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        double u = cJSON_GetObjectItemCaseSensitive(old, keys[k])->valuedouble;
        cJSON *v = cJSON_GetObjectItemCaseSensitive(now, keys[k]);
        cr_assert(cJSON_IsNumber(v), "%s", keys[k]);
        cr_assert_eq(u, v->valuedouble, "%s %s: %.17g vs %.17g", name, keys[k],
                     u, v->valuedouble);
    }
    double w0 = cJSON_GetObjectItemCaseSensitive(old, "avg_wait_s")->valuedouble;
    double w1 = cJSON_GetObjectItemCaseSensitive(now, "avg_wait_s")->valuedouble;
    cr_assert_float_eq(w0, w1, 1e-12 * w0);
    cJSON_Delete(old);
    cJSON_Delete(now);
}

Test(share_cmd, the_one_engine_replays_the_old_loop_job_for_job)
{
    const char *pods = "--trace traces/alibaba2023/pods.csv --cluster "
                       "alibaba2023:traces/alibaba2023/nodes.csv";
    char args[512];
    snprintf(args, sizeof args, "%s --placement fgd", pods);
    expect_old_loop("pods-fgd", args);
    snprintf(args, sizeof args, "%s --placement random", pods);
    expect_old_loop("pods-random", args);
    expect_old_loop("gavel-dot-product-1",
                    "--trace traces/gavel/msr-seed0-6214e9.csv --cluster "
                    "gavel-108 --throughputs "
                    "traces/gavel/simulation_throughputs.json --placement "
                    "dot-product --util-pack 1");
}
