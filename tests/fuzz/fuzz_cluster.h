/* fuzz_cluster.h -- the cluster fuzz target, shared by the harness
 * (tests/fuzz/fuzz_cluster.c) and the replay test of the sim suite
 * (tests/sim/test_cluster_fuzz_replay.c).
 *
 * cluster_parse gets a NUL-terminated copy of the input. On failure it must
 * return a SIM_E* code with a non-empty err.text and *out NULL. A cluster it
 * accepts must hold together (1..32 GPU types of positive finite memory and
 * speed, a reference type among them, nodes of a known type with 1..1024
 * GPUs, per-type and total GPU counts that add up, every type with GPUs,
 * spread_slowdown >= 1, names NUL-terminated), and sim_create must build an
 * engine on it. */
#ifndef HETSIM_FUZZ_CLUSTER_H
#define HETSIM_FUZZ_CLUSTER_H

#include "fuzz_input.h"
#include "sim.h"

#include <math.h>

static inline struct cluster *fuzz_cluster_sentinel(void)
{
    static struct cluster sentinel;
    return &sentinel;
}

static inline int fuzz_check_types(const struct cluster *c, char *why)
{
    int64_t gpus[SIM_MAX_GPU_TYPES] = {0}, total = 0;
    int32_t most[SIM_MAX_GPU_TYPES] = {0};
    for (int32_t i = 0; i < c->nnodes; i++) {
        const struct node *n = &c->nodes[i];
        if (n->gpu_type < 0 || n->gpu_type >= c->ntypes || n->gpus < 1 ||
            n->gpus > 1024)
            return fuzz_fail(why, "node %d: type %d, %d GPUs", (int)i,
                             (int)n->gpu_type, (int)n->gpus);
        gpus[n->gpu_type] += n->gpus;
        total += n->gpus;
        if (n->gpus > most[n->gpu_type])
            most[n->gpu_type] = n->gpus;
    }
    if (total != c->total_gpus)
        return fuzz_fail(why, "total_gpus %d, nodes hold %lld",
                         (int)c->total_gpus, (long long)total);
    for (int32_t t = 0; t < c->ntypes; t++) {
        const struct gpu_type *g = &c->types[t];
        if (!memchr(g->name, '\0', sizeof g->name) || g->name[0] == '\0')
            return fuzz_fail(why, "type %d: bad name", (int)t);
        if (!(isfinite(g->memory_mb) && g->memory_mb > 0 &&
              isfinite(g->speed) && g->speed > 0))
            return fuzz_fail(why, "type %s: memory_mb %g, speed %g", g->name,
                             g->memory_mb, g->speed);
        if (!isfinite(g->tflops_fp32) || !isfinite(g->tflops_fp16) ||
            !isfinite(g->mem_bw_gbs) || !isfinite(g->cost_per_hour))
            return fuzz_fail(why, "type %s: a fact is not finite", g->name);
        if (g->gpus != gpus[t] || g->max_per_node != most[t] || g->gpus < 1)
            return fuzz_fail(why,
                             "type %s: gpus %d max_per_node %d, nodes "
                             "hold %lld (at most %d on one)",
                             g->name, (int)g->gpus, (int)g->max_per_node,
                             (long long)gpus[t], (int)most[t]);
    }
    return 0;
}

/* A cluster that cluster_parse accepted. */
static inline int fuzz_check_cluster(const struct cluster *c, char *why)
{
    if (c->ntypes < 1 || c->ntypes > SIM_MAX_GPU_TYPES)
        return fuzz_fail(why, "%d GPU types", (int)c->ntypes);
    if (c->reference < 0 || c->reference >= c->ntypes)
        return fuzz_fail(why, "reference type %d of %d", (int)c->reference,
                         (int)c->ntypes);
    if (c->nnodes < 1 || c->nodes == NULL)
        return fuzz_fail(why, "%d nodes", (int)c->nnodes);
    if (!memchr(c->name, '\0', sizeof c->name) ||
        !memchr(c->throughputs, '\0', sizeof c->throughputs))
        return fuzz_fail(why, "name or throughputs not NUL-terminated");
    if (!(isfinite(c->spread_slowdown) && c->spread_slowdown >= 1))
        return fuzz_fail(why, "spread_slowdown %g", c->spread_slowdown);
    return fuzz_check_types(c, why);
}

/* Parses data[0..size) as cluster JSON; builds and frees an engine on what
 * it accepts. 0, or -1 with the broken invariant in why. */
static inline int fuzz_cluster(const uint8_t *data, size_t size, char *why)
{
    struct sim_error err;
    struct cluster *c = fuzz_cluster_sentinel();
    char *text = malloc(size + 1);
    int bad = 0;
    if (!text)
        return fuzz_fail(why, "out of memory copying %zu bytes", size);
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    memset(&err, 0, sizeof err);
    int rc = cluster_parse(text, "fuzz.json", &c, &err);
    free(text);
    if (rc != 0) {
        if (rc < SIM_ENOTFOUND || rc > SIM_EIO)
            return fuzz_fail(why, "returned %d, not a SIM_E* code", rc);
        if (c != NULL)
            return fuzz_fail(why, "failed with %d but *out is not NULL", rc);
        if (!fuzz_text_ok(err.text, sizeof err.text))
            return fuzz_fail(why, "failed with %d and an empty err.text", rc);
        return 0;
    }
    if (c == NULL || c == fuzz_cluster_sentinel())
        return fuzz_fail(why, "returned 0 without a cluster in *out");
    bad = fuzz_check_cluster(c, why);
    if (!bad) {
        struct sim *s = sim_create(c, (uint64_t)size);
        if (!s)
            bad = fuzz_fail(why, "sim_create refused a parsed cluster");
        sim_destroy(s);
    }
    cluster_destroy(c);
    return bad;
}

#endif
