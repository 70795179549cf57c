/* test_many_series.c -- charts stay readable with ten series: each gets its
 * own colour, neighbours differ in dashes, and the key moves out of the
 * plot; downsampled timelines keep each bucket's range for the band. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"

TestSuite(plot_series_style, .init = make_dir, .fini = remove_dir);

/* The (colour, dash type) of each series drawn WITH (" with steps lw ")
 * in the plot command of FILE, in order; returns how many were found. */
static size_t styles(const char *file, const char *with, char colour[][8],
                     int *dash, size_t max)
{
    char *s = slurp(file, NULL), *p = s;
    size_t n = 0;
    while (n < max && (p = strstr(p, with))) {
        char *lc = strstr(p, "lc rgb '");
        cr_assert_not_null(lc);
        memcpy(colour[n], lc + 8, 7);
        colour[n][7] = '\0';
        char *dt = strstr(lc, "' dt ");
        cr_assert_not_null(dt);
        dash[n++] = atoi(dt + 5);
        p = dt;
    }
    free(s);
    return n;
}

/* Ten series drawn WITH in FILE: ten colours, dash types 1-5, neighbours
 * never alike. */
static void assert_ten_styles(const char *file, const char *with)
{
    enum { N = 10 };
    char colour[N][8];
    int dash[N];
    cr_assert_eq(styles(file, with, colour, dash, N), N);
    for (size_t a = 0; a < N; a++) {
        cr_assert(dash[a] >= 1 && dash[a] <= 5);
        if (a > 0)
            cr_assert_neq(dash[a], dash[a - 1], "neighbours %zu", a);
        for (size_t b = 0; b < a; b++)
            cr_assert(strcmp(colour[a], colour[b]) != 0, "%zu and %zu share "
                      "colour %s", a, b, colour[a]);
    }
}

