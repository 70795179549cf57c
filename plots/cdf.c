/* cdf.c -- empirical CDFs, downsampled with a bounded error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots_internal.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void put_row(struct plot_buf *b, double x, double p)
{
    plot_buf_number(b, x);
    plot_buf_puts(b, " ");
    plot_buf_number(b, p);
    plot_buf_puts(b, "\n");
}

static size_t count_distinct(const double *v, size_t n)
{
    size_t d = 1;
    for (size_t i = 1; i < n; i++)
        d += v[i] != v[i - 1];
    return d;
}

/* Rows of one CDF from sorted v[0..n-1]. m is the number of ranks to
 * visit: n when every distinct value fits the budget, else the budget.
 * Visiting rank ceil(j*n/m), j = 1..m, leaves at most floor(n/m) values
 * between two drawn ones; each drawn rank is pushed to the end of its run
 * of ties, so the drawn p is the exact F there and a value is drawn once.
 * plots.h derives the error bound from these two facts. */
static void put_cdf_rows(struct plot_buf *b, const double *v, size_t n,
                         size_t m)
{
    put_row(b, v[0], 0.0); /* the step up at the minimum */
    size_t last = 0;
    for (size_t j = 1; j <= m; j++) {
        /* ceil(j*n/m), 1-based, without forming j*n (which could wrap). */
        size_t rank = j * (n / m) + (j * (n % m) + m - 1) / m;
        if (rank <= last)
            continue;
        while (rank < n && v[rank] == v[rank - 1])
            rank++;
        put_row(b, v[rank - 1], (double)rank / (double)n);
        last = rank;
    }
}

static int put_blocks(struct plot_buf *b, const struct plot_series *s,
                      size_t n_series, size_t max_points)
{
    size_t longest = 0;
    for (size_t k = 0; k < n_series; k++)
        longest = s[k].n > longest ? s[k].n : longest;
    double *sorted = malloc(longest * sizeof *sorted);
    if (!sorted)
        return PLOT_ENOMEM;
    for (size_t k = 0; k < n_series; k++) {
        size_t n = s[k].n;
        memcpy(sorted, s[k].values, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_doubles);
        size_t m = count_distinct(sorted, n) <= max_points ? n : max_points;
        plot_buf_puts(b, "$cdf");
        plot_buf_size(b, k);
        plot_buf_puts(b, " << EOD\n");
        put_cdf_rows(b, sorted, n, m);
        plot_buf_puts(b, "EOD\n");
    }
    free(sorted);
    return 0;
}

static void put_plot(struct plot_buf *b, const struct plot_series *s,
                     size_t n_series)
{
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, k ? ", \\\n     $cdf" : "plot $cdf");
        plot_buf_size(b, k);
        plot_buf_puts(b, " using 1:2 with steps lw 2");
        plot_script_line_style(b, k);
        plot_buf_puts(b, " title ");
        plot_buf_series_title(b, &s[k], k);
    }
    plot_buf_puts(b, "\n");
}

/* All values equal (two jobs of the same JCT): gnuplot would warn of an
 * empty x range on stderr; a range around the value is set instead. */
static void put_single_value_range(struct plot_buf *b,
                                   const struct plot_series *s, size_t n,
                                   int log_x)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            lo = s[k].values[i] < lo ? s[k].values[i] : lo;
            hi = s[k].values[i] > hi ? s[k].values[i] : hi;
        }
    if (!(lo == hi) || !isfinite(lo))
        return;
    plot_buf_puts(b, "set xrange [");
    plot_buf_number(b, log_x ? lo / 2 : lo - 1);
    plot_buf_puts(b, ":");
    plot_buf_number(b, log_x ? hi * 2 : hi + 1);
    plot_buf_puts(b, "]\n");
}

int plot_cdf(const struct plot_chart *chart, const struct plot_series *series,
             size_t n_series)
{
    int rc = plot_check_chart(chart, PLOT_LOG_X);
    if (rc < 0)
        return rc;
    double min_excl = chart->flags & PLOT_LOG_X ? 0.0 : -INFINITY;
    rc = plot_check_series(series, n_series, 0, min_excl);
    if (rc < 0)
        return rc;
    size_t max_points = chart->max_points ? chart->max_points
                                          : PLOT_CDF_MAX_POINTS;
    struct plot_buf b = {0};
    plot_script_header(&b, chart);
    rc = put_blocks(&b, series, n_series, max_points);
    if (rc == 0) {
        plot_script_settings(&b, chart);
        /* A few names fit in the corner a CDF leaves empty; more would
         * cover the curves, so they go beside the plot; one needs no key,
         * the title and axis labels say what it is. Otherwise the
         * right margin leaves room for the last x tic label, which
         * autoscaling puts right on the border. */
        plot_buf_puts(&b, "set yrange [0:1]\n");
        put_single_value_range(&b, series, n_series,
                               (chart->flags & PLOT_LOG_X) != 0);
        plot_buf_puts(&b, n_series > 3 ? "set key outside right top "
                                         "Left reverse\n"
                          : n_series > 1 ? "set key bottom right\n"
                                           "set rmargin 6\n"
                                         : "unset key\nset rmargin 6\n");
        plot_script_png(&b, chart);
        put_plot(&b, series, n_series);
        plot_script_finish(&b, chart);
        rc = plot_render(chart, &b);
    }
    plot_buf_free(&b);
    return rc;
}
