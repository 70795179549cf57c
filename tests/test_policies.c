/* test_policies.c -- schedules of the built-in policies, against schedules
 * drawn by hand and against queueing theory. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

#include "policies/helpers.h"
#include "policy.h"

static struct cluster *cluster_from(const char *json)
{
    char path[] = "/tmp/hetsim-cluster-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(json, f);
    fclose(f);
    struct cluster *c = NULL;
    struct sim_error err = {0};
    int rc = cluster_load(path, &c, &err);
    remove(path);
    cr_assert_eq(rc, 0, "%s", err.text);
    return c;
}

static void add(struct sim *s, double submit, double duration, int gpus,
                uint32_t allowed)
{
    th_add(s, submit, duration, 0, gpus, allowed);
}

static void run_policy(struct sim *s, const char *name,
                       const struct sim_observer *obs)
{
    const struct pol_ops *ops = th_find(name);
    char why[256] = "";
    struct pol_config cfg = {.cluster = sim_cluster(s), .error = why,
                             .error_cap = sizeof why};
    cr_assert_eq(th_bind_run(s, ops, &cfg, obs), 0, "%s", why);
}

/* V100 node 0 (4 GPUs, speed 1); K80 nodes 1, 2 (2 GPUs each, speed 0.25);
 * a job spread over nodes runs 1.5 times longer. */
static const char *const small_hetero =
    "{\"name\": \"small\", \"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1},"
    "                 {\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.25}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 4},"
    "           {\"gpu_type\": \"K80\", \"gpus_per_node\": 2, \"count\": 2}]}";

/* The schedule, drawn by hand:
 *  j0 t=0  2 GPUs 100 s  V100 node 0 at 0, ends 100
 *  j1 t=0  2 GPUs  50 s  V100 node 0 at 0, ends 50
 *  j2 t=10 4 GPUs  20 s  no V100 room; no K80 node has 4, so spread over
 *                        K80 nodes 1+2: 20 / 0.25 * 1.5 = 120 s, ends 130
 *  j3 t=20 1 GPU   10 s  nothing free: waits; at 50 V100, ends 60
 *  j4 t=30 1 GPU    5 s  behind j3 (FIFO blocks); at 50 V100, ends 55
 *  j5 t=35 8 GPUs        more than any type has: unschedulable
 *  j6 t=40 1 GPU   10 s  K80 only; K80s busy until 130, then node 1,
 *                        10 / 0.25 = 40 s, ends 170 */
Test(fifo, follows_the_schedule_drawn_by_hand)
{
    struct cluster *c = cluster_from(small_hetero);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 2, 0);
    add(s, 0, 50, 2, 0);
    add(s, 10, 20, 4, 0);
    add(s, 20, 10, 1, 0);
    add(s, 30, 5, 1, 0);
    add(s, 35, 10, 8, 0);
    add(s, 40, 10, 1, 2u);
    run_policy(s, "fifo", NULL);
    double start[] = {0, 0, 10, 50, 50, -1, 130};
    double finish[] = {100, 50, 130, 60, 55, -1, 170};
    int type[] = {0, 0, 1, 0, 0, -1, 1};
    int spread[] = {0, 0, 1, 0, 0, 0, 0};
    for (uint32_t j = 0; j < 7; j++) {
        const struct sim_job *job = sim_job(s, j);
        cr_assert_float_eq(job->start_time, start[j], 1e-9, "job %u", j);
        cr_assert_float_eq(job->finish_time, finish[j], 1e-9, "job %u", j);
        cr_assert_eq(job->gpu_type, type[j], "job %u", j);
        cr_assert_eq(job->spread, spread[j], "job %u", j);
    }
    cr_assert_eq(sim_job(s, 5)->failure, JOB_FAIL_UNSCHEDULABLE);

    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.jobs_completed, 6);
    cr_assert_eq(m.jobs_unschedulable, 1);
    cr_assert_float_eq(m.makespan_s, 170, 1e-9);
    /* JCTs 100 50 120 40 25 130; sorted 25 40 50 100 120 130. */
    cr_assert_float_eq(m.avg_jct_s, 465.0 / 6, 1e-9);
    cr_assert_float_eq(m.median_jct_s, 75, 1e-9);  /* between 50 and 100 */
    cr_assert_float_eq(m.p95_jct_s, 127.5, 1e-9);  /* 120 + 0.75 * 10 */
    cr_assert_float_eq(m.p99_jct_s, 129.5, 1e-9);  /* 120 + 0.95 * 10 */
    cr_assert_float_eq(m.avg_wait_s, 140.0 / 6, 1e-9);
    /* JCT / max(alone on its type, 10): 1, 1, 120/80, 40/10, 25/10, 130/40 */
    cr_assert_float_eq(m.avg_slowdown, 13.25 / 6, 1e-9);
    /* Busy GPU-s: V100 200+100+10+5 = 315, K80 4*120 + 40 = 520. */
    cr_assert_float_eq(m.busy_gpu_s, 835, 1e-9);
    cr_assert_float_eq(m.utilization_by_type[0], 315.0 / (4 * 170), 1e-12);
    cr_assert_float_eq(m.utilization_by_type[1], 520.0 / (4 * 170), 1e-12);
    cr_assert_float_eq(m.gpu_utilization, 835.0 / (8 * 170), 1e-12);
    sim_destroy(s);
    cluster_destroy(c);
}

