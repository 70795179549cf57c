/* test_cli.c -- the hetsim program as a user meets it: exit codes, messages,
 * result files, byte-identical reruns. Runs the built binary. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/run_helpers.h"

#define DATA HETSIM_TEST_DATA "/cli"

static char out_text[65536], err_text[65536];

#define read_file clitest_read_file

/* Runs `hetsim ARGS` (a shell fragment); returns the exit code and keeps
 * stdout and stderr in out_text and err_text. */
static int hetsim(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return clitest_run(NULL, args, out_text, sizeof out_text, err_text,
                       sizeof err_text);
}

static char tmpdir[64];

static void make_tmpdir(void) { clitest_make_dir(tmpdir, "hetsim-cli"); }
static void remove_tmpdir(void) { clitest_remove_dir(tmpdir); }
#define count_files clitest_count_entries

TestSuite(cli, .init = make_tmpdir, .fini = remove_tmpdir);

Test(cli, help_teaches_usage_and_exits_zero)
{
    cr_assert_eq(hetsim("--help"), 0);
    cr_assert(strstr(out_text, "Usage: hetsim COMMAND"));
    cr_assert(strstr(out_text, "run"));
    cr_assert_eq(hetsim("run --help"), 0);
    cr_assert(strstr(out_text, "--trace FILE"));
    cr_assert(strstr(out_text, "Example:"));
    cr_assert_eq(hetsim("--version"), 0);
    cr_assert(strstr(out_text, "hetsim 0."));
}

Test(cli, misuse_prints_one_line_and_a_hint_and_exits_two)
{
    const char *cases[] = {
        "", "frobnicate", "run --cluster gavel-108",
        "run --trace x.csv", "run --trace x.csv --cluster c --bogus",
        "run --trace x.csv --cluster c --seed -3",
        "run --trace x.csv --cluster c --policy nope", "run --trace",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(hetsim("%s", cases[i]), 2, "case '%s'", cases[i]);
        cr_assert(strstr(err_text, "--help' for more information"),
                  "case '%s': %s", cases[i], err_text);
    }
    hetsim("run --trace x.csv --cluster c --policy nope");
    cr_assert(strstr(err_text, "unknown policy 'nope' (choose from: fifo"),
              "%s", err_text);
}

