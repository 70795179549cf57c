/* freemap.c -- free GPUs of one type, as a max segment tree over its nodes.
 *
 * Placement asks "the lowest-numbered node with at least k free GPUs" once
 * per started job; a linear scan would cost O(nodes) on a busy cluster. */
#include "sim_internal.h"

int sim_freemap_init(struct sim_freemap *m, const struct cluster *c,
                     int32_t gpu_type)
{
    int32_t n = 0;
    for (int32_t i = 0; i < c->nnodes; i++)
        n += c->nodes[i].gpu_type == gpu_type;
    int32_t size = 1;
    while (size < n)
        size *= 2;
    m->nodes = malloc((size_t)(n > 0 ? n : 1) * sizeof *m->nodes);
    m->tree = calloc(2 * (size_t)size, sizeof *m->tree);
    if (!m->nodes || !m->tree) {
        sim_freemap_free(m);
        return SIM_ENOMEM;
    }
    m->n = n;
    m->size = size;
    m->free_total = 0;
    int32_t leaf = 0;
    for (int32_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].gpu_type != gpu_type)
            continue;
        m->nodes[leaf] = i;
        m->tree[size + leaf] = c->nodes[i].gpus;
        m->free_total += c->nodes[i].gpus;
        leaf++;
    }
    for (int32_t i = size - 1; i >= 1; i--) {
        int32_t l = m->tree[2 * i], r = m->tree[2 * i + 1];
        m->tree[i] = l > r ? l : r;
    }
    return 0;
}

void sim_freemap_free(struct sim_freemap *m)
{
    free(m->nodes);
    free(m->tree);
    m->nodes = NULL;
    m->tree = NULL;
}

int32_t sim_freemap_find(const struct sim_freemap *m, int32_t need)
{
    if (m->n == 0 || m->tree[1] < need)
        return -1;
    int32_t i = 1;
    /* Without a branch: which child holds the node is data, and a mispredicted
     * branch per level cost more than the descent itself. */
    while (i < m->size)
        i = 2 * i + (m->tree[2 * i] < need);
    return i - m->size;
}

void sim_freemap_set(struct sim_freemap *m, int32_t leaf, int32_t value)
{
    int32_t i = m->size + leaf;
    m->free_total += value - m->tree[i];
    m->tree[i] = value;
    /* An ancestor whose maximum does not change leaves the ones above it
     * as they are: stop there (most updates end a level or two up). */
    for (i /= 2; i >= 1; i /= 2) {
        int32_t l = m->tree[2 * i], r = m->tree[2 * i + 1];
        int32_t max = l > r ? l : r;
        if (m->tree[i] == max)
            break;
        m->tree[i] = max;
    }
}