/* V100 nodes 0, 1 with 3 GPUs each; K80 node 2 with 4 GPUs at speed 0.25.
 * Two 2-GPU jobs leave one V100 free on each node; a third 2-GPU job can
 * only be spread over the V100s or packed onto the K80 node. */
static double third_job_finish(double slowdown, int *type, int *spread)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"reference_gpu\": \"V100\", \"spread_slowdown\": %g,"
             " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 1, \"speed\": 1},"
             "  {\"name\": \"K80\", \"memory_mb\": 1, \"speed\": 0.25}],"
             " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 3, \"count\": 2},"
             "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 4}]}",
             slowdown);
    struct cluster *c = cluster_from(json);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 1000, 2, 0);
    add(s, 0, 1000, 2, 0);
    add(s, 0, 30, 2, 0);
    run_policy(s, "fifo", NULL);
    double finish = sim_job(s, 2)->finish_time;
    *type = sim_job(s, 2)->gpu_type;
    *spread = sim_job(s, 2)->spread;
    sim_destroy(s);
    cluster_destroy(c);
    return finish;
}

Test(fifo, spreads_over_fast_gpus_when_that_beats_one_slow_node)
{
    int type, spread;
    /* V100 spread: 30 * 1.5 = 45 s; K80 node: 30 / 0.25 = 120 s. */
    cr_assert_float_eq(third_job_finish(1.5, &type, &spread), 45, 1e-9);
    cr_assert_eq(type, 0);
    cr_assert_eq(spread, 1);
    /* With a penalty of 5 the spread takes 150 s: the K80 node wins. */
    cr_assert_float_eq(third_job_finish(5, &type, &spread), 120, 1e-9);
    cr_assert_eq(type, 1);
    cr_assert_eq(spread, 0);
}

/* ---- Queueing theory ---------------------------------------------------- */

/* Erlang C: the probability that an arrival waits in an M/M/c queue with
 * offered load A = lambda / mu erlangs. */
