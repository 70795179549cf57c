/* steps.c -- time series drawn as steps, downsampled to an upper envelope. */
#include <math.h>
#include <stdlib.h>

#include "plots_internal.h"

static void put_row(struct plot_buf *b, double x, const double *y, size_t n)
{
    plot_buf_number(b, x);
    for (size_t k = 0; k < n; k++) {
        plot_buf_puts(b, " ");
        plot_buf_number(b, y[k]);
    }
    plot_buf_puts(b, "\n");
}

/* Row i of the data as given, or of bucket [lo, hi) reduced to its first x
 * and each series' maximum: keeping the maximum (not a mean or a sample)
 * is what makes the drawn curve never lower than the exact one. With
 * WITH_MIN, each series' minimum over the bucket follows, for the band. */
static void put_bucket(struct plot_buf *b, const double *x,
                       const struct plot_series *s, size_t n_series,
                       size_t lo, size_t hi, double *scratch, int with_min)
{
    for (size_t k = 0; k < n_series; k++) {
        double top = s[k].values[lo], low = s[k].values[lo];
        for (size_t i = lo + 1; i < hi; i++) {
            top = fmax(top, s[k].values[i]);
            low = fmin(low, s[k].values[i]);
        }
        scratch[k] = top;
        scratch[n_series + k] = low;
    }
    put_row(b, x[lo], scratch, with_min ? 2 * n_series : n_series);
}

static int put_block(struct plot_buf *b, const double *x, size_t n_x,
                     const struct plot_series *s, size_t n_series,
                     size_t max_points)
{
    double *scratch = malloc(2 * n_series * sizeof *scratch);
    if (!scratch)
        return PLOT_ENOMEM;
    plot_buf_puts(b, "$steps << EOD\n");
    if (n_x <= max_points) {
        for (size_t i = 0; i < n_x; i++)
            put_bucket(b, x, s, n_series, i, i + 1, scratch, 0);
    } else {
        /* Bucket j is [j*n/B, (j+1)*n/B): sizes differ by at most one,
         * and none is empty because n > B. */
        size_t buckets = max_points - 1;
        size_t q = n_x / buckets, r = n_x % buckets;
        for (size_t j = 0; j < buckets; j++) {
            size_t lo = j * q + j * r / buckets;
            size_t hi = (j + 1) * q + (j + 1) * r / buckets;
            put_bucket(b, x, s, n_series, lo, hi, scratch, 1);
        }
        /* The last sample as it is: the line still ends at the last x. */
        put_bucket(b, x, s, n_series, n_x - 1, n_x, scratch, 1);
    }
    plot_buf_puts(b, "EOD\n");
    free(scratch);
    return 0;
}

static int check_x(const double *x, size_t n_x, double min_excl)
{
    if (n_x == 0 || plot_check_values(x, n_x, min_excl) < 0)
        return PLOT_EINVAL;
    for (size_t i = 1; i < n_x; i++)
        if (x[i] < x[i - 1])
            return PLOT_EINVAL;
    return 0;
}

static int all_non_negative(const struct plot_series *s, size_t n_series)
{
    for (size_t k = 0; k < n_series; k++)
        for (size_t i = 0; i < s[k].n; i++)
            if (s[k].values[i] < 0)
                return 0;
    return 1;
}

/* Downsampled, each series is first drawn as a light band from its
 * bucket minima to its maxima, so that a series that swings within a
 * bucket shows as a band, not as a solid block of vertical strokes; the
 * line of maxima goes on top. */
static int all_zero(const struct plot_series *s, size_t n_series)
{
    for (size_t k = 0; k < n_series; k++)
        for (size_t i = 0; i < s[k].n; i++)
            if (s[k].values[i] != 0)
                return 0;
    return 1;
}

static void put_plot(struct plot_buf *b, const struct plot_series *s,
                     size_t n_series, int banded)
{
    plot_buf_puts(b, "plot ");
    for (size_t k = 0; banded && k < n_series; k++) {
        plot_buf_puts(b, "$steps using 1:");
        plot_buf_size(b, n_series + k + 2);
        plot_buf_puts(b, ":");
        plot_buf_size(b, k + 2);
        plot_buf_puts(b, " with filledcurves fs transparent solid 0.25 "
                         "noborder");
        plot_script_fill_colour(b, k);
        plot_buf_puts(b, " notitle, \\\n     ");
    }
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, k ? ", \\\n     $steps using 1:" : "$steps using 1:");
        plot_buf_size(b, k + 2);
        plot_buf_puts(b, banded ? " with steps lw 1.5" : " with steps lw 2");
        plot_script_line_style(b, k);
        plot_buf_puts(b, " title ");
        plot_buf_series_title(b, &s[k], k);
    }
    plot_buf_puts(b, "\n");
}

int plot_steps(const struct plot_chart *chart, const double *x, size_t n_x,
               const struct plot_series *series, size_t n_series)
{
    int rc = plot_check_chart(chart, PLOT_LOG_X | PLOT_LOG_Y);
    if (rc < 0)
        return rc;
    int log_y = (chart->flags & PLOT_LOG_Y) != 0;
    if (check_x(x, n_x, chart->flags & PLOT_LOG_X ? 0.0 : -INFINITY) < 0 ||
        plot_check_series(series, n_series, n_x, log_y ? 0.0 : -INFINITY) < 0 ||
        chart->max_points == 1)
        return PLOT_EINVAL;
    size_t max_points = chart->max_points ? chart->max_points
                                          : PLOT_STEPS_MAX_POINTS;
    struct plot_buf b = {0};
    plot_script_header(&b, chart);
    rc = put_block(&b, x, n_x, series, n_series, max_points);
    if (rc == 0) {
        plot_script_settings(&b, chart);
        /* x spans exactly the data; y gets headroom, so that a peak is
         * not drawn along the top border. */
        plot_buf_puts(&b, "set autoscale xfix\n"
                          "set offsets 0, 0, graph 0.05, 0\n"
                          "set key outside right top\n");
        if (n_series == 1) /* the axis label says what it is */
            plot_buf_puts(&b, "unset key\n");
        /* All zero (an empty queue): [0:1], not gnuplot's warning about
         * an empty range. */
        if (!log_y && all_non_negative(series, n_series))
            plot_buf_puts(&b, all_zero(series, n_series) ? "set yrange [0:1]\n"
                                                         : "set yrange [0:*]\n");
        plot_script_png(&b, chart);
        put_plot(&b, series, n_series, n_x > max_points);
        plot_script_finish(&b, chart);
        rc = plot_render(chart, &b);
    }
    plot_buf_free(&b);
    return rc;
}
