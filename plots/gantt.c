/* gantt.c -- jobs on GPUs over time: one row per GPU, one bar per piece of
 * a job's run. The caller knows which node a piece ran on, not which GPUs
 * of it; this file lays pieces out on the node's rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots_internal.h"

/* Fill colours by job, cycled: ColorBrewer's 12-class "Set3", light enough
 * that black labels stay readable on every one. */
static const unsigned job_colours[] = {
    0x8dd3c7, 0xffffb3, 0xbebada, 0xfb8072, 0x80b1d3, 0xfdb462,
    0xb3de69, 0xfccde5, 0xd9d9d9, 0xbc80bd, 0xccebc5, 0xffed6f};
#define N_JOB_COLOURS (sizeof job_colours / sizeof job_colours[0])

/* Layout margins in pixels: title, x tics and label above and below the
 * rows; node names to the left. Used to size rows and to decide which
 * bars have room for their label. */
#define GANTT_MARGIN_Y 110
#define GANTT_MARGIN_X 190
#define GANTT_ROW_PX 14

struct layout {
    size_t n_rows;  /* GPUs of all groups */
    size_t *order;  /* (n_pieces) pieces by start, end, then given order */
    size_t *rows;   /* (sum of gpus) the rows each piece takes, in order */
    size_t *first;  /* (n_pieces) index into rows of piece's first row */
    size_t *group_row; /* (n_groups + 1) first row of each group */
    double *free_at;   /* (total rows) when each row's last piece ends */
    unsigned char *restart; /* (n_pieces) 1: a later run of its job */
};

static const struct plot_gantt_piece *sort_pieces;

static int compare_pieces(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct plot_gantt_piece *p = &sort_pieces[i], *q = &sort_pieces[j];
    if (p->start != q->start)
        return p->start < q->start ? -1 : 1;
    if (p->end != q->end)
        return p->end < q->end ? -1 : 1;
    return (i > j) - (i < j);
}

static int compare_jobs(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct plot_gantt_piece *p = &sort_pieces[i], *q = &sort_pieces[j];
    if (p->job != q->job)
        return p->job < q->job ? -1 : 1;
    if (p->start != q->start)
        return p->start < q->start ? -1 : 1;
    return (i > j) - (i < j);
}

/* restart[i] = 1 when piece i starts after an earlier run of its job:
 * the job was preempted and runs again. Pieces of one run start at once. */
static int find_restarts(const struct plot_gantt_piece *p, size_t n,
                         unsigned char *restart)
{
    size_t *by_job = malloc((n + 1) * sizeof *by_job);
    if (!by_job)
        return PLOT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        by_job[i] = i;
    sort_pieces = p;
    qsort(by_job, n, sizeof *by_job, compare_jobs);
    for (size_t k = 0, first = 0; k < n; k++) {
        if (k == 0 || p[by_job[k]].job != p[by_job[k - 1]].job)
            first = k;
        restart[by_job[k]] = p[by_job[k]].start > p[by_job[first]].start;
    }
    free(by_job);
    return 0;
}

static void layout_free(struct layout *l)
{
    free(l->order);
    free(l->rows);
    free(l->first);
    free(l->group_row);
    free(l->free_at);
    free(l->restart);
}

/* Gives every piece, in start order, the lowest-numbered rows of its group
 * that are free at its start. A greedy pass in start order never runs
 * short when the group never holds more than its GPUs at once (an
 * interval graph is coloured optimally this way); if it does run short,
 * the pieces overlap beyond the group's size: PLOT_EINVAL. */
