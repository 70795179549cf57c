/* test_freemap_scan.c -- the free-GPU tree (sim/freemap.c) against a
 * linear scan of the nodes: the lowest-numbered node with at least k free
 * GPUs, and the total, after every one of many random changes, on
 * clusters around the tree's level sizes. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>

#include "sim_internal.h"

static void check_against_scan(int32_t big, int32_t small, gsl_rng *g)
{
    char json[512], nodes[2][100] = {"", ""};
    if (big)
        snprintf(nodes[0], sizeof nodes[0],
                 "{\"gpu_type\": \"G\", \"gpus_per_node\": 8, "
                 "\"count\": %d}%s",
                 big, small ? "," : "");
    if (small)
        snprintf(nodes[1], sizeof nodes[1],
                 "{\"gpu_type\": \"G\", \"gpus_per_node\": 3, "
                 "\"count\": %d}",
                 small);
    snprintf(json, sizeof json,
             "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 16384,"
             " \"speed\": 1}], \"nodes\": [%s%s]}",
             nodes[0], nodes[1]);
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(json, "test", &c, &err), 0, "%s", err.text);
    struct sim_freemap m;
    cr_assert_eq(sim_freemap_init(&m, c, 0), 0);
    int32_t n = big + small, free_gpus[2000], total = 8 * big + 3 * small;
    cr_assert_leq(n, 2000);
    for (int32_t i = 0; i < n; i++)
        free_gpus[i] = c->nodes[i].gpus;
    for (int step = 0; step < 3000; step++) {
        int32_t i = (int32_t)gsl_rng_uniform_int(g, (unsigned long)n);
        int32_t v = (int32_t)gsl_rng_uniform_int(
            g, (unsigned long)c->nodes[i].gpus + 1);
        total += v - free_gpus[i];
        free_gpus[i] = v;
        sim_freemap_set(&m, i, v); /* one type: leaf i is node i */
        cr_assert_eq(m.free_total, total);
        for (int32_t need = 1; need <= 9; need++) {
            int32_t want = -1;
            for (int32_t k = 0; k < n && want < 0; k++)
                if (free_gpus[k] >= need)
                    want = k;
            cr_assert_eq(sim_freemap_find(&m, need), want, "%d nodes, need %d",
                         n, need);
        }
    }
    sim_freemap_free(&m);
    cluster_destroy(c);
}

Test(freemap, finds_what_a_scan_finds_after_random_changes)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 3);
    static const int32_t sizes[][2] = {{1, 0},  {0, 1},     {5, 3},
                                       {8, 0},  {8, 1},     {40, 24},
                                       {64, 1}, {300, 213}, {1000, 0}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        check_against_scan(sizes[k][0], sizes[k][1], g);
    gsl_rng_free(g);
}
