/* frag.c -- GPU fragmentation as defined by FGD (Weng et al., "Beware of
 * Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
 * Gradient Descent", USENIX ATC'23, section 3.2).
 *
 * Fragmentation is not a property of a node alone but of a node and the
 * tasks that will ask for it. For one task m with GPU demand D (a share
 * below 1 GPU, or a whole number of GPUs) and a node n whose GPUs have
 * R_g unallocated (0..1 each):
 *   - case 1, m cannot run on n (wrong GPU model, too little CPU or
 *     memory, no GPU with R_g >= D for a share, fewer than D fully free
 *     GPUs for whole GPUs): every unallocated GPU share of n is a
 *     fragment, F_n(m) = sum_g R_g;
 *   - case 2, m can run on n: the fragments are the GPUs too small for it,
 *     F_n(m) = sum of R_g over the g with R_g < min(D, 1).
 * Against a target workload M, a distribution of task types m with
 * popularity p_m, the node's fragmentation is the expectation
 * F_n(M) = sum_m p_m F_n(m): the unallocated GPU that a task drawn from M
 * could not use. The cluster's is the sum over its nodes. (The paper also
 * counts all of a node's free GPUs as fragments for tasks that ask for no
 * GPU; our traces drop CPU-only pods, so every type here asks for one.)
 * Values are in milli-GPU. */
#include "sim_internal.h"

#include <string.h>

double share_task_frag(const struct share_node *n, const struct share_demand *d)
{
    int64_t all = 0, small = 0;
    int32_t need = d->gpu_milli; /* min(D, 1), in milli */
    for (int32_t g = 0; g < n->gpus; g++) {
        all += n->gpu_free[g];
        if (n->gpu_free[g] < need)
            small += n->gpu_free[g];
    }
    return (double)(share_fits(n, d) ? small : all);
}

double share_node_frag(const struct share_node *n,
                       const struct share_workload *w)
{
    double f = 0;
    for (size_t i = 0; i < w->n; i++)
        f += w->weight[i] * share_task_frag(n, &w->types[i]);
    return f;
}

double share_cluster_frag(const struct share_cluster *sc,
                          const struct share_workload *w)
{
    double f = 0;
    for (int32_t i = 0; i < sc->nnodes; i++)
        f += share_node_frag(&sc->nodes[i], w);
    return f;
}

static int same_demand(const struct share_demand *a,
                       const struct share_demand *b)
{
    return a->cpu_milli == b->cpu_milli && a->memory_mib == b->memory_mib &&
           a->num_gpus == b->num_gpus && a->gpu_milli == b->gpu_milli &&
           a->allowed == b->allowed;
}

int share_workload_build(const struct share_demand *pods, size_t n,
                         struct share_workload **out)
{
    struct share_workload *w = calloc(1, sizeof *w);
    size_t *count = NULL;
    *out = NULL;
    if (!w)
        return SIM_ENOMEM;
    if (n == 0) {
        free(w);
        return SIM_EINVAL;
    }
    w->types = malloc(n * sizeof *w->types);
    w->weight = malloc(n * sizeof *w->weight);
    count = calloc(n, sizeof *count);
    if (!w->types || !w->weight || !count) {
        free(count);
        share_workload_destroy(w);
        return SIM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size_t t = 0;
        if (!share_demand_valid(&pods[i])) {
            free(count);
            share_workload_destroy(w);
            return SIM_EINVAL;
        }
        /* Types are few (tens) next to pods; a linear scan will do. */
        while (t < w->n && !same_demand(&w->types[t], &pods[i]))
            t++;
        if (t == w->n)
            w->types[w->n++] = pods[i];
        count[t]++;
    }
    for (size_t t = 0; t < w->n; t++)
        w->weight[t] = (double)count[t] / (double)n;
    free(count);
    *out = w;
    return 0;
}

void share_workload_destroy(struct share_workload *w)
{
    if (!w)
        return;
    free(w->types);
    free(w->weight);
    free(w);
}
