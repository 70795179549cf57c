/* place.c -- choosing GPUs for one job: the placer, the `fastest` rule, and
 * the helpers the other rules (place_rules.c) share. */
#include <stdlib.h>

#include "place_internal.h"
#include "policies_internal.h"

static int faster(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->unit_s != y->unit_s)
        return x->unit_s < y->unit_s ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->spread - y->spread;
}

/* Sizes of the scratch arrays: the most nodes of one type, the most GPUs on
 * one node; and the most GPUs on one node of each type, counted here rather
 * than trusted from a cluster that may have been built by hand. */
static void scratch_sizes(struct pol_placer *pl, int32_t *nodes,
                          int32_t *gpus)
{
    const struct cluster *c = pl->cluster;
    int32_t per_type[SIM_MAX_GPU_TYPES] = {0};
    *nodes = 1;
    *gpus = 1;
    for (int32_t i = 0; i < c->nnodes; i++) {
        int32_t t = c->nodes[i].gpu_type, g = c->nodes[i].gpus;
        if (++per_type[t] > *nodes)
            *nodes = per_type[t];
        if (g > *gpus)
            *gpus = g;
        if (g > pl->most_per_node[t])
            pl->most_per_node[t] = g;
    }
}

struct pol_placer *pol_placer_create(const struct cluster *c,
                                     enum pol_placement kind, uint64_t seed)
{
    struct pol_placer *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    pl->cluster = c;
    pl->kind = kind;
    pl->seed = seed;
    int32_t nodes, gpus;
    scratch_sizes(pl, &nodes, &gpus);
    pl->order = malloc((size_t)nodes * sizeof *pl->order);
    pl->count = malloc(((size_t)gpus + 2) * sizeof *pl->count);
    if (!pl->order || !pl->count)
        goto fail;
    if (kind == POL_PLACE_RANDOM) {
        if (!(pl->rng = gsl_rng_alloc(gsl_rng_mt19937)))
            goto fail;
        /* Its own stream, so placements do not shift other random
         * choices made with the same seed. */
        gsl_rng_set(pl->rng, (unsigned long)(seed ^ 0x91ace5eedu));
    }
    return pl;
fail:
    pol_placer_destroy(pl);
    return NULL;
}

struct pol_placer *pol_placer_for(const struct pol_config *cfg)
{
    struct pol_placer *pl = pol_placer_create(cfg->cluster, cfg->placement,
                                              cfg->seed);
    if (pl && cfg->mem_aware)
        pol_placer_mem_aware(pl, cfg->mem_margin);
    if (pl && cfg->sharing &&
        !(pl->sharer = pol_sharer_create((enum pol_share_rule)cfg->share_rule,
                                         cfg->share_w, cfg->seed))) {
        pol_placer_destroy(pl);
        return NULL;
    }
    return pl;
}

int pol_placer_takes_lone_gpu(const struct pol_placer *pl)
{
    return pl->kind != POL_PLACE_RANDOM && !pl->mem_aware && !pl->sharer;
}

void pol_placer_mem_aware(struct pol_placer *pl, double margin)
{
    pl->mem_aware = 1;
    pl->mem_margin = margin;
}

uint32_t pol_mem_types(const struct sim *s, uint32_t job, uint32_t allowed,
                       double margin)
{
    const struct cluster *c = sim_cluster(s);
    double need = sim_est_mem_mb(s, job) * (1 + margin), most = -1;
    uint32_t fit = 0, biggest = 0;
    if (!(need > 0))
        return allowed;
    for (int32_t t = 0; t < c->ntypes; t++) {
        double m = c->types[t].memory_mb;
        if (!(allowed & (1u << t)))
            continue;
        if (m >= need)
            fit |= 1u << t;
        if (m > most) {
            most = m;
            biggest = 0;
        }
        if (m == most)
            biggest |= 1u << t;
    }
    return fit ? fit : biggest;
}

void pol_placer_destroy(struct pol_placer *pl)
{
    if (!pl)
        return;
    if (pl->rng)
        gsl_rng_free(pl->rng);
    pol_sharer_destroy(pl->sharer);
    free(pl->by_class);
    free(pl->segs);
    free(pl->order);
    free(pl->count);
    free(pl);
}

