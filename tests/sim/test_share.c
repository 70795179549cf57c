/* test_share.c -- the GPU-sharing model (sim/share.c) and FGD's
 * fragmentation (sim/frag.c) against values computed by hand. */
#include <criterion/criterion.h>

#include "fixtures.h"

/* The cluster is ts_three_nodes: 0 = type A, 2 GPUs, 8 cores; 1 = type A,
 * 4 GPUs, 16 cores; 2 = type B, 2 GPUs, 8 cores. Memory not modelled. */
static struct cluster *cl;
static struct share_cluster *sc;
static struct share_workload *w;

/* The workload, three types by popularity 0.5 / 0.3 / 0.2:
 *   m1 half a GPU, 2 cores, any type;  m2 one GPU, 4 cores, any type;
 *   m3 two GPUs, 2 cores, type A only. */
static const struct share_demand m1 = {2000, 0, 1, 500, 0};
static const struct share_demand m2 = {4000, 0, 1, 1000, 0};
static const struct share_demand m3 = {2000, 0, 2, 1000, 1u << 0};

/* The state every test starts from (free milli-GPU per GPU, free CPU):
 *   node 0: [300, 1000], 6000 of 8000   node 1: [1000, 400, 0, 1000],
 *   3000 of 16000                        node 2: [600, 1000], 8000 of 8000 */
static void setup(void)
{
    struct sim_error err = {0};
    struct share_demand pods[10];
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &cl, &err), 0, "%s",
                 err.text);
    cr_assert_eq(share_cluster_create(cl, &sc), 0);
    for (int i = 0; i < 10; i++)
        pods[i] = i < 5 ? m1 : i < 8 ? m2 : m3;
    cr_assert_eq(share_workload_build(pods, 10, &w), 0);
    share_node_set_host(&sc->nodes[0], 8000, 0);
    share_node_set_host(&sc->nodes[1], 16000, 0);
    share_node_set_host(&sc->nodes[2], 8000, 0);
    struct share_demand a = {2000, 0, 1, 700, 0};
    share_take(sc, &a, &(struct share_alloc){0, 0, 0});
    struct share_demand b = {13000, 0, 1, 600, 0};
    share_take(sc, &b, &(struct share_alloc){1, 1, 0});
    struct share_demand c = {0, 0, 1, 1000, 0};
    share_take(sc, &c, &(struct share_alloc){1, -1, 1u << 2});
    struct share_demand d = {0, 0, 1, 400, 0};
    share_take(sc, &d, &(struct share_alloc){2, 0, 0});
}

static void teardown(void)
{
    share_workload_destroy(w);
    share_cluster_destroy(sc);
    cluster_destroy(cl);
}

TestSuite(share, .init = setup, .fini = teardown);

Test(share, the_setup_leaves_the_free_amounts_of_the_comment)
{
    cr_assert_eq(sc->nodes[0].gpu_free[0], 300);
    cr_assert_eq(sc->nodes[0].cpu_free, 6000);
    cr_assert_eq(sc->nodes[1].gpu_free[1], 400);
    cr_assert_eq(sc->nodes[1].gpu_free[2], 0);
    cr_assert_eq(sc->nodes[1].cpu_free, 3000);
    cr_assert_eq(sc->nodes[2].gpu_free[0], 600);
    /* 700 + 600 + 1000 + 400 of 8000 */
    cr_assert_eq(sc->used_milli, 2700);
    cr_assert_eq(sc->total_milli, 8000);
}

Test(share, workload_types_get_their_popularity)
{
    cr_assert_eq(w->n, 3);
    cr_assert_float_eq(w->weight[0], 0.5, 1e-12);
    cr_assert_float_eq(w->weight[1], 0.3, 1e-12);
    cr_assert_float_eq(w->weight[2], 0.2, 1e-12);
}

