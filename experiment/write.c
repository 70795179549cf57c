/* write.c -- the table (text and CSV), the runs and the chart of a
 * reproduction. The HTML page is report.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"
#include "plots.h"

static void put_num(FILE *f, double v, const char *after)
{
    if (isfinite(v))
        fprintf(f, "%.6g%s", v, after);
    else
        fprintf(f, "%s", after);
}

/* Text cell: a number at 4 significant digits, or "-". */
static const char *cell(char *buf, size_t cap, double v, int prec, int pct)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else if (pct)
        snprintf(buf, cap, "%+.*f", prec, v);
    else
        snprintf(buf, cap, "%.*g", prec, v);
    return buf;
}

/* fgd's cut of unallocated GPU against its best baseline at arrived X:
 * 100 x (1 - unalloc_fgd / min unalloc of the others); NAN without fgd
 * or a baseline. */
double exp_fgd_cut(const struct exp_row *rows, size_t n, double x)
{
    double fgd = NAN, best = NAN;
    for (size_t i = 0; i < n; i++) {
        if (fabs(rows[i].x - x) > 1e-9)
            continue;
        double un = 1 - rows[i].mean;
        if (strcmp(rows[i].policy, "fgd") == 0)
            fgd = un;
        else if (!(un >= best))
            best = un;
    }
    if (!isfinite(fgd) || !isfinite(best) || best <= 0)
        return NAN;
    return 100.0 * (1 - fgd / best);
}

void exp_print_table(FILE *f, const struct exp_plan *p,
                     const struct exp_row *rows, size_t n)
{
    const struct exp_info *in = p->cfg.info;
    int fgd = exp_kind(in) == EXP_FGD;
    fprintf(f, "%s: %s, %s\n%s\n\n", in->name, in->source, in->figure,
            in->measure);
    fprintf(f, "%-30s %7s %11s %9s %11s %8s %10s %8s\n", "policy",
            fgd ? "arrived" : (exp_kind(in) == EXP_MAKESPAN ? "jobs" : "rate"),
            in->metric, "+-sd", "gavel sim", "diff %", "published", "diff %");
    for (size_t i = 0; i < n; i++) {
        const struct exp_row *r = &rows[i];
        char a[32], b[32], c[32], d[32], e[32], g[32];
        fprintf(f, "%-30s %7g %11s %9s %11s %8s %10s %8s\n", r->policy, r->x,
                cell(a, sizeof a, r->mean, 4, 0),
                cell(b, sizeof b, r->n > 1 ? r->sd : NAN, 3, 0),
                cell(c, sizeof c, r->gavel, 4, 0),
                cell(d, sizeof d, exp_rel_diff(r->mean, r->gavel), 2, 1),
                cell(e, sizeof e, r->published, 4, 0),
                cell(g, sizeof g, exp_rel_diff(r->mean, r->published), 2, 1));
    }
    if (fgd) {
        char a[32];
        fprintf(f,
                "\nfgd's cut of unallocated GPU against the best other "
                "placement at arrived 1.0: %s %% (published: up to %g %%, "
                "on Alibaba's 6,200-GPU trace)\n",
                cell(a, sizeof a, exp_fgd_cut(rows, n, 1.0), 1, 1),
                EXP_FGD_PUBLISHED_CUT_PCT);
    }
}

