/* share_place.c -- placing pods on shared GPUs: fgd, best-fit, dot-product,
 * first-fit and random (contracts in policy.h, pol_share_place).
 *
 * Every rule weighs candidates (node, GPU): for a share, each GPU of a node
 * that holds it; for whole GPUs, one candidate per node (its lowest free
 * GPUs, which are interchangeable). Candidates are scored and the best
 * kept, ties to the first seen, so to the lowest node and GPU. For a share,
 * GPUs of one node with the same free amount give the same score under
 * every rule, so only the first of each amount is weighed.
 *
 * Cost per pod: O(nodes x GPUs) for the scoring rules; fgd adds the
 * fragmentation of each candidate, O(types x GPUs) (frag.c). fgd keeps, per
 * node and task type of its workload, the node's best candidate until the
 * node changes (share_node.version), so a pod of a type seen before weighs
 * again only the nodes changed since; tests/policies/test_share_place.c
 * checks it against a naive search of the whole cluster. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "policies_internal.h"

/* fgd's memo: the best candidate of one node for one task type of the
 * workload, valid while the node's version is unchanged. */
struct memo {
    uint32_t version, valid;
    double score; /* INFINITY: the node cannot host the type */
    struct share_alloc alloc;
};

/* Memos beyond this many entries (nodes x types) are not kept. */
#define MEMO_MAX_ENTRIES ((size_t)1 << 22)

struct pol_sharer {
    enum pol_share_rule rule;
    const struct share_workload *w;
    gsl_rng *rng;
    double before;     /* fgd: the weighed node's fragmentation */
    struct memo *memo; /* (nnodes x w->n) or NULL */
    const struct share_cluster *memo_of;
    int32_t memo_nodes;
};

static const char *const rule_names[POL_SHARE_COUNT] = {
    "fgd", "best-fit", "dot-product", "first-fit", "random"};

const char *pol_share_rule_name(enum pol_share_rule r)
{
    return r < POL_SHARE_COUNT ? rule_names[r] : "?";
}

int pol_share_rule_parse(const char *name)
{
    for (int r = 0; r < POL_SHARE_COUNT; r++)
        if (strcmp(name, rule_names[r]) == 0)
            return r;
    return -1;
}

struct pol_sharer *pol_sharer_create(enum pol_share_rule rule,
                                     const struct share_workload *w,
                                     uint64_t seed)
{
    struct pol_sharer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->rule = rule;
    p->w = w;
    if (rule == POL_SHARE_RANDOM) {
        if (!(p->rng = gsl_rng_alloc(gsl_rng_mt19937))) {
            free(p);
            return NULL;
        }
        gsl_rng_set(p->rng, (unsigned long)(seed ^ 0x5ba4edu));
    }
    return p;
}

void pol_sharer_destroy(struct pol_sharer *p)
{
    if (!p)
        return;
    free(p->memo);
    gsl_rng_free(p->rng);
    free(p);
}

/* fgd: how much N's fragmentation grows when D lands on GPU G (or on the
 * whole GPUs of MASK). Only N changes, so the cluster's grows as much. */
static double frag_growth(const struct pol_sharer *p,
                          const struct share_node *n,
                          const struct share_demand *d, int32_t g,
                          uint64_t mask)
{
    int32_t free_after[SHARE_MAX_NODE_GPUS];
    struct share_node after = *n;
    struct share_alloc a = {0, g, mask};
    memcpy(free_after, n->gpu_free, (size_t)n->gpus * sizeof *free_after);
    after.gpu_free = free_after;
    share_node_take(&after, d, &a);
    return share_node_frag(&after, p->w) - p->before;
}

/* Free over capacity of one modelled dimension (0 when not modelled). */
static double share_of(double free, double cap)
{
    return cap > 0 ? free / cap : 0;
}

static double gpu_free_total(const struct share_node *n)
{
    int64_t f = 0;
    for (int32_t g = 0; g < n->gpus; g++)
        f += n->gpu_free[g];
    return (double)f;
}

/* best-fit: what N keeps free once D is placed, summed over dimensions;
 * the GPU within the node counts for the tie-break only (see below). */
