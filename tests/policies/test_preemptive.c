/* test_preemptive.c -- the preemptive policies srtf and las (preemptive.c),
 * against textbook reference models written here from their definitions,
 * and against schedules drawn by hand. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "helpers.h"
#include "policy.h"

static struct cluster *cluster_of(const char *json)
{
    return th_cluster(json);
}

/* A job of class 0 whose estimate is exact (oracle). */
static void add(struct sim *s, double submit, double work, int gpus,
                uint32_t allowed)
{
    th_add(s, submit, work, work, gpus, allowed);
}

/* Binds POLICY with options KEYS=VALUES; when that works, runs it to the
 * end. Returns what pol_bind returned, with its message in WHY. */
static int try_run(struct sim *s, const char *policy, const char *const *keys,
                   const char *const *values, size_t nopts, int estimates,
                   char *why, size_t cap)
{
    const struct pol_ops *ops = th_find(policy);
    struct pol_config cfg = {.cluster = sim_cluster(s), .has_estimates =
                             estimates, .keys = keys, .values = values,
                             .nopts = nopts, .error = why, .error_cap = cap};
    return th_bind_run(s, ops, &cfg, NULL);
}

static void run(struct sim *s, const char *policy, const char *quantum,
                const char *metric)
{
    const char *keys[] = {"quantum", "metric"}, *values[] = {quantum, metric};
    size_t nopts = metric ? 2 : quantum ? 1 : 0;
    char why[256] = "";
    cr_assert_eq(try_run(s, policy, keys, values, nopts, 1, why, sizeof why),
                 0, "%s", why);
}

static void expect(const struct sim *s, const double *finish,
                   const int *preemptions)
{
    for (uint32_t j = 0; j < sim_njobs(s); j++) {
        const struct sim_job *job = sim_job(s, j);
        cr_expect_float_eq(job->finish_time, finish[j], 1e-9,
                           "job %u ends at %g, not %g", j, job->finish_time,
                           finish[j]);
        cr_expect_eq(job->preemptions, preemptions[j],
                     "job %u preempted %d times, not %d", j,
                     job->preemptions, preemptions[j]);
    }
}

/* ---- Textbook reference models -------------------------------------------
 *
 * C identical servers, 1-GPU jobs, no overhead. At every decision instant
 * the C active jobs first in (key, submit time, id) order run: SRPT's key
 * is the remaining time, and between instants no waiting job can overtake
 * a running one, so arrivals and completions are the only instants. LAS's
 * key is the attained service; decision instants are arrivals, completions
 * and the quantum clock: after an instant that leaves a job waiting, one
 * more Q later unless one is already due by then. Times are on a 1/64 s
 * grid, so every sum below is exact and ties (which LAS makes on purpose)
 * break by the rule, not by rounding. */

enum { REF_FUTURE, REF_WAITING, REF_RUNNING, REF_DONE };

struct ref_job {
    double submit, left, attained, finish;
    int state;
};

static int ref_before(const struct ref_job *a, const struct ref_job *b,
                      int las, int ia, int ib)
{
    double ka = las ? a->attained : a->left, kb = las ? b->attained : b->left;
    if (ka != kb)
        return ka < kb;
    return a->submit != b->submit ? a->submit < b->submit : ia < ib;
}

static void reference(struct ref_job *jobs, int n, int c, int las, double q)
{
    int *active = malloc((size_t)n * sizeof *active), nactive = 0, next = 0;
    double t = 0, wake = INFINITY;
    while (next < n || nactive > 0) {
        double tn = next < n ? fmin(jobs[next].submit, wake) : wake;
        for (int a = 0; a < nactive; a++)
            if (jobs[active[a]].state == REF_RUNNING)
                tn = fmin(tn, t + jobs[active[a]].left);
        for (int a = 0; a < nactive; a++) {
            struct ref_job *j = &jobs[active[a]];
            if (j->state == REF_RUNNING) {
                j->left -= tn - t;
                j->attained += tn - t;
            }
            j->state = REF_WAITING;
        }
        t = tn;
        if (wake <= t)
            wake = INFINITY;
        for (int a = 0; a < nactive; a++) {
            if (jobs[active[a]].left == 0) {
                jobs[active[a]].state = REF_DONE;
                jobs[active[a]].finish = t;
                active[a--] = active[--nactive];
            }
        }
        while (next < n && jobs[next].submit == t) {
            jobs[next].state = REF_WAITING;
            active[nactive++] = next++;
        }
        for (int k = 0; k < c; k++) { /* the C first ones run */
            int best = -1;
            for (int a = 0; a < nactive; a++) {
                int i = active[a];
                if (jobs[i].state == REF_WAITING &&
                    (best < 0 || ref_before(&jobs[i], &jobs[best], las, i,
                                            best)))
                    best = i;
            }
            if (best >= 0)
                jobs[best].state = REF_RUNNING;
        }
        if (las && nactive > c && !(wake > t && wake <= t + q))
            wake = t + q;
    }
    free(active);
}

