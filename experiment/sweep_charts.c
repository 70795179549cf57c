/* sweep_charts.c -- the charts of a sweep: avg JCT against load with its
 * confidence interval, and the makespan of each policy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include "cli.h"
#include "experiment_internal.h"
#include "plots.h"
#include "sweep_internal.h"

static size_t group_index(const struct sweep_spec *s, size_t w, size_t c,
                          size_t p, size_t e)
{
    return ((w * s->nclusters + c) * s->npolicies + p) * s->nestimates + e;
}

static double or_zero(double x)
{
    return isfinite(x) ? x : 0.0;
}

/* jct_vs_load for cluster C and estimate mode E over the generated loads
 * GEN[0..ngen-1] (indices of s->work). */
static int draw_jct_vs_load(const struct sweep_spec *s, const char *out,
                            const struct sweep_group *g, const size_t *gen,
                            size_t ngen, size_t c, size_t e, const char *name)
{
    static double x[SWEEP_MAX_ITEMS], y[SWEEP_MAX_ITEMS][SWEEP_MAX_ITEMS],
        err[SWEEP_MAX_ITEMS][SWEEP_MAX_ITEMS];
    struct plot_series series[SWEEP_MAX_ITEMS];
    const double *errors[SWEEP_MAX_ITEMS];
    size_t n = 0;
    for (size_t i = 0; i < ngen; i++)
        x[i] = s->work[gen[i]].load;
    for (size_t p = 0; p < s->npolicies; p++) {
        int usable = 1;
        for (size_t i = 0; i < ngen; i++) {
            const struct sweep_stat *st =
                &g[group_index(s, gen[i], c, p, e)].st[SWEEP_FIG_AVG_JCT];
            usable = usable && isfinite(st->mean);
            y[n][i] = st->mean;
            err[n][i] = or_zero(st->ci95);
        }
        if (!usable) /* no job finished at some load: nothing to draw */
            continue;
        series[n] = (struct plot_series){s->policies[p].label, y[n], ngen};
        errors[n] = err[n];
        n++;
    }
    if (n == 0)
        return 0;
    char title[512];
    snprintf(title, sizeof title,
             "Average JCT vs offered load (%s, "
             "estimates %s; bars: 95%% CI over %zu seeds)",
             s->clusters[c], s->estimates[e], s->nseeds);
    struct plot_chart chart = {.dir = out,
                               .name = name,
                               .title = title,
                               .xlabel = "offered load",
                               .ylabel = "average JCT (s)"};
    return cli_chart_check(plot_errorbars(&chart, x, ngen, series, errors, n),
                           name);
}

/* makespan for workload W: bars per policy, one per cluster and
 * estimate mode. */
static int draw_makespan(const struct sweep_spec *s, const char *out,
                         const struct sweep_group *g, size_t w,
                         const char *name)
{
    static double v[SWEEP_MAX_ITEMS][SWEEP_MAX_ITEMS];
    static char names[SWEEP_MAX_ITEMS][256];
    struct plot_series series[SWEEP_MAX_ITEMS];
    const char *cats[SWEEP_MAX_ITEMS];
    size_t n = 0;
    for (size_t p = 0; p < s->npolicies; p++)
        cats[p] = s->policies[p].label;
    for (size_t c = 0; c < s->nclusters && n < SWEEP_MAX_ITEMS; c++)
        for (size_t e = 0; e < s->nestimates && n < SWEEP_MAX_ITEMS; e++) {
            snprintf(names[n], sizeof names[n], "%s, estimates %s",
                     s->clusters[c], s->estimates[e]);
            for (size_t p = 0; p < s->npolicies; p++)
                v[n][p] = or_zero(
                    g[group_index(s, w, c, p, e)].st[SWEEP_FIG_MAKESPAN].mean);
            series[n] = (struct plot_series){names[n], v[n], s->npolicies};
            n++;
        }
    const struct sweep_workload *wl = &s->work[w];
    char title[512], load[48] = "";
    if (!isnan(wl->load))
        snprintf(load, sizeof load, " at load %g", wl->load);
    snprintf(title, sizeof title,
             "Makespan per policy: %s%s (mean over "
             "%zu seeds)",
             wl->label, load, s->nseeds);
    struct plot_chart chart = {
        .dir = out, .name = name, .title = title, .ylabel = "makespan (s)"};
    return cli_chart_check(plot_bars(&chart, cats, s->npolicies, series, n),
                           name);
}

/* Draws every chart of the sweep into DIR. */
static int draw_all(const struct sweep_spec *s, const char *out,
                    const struct sweep_group *g)
{
    size_t gen[SWEEP_MAX_ITEMS], ngen = 0;
    for (size_t w = 0; w < s->nwork; w++)
        if (!isnan(s->work[w].load))
            gen[ngen++] = w;
    int rc = 0;
    size_t charts = s->nclusters * s->nestimates;
    for (size_t c = 0; c < s->nclusters && ngen; c++)
        for (size_t e = 0; e < s->nestimates; e++) {
            char name[64] = "jct_vs_load";
            if (charts > 1)
                snprintf(name, sizeof name, "jct_vs_load_%zu",
                         c * s->nestimates + e + 1);
            if (draw_jct_vs_load(s, out, g, gen, ngen, c, e, name) != 0)
                rc = -1;
        }
    for (size_t w = 0; w < s->nwork; w++) {
        char name[64] = "makespan";
        if (s->nwork > 1)
            snprintf(name, sizeof name, "makespan_%zu", w + 1);
        if (draw_makespan(s, out, g, w, name) != 0)
            rc = -1;
    }
    return rc;
}

/* Moves every file of TMP into OUT, each by one rename, then syncs OUT. */
static int move_charts(const char *tmp, const char *out)
{
    DIR *d = opendir(tmp);
    if (!d) {
        cli_error("%s: %s", tmp, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char from[EXP_PATH_MAX + 256], to[EXP_PATH_MAX + 256];
        snprintf(from, sizeof from, "%s/%s", tmp, e->d_name);
        snprintf(to, sizeof to, "%s/%s", out, e->d_name);
        if (exp_io_fsync_path(from, 0) != 0 ||
            exp_io_rename(from, to, 0) != 0) {
            cli_error("%s: %s", to, strerror(errno));
            rc = -1;
        }
    }
    closedir(d);
    if (rc == 0 && exp_io_fsync_path(out, 1) != 0) {
        cli_error("%s: %s", out, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* The charts are drawn into OUT/.charts.tmp.PID and each is then renamed
 * into place: a chart in OUT is always a whole one, of this sweep or the
 * last (docs/guarantees.md); the folder goes on any failure or signal. */
int sweep_draw_charts(const struct sweep_spec *s, const char *out,
                      const struct sweep_group *g)
{
    char tmp[EXP_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/.charts.tmp.%ld", out, (long)getpid());
    exp_clean_stale(out, "charts", NULL);
    if (exp_io_mkdir(tmp) != 0) {
        cli_error("%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    int slot = exp_temp_add(tmp, EXP_TEMP_TREE);
    int rc = draw_all(s, tmp, g);
    if (rc == 0)
        rc = move_charts(tmp, out);
    exp_rmtree(tmp);
    exp_temp_forget(slot);
    return rc;
}
