/* freemap.c -- free GPUs of one type, as a max tree over its nodes.
 *
 * Placement asks "the lowest-numbered node with at least k free GPUs" once
 * per started job; a linear scan would cost O(nodes) on a busy cluster.
 * The tree is 8-ary (a node's children are 8 i + 1 .. 8 i + 8, the root is
 * 0, the leaves the last level): a descent compares the 8 children of a
 * node at once and takes the first that holds enough, so 1,000 nodes are 4
 * levels, not 10 levels of a data-dependent branch each. */
#include "sim_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define ARITY 8

/* Bit k set when CHILD[k] >= NEED, for the 8 children of one node. */
static unsigned children_fitting(const int32_t *child, int32_t need)
{
#if defined(__SSE2__)
    if (need > INT32_MIN) { /* >= need is > need - 1 */
        __m128i below = _mm_set1_epi32(need - 1);
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)child);
        __m128i hi =
            _mm_loadu_si128((const __m128i *)(const void *)(child + 4));
        unsigned a = (unsigned)_mm_movemask_ps(
            _mm_castsi128_ps(_mm_cmpgt_epi32(lo, below)));
        unsigned b = (unsigned)_mm_movemask_ps(
            _mm_castsi128_ps(_mm_cmpgt_epi32(hi, below)));
        return a | b << 4;
    }
#endif
    unsigned fits = 0;
    for (int k = 0; k < ARITY; k++)
        fits |= (unsigned)(child[k] >= need) << k;
    return fits;
}

int sim_freemap_init(struct sim_freemap *m, const struct cluster *c,
                     int32_t gpu_type)
{
    int32_t n = 0;
    for (int32_t i = 0; i < c->nnodes; i++)
        n += c->nodes[i].gpu_type == gpu_type;
    int32_t size = 1, inner = 0; /* leaves, and the nodes above them */
    while (size < n) {
        inner += size;
        size *= ARITY;
    }
    m->nodes = malloc((size_t)(n > 0 ? n : 1) * sizeof *m->nodes);
    m->tree = calloc((size_t)inner + (size_t)size, sizeof *m->tree);
    if (!m->nodes || !m->tree) {
        sim_freemap_free(m);
        return SIM_ENOMEM;
    }
    m->n = n;
    m->size = inner; /* index of the first leaf */
    m->free_total = 0;
    int32_t leaf = 0;
    for (int32_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].gpu_type != gpu_type)
            continue;
        m->nodes[leaf] = i;
        m->tree[inner + leaf] = c->nodes[i].gpus;
        m->free_total += c->nodes[i].gpus;
        leaf++;
    }
    for (int32_t i = inner - 1; i >= 0; i--) {
        int32_t max = 0;
        for (int32_t k = 1; k <= ARITY; k++)
            if (m->tree[ARITY * i + k] > max)
                max = m->tree[ARITY * i + k];
        m->tree[i] = max;
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
    if (m->n == 0 || m->tree[0] < need)
        return -1;
    int32_t i = 0;
    while (i < m->size) { /* some child holds need: its parent's max does */
        unsigned fits = children_fitting(&m->tree[ARITY * i + 1], need);
        i = ARITY * i + 1 + __builtin_ctz(fits);
    }
    return i - m->size;
}

void sim_freemap_set(struct sim_freemap *m, int32_t leaf, int32_t value)
{
    int32_t i = m->size + leaf, old = m->tree[i];
    m->free_total += value - old;
    m->tree[i] = value;
    /* A child went from OLD to VALUE under a parent holding the maximum
     * TOP of its children: at or above TOP, VALUE is the new maximum;
     * below it, the maximum changes only if OLD was it (then the children
     * are compared). An ancestor whose maximum does not change leaves the
     * ones above it as they are: stop there. */
    while (i > 0) {
        i = (i - 1) / ARITY;
        int32_t top = m->tree[i], max = value;
        if (value < top) {
            if (old < top) /* another child holds the maximum */
                break;
            const int32_t *child = &m->tree[ARITY * i + 1];
            max = child[0];
            for (int k = 1; k < ARITY; k++)
                max = child[k] > max ? child[k] : max;
        }
        if (max == top)
            break;
        m->tree[i] = max;
        old = top;
        value = max;
    }
}
