/* test_share_place.c -- where each sharing placement puts a pod, on the
 * hand-worked state of tests/sim/test_share.c. */
#include <math.h>

#include <criterion/criterion.h>

#include "../sim/fixtures.h"
#include "helpers.h"

static struct cluster *cl;
static struct share_cluster *sc;
static struct share_workload *w;

/* Workload m1 (half a GPU, 2 cores) .5, m2 (one GPU, 4 cores) .3, m3 (two
 * GPUs, 2 cores, type A) .2. Free milli-GPU per GPU and free CPU:
 *   node 0 (A): [300, 1000], 6000 of 8000;
 *   node 1 (A): [1000, 400, 0, 1000], 3000 of 16000;
 *   node 2 (B): [600, 1000], 8000 of 8000.
 * Fragmentation before (tests/sim/test_share.c): 500, 1000, 500. */
static void setup(void)
{
    static const struct share_demand m[3] = {
        {2000, 0, 1, 500, 0}, {4000, 0, 1, 1000, 0}, {2000, 0, 2, 1000, 1}};
    struct share_demand pods[10];
    cl = th_cluster(ts_three_nodes);
    cr_assert_eq(share_cluster_create(cl, &sc), 0);
    for (int i = 0; i < 10; i++)
        pods[i] = m[i < 5 ? 0 : i < 8 ? 1 : 2];
    cr_assert_eq(share_workload_build(pods, 10, &w), 0);
    share_node_set_host(&sc->nodes[0], 8000, 0);
    share_node_set_host(&sc->nodes[1], 16000, 0);
    share_node_set_host(&sc->nodes[2], 8000, 0);
    sc->nodes[0].gpu_free[0] = 300;
    sc->nodes[0].cpu_free = 6000;
    sc->nodes[1].gpu_free[1] = 400;
    sc->nodes[1].gpu_free[2] = 0;
    sc->nodes[1].cpu_free = 3000;
    sc->nodes[2].gpu_free[0] = 600;
}

static void teardown(void)
{
    share_workload_destroy(w);
    share_cluster_destroy(sc);
    cluster_destroy(cl);
}

TestSuite(share_place, .init = setup, .fini = teardown);

/* The pod: half a GPU, 1 core. */
static const struct share_demand half = {1000, 0, 1, 500, 0};

static struct share_alloc place(enum pol_share_rule rule,
                                const struct share_demand *d)
{
    struct pol_sharer *p = pol_sharer_create(rule, w, 1);
    struct share_alloc a;
    cr_assert_not_null(p);
    cr_assert_eq(pol_share_place(p, sc, d, &a), 0);
    pol_sharer_destroy(p);
    return a;
}

/* fgd, each candidate's fragmentation after (F = .5 m1 + .3 m2 + .2 m3):
 *   node 0 GPU 1 -> [300, 500], 5000 CPU: m1 300, m2 (no whole GPU) 800,
 *     m3 800: 150 + 240 + 160 = 550, growth +50;
 *   node 1 GPU 0 -> [500, 400, 0, 1000], 2000 CPU: m1 400, m2 (CPU) 1900,
 *     m3 (one whole GPU) 1900: 200 + 570 + 380 = 1150, growth +150;
 *   node 2 GPU 0 -> [100, 1000], 7000 CPU: m1 100, m2 100 (fits on GPU 1),
 *     m3 (type) 1100: 50 + 30 + 220 = 300, growth -200;
 *   node 2 GPU 1 -> [600, 500]: m1 0, m2 (no whole GPU) 1100, m3 1100:
 *     0 + 330 + 220 = 550, growth +50.
 * fgd takes node 2, GPU 0: it fills the part-used GPU. */
Test(share_place, fgd_takes_the_smallest_growth_of_fragmentation)
{
    struct share_alloc a = place(POL_SHARE_FGD, &half);
    cr_assert_eq(a.node, 2);
    cr_assert_eq(a.gpu, 0);
}

