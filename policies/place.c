/* place.c -- choosing GPUs for one job. */
#include <stdlib.h>

#include "policy.h"

struct candidate {
    double speed;  /* effective: type speed, divided by the spread penalty */
    int32_t type;
    int32_t spread; /* 0 = one node, 1 = several */
};

struct pol_placer {
    struct candidate cand[2 * SIM_MAX_GPU_TYPES]; /* fastest first */
    int32_t ncand;
    struct sim_seg *segs; /* (segs_cap) the placement handed out */
    size_t segs_cap;
};

static int faster(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->speed != y->speed)
        return x->speed > y->speed ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->spread - y->spread;
}

struct pol_placer *pol_placer_create(const struct cluster *c)
{
    struct pol_placer *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    for (int32_t t = 0; t < c->ntypes; t++) {
        double v = c->types[t].speed;
        pl->cand[pl->ncand++] = (struct candidate){v, t, 0};
        pl->cand[pl->ncand++] =
            (struct candidate){v / c->spread_slowdown, t, 1};
    }
    qsort(pl->cand, (size_t)pl->ncand, sizeof *pl->cand, faster);
    return pl;
}

void pol_placer_destroy(struct pol_placer *pl)
{
    if (!pl)
        return;
    free(pl->segs);
    free(pl);
}

static int reserve(struct pol_placer *pl, size_t n)
{
    if (n <= pl->segs_cap)
        return 0;
    size_t cap = pl->segs_cap ? pl->segs_cap : 16;
    while (cap < n)
        cap *= 2;
    struct sim_seg *segs = realloc(pl->segs, cap * sizeof *segs);
    if (!segs)
        return SIM_ENOMEM;
    pl->segs = segs;
    pl->segs_cap = cap;
    return 0;
}

/* Fills nodes of TYPE in index order until NEED GPUs are found. */
static int32_t spread_over(struct pol_placer *pl, const struct sim *s,
                           int32_t type, int32_t need)
{
    int32_t count, nseg = 0;
    const int32_t *nodes = sim_type_nodes(s, type, &count);
    for (int32_t i = 0; i < count && need > 0; i++) {
        int32_t f = sim_node_free(s, nodes[i]);
        if (f == 0)
            continue;
        int32_t take = f < need ? f : need;
        pl->segs[nseg++] = (struct sim_seg){nodes[i], take};
        need -= take;
    }
    return nseg;
}

int pol_place_fastest(struct pol_placer *pl, const struct sim *s,
                      uint32_t job, struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    int32_t need = j->num_gpus;
    for (int32_t i = 0; i < pl->ncand; i++) {
        const struct candidate *c = &pl->cand[i];
        if (!(j->allowed & (1u << c->type)) ||
            sim_free_gpus(s, c->type) < need)
            continue;
        if (reserve(pl, (size_t)need) != 0)
            return SIM_ENOMEM;
        if (!c->spread) {
            int32_t node = sim_find_node(s, c->type, need);
            if (node < 0)
                continue;
            pl->segs[0] = (struct sim_seg){node, need};
            *out = (struct sim_placement){c->type, 1, pl->segs};
            return 0;
        }
        *out = (struct sim_placement){c->type, spread_over(pl, s, c->type,
                                                           need),
                                      pl->segs};
        return 0;
    }
    return 1;
}
