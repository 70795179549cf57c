/* test_plots.c -- the plots module, checked against the real gnuplot: the
 * images it draws are read back (PNG header, SVG structure) and the scripts'
 * datablocks are parsed back and compared with the numbers passed in. */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "plots.h"
#include "plots/helpers.h"

TestSuite(plot_cdf, .init = make_dir, .fini = remove_dir);
TestSuite(plot_steps, .init = make_dir, .fini = remove_dir);
TestSuite(plot_bars, .init = make_dir, .fini = remove_dir);
TestSuite(plot_gnuplot, .init = make_dir, .fini = remove_dir);
TestSuite(plot_args, .init = make_dir, .fini = remove_dir);

/* ---- plot_cdf ----------------------------------------------------------- */

static const double jct[] = {12.5, 3.0, 0.1, 1e-300, 1.0 / 3.0, 7e22, 42.0,
                             -2.5, 123456789.123456789, 2.0};
#define N_JCT (sizeof jct / sizeof jct[0])

Test(plot_cdf, writes_a_png_and_an_svg_of_the_requested_size)
{
    struct plot_chart c = chart_named("jct");
    c.width = 640;
    c.height = 400;
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    assert_images("jct", 640, 400);
}

Test(plot_cdf, draws_900_by_560_when_no_size_is_given)
{
    struct plot_chart c = chart_named("jct");
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    assert_images("jct", 900, 560);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(plot_cdf, keeps_every_value_in_its_datablock_when_under_the_budget)
{
    struct plot_chart c = chart_named("jct");
    double other[] = {5, 4, 3};
    struct plot_series s[2] = {{"fifo", jct, N_JCT}, {"sjf", other, 3}};
    assert_rc(plot_cdf(&c, s, 2), 0);
    double sorted[N_JCT];
    memcpy(sorted, jct, sizeof sorted);
    qsort(sorted, N_JCT, sizeof *sorted, compare_doubles);
    struct table t = read_block("jct.gp", "$cdf0");
    cr_assert_eq(t.cols, 2);
    cr_assert_eq(t.rows, N_JCT + 1);
    cr_assert(cell(&t, 0, 0) == sorted[0] && cell(&t, 0, 1) == 0.0);
    for (size_t i = 0; i < N_JCT; i++) {
        cr_assert(cell(&t, i + 1, 0) == sorted[i], "row %zu: %.17g != %.17g",
                  i + 1, cell(&t, i + 1, 0), sorted[i]);
        cr_assert(cell(&t, i + 1, 1) == (double)(i + 1) / (double)N_JCT);
    }
    free(t.v);
    t = read_block("jct.gp", "$cdf1");
    double want[] = {3, 0, 3, 1.0 / 3, 4, 2.0 / 3, 5, 1};
    cr_assert_eq(t.rows, 4);
    for (size_t i = 0; i < 8; i++)
        cr_assert(t.v[i] == want[i]);
    free(t.v);
}

Test(plot_cdf, draws_tied_values_as_one_step_to_their_exact_fraction)
{
    struct plot_chart c = chart_named("ties");
    double v[] = {2, 1, 3, 2, 2};
    struct plot_series s = {NULL, v, 5};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    struct table t = read_block("ties.gp", "$cdf0");
    double want[] = {1, 0, 1, 0.2, 2, 0.8, 3, 1};
    cr_assert_eq(t.rows, 4);
    for (size_t i = 0; i < 8; i++)
        cr_assert(t.v[i] == want[i], "cell %zu: %g", i, t.v[i]);
    free(t.v);
}

/* Index of the first element > x in sorted v. */
static size_t upper_bound(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The step function drawn from rows (x, p): p of the last row at or left of
 * x, 0 left of all rows. */
static double drawn_cdf(const struct table *t, double x)
{
    size_t lo = 0, hi = t->rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell(t, mid, 0) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? cell(t, lo - 1, 1) : 0.0;
}

/* F and G only change at sample values, so checking at each value and just
 * left of it covers every x. */
static void assert_cdf_within_bound(const double *v, size_t n, size_t budget)
{
    struct plot_chart c = chart_named("big");
    c.max_points = budget;
    struct plot_series s = {"all", v, n};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    size_t m = budget ? budget : PLOT_CDF_MAX_POINTS;
    double *sorted = malloc(n * sizeof *sorted);
    cr_assert_not_null(sorted);
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    struct table t = read_block("big.gp", "$cdf0");
    cr_assert(t.rows <= m + 1, "%zu rows for a budget of %zu", t.rows, m);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double at[2] = {nextafter(sorted[i], -INFINITY), sorted[i]};
        for (int k = 0; k < 2; k++) {
            double exact = (double)upper_bound(sorted, n, at[k]) / (double)n;
            double gap = exact - drawn_cdf(&t, at[k]);
            cr_assert(gap >= -1e-15, "drawn CDF above exact at %g", at[k]);
            worst = fmax(worst, gap);
        }
    }
    cr_assert(worst <= 1.0 / (double)m + 1e-12, "error %g > 1/%zu", worst, m);
    cr_assert(drawn_cdf(&t, sorted[n - 1]) == 1.0);
    free(t.v);
    free(sorted);
}

Test(plot_cdf, stays_within_one_over_the_budget_of_the_exact_cdf)
{
    size_t n = 100000;
    double *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    uint64_t state = 42;
    for (size_t i = 0; i < n; i++)
        v[i] = sample(&state);
    assert_cdf_within_bound(v, n, 0);
    free(v);
}

Test(plot_cdf, stays_within_the_bound_at_a_million_distinct_values)
{
    /* The size of a 1,000,000-job run: 2000 drawn values out of 10^6
     * distinct ones, so every drawn step stands for 500 jobs. */
    size_t n = 1000000;
    double *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0 + (double)((i * 7919) % n) * 0.37; /* a permutation */
    assert_cdf_within_bound(v, n, 0);
    free(v);
}

Test(plot_cdf, stays_within_the_bound_for_small_budgets_and_heavy_ties)
{
    double v[1000];
    uint64_t state = 7;
    for (size_t i = 0; i < 1000; i++)
        v[i] = i % 3 ? floor(sample(&state) / 200.0) : (double)i;
    size_t budgets[] = {1, 2, 7, 10, 333, 999};
    for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++)
        assert_cdf_within_bound(v, 1000, budgets[k]);
}

