/* gittins.c -- Tiresias' Discretized 2D-Gittins index (Gu et al., NSDI'19,
 * sec. 3.2): the queues of mlfq.c, ordered within each queue by the
 * Gittins index of the job's attained GPU-time.
 *
 * With S a job's GPU-time (run time times GPUs) and a what it has attained,
 * the Gittins index for a quantum Delta is
 *     G(a, Delta) = P(S - a <= Delta | S > a) / E[min(S - a, Delta) | S > a],
 * the chance of finishing within the next Delta GPU-seconds per GPU-second
 * spent; the highest index goes first. Delta is what the job may still
 * attain in its queue: the queue's threshold minus its attained GPU-time
 * since it last entered Q1, or everything in the last queue (Delta =
 * infinity, G = 1 / E[S - a | S > a]). (The Tiresias simulator uses one
 * fixed Delta, gittins_delta = 3250, the first queue's threshold.) a is the
 * job's GPU-time in all, restart overheads included.
 *
 * The distribution of S is learnt online: each finished job adds its
 * attained GPU-time (the simulator reads a fixed one from a YARN trace,
 * yarn-gput1000.csv). Until `min_finished` jobs have finished the order is
 * the prior: least attained GPU-time first (LAS). A job's index is taken
 * when it enters a queue and when it is preempted, from the distribution
 * then, and kept while it waits. As in every mlfq.c policy, a running job
 * keeps its GPUs against the waiting jobs of its own queue, so the index
 * orders the waiting jobs only; the simulator (dlas-gpu-gittins) instead
 * re-sorts each queue by the current index at every event and may preempt
 * within a queue.
 *
 * The samples are kept sorted with prefix sums, so an index costs two
 * binary searches: O(log n). New samples wait in a batch that is sorted and
 * merged in once it holds max(1, n / 64) of them: exact while fewer than
 * 128 jobs have finished, and after that a query lags by under 1/64 of the
 * samples. A merge costs O(n) once per n / 64 finished jobs: O(1) amortized
 * per job, plus sorting its batch. */
#include <math.h>
#include <stdlib.h>

#include "mlfq_internal.h"
#include "policies_internal.h"

struct gittins_dist {
    double *x;     /* (n) sorted samples */
    double *sum;   /* (n + 1) sum[i] = x[0] + ... + x[i - 1] */
    double *batch; /* (nbatch) samples not merged yet */
    size_t n, cap, nbatch, batch_cap;
};

struct gittins_dist *gittins_dist_create(void)
{
    return calloc(1, sizeof(struct gittins_dist));
}

void gittins_dist_destroy(struct gittins_dist *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->sum);
    free(d->batch);
    free(d);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the batch into the samples and redoes the prefix sums. */
static int merge(struct gittins_dist *d)
{
    size_t n = d->n + d->nbatch;
    if (n > d->cap) {
        size_t cap = 2 * n;
        double *x = realloc(d->x, cap * sizeof *x);
        if (x)
            d->x = x;
        double *sum = x ? realloc(d->sum, (cap + 1) * sizeof *sum) : NULL;
        if (!sum)
            return SIM_ENOMEM;
        d->sum = sum;
        d->cap = cap;
    }
    qsort(d->batch, d->nbatch, sizeof *d->batch, by_value);
    size_t i = d->n, j = d->nbatch, k = n; /* merge from the back */
    while (j > 0)
        d->x[--k] = i > 0 && d->x[i - 1] > d->batch[j - 1] ? d->x[--i]
                                                           : d->batch[--j];
    d->sum[0] = 0;
    for (size_t m = 0; m < n; m++)
        d->sum[m + 1] = d->sum[m] + d->x[m];
    d->n = n;
    d->nbatch = 0;
    return 0;
}