static double leftover(const struct share_node *n, const struct share_demand *d)
{
    double gpu_cap = (double)n->gpus * SHARE_MILLI;
    double want = (double)d->num_gpus * d->gpu_milli;
    return share_of((double)(n->cpu_free - d->cpu_milli), (double)n->cpu_cap) +
           share_of(n->mem_free - d->memory_mib, n->mem_cap) +
           (gpu_free_total(n) - want) / gpu_cap;
}

/* dot-product: demand . free, each over capacity, GPU term by candidate. */
static double alignment(const struct share_node *n,
                        const struct share_demand *d, int32_t g)
{
    double gpu;
    if (g >= 0)
        gpu = (double)d->gpu_milli / SHARE_MILLI *
              ((double)n->gpu_free[g] / SHARE_MILLI);
    else
        gpu = (double)d->num_gpus / n->gpus *
              (gpu_free_total(n) / ((double)n->gpus * SHARE_MILLI));
    return share_of((double)d->cpu_milli, (double)n->cpu_cap) *
               share_of((double)n->cpu_free, (double)n->cpu_cap) +
           share_of(d->memory_mib, n->mem_cap) *
               share_of(n->mem_free, n->mem_cap) +
           gpu;
}

/* The score of candidate (N, G or MASK), lower is better, and *tie, the
 * key that orders equal scores (the tightest GPU, for best-fit). */
static double score(const struct pol_sharer *p, const struct share_node *n,
                    const struct share_demand *d, int32_t g, uint64_t mask,
                    double *tie)
{
    *tie = 0;
    switch (p->rule) {
    case POL_SHARE_FGD: return frag_growth(p, n, d, g, mask);
    case POL_SHARE_BEST_FIT:
        if (g >= 0)
            *tie = n->gpu_free[g] - d->gpu_milli;
        return leftover(n, d);
    case POL_SHARE_DOT_PRODUCT: return -alignment(n, d, g);
    default: return 0; /* first-fit: the first candidate wins every tie */
    }
}

/* Whether GPU G of N is the first of its free amount among N's GPUs. */
static int first_of_amount(const struct share_node *n, int32_t g)
{
    for (int32_t k = 0; k < g; k++)
        if (n->gpu_free[k] == n->gpu_free[g])
            return 0;
    return 1;
}

/* Keeps candidate (I, G, MASK) if it beats *best. */
static void consider(const struct pol_sharer *p, const struct share_node *n,
                     const struct share_demand *d, int32_t i, int32_t g,
                     uint64_t mask, double best[2], struct share_alloc *out)
{
    double tie, v = score(p, n, d, g, mask, &tie);
    if (out->node < 0 || v < best[0] || (v == best[0] && tie < best[1])) {
        best[0] = v;
        best[1] = tie;
        *out = (struct share_alloc){i, g, mask};
    }
}

/* The best candidate on node I, against BEST (updated with *out). */
static void weigh_node(struct pol_sharer *p, const struct share_cluster *sc,
                       int32_t i, const struct share_demand *d, double best[2],
                       struct share_alloc *out)
{
    const struct share_node *n = &sc->nodes[i];
    if (p->rule == POL_SHARE_FGD)
        p->before = share_node_frag(n, p->w);
    if (d->gpu_milli == SHARE_MILLI) {
        uint64_t mask;
        share_whole_gpus(n, d, &mask);
        consider(p, n, d, i, -1, mask, best, out);
        return;
    }
    for (int32_t g = 0; g < n->gpus; g++)
        if (share_gpu_fits(n, d, g) && first_of_amount(n, g))
            consider(p, n, d, i, g, 0, best, out);
}