Test(cli, bad_input_names_file_and_line_exits_three_and_writes_nothing)
{
    struct {
        const char *args, *message;
    } cases[] = {
        {"--trace /nonexistent.csv --cluster gavel-108",
         "hetsim: error: /nonexistent.csv: "},
        {"--trace " DATA "/bad_row.csv --cluster gavel-108",
         "hetsim: error: " DATA "/bad_row.csv:3:"},
        {"--trace " DATA "/unknown_type.csv --cluster " DATA "/small.json",
         "hetsim: error: " DATA "/unknown_type.csv:3: gpu_type \"A100\" is "
         "not a GPU type of cluster small"},
        {"--trace " DATA "/small.csv --cluster no-such-preset",
         "no such cluster file or built-in cluster (built-in: gavel-108"},
        {"--trace " DATA "/small.csv --cluster /nonexistent.json",
         "hetsim: error: /nonexistent.json: No such file"},
        {"--trace " DATA "/small.csv --cluster "
         HETSIM_TEST_DATA "/cluster/invalid/syntax_error.json",
         "syntax_error.json:4:37: invalid JSON near '\"'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(hetsim("run %s --out %s/r", cases[i].args, tmpdir), 3,
                     "case %zu: %s", i, err_text);
        cr_assert(strstr(err_text, cases[i].message), "case %zu: %s", i,
                  err_text);
        cr_assert_eq(count_files(tmpdir), 0, "case %zu wrote files", i);
    }
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

/* The hand-drawn schedule of test_policies.c, through the whole program. */
Test(cli, run_writes_the_four_result_files_with_hand_computed_figures)
{
    cr_assert_eq(hetsim("run --trace %s/small.csv --cluster %s/small.json "
                        "--out %s/r", DATA, DATA, tmpdir), 0, "%s", err_text);
    cr_assert(strstr(out_text, "jobs completed"));
    char path[512], text[65536];
    snprintf(path, sizeof path, "%s/r/summary.json", tmpdir);
    read_file(path, text, sizeof text);
    cJSON *s = cJSON_Parse(text);
    cr_assert_not_null(s);
    cr_assert_eq(number(s, "jobs_total"), 7);
    cr_assert_eq(number(s, "jobs_completed"), 6);
    cr_assert_eq(number(s, "jobs_unschedulable"), 1);
    cr_assert_eq(number(s, "makespan_s"), 170);
    cr_assert_eq(number(s, "avg_jct_s"), 465.0 / 6);
    cr_assert_eq(number(s, "median_jct_s"), 75);
    cr_assert_eq(number(s, "gpu_utilization"), 835.0 / 1360);
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(s,
                                                      "utilization_by_type");
    cr_assert_eq(number(by, "K80"), 520.0 / 680);
    cJSON_Delete(s);

    snprintf(path, sizeof path, "%s/r/jobs.csv", tmpdir);
    read_file(path, text, sizeof text);
    cr_assert(strstr(text, "job_id,submit_time,start_time,finish_time,jct,"
                           "wait,num_gpus,gpu_type,preemptions,status,reason\n"));
    cr_assert(strstr(text, "\nj2,10,10,130,120,0,4,K80,0,completed,\n"), "%s",
              text);
    cr_assert(strstr(text, "\nj3,20,50,60,40,30,1,V100,0,completed,\n"));
    cr_assert(strstr(text, "\nj5,35,,,,,8,,0,unschedulable,needs 8 "
                           "GPUs; the GPU types it may use have at most 4\n"));
    cr_assert(strstr(text, "\nj6,40,130,170,130,90,1,K80,0,completed,\n"));

    /* Timeline: at 20 the first job waits; at 50 two start on freed V100s.
     * frag_gpus (FGD, README "Definitions"): of the 7 jobs, those that fit
     * a node with f free GPUs alone are, on the V100 node, k <= f among
     * j0-j5 (j6 is K80 only): 2 at f = 1, 4 at f = 2 or 3, 5 at f = 4; on
     * a K80 node, 3 at f = 1 and 5 at f = 2. F = f (7 - fit) / 7: V100
     * F(1) = 5/7, F(2) = 6/7, F(4) = 8/7; K80 F(1) = F(2) = 4/7. At 0 the
     * V100 is full, both K80 nodes free: 8/7; from 10 to 50 all full: 0;
     * 55 V100 1 free: 5/7; 60 2 free: 6/7; 100 4 free: 8/7; 130 j6 holds
     * one K80: 8/7 + 4/7 + 4/7 = 16/7; 170 all free: 16/7. */
    snprintf(path, sizeof path, "%s/r/timeline.csv", tmpdir);
    read_file(path, text, sizeof text);
    const char *head = "time,queued,busy_gpus,busy_V100,busy_K80,frag_gpus\n"
                       "0,0,4,4,0,1.1428571428571428\n10,0,8,4,4,0\n"
                       "20,1,8,4,4,0\n30,2,8,4,4,0\n40,3,8,4,4,0\n"
                       "50,1,8,4,4,0\n55,1,7,3,4,0.7142857142857143\n"
                       "60,1,6,2,4,0.8571428571428571\n";
    cr_assert(strncmp(text, head, strlen(head)) == 0, "%s", text);
    cr_assert(strstr(text, "\n100,1,4,0,4,1.1428571428571428\n"
                           "130,0,1,0,1,2.2857142857142856\n"),
              "%s", text);
    cr_assert(strstr(text, "\n170,0,0,0,0,2.2857142857142856\n"));

    snprintf(path, sizeof path, "%s/r/perf.json", tmpdir);
    read_file(path, text, sizeof text);
    s = cJSON_Parse(text);
    cr_assert_geq(number(s, "sim_wall_s"), 0);
    cr_assert_gt(number(s, "peak_rss_mb"), 0);
    cJSON_Delete(s);
}

static void same_bytes(const char *a, const char *b)
{
    static char x[1 << 20], y[1 << 20];
    read_file(a, x, sizeof x);
    read_file(b, y, sizeof y);
    cr_assert_gt(strlen(x), 0, "%s is empty", a);
    cr_assert_str_eq(x, y, "%s and %s differ", a, b);
}

Test(cli, the_same_inputs_and_seed_give_byte_identical_results)
{
    const char *trace = HETSIM_SOURCE_DIR "/traces/gavel/msr-seed0-6214e9.csv";
    for (int i = 0; i < 2; i++)
        cr_assert_eq(hetsim("run -q --trace %s --cluster gavel-108 --seed 7 "
                            "--out %s/run%d", trace, tmpdir, i), 0, "%s",
                     err_text);
    const char *files[] = {"summary.json", "jobs.csv", "timeline.csv"};
    for (int i = 0; i < 3; i++) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/run0/%s", tmpdir, files[i]);
        snprintf(b, sizeof b, "%s/run1/%s", tmpdir, files[i]);
        same_bytes(a, b);
    }
    cr_assert_eq(out_text[0], '\0', "--quiet printed: %s", out_text);
}

