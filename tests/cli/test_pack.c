/* test_pack.c -- `hetsim pack` on a tiny fixture worked out by hand.
 *
 * tests/data/share/nodes.csv: node-0 with 2 GPUs, a CPU-only node (left
 * out), node-1 with 1 GPU: 3 GPUs, CPU and memory never short here.
 * tests/data/share/pods.csv, in arrival order: p0 half a GPU, p1 one GPU,
 * p2 half a GPU, p3 two GPUs. The workload is its own mix: s (half) .5,
 * w1 (one GPU) .25, w2 (two GPUs) .25. Arrived share after each pod: .5/3,
 * 1.5/3, 2/3, 4/3.
 *
 * Fragmentation F (milli-GPU) of a node by its free GPUs (FGD, section
 * 3.2; s's fragments are GPUs below 500, w1's and w2's below 1000 when
 * they fit, all free GPU when not):
 *   [1000, 1000]: 0;  [1000]: w2 cannot, .25 x 1000 = 250;
 *   [500, 1000]: w1 500, w2 cannot 1500: 125 + 375 = 500;
 *   [500, 0]: w1 and w2 cannot, 500 each: 250;  [0, 1000]: w2 1000: 250;
 *   [500]: w1, w2 cannot: 250;  all used: 0.
 * first-fit: p0 -> node-0 GPU 0, [500, 1000] + [1000] = 750 (rate .25);
 *   p1 -> node-0 GPU 1, [500, 0] + [1000] = 500 (1/6); p2 -> node-0 GPU
 *   0, [0, 0] + [1000] = 250 (1/12); p3 fails (no node has 2 free GPUs).
 * fgd: p0 -> node-1 (growth 0 there against +500 on node-0), 250 (1/12);
 *   p1 -> node-0 GPU 0 (the only whole GPU), [0, 1000] + [500] = 500
 *   (1/6); p2 -> node-1 (growth -250, against 0 on node-0 GPU 1), 250
 *   (1/12); p3 fails.
 * Allocation for both: .5/3, 1.5/3, 2/3, 2/3. Mean fragmentation rate over
 * the pods arrived at no more than 100%: first-fit (3 + 2 + 1)/12/3 = 1/6,
 * fgd (1 + 2 + 1)/12/3 = 1/9. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "run_helpers.h"

static char dir[64];
static char out[1 << 14], err[1 << 14];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-pack");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

TestSuite(pack, .init = setup, .fini = teardown);

static int pack(const char *extra)
{
    char args[1024];
    snprintf(args, sizeof args,
             "pack --trace %s/share/pods.csv --cluster "
             "alibaba2023:%s/share/nodes.csv --out %s %s",
             HETSIM_TEST_DATA, HETSIM_TEST_DATA, dir, extra);
    return clitest_run(NULL, args, out, sizeof out, err, sizeof err);
}

/* Row K (1-based) of RULE in pack.csv: allocation and fragmentation rate. */
static void row(const char *csv, const char *rule, int k, double *alloc,
                double *frag)
{
    char key[64];
    double arrived, placed, gpus;
    snprintf(key, sizeof key, "\n%s,%d,", rule, k);
    const char *p = strstr(csv, key);
    cr_assert_not_null(p, "no row %s %d", rule, k);
    cr_assert_eq(sscanf(p + strlen(key), "%lf,%lf,%lf,%lf,%lf", &arrived,
                        &placed, alloc, &gpus, frag),
                 5);
}

Test(pack, curves_match_the_hand_computation)
{
    static char csv[1 << 14];
    char path[128];
    static const double ff[] = {3 / 12.0, 2 / 12.0, 1 / 12.0, 1 / 12.0};
    static const double fgd[] = {1 / 12.0, 2 / 12.0, 1 / 12.0, 1 / 12.0};
    static const double alloc[] = {.5 / 3, 1.5 / 3, 2 / 3.0, 2 / 3.0};
    cr_assert_eq(pack("-q --no-plots --placements first-fit,fgd"), 0, "%s",
                 err);
    snprintf(path, sizeof path, "%s/pack.csv", dir);
    clitest_read_file(path, csv, sizeof csv);
    for (int k = 1; k <= 4; k++) {
        double a, f;
        row(csv, "first-fit", k, &a, &f);
        cr_assert_float_eq(a, alloc[k - 1], 1e-12);
        cr_assert_float_eq(f, ff[k - 1], 1e-12, "first-fit pod %d", k);
        row(csv, "fgd", k, &a, &f);
        cr_assert_float_eq(a, alloc[k - 1], 1e-12);
        cr_assert_float_eq(f, fgd[k - 1], 1e-12, "fgd pod %d", k);
    }
}

Test(pack, summary_counts_failures_and_averages_fragmentation)
{
    static char csv[4096];
    char path[128];
    double mean;
    cr_assert_eq(pack("-q --no-plots --placements first-fit,fgd"), 0, "%s",
                 err);
    snprintf(path, sizeof path, "%s/pack_summary.csv", dir);
    clitest_read_file(path, csv, sizeof csv);
    /* 4 pods, 3 placed, 1 failed, 0 that fit nowhere, first failure at
     * 4/3 of the cluster asked. */
    const char *p = strstr(csv, "\nfgd,4,3,1,0,1.333333333333333");
    cr_assert_not_null(p, "%s", csv);
    p = strrchr(p, ',');
    cr_assert_eq(sscanf(p + 1, "%lf", &mean), 1);
    cr_assert_float_eq(mean, 1 / 9.0, 1e-12);
    p = strstr(csv, "\nfirst-fit,4,3,1,0,");
    cr_assert_not_null(p, "%s", csv);
    p = strchr(p + 1, '\n');
    while (p[-1] != ',')
        p--;
    cr_assert_eq(sscanf(p, "%lf", &mean), 1);
    cr_assert_float_eq(mean, 1 / 6.0, 1e-12);
}

Test(pack, same_inputs_give_byte_identical_results)
{
    static char a[1 << 14], b[1 << 14];
    char path[128];
    snprintf(path, sizeof path, "%s/pack.csv", dir);
    cr_assert_eq(pack("-q --no-plots --placements random,fgd --seed 3"), 0);
    clitest_read_file(path, a, sizeof a);
    cr_assert_eq(pack("-q --no-plots --placements random,fgd --seed 3"), 0);
    clitest_read_file(path, b, sizeof b);
    cr_assert_str_not_empty(a);
    cr_assert_str_eq(a, b);
}

Test(pack, help_and_misuse)
{
    cr_assert_eq(
        clitest_run(NULL, "pack --help", out, sizeof out, err, sizeof err), 0);
    cr_assert_not_null(strstr(out, "--placements"));
    cr_assert_eq(pack("--placements fgd,worst-fit"), 2);
    cr_assert_not_null(strstr(err, "worst-fit"));
    cr_assert_eq(clitest_run(NULL,
                             "pack --trace /no/such.csv --cluster "
                             "gavel-108 --out /tmp/x",
                             out, sizeof out, err, sizeof err),
                 3);
}
