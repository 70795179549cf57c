/* plots_internal.h -- shared by the files of the plots module only. */
#ifndef HETSIM_PLOTS_INTERNAL_H
#define HETSIM_PLOTS_INTERNAL_H

#include <stddef.h>

#include "plots.h"

/* A growing text buffer. An allocation failure latches `failed` and turns
 * later appends into no-ops, so a script builder checks once, at the end. */
struct plot_buf {
    char *data; /* NUL-terminated when len > 0 */
    size_t len;
    size_t cap;
    int failed;
};

void plot_buf_free(struct plot_buf *b);
void plot_buf_puts(struct plot_buf *b, const char *s);
void plot_buf_size(struct plot_buf *b, size_t v);
/* Shortest text that strtod reads back as exactly v. */
void plot_buf_number(struct plot_buf *b, double v);
/* s as a single-quoted gnuplot string; the caller marks it noenhanced so
 * that it is shown literally. */
void plot_buf_text(struct plot_buf *b, const char *s);
/* S as plot_buf_text does, or 'K' when S is NULL: category and group
 * names. */
void plot_buf_name(struct plot_buf *b, const char *s, size_t k);
/* A series' key title, noenhanced: its name, or "series K" if it has none. */
void plot_buf_series_title(struct plot_buf *b, const struct plot_series *s,
                           size_t k);

/* Argument checks shared by the charts; each returns 0 or PLOT_EINVAL.
 * need_n == 0 accepts any n >= 1; min_excl > -INFINITY demands v > it. */
int plot_check_chart(const struct plot_chart *c, unsigned allowed_flags);
int plot_check_values(const double *v, size_t n, double min_excl);
int plot_check_series(const struct plot_series *s, size_t n_series,
                      size_t need_n, double min_excl);
int plot_width(const struct plot_chart *c);
int plot_height(const struct plot_chart *c);

/* Pieces of every script, in this order: header, (datablocks), settings,
 * (chart settings), png terminal, (plot command), finish. */
void plot_script_header(struct plot_buf *b, const struct plot_chart *c);
void plot_script_settings(struct plot_buf *b, const struct plot_chart *c);
void plot_script_png(struct plot_buf *b, const struct plot_chart *c);
void plot_script_finish(struct plot_buf *b, const struct plot_chart *c);
/* The svg terminal alone, for scripts that draw twice instead of replot
 * (a multiplot cannot be replotted). */
void plot_script_svg(struct plot_buf *b, const struct plot_chart *c);

/* The panels of plot_steps with PLOT_PANELS (panels.c): settings, then
 * both images, each drawn in full. BANDED: the data was downsampled and
 * $band exists. */
void plot_steps_panels(struct plot_buf *b, const struct plot_chart *c,
                       const struct plot_series *s, size_t n_series,
                       int banded);
/* Plot elements of series K of plot_steps (steps.c), without "plot " or a
 * title: its band of bucket minima to maxima (from $band), and its line. */
void plot_steps_band(struct plot_buf *b, size_t k);
void plot_steps_line(struct plot_buf *b, size_t k, int banded);

/* The look of series K: " lc rgb '#RRGGBB' dt D", ten colours by dash
 * types 1..5, so that up to ten series all differ in colour and
 * neighbours in dashes too; the colour alone for filled bars. */
void plot_script_line_style(struct plot_buf *b, size_t k);
void plot_script_fill_colour(struct plot_buf *b, size_t k);

/* Saves b as DIR/NAME.gp and pipes the same bytes into gnuplot run in DIR.
 * Returns 0 or a PLOT_E* code (see plot_cdf). Does not free b. */
int plot_render(const struct plot_chart *c, struct plot_buf *b);

#endif