Test(cli, a_failed_run_leaves_earlier_results_untouched)
{
    cr_assert_eq(hetsim("run -q --trace %s/small.csv --cluster %s/small.json "
                        "--out %s/r", DATA, DATA, tmpdir), 0);
    char path[512], before[65536], after[65536];
    snprintf(path, sizeof path, "%s/r/summary.json", tmpdir);
    read_file(path, before, sizeof before);
    cr_assert_eq(hetsim("run --trace %s/bad_row.csv --cluster %s/small.json "
                        "--out %s/r", DATA, DATA, tmpdir), 3);
    read_file(path, after, sizeof after);
    cr_assert_str_eq(before, after);
    snprintf(path, sizeof path, "%s/r", tmpdir);
    /* The 4 results and the set's manifest (.hetsim-set), nothing else. */
    cr_assert_eq(count_files(path), 5, "temporary files were left behind");
}

Test(cli, lists_clusters_and_policies)
{
    cr_assert_eq(hetsim("clusters"), 0);
    cr_assert(strstr(out_text, "gavel-108"));
    cr_assert(strstr(out_text, "philly-like"));
    cr_assert(strstr(out_text, "mixed-modern"));
    cr_assert(strstr(out_text, "K80"));
    cr_assert_eq(hetsim("policies"), 0);
    cr_assert(strstr(out_text, "fifo"));
}

/* ---- Numbers that round-trip ------------------------------------------- */

#include <math.h>
#include <gsl/gsl_rng.h>

#include "cli.h"

/* Reference: the shortest "%.Ng" that strtod reads back as X. */
static int reference_digits(double x)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return prec;
    }
    return 17;
}

/* Significant digits of a decimal text, trailing zeros not counted. */
static int significant_digits(const char *s)
{
    int n = 0, last = 0, started = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s >= '1' && *s <= '9')
            started = 1;
        if (started && *s >= '0' && *s <= '9') {
            n++;
            if (*s != '0')
                last = n;
        }
    }
    return last;
}

Test(number_format, reads_back_exactly_with_the_fewest_digits)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    char buf[40];
    for (int i = 0; i < 300000; i++) {
        double x;
        switch (i % 4) {
        case 0: x = gsl_rng_uniform(r) * 1e7; break;            /* any bits */
        case 1: x = floor(gsl_rng_uniform(r) * 1e9) / 1e3; break; /* ms */
        case 2: x = 1 + gsl_rng_uniform(r); break;              /* near 1 */
        default: x = -gsl_rng_uniform(r) * 1e15; break;
        }
        cli_fmt_double(buf, x);
        cr_assert_eq(strtod(buf, NULL), x, "%.17g printed as %s", x, buf);
        cr_assert_leq(significant_digits(buf), reference_digits(x),
                      "%.17g printed as %s", x, buf);
    }
    gsl_rng_free(r);
    const double edges[] = {1, 2, 0.1, 0.3, 999.9999999999999,
                            2.0000000000000004, 1.9999999999999998,
                            4503599627370495.5, 9007199254740991.0, 1e300,
                            -0.5, 5e-324};
    const char *want[] = {"1", "2", "0.1", "0.3", "999.9999999999999",
                          "2.0000000000000004", "1.9999999999999998",
                          "4503599627370495.5", "9007199254740991",
                          "1e+300", "-0.5", "4.94065645841247e-324"};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        cr_assert_str_eq(cli_fmt_double(buf, edges[i]), want[i]);
}