/* best-fit, leftover = CPU free/cap + GPU free/cap after the pod:
 *   node 0: 5000/8000 + 800/2000 = .625 + .4 = 1.025;
 *   node 1: 2000/16000 + 1900/4000 = .125 + .475 = .6;
 *   node 2: 7000/8000 + 1100/2000 = .875 + .55 = 1.425.
 * Node 1; there the tightest GPU that holds 500: GPU 0 (1000; the 400
 * does not hold it, GPU 3 ties and comes later). */
Test(share_place, best_fit_takes_the_node_left_with_the_least)
{
    struct share_alloc a = place(POL_SHARE_BEST_FIT, &half);
    cr_assert_eq(a.node, 1);
    cr_assert_eq(a.gpu, 0);
}

/* dot-product, (CPU ask/cap)(CPU free/cap) + (.5)(GPU free/1000):
 *   node 0 GPU 1: (1/8)(6/8) + .5 x 1 = .09375 + .5 = .59375;
 *   node 1 GPU 0: (1/16)(3/16) + .5 = .01171875 + .5 = .51171875;
 *   node 2 GPU 0: (1/8)(8/8) + .5 x .6 = .125 + .3 = .425;
 *   node 2 GPU 1: .125 + .5 = .625, the largest. */
Test(share_place, dot_product_takes_the_best_alignment)
{
    struct share_alloc a = place(POL_SHARE_DOT_PRODUCT, &half);
    cr_assert_eq(a.node, 2);
    cr_assert_eq(a.gpu, 1);
}

/* first-fit: node 0, whose GPU 0 (300) is too small: GPU 1. */
Test(share_place, first_fit_takes_the_first_gpu_that_holds_it)
{
    struct share_alloc a = place(POL_SHARE_FIRST_FIT, &half);
    cr_assert_eq(a.node, 0);
    cr_assert_eq(a.gpu, 1);
}

/* Two whole GPUs: only node 1 has two fully free (0 and 3). */
Test(share_place, whole_gpus_go_where_enough_are_fully_free)
{
    static const struct share_demand two = {2000, 0, 2, 1000, 0};
    for (int r = 0; r < POL_SHARE_COUNT; r++) {
        struct share_alloc a = place((enum pol_share_rule)r, &two);
        cr_assert_eq(a.node, 1, "%s", pol_share_rule_name(r));
        cr_assert_eq(a.gpu, -1);
        cr_assert_eq(a.mask, (1u << 0) | (1u << 3));
    }
}

Test(share_place, a_pod_no_node_can_host_is_refused)
{
    static const struct share_demand big = {17000, 0, 1, 100, 0};
    struct pol_sharer *p = pol_sharer_create(POL_SHARE_FGD, w, 1);
    struct share_alloc a;
    cr_assert_eq(pol_share_place(p, sc, &big, &a), 1);
    pol_sharer_destroy(p);
}

/* random: the pod fits on node 0 GPU 1, node 1 GPUs 0 and 3, node 2 GPUs
 * 0 and 1; 300 seeded draws land only there, and on each node. */
Test(share_place, random_draws_only_gpus_that_hold_the_pod)
{
    struct pol_sharer *p = pol_sharer_create(POL_SHARE_RANDOM, w, 7);
    int seen[3] = {0};
    for (int i = 0; i < 300; i++) {
        struct share_alloc a;
        cr_assert_eq(pol_share_place(p, sc, &half, &a), 0);
        cr_assert(share_gpu_fits(&sc->nodes[a.node], &half, a.gpu));
        seen[a.node]++;
    }
    cr_assert(seen[0] && seen[1] && seen[2]);
    pol_sharer_destroy(p);
}

Test(share_place, rule_names_read_back)
{
    for (int r = 0; r < POL_SHARE_COUNT; r++)
        cr_assert_eq(pol_share_rule_parse(pol_share_rule_name(r)), r);
    cr_assert_eq(pol_share_rule_parse("worst-fit"), -1);
}

