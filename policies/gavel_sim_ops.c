/* gavel_sim_ops.c -- the gavel:* policies' options, construction and
 * ops tables (the simulator itself: gavel_sim.c). */
#include <stdlib.h>
#include <strings.h>

#include "gavel_sim_internal.h"
#include "policies_internal.h"

static const char *const gavel_order[] = {"v100", "p100", "k80"};

/* The entries every gavel:* policy shares, in gs_params' order. */
#define GS_ROUND_PARAMS                                                        \
    {"round_s", "360", "seconds per round (Gavel's --time_per_iteration)"},   \
    {"reset_s", "1920", "least seconds between allocation recomputes "        \
                        "(Gavel's minimum_time_between_allocation_resets)"}
#define GS_RUN_PARAMS                                                          \
    {"split_fail", "1",                                                        \
     "1: as Gavel, a micro-task with fewer steps than GPUs fails and 5 "       \
     "failures drop the job (R9); 0: it runs"},                                \
    {"hold_unallocated", "1",                                                  \
     "1: as Gavel, a job placed before it is in the allocation holds its "     \
     "GPUs idle for the round (R5); 0: its GPUs stay free for others"}

static const struct pol_param gs_params[] = {
    GS_ROUND_PARAMS,
    {"seed", "0",
     "Gavel's --seed: type shuffle Random(seed+5), FIFO's "
     "Random(seed)"},
    {"fifo_bug", "1",
     "1: as Gavel, gavel:fifo gives a queued job the alphabetically last "
     "type with a free GPU (fifo.py's loop variable, R7); 0: the random "
     "type it meant"},
    GS_RUN_PARAMS,
    {NULL, NULL, NULL},
};

/* gavel:finish_time_fairness_perf's: the same and its tolerance. */
static const struct pol_param gs_ftf_params[] = {
    GS_ROUND_PARAMS,
    {"seed", "0", "Gavel's --seed (unused by this policy's allocation)"},
    {"fifo_bug", "1", "no effect here (gavel:fifo only)"},
    GS_RUN_PARAMS,
    {"ftf_tol", "1e-4",
     "the bisection over the finish-time ratio R stops when its interval "
     "is this narrow (Gavel solves the convex program directly)"},
    {NULL, NULL, NULL},
};

/* Gavel's type order, then the alphabetical one (lower case). */
static void type_orders(struct gs *g)
{
    const struct cluster *c = g->c;
    int32_t n = 0;
    uint8_t used[SIM_MAX_GPU_TYPES] = {0};
    for (size_t k = 0; k < 3; k++)
        for (int32_t t = 0; t < c->ntypes; t++)
            if (!used[t] && strcasecmp(c->types[t].name, gavel_order[k]) == 0) {
                g->order[n++] = t;
                used[t] = 1;
            }
    for (int32_t t = 0; t < c->ntypes; t++)
        if (!used[t])
            g->order[n++] = t;
    for (int32_t t = 0; t < c->ntypes; t++)
        g->alpha[t] = t;
    for (int32_t i = 1; i < c->ntypes; i++) /* insertion sort by name */
        for (int32_t k = i; k > 0 && strcasecmp(c->types[g->alpha[k - 1]].name,
                                                c->types[g->alpha[k]].name) > 0;
             k--) {
            int32_t tmp = g->alpha[k];
            g->alpha[k] = g->alpha[k - 1];
            g->alpha[k - 1] = tmp;
        }
}

