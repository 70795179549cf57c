/* place.c -- choosing GPUs for one job. */
#include <stdlib.h>

#include "policy.h"

struct candidate {
    double unit_s;  /* seconds per unit of work there: lower is faster */
    int32_t type;
    int32_t spread; /* 0 = one node, 1 = several */
};

/* The placements of one job class, fastest first. */
struct ranking {
    struct candidate cand[2 * SIM_MAX_GPU_TYPES];
    int32_t ncand;
    int built;
};

struct pol_placer {
    const struct cluster *cluster;
    enum pol_placement kind;
    uint64_t seed;
    struct ranking *by_class; /* (nclasses), built on first use */
    int32_t nclasses;
    struct sim_seg *segs;     /* (segs_cap) the placement handed out */
    size_t segs_cap;
};

static int faster(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->unit_s != y->unit_s)
        return x->unit_s < y->unit_s ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->spread - y->spread;
}

struct pol_placer *pol_placer_create(const struct cluster *c,
                                     enum pol_placement kind, uint64_t seed)
{
    struct pol_placer *pl = calloc(1, sizeof *pl);
    if (pl) {
        pl->cluster = c;
        pl->kind = kind;
        pl->seed = seed;
    }
    return pl;
}

void pol_placer_destroy(struct pol_placer *pl)
{
    if (!pl)
        return;
    free(pl->by_class);
    free(pl->segs);
    free(pl);
}

/* The ranking of class CLS, built the first time it is asked for. */
static const struct ranking *ranking_of(struct pol_placer *pl,
                                        const struct sim *s, int32_t cls)
{
    if (cls >= pl->nclasses) {
        int32_t n = sim_nclasses(s);
        struct ranking *r = realloc(pl->by_class, (size_t)n * sizeof *r);
        if (!r)
            return NULL;
        for (int32_t i = pl->nclasses; i < n; i++)
            r[i].built = 0;
        pl->by_class = r;
        pl->nclasses = n;
    }
    struct ranking *r = &pl->by_class[cls];
    if (r->built)
        return r;
    const struct sim_class_spec *spec = sim_class(s, cls);
    r->ncand = 0;
    for (int32_t t = 0; t < pl->cluster->ntypes; t++) {
        if (spec->unit_s[t] > 0)
            r->cand[r->ncand++] = (struct candidate){spec->unit_s[t], t, 0};
        if (spec->spread_unit_s[t] > 0)
            r->cand[r->ncand++] =
                (struct candidate){spec->spread_unit_s[t], t, 1};
    }
    qsort(r->cand, (size_t)r->ncand, sizeof *r->cand, faster);
    r->built = 1;
    return r;
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

/* Fills nodes of TYPE in index order until NEED GPUs are found; the number
 * of nodes used, or 0 when they do not add up to NEED (never more than one
 * node: that is not a spread). */
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
    return need == 0 && nseg > 1 ? nseg : 0;
}

static int place_fastest(struct pol_placer *pl, const struct sim *s,
                         uint32_t job, struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    const struct ranking *r = ranking_of(pl, s, j->job_class);
    int32_t need = j->num_gpus;
    if (!r || reserve(pl, (size_t)need) != 0)
        return SIM_ENOMEM;
    for (int32_t i = 0; i < r->ncand; i++) {
        const struct candidate *c = &r->cand[i];
        if (!(j->allowed & (1u << c->type)) ||
            sim_free_gpus(s, c->type) < need)
            continue;
        int32_t nseg = 1;
        if (!c->spread) {
            int32_t node = sim_find_node(s, c->type, need);
            if (node < 0)
                continue;
            pl->segs[0] = (struct sim_seg){node, need};
        } else if ((nseg = spread_over(pl, s, c->type, need)) == 0)
            continue;
        *out = (struct sim_placement){c->type, nseg, pl->segs};
        return 0;
    }
    return 1;
}

int pol_place(struct pol_placer *pl, const struct sim *s, uint32_t job,
              struct sim_placement *out)
{
    switch (pl->kind) {
    case POL_PLACE_FASTEST:
    default:
        return place_fastest(pl, s, job, out);
    }
}
