/* reproduce_report.c -- report.html of a reproduction: one self-contained page. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiment_internal.h"
#include "html.h"

static void td(FILE *f, double v, int prec, int fixed)
{
    fputs("<td>", f);
    if (isfinite(v) && fixed)
        fprintf(f, "%+.*f", prec, v);
    else if (isfinite(v))
        fprintf(f, "%.*g", prec, v);
    else
        fputs("-", f);
    fputs("</td>", f);
}

static void table(FILE *f, const struct exp_row *rows, size_t n,
                  const char *metric)
{
    fputs("<table><tr><th>policy</th><th>x</th><th>hetsim ", f);
    cli_html_text(f, metric);
    fputs("</th><th>sd</th><th>seeds</th><th>Gavel's simulator</th>"
          "<th>diff %</th><th>published</th><th>diff %</th>"
          "<th>hetsim wall s/run</th><th>Gavel wall s</th></tr>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const struct exp_row *r = &rows[i];
        fputs("<tr><td>", f);
        cli_html_text(f, r->policy);
        fprintf(f, "</td><td>%g</td>", r->x);
        td(f, r->mean, 4, 0);
        td(f, r->n > 1 ? r->sd : NAN, 3, 0);
        fprintf(f, "<td>%zu</td>", r->n);
        td(f, r->gavel, 4, 0);
        td(f, exp_rel_diff(r->mean, r->gavel), 2, 1);
        td(f, r->published, 4, 0);
        td(f, exp_rel_diff(r->mean, r->published), 2, 1);
        td(f, r->wall_s, 3, 0);
        td(f, r->gavel_wall_s, 4, 0);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void inline_svg(FILE *f, const char *dir, const char *name)
{
    char path[4200], buf[8192];
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    FILE *in = fopen(path, "r");
    if (!in)
        return;
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, k, f);
    fclose(in);
}

int exp_write_report(const char *dir, const struct exp_plan *p,
                     const struct exp_row *rows, size_t n, const char *command,
                     int have_chart)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const struct exp_info *in = p->cfg.info;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
          "hetsim reproduce ",
          f);
    cli_html_text(f, in->name);
    fputs("</title><style>body{font-family:sans-serif;max-width:70em;"
          "margin:auto}table{border-collapse:collapse}td,th{border:1px "
          "solid #ccc;padding:2px 6px;text-align:right}</style></head>"
          "<body>\n<h1>",
          f);
    cli_html_text(f, in->name);
    fputs("</h1>\n<p><b>Source:</b> ", f);
    cli_html_text(f, in->source);
    fputs(", ", f);
    cli_html_text(f, in->figure);
    fputs(".</p>\n<p><b>Measured:</b> ", f);
    cli_html_text(f, in->measure);
    fputs(".</p>\n<p><b>Command:</b> <code>", f);
    cli_html_text(f, command);
    fputs("</code></p>\n", f);
    if (have_chart) {
        inline_svg(f, dir, "figure");
        inline_svg(f, dir, "vs_reference");
    }
    table(f, rows, n, in->metric);
    if (exp_kind(in) == EXP_FGD)
        fprintf(f,
                "<p>fgd's cut of unallocated GPU against the best other "
                "placement at arrived 1.0: %.1f %% (published: up to %g "
                "%%, on Alibaba's 6,200-GPU trace).</p>\n",
                exp_fgd_cut(rows, n, 1.0), EXP_FGD_PUBLISHED_CUT_PCT);
    fputs("<p>Differences are (hetsim - other) / other. Gavel's simulator "
          "values are from Gavel c4fa400 run on the same traces (seed 0); "
          "the published values are the seed-0 figures printed by Gavel's "
          "notebooks (beside a mean over several seeds they are a guide, "
          "not a like-for-like check). See docs/fidelity.md."
          "</p>\n</body></html>\n",
          f);
    return fclose(f) == 0 ? 0 : -1;
}