/* N 1-GPU jobs at load 0.9 on C servers: Poisson arrivals, exponential
 * sizes of mean 64 s, both rounded up to the 1/64 s grid; into S and REF.
 * With BURST every job is submitted at 0 instead. */
static void workload(struct sim *s, struct ref_job *ref, int n, int c,
                     unsigned long seed, int burst)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double mean = 64, rate = 0.9 * c / mean, t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 1 / rate);
        double submit = burst ? 0 : ceil(t * 64) / 64;
        double size = fmax(ceil(gsl_ran_exponential(r, mean) * 64), 1) / 64;
        ref[i] = (struct ref_job){submit, size, 0, -1, REF_FUTURE};
        add(s, submit, size, 1, 0);
    }
    gsl_rng_free(r);
}

/* Runs POLICY and the reference on one random workload (a burst with
 * BURST); every finish time must agree. */
static void compare_on(const char *policy, int n, int c, unsigned long seed,
                       const char *quantum, const char *metric, int burst)
{
    char json[256];
    snprintf(json, sizeof json,
             "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1,"
             " \"speed\": 1}], \"nodes\": [{\"gpu_type\": \"G\","
             " \"gpus_per_node\": 1, \"count\": %d}]}", c);
    struct cluster *cl = cluster_of(json);
    struct sim *s = sim_create(cl, 1);
    struct ref_job *ref = malloc((size_t)n * sizeof *ref);
    workload(s, ref, n, c, seed, burst);
    run(s, policy, quantum, metric);
    int las = strcmp(policy, "las") == 0;
    reference(ref, n, c, las, las ? atof(quantum) : 0);
    for (int i = 0; i < n; i++) {
        double got = sim_job(s, (uint32_t)i)->finish_time;
        cr_assert_float_eq(got, ref[i].finish, 1e-6 * ref[i].finish,
                           "%s seed %lu: job %d ends at %.17g, textbook "
                           "%.17g", policy, seed, i, got, ref[i].finish);
    }
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.jobs_completed, (size_t)n);
    cr_assert_gt(m.preemptions_total, (uint64_t)n / 20); /* some to test */
    free(ref);
    sim_destroy(s);
    cluster_destroy(cl);
}

static void compare(const char *policy, int n, int c, unsigned long seed,
                    const char *quantum, const char *metric)
{
    compare_on(policy, n, c, seed, quantum, metric, 0);
}

Test(srtf, matches_textbook_multi_server_srpt_on_random_workloads)
{
    compare("srtf", 200, 4, 1, NULL, NULL);
    compare("srtf", 1000, 6, 2, NULL, NULL);
    compare("srtf", 2000, 8, 3, NULL, NULL);
}

Test(las, matches_textbook_multi_server_las_with_the_same_quantum)
{
    compare("las", 200, 4, 4, "4", NULL);
    compare("las", 1000, 6, 5, "4", NULL);
    compare("las", 2000, 8, 6, "0.5", NULL);
    /* 1-GPU jobs: GPU-time is time. */
    compare("las", 1000, 5, 7, "16", "gpu_time");
}

/* A burst (every job at 0) on a full cluster of one type: the passes open
 * with long runs of swaps (preempt_swaps.c), most of them between jobs of
 * equal attained service, ordered by id. */