int gittins_dist_add(struct gittins_dist *d, double x)
{
    if (d->nbatch == d->batch_cap) {
        size_t cap = d->batch_cap ? 2 * d->batch_cap : 64;
        double *b = realloc(d->batch, cap * sizeof *b);
        if (!b)
            return SIM_ENOMEM;
        d->batch = b;
        d->batch_cap = cap;
    }
    d->batch[d->nbatch++] = x;
    return d->nbatch >= (d->n / 64 > 1 ? d->n / 64 : 1) ? merge(d) : 0;
}

size_t gittins_dist_count(const struct gittins_dist *d)
{
    return d->n;
}

/* The number of samples at most V. */
static size_t count_upto(const struct gittins_dist *d, double v)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->x[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double gittins_dist_rank(const struct gittins_dist *d, double a, double delta)
{
    size_t i = count_upto(d, a); /* samples i..n-1 exceed a */
    size_t j = delta < INFINITY ? count_upto(d, a + delta) : d->n;
    if (i >= d->n || j <= i)
        return INFINITY; /* index 0 */
    double done = (double)(j - i);
    double served = d->sum[j] - d->sum[i] - done * a; /* those that end */
    if (j < d->n)
        served += (double)(d->n - j) * delta; /* those that go on */
    return served / done;
}

struct gittins {
    struct mlfq *queues;
    struct gittins_dist *dist;
    double min_finished;
    int oom;
};

static const struct pol_param gittins_params[] = {
    MLFQ_PARAMS,
    {"min_finished", "10", "finished jobs before the index replaces the "
                           "prior order (least attained GPU-time first)"},
    {NULL, NULL, NULL},
};

static double gittins_key(void *ctx, const struct sim *s, uint32_t job,
                          const struct mlfq_at *at, double old)
{
    (void)s;
    (void)job;
    (void)old;
    const struct gittins *g = ctx;
    if ((double)gittins_dist_count(g->dist) < g->min_finished)
        return at->gpu_s;
    return gittins_dist_rank(g->dist, at->gpu_s, at->quantum);
}

static void gittins_destroy(void *state)
{
    struct gittins *g = state;
    if (!g)
        return;
    mlfq_destroy(g->queues);
    gittins_dist_destroy(g->dist);
    free(g);
}

static int gittins_create(const struct pol_config *cfg, void **state)
{
    double min_finished;
    int rc = pol_opt_double(cfg, "min_finished", 1, 1e15, &min_finished);
    if (rc)
        return rc;
    struct gittins *g = calloc(1, sizeof *g);
    if (!g)
        return SIM_ENOMEM;
    g->min_finished = min_finished;
    g->dist = gittins_dist_create();
    rc = g->dist ? mlfq_create(cfg, gittins_key, g, &g->queues) : SIM_ENOMEM;
    if (rc) {
        gittins_destroy(g);
        return rc;
    }
    *state = g;
    return 0;
}

static void gittins_arrival(void *state, struct sim *s, uint32_t job)
{
    mlfq_arrival(((struct gittins *)state)->queues, s, job);
}

static void gittins_finish(void *state, struct sim *s, uint32_t job)
{
    struct gittins *g = state;
    double x = sim_attained_s(s, job) * sim_job(s, job)->num_gpus;
    /* a run that ran out of memory is no sample of a finished job */
    if (sim_job(s, job)->state == JOB_COMPLETED && x > 0 &&
        gittins_dist_add(g->dist, x) != 0)
        g->oom = 1;
    mlfq_finish(g->queues, s, job);
}

static int gittins_schedule(void *state, struct sim *s)
{
    struct gittins *g = state;
    return g->oom ? SIM_ENOMEM : mlfq_schedule(g->queues, s);
}

const struct pol_ops pol_gittins = {
    .name = "gittins",
    .description = "Tiresias' discretized 2D-Gittins index: priority queues "
                   "on attained GPU-time, the highest Gittins index first "
                   "within a queue, learnt from finished jobs",
    .params = gittins_params,
    .preemptive = 1,
    .create = gittins_create,
    .destroy = gittins_destroy,
    .on_arrival = gittins_arrival,
    .on_finish = gittins_finish,
    .schedule = gittins_schedule,
};
