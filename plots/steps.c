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

/* Folds samples [lo, hi) into each series' maximum (top[k]) and minimum
 * (low[k]); FRESH starts them anew from sample lo. Keeping the maximum
 * (not a mean or a sample) is what makes the drawn line never lower than
 * the exact one. */
static void reduce(const struct plot_series *s, size_t n_series, size_t lo,
                   size_t hi, double *top, double *low, int fresh)
{
    for (size_t k = 0; k < n_series; k++) {
        if (fresh)
            top[k] = low[k] = s[k].values[lo];
        for (size_t i = lo; i < hi; i++) {
            top[k] = fmax(top[k], s[k].values[i]);
            low[k] = fmin(low[k], s[k].values[i]);
        }
    }
}

/* A row of $band: the bucket's time span, then each series' minimum and
 * maximum over it. */
static void put_band_row(struct plot_buf *b, double x0, double x1,
                         const double *top, const double *low,
                         size_t n_series)
{
    plot_buf_number(b, x0);
    plot_buf_puts(b, " ");
    plot_buf_number(b, x1);
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, " ");
        plot_buf_number(b, low[k]);
        plot_buf_puts(b, " ");
        plot_buf_number(b, top[k]);
    }
    plot_buf_puts(b, "\n");
}

/* Downsampled: B = max_points - 1 buckets of equal time span cover
 * [x[0], x[n_x-1]]; each gets a row at its start holding each series'
 * extremes over the bucket: the value held when it opens (unless a sample
 * falls right on its start) and every sample inside it. The last bucket
 * takes every remaining sample, and the last sample gets its own row. */
static void put_buckets(struct plot_buf *b, struct plot_buf *band,
                        const double *x, size_t n_x,
                        const struct plot_series *s, size_t n_series,
                        size_t buckets, double *top, double *low)
{
    double x0 = x[0];
    if (!(x[n_x - 1] > x0))
        buckets = 1; /* no time span to cut: one bucket of all samples */
    double width = (x[n_x - 1] - x0) / (double)buckets;
    size_t i = 0;
    for (size_t j = 0; j < buckets; j++) {
        double start = x0 + width * (double)j;
        double end = j + 1 < buckets ? x0 + width * (double)(j + 1)
                                     : x[n_x - 1];
        size_t hi = i;
        while (hi < n_x && (x[hi] < end || j + 1 == buckets))
            hi++;
        if (i > 0 && (i == hi || x[i] > start))
            reduce(s, n_series, i - 1, i, top, low, 1); /* held value */
        else if (i < hi)
            reduce(s, n_series, i, i + 1, top, low, 1);
        reduce(s, n_series, i, hi, top, low, 0);
        put_row(b, start, top, n_series);
        put_band_row(band, start, end, top, low, n_series);
        i = hi;
    }
    reduce(s, n_series, n_x - 1, n_x, top, low, 1);
    put_row(b, x[n_x - 1], top, n_series);
}

static int put_block(struct plot_buf *b, const double *x, size_t n_x,
                     const struct plot_series *s, size_t n_series,
                     size_t max_points)
{
    double *top = malloc(2 * n_series * sizeof *top), *low = top + n_series;
    if (!top)
        return PLOT_ENOMEM;
    struct plot_buf band = {0};
    plot_buf_puts(b, "$steps << EOD\n");
    if (n_x <= max_points) {
        for (size_t i = 0; i < n_x; i++) {
            reduce(s, n_series, i, i + 1, top, low, 1);
            put_row(b, x[i], top, n_series);
        }
    } else {
        plot_buf_puts(&band, "$band << EOD\n");
        put_buckets(b, &band, x, n_x, s, n_series, max_points - 1, top, low);
        plot_buf_puts(&band, "EOD\n");
    }
    plot_buf_puts(b, "EOD\n");
    if (band.len)
        plot_buf_puts(b, band.data);
    int failed = band.failed;
    plot_buf_free(&band);
    free(top);
    return failed ? PLOT_ENOMEM : 0;
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

static int all_zero(const struct plot_series *s, size_t n_series)
{
    for (size_t k = 0; k < n_series; k++)
        for (size_t i = 0; i < s[k].n; i++)
            if (s[k].values[i] != 0)
                return 0;
    return 1;
}

void plot_steps_band(struct plot_buf *b, size_t k)
{
    /* A box per bucket: x from its start to its end, y from the minimum
     * to the maximum. */
    size_t lo = 2 * k + 3, hi = 2 * k + 4;
    plot_buf_puts(b, "$band using (($1+$2)/2):(($");
    plot_buf_size(b, lo);
    plot_buf_puts(b, "+$");
    plot_buf_size(b, hi);
    plot_buf_puts(b, ")/2):(($2-$1)/2):(($");
    plot_buf_size(b, hi);
    plot_buf_puts(b, "-$");
    plot_buf_size(b, lo);
    plot_buf_puts(b, ")/2) with boxxyerror fs transparent solid 0.25 "
                     "noborder");
    plot_script_fill_colour(b, k);
}

void plot_steps_line(struct plot_buf *b, size_t k, int banded)
{
    plot_buf_puts(b, "$steps using 1:");
    plot_buf_size(b, k + 2);
    plot_buf_puts(b, banded ? " with steps lw 1.5" : " with steps lw 2");
    plot_script_line_style(b, k);
}

/* Downsampled, each series is first drawn as a light band from its
 * bucket minima to its maxima, so that a series that swings within a
 * bucket shows as a band, not as a solid block of vertical strokes; the
 * line of maxima goes on top. */
static void put_plot(struct plot_buf *b, const struct plot_series *s,
                     size_t n_series, int banded)
{
    plot_buf_puts(b, "plot ");
    for (size_t k = 0; banded && k < n_series; k++) {
        plot_steps_band(b, k);
        plot_buf_puts(b, " notitle, \\\n     ");
    }
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, k ? ", \\\n     " : "");
        plot_steps_line(b, k, banded);
        plot_buf_puts(b, " title ");
        plot_buf_series_title(b, &s[k], k);
    }
    plot_buf_puts(b, "\n");
}

int plot_steps(const struct plot_chart *chart, const double *x, size_t n_x,
               const struct plot_series *series, size_t n_series)
{
    int rc = plot_check_chart(chart, PLOT_LOG_X | PLOT_LOG_Y | PLOT_PANELS);
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
    if (rc == 0 && (chart->flags & PLOT_PANELS) && n_series > 1) {
        plot_steps_panels(&b, chart, series, n_series, n_x > max_points);
        rc = plot_render(chart, &b);
    } else if (rc == 0) {
        plot_script_settings(&b, chart);
        /* x spans exactly the data; y gets headroom, so that a peak is
         * not drawn along the top border. */
        plot_buf_puts(&b, "set autoscale xfix\n"
                          "set offsets 0, 0, graph 0.05, 0\n"
                          "set key outside right top Left reverse\n");
        if (n_series == 1) /* the axis label says what it is */
            plot_buf_puts(&b, "unset key\n");
        /* All zero (an empty queue): [0:1], not gnuplot's warning about
         * an empty range. */
        if (!log_y && all_non_negative(series, n_series))
            plot_buf_puts(&b, all_zero(series, n_series) ? "set yrange [0:1]\n"
                                                         : "set yrange [0:*]\n"
                                                           "set autoscale yfixmax\n");
        plot_script_png(&b, chart);
        put_plot(&b, series, n_series, n_x > max_points);
        plot_script_finish(&b, chart);
        rc = plot_render(chart, &b);
    }
    plot_buf_free(&b);
    return rc;
}
