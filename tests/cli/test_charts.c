/* test_charts.c -- the charts of `hetsim run --plots`, drawn by the real
 * gnuplot: every image is a valid PNG and SVG of the size asked for, the
 * datablocks hold what jobs.csv and timeline.csv of the same run say (read
 * here independently), and the Gantt chart follows schedules worked out by
 * hand. Runs the built binary; reads images with tests/plots/helpers.c. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plots/helpers.h"
#include "run_helpers.h"

#define CDATA HETSIM_TEST_DATA "/cli"

static char ch_out[1 << 16], ch_err[1 << 16];
static char ch_text[1 << 20];

/* Runs `hetsim run ARGS --plots --out RES` in test_dir, then points
 * test_dir at RES, where the helpers read. */
static void run_plots(const char *args)
{
    char cmd[2048], work[64];
    strcpy(work, test_dir);
    snprintf(cmd, sizeof cmd, "run %s --plots --out %s/res", args, work);
    cr_assert_eq(clitest_run(NULL, cmd, ch_out, sizeof ch_out, ch_err,
                             sizeof ch_err), 0, "%s", ch_err);
    cr_assert(strlen(work) + 4 < sizeof test_dir);
    memcpy(test_dir + strlen(work), "/res", 5);
}

static void finish(void)
{
    char res[64];
    strcpy(res, test_dir);
    char *slash = strrchr(res, '/');
    if (slash && strcmp(slash, "/res") == 0) {
        *slash = '\0';
        clitest_remove_dir(res);
    } else
        remove_dir();
}

TestSuite(run_charts, .init = make_dir, .fini = finish);

static int cmp_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The jct column (5th) of jobs.csv rows whose status is "completed". */
static size_t read_jcts(double *jct, size_t cap)
{
    clitest_read_file(path_in_dir("jobs.csv"), ch_text, sizeof ch_text);
    size_t n = 0;
    char *line = strchr(ch_text, '\n');
    while (line && *++line) {
        char *eol = strchr(line, '\n');
        *eol = '\0';
        char *f = line;
        for (int k = 0; k < 4; k++)
            f = strchr(f, ',') + 1;
        if (strstr(line, ",completed")) {
            cr_assert(n < cap);
            jct[n++] = strtod(f, NULL);
        }
        line = eol;
    }
    return n;
}

Test(run_charts, draws_valid_images_of_the_sizes_asked_for)
{
    run_plots("--trace " CDATA "/small.csv --cluster " CDATA "/small.json");
    const char *charts[] = {"jct_cdf", "queue", "busy_gpus", "utilization"};
    for (size_t i = 0; i < 4; i++)
        assert_images(charts[i], PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
    /* 8 GPUs: 110 + 8 x 14 = 222 pixels, raised to the 300 minimum. */
    assert_images("gantt", 1100, 300);
}

Test(run_charts, jct_cdf_holds_the_cdf_of_jobs_csv)
{
    run_plots("--trace " CDATA "/small.csv --cluster " CDATA "/small.json");
    double jct[64];
    size_t n = read_jcts(jct, 64);
    cr_assert_eq(n, 6); /* j5 wants 8 GPUs of one type; no type has 8 */
    qsort(jct, n, sizeof *jct, cmp_doubles);
    /* Expected rows: (min, 0), then each distinct value v with the
     * fraction of jobs whose JCT is <= v. */
    struct table t = read_block("jct_cdf.gp", "$cdf0");
    cr_assert(cell(&t, 0, 0) == jct[0] && cell(&t, 0, 1) == 0.0);
    size_t row = 1;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && jct[i + 1] == jct[i])
            continue;
        cr_assert(row < t.rows);
        cr_assert(cell(&t, row, 0) == jct[i], "row %zu: %g, not %g", row,
                  cell(&t, row, 0), jct[i]);
        cr_assert(fabs(cell(&t, row, 1) - (double)(i + 1) / (double)n) <
                  1e-15);
        row++;
    }
    cr_assert_eq(row, t.rows);
    free(t.v);
}

