/* share.c -- GPUs shared by fractional requests: each node's free CPU,
 * memory and milli-GPU per GPU, and what fits where.
 *
 * This is the resource model of Alibaba's 2023 trace (Weng et al., "Beware
 * of Fragmentation", USENIX ATC'23, section 2): a pod runs on one node and
 * asks for CPU, memory and either a share (1..999 milli) of one GPU or one
 * or more whole GPUs. A shared GPU holds any number of shares as long as
 * they sum to at most 1000. It stands beside the engine's whole-GPU model
 * (state.c): the pack experiment and the sharing placements work on it. */
#include "sim_internal.h"

#include <string.h>

int share_cluster_create(const struct cluster *c, struct share_cluster **out)
{
    struct share_cluster *sc = calloc(1, sizeof *sc);
    int64_t gpus = 0;
    *out = NULL;
    if (!sc)
        return SIM_ENOMEM;
    for (int32_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].gpus > SHARE_MAX_NODE_GPUS) {
            free(sc);
            return SIM_EINVAL;
        }
        gpus += c->nodes[i].gpus;
    }
    sc->nodes =
        calloc(c->nnodes > 0 ? (size_t)c->nnodes : 1, sizeof *sc->nodes);
    sc->gpu_block =
        malloc((size_t)(gpus > 0 ? gpus : 1) * sizeof *sc->gpu_block);
    if (!sc->nodes || !sc->gpu_block) {
        share_cluster_destroy(sc);
        return SIM_ENOMEM;
    }
    sc->nnodes = c->nnodes;
    sc->total_milli = gpus * SHARE_MILLI;
    int32_t *g = sc->gpu_block;
    for (int32_t i = 0; i < c->nnodes; i++) {
        struct share_node *n = &sc->nodes[i];
        n->gpu_type = c->nodes[i].gpu_type;
        n->gpus = c->nodes[i].gpus;
        n->gpu_free = g;
        for (int32_t k = 0; k < n->gpus; k++)
            g[k] = SHARE_MILLI;
        g += n->gpus;
    }
    *out = sc;
    return 0;
}

void share_cluster_destroy(struct share_cluster *sc)
{
    if (!sc)
        return;
    free(sc->nodes);
    free(sc->gpu_block);
    free(sc);
}

void share_node_set_host(struct share_node *n, int64_t cpu_milli,
                         double mem_mib)
{
    n->cpu_cap = n->cpu_free = cpu_milli;
    n->mem_cap = n->mem_free = mem_mib;
    n->version++;
}

int share_demand_valid(const struct share_demand *d)
{
    if (d->num_gpus < 1 || d->num_gpus > SHARE_MAX_NODE_GPUS ||
        d->gpu_milli < 1 || d->gpu_milli > SHARE_MILLI)
        return 0;
    if (d->num_gpus > 1 && d->gpu_milli != SHARE_MILLI)
        return 0;
    return d->cpu_milli >= 0 && d->memory_mib >= 0;
}

/* Type, CPU and memory: everything but the GPUs. */
static int host_fits(const struct share_node *n, const struct share_demand *d)
{
    if (d->allowed && !(d->allowed >> n->gpu_type & 1u))
        return 0;
    if (n->cpu_cap > 0 && d->cpu_milli > n->cpu_free)
        return 0;
    return !(n->mem_cap > 0 && d->memory_mib > n->mem_free);
}

int share_gpu_fits(const struct share_node *n, const struct share_demand *d,
                   int32_t g)
{
    return n->gpu_free[g] >= d->gpu_milli;
}

int share_fits(const struct share_node *n, const struct share_demand *d)
{
    int32_t whole = 0;
    if (!host_fits(n, d))
        return 0;
    for (int32_t g = 0; g < n->gpus; g++) {
        if (d->gpu_milli < SHARE_MILLI && n->gpu_free[g] >= d->gpu_milli)
            return 1;
        whole += n->gpu_free[g] == SHARE_MILLI;
    }
    return d->gpu_milli == SHARE_MILLI && whole >= d->num_gpus;
}

int share_whole_gpus(const struct share_node *n, const struct share_demand *d,
                     uint64_t *mask)
{
    int32_t need = d->num_gpus;
    *mask = 0;
    for (int32_t g = 0; g < n->gpus && need > 0; g++) {
        if (n->gpu_free[g] == SHARE_MILLI) {
            *mask |= (uint64_t)1 << g;
            need--;
        }
    }
    return need > 0;
}

/* Adds SIGN x D's resources back to N's free ones (-1 takes them). */
static void node_add(struct share_node *n, const struct share_demand *d,
                     const struct share_alloc *a, int sign)
{
    n->version++;
    n->cpu_free += sign * d->cpu_milli;
    n->mem_free += sign * d->memory_mib;
    if (a->gpu >= 0) {
        n->gpu_free[a->gpu] += sign * d->gpu_milli;
        SIM_ASSERT(n->gpu_free[a->gpu] >= 0 &&
                   n->gpu_free[a->gpu] <= SHARE_MILLI);
        return;
    }
    for (int32_t g = 0; g < n->gpus; g++) {
        if (a->mask >> g & 1u) {
            n->gpu_free[g] += sign * SHARE_MILLI;
            SIM_ASSERT(n->gpu_free[g] == 0 || n->gpu_free[g] == SHARE_MILLI);
        }
    }
}

void share_node_take(struct share_node *n, const struct share_demand *d,
                     const struct share_alloc *a)
{
    node_add(n, d, a, -1);
}

void share_node_give(struct share_node *n, const struct share_demand *d,
                     const struct share_alloc *a)
{
    node_add(n, d, a, 1);
}

void share_take(struct share_cluster *sc, const struct share_demand *d,
                const struct share_alloc *a)
{
    share_node_take(&sc->nodes[a->node], d, a);
    sc->used_milli += (int64_t)d->num_gpus * d->gpu_milli;
}

void share_give(struct share_cluster *sc, const struct share_demand *d,
                const struct share_alloc *a)
{
    share_node_give(&sc->nodes[a->node], d, a);
    sc->used_milli -= (int64_t)d->num_gpus * d->gpu_milli;
}
