/* test_report.c -- `hetsim run --report`: report.html holds the inputs, the
 * figures of summary.json, the four charts inlined as SVG (or a note each
 * where gnuplot is missing), no network reference, escaped input names, and
 * the command that reproduces the run. Runs the built binary. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plots/helpers.h"
#include "run_helpers.h"

#define CDATA HETSIM_TEST_DATA "/cli"

static char rp_out[1 << 16], rp_err[1 << 16];
static char rp_page[1 << 20];

/* Every http:// or https:// in PAGE is one of the SVG namespace URIs. */
static int only_namespace_urls(const char *page)
{
    static const char *const ok[] = {"http://www.w3.org/2000/svg\"",
                                     "http://www.w3.org/1999/xlink\""};
    for (const char *p = page; (p = strstr(p, "http")); p += 4) {
        if (strncmp(p, "https://", 8) == 0)
            return 0;
        if (strncmp(p, "http://", 7) != 0)
            continue;
        if (strncmp(p, ok[0], strlen(ok[0])) != 0 &&
            strncmp(p, ok[1], strlen(ok[1])) != 0)
            return 0;
    }
    return 1;
}

Test(report, run_with_report_writes_one_self_contained_page)
{
    char dir[64], cmd[2048], path[256];
    clitest_make_dir(dir, "hetsim-report");
    /* A trace whose name holds HTML-special characters. */
    snprintf(cmd, sizeof cmd, "cp %s/small.csv '%s/a&b<c>.csv'", CDATA, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "run --trace 'a&b<c>.csv' --cluster "
             "%s/small.json --report --out res --seed 7", CDATA);
    cr_assert_eq(clitest_run(dir, cmd, rp_out, sizeof rp_out, rp_err,
                             sizeof rp_err), 0, "%s", rp_err);
    snprintf(path, sizeof path, "%s/res/report.html", dir);
    clitest_read_file(path, rp_page, sizeof rp_page);
    const char *page = rp_page;
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    cr_assert(strstr(page, "</html>\n"));
    /* Figures of summary.json as printed: makespan 170 s, avg JCT 77.5 s. */
    cr_assert(strstr(page, "<th>makespan</th><td>170 s</td>"));
    cr_assert(strstr(page, "<th>average JCT</th><td>77.5 s</td>"));
    cr_assert(strstr(page, "<th>jobs completed</th><td>6 of 7"));
    cr_assert(strstr(page, "V100"));
    cr_assert(strstr(page, "<th>seed</th><td>7</td>"));
    /* Five charts (the Gantt chart as the trace has 7 <= 300 jobs):
     * inlined when gnuplot drew them, else a note each. */
    if (system("command -v \"${HETSIM_GNUPLOT:-gnuplot}\" >/dev/null") == 0) {
        cr_assert_eq(count_matches(page, "<svg"), 5);
        cr_assert_eq(count_matches(page, "</svg>"), 5);
        cr_assert_eq(count_matches(page, "<?xml"), 0);
    } else
        cr_assert_eq(count_matches(page, "class=\"missing\""), 5);
    cr_assert_eq(count_matches(page, "<figcaption>"), 5);
    cr_assert(only_namespace_urls(page));
    cr_assert_eq(count_matches(page, "<script"), 0);
    /* Input text escaped; the reproduce command shell-quoted. */
    cr_assert_null(strstr(page, "a&b<c>"));
    cr_assert(strstr(page, "a&amp;b&lt;c&gt;.csv"));
    snprintf(cmd, sizeof cmd, "<pre id=\"reproduce\">hetsim run --trace "
             "&#39;a&amp;b&lt;c&gt;.csv&#39; --cluster %s/small.json "
             "--report --out res --seed 7</pre>", CDATA);
    cr_assert(strstr(page, cmd), "no reproduce line in:\n%s", page);
    /* No temporary file left behind: 4 results, 5 charts, the report and
     * the set's manifest (.hetsim-set, docs/guarantees.md). */
    snprintf(path, sizeof path, "%s/res", dir);
    int charts = strstr(page, "<svg") ? 5 * 3 : 5;
    cr_assert_eq(clitest_count_entries(path), 4 + charts + 1 + 1);
    clitest_remove_dir(dir);
}

Test(report, help_lists_the_report_option)
{
    cr_assert_eq(clitest_run(NULL, "run --help", rp_out, sizeof rp_out,
                             rp_err, sizeof rp_err), 0);
    cr_assert(strstr(rp_out, "--report"));
}