Test(plot_cdf, draws_a_log_x_axis_of_positive_values)
{
    struct plot_chart c = chart_named("log");
    c.flags = PLOT_LOG_X;
    double v[] = {0.5, 30, 7200, 86400};
    struct plot_series s = {"fifo", v, 4};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    char *gp = slurp("log.gp", NULL);
    cr_assert_not_null(strstr(gp, "\nset logscale x\n"));
    free(gp);
    assert_images("log", 900, 560);
}

Test(plot_cdf, refuses_values_a_log_axis_cannot_show_and_writes_nothing)
{
    struct plot_chart c = chart_named("log");
    c.flags = PLOT_LOG_X;
    double v[] = {3, 0, 1};
    struct plot_series s = {"fifo", v, 3};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    cr_assert(!exists("log.gp"));
    c.flags = PLOT_LOG_Y;
    v[1] = 2;
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
}

Test(plot_cdf, refuses_empty_series_and_non_finite_values)
{
    struct plot_chart c = chart_named("bad");
    double v[] = {1, NAN, 2};
    struct plot_series s = {"a", v, 3};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    s.n = 0;
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    s.n = 1;
    assert_rc(plot_cdf(&c, &s, 0), PLOT_EINVAL);
    v[1] = INFINITY;
    s.n = 3;
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    cr_assert(!exists("bad.gp"));
}

/* ---- plot_steps --------------------------------------------------------- */

