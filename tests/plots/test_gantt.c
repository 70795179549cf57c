/* test_gantt.c -- plot_gantt: the rows it gives each piece, checked against
 * a layout worked out by hand, and the images gnuplot draws from it. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"

TestSuite(plot_gantt, .init = make_dir, .fini = remove_dir);

/* Node "a" has 2 GPUs (rows 0 and 1), node "b" one (row 2). Job 1 runs on
 * b, is preempted at 4 and later restarts on a. */
static const struct plot_gantt_group groups[] = {{"a", 2}, {"b", 1}};
static const struct plot_gantt_piece pieces[] = {
    {.job = 0, .group = 0, .gpus = 2, .start = 0, .end = 10, .label = "j0"},
    {.job = 1, .group = 1, .gpus = 1, .start = 0, .end = 4, .label = "j1"},
    {.job = 2, .group = 1, .gpus = 1, .start = 4, .end = 9, .label = "j2"},
    {.job = 1, .group = 0, .gpus = 1, .start = 10, .end = 16, .label = "j1"},
    {.job = 3, .group = 0, .gpus = 1, .start = 10, .end = 12, .label = "j'3"},
};

Test(plot_gantt, lays_pieces_out_on_the_rows_worked_out_by_hand)
{
    struct plot_chart c = chart_named("gantt");
    c.width = 800;
    assert_rc(plot_gantt(&c, groups, 2, pieces, 5), 0);
    /* By hand. In order of (start, end): j1 [0,4) on b takes row 2; j0
     * [0,10) takes both rows of a, 0 and 1; j2 [4,9) on b: row 2 is free
     * again at 4; then at 10 both rows of a are free: j3 (ends 12, first)
     * takes row 0 and the restarted j1 row 1. Colours are the job's entry
     * of ColorBrewer Set3: 0x8dd3c7 = 9294791, 0xffffb3 = 16777139,
     * 0xbebada = 12499674, 0xfb8072 = 16482418. Only j1's run from 10 is
     * a restart (its first run began at 0). */
    static const double want[][6] = {
        {2, 0, 4, 1, 16777139, 0},   {0, 0, 10, 0, 9294791, 0},
        {1, 0, 10, 0, 9294791, 0},   {2, 4, 9, 2, 12499674, 0},
        {0, 10, 12, 3, 16482418, 0}, {1, 10, 16, 1, 16777139, 1},
    };
    struct table t = read_block("gantt.gp", "$gantt");
    cr_assert_eq(t.rows, 6);
    cr_assert_eq(t.cols, 6);
    for (size_t r = 0; r < 6; r++)
        for (size_t k = 0; k < 6; k++)
            cr_assert(cell(&t, r, k) == want[r][k], "row %zu col %zu: %g",
                      r, k, cell(&t, r, k));
    free(t.v);
    /* 3 rows: 110 + 3 x 14 pixels is under the 300 minimum. */
    assert_images("gantt", 800, 300);
    char *script = slurp("gantt.gp", NULL);
    cr_assert(strstr(script, "'j''3'"), "labels are quoted literally");
    cr_assert(strstr(script, "('a' 0.5, 'b' 2)"), "node names at mid-rows");
    free(script);
}

Test(plot_gantt, grows_fourteen_pixels_a_row)
{
    struct plot_gantt_group big[] = {{"n0", 8}, {"n1", 8}, {"n2", 8}};
    struct plot_gantt_piece one = {.job = 0, .group = 2, .gpus = 8,
                                   .start = 1, .end = 2};
    struct plot_chart c = chart_named("rows");
    assert_rc(plot_gantt(&c, big, 3, &one, 1), 0);
    assert_images("rows", PLOT_DEFAULT_WIDTH, 110 + 14 * 24);
}

Test(plot_gantt, refuses_more_pieces_at_once_than_a_node_has_gpus)
{
    /* Two 1-GPU pieces overlapping on b's single GPU. */
    struct plot_gantt_piece p[] = {
        {.job = 0, .group = 1, .gpus = 1, .start = 0, .end = 5},
        {.job = 1, .group = 1, .gpus = 1, .start = 4, .end = 6},
    };
    struct plot_chart c = chart_named("over");
    assert_rc(plot_gantt(&c, groups, 2, p, 2), PLOT_EINVAL);
    cr_assert(!exists("over.gp"));
    p[1].start = 5; /* back to back is fine */
    assert_rc(plot_gantt(&c, groups, 2, p, 2), 0);
}

Test(plot_gantt, refuses_bad_pieces)
{
    struct plot_chart c = chart_named("bad");
    struct plot_gantt_piece p = {.job = 0, .group = 2, .gpus = 1, .end = 1};
    assert_rc(plot_gantt(&c, groups, 2, &p, 1), PLOT_EINVAL); /* group */
    p.group = 1;
    p.gpus = 2;
    assert_rc(plot_gantt(&c, groups, 2, &p, 1), PLOT_EINVAL); /* too wide */
    p.gpus = 1;
    p.start = 2;
    assert_rc(plot_gantt(&c, groups, 2, &p, 1), PLOT_EINVAL); /* backwards */
    c.flags = PLOT_LOG_X;
    p.start = 0;
    assert_rc(plot_gantt(&c, groups, 2, &p, 1), PLOT_EINVAL);
    cr_assert(!exists("bad.gp"));
}

Test(plot_gantt, draws_the_axes_of_a_run_that_ran_nothing)
{
    struct plot_chart c = chart_named("empty");
    assert_rc(plot_gantt(&c, groups, 2, NULL, 0), 0);
    assert_images("empty", PLOT_DEFAULT_WIDTH, 300);
    struct table t = read_block("empty.gp", "$gantt");
    cr_assert_eq(t.rows, 0);
    free(t.v);
}
