/* test_check.c -- `hetsim check` against golden files written by hand from
 * the FIFO schedule drawn in tests/test_policies.c (fifo/
 * follows_the_schedule_drawn_by_hand): on tests/data/cli/small, 6 jobs
 * complete, the makespan is 170 s and the average JCT 465 / 6 = 77.5 s. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "run_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"

static char ck_out[1 << 16], ck_err[1 << 16];
static char ck_dir[64];

/* FIFO on the small fixture into ck_dir/run. */
static void setup(void)
{
    clitest_make_dir(ck_dir, "hetsim-check");
    char args[512];
    snprintf(args, sizeof args, "run -q --trace " SMALL ".csv --cluster "
             SMALL ".json --policy fifo --out %s/run", ck_dir);
    cr_assert_eq(clitest_run(NULL, args, ck_out, sizeof ck_out, ck_err,
                             sizeof ck_err), 0, "%s", ck_err);
}
static void teardown(void) { clitest_remove_dir(ck_dir); }

TestSuite(check, .init = setup, .fini = teardown);

static void write_file(const char *name, const char *text)
{
    clitest_write_file(ck_dir, name, text);
}

/* `hetsim check --baseline ck_dir/GOLDEN --result ck_dir/RESULT EXTRA`. */
static int check(const char *golden, const char *result, const char *extra)
{
    char args[1024];
    snprintf(args, sizeof args, "check --baseline %s/%s --result %s/%s %s",
             ck_dir, golden, ck_dir, result, extra);
    return clitest_run(NULL, args, ck_out, sizeof ck_out, ck_err,
                       sizeof ck_err);
}

Test(check, hand_computed_figures_pass)
{
    write_file("golden.json",
               "{\"hetsim_baseline\": 1,\n"
               " \"figures\": {\"jobs_completed\": 6, \"makespan_s\": 170,\n"
               "               \"avg_jct_s\": 77.5}}\n");
    cr_assert_eq(check("golden.json", "run/summary.json", ""), 0, "%s%s",
                 ck_out, ck_err);
    cr_expect(strstr(ck_out, "3 figures within tolerance 0.001") != NULL,
              "%s", ck_out);
}

Test(check, a_moved_figure_is_a_regression_with_a_table)
{
    /* 77.5 against a golden 70: +7.5 / 70 = +10.71%. */
    write_file("golden.json",
               "{\"hetsim_baseline\": 1,\n"
               " \"figures\": {\"makespan_s\": 170, \"avg_jct_s\": 70,\n"
               "               \"no_such_figure\": 1}}\n");
    cr_assert_eq(check("golden.json", "run/summary.json", ""), 1, "%s",
                 ck_err);
    cr_expect(strstr(ck_out, "figure") && strstr(ck_out, "golden") &&
              strstr(ck_out, "change"), "%s", ck_out);
    const char *row = strstr(ck_out, "avg_jct_s");
    cr_assert_not_null(row, "%s", ck_out);
    cr_expect(strstr(row, "70") && strstr(row, "77.5") &&
              strstr(row, "+10.71%"), "%s", ck_out);
    cr_expect(strstr(ck_out, "no_such_figure") &&
              strstr(ck_out, "missing"), "%s", ck_out);
    cr_expect(strstr(ck_out, "2 of 3 figures moved") != NULL, "%s", ck_out);
    cr_expect(strstr(ck_out, "makespan_s") == NULL, "170 did not move");
}

Test(check, tolerance_is_relative_to_the_golden_value)
{
    /* |77.5 - 77.4| / 77.4 = 0.00129: beyond 0.001, within 0.002. */
    write_file("golden.json", "{\"hetsim_baseline\": 1, \"tolerance\": 0.002,"
               " \"figures\": {\"avg_jct_s\": 77.4}}\n");
    cr_expect_eq(check("golden.json", "run/summary.json", ""), 0);
    cr_expect_eq(check("golden.json", "run/summary.json",
                       "--tolerance 0.001"), 1);
    cr_expect_eq(check("golden.json", "run/summary.json",
                       "--tolerance 0.0013"), 0);
    /* --keys leaves out what it does not name. */
    cr_expect_eq(check("golden.json", "run/summary.json",
                       "--tolerance 0 --keys makespan_s"), 3);
}