Test(plot_series_style, gives_ten_cdfs_ten_colours_and_keeps_the_key_outside)
{
    enum { N = 10, M = 50 };
    double v[N][M];
    struct plot_series s[N];
    char names[N][16];
    for (size_t k = 0; k < N; k++) {
        for (size_t i = 0; i < M; i++)
            v[k][i] = (double)(i + 1) * (1.0 + 0.1 * (double)k);
        snprintf(names[k], sizeof names[k], "policy-%zu", k);
        s[k] = (struct plot_series){names[k], v[k], M};
    }
    struct plot_chart c = chart_named("ten");
    c.flags = PLOT_LOG_X;
    assert_rc(plot_cdf(&c, s, N), 0);
    assert_images("ten", PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
    assert_ten_styles("ten.gp", " with steps lw ");
    char *script = slurp("ten.gp", NULL);
    cr_assert(strstr(script, "set key outside right top Left reverse\n"));
    free(script);
}

Test(plot_series_style, gives_ten_error_bar_lines_the_same_ten_styles)
{
    /* A sweep's charts: the same (colour, dash) per series as the CDFs. */
    enum { N = 10, M = 3 };
    const double x[M] = {0.5, 0.7, 0.9}, bar[M] = {1, 2, 3};
    double v[N][M];
    const double *err[N];
    struct plot_series s[N];
    char names[N][16];
    for (size_t k = 0; k < N; k++) {
        for (size_t i = 0; i < M; i++)
            v[k][i] = 10.0 * (double)(k + 1) + (double)i;
        snprintf(names[k], sizeof names[k], "policy-%zu", k);
        s[k] = (struct plot_series){names[k], v[k], M};
        err[k] = bar;
    }
    struct plot_chart c = chart_named("tenbars");
    assert_rc(plot_errorbars(&c, x, M, s, err, N), 0);
    assert_ten_styles("tenbars.gp", " with yerrorlines lw ");
}

Test(plot_series_style, keeps_a_few_cdf_names_in_the_empty_corner)
{
    double v[] = {1, 2, 3};
    struct plot_series s[2] = {{"a", v, 3}, {"b", v, 3}};
    struct plot_chart c = chart_named("two");
    assert_rc(plot_cdf(&c, s, 2), 0);
    char *script = slurp("two.gp", NULL);
    cr_assert(strstr(script, "set key bottom right\n"));
    free(script);
}

Test(plot_series_style, keeps_each_bucket_range_for_the_band)
{
    /* 10 samples into a budget of 4: 3 buckets of indices [0,3), [3,6),
     * [6,10) (j*10/3 rounded down), then the last sample. By hand from y
     * below: maxima 5, 8, 9 (then 9, the last sample); minima 1, 2, 0; a
     * bucket spans from its first x to the next bucket's (the last one to
     * the last x, 9). */
    double x[10], y[10] = {5, 1, 3, 2, 8, 4, 0, 6, 7, 9};
    for (size_t i = 0; i < 10; i++)
        x[i] = (double)i;
    struct plot_series s = {"y", y, 10};
    struct plot_chart c = chart_named("band");
    c.max_points = 4;
    assert_rc(plot_steps(&c, x, 10, &s, 1), 0);
    static const double steps[4][2] = {{0, 5}, {3, 8}, {6, 9}, {9, 9}};
    static const double band[3][4] = {
        {0, 3, 1, 5}, {3, 6, 2, 8}, {6, 9, 0, 9}};
    struct table t = read_block("band.gp", "$steps");
    cr_assert(t.rows == 4 && t.cols == 2);
    for (size_t r = 0; r < 4; r++)
        for (size_t k = 0; k < 2; k++)
            cr_assert(cell(&t, r, k) == steps[r][k], "steps %zu %zu", r, k);
    free(t.v);
    t = read_block("band.gp", "$band");
    cr_assert(t.rows == 3 && t.cols == 4);
    for (size_t r = 0; r < 3; r++)
        for (size_t k = 0; k < 4; k++)
            cr_assert(cell(&t, r, k) == band[r][k], "band %zu %zu", r, k);
    free(t.v);
    char *script = slurp("band.gp", NULL);
    cr_assert(strstr(script, "$band using (($1+$2)/2):(($3+$4)/2):"
                             "(($2-$1)/2):(($4-$3)/2) with boxxyerror"));
    free(script);
    assert_images("band", PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
}

Test(plot_series_style, draws_ten_timelines_as_ten_panels_on_shared_axes)
{
    enum { N = 10, M = 40 };
    double x[M], v[N][M];
    struct plot_series s[N];
    char names[N][16];
    for (size_t i = 0; i < M; i++)
        x[i] = (double)i;
    for (size_t k = 0; k < N; k++) {
        for (size_t i = 0; i < M; i++)
            v[k][i] = (double)((i * (k + 3)) % 17);
        snprintf(names[k], sizeof names[k], "policy-%zu", k);
        s[k] = (struct plot_series){names[k], v[k], M};
    }
    struct plot_chart c = chart_named("panels");
    c.flags = PLOT_PANELS;
    assert_rc(plot_steps(&c, x, M, s, N), 0);
    /* Two columns of five rows: 90 + 5 x 150 pixels. */
    assert_images("panels", PLOT_DEFAULT_WIDTH, 90 + 5 * 150);
    char *script = slurp("panels.gp", NULL);
    /* Drawn once per image, since a multiplot cannot be replotted. */
    cr_assert_eq(count_matches(script, "set multiplot layout 5,2"), 2);
    cr_assert_eq(count_matches(script, "unset multiplot"), 2);
    cr_assert_eq(count_matches(script, "replot"), 0);
    for (size_t k = 0; k < N; k++) {
        char title[64];
        snprintf(title, sizeof title, "set title 'policy-%zu' noenhanced", k);
        cr_assert_eq(count_matches(script, title), 2, "%s", title);
    }
    /* One shared y range, 0 to the highest value (16) plus 5%. */
    cr_assert_eq(count_matches(script, "set yrange [0:16.8]"), 1);
    free(script);
    struct table t = read_block("panels.gp", "$steps");
    cr_assert(t.rows == M && t.cols == N + 1);
    free(t.v);
}

Test(plot_series_style, refuses_panels_outside_timelines)
{
    double v[] = {1, 2};
    struct plot_series s[2] = {{"a", v, 2}, {"b", v, 2}};
    struct plot_chart c = chart_named("nopanels");
    c.flags = PLOT_PANELS;
    assert_rc(plot_cdf(&c, s, 2), PLOT_EINVAL);
    assert_rc(plot_bars(&c, NULL, 2, s, 2), PLOT_EINVAL);
}