/* Node 0, free [300, 1000] (1300 in all), 6000 CPU:
 *   m1 fits (GPU 1 holds 500): fragments are GPUs below 500, 300;
 *   m2 fits (GPU 1 whole, 4000 CPU): GPUs below 1000, 300;
 *   m3 needs 2 whole GPUs, has 1: case 1, all 1300.
 *   F = .5 x 300 + .3 x 300 + .2 x 1300 = 150 + 90 + 260 = 500. */
Test(share, node_fragmentation_of_node_0_by_hand)
{
    cr_assert_float_eq(share_task_frag(&sc->nodes[0], &m1), 300, 1e-9);
    cr_assert_float_eq(share_task_frag(&sc->nodes[0], &m2), 300, 1e-9);
    cr_assert_float_eq(share_task_frag(&sc->nodes[0], &m3), 1300, 1e-9);
    cr_assert_float_eq(share_node_frag(&sc->nodes[0], w), 500, 1e-9);
}

/* Node 1, free [1000, 400, 0, 1000] (2400), 3000 CPU:
 *   m1 fits: GPUs below 500 are 400 and 0, so 400;
 *   m2 asks 4000 CPU > 3000: case 1, 2400;
 *   m3 fits (two whole GPUs, 2000 CPU): GPUs below 1000, 400.
 *   F = .5 x 400 + .3 x 2400 + .2 x 400 = 200 + 720 + 80 = 1000. */
Test(share, node_fragmentation_of_node_1_by_hand)
{
    cr_assert_float_eq(share_task_frag(&sc->nodes[1], &m2), 2400, 1e-9);
    cr_assert_float_eq(share_task_frag(&sc->nodes[1], &m3), 400, 1e-9);
    cr_assert_float_eq(share_node_frag(&sc->nodes[1], w), 1000, 1e-9);
}

/* Node 2 (type B), free [600, 1000] (1600), 8000 CPU:
 *   m1 fits, no GPU below 500: 0;  m2 fits: the 600 is below 1000, 600;
 *   m3 is for type A only: case 1, 1600.
 *   F = 0 + .3 x 600 + .2 x 1600 = 180 + 320 = 500.
 * Cluster: 500 + 1000 + 500 = 2000 milli-GPU, two GPUs' worth. */
Test(share, node_2_and_the_cluster_by_hand)
{
    cr_assert_float_eq(share_task_frag(&sc->nodes[2], &m1), 0, 1e-9);
    cr_assert_float_eq(share_task_frag(&sc->nodes[2], &m3), 1600, 1e-9);
    cr_assert_float_eq(share_node_frag(&sc->nodes[2], w), 500, 1e-9);
    cr_assert_float_eq(share_cluster_frag(sc, w), 2000, 1e-9);
}

Test(share, giving_back_restores_the_free_amounts)
{
    struct share_demand d = {0, 0, 1, 400, 0};
    share_give(sc, &d, &(struct share_alloc){2, 0, 0});
    cr_assert_eq(sc->nodes[2].gpu_free[0], 1000);
    cr_assert_eq(sc->used_milli, 2300);
    /* node 2 all free: m1 0, m2 0, m3 (type A only) 2000: .2 x 2000 */
    cr_assert_float_eq(share_node_frag(&sc->nodes[2], w), 400, 1e-9);
}

Test(share, whole_gpus_are_the_lowest_fully_free_ones)
{
    uint64_t mask;
    struct share_demand two = {0, 0, 2, 1000, 0};
    cr_assert_eq(share_whole_gpus(&sc->nodes[1], &two, &mask), 0);
    cr_assert_eq(mask, (1u << 0) | (1u << 3));
    cr_assert_eq(share_whole_gpus(&sc->nodes[0], &two, &mask), 1);
}

Test(share, malformed_demands_are_refused)
{
    struct share_demand bad[] = {{0, 0, 2, 500, 0},
                                 {0, 0, 1, 0, 0},
                                 {0, 0, 0, 1000, 0},
                                 {-1, 0, 1, 1000, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(share_demand_valid(&bad[i]), 0, "case %zu", i);
    struct share_workload *none = NULL;
    cr_assert_eq(share_workload_build(bad, 1, &none), SIM_EINVAL);
    cr_assert_null(none);
}