Test(plot_steps, writes_a_png_and_an_svg_of_the_requested_size)
{
    struct plot_chart c = chart_named("queue");
    c.width = 1200;
    c.height = 300;
    double x[] = {0, 10, 10, 25.5}, q[] = {0, 3, 2, 0}, g[] = {0, 4, 8, 8};
    struct plot_series s[2] = {{"queued", q, 4}, {"busy GPUs", g, 4}};
    assert_rc(plot_steps(&c, x, 4, s, 2), 0);
    assert_images("queue", 1200, 300);
}

Test(plot_steps, keeps_every_sample_in_its_datablock_when_under_the_budget)
{
    struct plot_chart c = chart_named("queue");
    double x[] = {0, 0.1, 1e-5 + 1, 3600, 86400.25};
    double a[] = {0, 1, 2, 1, 0}, b[] = {-1.5, 1.0 / 7, 1e300, 4, 5},
           d[] = {8, 8, 8, 8, 8};
    struct plot_series s[3] = {{"a", a, 5}, {"b", b, 5}, {"c", d, 5}};
    assert_rc(plot_steps(&c, x, 5, s, 3), 0);
    struct table t = read_block("queue.gp", "$steps");
    cr_assert_eq(t.rows, 5);
    cr_assert_eq(t.cols, 4);
    for (size_t i = 0; i < 5; i++) {
        cr_assert(cell(&t, i, 0) == x[i]);
        for (size_t k = 0; k < 3; k++)
            cr_assert(cell(&t, i, k + 1) == s[k].values[i], "row %zu col %zu",
                      i, k + 1);
    }
    free(t.v);
}

/* Each drawn row r holds, for each series, exactly the maximum of the
 * samples with x in [x_r, x_{r+1}); so every sample is at or under the
 * drawn curve, and every peak keeps its height. */
/* The value series Y (steps over X) holds at time T: that of the last
 * sample at or before T. */
static double held_at(const double *x, const double *y, size_t n, double t)
{
    double v = y[0];
    for (size_t i = 0; i < n && x[i] <= t; i++)
        v = y[i];
    return v;
}

Test(plot_steps, keeps_each_bucket_maximum_when_downsampling)
{
    size_t n = 20000, budget = 500;
    double *x = malloc(n * sizeof *x), *y[2];
    y[0] = malloc(n * sizeof *x);
    y[1] = malloc(n * sizeof *x);
    cr_assert(x && y[0] && y[1]);
    uint64_t state = 3;
    /* Irregular times: gaps of 2.5 s, and every 1000th one 4000 s long,
     * so that some buckets hold no sample at all. */
    for (size_t i = 0; i < n; i++) {
        x[i] = i ? x[i - 1] + (i % 1000 ? 2.5 : 4000.0) : 0.0;
        y[0][i] = sample(&state);
        y[1][i] = (double)(i % 100);
    }
    y[0][12345] = 1e6; /* a one-sample spike */
    struct plot_chart c = chart_named("long");
    c.max_points = budget;
    struct plot_series s[2] = {{"q", y[0], n}, {"g", y[1], n}};
    assert_rc(plot_steps(&c, x, n, s, 2), 0);
    struct table t = read_block("long.gp", "$steps");
    struct table band = read_block("long.gp", "$band");
    cr_assert_eq(t.rows, budget);
    cr_assert_eq(band.rows, budget - 1);
    cr_assert(cell(&t, 0, 0) == x[0] && cell(&t, t.rows - 1, 0) == x[n - 1]);
    for (size_t k = 0; k < 2; k++)
        cr_assert(cell(&t, t.rows - 1, k + 1) == y[k][n - 1]);
    /* Brute force, bucket by bucket: the extremes of the step function
     * over [start, end) (the last bucket up to and with the last sample)
     * are over the value held at start and every sample inside. */
    size_t spike_rows = 0;
    for (size_t r = 0; r + 1 < t.rows; r++) {
        double start = cell(&t, r, 0), end = cell(&t, r + 1, 0);
        int last = r + 2 == t.rows;
        cr_assert(cell(&band, r, 0) == start && cell(&band, r, 1) == end);
        for (size_t k = 0; k < 2; k++) {
            double top = held_at(x, y[k], n, start), low = top;
            for (size_t i = 0; i < n; i++)
                if (x[i] >= start && (x[i] < end || (last && x[i] <= end))) {
                    top = fmax(top, y[k][i]);
                    low = fmin(low, y[k][i]);
                }
            cr_assert(cell(&t, r, k + 1) == top, "row %zu series %zu", r, k);
            cr_assert(cell(&band, r, 2 + 2 * k) == low, "band %zu %zu", r, k);
            cr_assert(cell(&band, r, 3 + 2 * k) == top, "band %zu %zu", r, k);
        }
        spike_rows += cell(&t, r, 1) == 1e6;
    }
    cr_assert_eq(spike_rows, 1);
    free(t.v);
    free(band.v);
    free(x);
    free(y[0]);
    free(y[1]);
}

