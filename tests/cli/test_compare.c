/* test_compare.c -- `hetsim compare` as a user meets it: two policies on the
 * small fixture whose FIFO schedule is drawn by hand in tests/test_policies.c
 * (fifo/follows_the_schedule_drawn_by_hand: average JCT 77.5 s), run in
 * parallel and one at a time. Runs the built binary. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../plots/helpers.h"
#include "run_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"

static char cmp_out[1 << 16], cmp_err[1 << 16];
static char cmp_dir[64];

static void setup(void) { clitest_make_dir(cmp_dir, "hetsim-compare"); }
static void teardown(void) { clitest_remove_dir(cmp_dir); }

/* Runs compare of fifo,sjf with -j JOBS into cmp_dir/SUB. */
static int compare(const char *policies, int jobs, const char *sub)
{
    char args[4608];
    snprintf(args, sizeof args,
             "compare --trace " SMALL ".csv --cluster " SMALL ".json "
             "--policies %s --estimates oracle -j %d --out %s/%s",
             policies, jobs, cmp_dir, sub);
    return clitest_run(NULL, args, cmp_out, sizeof cmp_out, cmp_err,
                       sizeof cmp_err);
}

static int exists_under(const char *sub, const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/%s", cmp_dir, sub, name);
    return stat(path, &st) == 0;
}

static void read_in(const char *sub, const char *name, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s", cmp_dir, sub, name);
    clitest_read_file(path, buf, cap);
}

TestSuite(compare, .init = setup, .fini = teardown);

Test(compare, runs_each_policy_and_tabulates_the_hand_computed_jct)
{
    cr_assert_eq(compare("fifo,sjf", 2, "par"), 0, "%s", cmp_err);
    cr_assert(exists_under("par", "fifo/summary.json"));
    cr_assert(exists_under("par", "sjf/summary.json"));
    static char csv[8192], json[1 << 16];
    read_in("par", "compare.csv", csv, sizeof csv);
    static const char header[] =
        "policy,jobs_completed,avg_jct_s,median_jct_s,p95_jct_s,p99_jct_s,"
        "makespan_s,avg_wait_s,gpu_utilization,preemptions_total\n";
    cr_assert_eq(strncmp(csv, header, strlen(header)), 0, "%s", csv);
    int rows = 0;
    for (const char *p = csv; *p; p++)
        rows += *p == '\n';
    cr_assert_eq(rows, 3, "%s", csv);
    const char *fifo = strstr(csv, "\nfifo,");
    cr_assert_not_null(fifo);
    cr_assert_not_null(strstr(csv, "\nsjf,"));
    double jobs, avg;
    cr_assert_eq(sscanf(fifo, "\nfifo,%lf,%lf", &jobs, &avg), 2);
    cr_assert_eq(avg, 77.5);
    read_in("par", "fifo/summary.json", json, sizeof json);
    cJSON *root = cJSON_Parse(json);
    cr_assert_not_null(root);
    cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "avg_jct_s");
    cr_assert(cJSON_IsNumber(v));
    cr_assert_eq(v->valuedouble, avg);
    cJSON_Delete(root);
    cr_assert_not_null(strstr(cmp_out, "avg JCT"));
    const char *charts[] = {"jct_cdf.gp", "jct_bars.gp", "makespan.gp",
                            "utilization.gp"};
    for (size_t i = 0; i < 4; i++)
        cr_assert(exists_under("par", charts[i]), "%s", charts[i]);
}

Test(compare, writes_a_self_contained_report_with_a_row_per_policy)
{
    cr_assert_eq(compare("fifo,sjf", 2, "rep"), 0, "%s", cmp_err);
    static char page[1 << 20];
    read_in("rep", "report.html", page, sizeof page);
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    cr_assert(strstr(page, "</html>\n"));
    /* FIFO's row: cluster, placement, 1 of 7 jobs unschedulable (j5 asks
     * for 8 GPUs, a type has at most 4), 6 jobs done, then the
     * hand-computed average JCT 77.5 s (see the test above), in hours
     * (77.5 / 3600 = 0.0215) over seconds with one decimal. */
    cr_assert(strstr(page, "<tr><th>fifo</th><td>small</td><td>fastest</td>"
                           "<td>1 of 7</td><td>6</td><td>0.02 h<br><small>"
                           "77.5 s</small></td>"),
              "%s", page);
    cr_assert(strstr(page, "<tr><th>sjf</th><td>small</td><td>fastest</td>"
                           "<td>1 of 7</td><td>6</td>"));
    /* Four charts, each inlined when gnuplot drew it, each captioned. */
    cr_assert_eq(count_matches(page, "<figcaption>"), 4);
    if (system("command -v \"${HETSIM_GNUPLOT:-gnuplot}\" >/dev/null") == 0)
        cr_assert_eq(count_matches(page, "<svg"), 4);
    cr_assert_eq(count_matches(page, "<script"), 0);
    cr_assert_eq(count_matches(page, "src=\""), 0);
    char want[1024];
    snprintf(want, sizeof want, "<pre id=\"reproduce\">hetsim compare "
             "--trace %s.csv --cluster %s.json --policies fifo,sjf "
             "--estimates oracle -j 2 --out %s/rep</pre>", SMALL, SMALL,
             cmp_dir);
    cr_assert(strstr(page, want), "no reproduce line %s", want);
}

