/* scatter.c -- point clouds, e.g. predicted against actual values, with
 * the diagonal y = x that a perfect prediction would sit on. */
#include <math.h>

#include "plots_internal.h"

static int check(const struct plot_points *s, size_t n_series, int log_x,
                 int log_y)
{
    if (!s || n_series == 0)
        return PLOT_EINVAL;
    for (size_t k = 0; k < n_series; k++)
        if (s[k].n == 0 ||
            plot_check_values(s[k].x, s[k].n, log_x ? 0.0 : -INFINITY) < 0 ||
            plot_check_values(s[k].y, s[k].n, log_y ? 0.0 : -INFINITY) < 0)
            return PLOT_EINVAL;
    return 0;
}

static void put_blocks(struct plot_buf *b, const struct plot_points *s,
                       size_t n_series)
{
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, "$pts");
        plot_buf_size(b, k);
        plot_buf_puts(b, " << EOD\n");
        for (size_t i = 0; i < s[k].n; i++) {
            plot_buf_number(b, s[k].x[i]);
            plot_buf_puts(b, " ");
            plot_buf_number(b, s[k].y[i]);
            plot_buf_puts(b, "\n");
        }
        plot_buf_puts(b, "EOD\n");
    }
}

static void put_plot(struct plot_buf *b, const struct plot_points *s,
                     size_t n_series, int diagonal)
{
    static const int shapes[] = {7, 5, 9, 11, 13, 15, 1, 2};
    for (size_t k = 0; k < n_series; k++) {
        plot_buf_puts(b, k ? ", \\\n     $pts" : "plot $pts");
        plot_buf_size(b, k);
        plot_buf_puts(b, " using 1:2 with points ps 0.7 pt ");
        plot_buf_size(b, (size_t)shapes[k % 8]);
        plot_buf_puts(b, " title ");
        struct plot_series named = {s[k].name, NULL, 0};
        plot_buf_series_title(b, &named, k);
    }
    if (diagonal)
        plot_buf_puts(b, ", \\\n     x with lines dt 2 lc rgb 'gray40' "
                         "title 'y = x' noenhanced");
    plot_buf_puts(b, "\n");
}

int plot_scatter(const struct plot_chart *chart, const struct plot_points *s,
                 size_t n_series, int diagonal)
{
    int rc = plot_check_chart(chart, PLOT_LOG_X | PLOT_LOG_Y);
    if (rc < 0)
        return rc;
    if (check(s, n_series, (chart->flags & PLOT_LOG_X) != 0,
              (chart->flags & PLOT_LOG_Y) != 0) < 0)
        return PLOT_EINVAL;
    struct plot_buf b = {0};
    plot_script_header(&b, chart);
    put_blocks(&b, s, n_series);
    plot_script_settings(&b, chart);
    plot_buf_puts(&b, "set key outside right top\n"
                      "set offsets graph 0.02, graph 0.02, graph 0.02, "
                      "graph 0.02\n");
    plot_script_png(&b, chart);
    put_plot(&b, s, n_series, diagonal);
    plot_script_finish(&b, chart);
    rc = plot_render(chart, &b);
    plot_buf_free(&b);
    return rc;
}
