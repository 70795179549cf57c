/* sweep_stats.c -- what a sweep found, over seeds: the mean, standard
 * deviation and 95% confidence interval of each figure of summary.json for
 * every trace (or load), cluster, policy and estimate mode, in sweep.csv;
 * and two charts. Cells are read in SPEC order, never in the order they
 * finished, so sweep.csv is the same bytes however the cells were run. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "cli.h"
#include "sweep_internal.h"

const char *const sweep_figures[SWEEP_NFIGURES] = {
    "jobs_completed", "makespan_s", "avg_jct_s", "median_jct_s", "p95_jct_s",
    "p99_jct_s", "avg_wait_s", "avg_slowdown", "gpu_utilization",
    "preemptions_total"};

struct sweep_stat sweep_stat_of(const double *x, size_t n)
{
    struct sweep_stat st = {NAN, NAN, NAN};
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return st; /* a figure some seed lacks has no statistics */
    if (n == 0)
        return st;
    st.mean = gsl_stats_mean(x, 1, n);
    if (n < 2)
        return st;
    st.sd = gsl_stats_sd_m(x, 1, n, st.mean);
    /* Half-width of the interval mean +- t(0.975; n-1) sd / sqrt(n). */
    st.ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * st.sd /
              sqrt((double)n);
    return st;
}

/* FIELD as a CSV field: quoted when it holds a comma, quote or newline. */
static void put_field(FILE *f, const char *field)
{
    if (strpbrk(field, ",\"\n\r"))
        cli_csv_quoted(f, field);
    else
        fputs(field, f);
}

static void put_number(FILE *f, double x)
{
    char buf[32];
    fputc(',', f);
    if (isfinite(x))
        fputs(cli_fmt_double(buf, x), f);
}

static int read_group(const struct sweep_spec *s, const char *out,
                      const struct sweep_cell *first, double *scratch,
                      struct sweep_group *g)
{
    double v[SWEEP_NFIGURES];
    g->first = first;
    for (size_t seed = 0; seed < s->nseeds; seed++) {
        char dir[4200];
        sweep_cell_dir(out, &first[seed], dir, sizeof dir);
        if (cli_read_summary(dir, sweep_figures, SWEEP_NFIGURES, NAN, v))
            return CLI_FAILURE;
        for (size_t i = 0; i < SWEEP_NFIGURES; i++)
            scratch[i * s->nseeds + seed] = v[i];
    }
    for (size_t i = 0; i < SWEEP_NFIGURES; i++)
        g->st[i] = sweep_stat_of(scratch + i * s->nseeds, s->nseeds);
    return CLI_OK;
}

static void put_row(FILE *f, const struct sweep_spec *s, const struct sweep_group *g)
{
    const struct sweep_cell *c = g->first;
    const struct sweep_workload *w = &s->work[c->work];
    char load[32] = "";
    put_field(f, w->label);
    fputc(',', f);
    if (!isnan(w->load))
        fputs(cli_fmt_double(load, w->load), f);
    fputc(',', f);
    put_field(f, s->clusters[c->cluster]);
    fputc(',', f);
    put_field(f, s->policies[c->policy].label);
    fputc(',', f);
    put_field(f, s->estimates[c->estimates]);
    fprintf(f, ",%zu", s->nseeds);
    for (size_t i = 0; i < SWEEP_NFIGURES; i++) {
        put_number(f, g->st[i].mean);
        put_number(f, g->st[i].sd);
        put_number(f, g->st[i].ci95);
    }
    fputc('\n', f);
}

static int write_csv(const struct sweep_spec *s, const char *out,
                     const struct sweep_group *g, size_t ngroups)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, out, "sweep.csv") != 0) {
        cli_error("%s/sweep.csv: %s", out, strerror(errno));
        return CLI_FAILURE;
    }
    fputs("trace,load,cluster,policy,estimates,seeds", a.f);
    for (size_t i = 0; i < SWEEP_NFIGURES; i++)
        fprintf(a.f, ",%s_mean,%s_sd,%s_ci95", sweep_figures[i],
                sweep_figures[i], sweep_figures[i]);
    fputc('\n', a.f);
    for (size_t k = 0; k < ngroups; k++)
        put_row(a.f, s, &g[k]);
    if (cli_atomic_commit(&a) != 0) {
        cli_error("%s/sweep.csv: %s", out, strerror(errno));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

int sweep_aggregate(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *cells, size_t n)
{
    size_t ngroups = n / s->nseeds;
    struct sweep_group *g = calloc(ngroups ? ngroups : 1, sizeof *g);
    double *scratch = malloc(SWEEP_NFIGURES * s->nseeds * sizeof *scratch);
    int rc = g && scratch ? CLI_OK : CLI_FAILURE;
    if (rc)
        cli_error("out of memory");
    for (size_t k = 0; k < ngroups && !rc; k++)
        rc = read_group(s, out, &cells[k * s->nseeds], scratch, &g[k]);
    if (!rc)
        rc = write_csv(s, out, g, ngroups);
    if (!rc && sweep_draw_charts(s, out, g) != 0)
        rc = CLI_FAILURE;
    free(scratch);
    free(g);
    return rc;
}
