/* panels.c -- plot_steps with PLOT_PANELS: small multiples, one panel per
 * series on shared axes, for when overlaid lines would tangle. Each panel
 * draws its series in colour over all the others in light grey, so it can
 * still be compared with them. */
#include <math.h>

#include "plots_internal.h"

/* Panel grid: one column up to four series, else two. */
static size_t panel_columns(size_t n_series)
{
    return n_series <= 4 ? 1 : 2;
}

/* The y range every panel shares: from min(0, lowest) to the highest
 * value, 5% of headroom above; [0:1] when all is zero. */
static void put_y_range(struct plot_buf *b, const struct plot_series *s,
                        size_t n_series)
{
    double lo = 0, hi = 0;
    for (size_t k = 0; k < n_series; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            lo = fmin(lo, s[k].values[i]);
            hi = fmax(hi, s[k].values[i]);
        }
    if (!(hi > lo))
        hi = lo + 1;
    plot_buf_puts(b, "set yrange [");
    plot_buf_number(b, lo);
    plot_buf_puts(b, ":");
    plot_buf_number(b, hi + 0.05 * (hi - lo));
    /* At most four tics: a short panel has no room for more labels. The
     * step is the least of 1, 2, 5 times a power of ten that is at least
     * a third of the range. */
    double raw = (hi - lo) / 3, p10 = pow(10, floor(log10(raw)));
    double m = raw / p10;
    double step = p10 * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
    plot_buf_puts(b, "]\nset ytics ");
    plot_buf_number(b, step);
    plot_buf_puts(b, "\n");
}

/* Panel K: its name as its title, axis labels only on the left column and
 * the bottom row, then the others in grey, its band, its line. */
static void put_panel(struct plot_buf *b, const struct plot_chart *c,
                      const struct plot_series *s, size_t n_series, size_t k,
                      int banded)
{
    size_t cols = panel_columns(n_series);
    size_t rows = (n_series + cols - 1) / cols;
    plot_buf_puts(b, "set title ");
    plot_buf_series_title(b, &s[k], k);
    plot_buf_puts(b, " offset 0,-0.6\n");
    if (k % cols == 0 && c->ylabel) {
        plot_buf_puts(b, "set ylabel ");
        plot_buf_text(b, c->ylabel);
        plot_buf_puts(b, " noenhanced\n");
    } else
        plot_buf_puts(b, "unset ylabel\n");
    /* The x axis is shared: its labels only under the bottom row. */
    if (k / cols == rows - 1) {
        plot_buf_puts(b, "set format x '% h'\n");
        if (c->xlabel) {
            plot_buf_puts(b, "set xlabel ");
            plot_buf_text(b, c->xlabel);
            plot_buf_puts(b, " noenhanced\n");
        }
    } else
        plot_buf_puts(b, "set format x ''\nunset xlabel\n");
    plot_buf_puts(b, "plot ");
    for (size_t j = 0; j < n_series; j++) {
        if (j == k)
            continue;
        plot_buf_puts(b, "$steps using 1:");
        plot_buf_size(b, j + 2);
        plot_buf_puts(b, " with steps lw 1 lc rgb '#dddddd' notitle, \\\n"
                         "     ");
    }
    if (banded) {
        plot_steps_band(b, k);
        plot_buf_puts(b, " notitle, \\\n     ");
    }
    /* Solid and bold: the panel's title already names it, so the dashes
     * that tell overlaid lines apart would only make it fainter. */
    plot_buf_puts(b, "$steps using 1:");
    plot_buf_size(b, k + 2);
    plot_buf_puts(b, " with steps lw 2.5");
    plot_script_fill_colour(b, k);
    plot_buf_puts(b, " notitle\n");
}

/* The whole multiplot, written once per image: a multiplot cannot be
 * replotted into the second terminal. */
static void put_multiplot(struct plot_buf *b, const struct plot_chart *c,
                          const struct plot_series *s, size_t n_series,
                          int banded)
{
    size_t cols = panel_columns(n_series);
    plot_buf_puts(b, "set multiplot layout ");
    plot_buf_size(b, (n_series + cols - 1) / cols);
    plot_buf_puts(b, ",");
    plot_buf_size(b, cols);
    /* Fixed margins and spacing give every panel the same plot area; the
     * labels of the shared axes live in the margins. */
    plot_buf_puts(b, " margins 0.1,0.96,0.09,0.93 spacing 0.1,0.06");
    if (c->title) {
        plot_buf_puts(b, " title ");
        plot_buf_text(b, c->title);
        plot_buf_puts(b, " noenhanced");
    }
    plot_buf_puts(b, "\n");
    for (size_t k = 0; k < n_series; k++)
        put_panel(b, c, s, n_series, k, banded);
    plot_buf_puts(b, "unset multiplot\nunset output\n");
}

void plot_steps_panels(struct plot_buf *b, const struct plot_chart *chart,
                       const struct plot_series *s, size_t n_series,
                       int banded)
{
    struct plot_chart c = *chart;
    if (!c.height) {
        size_t rows = (n_series + panel_columns(n_series) - 1) /
                      panel_columns(n_series);
        c.height = (int)(90 + 150 * rows);
    }
    /* Titles and labels go per panel, so the shared settings get none. */
    struct plot_chart shared = c;
    shared.title = shared.xlabel = shared.ylabel = NULL;
    plot_script_settings(b, &shared);
    plot_buf_puts(b, "unset key\nset autoscale xfix\n");
    put_y_range(b, s, n_series);
    plot_script_png(b, &c);
    put_multiplot(b, &c, s, n_series, banded);
    plot_script_svg(b, &c);
    put_multiplot(b, &c, s, n_series, banded);
}
