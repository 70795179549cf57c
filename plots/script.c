/* script.c -- argument checks and the parts every chart script shares. */
#include <math.h>
#include <string.h>

#include "plots_internal.h"

const char *plot_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define PLOT_ERRNO_CASE(name, value, text) \
    case name:                             \
        return text;
        PLOT_ERRNO_MAP(PLOT_ERRNO_CASE)
#undef PLOT_ERRNO_CASE
    default:
        return "unknown plot error";
    }
}

static int name_is_safe(const char *name)
{
    /* The stem goes unescaped into file names and into the script's
     * quoted output names; a narrow alphabet keeps both safe and rules
     * out paths such as "../x". */
    size_t len = strlen(name);
    if (len == 0 || len > 200 || name[0] == '.' || name[0] == '-')
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        if (!ok)
            return 0;
    }
    return 1;
}

int plot_check_chart(const struct plot_chart *c, unsigned allowed_flags)
{
    if (!c || !c->dir || !c->dir[0] || !c->name || !name_is_safe(c->name))
        return PLOT_EINVAL;
    if (c->flags & ~allowed_flags)
        return PLOT_EINVAL;
    if ((c->width && (c->width < 16 || c->width > 10000)) ||
        (c->height && (c->height < 16 || c->height > 10000)))
        return PLOT_EINVAL;
    return 0;
}

int plot_check_values(const double *v, size_t n, double min_excl)
{
    if (n && !v)
        return PLOT_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || !(v[i] > min_excl))
            return PLOT_EINVAL;
    return 0;
}

int plot_check_series(const struct plot_series *s, size_t n_series,
                      size_t need_n, double min_excl)
{
    if (!s || n_series == 0)
        return PLOT_EINVAL;
    for (size_t k = 0; k < n_series; k++) {
        if (s[k].n == 0 || (need_n && s[k].n != need_n))
            return PLOT_EINVAL;
        if (plot_check_values(s[k].values, s[k].n, min_excl) < 0)
            return PLOT_EINVAL;
    }
    return 0;
}

int plot_width(const struct plot_chart *c)
{
    return c->width ? c->width : PLOT_DEFAULT_WIDTH;
}

int plot_height(const struct plot_chart *c)
{
    return c->height ? c->height : PLOT_DEFAULT_HEIGHT;
}

void plot_script_header(struct plot_buf *b, const struct plot_chart *c)
{
    plot_buf_puts(b, "# ");
    plot_buf_puts(b, c->name);
    plot_buf_puts(b, ".gp -- drawn by hetsim. Edit, then re-draw ");
    plot_buf_puts(b, c->name);
    plot_buf_puts(b, ".png and ");
    plot_buf_puts(b, c->name);
    plot_buf_puts(b, ".svg\n# from this folder with: gnuplot ");
    plot_buf_puts(b, c->name);
    plot_buf_puts(b, ".gp\n");
}

static void put_label(struct plot_buf *b, const char *cmd, const char *text)
{
    if (!text)
        return;
    plot_buf_puts(b, cmd);
    plot_buf_text(b, text);
    plot_buf_puts(b, " noenhanced\n");
}

void plot_script_settings(struct plot_buf *b, const struct plot_chart *c)
{
    plot_buf_puts(b, "set encoding utf8\n");
    put_label(b, "set title ", c->title);
    put_label(b, "set xlabel ", c->xlabel);
    put_label(b, "set ylabel ", c->ylabel);
    /* width 1: a little room between the box and right-aligned names. */
    plot_buf_puts(b, "set grid\nset key opaque box width 1\n");
    /* '%.0s%c': every tick in one form, a mantissa and an SI prefix (10,
     * 100, 1k, 10k, 100k, 1M), where '%g' mixed 100000 with 1e+06. */
    if (c->flags & PLOT_LOG_X)
        plot_buf_puts(b, "set logscale x\nset format x '%.0s%c'\n");
    if (c->flags & PLOT_LOG_Y)
        plot_buf_puts(b, "set logscale y\nset format y '%.0s%c'\n");
}

static void put_terminal(struct plot_buf *b, const struct plot_chart *c,
                         const char *term, const char *options,
                         const char *ext)
{
    plot_buf_puts(b, "set terminal ");
    plot_buf_puts(b, term);
    plot_buf_puts(b, " size ");
    plot_buf_size(b, (size_t)plot_width(c));
    plot_buf_puts(b, ",");
    plot_buf_size(b, (size_t)plot_height(c));
    plot_buf_puts(b, options);
    /* Relative output names: the script re-draws wherever it is run. The
     * stem's alphabet needs no quoting or enhanced-text escaping. */
    plot_buf_puts(b, "\nset output '");
    plot_buf_puts(b, c->name);
    plot_buf_puts(b, ext);
    plot_buf_puts(b, "'\n");
}

void plot_script_png(struct plot_buf *b, const struct plot_chart *c)
{
    put_terminal(b, c, "pngcairo", " enhanced font 'Sans,11'", ".png");
}

void plot_script_svg(struct plot_buf *b, const struct plot_chart *c)
{
    put_terminal(b, c, "svg",
                 " fixed enhanced font 'Sans,11' background rgb 'white'",
                 ".svg");
}

void plot_script_finish(struct plot_buf *b, const struct plot_chart *c)
{
    plot_buf_puts(b, "unset output\n");
    plot_script_svg(b, c);
    plot_buf_puts(b, "replot\nunset output\n");
}

/* Line colours, cycled: Tableau 10 (Tableau Software's default palette of
 * ten categorical colours, chosen to stay apart from one another). */
static const char *const line_colours[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define N_LINE_COLOURS (sizeof line_colours / sizeof line_colours[0])

void plot_script_line_style(struct plot_buf *b, size_t k)
{
    /* Dash types 1..5 cycle faster than the colours, so ten series differ
     * in both, and neighbours still differ in print or to a reader who
     * cannot tell two hues apart. */
    plot_buf_puts(b, " lc rgb '");
    plot_buf_puts(b, line_colours[k % N_LINE_COLOURS]);
    plot_buf_puts(b, "' dt ");
    plot_buf_size(b, 1 + k % 5);
}

void plot_script_fill_colour(struct plot_buf *b, size_t k)
{
    plot_buf_puts(b, " lc rgb '");
    plot_buf_puts(b, line_colours[k % N_LINE_COLOURS]);
    plot_buf_puts(b, "'");
}
