/* test_alloc.c -- mem-aware placement and the allocation methods of
 * Ferrino & Choe (min-exec-time, max-efficiency) in both sort variants,
 * on hand traces whose schedules are worked out in the comments. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../sim/fixtures.h"
#include "helpers.h"

/* ---- mem-aware ---------------------------------------------------------- */

/* The cases run on ts_k80_p100 (fixtures.h): first-fit tries K80 first. */

static void add_mem(struct sim *s, double submit, double work, int gpus,
                    double mem, double est_mem)
{
    struct sim_job_spec spec = {submit, work, gpus, 0, (uint32_t)sim_njobs(s),
                                0, work, mem, est_mem};
    cr_assert_eq(sim_add_job(s, &spec), 0);
}

/* fifo with first-fit on the trace of the engine's OOM test: A (2 GPUs,
 * 100 s, needs 16,000 MB) and B (2 GPUs, 50 s, 8,000 MB) at 0.
 * Memory-blind: A to K80, fails at 60, runs on P100 (free since B ended at
 * 50) until 160: 1 OOM, JCTs 160 and 50.
 * mem-aware with exact estimates: A skips K80 and runs on P100 0-100; B
 * takes the K80 at half speed, 0-100. No OOM, both JCTs 100. */
Test(mem_aware, keeps_jobs_off_types_too_small_and_never_ooms)
{
    for (int aware = 0; aware < 2; aware++) {
        struct cluster *c = th_cluster(ts_k80_p100);
        struct sim *s = sim_create(c, 1);
        add_mem(s, 0, 100, 2, 16000, 16000);
        add_mem(s, 0, 50, 2, 8000, 8000);
        struct pol_config cfg = {.cluster = c,
                                 .placement = POL_PLACE_FIRST_FIT,
                                 .mem_aware = aware, .has_estimates = 1};
        cr_assert_eq(th_bind_run(s, th_find("fifo"), &cfg, NULL), 0);
        struct sim_summary m;
        cr_assert_eq(sim_summarize(s, &m), 0);
        cr_assert_eq(m.oom_events, aware ? 0u : 1u);
        cr_assert_float_eq(sim_job(s, 0)->finish_time, aware ? 100 : 160,
                           1e-9);
        cr_assert_float_eq(sim_job(s, 1)->finish_time, aware ? 100 : 50,
                           1e-9);
        cr_assert_eq(sim_job(s, 1)->gpu_type, aware ? 0 : 1);
        sim_destroy(s);
        cluster_destroy(c);
    }
}

/* The margin: an estimate of 12,000 MB fits K80's 12,288 as it is, but
 * not with 10 % added (13,200). 20,000 fits nowhere: the largest type
 * (P100) is left. An unknown estimate (0) rules nothing out. */
Test(mem_aware, margin_and_estimates_beyond_every_type)
{
    struct cluster *c = th_cluster(ts_k80_p100);
    struct sim *s = sim_create(c, 1);
    add_mem(s, 0, 10, 1, 0, 12000);
    add_mem(s, 0, 10, 1, 0, 20000);
    add_mem(s, 0, 10, 1, 0, 0);
    cr_assert_eq(pol_mem_types(s, 0, 3u, 0), 3u);
    cr_assert_eq(pol_mem_types(s, 0, 3u, 0.1), 2u);
    cr_assert_eq(pol_mem_types(s, 1, 3u, 0), 2u);
    cr_assert_eq(pol_mem_types(s, 1, 1u, 0), 1u); /* only K80 allowed */
    cr_assert_eq(pol_mem_types(s, 2, 3u, 5), 3u);
    sim_destroy(s);
    cluster_destroy(c);
}

/* ---- Allocation methods ------------------------------------------------- */

/* "slow" (the reference, 16 GB) and "fast" (twice the speed, 32 GB), one
 * GPU each. slow is type 0, fast type 1. */
static const char *const slow_fast =
    "{\"reference_gpu\": \"slow\","
    " \"gpu_types\": ["
    "   {\"name\": \"slow\", \"memory_mb\": 16384, \"speed\": 1},"
    "   {\"name\": \"fast\", \"memory_mb\": 32768, \"speed\": 2}],"
    " \"nodes\": [{\"gpu_type\": \"slow\", \"gpus_per_node\": 1},"
    "           {\"gpu_type\": \"fast\", \"gpus_per_node\": 1}]}";

struct expect {
    const char *order, *sort;
    double avg_jct, done_slow, done_fast;
};