/* random: the K-th node that can host D, then a random GPU there. */
static int place_random(struct pol_sharer *p, const struct share_cluster *sc,
                        const struct share_demand *d, struct share_alloc *out)
{
    int32_t hosts = 0, pick, fits = 0;
    for (int32_t i = 0; i < sc->nnodes; i++)
        hosts += share_fits(&sc->nodes[i], d);
    if (!hosts)
        return 1;
    pick = (int32_t)gsl_rng_uniform_int(p->rng, (unsigned long)hosts);
    for (int32_t i = 0;; i++) {
        const struct share_node *n = &sc->nodes[i];
        if (!share_fits(n, d) || pick-- > 0)
            continue;
        *out = (struct share_alloc){i, -1, 0};
        if (d->gpu_milli == SHARE_MILLI)
            return share_whole_gpus(n, d, &out->mask);
        for (int32_t g = 0; g < n->gpus; g++)
            fits += share_gpu_fits(n, d, g);
        pick = (int32_t)gsl_rng_uniform_int(p->rng, (unsigned long)fits);
        for (int32_t g = 0;; g++) {
            if (share_gpu_fits(n, d, g) && pick-- == 0) {
                out->gpu = g;
                return 0;
            }
        }
    }
}

/* The index of D among the workload's types, or -1. */
static long type_of(const struct share_workload *w,
                    const struct share_demand *d)
{
    for (size_t t = 0; w && t < w->n; t++) {
        const struct share_demand *x = &w->types[t];
        if (x->cpu_milli == d->cpu_milli && x->memory_mib == d->memory_mib &&
            x->num_gpus == d->num_gpus && x->gpu_milli == d->gpu_milli &&
            x->allowed == d->allowed)
            return (long)t;
    }
    return -1;
}

/* The memo row of type T on SC, made or reset when SC is another cluster;
 * NULL when it would be too big or memory is short (fgd then weighs every
 * node anew). The cost this saves: between two pods of one type only the
 * nodes that changed are weighed again. */
static struct memo *memo_row(struct pol_sharer *p,
                             const struct share_cluster *sc, long t)
{
    size_t n = (size_t)sc->nnodes * p->w->n;
    if (t < 0 || n == 0 || n > MEMO_MAX_ENTRIES)
        return NULL;
    if (p->memo_of != sc || p->memo_nodes != sc->nnodes) {
        free(p->memo);
        p->memo = calloc(n, sizeof *p->memo);
        p->memo_of = p->memo ? sc : NULL;
        p->memo_nodes = p->memo ? sc->nnodes : 0;
    }
    return p->memo ? p->memo + (size_t)t * (size_t)sc->nnodes : NULL;
}

/* fgd with the memo: each node's best candidate, then the best node. */
static int place_fgd(struct pol_sharer *p, const struct share_cluster *sc,
                     const struct share_demand *d, struct memo *row,
                     struct share_alloc *out)
{
    double best = INFINITY;
    *out = (struct share_alloc){-1, -1, 0};
    for (int32_t i = 0; i < sc->nnodes; i++) {
        struct memo *m = &row[i];
        if (!m->valid || m->version != sc->nodes[i].version) {
            double b[2] = {INFINITY, INFINITY};
            m->alloc = (struct share_alloc){-1, -1, 0};
            if (share_fits(&sc->nodes[i], d))
                weigh_node(p, sc, i, d, b, &m->alloc);
            m->score = m->alloc.node < 0 ? INFINITY : b[0];
            m->version = sc->nodes[i].version;
            m->valid = 1;
        }
        if (m->alloc.node >= 0 && (out->node < 0 || m->score < best)) {
            best = m->score;
            *out = m->alloc;
        }
    }
    return out->node < 0;
}

int pol_share_place(struct pol_sharer *p, const struct share_cluster *sc,
                    const struct share_demand *d, struct share_alloc *out)
{
    double best[2] = {INFINITY, INFINITY};
    struct memo *row;
    if (p->rule == POL_SHARE_RANDOM)
        return place_random(p, sc, d, out);
    if (p->rule == POL_SHARE_FGD &&
        (row = memo_row(p, sc, type_of(p->w, d))) != NULL)
        return place_fgd(p, sc, d, row, out);
    *out = (struct share_alloc){-1, -1, 0};
    for (int32_t i = 0; i < sc->nnodes; i++) {
        if (!share_fits(&sc->nodes[i], d))
            continue;
        weigh_node(p, sc, i, d, best, out);
        if (p->rule == POL_SHARE_FIRST_FIT)
            break;
    }
    return out->node < 0;
}
