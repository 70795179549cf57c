/* charts.c -- the charts of one run, drawn through the plots module:
 * JCT CDF, queue length and busy GPUs per type over time, utilization per
 * type, and the Gantt chart of small runs (gantt.c). The plots module sees only arrays; this file turns results into
 * them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plots.h"

int cli_series_init(struct cli_series *ts, int32_t ntypes)
{
    memset(ts, 0, sizeof *ts);
    ts->ncols = 2 + (size_t)ntypes;
    return 0;
}

void cli_series_free(struct cli_series *ts)
{
    for (size_t k = 0; k < ts->ncols; k++)
        free(ts->col[k]);
    free(ts->piece);
    memset(ts, 0, sizeof *ts);
}

int cli_series_add(struct cli_series *ts, double time, int32_t queued,
                   const int32_t *busy_by_type)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? 2 * ts->cap : 4096;
        for (size_t k = 0; k < ts->ncols; k++) {
            double *col = realloc(ts->col[k], cap * sizeof *col);
            if (!col)
                return -1;
            ts->col[k] = col;
        }
        ts->cap = cap;
    }
    ts->col[0][ts->n] = time;
    ts->col[1][ts->n] = queued;
    for (size_t k = 2; k < ts->ncols; k++)
        ts->col[k][ts->n] = busy_by_type[k - 2];
    ts->n++;
    return 0;
}

int cli_chart_check(int rc, const char *name)
{
    if (rc == 0)
        return 0;
    if (rc == PLOT_ENOGNUPLOT) {
        if (plot_should_report_missing_gnuplot())
            cli_warn("gnuplot not found: wrote the chart scripts (*.gp) "
                     "but no images; install gnuplot-nox and run "
                     "`gnuplot NAME.gp` in the results folder");
        return 0;
    }
    cli_warn("chart %s: %s", name, plot_strerror(rc));
    return -1;
}

static int jct_chart(const char *dir, const char *title, const struct sim *s)
{
    double *jct = malloc((sim_njobs(s) + 1) * sizeof *jct);
    if (!jct)
        return cli_chart_check(PLOT_ENOMEM, "jct_cdf");
    size_t n = 0;
    for (size_t i = 0; i < sim_njobs(s); i++) {
        const struct sim_job *j = sim_job(s, (uint32_t)i);
        if (j->state == JOB_COMPLETED)
            jct[n++] = j->finish_time - j->submit_time;
    }
    int rc = 0;
    if (n > 0) {
        struct plot_chart ch = {.dir = dir, .name = "jct_cdf",
                                .title = title,
                                .xlabel = "job completion time (s, log scale)",
                                .ylabel = "fraction of jobs",
                                .flags = PLOT_LOG_X};
        struct plot_series ser = {"JCT", jct, n};
        rc = cli_chart_check(plot_cdf(&ch, &ser, 1), "jct_cdf");
    }
    free(jct);
    return rc;
}

static int time_charts(const char *dir, const char *title,
                       const struct cluster *c, struct cli_series *ts)
{
    if (ts->n == 0)
        return 0;
    /* Hours read better than seconds once a run spans more than a day. */
    double span = ts->col[0][ts->n - 1] - ts->col[0][0];
    const char *xlabel = "time (s)";
    if (span > 86400) {
        xlabel = "time (h)";
        for (size_t i = 0; i < ts->n; i++)
            ts->col[0][i] /= 3600;
    }
    struct plot_chart ch = {.dir = dir, .name = "queue", .title = title,
                            .xlabel = xlabel, .ylabel = "queued jobs"};
    struct plot_series q = {"queued jobs", ts->col[1], ts->n};
    int rc = cli_chart_check(plot_steps(&ch, ts->col[0], ts->n, &q, 1), "queue");
    struct plot_series busy[SIM_MAX_GPU_TYPES];
    for (int32_t t = 0; t < c->ntypes; t++)
        busy[t] = (struct plot_series){c->types[t].name, ts->col[2 + t],
                                       ts->n};
    ch.name = "busy_gpus";
    ch.ylabel = "busy GPUs";
    rc |= cli_chart_check(plot_steps(&ch, ts->col[0], ts->n, busy,
                           (size_t)c->ntypes), "busy_gpus");
    return rc;
}

static int utilization_chart(const char *dir, const char *title,
                             const struct cluster *c,
                             const struct sim_summary *m)
{
    const char *names[SIM_MAX_GPU_TYPES + 1];
    double pct[SIM_MAX_GPU_TYPES + 1];
    for (int32_t t = 0; t < c->ntypes; t++) {
        names[t] = c->types[t].name;
        pct[t] = 100 * m->utilization_by_type[t];
    }
    names[c->ntypes] = "all";
    pct[c->ntypes] = 100 * m->gpu_utilization;
    struct plot_chart ch = {.dir = dir, .name = "utilization", .title = title,
                            .ylabel = "busy GPU-time / available (%)"};
    struct plot_series ser = {"utilization", pct, (size_t)c->ntypes + 1};
    return cli_chart_check(plot_bars(&ch, names, (size_t)c->ntypes + 1, &ser, 1),
                 "utilization");
}

int cli_draw_charts(const struct run_config *cfg, const struct cluster *c,
                    const struct sim *s, const struct trace *t,
                    const struct sim_summary *m, struct cli_series *ts)
{
    char title[256];
    snprintf(title, sizeof title, "%s on %s", cfg->policy, c->name);
    int rc = jct_chart(cfg->out, title, s);
    rc |= time_charts(cfg->out, title, c, ts);
    rc |= utilization_chart(cfg->out, title, c, m);
    if (ts->gantt)
        rc |= cli_chart_check(cli_draw_gantt(cfg->out, title, c, s, t, ts),
                              "gantt");
    else if (!cfg->quiet)
        fprintf(stderr, "hetsim: note: no Gantt chart: %zu jobs, more than "
                "the %d it is drawn for\n", sim_njobs(s), CLI_GANTT_MAX_JOBS);
    return rc;
}