Test(plot_steps, refuses_x_that_goes_back_in_time)
{
    struct plot_chart c = chart_named("bad");
    double x[] = {0, 2, 1}, y[] = {1, 2, 3};
    struct plot_series s = {"q", y, 3};
    assert_rc(plot_steps(&c, x, 3, &s, 1), PLOT_EINVAL);
    cr_assert(!exists("bad.gp"));
}

Test(plot_steps, refuses_a_series_whose_length_differs_from_x)
{
    struct plot_chart c = chart_named("bad");
    double x[] = {0, 1, 2}, y[] = {1, 2, 3};
    struct plot_series s[2] = {{"q", y, 3}, {"g", y, 2}};
    assert_rc(plot_steps(&c, x, 3, s, 2), PLOT_EINVAL);
    c.flags = PLOT_LOG_Y;
    y[0] = 0;
    assert_rc(plot_steps(&c, x, 3, s, 1), PLOT_EINVAL);
    cr_assert(!exists("bad.gp"));
}

/* ---- plot_bars ---------------------------------------------------------- */

static const char *const gpu_types[] = {"V100", "A100", "H100", "T4"};
static const double util_fifo[] = {0.8, 0.6, 0.95, 0.3};
static const double util_sjf[] = {0.7, 0.75, 0.9, 0.5};

Test(plot_bars, writes_a_png_and_an_svg_of_the_requested_size)
{
    struct plot_chart c = chart_named("util");
    c.width = 500;
    c.height = 500;
    struct plot_series s[2] = {{"fifo", util_fifo, 4}, {"sjf", util_sjf, 4}};
    assert_rc(plot_bars(&c, gpu_types, 4, s, 2), 0);
    assert_images("util", 500, 500);
}

Test(plot_bars, keeps_every_value_in_its_datablock)
{
    struct plot_chart c = chart_named("util");
    struct plot_series s[2] = {{"fifo", util_fifo, 4}, {"sjf", util_sjf, 4}};
    assert_rc(plot_bars(&c, gpu_types, 4, s, 2), 0);
    struct table t = read_block("util.gp", "$bars");
    cr_assert_eq(t.rows, 4);
    cr_assert_eq(t.cols, 3);
    for (size_t r = 0; r < 4; r++) {
        cr_assert(cell(&t, r, 0) == (double)r);
        cr_assert(cell(&t, r, 1) == util_fifo[r]);
        cr_assert(cell(&t, r, 2) == util_sjf[r]);
    }
    free(t.v);
}

Test(plot_bars, names_each_category_and_series_in_the_svg)
{
    struct plot_chart c = chart_named("util");
    struct plot_series s[2] = {{"fifo", util_fifo, 4}, {NULL, util_sjf, 4}};
    const char *const types[] = {"V100", "R&D_1 'x'", "H100", "T4"};
    assert_rc(plot_bars(&c, types, 4, s, 2), 0);
    assert_svg("util.svg", 900, 560);
    char *svg = slurp("util.svg", NULL);
    const char *want[] = {">V100<", ">R&amp;D_1 'x'<", ">H100<", ">T4<",
                          ">fifo<", ">series 1<"};
    for (size_t i = 0; i < 6; i++)
        cr_assert_not_null(strstr(svg, want[i]), "no %s in the svg", want[i]);
    free(svg);
}