Test(compare, utilization_chart_never_hides_a_busy_moment)
{
    cr_assert_eq(compare("fifo,sjf", 1, "util"), 0, "%s", cmp_err);
    static char gp[1 << 18], tl[1 << 16];
    read_in("util", "utilization.gp", gp, sizeof gp);
    read_in("util", "fifo/timeline.csv", tl, sizeof tl);
    /* $steps: time (h), fifo %, sjf %; the small cluster has 8 GPUs. */
    double x[600], y[600];
    size_t n = 0;
    char *p = strstr(gp, "$steps << EOD\n");
    cr_assert_not_null(p);
    p = strchr(p, '\n') + 1;
    while (strncmp(p, "EOD", 3) != 0 && n < 600) {
        x[n] = strtod(p, &p);
        y[n++] = strtod(p, &p);
        p = strchr(p, '\n') + 1;
    }
    cr_assert_eq(n, 500);
    /* Each timeline row (time, queued, busy, ...) holds from its time: the
     * point at or before that time must show at least as much. */
    double top = 0, drawn_top = 0;
    for (char *line = strchr(tl, '\n') + 1; *line;
         line = strchr(line, '\n') + 1) {
        double t = strtod(line, &line);
        strtod(line + 1, &line);
        double busy = 100 * strtod(line + 1, &line) / 8;
        size_t i = 0;
        while (i + 1 < n && x[i + 1] <= t / 3600) /* the chart in hours */
            i++;
        cr_assert(y[i] >= busy, "at %g: %g < %g", t, y[i], busy);
        top = busy > top ? busy : top;
    }
    for (size_t i = 0; i < n; i++)
        drawn_top = y[i] > drawn_top ? y[i] : drawn_top;
    cr_assert_eq(drawn_top, top);
}

Test(compare, runs_ten_policies_counting_plugins_named_by_file)
{
    /* The eight built-in policies and the two example plugins built
     * beside hetsim (<build>/policies/examples/). */
    char ex[900], list[2048];
    const char *slash = strrchr(HETSIM_BIN, '/');
    snprintf(ex, sizeof ex, "%.*s/policies/examples",
             (int)(slash - HETSIM_BIN), HETSIM_BIN);
    snprintf(list, sizeof list, "fifo,sjf,edf,srtf,las,tiresias,gittins,"
             "fair,%s/libfifo_plugin.so,%s/libsmallest_gpus_first.so", ex,
             ex);
    cr_assert_eq(compare(list, 4, "ten"), 0, "%s", cmp_err);
    static char csv[8192], page[1 << 20];
    read_in("ten", "compare.csv", csv, sizeof csv);
    cr_assert_eq(count_matches(csv, "\n"), 11, "%s", csv);
    cr_assert(exists_under("ten", "libfifo_plugin.so/summary.json"));
    /* The FIFO plugin schedules as fifo does (tests/policies/
     * test_plugin.c): the same row of figures under its file name. */
    const char *a = strstr(csv, "\nfifo,"), *b = strstr(csv,
                                                       "\nlibfifo_plugin.so,");
    cr_assert(a && b);
    cr_assert_eq(strcspn(a + 6, "\n"), strcspn(b + 19, "\n"));
    cr_assert_eq(strncmp(a + 6, b + 19, strcspn(a + 6, "\n")), 0);
    read_in("ten", "report.html", page, sizeof page);
    /* 7 rows of inputs, the table's heading row, a row per policy. */
    cr_assert_eq(count_matches(page, "<tr><th>"), 7 + 1 + 10);
    cr_assert(strstr(page, "<tr><th>libsmallest_gpus_first.so</th><td>small"
                           "</td><td>fastest</td><td>1 of 7</td><td>6"));
    read_in("ten", "jct_cdf.gp", page, sizeof page);
    cr_assert(strstr(page, "$cdf9 << EOD"));
    cr_assert(strstr(page, "'libsmallest_gpus_first.so' noenhanced"));
}

Test(compare, one_at_a_time_gives_the_same_compare_csv)
{
    static char par[8192], seq[8192];
    cr_assert_eq(compare("fifo,sjf", 2, "par"), 0, "%s", cmp_err);
    cr_assert_eq(compare("fifo,sjf", 1, "seq"), 0, "%s", cmp_err);
    read_in("par", "compare.csv", par, sizeof par);
    read_in("seq", "compare.csv", seq, sizeof seq);
    cr_assert_str_not_empty(par);
    cr_assert_str_eq(par, seq);
}

Test(compare, an_unknown_policy_exits_2_before_running_anything)
{
    cr_assert_eq(compare("fifo,no-such-policy", 1, "bad"), 2);
    cr_assert_not_null(strstr(cmp_err, "no-such-policy"));
    cr_assert(!exists_under("bad", "fifo"));
    cr_assert(!exists_under("bad", ""));
}
