/* test_outputs.c -- `hetsim run --outputs summary`: only summary.json and
 * perf.json, the summary byte for byte the one of a full run (the figures
 * of the small fixture are hand-checked in test_check.c), no jobs.csv nor
 * timeline.csv, including ones an earlier full run left in the folder;
 * `--outputs jobs`: the same with jobs.csv. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"

static char o_out[1 << 16], o_err[1 << 16];
static char o_dir[64];

static void setup(void)
{
    clitest_make_dir(o_dir, "hetsim-outputs");
}
static void teardown(void)
{
    clitest_remove_dir(o_dir);
}

TestSuite(outputs_option, .init = setup, .fini = teardown);

/* FIFO on the small fixture into o_dir/SUB with EXTRA options. */
static int run_small(const char *sub, const char *extra)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run -q --trace " SMALL ".csv --cluster " SMALL ".json "
             "--policy fifo %s --out %s/%s",
             extra, o_dir, sub);
    return clitest_run(NULL, args, o_out, sizeof o_out, o_err, sizeof o_err);
}

static int exists(const char *sub, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", o_dir, sub, name);
    return access(path, F_OK) == 0;
}

Test(outputs_option, summary_writes_the_same_summary_and_no_big_files)
{
    cr_assert_eq(run_small("all", ""), 0, "%s", o_err);
    cr_assert_eq(run_small("sum", "--outputs summary"), 0, "%s", o_err);
    static char a[1 << 16], b[1 << 16];
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/all/summary.json", o_dir);
    snprintf(pb, sizeof pb, "%s/sum/summary.json", o_dir);
    clitest_read_file(pa, a, sizeof a);
    clitest_read_file(pb, b, sizeof b);
    cr_assert(strstr(a, "\"jobs_completed\":\t6"), "%s", a);
    cr_assert_str_eq(a, b);
    cr_assert(exists("sum", "perf.json"));
    cr_assert_not(exists("sum", "jobs.csv"));
    cr_assert_not(exists("sum", "timeline.csv"));
    cr_assert(exists("all", "jobs.csv"));
}

Test(outputs_option, summary_removes_big_files_of_an_earlier_run)
{
    cr_assert_eq(run_small("r", ""), 0, "%s", o_err);
    cr_assert(exists("r", "jobs.csv"));
    cr_assert_eq(run_small("r", "--outputs summary"), 0, "%s", o_err);
    cr_assert_not(exists("r", "jobs.csv"));
    cr_assert_not(exists("r", "timeline.csv"));
    cr_assert(exists("r", "summary.json"));
}

Test(outputs_option, an_unknown_value_is_a_usage_error)
{
    cr_assert_eq(run_small("x", "--outputs timeline"), 2);
    cr_assert(strstr(o_err, "--outputs wants all, jobs or summary"), "%s",
              o_err);
}

/* --outputs jobs: jobs.csv and summary.json byte for byte a full run's,
 * no timeline.csv (also none left from an earlier full run). */
Test(outputs_option, jobs_writes_the_same_jobs_and_no_timeline)
{
    cr_assert_eq(run_small("all", ""), 0, "%s", o_err);
    cr_assert_eq(run_small("j", ""), 0, "%s", o_err);
    cr_assert(exists("j", "timeline.csv"));
    cr_assert_eq(run_small("j", "--outputs jobs"), 0, "%s", o_err);
    static char a[1 << 16], b[1 << 16];
    static const char *const files[] = {"jobs.csv", "summary.json"};
    for (int i = 0; i < 2; i++) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/all/%s", o_dir, files[i]);
        snprintf(pb, sizeof pb, "%s/j/%s", o_dir, files[i]);
        clitest_read_file(pa, a, sizeof a);
        clitest_read_file(pb, b, sizeof b);
        cr_assert_str_eq(a, b, "%s", files[i]);
    }
    cr_assert(strstr(a, "\"jobs_completed\":\t6"), "%s", a);
    cr_assert_not(exists("j", "timeline.csv"));
    cr_assert(exists("j", "perf.json"));
}
