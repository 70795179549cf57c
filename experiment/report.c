/* report.c -- `hetsim run --report`: DIR/report.html, one self-contained
 * page (html.c) with the inputs, the key figures of summary.json, every
 * chart with a caption, and the command that reproduces the run. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "policy.h"

static void write_inputs(FILE *f, const struct run_config *cfg,
                         const struct cluster *c, const struct trace *t)
{
    char buf[64];
    fputs("<h2>Inputs</h2>\n<table>\n", f);
    cli_html_row_text(f, "trace", cfg->trace);
    cli_html_row_text(f, "trace format", trace_format_name(t->format));
    fputs("<tr><th>cluster</th><td>", f);
    cli_html_text(f, c->name);
    fprintf(f, ": %d GPUs (", (int)c->total_gpus);
    for (int32_t g = 0; g < c->ntypes; g++) {
        fputs(g ? ", " : "", f);
        fprintf(f, "%d &times; ", (int)c->types[g].gpus);
        cli_html_text(f, c->types[g].name);
    }
    fputs(")</td></tr>\n", f);
    fputs("<tr><th>policy</th><td>", f);
    cli_html_text(f, cfg->policy);
    for (size_t i = 0; i < cfg->nopts; i++) {
        fputs(i ? ", " : " (", f);
        cli_html_text(f, cfg->opt_keys[i]);
        fputc('=', f);
        cli_html_text(f, cfg->opt_values[i]);
    }
    fputs(cfg->nopts ? ")</td></tr>\n" : "</td></tr>\n", f);
    cli_html_row_text(f, "placement",
             pol_placement_name((enum pol_placement)cfg->placement));
    static const char *const backfills[] = {"none", "easy", "conservative",
                                            "greedy"};
    cli_html_row_text(f, "backfill", backfills[cfg->backfill]);
    cli_html_row_text(f, "estimates", cfg->estimates_text);
    cli_html_row_seconds(f, "restart overhead", cfg->restart_overhead_s);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)cfg->seed);
    cli_html_row_text(f, "seed", buf);
    cli_html_row_version(f);
    fputs("</table>\n", f);
}

static void write_summary(FILE *f, const struct cluster *c,
                          const struct sim_summary *m)
{
    char a[64];
    fputs("<h2>Summary</h2>\n<p class=\"sub\">Key figures of summary.json "
          "(times in simulated seconds; averages over completed jobs).</p>\n"
          "<table>\n", f);
    fprintf(f, "<tr><th>jobs completed</th><td>%zu of %zu", m->jobs_completed,
            m->jobs_total);
    if (m->jobs_failed || m->jobs_unschedulable)
        fprintf(f, " (%zu unschedulable, %zu failed)", m->jobs_unschedulable,
                m->jobs_failed);
    fputs("</td></tr>\n", f);
    cli_html_row_seconds(f, "makespan", m->makespan_s);
    cli_html_row_seconds(f, "average JCT", m->avg_jct_s);
    cli_html_row_seconds(f, "median JCT", m->median_jct_s);
    cli_html_row_seconds(f, "p95 JCT", m->p95_jct_s);
    cli_html_row_seconds(f, "p99 JCT", m->p99_jct_s);
    cli_html_row_seconds(f, "average wait", m->avg_wait_s);
    fprintf(f, "<tr><th>average slowdown</th><td>%s</td></tr>\n",
            cli_html_num(a, sizeof a, m->avg_slowdown));
    fprintf(f, "<tr><th>GPU utilization</th><td>%s %%",
            cli_html_num(a, sizeof a, 100 * m->gpu_utilization));
    for (int32_t g = 0; g < c->ntypes; g++) {
        fputs(g ? ", " : " (", f);
        cli_html_text(f, c->types[g].name);
        fprintf(f, " %s %%", cli_html_num(a, sizeof a, 100 * m->utilization_by_type[g]));
    }
    fputs(c->ntypes ? ")</td></tr>\n" : "</td></tr>\n", f);
    fprintf(f, "<tr><th>preemptions</th><td>%llu</td></tr>\n",
            (unsigned long long)m->preemptions_total);
    fputs("</table>\n", f);
}

static const struct cli_html_chart charts[] = {
    {"jct_cdf", "Job completion times",
     "Cumulative distribution of job completion time (finish &minus; "
     "submit) over completed jobs: at each time x (log scale) the curve "
     "gives the fraction of jobs done within x; further left is better.",
     NULL},
    {"queue", "Queue length over time",
     "Jobs waiting to start at each moment of simulated time; long or "
     "rising plateaus mean the cluster could not keep up with arrivals.",
     NULL},
    {"busy_gpus", "Busy GPUs per type over time",
     "GPUs of each type running jobs at each moment; the gap between a "
     "curve and that type's GPU count (see Inputs) is idle capacity. On a "
     "long run the line is drawn at about one point per pixel column, at "
     "the most GPUs busy within it, and the light band under it spans the "
     "fewest to the most busy within that column.", NULL},
    {"utilization", "Utilization per GPU type",
     "Busy GPU-time as a percentage of the GPU-time available over the "
     "makespan, per GPU type and for the whole cluster (all); higher means "
     "less idle hardware.", NULL},
    {"gantt", "Jobs on GPUs",
     "One row per GPU, grouped by node; each bar is one run of a job on "
     "that GPU, labelled with the job id where it fits and coloured by job; "
     "a black dot marks where a preempted job starts again. A thin sliver "
     "is a short run: a short job, or a run that ran out of GPU memory and "
     "was stopped after --oom-detect-s (60 s by default) before the job "
     "waited again for another GPU type. Idle nodes of a cluster of more "
     "than 256 GPUs are left out.", NULL},
};
#define NCHARTS (sizeof charts / sizeof charts[0])

int cli_write_report(const struct run_config *cfg, const struct cluster *c,
                     const struct trace *t, const struct sim_summary *m)
{
    struct cli_atomic a = {0};
    char title[512];
    snprintf(title, sizeof title, "run: %s on %s", cfg->policy, c->name);
    if (cli_html_open(&a, cfg->out, title) != 0)
        return -1;
    FILE *f = a.f;
    fputs("<p class=\"sub\">Trace ", f);
    cli_html_text(f, cfg->trace);
    fputs(". Result files beside this page: summary.json, jobs.csv, "
          "timeline.csv, perf.json, and each chart as .png, .svg and .gp.</p>"
          "\n", f);
    write_inputs(f, cfg, c, t);
    write_summary(f, c, m);
    struct cli_html_chart shown[NCHARTS];
    char skipped[256];
    memcpy(shown, charts, sizeof charts);
    if (m->jobs_total > CLI_GANTT_MAX_JOBS) {
        snprintf(skipped, sizeof skipped, "Not drawn: the run has %zu jobs, "
                 "and the Gantt chart is drawn for at most %d, beyond which "
                 "its bars are too thin to read.", m->jobs_total,
                 CLI_GANTT_MAX_JOBS);
        shown[NCHARTS - 1].skipped = skipped;
    }
    cli_html_charts(f, cfg->out, "summary.json", shown, NCHARTS);
    return cli_html_close(&a, "hetsim", cfg->argc, cfg->argv);
}
