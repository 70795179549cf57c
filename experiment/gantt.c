/* gantt.c -- the Gantt chart of a run: which job held which GPUs when.
 * The engine reports each piece of each run as it ends (sim_on_run_end);
 * they are kept here and handed to plot_gantt with one group per node. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plots.h"

/* Above this many GPUs, only the nodes that ran something get rows: a
 * thousand idle rows would squeeze the busy ones to nothing. */
#define GANTT_ALL_NODES_MAX_GPUS 256

void cli_series_ran(void *ctx, uint32_t job, int32_t node, int32_t gpus,
                    double start, double end)
{
    struct cli_series *ts = ctx;
    if (ts->pieces_oom)
        return;
    if (ts->npieces == ts->pieces_cap) {
        size_t cap = ts->pieces_cap ? 2 * ts->pieces_cap : 256;
        struct cli_run_piece *p = realloc(ts->piece, cap * sizeof *p);
        if (!p) {
            ts->pieces_oom = 1;
            return;
        }
        ts->piece = p;
        ts->pieces_cap = cap;
    }
    ts->piece[ts->npieces++] = (struct cli_run_piece){job, node, gpus, start,
                                                      end};
}

/* Group of each node (SIZE_MAX: no row), the groups themselves and their
 * names, written into NAMES (64 bytes each). Returns the group count. */
static size_t node_groups(const struct cluster *c,
                          const struct cli_series *ts, size_t *group_of,
                          struct plot_gantt_group *g, char (*names)[64])
{
    int all = c->total_gpus <= GANTT_ALL_NODES_MAX_GPUS;
    for (int32_t n = 0; n < c->nnodes; n++)
        group_of[n] = all ? 0 : SIZE_MAX;
    for (size_t i = 0; !all && i < ts->npieces; i++)
        group_of[ts->piece[i].node] = 0;
    size_t ng = 0;
    for (int32_t n = 0; n < c->nnodes; n++) {
        if (group_of[n] == SIZE_MAX)
            continue;
        const struct node *nd = &c->nodes[n];
        snprintf(names[ng], sizeof names[ng], "node %d  %s", (int)n,
                 c->types[nd->gpu_type].name);
        g[ng] = (struct plot_gantt_group){names[ng], (size_t)nd->gpus};
        group_of[n] = ng++;
    }
    return ng;
}

int cli_draw_gantt(const char *dir, const char *title, const struct cluster *c,
                   const struct sim *s, const struct trace *t,
                   const struct cli_series *ts)
{
    size_t nn = (size_t)c->nnodes;
    size_t *group_of = malloc(nn * sizeof *group_of);
    struct plot_gantt_group *g = malloc(nn * sizeof *g);
    char (*names)[64] = malloc(nn * sizeof *names);
    struct plot_gantt_piece *p = malloc((ts->npieces + 1) * sizeof *p);
    int rc = PLOT_ENOMEM;
    if (!group_of || !g || !names || !p || ts->pieces_oom)
        goto done;
    size_t ng = node_groups(c, ts, group_of, g, names);
    /* Hours read better than seconds once a run spans more than a day. */
    double end = 0;
    for (size_t i = 0; i < ts->npieces; i++)
        end = ts->piece[i].end > end ? ts->piece[i].end : end;
    double unit = end > 86400 ? 3600 : 1;
    for (size_t i = 0; i < ts->npieces; i++) {
        const struct cli_run_piece *q = &ts->piece[i];
        const struct sim_job *j = sim_job(s, q->job);
        p[i] = (struct plot_gantt_piece){
            .job = q->job, .group = group_of[q->node],
            .gpus = (size_t)q->gpus, .start = q->start / unit,
            .end = q->end / unit,
            .label = trace_str(t, t->jobs[j->trace_index].id)};
    }
    struct plot_chart ch = {.dir = dir, .name = "gantt", .title = title,
                            .xlabel = unit > 1 ? "time (h)" : "time (s)",
                            .width = 1100};
    rc = ng ? plot_gantt(&ch, g, ng, p, ts->npieces) : 0;
done:
    free(group_of);
    free(g);
    free(names);
    free(p);
    return rc;
}