static int write_table(const char *dir, const struct exp_plan *p,
                       const struct exp_row *rows, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/table.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "experiment,policy,x,metric,hetsim_mean,hetsim_sd,seeds,"
               "gavel_sim,diff_vs_gavel_pct,published,diff_vs_published_pct,"
               "hetsim_wall_s,gavel_wall_s\n");
    for (size_t i = 0; i < n; i++) {
        const struct exp_row *r = &rows[i];
        fprintf(f, "%s,%s,%g,%s,", p->cfg.info->name, r->policy, r->x,
                p->cfg.info->metric);
        put_num(f, r->mean, ",");
        put_num(f, r->sd, ",");
        fprintf(f, "%zu,", r->n);
        put_num(f, r->gavel, ",");
        put_num(f, exp_rel_diff(r->mean, r->gavel), ",");
        put_num(f, r->published, ",");
        put_num(f, exp_rel_diff(r->mean, r->published), ",");
        put_num(f, r->wall_s, ",");
        put_num(f, r->gavel_wall_s, "\n");
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int write_runs(const char *dir, const struct exp_plan *p)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "policy,x,seed,value,wall_s,window_jobs_dropped\n");
    for (size_t i = 0; i < p->ncells; i++) {
        const struct exp_cell *c = &p->cells[i];
        fprintf(f, "%s,%g,%llu,", p->cfg.policies[c->policy], p->cfg.xs[c->x],
                (unsigned long long)p->cfg.seeds[c->seed]);
        put_num(f, c->value, ",");
        put_num(f, c->skip_run ? NAN : c->wall_s, ",");
        fprintf(f, "%zu\n", c->dropped);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* The paper's figure: the metric against x, a line per policy with the
 * spread over seeds as error bars. */
static int draw(const char *dir, const struct exp_plan *p,
                const struct exp_row *rows)
{
    const struct exp_config *c = &p->cfg;
    size_t np = c->npolicies, nx = c->nxs;
    struct plot_series *s = calloc(np, sizeof *s);
    double *v = calloc(np * nx, sizeof *v), *e = calloc(np * nx, sizeof *e);
    const double **errs = calloc(np, sizeof *errs);
    int rc = PLOT_ENOMEM;
    if (s && v && e && errs) {
        for (size_t k = 0; k < np; k++) {
            for (size_t x = 0; x < nx; x++) {
                v[k * nx + x] = rows[k * nx + x].mean;
                e[k * nx + x] = rows[k * nx + x].sd;
            }
            s[k] = (struct plot_series){c->policies[k], v + k * nx, nx};
            errs[k] = e + k * nx;
        }
        enum exp_kind kind = exp_kind(c->info);
        struct plot_chart ch = {
            .dir = dir,
            .name = "figure",
            .title = c->info->name,
            .xlabel = kind == EXP_FGD        ? "arrived workload (share of "
                                               "cluster GPUs)"
                      : kind == EXP_MAKESPAN ? "number of jobs"
                                             : "input job rate (jobs/h)",
            .ylabel = c->info->metric,
        };
        rc = plot_errorbars(&ch, c->xs, nx, s, errs, np);
    }
    free(s);
    free(v);
    free(e);
    free(errs);
    return rc;
}

/* hetsim's figure against Gavel's simulator's and the published one, with
 * the line y = x; nothing to draw (PLOT_EINVAL is not returned) when no
 * row has either. */
static int draw_vs(const char *dir, const struct exp_plan *p,
                   const struct exp_row *rows, size_t n)
{
    double *x = calloc(2 * n + 1, sizeof *x), *y = calloc(2 * n + 1, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return PLOT_ENOMEM;
    }
    size_t ng = 0, np = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(rows[i].gavel) && isfinite(rows[i].mean)) {
            x[ng] = rows[i].gavel;
            y[ng++] = rows[i].mean;
        }
    for (size_t i = 0; i < n; i++)
        if (isfinite(rows[i].published) && isfinite(rows[i].mean)) {
            x[n + np] = rows[i].published;
            y[n + np++] = rows[i].mean;
        }
    struct plot_points s[2];
    size_t ns = 0;
    if (ng)
        s[ns++] =
            (struct plot_points){"vs Gavel's simulator (same trace)", x, y, ng};
    if (np)
        s[ns++] = (struct plot_points){"vs published", x + n, y + n, np};
    int rc = 0;
    if (ns) {
        char xl[128], yl[128];
        snprintf(xl, sizeof xl, "reference %s", p->cfg.info->metric);
        snprintf(yl, sizeof yl, "hetsim %s", p->cfg.info->metric);
        struct plot_chart ch = {.dir = dir,
                                .name = "vs_reference",
                                .title = "hetsim against the references",
                                .xlabel = xl,
                                .ylabel = yl};
        rc = plot_scatter(&ch, s, ns, 1);
    }
    free(x);
    free(y);
    return rc;
}

int exp_write(const char *dir, const struct exp_plan *p,
              const struct exp_row *rows, size_t n, const char *command,
              int *chart_rc, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/table.txt", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        exp_print_table(f, p, rows, n);
        if (fclose(f) != 0)
            f = NULL;
    }
    if (!f || write_table(dir, p, rows, n) || write_runs(dir, p)) {
        snprintf(err, errlen, "%s: cannot write: %s", dir, strerror(errno));
        return -1;
    }
    *chart_rc = draw(dir, p, rows);
    if (*chart_rc == 0)
        *chart_rc = draw_vs(dir, p, rows, n);
    if (exp_write_report(dir, p, rows, n, command, *chart_rc == 0) != 0) {
        snprintf(err, errlen, "%s/report.html: cannot write: %s", dir,
                 strerror(errno));
        return -1;
    }
    return 0;
}
