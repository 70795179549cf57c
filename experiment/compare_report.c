/* compare_report.c -- DIR/report.html of `hetsim compare`: one
 * self-contained page (html.c) with the inputs, one row of figures per
 * policy, the comparison charts with captions, and the command that
 * reproduces them. */
#include <stdio.h>

#include "cli.h"
#include "compare_internal.h"
#include "html.h"

static void write_inputs(FILE *f, const struct cmp_options *o)
{
    fputs("<h2>Inputs</h2>\n<table>\n", f);
    cli_html_row_text(f, "trace", o->trace);
    cli_html_row_text(f, "cluster", o->cluster);
    fputs("<tr><th>passed to every run</th><td>", f);
    for (size_t i = 0; i < o->npass; i++) {
        fputs(i ? " " : "", f);
        cli_html_text(f, o->pass[i]);
    }
    fputs(o->npass ? "</td></tr>\n" : "none (placement fastest)</td></tr>\n",
          f);
    fputs("<tr><th>policies</th><td>", f);
    for (size_t k = 0; k < o->npolicies; k++) {
        fputs(k ? ", " : "", f);
        cli_html_text(f, o->policy[k]);
    }
    fputs("</td></tr>\n", f);
    cli_html_row_text(f, "estimates", o->estimates ? o->estimates : "none");
    if (o->throughputs)
        cli_html_row_text(f, "throughputs", o->throughputs);
    if (o->format)
        cli_html_row_text(f, "trace format", o->format);
    cli_html_row_text(f, "seed", o->seed ? o->seed : "1");
    cli_html_row_version(f);
    fputs("</table>\n", f);
}

/* Columns of the summary table: heading, index in cmp_policy.v, scale
 * (100 turns a fraction into a percentage), decimals shown (the same in
 * a whole column, so that the digits line up). */
static const struct {
    const char *heading;
    int key;
    double scale; /* 0: a time, shown in hours over seconds */
    int decimals;
} columns[] = {
    {"jobs done", 0, 1, 0},    {"avg JCT", 1, 0, 0},
    {"median JCT", 2, 0, 0},   {"p95 JCT", 3, 0, 0},
    {"p99 JCT", 4, 0, 0},      {"makespan", 5, 0, 0},
    {"avg wait", 6, 0, 0},     {"GPU util. (%)", 7, 100, 1},
    {"preemptions", 8, 1, 0},
};

/* Column I of a row of figures V: a time as hours over seconds, in one
 * cell (two columns per time made the table wider than the page). */
static void write_cell(FILE *f, size_t i, const double *v)
{
    double x = v[columns[i].key];
    if (columns[i].scale == 0)
        fprintf(f, "<td>%.2f h<br><small>%.1f s</small></td>", x / 3600, x);
    else
        fprintf(f, "<td>%.*f</td>", columns[i].decimals,
                columns[i].scale * x);
}

static void write_table(FILE *f, const struct cmp_options *o,
                        const struct cmp_policy *r)
{
    fputs("<h2>Summary</h2>\n<p class=\"sub\">One row per policy, from its "
          "run's summary.json (also in compare.csv; times in simulated "
          "hours over seconds, averages over completed jobs; unschedulable "
          "jobs never ran: jobs.csv of each run gives the reason). Each policy's own results "
          "are in the folder of its name.</p>\n<div class=\"wide\">"
          "<table class=\"grid nowrap\">\n"
          "<tr><th>policy</th><th>cluster</th><th>placement</th>"
          "<th>unschedulable</th>", f);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        fprintf(f, "<th>%s</th>", columns[i].heading);
    fputs("</tr>\n", f);
    for (size_t k = 0; k < o->npolicies; k++) {
        fputs("<tr><th>", f);
        cli_html_text(f, r[k].name);
        fputs("</th>", f);
        if (r[k].read) {
            fputs("<td>", f);
            cli_html_text(f, r[k].cluster);
            fputs("</td><td>", f);
            cli_html_text(f, r[k].placement);
            fprintf(f, "</td><td>%.0f of %.0f</td>", r[k].jobs_unschedulable,
                    r[k].jobs_total);
        }
        for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
            if (r[k].read)
                write_cell(f, i, r[k].v);
            else
                fputs(i ? "" : "<td colspan=\"12\">failed: see the messages "
                      "of hetsim compare</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static const struct cli_html_chart charts[] = {
    {"jct_cdf", "Job completion times",
     "Cumulative distribution of job completion time per policy (log x): "
     "the fraction of jobs done within each time; further left is better.",
     NULL},
    {"jct_bars", "Average and p99 job completion time",
     "Mean and 99th-percentile job completion time of each policy; lower is "
     "better, and a p99 far above the mean means a long tail of waiting "
     "jobs.", NULL},
    {"makespan", "Makespan",
     "Time from the first submission to the last completion under each "
     "policy; lower means the whole trace was done sooner.", NULL},
    {"utilization", "GPU utilization over time",
     "Busy GPUs as a percentage of all GPUs, per policy: at each of 500 "
     "evenly spaced times up to the longest makespan, the most that were "
     "busy until the next, so no peak is lost. Past four policies, each gets "
     "a panel, over the others in grey.", NULL},
};

int cmp_write_report(const struct cmp_options *o, const struct cmp_policy *r)
{
    struct cli_atomic a = {0};
    char title[256];
    snprintf(title, sizeof title, "compare: %zu policies", o->npolicies);
    if (cli_html_open(&a, o->out, title) != 0)
        return -1;
    FILE *f = a.f;
    fputs("<p class=\"sub\">Trace ", f);
    cli_html_text(f, o->trace);
    fputs(" on cluster ", f);
    cli_html_text(f, o->cluster);
    fputs(". Files beside this page: compare.csv, each chart as .png, .svg "
          "and .gp, and one folder of results per policy.</p>\n", f);
    write_inputs(f, o);
    write_table(f, o, r);
    cli_html_charts(f, o->out, "compare.csv", charts,
                    sizeof charts / sizeof charts[0]);
    return cli_html_close(&a, "hetsim", o->argc, o->argv);
}
