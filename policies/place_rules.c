/* place_rules.c -- the placement rules besides `fastest`: consolidate,
 * first-fit, best-fit and random (contracts in policy.h, pol_place).
 *
 * What they cost. A type is rejected in O(log nodes) (sim_find_node,
 * sim_free_gpus), so a job that fits nowhere, the common case of a blocked
 * queue head, costs O(types log nodes). A placement that succeeds reads the
 * nodes of the types it weighs: first-fit on one node O(log nodes);
 * best-fit and consolidate on one node O(nodes of the type), starting at
 * the first node with room and stopping at one the job fills exactly;
 * random O(nodes of the chosen type); a spread O(nodes + GPUs per node) per
 * type weighed (a counting sort by free GPUs). Measured: a million jobs of
 * 1 to 16 GPUs on 1,008 GPUs of three types in 168 nodes replay under FIFO
 * in 0.8 to 1.5 s with any rule (random is the slowest). The engine keeps
 * no index of nodes by free count (only the max segment tree behind
 * sim_find_node), so clusters beyond a few thousand nodes would want one
 * there (nodes bucketed by free count) to make best-fit and consolidate
 * O(GPUs per node) per start. */
#include <limits.h>
#include <string.h>

#include "place_internal.h"

/* A node of type T with room for job J now, T is one the placer allows
 * it (pl->allowed), and its class runs there. */
static int fits_one_node(const struct pol_placer *pl, const struct sim *s,
                         const struct sim_class_spec *cl,
                         const struct sim_job *j, int32_t t)
{
    return (pl->allowed & (1u << t)) && cl->unit_s[t] > 0 &&
           sim_find_node(s, t, j->num_gpus) >= 0;
}

/* J can be spread over nodes of type T now: its class runs there spread,
 * the type has its GPUs free, and no single node of it has room. */
static int fits_spread(const struct pol_placer *pl, const struct sim *s,
                       const struct sim_class_spec *cl,
                       const struct sim_job *j, int32_t t)
{
    return (pl->allowed & (1u << t)) && cl->spread_unit_s[t] > 0 &&
           j->num_gpus > 1 && sim_free_gpus(s, t) >= j->num_gpus &&
           sim_find_node(s, t, j->num_gpus) < 0;
}

/* The node of type T with the fewest free GPUs that still holds NEED, ties
 * to the lowest index; *left receives what it keeps free. Some node must
 * have room. */
static int32_t tightest_node(const struct sim *s, int32_t t, int32_t need,
                             int32_t *left)
{
    int32_t count, lo = 0, best = sim_find_node(s, t, need);
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    int32_t hi = count;
    while (lo < hi) { /* nodes before the first with room have none */
        int32_t mid = lo + (hi - lo) / 2;
        if (nodes[mid] < best)
            lo = mid + 1;
        else
            hi = mid;
    }
    int32_t best_left = sim_node_free(s, best) - need;
    for (int32_t i = lo + 1; i < count && best_left > 0; i++) {
        int32_t l = sim_node_free(s, nodes[i]) - need;
        if (l >= 0 && l < best_left) {
            best = nodes[i];
            best_left = l;
        }
    }
    *left = best_left;
    return best;
}

/* Puts the nodes of type T that have free GPUs into pl->order, most free
 * first (DESC) or fewest first, ties by index; returns how many. */
static int32_t sort_by_free(struct pol_placer *pl, const struct sim *s,
                            int32_t t, int desc)
{
    int32_t count, max = pl->most_per_node[t];
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    int32_t *start = pl->count; /* (max + 1) slots in use */
    memset(start, 0, ((size_t)max + 1) * sizeof *start);
    for (int32_t i = 0; i < count; i++) {
        int32_t f = sim_node_free(s, nodes[i]);
        if (f > 0)
            start[(desc ? max - f : f - 1) + 1]++;
    }
    for (int32_t k = 1; k <= max; k++)
        start[k] += start[k - 1];
    int32_t n = start[max];
    for (int32_t i = 0; i < count; i++) {
        int32_t f = sim_node_free(s, nodes[i]);
        if (f > 0)
            pl->order[start[desc ? max - f : f - 1]++] = nodes[i];
    }
    return n;
}

/* Takes the first nodes of pl->order, each as far as it goes, until NEED
 * GPUs are found (they are there); the number of segments. */
static int32_t fill(struct pol_placer *pl, const struct sim *s, int32_t need)
{
    int32_t nseg = 0;
    for (int32_t i = 0; need > 0; i++) {
        int32_t f = sim_node_free(s, pl->order[i]);
        int32_t take = f < need ? f : need;
        pl->segs[nseg++] = (struct sim_seg){pl->order[i], take};
        need -= take;
    }
    return nseg;
}

static int one_node(struct pol_placer *pl, int32_t t, int32_t node,
                    int32_t need, struct sim_placement *out)
{
    pl->segs[0] = (struct sim_seg){node, need};
    *out = (struct sim_placement){t, 1, pl->segs, NULL};
    return 0;
}

