/* share_room.c -- whether stopping some running jobs would make room for a
 * waiting one under GPU sharing (sim.h, sim_share_fits_if_freed), for the
 * victims of preemptive policies: the nodes the victims hold are copied,
 * their resources given back on the copies, and the waiting job's demand
 * tried there. */
#include <string.h>

#include "sim_internal.h"

/* A node's state copied for sim_share_fits_if_freed. */
struct node_copy {
    int32_t node;
    struct share_node n;
    int32_t free[SHARE_MAX_NODE_GPUS];
};

/* The copy of node I among C[0, *nc), made on first use. */
static struct share_node *copy_of(const struct sim *s, struct node_copy *c,
                                  size_t *nc, int32_t i)
{
    for (size_t k = 0; k < *nc; k++)
        if (c[k].node == i)
            return &c[k].n;
    struct node_copy *x = &c[(*nc)++];
    x->node = i;
    x->n = s->share->sc->nodes[i];
    memcpy(x->free, x->n.gpu_free, (size_t)x->n.gpus * sizeof *x->free);
    x->n.gpu_free = x->free;
    return &x->n;
}

int sim_share_fits_if_freed(const struct sim *s, uint32_t w,
                            const uint32_t *victims, size_t n)
{
    size_t cap = 0, nc = 0;
    for (size_t k = 0; k < n; k++)
        for (int32_t i = sim_job_at(s, victims[k])->seg; i >= 0;
             i = s->segs[i].next)
            cap++;
    struct node_copy *c = malloc((cap ? cap : 1) * sizeof *c);
    if (!c)
        return 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t v = victims[k];
        const struct share_alloc *a = &s->share->alloc[v];
        struct share_demand d = s->share->demand[v];
        if (d.gpu_milli < SHARE_MILLI) {
            share_node_give(copy_of(s, c, &nc, a->node), &d, a);
            continue;
        }
        for (int32_t i = sim_job_at(s, v)->seg; i >= 0; i = s->segs[i].next) {
            struct share_alloc at = {s->segs[i].node, -1, s->segs[i].mask};
            struct share_demand part = d;
            part.num_gpus = s->segs[i].gpus;
            if (i != sim_job_at(s, v)->seg)
                part.cpu_milli = 0, part.memory_mib = 0;
            share_node_give(copy_of(s, c, &nc, at.node), &part, &at);
        }
    }
    struct share_demand d = sim_share_demand_now(s, w);
    int fits = 0;
    for (size_t k = 0; k < nc && !fits; k++)
        fits = share_fits(&c[k].n, &d);
    free(c);
    return fits;
}