Test(run_charts, busy_gpus_holds_the_rows_of_timeline_csv)
{
    run_plots("--trace " CDATA "/small.csv --cluster " CDATA "/small.json");
    clitest_read_file(path_in_dir("timeline.csv"), ch_text, sizeof ch_text);
    struct table t = read_block("busy_gpus.gp", "$steps");
    cr_assert_eq(t.cols, 3); /* time, V100, K80 */
    /* timeline.csv: time,queued,busy_gpus,busy_V100,busy_K80 */
    size_t row = 0;
    char *line = strchr(ch_text, '\n');
    while (line && *++line) {
        double v[5];
        char *p = line;
        for (int k = 0; k < 5; k++) {
            v[k] = strtod(p, &p);
            p++;
        }
        cr_assert(row < t.rows);
        cr_assert(cell(&t, row, 0) == v[0], "row %zu time", row);
        cr_assert(cell(&t, row, 1) == v[3], "row %zu V100", row);
        cr_assert(cell(&t, row, 2) == v[4], "row %zu K80", row);
        row++;
        line = strchr(line, '\n');
    }
    cr_assert_eq(row, t.rows);
    free(t.v);
}

/* Columns row, start, end, job and restart (the 6th) of $gantt. */
static void assert_gantt(const double (*want)[5], size_t n)
{
    struct table t = read_block("gantt.gp", "$gantt");
    cr_assert_eq(t.rows, n);
    static const size_t col[5] = {0, 1, 2, 3, 5};
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < 5; k++)
            cr_assert(cell(&t, r, col[k]) == want[r][k], "row %zu col %zu: "
                      "%g, not %g", r, col[k], cell(&t, r, col[k]),
                      want[r][k]);
    free(t.v);
}

Test(run_charts, gantt_follows_the_fifo_schedule_worked_out_by_hand)
{
    run_plots("--trace " CDATA "/gantt/fifo.csv --cluster " CDATA
              "/small.json --policy fifo");
    /* By hand, all four jobs on V100 node 0 (rows 0-3; the K80 nodes
     * are rows 4-7 and stay empty). At 0, a (2 GPUs, 100 s) and b (2
     * GPUs, 50 s) start. c (4 GPUs, 20 s) arrives at 10 and heads the
     * queue until a ends at 100: FIFO keeps d (1 GPU) behind it. c runs
     * 100-120, then d 120-130. Rows by start then end: b [0,50) takes
     * rows 0-1, a [0,100) rows 2-3, c rows 0-3, d row 0. Columns: row,
     * start, end, job (a=0, b=1, c=2, d=3 in trace order), restart (none
     * under FIFO). */
    static const double want[][5] = {
        {0, 0, 50, 1, 0},    {1, 0, 50, 1, 0},    {2, 0, 100, 0, 0},
        {3, 0, 100, 0, 0},   {0, 100, 120, 2, 0}, {1, 100, 120, 2, 0},
        {2, 100, 120, 2, 0}, {3, 100, 120, 2, 0}, {0, 120, 130, 3, 0},
    };
    assert_gantt(want, sizeof want / sizeof want[0]);
}

Test(run_charts, gantt_shows_each_run_of_a_preempted_job)
{
    run_plots("--trace " CDATA "/gantt/srtf.csv --cluster " CDATA
              "/small.json --policy srtf --estimates oracle");
    /* By hand: x (4 GPUs, 100 s) runs from 0; y (4 GPUs, 20 s) arrives
     * at 10 with less time left (20 < 90), preempts x and runs 10-30; x
     * resumes at 30 with 90 s left (no restart overhead) until 120: a
     * restart, the last column. */
    static const double want[][5] = {
        {0, 0, 10, 0, 0},   {1, 0, 10, 0, 0},   {2, 0, 10, 0, 0},
        {3, 0, 10, 0, 0},   {0, 10, 30, 1, 0},  {1, 10, 30, 1, 0},
        {2, 10, 30, 1, 0},  {3, 10, 30, 1, 0},  {0, 30, 120, 0, 1},
        {1, 30, 120, 0, 1}, {2, 30, 120, 0, 1}, {3, 30, 120, 0, 1},
    };
    assert_gantt(want, sizeof want / sizeof want[0]);
}

Test(run_charts, skips_the_gantt_chart_above_300_jobs_with_a_note)
{
    char trace[128], cmd[512];
    snprintf(trace, sizeof trace, "%s/t.csv", test_dir);
    snprintf(cmd, sizeof cmd, "trace generate -o %s -n 301 --rate 0.01",
             trace);
    cr_assert_eq(clitest_run(NULL, cmd, ch_out, sizeof ch_out, ch_err,
                             sizeof ch_err), 0, "%s", ch_err);
    snprintf(cmd, sizeof cmd, "--trace %s --cluster gavel-108", trace);
    run_plots(cmd);
    cr_assert(strstr(ch_err, "no Gantt chart: 301 jobs"), "%s", ch_err);
    cr_assert(!exists("gantt.gp"));
    cr_assert(exists("jct_cdf.png"));
}