Test(las, matches_textbook_multi_server_las_on_a_burst)
{
    compare_on("las", 300, 16, 8, "4", NULL, 1);
    compare_on("las", 400, 32, 9, "1", "gpu_time", 1);
}

/* ---- Schedules drawn by hand ------------------------------------------- */

static const char *const one_gpu =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1}]}";

static const char *const four_gpus =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 4}]}";

/* One GPU, restart overhead 5 s. Priorities leave the overhead out: a job
 * paying it stands still at the work it has left.
 *  j0 t=0  100 s  runs 0-10; j1 (20 s left) is shorter: preempted, 90 left
 *  j1 t=10  20 s  runs 10-30
 *  j0             restarts at 30: overhead 30-35, then work
 *  j2 t=32  92 s  92 > j0's 90 (with the overhead it would be 95): waits
 *  j3 t=33  89 s  89 < 90: preempts j0 3 s into its overhead (lost, 90
 *                 still left); runs 33-122
 *  j0             90 < j2's 92: overhead 122-127, work 127-217
 *  j2             217-309, never preempted: no overhead */
Test(srtf, pays_the_restart_overhead_as_drawn)
{
    struct cluster *c = cluster_of(one_gpu);
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, 5);
    add(s, 0, 100, 1, 0);
    add(s, 10, 20, 1, 0);
    add(s, 32, 92, 1, 0);
    add(s, 33, 89, 1, 0);
    run(s, "srtf", NULL, NULL);
    expect(s, (double[]){217, 30, 309, 122}, (int[]){2, 0, 0, 0});
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.preemptions_total, 2);
    cr_assert_float_eq(m.overhead_gpu_s, 3 + 5, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Four GPUs on one node; a (1 GPU, 100 s), b (200), c (300), d (50) start
 * at 0, and at 10 a 150 s job of 2 or 3 GPUs arrives.
 * 2 GPUs: worse are c (290 left) and b (190); both are preempted, worst
 *   first, and it runs 10-160. d ends at 50 and b takes its GPU (190 s,
 *   ends 240); a ends at 100 and c takes its GPU (ends 390).
 * 3 GPUs: c and b make 2 GPUs of 3: nothing is preempted. At 50 d ends:
 *   1 free + c is 2 (b has 150 left, as much as the job, and arrived
 *   first: not worse); the free GPU idles. At 100 a ends: 2 free + c make
 *   3: c is preempted and the job runs 100-250; b ends at 200 and c (200
 *   left) runs 200-400. a and d are never touched. */
Test(preemptive, a_multi_gpu_job_preempts_the_worst_only_if_it_then_fits)
{
    struct cluster *c = cluster_of(four_gpus);
    for (int gpus = 2; gpus <= 3; gpus++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 100, 1, 0);
        add(s, 0, 200, 1, 0);
        add(s, 0, 300, 1, 0);
        add(s, 0, 50, 1, 0);
        add(s, 10, 150, gpus, 0);
        run(s, "srtf", NULL, NULL);
        expect(s, gpus == 2 ? (double[]){100, 240, 390, 50, 160}
                            : (double[]){100, 200, 400, 50, 250},
               gpus == 2 ? (int[]){0, 1, 1, 0, 0} : (int[]){0, 0, 1, 0, 0});
        cr_expect_float_eq(sim_job(s, 4)->start_time, gpus == 2 ? 10 : 100,
                           1e-9);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* One V100 (speed 1) and one K80 (speed 0.5). a (100 s) takes the V100
 * and b (300 s) the K80 at 0. At 10 c (50 s, V100 only) arrives: the worst
 * running job is b (295 left) but on a K80, which c cannot use, so c
 * preempts a (90 left) on the V100 and runs 10-60. a, better than b,
 * preempts b on the K80 and runs there: 90 s of work at half speed, ends
 * 190. At 60 b takes the V100: 295 s, ends 355. */
Test(preemptive, preempts_on_a_gpu_type_the_waiting_job_can_use)
{
    struct cluster *c = cluster_of(
        "{\"reference_gpu\": \"V100\","
        " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
        "  {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.5}],"
        " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 1},"
        "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 1}]}");
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 1, 0);
    add(s, 0, 300, 1, 0);
    add(s, 10, 50, 1, 1u << 0);
    run(s, "srtf", NULL, NULL);
    expect(s, (double[]){190, 355, 60}, (int[]){1, 1, 0});
    int type[] = {1, 0, 0};
    for (uint32_t j = 0; j < 3; j++)
        cr_expect_eq(sim_job(s, j)->gpu_type, type[j], "job %u", j);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Two nodes of 2 GPUs, spread_slowdown 2. a (300 s) at 0 and b (100) at 1
 * take node 0; c (250) at 2 and d (200) at 3 take node 1. At 10 w (2 GPUs,
 * 50 s) arrives; worst first the running jobs are a (290, node 0), c (242,
 * node 1), d (193, node 1), b (91). When w's class cannot spread, room
 * means one node: a frees one GPU on node 0, then c and d free node 1, so
 * w preempts c and d, not a, and runs 10-60 on node 1. Then d, waiting
 * and better than a, preempts a in turn (same instant, no time lost: d
 * ends at 203 as if never stopped); c (242) and a (290) wait for w and
 * run 60-302 and 60-350. When w may spread, the two worst (a and c) make
 * room: w runs spread 10-110 (50 s x 2); c takes b's GPU at 101 (ends 343)
 * and a takes w's at 110 (ends 400). */
Test(preemptive, a_job_that_cannot_spread_preempts_to_free_one_node)
{
    struct cluster *cl = cluster_of(
        "{\"spread_slowdown\": 2, \"gpu_types\": [{\"name\": \"G\","
        " \"memory_mb\": 1, \"speed\": 1}], \"nodes\": [{\"gpu_type\": \"G\","
        " \"gpus_per_node\": 2, \"count\": 2}]}");
    for (int spread = 0; spread < 2; spread++) {
        struct sim *s = sim_create(cl, 1);
        struct sim_class_spec one_node = {{1}, {0}};
        int32_t cls = 0;
        if (!spread)
            cr_assert_eq(sim_add_class(s, &one_node, &cls), 0);
        add(s, 0, 300, 1, 0);
        add(s, 1, 100, 1, 0);
        add(s, 2, 250, 1, 0);
        add(s, 3, 200, 1, 0);
        struct sim_job_spec w = {10, 50, 2, 0, 4, cls, 50, 0, 0};
        cr_assert_eq(sim_add_job(s, &w), 0);
        run(s, "srtf", NULL, NULL);
        if (spread)
            expect(s, (double[]){400, 101, 343, 203, 110},
                   (int[]){1, 0, 1, 0, 0});
        else
            expect(s, (double[]){350, 101, 302, 203, 60},
                   (int[]){1, 0, 1, 1, 0});
        cr_expect_eq(sim_job(s, 4)->spread, spread);
        sim_destroy(s);
    }
    cluster_destroy(cl);
}

/* Each refusal: policy, option, value, a word the message must hold. */
Test(preemptive, srtf_wants_estimates_and_las_a_good_quantum_and_metric)
{
    struct cluster *c = cluster_of(one_gpu);
    const char *bad[][4] = {
        {"srtf", "", "", "estimates"}, {"las", "quantum", "0", "quantum"},
        {"las", "quantum", "-5", "quantum"}, {"las", "quantum", "abc", "abc"},
        {"las", "quantum", "nan", "quantum"}, {"las", "metric", "gb", "gb"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct sim *s = sim_create(c, 1);
        char why[256] = "";
        cr_assert_eq(try_run(s, bad[i][0], &bad[i][1], &bad[i][2],
                             bad[i][1][0] ? 1 : 0, 0, why, sizeof why),
                     SIM_EINVAL, "%s %s=%s", bad[i][0], bad[i][1], bad[i][2]);
        cr_assert(strstr(why, bad[i][3]), "%s", why);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* One GPU. Quantum 10: j0 (30 s) runs from 0; j1 (20 s) arrives at 5
 * with nothing attained and preempts j0 (5 attained). The quantum clock
 * starts there: at 15 j1 has 10, j0 5: j0 runs; at 25 j0 has 15, j1 10:
 * j1 runs and ends at 35; j0 runs its last 15 s, 35-50.
 * Quantum 2, restart overhead 7: the overhead is charged when a job stops,
 * so a job paying it keeps its GPU and turns are not all overhead. j0 (10
 * s) runs 0-1; j1 (10 s) preempts it (1 attained) and runs 1-3; j0 pays
 * 3-10 (standing at 1), works 10-12 (3 > j1's 2) and stops with 10
 * attained, 7 s left. j1 pays 12-19, works 19-27: ends. j0 pays 27-34 and
 * works 34-41. */
Test(las, takes_turns_of_one_quantum_as_drawn)
{
    struct cluster *c = cluster_of(one_gpu);
    for (int overhead = 0; overhead <= 7; overhead += 7) {
        struct sim *s = sim_create(c, 1);
        sim_set_restart_overhead(s, overhead);
        add(s, 0, overhead ? 10 : 30, 1, 0);
        add(s, overhead ? 1 : 5, overhead ? 10 : 20, 1, 0);
        run(s, "las", overhead ? "2" : "10", NULL);
        expect(s, overhead ? (double[]){41, 27} : (double[]){50, 35},
               (int[]){2, 1});
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* Two GPUs on one node, quantum 1000 (no turns). a (2 GPUs, 100 s) at 0;
 * b (1 GPU, 100 s) at 10 preempts it; d (1 GPU, 5 s) runs 20-25 on the
 * other GPU. At 25 a has run 10 s (20 GPU-s) and b 15 s (15 GPU-s):
 *  time:     a is behind: it preempts b, runs 25-115; b ends 115-200;
 *  gpu_time: b is behind: a waits (one GPU idles) until b ends at 110,
 *            then runs 110-200. */
Test(las, weighs_attained_service_by_gpus_with_metric_gpu_time)
{
    struct cluster *c = cluster_of(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 2}]}");
    for (int gpu_time = 0; gpu_time < 2; gpu_time++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 100, 2, 0);
        add(s, 10, 100, 1, 0);
        add(s, 20, 5, 1, 0);
        run(s, "las", "1000", gpu_time ? "gpu_time" : "time");
        if (gpu_time)
            expect(s, (double[]){200, 110, 25}, (int[]){1, 0, 0});
        else
            expect(s, (double[]){115, 200, 25}, (int[]){1, 1, 0});
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* Two 100 s jobs on one GPU: processor sharing ends both at 200. With a
 * quantum of 0.5 s they take turns (j0 first, as it arrived first) and end
 * within one quantum of that: j0 at 199.5, j1 at 200. */
Test(las, approaches_processor_sharing_as_the_quantum_shrinks)
{
    struct cluster *c = cluster_of(one_gpu);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 1, 0);
    add(s, 0, 100, 1, 0);
    run(s, "las", "0.5", NULL);
    cr_assert_float_eq(sim_job(s, 0)->finish_time, 199.5, 1e-9);
    cr_assert_float_eq(sim_job(s, 1)->finish_time, 200, 1e-9);
    cr_assert_gt(sim_job(s, 0)->preemptions + sim_job(s, 1)->preemptions,
                 300);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Everything at once: two GPU types, 1- to 8-GPU jobs on random types, a
 * class that cannot spread, estimates off by up to a factor e, a restart
 * overhead (longer than las's quantum). Each policy runs to the end, no
 * job faster than alone. */
Test(preemptive, runs_random_heterogeneous_workloads_to_the_end)
{
    struct cluster *c = cluster_of(
        "{\"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
        " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
        "  {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.25}],"
        " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 8,"
        " \"count\": 2}, {\"gpu_type\": \"K80\", \"gpus_per_node\": 4,"
        " \"count\": 3}]}");
    const char *runs[][3] = {{"srtf", NULL, NULL}, {"las", "2", NULL},
                             {"las", "30", "gpu_time"}};
    for (size_t r = 0; r < 3; r++) {
        struct sim *s = sim_create(c, 1);
        sim_set_restart_overhead(s, 3);
        struct sim_class_spec one_node = {{1, 4}, {0, 0}};
        int32_t cls;
        cr_assert_eq(sim_add_class(s, &one_node, &cls), 0);
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, 11 + r);
        double t = 0;
        for (int i = 0; i < 600; i++) {
            static const int gpus[] = {1, 1, 1, 1, 2, 2, 4, 8};
            t += gsl_ran_exponential(g, 4);
            double work = gsl_ran_exponential(g, 100) + 0.01;
            struct sim_job_spec spec = {
                t, work, gpus[gsl_rng_uniform_int(g, 8)],
                (uint32_t)gsl_rng_uniform_int(g, 3) + 1, (uint32_t)i,
                gsl_rng_uniform(g) < 0.2 ? cls : 0,
                work * exp(gsl_ran_flat(g, -1, 1)), 0, 0};
            if (spec.num_gpus > 4 && spec.allowed == 2)
                spec.allowed = 3; /* K80 nodes hold 4 */
            cr_assert_eq(sim_add_job(s, &spec), 0);
        }
        gsl_rng_free(g);
        run(s, runs[r][0], runs[r][1], runs[r][2]);
        for (uint32_t j = 0; j < sim_njobs(s); j++) {
            const struct sim_job *job = sim_job(s, j);
            cr_assert(job->state == JOB_COMPLETED &&
                      job->finish_time - job->submit_time >= job->work - 1e-6,
                      "%s: job %u", runs[r][0], j);
        }
        struct sim_summary m;
        cr_assert(sim_summarize(s, &m) == 0 && m.preemptions_total > 50);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

/* LAS's swap loop (preempt_swaps.c, swap_las: one GPU type, a full
 * cluster) against the general path of the same scheduler, which takes
 * over on a cluster with a second GPU type that no job may use: the same
 * decisions, so every job's record ends the same, bit for bit. A burst of
 * one-GPU jobs and later arrivals, a short quantum and a restart overhead
 * (so that started jobs pay it and swap_las hands them to the general
 * filing), by attained time and by GPU time. */
Test(las, swap_loop_matches_the_general_path_on_a_burst)
{
    static const char *const node =
        "{\"gpu_type\": \"G\", \"gpus_per_node\": 4, \"count\": 2}";
    char one[512], two[512];
    snprintf(one, sizeof one,
             "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, "
             "\"speed\": 1}], \"nodes\": [%s]}",
             node);
    snprintf(two, sizeof two,
             "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, "
             "\"speed\": 1}, {\"name\": \"H\", \"memory_mb\": 1, "
             "\"speed\": 1}], \"nodes\": [%s, {\"gpu_type\": \"H\", "
             "\"gpus_per_node\": 1}]}",
             node);
    struct cluster *c[2] = {cluster_of(one), cluster_of(two)};
    for (int metric = 0; metric < 2; metric++)
        for (int overhead = 0; overhead <= 3; overhead += 3) {
            struct sim *s[2];
            for (int k = 0; k < 2; k++) {
                s[k] = sim_create(c[k], 1);
                sim_set_restart_overhead(s[k], overhead);
                gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
                gsl_rng_set(g, 5);
                for (int i = 0; i < 80; i++)
                    add(s[k], i < 60 ? 0 : 10.0 * i,
                        gsl_ran_exponential(g, 60) + 1, 1, 1);
                gsl_rng_free(g);
                run(s[k], "las", "2", metric ? "gpu_time" : "time");
            }
            struct sim_summary m;
            cr_assert(sim_summarize(s[0], &m) == 0 &&
                      m.preemptions_total > 1000);
            for (uint32_t j = 0; j < sim_njobs(s[0]); j++) {
                const struct sim_job *a = sim_job(s[0], j),
                                     *b = sim_job(s[1], j);
                cr_assert(a->state == JOB_COMPLETED &&
                              a->finish_time == b->finish_time &&
                              a->start_time == b->start_time &&
                              a->run_s == b->run_s &&
                              a->preemptions == b->preemptions,
                          "metric %d overhead %d job %u: ends %.17g, %.17g; "
                          "preempted %d, %d",
                          metric, overhead, j, a->finish_time, b->finish_time,
                          a->preemptions, b->preemptions);
            }
            sim_destroy(s[0]);
            sim_destroy(s[1]);
        }
    cluster_destroy(c[0]);
    cluster_destroy(c[1]);
}