static int gs_create(const struct pol_config *cfg, enum gs_kind kind,
                     void **state)
{
    const struct cluster *c = cfg->cluster;
    struct gs *g =
        calloc(1, sizeof *g + ((size_t)c->nnodes + 1) * sizeof(struct sim_seg));
    if (!g)
        return SIM_ENOMEM;
    g->seg = (struct sim_seg *)(g + 1);
    g->kind = kind;
    g->c = c;
    g->nt = c->ntypes;
    double seed, bug, split, hold;
    int rc = pol_opt_double(cfg, "round_s", 1e-3, 1e9, &g->round_s);
    if (!rc)
        rc = pol_opt_double(cfg, "reset_s", 0, 1e12, &g->reset_s);
    if (!rc)
        rc = pol_opt_double(cfg, "seed", 0, 4294967295.0, &seed);
    if (!rc)
        rc = pol_opt_double(cfg, "fifo_bug", 0, 1, &bug);
    if (!rc)
        rc = pol_opt_double(cfg, "split_fail", 0, 1, &split);
    if (!rc)
        rc = pol_opt_double(cfg, "hold_unallocated", 0, 1, &hold);
    g->ftf_tol = 1e-4;
    if (!rc && kind == GS_FTF_PERF)
        rc = pol_opt_double(cfg, "ftf_tol", 1e-12, 0.5, &g->ftf_tol);
    if (rc) {
        free(g);
        return rc;
    }
    g->fifo_bug = bug != 0;
    g->split_fail = split != 0;
    g->hold_unallocated = hold != 0;
    sim_pyrand_seed(&g->shuffler, (uint64_t)seed + 5);
    sim_pyrand_seed(&g->fifo_rng, (uint64_t)seed);
    type_orders(g);
    *state = g;
    return 0;
}

#define GS_CREATE(fn, kind)                                                    \
    static int fn(const struct pol_config *cfg, void **state)                  \
    {                                                                          \
        return gs_create(cfg, kind, state);                                    \
    }
GS_CREATE(create_fifo, GS_FIFO)
GS_CREATE(create_fifo_perf, GS_FIFO_PERF)
GS_CREATE(create_mmf, GS_MMF)
GS_CREATE(create_mmf_perf, GS_MMF_PERF)
GS_CREATE(create_mtd_perf, GS_MTD_PERF)
GS_CREATE(create_ftf_perf, GS_FTF_PERF)

#define GS_OPS(policy, desc, fn)                                               \
    {                                                                          \
        .name = policy, .description = desc, .params = gs_params,              \
        .needs_estimates = 0, .preemptive = 1, .create = fn,                   \
        .destroy = gs_destroy, .on_arrival = gs_arrival, .on_finish = NULL,    \
        .schedule = gs_schedule                                                \
    }

const struct pol_ops pol_gs_fifo = GS_OPS(
    "gavel:fifo",
    "Gavel's simulator, fifo: arrival order on a random type, with Gavel's "
    "type-selection bug (fifo_bug)",
    create_fifo);
const struct pol_ops pol_gs_fifo_perf = GS_OPS(
    "gavel:fifo_perf",
    "Gavel's simulator, fifo_perf: arrival order on the fastest free type, "
    "re-placed (migrated) at each recompute",
    create_fifo_perf);
const struct pol_ops pol_gs_mmf =
    GS_OPS("gavel:max_min_fairness",
           "Gavel's simulator, max_min_fairness (LAS): max-min LP (interior "
           "point) over GPU time, "
           "heterogeneity-agnostic",
           create_mmf);
const struct pol_ops pol_gs_mmf_perf =
    GS_OPS("gavel:max_min_fairness_perf",
           "Gavel's simulator, max_min_fairness_perf: max-min LP (GLPK) over "
           "normalised throughputs",
           create_mmf_perf);
const struct pol_ops pol_gs_mtd_perf = GS_OPS(
    "gavel:min_total_duration_perf",
    "Gavel's simulator, min_total_duration_perf (makespan): bisection over "
    "feasibility LPs (scipy's interior point, policies/ipm.h)",
    create_mtd_perf);
const struct pol_ops pol_gs_ftf_perf = {
    .name = "gavel:finish_time_fairness_perf",
    .description = "Gavel's simulator, finish_time_fairness_perf: min max "
                   "finish-time ratio to the isolated (max_min_fairness) "
                   "share, by bisection over feasibility LPs",
    .params = gs_ftf_params,
    .needs_estimates = 0,
    .preemptive = 1,
    .create = create_ftf_perf,
    .destroy = gs_destroy,
    .on_arrival = gs_arrival,
    .on_finish = NULL,
    .schedule = gs_schedule};