static int lay_out(struct layout *l, const struct plot_gantt_group *g,
                   size_t n_groups, const struct plot_gantt_piece *p,
                   size_t n_pieces, size_t total_rows, size_t total_gpus)
{
    l->order = malloc(n_pieces * sizeof *l->order);
    l->rows = malloc(total_gpus * sizeof *l->rows);
    l->first = malloc(n_pieces * sizeof *l->first);
    l->group_row = malloc((n_groups + 1) * sizeof *l->group_row);
    l->free_at = malloc(total_rows * sizeof *l->free_at);
    l->restart = malloc(n_pieces + 1);
    if (!l->order || !l->rows || !l->first || !l->group_row || !l->free_at ||
        !l->restart || find_restarts(p, n_pieces, l->restart) < 0)
        return PLOT_ENOMEM;
    l->group_row[0] = 0;
    for (size_t k = 0; k < n_groups; k++)
        l->group_row[k + 1] = l->group_row[k] + g[k].gpus;
    for (size_t r = 0; r < total_rows; r++)
        l->free_at[r] = -INFINITY;
    for (size_t i = 0; i < n_pieces; i++)
        l->order[i] = i;
    sort_pieces = p;
    qsort(l->order, n_pieces, sizeof *l->order, compare_pieces);
    size_t used = 0;
    for (size_t i = 0; i < n_pieces; i++) {
        const struct plot_gantt_piece *q = &p[l->order[i]];
        size_t need = q->gpus;
        l->first[l->order[i]] = used;
        for (size_t r = l->group_row[q->group];
             need > 0 && r < l->group_row[q->group + 1]; r++)
            if (l->free_at[r] <= q->start) {
                l->free_at[r] = q->end;
                l->rows[used++] = r;
                need--;
            }
        if (need > 0)
            return PLOT_EINVAL;
    }
    return 0;
}

static int check_pieces(const struct plot_gantt_group *g, size_t n_groups,
                        const struct plot_gantt_piece *p, size_t n_pieces,
                        size_t *total_rows, size_t *total_gpus)
{
    if (!g || n_groups == 0 || (n_pieces && !p))
        return PLOT_EINVAL;
    *total_rows = 0;
    for (size_t k = 0; k < n_groups; k++) {
        if (g[k].gpus == 0 || g[k].gpus > 100000)
            return PLOT_EINVAL;
        *total_rows += g[k].gpus;
    }
    *total_gpus = 0;
    for (size_t i = 0; i < n_pieces; i++) {
        if (p[i].group >= n_groups || p[i].gpus == 0 ||
            p[i].gpus > g[p[i].group].gpus || !isfinite(p[i].start) ||
            !isfinite(p[i].end) || p[i].end < p[i].start)
            return PLOT_EINVAL;
        *total_gpus += p[i].gpus;
    }
    return 0;
}

static void put_block(struct plot_buf *b, const struct layout *l,
                      const struct plot_gantt_piece *p, size_t n_pieces)
{
    plot_buf_puts(b, "# $gantt: row start end job colour restart\n$gantt << EOD\n");
    for (size_t i = 0; i < n_pieces; i++) {
        const struct plot_gantt_piece *q = &p[l->order[i]];
        for (size_t k = 0; k < q->gpus; k++) {
            double row[6] = {(double)l->rows[l->first[l->order[i]] + k],
                             q->start, q->end, (double)q->job,
                             job_colours[q->job % N_JOB_COLOURS],
                             l->restart[l->order[i]]};
            for (size_t c = 0; c < 6; c++) {
                plot_buf_puts(b, c ? " " : "");
                plot_buf_number(b, row[c]); /* whole numbers print whole */
            }
            plot_buf_puts(b, "\n");
        }
    }
    plot_buf_puts(b, "EOD\n");
}

/* Row axis: top to bottom, each group named at the middle of its rows,
 * a thin line between groups. */
static void put_rows(struct plot_buf *b, const struct layout *l,
                     const struct plot_gantt_group *g, size_t n_groups)
{
    size_t total = l->group_row[n_groups];
    plot_buf_puts(b, "set yrange [");
    plot_buf_number(b, (double)total - 0.5);
    plot_buf_puts(b, ":-0.5]\nset ytics scale 0 font ',9' (");
    for (size_t k = 0; k < n_groups; k++) {
        plot_buf_puts(b, k ? ", " : "");
        plot_buf_name(b, g[k].name, k);
        plot_buf_puts(b, " ");
        plot_buf_number(b, (double)(l->group_row[k] + l->group_row[k + 1] -
                                    1) / 2);
    }
    plot_buf_puts(b, ")\nset ytics noenhanced\nset grid xtics noytics\n");
    for (size_t k = 1; k < n_groups; k++) {
        plot_buf_puts(b, "set arrow from graph 0, first ");
        plot_buf_number(b, (double)l->group_row[k] - 0.5);
        plot_buf_puts(b, " to graph 1, first ");
        plot_buf_number(b, (double)l->group_row[k] - 0.5);
        plot_buf_puts(b, " nohead lc rgb '#999999' lw 0.5 back\n");
    }
}

