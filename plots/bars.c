/* bars.c -- grouped bar charts: categories along x, one bar per series. */
#include <math.h>

#include "plots_internal.h"

static void put_block(struct plot_buf *b, size_t n_categories,
                      const struct plot_series *s, size_t n_series)
{
    /* Category names stay out of the datablock: gnuplot's data reader has
     * no escape for a quote inside a quoted field, while the xtics list
     * below takes ordinary (escaped) strings. */
    plot_buf_puts(b, "$bars << EOD\n");
    for (size_t c = 0; c < n_categories; c++) {
        plot_buf_size(b, c);
        for (size_t k = 0; k < n_series; k++) {
            plot_buf_puts(b, " ");
            plot_buf_number(b, s[k].values[c]);
        }
        plot_buf_puts(b, "\n");
    }
    plot_buf_puts(b, "EOD\n");
}

static void put_xtics(struct plot_buf *b, const char *const *categories,
                      size_t n_categories)
{
    plot_buf_puts(b, "set xtics nomirror noenhanced");
    if (n_categories > 8)
        plot_buf_puts(b, " rotate by 30 right"); /* ends at its tic */
    plot_buf_puts(b, " (");
    for (size_t c = 0; c < n_categories; c++) {
        if (c)
            plot_buf_puts(b, ", ");
        plot_buf_name(b, categories ? categories[c] : NULL, c);
        plot_buf_puts(b, " ");
        plot_buf_size(b, c);
    }
    /* Autoscaling would leave an empty group's width at either end. */
    plot_buf_puts(b, ")\nset xrange [-0.6:");
    plot_buf_size(b, n_categories);
    plot_buf_puts(b, "-0.4]\n");
}

static void put_style(struct plot_buf *b, const struct plot_series *s,
                      size_t n_series)
{
    plot_buf_puts(b, "set grid noxtics ytics\n"
                     "set key outside right top Left reverse\n"
                     "set style data histograms\n"
                     "set style histogram clustered gap 1\n"
                     "set style fill solid 0.85 border -1\n");
    if (n_series == 1) /* the axis label says what it is */
        plot_buf_puts(b, "unset key\n");
    int non_negative = 1, all_zero = 1;
    for (size_t k = 0; k < n_series; k++)
        for (size_t c = 0; c < s[k].n; c++) {
            non_negative = non_negative && s[k].values[c] >= 0;
            all_zero = all_zero && s[k].values[c] == 0;
        }
    /* Headroom so that no bar ends on the border; bars that all start at
     * 0 keep the axis at 0; all zero, [0:1] rather than gnuplot's warning
     * about an empty range. */
    if (all_zero)
        plot_buf_puts(b, "set yrange [0:1]\n");
    else if (non_negative)
        plot_buf_puts(b, "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n");
    else
        plot_buf_puts(b, "set offsets 0, 0, graph 0.05, graph 0.05\n");
}

static void put_plot(struct plot_buf *b, const struct plot_series *s,
                     size_t n_series)
{
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, k ? ", \\\n     $bars using " : "plot $bars using ");
        plot_buf_size(b, k + 2);
        plot_script_fill_colour(b, k);
        plot_buf_puts(b, " title ");
        plot_buf_series_title(b, &s[k], k);
    }
    plot_buf_puts(b, "\n");
}

int plot_bars(const struct plot_chart *chart, const char *const *categories,
              size_t n_categories, const struct plot_series *series,
              size_t n_series)
{
    int rc = plot_check_chart(chart, 0);
    if (rc < 0)
        return rc;
    if (n_categories == 0 ||
        plot_check_series(series, n_series, n_categories, -INFINITY) < 0)
        return PLOT_EINVAL;
    struct plot_buf b = {0};
    plot_script_header(&b, chart);
    put_block(&b, n_categories, series, n_series);
    plot_script_settings(&b, chart);
    put_style(&b, series, n_series);
    put_xtics(&b, categories, n_categories);
    plot_script_png(&b, chart);
    put_plot(&b, series, n_series);
    plot_script_finish(&b, chart);
    rc = plot_render(chart, &b);
    plot_buf_free(&b);
    return rc;
}