Test(plot_bars, puts_bars_that_are_all_zero_on_a_unit_axis)
{
    /* gnuplot would warn about the empty range [0:0] on stderr. */
    double zero[2] = {0, 0};
    struct plot_series s = {"u", zero, 2};
    struct plot_chart c = chart_named("zero");
    assert_rc(plot_bars(&c, gpu_types, 2, &s, 1), 0);
    char *script = slurp("zero.gp", NULL);
    cr_assert(strstr(script, "set yrange [0:1]\n"));
    free(script);
    assert_images("zero", PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
}

Test(plot_bars, refuses_log_axes_and_mismatched_series)
{
    struct plot_chart c = chart_named("util");
    struct plot_series s[2] = {{"fifo", util_fifo, 4}, {"sjf", util_sjf, 3}};
    assert_rc(plot_bars(&c, gpu_types, 4, s, 2), PLOT_EINVAL);
    c.flags = PLOT_LOG_Y;
    assert_rc(plot_bars(&c, gpu_types, 4, s, 1), PLOT_EINVAL);
    c.flags = 0;
    assert_rc(plot_bars(&c, gpu_types, 0, s, 1), PLOT_EINVAL);
    cr_assert(!exists("util.gp"));
}

/* ---- plot_errorbars ----------------------------------------------------- */

TestSuite(plot_errorbars, .init = make_dir, .fini = remove_dir);

static const double loads[] = {0.5, 0.7, 0.9};
static const double jct_fifo[] = {3679.25, 3976.5, 4870.125};
static const double ci_fifo[] = {139.0, 222.75, 957.5};
static const double jct_las[] = {3679.25, 3979.0, 4420.0};
static const double ci_las[] = {139.0, 0.0, 300.5};

Test(plot_errorbars, keeps_each_value_and_its_bar_in_the_datablock)
{
    struct plot_chart c = chart_named("jct");
    struct plot_series s[2] = {{"fifo", jct_fifo, 3}, {"las", jct_las, 3}};
    const double *const err[2] = {ci_fifo, ci_las};
    assert_rc(plot_errorbars(&c, loads, 3, s, err, 2), 0);
    assert_images("jct", 900, 560);
    struct table t = read_block("jct.gp", "$err");
    cr_assert_eq(t.rows, 3);
    cr_assert_eq(t.cols, 5); /* x, then value and bar of each series */
    for (size_t r = 0; r < 3; r++) {
        cr_assert(cell(&t, r, 0) == loads[r]);
        cr_assert(cell(&t, r, 1) == jct_fifo[r]);
        cr_assert(cell(&t, r, 2) == ci_fifo[r]);
        cr_assert(cell(&t, r, 3) == jct_las[r]);
        cr_assert(cell(&t, r, 4) == ci_las[r]);
    }
    free(t.v);
    char *gp = slurp("jct.gp", NULL);
    /* each interval from max(0, value - bar) to value + bar (JCTs cannot
     * be negative), each series shifted on x: the two of them by -/+ 2 %
     * of the load span 0.4, about 0.008 */
    cr_assert_not_null(strstr(gp, "):($2):($2-$3<0?0:$2-$3):($2+$3) with "
                                  "yerrorlines"), "%s", gp);
    cr_assert_not_null(strstr(gp, "):($4):($4-$5<0?0:$4-$5):($4+$5) with "
                                  "yerrorlines"), "%s", gp);
    cr_assert_not_null(strstr(gp, "using ($1+-0.008"), "%s", gp);
    cr_assert_not_null(strstr(gp, "using ($1+0.008"), "%s", gp);
    cr_assert_not_null(strstr(gp, "set yrange [0:*]"), "%s", gp);
    free(gp);
}

Test(plot_errorbars, refuses_negative_bars_and_mismatched_series)
{
    struct plot_chart c = chart_named("jct");
    struct plot_series s[2] = {{"fifo", jct_fifo, 3}, {"las", jct_las, 2}};
    const double neg[] = {1, -1, 1};
    const double *const err[2] = {ci_fifo, neg};
    assert_rc(plot_errorbars(&c, loads, 3, s, err, 2), PLOT_EINVAL);
    s[1].n = 3;
    assert_rc(plot_errorbars(&c, loads, 3, s, err, 2), PLOT_EINVAL);
    assert_rc(plot_errorbars(&c, loads, 3, s, NULL, 1), PLOT_EINVAL);
    cr_assert(!exists("jct.gp"));
}

/* ---- text, names, determinism, errors ----------------------------------- */

Test(plot_args, shows_quotes_backslashes_and_markup_literally)
{
    struct plot_chart c = chart_named("text");
    c.title = "it's \"R&D\" \\ a_b ^c @d ~e {f} &{g} <h>\nnext";
    c.xlabel = "JCT (s) @ 1/2 & more";
    double v[] = {1, 2};
    struct plot_series s = {"tiresias_2d & \\n 'q'", v, 2};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    char *gp = slurp("text.gp", NULL);
    const char *title_line = "\nset title 'it''s \"R&D\" \\ a_b ^c @d ~e {f} "
                             "&{g} <h> next' noenhanced\n";
    cr_assert_not_null(strstr(gp, title_line), "%s", gp);
    cr_assert_not_null(strstr(gp, "title 'tiresias_2d & \\n ''q''' noenh"));
    free(gp);
    assert_images("text", 900, 560); /* well-formed: no bare '&' in it */
    char *svg = slurp("text.svg", NULL);
    const char *want[] = {
        "it's \"R&amp;D\" \\ a_b ^c @d ~e {f} &amp;{g} &lt;h> next",
        "JCT (s) @ 1/2 &amp; more", ">tiresias_2d &amp; \\n 'q'<"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_not_null(strstr(svg, want[i]), "no %s in the svg", want[i]);
    free(svg);
}

Test(plot_args, refuses_names_that_are_not_plain_file_stems)
{
    const char *bad[] = {"", "../x", ".hidden", "-x", "a b", "a/b", "a'b",
                         "a\\b", "é"};
    double v[] = {1};
    struct plot_series s = {"a", v, 1};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct plot_chart c = chart_named(bad[i]);
        assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    }
    struct plot_chart c = chart_named("ok");
    c.dir = NULL;
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    c = chart_named("ok");
    c.width = 15;
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EINVAL);
    assert_rc(plot_cdf(NULL, &s, 1), PLOT_EINVAL);
    DIR *d = opendir(test_dir);
    int entries = 0;
    while (readdir(d))
        entries++;
    closedir(d);
    cr_assert_eq(entries, 2, "something was written");
}