/* ---- fgd against a naive reference -------------------------------------- */

/* The smallest growth of the whole cluster's fragmentation over every
 * candidate for D, each tried by taking it and giving it back: the
 * definition, with none of fgd's shortcuts (per-node growth, one GPU per
 * free amount, the memo). Returns INFINITY when nothing fits. */
static double naive_best_growth(struct share_cluster *c,
                                const struct share_workload *wl,
                                const struct share_demand *d)
{
    double before = share_cluster_frag(c, wl), best = INFINITY;
    for (int32_t i = 0; i < c->nnodes; i++) {
        struct share_node *n = &c->nodes[i];
        if (!share_fits(n, d))
            continue;
        for (int32_t g = 0; g < n->gpus; g++) {
            struct share_alloc a = {i, g, 0};
            if (d->gpu_milli == SHARE_MILLI) {
                if (g > 0)
                    break;
                a.gpu = -1;
                share_whole_gpus(n, d, &a.mask);
            } else if (!share_gpu_fits(n, d, g)) {
                continue;
            }
            share_take(c, d, &a);
            double growth = share_cluster_frag(c, wl) - before;
            share_give(c, d, &a);
            if (growth < best)
                best = growth;
        }
    }
    return best;
}

/* 400 pods of six types, drawn with a fixed linear congruential sequence,
 * on nodes of 2, 4 and 8 GPUs: at every pod, fgd's choice grows the
 * cluster's fragmentation exactly as little as the naive search finds. */
Test(share_fgd, matches_the_naive_search_pod_after_pod)
{
    static const char *json =
        "{\"name\": \"mix\", \"gpu_types\": ["
        " {\"name\": \"A\", \"memory_mb\": 16384, \"speed\": 1},"
        " {\"name\": \"B\", \"memory_mb\": 16384, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 8, \"count\": "
        "3},"
        "  {\"gpu_type\": \"B\", \"gpus_per_node\": 4, \"count\": 3},"
        "  {\"gpu_type\": \"A\", \"gpus_per_node\": 2, \"count\": 2}]}";
    static const struct share_demand kinds[6] = {
        {4000, 0, 1, 250, 0},  {8000, 0, 1, 500, 0},   {4000, 0, 1, 700, 0},
        {8000, 0, 1, 1000, 0}, {16000, 0, 2, 1000, 1}, {2000, 0, 1, 100, 2}};
    struct share_demand pods[400];
    struct cluster *c = th_cluster(json);
    struct share_cluster *s = NULL;
    struct share_workload *wl = NULL;
    uint32_t x = 12345;
    for (int k = 0; k < 400; k++) {
        x = x * 1103515245u + 12345u;
        pods[k] = kinds[(x >> 16) % 6];
    }
    cr_assert_eq(share_cluster_create(c, &s), 0);
    for (int32_t i = 0; i < s->nnodes; i++)
        share_node_set_host(&s->nodes[i], 64000, 0);
    cr_assert_eq(share_workload_build(pods, 400, &wl), 0);
    struct pol_sharer *p = pol_sharer_create(POL_SHARE_FGD, wl, 1);
    int placed = 0;
    for (int k = 0; k < 400; k++) {
        struct share_alloc a;
        double naive = naive_best_growth(s, wl, &pods[k]);
        if (pol_share_place(p, s, &pods[k], &a) != 0) {
            cr_assert(isinf(naive), "pod %d: fgd found no room", k);
            continue;
        }
        double before = share_cluster_frag(s, wl);
        share_take(s, &pods[k], &a);
        cr_assert_float_eq(share_cluster_frag(s, wl) - before, naive, 1e-6,
                           "pod %d", k);
        placed++;
    }
    cr_assert(placed > 30 && placed < 400, "%d placed", placed);
    pol_sharer_destroy(p);
    share_workload_destroy(wl);
    share_cluster_destroy(s);
    cluster_destroy(c);
}