static double erlang_c(int c, double a)
{
    double term = 1, sum = 0; /* a^k / k! */
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

struct integral {
    double last_time, queued, busy;
    double queue_area, busy_area;
};

static void integrate(void *ctx, double time, int32_t queued, int32_t busy,
                      const int32_t *by_type)
{
    (void)by_type;
    struct integral *g = ctx;
    g->queue_area += g->queued * (time - g->last_time);
    g->busy_area += g->busy * (time - g->last_time);
    g->last_time = time;
    g->queued = queued;
    g->busy = busy;
}

/* FIFO on c identical 1-GPU servers with Poisson arrivals and exponential
 * 1-GPU jobs is the M/M/c queue, whose mean wait is known in closed form:
 * Wq = C(c, a) / (c mu - lambda). The simulated mean over 200,000 jobs is
 * compared through batch means: 20 batches of 9,000 jobs after a warm-up of
 * 20,000, each batch far longer than the queue's relaxation time, so the
 * batch means are close to independent and their standard error is honest.
 * The test asks for agreement within 4 standard errors (a false alarm
 * probability near 1e-4) and for a standard error below 5% of Wq, so that a
 * wrong wait (a policy that idles, or a clock bug) cannot hide in noise. */
Test(fifo, matches_the_erlang_c_mean_wait_of_an_mmc_queue)
{
    const int c = 8, warmup = 20000, batches = 20, batch = 9000;
    const int n = warmup + batches * batch;
    const double mu = 1.0 / 100, rho = 0.8, lambda = rho * c * mu;
    struct cluster *cl = cluster_from(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1, \"count\": 8}]}");
    struct sim *s = sim_create(cl, 1);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2024);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 1 / lambda);
        add(s, t, gsl_ran_exponential(r, 1 / mu), 1, 0);
    }
    gsl_rng_free(r);
    struct integral g = {0};
    struct sim_observer obs = {&g, integrate};
    run_policy(s, "fifo", &obs);

    double want = erlang_c(c, lambda / mu) / (c * mu - lambda);
    double means[20], grand = 0;
    for (int b = 0; b < batches; b++) {
        double sum = 0;
        for (int i = 0; i < batch; i++) {
            const struct sim_job *j =
                sim_job(s, (uint32_t)(warmup + b * batch + i));
            sum += j->start_time - j->submit_time;
        }
        means[b] = sum / batch;
        grand += means[b] / batches;
    }
    double ss = 0;
    for (int b = 0; b < batches; b++)
        ss += (means[b] - grand) * (means[b] - grand);
    double se = sqrt(ss / (batches - 1) / batches);
    cr_assert_lt(se, 0.05 * want, "se %g vs Wq %g", se, want);
    cr_assert_lt(fabs(grand - want), 4 * se, "simulated %g, Erlang C %g "
                 "(se %g)", grand, want, se);

    /* Little's law holds exactly on the timeline: the area under the
     * queue-length curve is the sum of the waits, and the area under the
     * busy-GPU curve is the busy GPU-seconds. */
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    double total_wait = m.avg_wait_s * (double)m.jobs_completed;
    cr_assert_float_eq(g.queue_area, total_wait, 1e-9 * total_wait);
    cr_assert_float_eq(g.busy_area, m.busy_gpu_s, 1e-9 * m.busy_gpu_s);
    cr_assert_eq(g.queued, 0);
    cr_assert_eq(g.busy, 0);
    sim_destroy(s);
    cluster_destroy(cl);
}

Test(registry, lists_fifo_and_finds_policies_by_name)
{
    cr_assert_not_null(pol_find("fifo"));
    cr_assert_null(pol_find("no-such-policy"));
    cr_assert_str_eq(pol_at(0)->name, "fifo");
    for (size_t i = 0; pol_at(i); i++)
        cr_assert_gt(strlen(pol_at(i)->description), 10);
}

/* A class that runs faster on the K80 than on the V100 (as some of Gavel's
 * measured job types nearly do against P100): "fastest" follows the class,
 * not the cluster's speeds. */
Test(fifo, places_each_job_class_on_its_own_fastest_type)
{
    struct cluster *c = cluster_from(small_hetero);
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec spec = {{0.2, 0.1}, {0.4, 0.3}};
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
    struct sim_job_spec j0 = {0, 100, 2, 0, 0, cls, 0, 0, 0}; /* K80 node 1: 10 s */
    struct sim_job_spec j1 = {0, 100, 2, 0, 1, cls, 0, 0, 0}; /* K80 node 2: 10 s */
    struct sim_job_spec j2 = {0, 100, 2, 0, 2, cls, 0, 0, 0}; /* V100: 20 s */
    struct sim_job_spec j3 = {0, 100, 1, 0, 3, 0, 0, 0, 0};   /* class 0: V100 */
    cr_assert_eq(sim_add_job(s, &j0), 0);
    cr_assert_eq(sim_add_job(s, &j1), 0);
    cr_assert_eq(sim_add_job(s, &j2), 0);
    cr_assert_eq(sim_add_job(s, &j3), 0);
    run_policy(s, "fifo", NULL);
    int type[] = {1, 1, 0, 0};
    double finish[] = {10, 10, 20, 100};
    for (uint32_t j = 0; j < 4; j++) {
        cr_assert_eq(sim_job(s, j)->gpu_type, type[j], "job %u", j);
        cr_assert_float_eq(sim_job(s, j)->finish_time, finish[j], 1e-9);
    }
    sim_destroy(s);
    cluster_destroy(c);
}