/* printf's text of X at the fewest digits that read back (fixed notation
 * whenever X is not a whole number of 1 <= |x| < 2^53): the text expected
 * of cli_fmt_double, character for character. */
static const char *reference_text(char *buf, size_t cap, double x)
{
    snprintf(buf, cap, "%.*g", reference_digits(x), x);
    return buf;
}

/* Whole numbers as printf's "%lld": every count of digits, at and around
 * each power of ten and of two (where output.c's put_digits changes from
 * 64-bit to 32-bit steps, and from four digits a step to two), and the
 * extremes. */
Test(number_format, whole_numbers_print_as_printf_does)
{
    char buf[40], ref[40];
    int64_t v[4 * 19 + 4 * 63 + 4], n = 0;
    for (int64_t p = 1, k = 0; k < 19; k++) {
        v[n++] = p - 1;
        v[n++] = p;
        v[n++] = p + 1;
        v[n++] = -p;
        if (k < 18) /* 10^19 is past INT64_MAX */
            p *= 10;
    }
    for (int k = 0; k < 63; k++) {
        int64_t p = (int64_t)1 << k;
        v[n++] = p - 1;
        v[n++] = p;
        v[n++] = p + 1;
        v[n++] = -p - 1;
    }
    v[n++] = INT64_MAX;
    v[n++] = INT64_MIN;
    v[n++] = INT64_MAX - 1;
    v[n++] = 4294967295 + 12345;
    for (int64_t i = 0; i < n; i++) {
        *cli_put_int(buf, v[i]) = '\0';
        snprintf(ref, sizeof ref, "%lld", (long long)v[i]);
        cr_assert_str_eq(buf, ref);
    }
    for (int64_t x = 0; x < 200000; x++) { /* every number of 1 to 5 digits */
        *cli_put_int(buf, x) = '\0';
        snprintf(ref, sizeof ref, "%lld", (long long)x);
        cr_assert_str_eq(buf, ref);
    }
}

Test(number_format, times_print_as_printf_shortest_text)
{
    /* Milliseconds (as traces write them) up to 2^33 s and past it, and
     * sums and differences of them (the engine's start, finish, JCT and
     * wait times): the same text as the shortest printf precision. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    char buf[40], ref[40];
    for (int i = 0; i < 400000; i++) {
        double scale = pow(10, (double)(1 + gsl_rng_uniform_int(r, 16)));
        double a = floor(gsl_rng_uniform(r) * scale) / 1e3;
        double b = floor(gsl_rng_uniform(r) * scale) / 1e3;
        double x = i % 3 == 0 ? a : i % 3 == 1 ? a + b : a - b;
        if (fabs(x) < 1 || x == floor(x))
            continue; /* other paths; whole numbers print without "e+" */
        cr_assert_str_eq(cli_fmt_double(buf, x),
                         reference_text(ref, sizeof ref, x));
    }
    gsl_rng_free(r);
    const double zeros[] = {0.0, -0.0};
    for (int i = 0; i < 2; i++)
        cr_assert_str_eq(cli_fmt_double(buf, zeros[i]), "0");
    cr_assert_str_eq(cli_fmt_double(buf, 8589934591.999), "8589934591.999");
    cr_assert_str_eq(cli_fmt_double(buf, 8589934592.001), "8589934592.001");
    cr_assert_str_eq(cli_fmt_double(buf, 1.001), "1.001");
    cr_assert_str_eq(cli_fmt_double(buf, 9714.574999999999),
                     "9714.574999999999");
}