/* Runs POLICY with order and sort on S, and checks avg JCT, makespan and
 * the completion time of each type. */
static void run_alloc(struct sim *s, struct cluster *c, const char *policy,
                      const double *usage, const struct expect *e,
                      double makespan)
{
    const char *keys[] = {"order", "sort"};
    const char *values[] = {e->order, e->sort};
    char why[256] = "";
    struct pol_config cfg = {.cluster = c, .has_estimates = 1,
                             .usage = usage, .keys = keys, .values = values,
                             .nopts = 2, .error = why,
                             .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, th_find(policy), &cfg, NULL), 0, "%s", why);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_float_eq(m.avg_jct_s, e->avg_jct, 1e-9, "%s %s %s: avg JCT %g",
                       policy, e->order, e->sort, m.avg_jct_s);
    cr_assert_float_eq(m.makespan_s, makespan, 1e-9);
    cr_assert_float_eq(m.per_type_completion_s[0], e->done_slow, 1e-9);
    cr_assert_float_eq(m.per_type_completion_s[1], e->done_fast, 1e-9);
}

/* min-exec-time: every job to fast (half the run time), except J4, which
 * may use slow only. Work in s on slow, so run time on fast = work / 2:
 *   J0 t=0 work 200 (100 s)  J1 t=10 160 (80 s)  J2 t=20 100 (50 s)
 *   J3 t=20 40 (20 s)        J4 t=0 30 on slow: 0-30.
 * fast: J0 runs 0-100; at 100 J1, J2, J3 wait.
 * fifo (either sort): J1 100-180, J2 180-230, J3 230-250.
 *   JCTs 100, 170, 210, 230, 30: sum 740, avg 148.
 * sjf, sort=after (each type's queue by estimate there): J3 100-120,
 *   J2 120-170, J1 170-250. JCTs 100, 240, 150, 100, 30: 620, avg 124.
 * sjf, sort=before: batches {J0, J4} at 0, {J1} at 10, {J2, J3} at 20,
 *   sorted within: J3, J2; fast's queue keeps allocation order J1, J3,
 *   J2: J1 100-180, J3 180-200, J2 200-250. JCTs 100, 170, 230, 180, 30:
 *   710, avg 142.
 * Completion: slow 30, fast 250 = makespan. */
Test(alloc, min_exec_time_in_both_orders_and_sort_variants)
{
    const struct expect cases[] = {
        {"fifo", "after", 148, 30, 250}, {"fifo", "before", 148, 30, 250},
        {"sjf", "after", 124, 30, 250},  {"sjf", "before", 142, 30, 250},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cluster *c = th_cluster(slow_fast);
        struct sim *s = sim_create(c, 1);
        th_add(s, 0, 200, 200, 1, 0);
        th_add(s, 10, 160, 160, 1, 0);
        th_add(s, 20, 100, 100, 1, 0);
        th_add(s, 20, 40, 40, 1, 0);
        th_add(s, 0, 30, 30, 1, 1u); /* slow only */
        run_alloc(s, c, "min-exec-time", NULL, &cases[i], 250);
        sim_destroy(s);
        cluster_destroy(c);
    }
}

/* max-efficiency. Usage (peak/burst) of GPU utilization: a term p / (b k),
 * k = the job's speed-up on the type (slow 1, fast 2), so eff(slow) =
 * 2 eff(fast) and every job with usage goes to slow. A job without usage
 * scores 0 on both and goes to the lower estimate: fast. E3's GPU memory
 * peak of 20,000 MB does not fit slow's 16,384: fast.
 *   E0 t=0 work 100, util 80/100 -> slow 0-100
 *   E1 t=0 work 60, none         -> fast 0-30
 *   E2 t=5 work 40, util 50/100  -> slow
 *   E3 t=5 work 20, util 90/100, memory 20000/20000 -> fast 30-40
 *   E4 t=6 work 60, util 20/100  -> slow
 *   E5 t=6 work 10, util 10/100  -> slow
 * slow at 100 holds E2 (40 s), E4 (60 s), E5 (10 s):
 * fifo: E2 100-140, E4 140-200, E5 200-210.
 *   JCTs 100, 30, 135, 35, 194, 204: sum 698, avg 698/6.
 * sjf after (estimate on slow): E5 100-110, E2 110-150, E4 150-210.
 *   JCTs 100, 30, 145, 35, 204, 104: 618, avg 103.
 * sjf before: batch {E2, E3} at 5 sorted by lowest estimate (fast: E3 10,
 *   E2 20) -> E3, E2; batch {E4, E5} at 6 (fast: E5 5, E4 30) -> E5, E4.
 *   slow's queue E2, E5, E4: E2 100-140, E5 140-150, E4 150-210.
 *   JCTs 100, 30, 135, 35, 204, 144: 648, avg 108.
 * Completion: slow 210 = makespan, fast 40. */