int pol_place_consolidate(struct pol_placer *pl, const struct sim *s,
                          uint32_t job, struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    const struct ranking *r = pol_place_ranking(pl, s, j->job_class);
    int32_t need = j->num_gpus, left;
    if (!r)
        return SIM_ENOMEM;
    for (int32_t i = 0; i < r->ncand; i++) { /* fastest type first */
        int32_t t = r->cand[i].type;
        if (!r->cand[i].spread && fits_one_node(pl, s, cl, j, t))
            return one_node(pl, t, tightest_node(s, t, need, &left), need,
                            out);
    }
    int32_t best = -1, best_nodes = INT32_MAX;
    for (int32_t i = 0; i < r->ncand; i++) {
        int32_t t = r->cand[i].type;
        if (!r->cand[i].spread || !fits_spread(pl, s, cl, j, t))
            continue;
        int32_t n = sort_by_free(pl, s, t, 1), k = 0;
        for (int32_t got = 0; k < n && got < need; k++)
            got += sim_node_free(s, pl->order[k]);
        if (k < best_nodes) {
            best = t;
            best_nodes = k;
        }
    }
    if (best < 0)
        return 1;
    sort_by_free(pl, s, best, 1);
    *out = (struct sim_placement){best, fill(pl, s, need), pl->segs, NULL};
    return 0;
}

int pol_place_first_fit(struct pol_placer *pl, const struct sim *s,
                        uint32_t job, struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    int32_t need = j->num_gpus;
    for (int32_t t = 0; t < pl->cluster->ntypes; t++)
        if (fits_one_node(pl, s, cl, j, t))
            return one_node(pl, t, sim_find_node(s, t, need), need, out);
    for (int32_t t = 0; t < pl->cluster->ntypes; t++) {
        if (!fits_spread(pl, s, cl, j, t))
            continue;
        int32_t nseg = pol_place_spread_in_order(pl, s, t, need);
        *out = (struct sim_placement){t, nseg, pl->segs, NULL};
        return 0;
    }
    return 1;
}

int pol_place_best_fit(struct pol_placer *pl, const struct sim *s,
                       uint32_t job, struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    const struct ranking *r = pol_place_ranking(pl, s, j->job_class);
    int32_t need = j->num_gpus, best = -1, node = -1, best_left = INT32_MAX;
    if (!r)
        return SIM_ENOMEM;
    for (int32_t i = 0; i < r->ncand && best_left > 0; i++) {
        int32_t t = r->cand[i].type, left;
        if (r->cand[i].spread || !fits_one_node(pl, s, cl, j, t))
            continue;
        int32_t n = tightest_node(s, t, need, &left);
        if (left < best_left) { /* ties stay with the faster type */
            best = t;
            node = n;
            best_left = left;
        }
    }
    if (best >= 0)
        return one_node(pl, best, node, need, out);
    for (int32_t i = 0; i < r->ncand; i++) {
        int32_t t = r->cand[i].type;
        if (!r->cand[i].spread || !fits_spread(pl, s, cl, j, t))
            continue;
        if (sim_free_gpus(s, t) - need < best_left) {
            best = t;
            best_left = sim_free_gpus(s, t) - need;
        }
    }
    if (best < 0)
        return 1;
    sort_by_free(pl, s, best, 0);
    *out = (struct sim_placement){best, fill(pl, s, need), pl->segs, NULL};
    return 0;
}

static int32_t draw(struct pol_placer *pl, int32_t n)
{
    return (int32_t)gsl_rng_uniform_int(pl->rng, (unsigned long)n);
}

/* A uniformly random node of type T with room for NEED. */
static int32_t random_node(struct pol_placer *pl, const struct sim *s,
                           int32_t t, int32_t need)
{
    int32_t count, n = 0;
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    for (int32_t i = 0; i < count; i++)
        if (sim_node_free(s, nodes[i]) >= need)
            pl->order[n++] = nodes[i];
    return pl->order[draw(pl, n)];
}

/* Nodes of type T with free GPUs in a uniformly random order (a
 * Fisher-Yates shuffle, drawn only as far as needed), each filled as far
 * as it goes until NEED GPUs are found; the number of segments. */
static int32_t random_spread(struct pol_placer *pl, const struct sim *s,
                             int32_t t, int32_t need)
{
    int32_t count, n = 0, nseg = 0;
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    for (int32_t i = 0; i < count; i++)
        if (sim_node_free(s, nodes[i]) > 0)
            pl->order[n++] = nodes[i];
    for (int32_t i = 0; need > 0; i++) {
        int32_t k = i + draw(pl, n - i), node = pl->order[k];
        pl->order[k] = pl->order[i];
        pl->order[i] = node;
        int32_t f = sim_node_free(s, node);
        int32_t take = f < need ? f : need;
        pl->segs[nseg++] = (struct sim_seg){node, take};
        need -= take;
    }
    return nseg;
}

int pol_place_random(struct pol_placer *pl, const struct sim *s, uint32_t job,
                     struct sim_placement *out)
{
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    int32_t need = j->num_gpus, n = 0;
    int32_t types[SIM_MAX_GPU_TYPES];
    int one[SIM_MAX_GPU_TYPES];
    for (int32_t t = 0; t < pl->cluster->ntypes; t++) {
        one[n] = fits_one_node(pl, s, cl, j, t);
        if (one[n] || fits_spread(pl, s, cl, j, t))
            types[n++] = t;
    }
    if (n == 0)
        return 1;
    int32_t k = draw(pl, n), t = types[k];
    if (one[k])
        return one_node(pl, t, random_node(pl, s, t, need), need, out);
    *out = (struct sim_placement){t, random_spread(pl, s, t, need), pl->segs, NULL};
    return 0;
}