Test(check, write_baseline_then_check_passes_and_keys_select)
{
    char args[512];
    snprintf(args, sizeof args, "check --write-baseline %s/g.json --result "
             "%s/run/summary.json --keys makespan_s,avg_jct_s", ck_dir,
             ck_dir);
    cr_assert_eq(clitest_run(NULL, args, ck_out, sizeof ck_out, ck_err,
                             sizeof ck_err), 0, "%s", ck_err);
    static char g[4096];
    char path[128];
    snprintf(path, sizeof path, "%s/g.json", ck_dir);
    clitest_read_file(path, g, sizeof g);
    cr_expect(strstr(g, "\"avg_jct_s\":\t77.5") != NULL, "%s", g);
    cr_expect(strstr(g, "\"makespan_s\":\t170") != NULL, "%s", g);
    cr_expect(strstr(g, "jobs_completed") == NULL, "%s", g);
    cr_expect_eq(check("g.json", "run/summary.json", "--tolerance 0"), 0,
                 "%s", ck_out);
}

Test(check, compares_the_rows_of_a_sweep_csv)
{
    write_file("sweep.csv",
               "trace,load,cluster,policy,estimates,seeds,avg_jct_s_mean,"
               "avg_jct_s_sd\n"
               "t.csv,,small,fifo,oracle,3,77.5,0\n"
               "t.csv,,small,\"las[quantum=30,metric=time]\",oracle,3,53.5,"
               "1\n");
    write_file("golden.json",
               "{\"hetsim_baseline\": 1, \"figures\": {\n"
               " \"t.csv||small|fifo|oracle:avg_jct_s_mean\": 77.5,\n"
               " \"t.csv||small|las[quantum=30,metric=time]|oracle:"
               "avg_jct_s_mean\": 50}}\n");
    cr_expect_eq(check("golden.json", "sweep.csv", ""), 1, "%s", ck_err);
    cr_expect(strstr(ck_out, "las[quantum=30,metric=time]") != NULL, "%s",
              ck_out);
    cr_expect(strstr(ck_out, "+7%") != NULL, "%s", ck_out); /* 53.5 / 50 */
    cr_expect_eq(check("golden.json", "sweep.csv",
                       "--tolerance 0.07"), 0, "%s", ck_out);
}

Test(check, bad_input_exits_3_with_file_and_line)
{
    write_file("unknown.json", "{\"hetsim_baseline\": 1,\n"
               " \"figures\": {\"avg_jct_s\": 77.5},\n"
               " \"tolerence\": 0.1}\n");
    cr_expect_eq(check("unknown.json", "run/summary.json", ""), 3);
    cr_expect(strstr(ck_err, "unknown.json:3: unknown key") != NULL, "%s",
              ck_err);
    write_file("type.json", "{\"hetsim_baseline\": 1, \"figures\": {\n"
               " \"avg_jct_s\": \"77.5\"}}\n");
    cr_expect_eq(check("type.json", "run/summary.json", ""), 3);
    cr_expect(strstr(ck_err, "type.json:2: a figure must be a number") !=
              NULL, "%s", ck_err);
    write_file("broken.json", "{\"hetsim_baseline\": 1,\n \"figures\": {\n");
    cr_expect_eq(check("broken.json", "run/summary.json", ""), 3);
    cr_expect(strstr(ck_err, "broken.json:3:1: invalid JSON: the text "
                                  "ends too early") != NULL, "%s",
              ck_err);
    write_file("plain.json", "{\"figures\": {\"avg_jct_s\": 77.5}}\n");
    cr_expect_eq(check("plain.json", "run/summary.json", ""), 3);
    write_file("ok.json", "{\"hetsim_baseline\": 1, \"figures\": "
               "{\"avg_jct_s\": 77.5}}\n");
    cr_expect_eq(check("ok.json", "missing/summary.json", ""), 3);
    cr_expect_eq(check("missing.json", "run/summary.json", ""), 3);
    write_file("bad.csv", "trace,seeds,x\nt,3\n");
    cr_expect_eq(check("ok.json", "bad.csv", ""), 3);
    cr_expect(strstr(ck_err, "bad.csv:2: 2 fields where the header has 3") !=
              NULL, "%s", ck_err);
}

Test(check, misuse_is_a_usage_error)
{
    cr_expect_eq(clitest_run(NULL, "check --result x.json", ck_out,
                             sizeof ck_out, ck_err, sizeof ck_err), 2);
    cr_expect_eq(clitest_run(NULL, "check --baseline a --write-baseline b "
                             "--result c", ck_out, sizeof ck_out, ck_err,
                             sizeof ck_err), 2);
    cr_expect_eq(clitest_run(NULL, "check --baseline a --result c "
                             "--tolerance -1", ck_out, sizeof ck_out, ck_err,
                             sizeof ck_err), 2);
    cr_expect_eq(clitest_run(NULL, "check --help", ck_out, sizeof ck_out,
                             ck_err, sizeof ck_err), 0);
    cr_expect(strstr(ck_out, "--write-baseline") != NULL);
}