const struct ranking *pol_place_ranking(struct pol_placer *pl,
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

int pol_place_reserve(struct pol_placer *pl, size_t n)
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

int32_t pol_place_spread_in_order(struct pol_placer *pl, const struct sim *s,
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
    const struct ranking *r = pol_place_ranking(pl, s, j->job_class);
    int32_t need = j->num_gpus;
    if (!r)
        return SIM_ENOMEM;
    for (int32_t i = 0; i < r->ncand; i++) {
        const struct candidate *c = &r->cand[i];
        if (!(pl->allowed & (1u << c->type)) ||
            sim_free_gpus(s, c->type) < need)
            continue;
        int32_t nseg = 1;
        if (!c->spread) {
            int32_t node = sim_find_node(s, c->type, need);
            if (node < 0)
                continue;
            pl->segs[0] = (struct sim_seg){node, need};
        } else if ((nseg = pol_place_spread_in_order(pl, s, c->type,
                                                     need)) == 0)
            continue;
        *out = (struct sim_placement){c->type, nseg, pl->segs, NULL};
        return 0;
    }
    return 1;
}

/* With sharing on: the job's demand (its types narrowed to ALLOWED) placed
 * by the sharing rule on the engine's milli-GPU cluster. The demand keeps
 * the types it was given while ALLOWED does not narrow them, so that fgd
 * recognises it as a type of its workload. */
static int place_shared(struct pol_placer *pl, const struct sim *s,
                        uint32_t job, uint32_t allowed,
                        struct sim_placement *out)
{
    struct share_demand d = *sim_job_demand(s, job);
    const struct share_cluster *sc = sim_share_cluster(s);
    int32_t nt = pl->cluster->ntypes;
    uint32_t all = nt >= 32 ? UINT32_MAX : (1u << nt) - 1u;
    uint32_t given = d.allowed ? d.allowed : all;
    if ((given & allowed) != given)
        d.allowed = given & allowed;
    if (!(given & allowed))
        return 1;
    if (pol_share_place(pl->sharer, sc, &d, &pl->alloc) != 0)
        return 1;
    pl->segs[0] = (struct sim_seg){pl->alloc.node, d.num_gpus};
    *out = (struct sim_placement){sc->nodes[pl->alloc.node].gpu_type, 1,
                                  pl->segs, &pl->alloc};
    return 0;
}

/* pol_place with the job's types narrowed to ALLOWED. */
static int place_within(struct pol_placer *pl, const struct sim *s,
                        uint32_t job, uint32_t allowed,
                        struct sim_placement *out)
{
    /* A placement has a segment per node, and never more than num_gpus. */
    int32_t need = sim_job(s, job)->num_gpus;
    int32_t most = need < pl->cluster->nnodes ? need : pl->cluster->nnodes;
    pl->allowed = pl->mem_aware ? pol_mem_types(s, job, allowed,
                                                pl->mem_margin)
                                : allowed;
    if (pol_place_reserve(pl, (size_t)(most > 0 ? most : 1)) != 0)
        return SIM_ENOMEM;
    if (pl->sharer && sim_share_cluster(s))
        return place_shared(pl, s, job, pl->allowed, out);
    switch (pl->kind) {
    case POL_PLACE_CONSOLIDATE:
        return pol_place_consolidate(pl, s, job, out);
    case POL_PLACE_FIRST_FIT:
        return pol_place_first_fit(pl, s, job, out);
    case POL_PLACE_BEST_FIT:
        return pol_place_best_fit(pl, s, job, out);
    case POL_PLACE_RANDOM:
        return pol_place_random(pl, s, job, out);
    case POL_PLACE_FASTEST:
    default:
        return place_fastest(pl, s, job, out);
    }
}

int pol_place(struct pol_placer *pl, const struct sim *s, uint32_t job,
              struct sim_placement *out)
{
    return place_within(pl, s, job, sim_job(s, job)->allowed, out);
}

int pol_place_on(struct pol_placer *pl, const struct sim *s, uint32_t job,
                 int32_t gpu_type, struct sim_placement *out)
{
    uint32_t allowed = sim_job(s, job)->allowed & (1u << gpu_type);
    if (!allowed)
        return 1;
    /* mem-aware never moves a job off the one type it is offered */
    int mem_aware = pl->mem_aware;
    pl->mem_aware = 0;
    int rc = place_within(pl, s, job, allowed, out);
    pl->mem_aware = mem_aware;
    return rc;
}
