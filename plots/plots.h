/* plots.h -- charts of simulation results, drawn by gnuplot.
 *
 * The plots module depends on nothing else of hetsim: it takes plain arrays.
 * Every chart NAME drawn into folder DIR leaves three files there:
 *   DIR/NAME.gp   the gnuplot script, data inline as datablocks, so that
 *                 `cd DIR && gnuplot NAME.gp` re-draws both images;
 *   DIR/NAME.png  pngcairo, chart->width x chart->height pixels;
 *   DIR/NAME.svg  svg of the same size (fixed, not dynamic).
 * The script is written first (atomically: temporary name, then rename) and
 * the very same bytes are then piped into gnuplot run from DIR, so the saved
 * script is exactly what drew the images. Same inputs give byte-identical
 * scripts: numbers are printed in their shortest round-trip form.
 *
 * gnuplot is the command named by the environment variable HETSIM_GNUPLOT
 * (a program name looked up in PATH, or a path; no arguments), or "gnuplot"
 * when that is unset or empty. gnuplot's own messages go to the inherited
 * stderr; this module itself never prints.
 *
 * Numbers are printed with the C library's formatting, so LC_NUMERIC must be
 * "C" (the default unless the program calls setlocale). Not thread-safe: a
 * chart briefly ignores SIGPIPE while it writes to gnuplot, then restores
 * the previous disposition, so that a gnuplot which dies early makes the
 * chart fail with PLOT_EGNUPLOT instead of killing the process. */
#ifndef HETSIM_PLOTS_H
#define HETSIM_PLOTS_H

#include <stddef.h>

/* Error codes of this module: 0 is success, every failure is negative. */
#define PLOT_ERRNO_MAP(X)                                              \
    X(PLOT_EIO, -1, "cannot write plot script")                        \
    X(PLOT_ENOMEM, -2, "out of memory")                                \
    X(PLOT_EGNUPLOT, -3, "gnuplot failed")                             \
    X(PLOT_ENOGNUPLOT, -4, "gnuplot not found; wrote the script only") \
    X(PLOT_EINVAL, -5, "invalid plot arguments")

enum plot_errno {
#define PLOT_ERRNO_ENUM(name, value, text) name = value,
    PLOT_ERRNO_MAP(PLOT_ERRNO_ENUM)
#undef PLOT_ERRNO_ENUM
};

/* Text of an error code; never NULL. */
const char *plot_strerror(int code);

/* Flags of struct plot_chart. */
#define PLOT_LOG_X 1u /* logarithmic x axis: every x must be > 0 */
#define PLOT_LOG_Y 2u /* logarithmic y axis (plot_steps only): y > 0 */
#define PLOT_PANELS 4u /* plot_steps only: a panel per series (see there) */

/* Default image size, and default point budgets of the downsamplers. */
#define PLOT_DEFAULT_WIDTH 900
#define PLOT_DEFAULT_HEIGHT 560
#define PLOT_CDF_MAX_POINTS 2000
#define PLOT_STEPS_MAX_POINTS 1000

/* What every chart needs besides its data. Borrowed for the call only. */
struct plot_chart {
    const char *dir;    /* existing folder for the three files */
    const char *name;   /* file stem: letters, digits, '_', '-', '.';
                           not starting with '.' or '-'; <= 200 bytes */
    const char *title;  /* plain text, NULL for none */
    const char *xlabel; /* plain text, NULL for none */
    const char *ylabel; /* plain text, NULL for none */
    int width;          /* pixels, 16..10000; 0 means PLOT_DEFAULT_WIDTH */
    int height;         /* pixels, 16..10000; 0 means PLOT_DEFAULT_HEIGHT */
    unsigned flags;     /* PLOT_LOG_X | PLOT_LOG_Y */
    size_t max_points;  /* downsampling budget per series (see each chart);
                           0 means the chart's default */
};

/* One named series. name is plain text (NULL means "series K"); values are
 * finite. Titles, labels and names are shown literally: each becomes a
 * single-quoted gnuplot string (quotes doubled, backslashes literal, control
 * characters turned to spaces, UTF-8 passed through) marked `noenhanced`,
 * so the markup characters ^ _ @ & ~ { } of the enhanced terminals are not
 * interpreted. (Backslash escapes cannot do this: gnuplot 5.4's svg
 * terminal writes an escaped \& as a bare '&', which is malformed XML.) */
struct plot_series {
    const char *name;
    const double *values;
    size_t n;
};

/* Draws each series' values as an empirical CDF, F(x) = #{v <= x} / n, one
 * step line per series; PLOT_LOG_X is allowed (values must then be > 0),
 * PLOT_LOG_Y is not. Every series needs n >= 1.
 *
 * Datablock $cdfK holds rows "x p": first (min, 0), then one row per
 * distinct value drawn, p being the exact F at that value. A series with
 * at most M = chart->max_points distinct values (default
 * PLOT_CDF_MAX_POINTS) is drawn exactly. A longer one is cut to at most M
 * values, the ones of rank ceil(j*n/M), j = 1..M, so that the drawn CDF G
 * satisfies, for every x,
 *     0 <= F(x) - G(x) <= floor(n/M) / n <= 1/M,
 * i.e. it never runs above the exact CDF and lags it by at most 1/M in
 * probability; minimum, maximum and every drawn value sit exactly on F.
 *
 * Returns 0; PLOT_EINVAL (bad chart or data; nothing written); PLOT_ENOMEM;
 * PLOT_EIO (script not written); PLOT_ENOGNUPLOT (script written, no
 * images); PLOT_EGNUPLOT (script written, gnuplot exited non-zero). */
int plot_cdf(const struct plot_chart *chart, const struct plot_series *series,
             size_t n_series);