Test(plot_args, gives_byte_identical_scripts_for_the_same_inputs)
{
    struct plot_chart c = chart_named("again");
    double v[] = {0.1, 0.2, 0.30000000000000004, 1e-7, 5e300};
    struct plot_series s = {"a", v, 5};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    size_t n1, n2;
    char *first = slurp("again.gp", &n1);
    assert_rc(plot_cdf(&c, &s, 1), 0);
    char *second = slurp("again.gp", &n2);
    cr_assert(n1 == n2 && memcmp(first, second, n1) == 0);
    /* Shortest round-trip numbers: short where they can be, 17 digits
     * where they must. */
    cr_assert_not_null(strstr(first, "\n1e-07 0.2\n0.1 0.4\n0.2 0.6\n"
                                     "0.30000000000000004 0.8\n5e+300 1\n"));
    free(first);
    free(second);
}

Test(plot_args, names_every_error_code)
{
    int codes[] = {PLOT_EIO, PLOT_ENOMEM, PLOT_EGNUPLOT, PLOT_ENOGNUPLOT,
                   PLOT_EINVAL};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_lt(codes[i], 0);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(plot_strerror(codes[i]), plot_strerror(codes[j]));
    }
    cr_assert_str_eq(plot_strerror(0), "success");
    cr_assert_str_eq(plot_strerror(-999), "unknown plot error");
}

