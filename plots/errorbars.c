/* errorbars.c -- lines through points, each with a vertical error bar:
 * a figure against a swept parameter, with its confidence interval. */
#include <math.h>
#include <stdio.h>

#include "plots_internal.h"

static void put_block(struct plot_buf *b, const double *x, size_t n_x,
                      const struct plot_series *s,
                      const double *const *errors, size_t n_series)
{
    plot_buf_puts(b, "$err << EOD\n");
    for (size_t i = 0; i < n_x; i++) {
        plot_buf_number(b, x[i]);
        for (size_t k = 0; k < n_series; k++) {
            plot_buf_puts(b, " ");
            plot_buf_number(b, s[k].values[i]);
            plot_buf_puts(b, " ");
            plot_buf_number(b, errors[k][i]);
        }
        plot_buf_puts(b, "\n");
    }
    plot_buf_puts(b, "EOD\n");
}

/* Series K's x shift, so that the bars of policies at one x stand apart:
 * the series are spread over 4 % of the x span (of x itself when every x
 * is equal), centred on the true x; a factor on a log axis. */
static double x_shift(const double *x, size_t n_x, size_t k, size_t n_series,
                      int log_x)
{
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < n_x; i++) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    double pos = n_series > 1 ? (double)k / (double)(n_series - 1) - 0.5 : 0;
    if (log_x)
        return pow(hi > lo ? hi / lo : 10, 0.04 * pos);
    double span = hi > lo ? hi - lo : (lo != 0 ? fabs(lo) : 1);
    return 0.04 * span * pos;
}

static void put_plot(struct plot_buf *b, const struct plot_series *s,
                     size_t n_series, const double *x, size_t n_x,
                     int log_x, int clip)
{
    plot_buf_puts(b, "set grid\nset key outside right top\n"
                     "set offsets graph 0.03, graph 0.03, graph 0.05, "
                     "graph 0.05\n");
    if (clip) /* nothing below 0 to show */
        plot_buf_puts(b, "set yrange [0:*]\n");
    for (size_t k = 0; k < n_series; k++) {
        /* x shifted per series; with CLIP the interval's low end is cut
         * at 0 (a figure that cannot be negative: JCT, makespan) */
        char col[160], y[24], e[24];
        snprintf(y, sizeof y, "$%zu", 2 * k + 2);
        snprintf(e, sizeof e, "$%zu", 2 * k + 3);
        plot_buf_puts(b, k ? ", \\\n     $err using ($1" : "plot $err using ($1");
        plot_buf_puts(b, log_x ? "*" : "+");
        plot_buf_number(b, x_shift(x, n_x, k, n_series, log_x));
        snprintf(col, sizeof col, "):(%s):", y);
        plot_buf_puts(b, col);
        if (clip)
            snprintf(col, sizeof col, "(%s-%s<0?0:%s-%s):(%s+%s)", y, e, y, e,
                     y, e);
        else
            snprintf(col, sizeof col, "(%s-%s):(%s+%s)", y, e, y, e);
        plot_buf_puts(b, col);
        /* The same colour and dash of series K as every other chart, so
         * a policy looks alike across a sweep's charts. */
        plot_buf_puts(b, " with yerrorlines lw 2");
        plot_script_line_style(b, k);
        plot_buf_puts(b, " title ");
        plot_buf_series_title(b, &s[k], k);
    }
    plot_buf_puts(b, "\n");
}

int plot_errorbars(const struct plot_chart *chart, const double *x,
                   size_t n_x, const struct plot_series *series,
                   const double *const *errors, size_t n_series)
{
    int rc = plot_check_chart(chart, PLOT_LOG_X | PLOT_LOG_Y);
    if (rc < 0)
        return rc;
    double min = -INFINITY;
    if (!x || n_x == 0 || !errors ||
        plot_check_values(x, n_x, chart->flags & PLOT_LOG_X ? 0 : min) < 0 ||
        plot_check_series(series, n_series, n_x,
                          chart->flags & PLOT_LOG_Y ? 0 : min) < 0)
        return PLOT_EINVAL;
    for (size_t k = 0; k < n_series; k++)
        if (!errors[k] || plot_check_values(errors[k], n_x, min) < 0)
            return PLOT_EINVAL;
        else
            for (size_t i = 0; i < n_x; i++)
                if (errors[k][i] < 0)
                    return PLOT_EINVAL;
    struct plot_buf b = {0};
    plot_script_header(&b, chart);
    put_block(&b, x, n_x, series, errors, n_series);
    plot_script_settings(&b, chart);
    plot_script_png(&b, chart);
    /* every value >= 0 on a linear y axis: the interval stops at 0 */
    int clip = !(chart->flags & PLOT_LOG_Y);
    for (size_t k = 0; k < n_series; k++)
        for (size_t i = 0; i < n_x; i++)
            clip &= series[k].values[i] >= 0;
    put_plot(&b, series, n_series, x, n_x, (chart->flags & PLOT_LOG_X) != 0,
             clip);
    plot_script_finish(&b, chart);
    rc = plot_render(chart, &b);
    plot_buf_free(&b);
    return rc;
}