/* A piece's label goes in the middle of its first row when the bar is
 * wide and tall enough to hold it at 9 points; elsewhere the colour alone
 * tells jobs apart. */
static void put_labels(struct plot_buf *b, const struct plot_chart *c,
                       const struct layout *l,
                       const struct plot_gantt_piece *p, size_t n_pieces,
                       double t0, double t1)
{
    double row_px = (double)(plot_height(c) - GANTT_MARGIN_Y) /
                    (double)l->n_rows;
    double x_px = (double)(plot_width(c) - GANTT_MARGIN_X);
    for (size_t i = 0; i < n_pieces; i++) {
        const struct plot_gantt_piece *q = &p[i];
        if (!q->label)
            continue;
        size_t r0 = l->rows[l->first[i]];
        double wide = t1 > t0 ? x_px * (q->end - q->start) / (t1 - t0) : 0;
        if (row_px < 12 || wide < 7.0 * (double)strlen(q->label) + 6)
            continue;
        plot_buf_puts(b, "set label ");
        plot_buf_text(b, q->label);
        plot_buf_puts(b, " at first ");
        plot_buf_number(b, (q->start + q->end) / 2);
        plot_buf_puts(b, ", first ");
        plot_buf_size(b, r0);
        plot_buf_puts(b, " center front noenhanced font ',9'\n");
    }
}

static void put_style(struct plot_buf *b, const struct plot_gantt_piece *p, size_t n_pieces,
                      double *t0, double *t1)
{
    *t0 = 0;
    *t1 = 1;
    for (size_t i = 0; i < n_pieces; i++) {
        *t0 = i == 0 || p[i].start < *t0 ? p[i].start : *t0;
        *t1 = i == 0 || p[i].end > *t1 ? p[i].end : *t1;
    }
    if (n_pieces && *t0 > 0)
        *t0 = 0; /* time starts at the trace's start */
    if (*t1 <= *t0)
        *t1 = *t0 + 1;
    plot_buf_puts(b, "set xrange [");
    plot_buf_number(b, *t0);
    plot_buf_puts(b, ":");
    plot_buf_number(b, *t1);
    plot_buf_puts(b, "]\nunset key\nset lmargin 24\nset rmargin 3\n"
                     "set style fill solid 1.0 border lc rgb '#444444'\n");
}

int plot_gantt(const struct plot_chart *chart,
               const struct plot_gantt_group *groups, size_t n_groups,
               const struct plot_gantt_piece *pieces, size_t n_pieces)
{
    int rc = plot_check_chart(chart, 0);
    size_t total_rows = 0, total_gpus = 0;
    if (rc == 0)
        rc = check_pieces(groups, n_groups, pieces, n_pieces, &total_rows,
                          &total_gpus);
    if (rc < 0)
        return rc;
    struct plot_chart c = *chart;
    if (!c.height) {
        size_t h = GANTT_MARGIN_Y + GANTT_ROW_PX * total_rows;
        c.height = h < 300 ? 300 : h > 10000 ? 10000 : (int)h;
    }
    struct layout l = {.n_rows = total_rows};
    rc = lay_out(&l, groups, n_groups, pieces, n_pieces, total_rows,
                 total_gpus);
    if (rc == 0) {
        struct plot_buf b = {0};
        double t0, t1;
        plot_script_header(&b, &c);
        put_block(&b, &l, pieces, n_pieces);
        plot_script_settings(&b, &c);
        put_rows(&b, &l, groups, n_groups);
        put_style(&b, pieces, n_pieces, &t0, &t1);
        put_labels(&b, &c, &l, pieces, n_pieces, t0, t1);
        plot_script_png(&b, &c);
        /* A bar is a box centred on the middle of its run, 0.8 rows tall;
         * a dot marks the start of each restart. An empty datablock still
         * draws the axes. */
        plot_buf_puts(&b, n_pieces ? "plot $gantt using (($2+$3)/2):1:"
                                     "(($3-$2)/2):(0.4):5 with boxxyerror "
                                     "lc rgb variable, \\\n     $gantt "
                                     "using 2:($6 > 0 ? $1 : NaN) with "
                                     "points pt 7 ps 0.6 lc rgb 'black'\n"
                                   : "plot NaN notitle\n");
        plot_script_finish(&b, &c);
        rc = plot_render(&c, &b);
        plot_buf_free(&b);
    }
    layout_free(&l);
    return rc;
}