/* ---- running gnuplot ---------------------------------------------------- */

Test(plot_gnuplot, redraws_both_images_when_the_saved_script_is_run_again)
{
    struct plot_chart c = chart_named("redo");
    c.width = 700;
    c.height = 450;
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), 0);
    cr_assert_eq(unlink(path_in_dir("redo.png")), 0);
    cr_assert_eq(unlink(path_in_dir("redo.svg")), 0);
    cr_assert_eq(run_in_dir("gnuplot redo.gp"), 0);
    assert_images("redo", 700, 450);
}

Test(plot_gnuplot, pipes_exactly_the_saved_script_into_gnuplot_in_the_folder)
{
    /* A stand-in gnuplot that keeps what it is fed, in its working folder. */
    write_file("fake gnuplot", "#!/bin/sh\ncat > piped.gp\n", 0755);
    setenv("HETSIM_GNUPLOT", path_in_dir("fake gnuplot"), 1);
    struct plot_chart c = chart_named("same");
    double x[] = {1, 2, 3}, y[] = {4, 5, 6};
    struct plot_series s = {"q", y, 3};
    assert_rc(plot_steps(&c, x, 3, &s, 1), 0);
    size_t n1, n2;
    char *saved = slurp("same.gp", &n1), *piped = slurp("piped.gp", &n2);
    cr_assert(n1 == n2 && memcmp(saved, piped, n1) == 0);
    cr_assert_not_null(strstr(saved, "\nset output 'same.png'\n"));
    cr_assert_not_null(strstr(saved, "\nset output 'same.svg'\n"));
    size_t tail = strlen("unset output\n");
    cr_assert(strcmp(saved + n1 - tail, "unset output\n") == 0);
    free(saved);
    free(piped);
}

Test(plot_gnuplot, leaves_only_the_script_and_the_two_images_in_the_folder)
{
    struct plot_chart c = chart_named("tidy");
    struct plot_series s = {"fifo", util_fifo, 4};
    assert_rc(plot_bars(&c, NULL, 4, &s, 1), 0);
    DIR *d = opendir(test_dir);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));) {
        entries++;
        cr_assert(e->d_name[0] == '.' || !strncmp(e->d_name, "tidy.", 5),
                  "stray %s", e->d_name);
    }
    closedir(d);
    cr_assert_eq(entries, 5);
    cr_assert(exists("tidy.gp") && exists("tidy.png") && exists("tidy.svg"));
}

Test(plot_gnuplot, reports_a_missing_gnuplot_but_still_writes_the_script)
{
    setenv("HETSIM_GNUPLOT", "/nonexistent", 1);
    struct plot_chart c = chart_named("orphan");
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_ENOGNUPLOT);
    assert_rc(plot_gnuplot_available(), PLOT_ENOGNUPLOT);
    cr_assert(!exists("orphan.png") && !exists("orphan.svg"));
    struct table t = read_block("orphan.gp", "$cdf0");
    cr_assert_eq(t.rows, N_JCT + 1);
    free(t.v);
    /* ...and the script is whole: the real gnuplot draws it. */
    cr_assert_eq(run_in_dir("gnuplot orphan.gp"), 0);
    assert_images("orphan", 900, 560);
}

Test(plot_gnuplot, asks_main_to_report_a_missing_gnuplot_only_once)
{
    cr_assert_eq(plot_should_report_missing_gnuplot(), 0);
    setenv("HETSIM_GNUPLOT", "no-such-gnuplot-on-the-path", 1);
    struct plot_chart c = chart_named("a");
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_ENOGNUPLOT);
    assert_rc(plot_cdf(&c, &s, 1), PLOT_ENOGNUPLOT);
    cr_assert_eq(plot_should_report_missing_gnuplot(), 1);
    cr_assert_eq(plot_should_report_missing_gnuplot(), 0);
    assert_rc(plot_cdf(&c, &s, 1), PLOT_ENOGNUPLOT);
    cr_assert_eq(plot_should_report_missing_gnuplot(), 0);
}

