/* test_gavel_cli.c -- `hetsim run --policy gavel-*`: --round-s reaches the
 * policy (and only a policy that has rounds), and two runs write the same
 * bytes. Runs the built binary. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "run_helpers.h"

#define CDATA HETSIM_TEST_DATA "/cli"

static char gv_out[1 << 14], gv_err[1 << 14];
static char gv_a[1 << 16], gv_b[1 << 16];

/* Runs gavel-maxmin with rounds of 60 s into DIR/OUT. */
static void run_maxmin(const char *dir, const char *out)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "run -q --trace %s/small.csv --cluster "
             "%s/small.json --policy gavel-maxmin --round-s 60 "
             "--restart-overhead 5 --out %s",
             CDATA, CDATA, out);
    cr_assert_eq(
        clitest_run(dir, cmd, gv_out, sizeof gv_out, gv_err, sizeof gv_err), 0,
        "%s", gv_err);
}

static void expect_same_file(const char *dir, const char *name)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/a/%s", dir, name);
    snprintf(b, sizeof b, "%s/b/%s", dir, name);
    clitest_read_file(a, gv_a, sizeof gv_a);
    clitest_read_file(b, gv_b, sizeof gv_b);
    cr_expect(gv_a[0] != '\0', "%s is empty", a);
    cr_expect_str_eq(gv_a, gv_b, "%s differs between runs", name);
}

Test(gavel_cli, round_s_reaches_the_policy_and_runs_repeat_exactly)
{
    char dir[64], path[256];
    clitest_make_dir(dir, "hetsim-gavel");
    run_maxmin(dir, "a");
    run_maxmin(dir, "b");
    expect_same_file(dir, "summary.json");
    expect_same_file(dir, "jobs.csv");
    expect_same_file(dir, "timeline.csv");
    snprintf(path, sizeof path, "%s/a/summary.json", dir);
    clitest_read_file(path, gv_a, sizeof gv_a);
    const char *opt = strstr(gv_a, "\"round_s\":");
    cr_expect(opt &&
                  strncmp(opt + strspn(opt + 10, "\t ") + 10, "\"60\"", 4) == 0,
              "%s", gv_a);
    /* j5 asks 8 GPUs of one type, and the cluster has 4 of each. */
    cr_expect(strstr(gv_a, "\"jobs_completed\":\t6,"), "%s", gv_a);
    cr_expect(strstr(gv_a, "\"jobs_unschedulable\":\t1,"), "%s", gv_a);
    clitest_remove_dir(dir);
}

Test(gavel_cli, round_s_on_a_policy_without_rounds_is_a_usage_error)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "run -q --trace %s/small.csv --cluster "
             "%s/small.json --policy fifo --round-s 60 --out /nonexistent",
             CDATA, CDATA);
    cr_expect_eq(
        clitest_run(NULL, cmd, gv_out, sizeof gv_out, gv_err, sizeof gv_err),
        2);
    cr_expect(strstr(gv_err, "round_s"), "%s", gv_err);
}
