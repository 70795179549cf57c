/* compare_charts.c -- what `hetsim compare` writes from the runs it read:
 * compare.csv, the table on stdout, and the charts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "compare_internal.h"
#include "plots.h"

const char *const cmp_keys[CMP_NKEYS] = {
    "jobs_completed", "avg_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s",
    "makespan_s", "avg_wait_s", "gpu_utilization", "preemptions_total"};

int cmp_write_csv(const char *dir, const struct cmp_policy *r, size_t n)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, dir, "compare.csv") != 0) {
        cli_error("%s/compare.csv: %s", dir, strerror(errno));
        return CLI_FAILURE;
    }
    fputs("policy", a.f);
    for (size_t i = 0; i < CMP_NKEYS; i++)
        fprintf(a.f, ",%s", cmp_keys[i]);
    fputc('\n', a.f);
    for (size_t k = 0; k < n; k++) {
        if (!r[k].read)
            continue;
        char line[64 * (CMP_NKEYS + 1)], *p = line;
        for (size_t i = 0; i < CMP_NKEYS; i++) {
            *p++ = ',';
            p = cli_put_double(p, r[k].v[i]);
        }
        fprintf(a.f, "%s%s\n", r[k].name, line);
    }
    if (cli_atomic_commit(&a) != 0) {
        cli_error("%s/compare.csv: %s", dir, strerror(errno));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* A time in hours, "1146.6", into BUF (seconds are in compare.csv and
 * the report: both in one cell made a table too wide for a terminal). */
static void fmt_time(char *buf, size_t cap, double s)
{
    snprintf(buf, cap, "%.1f", s / 3600);
}

void cmp_print_table(const struct cmp_policy *r, size_t n)
{
    enum { NCOL = 9 };
    static const char *const head[NCOL] = {
        "policy", "completed", "unsched.", "avg JCT h", "p99 JCT h",
        "makespan h", "wait h", "util", "preempt."};
    char cell[CMP_MAX_POLICIES][NCOL][48];
    int w[NCOL];
    for (int i = 0; i < NCOL; i++)
        w[i] = (int)strlen(head[i]);
    const struct cmp_policy *first = NULL;
    for (size_t k = 0; k < n; k++) {
        if (!r[k].read)
            continue;
        const double *v = r[k].v;
        first = first ? first : &r[k];
        snprintf(cell[k][0], 48, "%s", r[k].name);
        snprintf(cell[k][1], 48, "%.0f/%.0f", v[0], r[k].jobs_total);
        snprintf(cell[k][2], 48, "%.0f", r[k].jobs_unschedulable);
        fmt_time(cell[k][3], 48, v[CMP_AVG]);
        fmt_time(cell[k][4], 48, v[CMP_P99]);
        fmt_time(cell[k][5], 48, v[CMP_MAKESPAN]);
        fmt_time(cell[k][6], 48, v[6]);
        snprintf(cell[k][7], 48, "%.1f %%", 100 * v[7]);
        snprintf(cell[k][8], 48, "%.0f", v[8]);
        for (int i = 0; i < NCOL; i++)
            if ((int)strlen(cell[k][i]) > w[i])
                w[i] = (int)strlen(cell[k][i]);
    }
    if (first)
        printf("cluster %s (%.0f GPUs), placement %s\ntimes in hours "
               "(seconds: compare.csv, report.html); wait: average; util: "
               "GPU\nutilization; unsched.: jobs unschedulable on the "
               "cluster\n",
               first->cluster, first->total_gpus, first->placement);
    for (int i = 0; i < NCOL; i++)
        printf(i ? "  %*s" : "%-*s", w[i], head[i]);
    putchar('\n');
    for (size_t k = 0; k < n; k++) {
        if (!r[k].read)
            continue;
        for (int i = 0; i < NCOL; i++)
            printf(i ? "  %*s" : "%-*s", w[i], cell[k][i]);
        putchar('\n');
    }
}

void cmp_print_json(const struct cmp_options *o, const struct cmp_policy *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *runs = root ? cJSON_AddArrayToObject(root, "policies") : NULL;
    if (root) {
        cJSON_AddStringToObject(root, "trace", o->trace);
        cJSON_AddStringToObject(root, "out", o->out);
    }
    for (size_t k = 0; runs && k < o->npolicies; k++) {
        if (!r[k].read)
            continue;
        cJSON *p = cJSON_CreateObject();
        if (!p)
            break;
        cJSON_AddItemToArray(runs, p);
        cJSON_AddStringToObject(p, "policy", r[k].name);
        cJSON_AddStringToObject(p, "cluster", r[k].cluster);
        cJSON_AddStringToObject(p, "placement", r[k].placement);
        cli_json_number(p, "total_gpus", r[k].total_gpus);
        cli_json_number(p, "jobs_total", r[k].jobs_total);
        cli_json_number(p, "jobs_unschedulable", r[k].jobs_unschedulable);
        cli_json_number(p, "jobs_failed", r[k].jobs_failed);
        for (size_t i = 0; i < CMP_NKEYS; i++)
            cli_json_number(p, cmp_keys[i], r[k].v[i]);
        cli_json_number(p, "avg_slowdown", r[k].avg_slowdown);
    }
    if (!root || cli_write_json(stdout, root) != 0)
        cli_error("out of memory");
}