Test(alloc, max_efficiency_in_both_orders_and_sort_variants)
{
    const struct expect cases[] = {
        {"fifo", "after", 698.0 / 6, 210, 40},
        {"fifo", "before", 698.0 / 6, 210, 40},
        {"sjf", "after", 103, 210, 40},
        {"sjf", "before", 108, 210, 40},
    };
    enum { N = 6, W = 2 * POL_USAGE_N };
    double usage[N * W];
    for (size_t i = 0; i < N * W; i++)
        usage[i] = NAN;
    const double util[N] = {80, NAN, 50, 90, 20, 10};
    for (int j = 0; j < N; j++) {
        usage[j * W + 2 * POL_USE_GPU_UTIL] = util[j];
        usage[j * W + 2 * POL_USE_GPU_UTIL + 1] = 100;
    }
    usage[3 * W + 2 * POL_USE_GPU_MEM] = 20000;
    usage[3 * W + 2 * POL_USE_GPU_MEM + 1] = 20000;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cluster *c = th_cluster(slow_fast);
        struct sim *s = sim_create(c, 1);
        const double sub[N] = {0, 0, 5, 5, 6, 6}, work[N] = {100, 60, 40,
                                                             20, 60, 10};
        for (int j = 0; j < N; j++)
            th_add(s, sub[j], work[j], work[j], 1, 0);
        run_alloc(s, c, "max-efficiency", usage, &cases[i], 210);
        for (int j = 0; j < N; j++)
            cr_assert_eq(sim_job(s, (uint32_t)j)->gpu_type,
                         j == 1 || j == 3 ? 1 : 0, "E%d", j);
        sim_destroy(s);
        cluster_destroy(c);
    }
}

/* A job allocated to a type too small for it runs out of memory there and
 * is allocated again. M (1 GPU, work 100, needs 20,000 MB, no memory
 * estimate) on slow (16 GB, the reference: 100 s) and big (32 GB, speed
 * 0.5: 200 s): min-exec-time picks slow; M fails there at 60, is
 * allocated to big, the only type left, and runs 60-260: JCT 260. */
Test(alloc, a_job_that_runs_out_of_memory_is_allocated_again)
{
    struct cluster *c = th_cluster(
        "{\"reference_gpu\": \"slow\","
        " \"gpu_types\": [{\"name\": \"slow\", \"memory_mb\": 16384,"
        "   \"speed\": 1}, {\"name\": \"big\", \"memory_mb\": 32768,"
        "   \"speed\": 0.5}],"
        " \"nodes\": [{\"gpu_type\": \"slow\", \"gpus_per_node\": 1},"
        "           {\"gpu_type\": \"big\", \"gpus_per_node\": 1}]}");
    struct sim *s = sim_create(c, 1);
    add_mem(s, 0, 100, 1, 20000, 0);
    struct pol_config cfg = {.cluster = c, .has_estimates = 1};
    cr_assert_eq(th_bind_run(s, th_find("min-exec-time"), &cfg, NULL), 0);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.oom_events, 1);
    cr_assert_float_eq(m.avg_jct_s, 260, 1e-9);
    cr_assert_float_eq(m.per_type_completion_s[1], 260, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(alloc, refuses_unknown_order_and_sort)
{
    struct cluster *c = th_cluster(slow_fast);
    struct sim *s = sim_create(c, 1);
    th_add(s, 0, 10, 10, 1, 0);
    const char *bad[][2] = {{"order", "lifo"}, {"sort", "during"}};
    for (int i = 0; i < 2; i++) {
        char why[256] = "";
        struct pol_config cfg = {.cluster = c, .has_estimates = 1,
                                 .keys = &bad[i][0], .values = &bad[i][1],
                                 .nopts = 1, .error = why,
                                 .error_cap = sizeof why};
        struct sim_policy hooks;
        cr_assert_eq(pol_bind(th_find("max-efficiency"), &cfg, &hooks),
                     SIM_EINVAL);
        pol_unbind(th_find("max-efficiency"), &hooks);
        cr_assert(strstr(why, bad[i][1]), "%s", why);
    }
    sim_destroy(s);
    cluster_destroy(c);
}