Test(plot_gnuplot, finds_the_default_gnuplot_on_the_path)
{
    assert_rc(plot_gnuplot_available(), 0);
    setenv("HETSIM_GNUPLOT", "", 1); /* empty means unset */
    assert_rc(plot_gnuplot_available(), 0);
    cr_assert_eq(plot_should_report_missing_gnuplot(), 0);
}

Test(plot_gnuplot, reports_a_gnuplot_that_fails)
{
    setenv("HETSIM_GNUPLOT", "false", 1);
    struct plot_chart c = chart_named("fail");
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EGNUPLOT);
    cr_assert(exists("fail.gp"));
    /* One that reads the whole script first, then fails. */
    write_file("grumpy", "#!/bin/sh\ncat > /dev/null\nexit 3\n", 0755);
    setenv("HETSIM_GNUPLOT", path_in_dir("grumpy"), 1);
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EGNUPLOT);
    cr_assert_eq(plot_should_report_missing_gnuplot(), 0);
}

Test(plot_gnuplot, survives_a_gnuplot_that_exits_before_reading_its_script)
{
    /* Far more than a pipe holds, so the write meets a closed pipe: the
     * chart must fail with EGNUPLOT, not die of SIGPIPE. */
    size_t n = 40000;
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i + 0.123456789;
    struct plot_chart c = chart_named("big");
    c.max_points = n;
    struct plot_series s = {"q", x, n};
    setenv("HETSIM_GNUPLOT", "false", 1);
    assert_rc(plot_steps(&c, x, n, &s, 1), PLOT_EGNUPLOT);
    struct sigaction now;
    sigaction(SIGPIPE, NULL, &now);
    cr_assert(now.sa_handler == SIG_DFL, "SIGPIPE disposition not restored");
    free(x);
}

Test(plot_gnuplot, reports_a_folder_it_cannot_write_as_an_io_error)
{
    struct plot_chart c = chart_named("x");
    c.dir = "/nonexistent/folder";
    struct plot_series s = {"fifo", jct, N_JCT};
    assert_rc(plot_cdf(&c, &s, 1), PLOT_EIO);
}

/* ---- plot_scatter -------------------------------------------------------- */

TestSuite(plot_scatter, .init = make_dir, .fini = remove_dir);

static const double actual[] = {1, 10, 100, 1000}, guess[] = {2, 9, 120, 800};

Test(plot_scatter, keeps_every_point_and_draws_the_diagonal)
{
    struct plot_chart c = chart_named("pva");
    struct plot_points p[2] = {{"xgboost", actual, guess, 4},
                               {"linear", actual, actual, 4}};
    assert_rc(plot_scatter(&c, p, 2, 1), 0);
    assert_images("pva", 900, 560);
    struct table t = read_block("pva.gp", "$pts0");
    cr_assert_eq(t.rows, 4);
    cr_assert_eq(t.cols, 2);
    for (size_t r = 0; r < 4; r++) {
        cr_assert(cell(&t, r, 0) == actual[r]);
        cr_assert(cell(&t, r, 1) == guess[r]);
    }
    free(t.v);
    char *gp = slurp("pva.gp", NULL);
    cr_assert_not_null(strstr(gp, "x with lines"));
    cr_assert_not_null(strstr(gp, "$pts1 using 1:2"));
    free(gp);
}

Test(plot_scatter, refuses_values_a_log_axis_cannot_show_and_writes_nothing)
{
    struct plot_chart c = chart_named("pva");
    c.flags = PLOT_LOG_X | PLOT_LOG_Y;
    const double bad[] = {1, -1, 3, 4};
    struct plot_points p = {"m", actual, bad, 4};
    assert_rc(plot_scatter(&c, &p, 1, 0), PLOT_EINVAL);
    cr_assert(!exists("pva.gp"));
    p.y = guess;
    assert_rc(plot_scatter(&c, &p, 1, 0), 0);
    char *gp = slurp("pva.gp", NULL);
    cr_assert_null(strstr(gp, "x with lines"));
    free(gp);
}