/* The utilization chart: [0, longest makespan] cut at CMP_GRID evenly
 * spaced times; each point holds the most GPUs the policy had busy from
 * its time until the next (the value held then, or any timeline row
 * before the next), over its total GPUs, in percent. The maximum, as in
 * plot_steps, so that no peak between two points is lost. */
static int utilization_chart(const char *dir, const struct cmp_policy *r,
                             size_t n, struct plot_series *ser, double *buf)
{
    double end = 0;
    for (size_t k = 0; k < n; k++)
        if (r[k].v[CMP_MAKESPAN] > end)
            end = r[k].v[CMP_MAKESPAN];
    if (!(end > 0) || !n)
        return 0;
    double *x = buf + n * CMP_GRID;
    for (size_t i = 0; i < CMP_GRID; i++)
        x[i] = end * (double)i / (CMP_GRID - 1);
    for (size_t k = 0; k < n; k++) {
        const struct cmp_policy *p = &r[k];
        double *y = buf + k * CMP_GRID, held = 0;
        size_t j = 0;
        for (size_t i = 0; i < CMP_GRID; i++) {
            while (j < p->ntl && p->tl_time[j] <= x[i])
                held = p->tl_busy[j++];
            double top = held, next = i + 1 < CMP_GRID ? x[i + 1] : x[i];
            for (size_t m = j; m < p->ntl && p->tl_time[m] < next; m++)
                top = top > p->tl_busy[m] ? top : p->tl_busy[m];
            y[i] = p->total_gpus > 0 ? 100 * top / p->total_gpus : 0;
        }
        ser[k] = (struct plot_series){p->name, y, CMP_GRID};
    }
    for (size_t i = 0; i < CMP_GRID; i++)
        x[i] /= 3600; /* drawn in hours, as run's charts */
    /* Past four policies, overlaid lines tangle: a panel each. */
    struct plot_chart ch = {.dir = dir, .name = "utilization",
                            .title = "GPU utilization over time",
                            .xlabel = "time (h)", .ylabel = "busy GPUs (%)",
                            .flags = n > 4 ? PLOT_PANELS : 0};
    return cli_chart_check(plot_steps(&ch, x, CMP_GRID, ser, n), "utilization");
}

int cmp_draw_charts(const char *dir, const struct cmp_policy *all,
                    size_t nall)
{
    struct cmp_policy r[CMP_MAX_POLICIES];
    const char *names[CMP_MAX_POLICIES];
    double avg[CMP_MAX_POLICIES], p99[CMP_MAX_POLICIES];
    double makespan[CMP_MAX_POLICIES];
    struct plot_series cdf[CMP_MAX_POLICIES], ser[CMP_MAX_POLICIES];
    size_t n = 0, ncdf = 0;
    for (size_t k = 0; k < nall; k++) {
        if (!all[k].read)
            continue;
        r[n] = all[k];
        names[n] = r[n].name;
        avg[n] = r[n].v[CMP_AVG] / 3600; /* bars in hours, as run's */
        p99[n] = r[n].v[CMP_P99] / 3600;
        makespan[n] = r[n].v[CMP_MAKESPAN] / 3600;
        /* A log axis needs JCT > 0: jobs of no time are left out. */
        size_t m = 0;
        for (size_t i = 0; i < r[n].njct; i++)
            if (r[n].jct[i] > 0)
                r[n].jct[m++] = r[n].jct[i];
        if (m)
            cdf[ncdf++] = (struct plot_series){names[n], r[n].jct, m};
        n++;
    }
    if (!n)
        return 0;
    int rc = 0;
    struct plot_chart ch = {.dir = dir, .name = "jct_cdf",
                            .title = "Job completion time",
                            .xlabel = "JCT (s)", .ylabel = "fraction of jobs",
                            .flags = PLOT_LOG_X};
    if (ncdf)
        rc |= cli_chart_check(plot_cdf(&ch, cdf, ncdf), "jct_cdf");
    struct plot_series bars[2] = {{"average", avg, n}, {"p99", p99, n}};
    ch = (struct plot_chart){.dir = dir, .name = "jct_bars",
                             .title = "Job completion time by policy",
                             .ylabel = "JCT (h)"};
    rc |= cli_chart_check(plot_bars(&ch, names, n, bars, 2), "jct_bars");
    bars[0] = (struct plot_series){"makespan", makespan, n};
    ch = (struct plot_chart){.dir = dir, .name = "makespan",
                             .title = "Makespan by policy",
                             .ylabel = "makespan (h)"};
    rc |= cli_chart_check(plot_bars(&ch, names, n, bars, 1), "makespan");
    double *buf = malloc((n + 1) * CMP_GRID * sizeof *buf);
    if (!buf) {
        cli_error("out of memory");
        return -1;
    }
    rc |= utilization_chart(dir, r, n, ser, buf);
    free(buf);
    return rc;
}

