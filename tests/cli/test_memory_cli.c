/* test_memory_cli.c -- the memory model through `hetsim run`: oom_events,
 * wasted_gpu_s and per_type_completion_s in summary.json, --oom-detect-s,
 * --placement ...,mem-aware, and the errors of bad memory input. Runs the
 * built binary.
 *
 * mem_oom.csv on mem_k80_p100.json (K80: 12 GB, speed 0.5, listed first;
 * P100: 16 GB, the reference; 2 GPUs each): A (2 GPUs, 100 s, needs
 * 16,000 MB) and B (2 GPUs, 50 s, 8,000 MB) at 0. fifo with first-fit puts
 * A on K80 and B on P100; B ends at 50; A runs out of memory at 60 (2 x 60
 * = 120 GPU-s wasted) and runs on P100 60-160. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_helpers.h"

#define MDATA HETSIM_TEST_DATA "/cli"

static char m_out[1 << 16], m_err[1 << 16], m_dir[64];

static void m_setup(void) { clitest_make_dir(m_dir, "hetsim-mem"); }
static void m_teardown(void) { clitest_remove_dir(m_dir); }

TestSuite(memory_cli, .init = m_setup, .fini = m_teardown);

static int run(const char *extra)
{
    char args[2048];
    snprintf(args, sizeof args,
             "run --trace %s/mem_oom.csv --cluster %s/mem_k80_p100.json "
             "--placement first-fit --out %s/r -q %s",
             MDATA, MDATA, m_dir, extra);
    return clitest_run(NULL, args, m_out, sizeof m_out, m_err, sizeof m_err);
}

static cJSON *summary(void)
{
    static char text[1 << 16];
    char path[256];
    snprintf(path, sizeof path, "%s/r/summary.json", m_dir);
    clitest_read_file(path, text, sizeof text);
    cJSON *s = cJSON_Parse(text);
    cr_assert_not_null(s, "%s", text);
    return s;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

Test(memory_cli, summary_counts_the_oom_and_its_wasted_gpu_time)
{
    cr_assert_eq(run(""), 0, "%s", m_err);
    cJSON *s = summary();
    cr_assert_eq(num(s, "oom_events"), 1);
    cr_assert_eq(num(s, "wasted_gpu_s"), 120);
    cr_assert_eq(num(s, "oom_detect_s"), 60);
    cr_assert_eq(num(s, "jobs_with_memory_need"), 2);
    cr_assert_eq(num(s, "avg_jct_s"), 105); /* (160 + 50) / 2 */
    cr_assert_eq(num(s, "makespan_s"), 160);
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(
        s, "per_type_completion_s");
    cr_assert_eq(num(done, "P100"), 160);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(done, "K80")));
    cJSON_Delete(s);
}

/* --oom-detect-s 10: A fails at 10 (20 GPU-s), waits for B's P100 until
 * 50, ends at 150. */
Test(memory_cli, oom_detect_s_moves_the_failure)
{
    cr_assert_eq(run("--oom-detect-s 10"), 0, "%s", m_err);
    cJSON *s = summary();
    cr_assert_eq(num(s, "wasted_gpu_s"), 20);
    cr_assert_eq(num(s, "makespan_s"), 150);
    cJSON_Delete(s);
}

/* mem-aware with exact estimates: A on P100 0-100, B on K80 at half speed
 * 0-100; no OOM. */
Test(memory_cli, mem_aware_placement_never_runs_out_of_memory)
{
    cr_assert_eq(run("--placement first-fit,mem-aware:0.02 "
                     "--estimates oracle"), 0, "%s", m_err);
    cJSON *s = summary();
    cr_assert_eq(num(s, "oom_events"), 0);
    cr_assert_eq(num(s, "wasted_gpu_s"), 0);
    cr_assert_eq(num(s, "makespan_s"), 100);
    cr_assert_eq(num(s, "mem_aware_margin"), 0.02);
    cJSON_Delete(s);
}

Test(memory_cli, bad_options_are_usage_errors)
{
    const char *bad[] = {"--oom-detect-s -1", "--oom-detect-s x",
                         "--placement first-fit,mem-careful",
                         "--placement mem-aware:-1",
                         "--placement nearest,mem-aware"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(run(bad[i]), 2, "%s", bad[i]);
        cr_assert(strstr(m_err, "Try 'hetsim"), "%s: %s", bad[i], m_err);
    }
}

Test(memory_cli, a_negative_memory_need_names_file_and_line)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run --trace %s/mem_negative.csv --cluster %s/mem_k80_p100.json "
             "--out %s/r", MDATA, MDATA, m_dir);
    cr_assert_eq(clitest_run(NULL, args, m_out, sizeof m_out, m_err,
                             sizeof m_err), 3);
    cr_assert(strstr(m_err, "mem_negative.csv:3:5: gpu_mem_mb must be a "
                            "number > 0"), "%s", m_err);
    char path[256];
    snprintf(path, sizeof path, "%s/r/summary.json", m_dir);
    FILE *f = fopen(path, "r");
    cr_assert_null(f, "a bad trace left a summary behind");
}

/* Memory from the matrix: tests/data/throughputs/valid/small.json measures
 * ('Job A', 2) at 18 steps/s on V100 and 0.0 on K80, which has less memory
 * (12,288 MB): A needs V100's 16,384 MB. A memory-blind first-fit believes
 * the cluster's speeds, K80 at 1/4 of V100, and tries K80 first: out of
 * memory at 60 (2 x 60 GPU-s), then 1,800 steps / 18 = 100 s on V100:
 * done at 160. mem-aware with exact estimates goes to V100 at once: 100. */
Test(memory_cli, a_zero_in_the_matrix_is_a_memory_need)
{
    for (int aware = 0; aware < 2; aware++) {
        char args[2048];
        snprintf(args, sizeof args,
                 "run --trace %s/mem_matrix.csv --cluster %s/mem_k80_v100.json"
                 " --throughputs %s/throughputs/valid/small.json --out %s/r "
                 "-q --placement first-fit%s", MDATA, MDATA, HETSIM_TEST_DATA,
                 m_dir, aware ? ",mem-aware --estimates oracle" : "");
        cr_assert_eq(clitest_run(NULL, args, m_out, sizeof m_out, m_err,
                                 sizeof m_err), 0, "%s", m_err);
        cJSON *s = summary();
        cr_assert_eq(num(s, "jobs_with_memory_need"), 1);
        cr_assert_eq(num(s, "oom_events"), aware ? 0 : 1);
        cr_assert_eq(num(s, "wasted_gpu_s"), aware ? 0 : 120);
        cr_assert_eq(num(s, "makespan_s"), aware ? 100 : 160);
        cJSON_Delete(s);
    }
}