/* Draws series sharing the time axis x[0..n_x-1] (non-decreasing, finite)
 * as steps: series k holds series[k].values[i] from x[i] until x[i+1].
 * Every series needs n == n_x >= 1. The datablock $steps has one row per
 * drawn point: x, then one column per series. When y >= 0 throughout, the
 * y axis starts at 0.
 *
 * If n_x exceeds M = chart->max_points (default PLOT_STEPS_MAX_POINTS,
 * at least 2), [x[0], x[n_x-1]] is cut into M - 1 buckets of equal span,
 * and each bucket is drawn as one point at its start holding the maximum
 * each series reaches within it: over the value held when the bucket opens
 * and every sample inside it (the last bucket takes the last sample too).
 * The last sample is then drawn as it is, so the x extent is unchanged.
 * Hence the drawn curve is an upper envelope of the exact one: never lower
 * at any x, every peak keeps its full height (a peak is widened by at most
 * one bucket, 1/(M-1) of the time axis), and every drawn value is a
 * sample value. A second datablock $band has one row per bucket: its start,
 * its end, then each series' minimum and maximum over it; each row is
 * drawn as a light box under the line, so the range a series swept within
 * a bucket stays visible instead of a solid block of vertical strokes.
 * The default budget is about one point per pixel column of the plot.
 *
 * With PLOT_PANELS and two or more series, each series gets a panel of its
 * own (small multiples, for when overlaid lines would tangle): a grid of
 * one column up to four series, else two, read row by row; every panel has
 * the same axes, is titled with its series' name, and draws that series in
 * its colour over the others in light grey. chart->height 0 then means 90
 * pixels plus 150 per row of panels. The datablocks are the same.
 *
 * Returns as plot_cdf. */
int plot_steps(const struct plot_chart *chart, const double *x, size_t n_x,
               const struct plot_series *series, size_t n_series);

/* Draws a grouped bar chart: one group per category, one bar per series in
 * each group; series[k].values[c] is the bar of series k in category c, so
 * every series needs n == n_categories >= 1. Category names are plain text
 * like series names (NULL means "K"). Datablock $bars has one row per
 * category: its index, then one column per series. Neither log flag is
 * allowed; max_points is ignored. Returns as plot_cdf. */
int plot_bars(const struct plot_chart *chart, const char *const *categories,
              size_t n_categories, const struct plot_series *series,
              size_t n_series);

/* One cloud of N points (x[i], y[i]), all finite; name as in
 * plot_series. */
struct plot_points {
    const char *name;
    const double *x, *y;
    size_t n;
};

/* Draws each cloud as points (datablock $ptsK, rows "x y"), plus the line
 * y = x when DIAGONAL is set (predicted against actual). Both log flags
 * are allowed (values must then be > 0); max_points is ignored. Returns
 * as plot_cdf. */
int plot_scatter(const struct plot_chart *chart, const struct plot_points *s,
                 size_t n_series, int diagonal);

/* Gantt chart of jobs on GPUs. The GPUs form groups (nodes), drawn top
 * to bottom in the order given, one row per GPU; a group is named at the
 * middle of its rows (plain text; NULL means "K"). A piece says that job
 * `job` held `gpus` GPUs of group `group` from start to end (finite,
 * start <= end). It is drawn as one bar on each row it takes, filled with
 * the colour of its job (12 colours, cycled by job number) and, where the
 * bar has room, labelled with `label` (plain text, NULL for none).
 *
 * Which rows: the pieces are taken in order of start (then end, then the
 * order given), and each gets the lowest-numbered rows of its group that
 * are free at its start, a row being free from the end of its last piece
 * on. This never runs short when a group never holds more pieces' GPUs at
 * once than it has; if it does, PLOT_EINVAL.
 *
 * Datablock $gantt: one line per piece and row, in the order above:
 * "row start end job colour restart", rows numbered from 0 at the top
 * across all groups, colour as the integer 0xRRGGBB, restart 1 when the
 * piece starts later than the job's first piece (a run after a
 * preemption; a black dot marks its start) and 0 otherwise. The x axis runs from
 * min(0, first start) to the last end. chart->height 0 means 110 pixels
 * plus 14 per row (300 at least, 10000 at most). Neither log flag is
 * allowed; max_points is ignored. Returns as plot_cdf. */
struct plot_gantt_group {
    const char *name;
    size_t gpus; /* >= 1 */
};

struct plot_gantt_piece {
    size_t job;
    size_t group;
    size_t gpus;
    double start, end;
    const char *label;
};

int plot_gantt(const struct plot_chart *chart,
               const struct plot_gantt_group *groups, size_t n_groups,
               const struct plot_gantt_piece *pieces, size_t n_pieces);

/* Draws each series as a line through its points (x[i], values[i]) with a
 * vertical bar of half-height errors[k][i] (>= 0) at each: a figure against
 * a swept parameter with its confidence interval. Every series needs
 * n == n_x >= 1; x need not be sorted (points join in the order given).
 * Datablock $err has one row per x: x, then value and error of each
 * series. Log flags demand values > 0 on their axis; max_points is
 * ignored. Returns as plot_cdf. */
int plot_errorbars(const struct plot_chart *chart, const double *x,
                   size_t n_x, const struct plot_series *series,
                   const double *const *errors, size_t n_series);

/* Whether the gnuplot command can be found now: 0, or PLOT_ENOGNUPLOT. */
int plot_gnuplot_available(void);

/* Returns 1 exactly once per process: on the first call made after some
 * chart (or plot_gnuplot_available) found gnuplot missing; 0 otherwise. Lets
 * main warn once however many charts came back PLOT_ENOGNUPLOT. */
int plot_should_report_missing_gnuplot(void);

#endif
