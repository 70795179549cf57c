/* alloc.c -- the two allocation methods of Ferrino & Choe (2024, predicted
 * CPU/GPU usage): every job is given to one GPU type and waits in that
 * type's queue, which starts its head whenever the type has room for it.
 *
 *   min-exec-time   the type with the lowest estimated execution time
 *                   (sim_est_runtime_s), whatever the load;
 *   max-efficiency  the type with the highest computing efficiency
 *                   eff(t) = sum over resources r of peak_r / burst_r(t),
 *                   from the trace's peak and burst columns (README,
 *                   "Allocation policies": how burst_r(t) scales with the
 *                   type, and what is left when columns are missing).
 * Ties go to the lower estimated execution time, then the type listed
 * first. Only types the job may use, its class runs on and that have its
 * GPUs count (and, under mem-aware, pol_mem_types keeps).
 *
 * order=fifo|sjf orders waiting jobs. sort=after: a job is allocated the
 * moment it arrives, and each type's queue is kept in the order (sjf: the
 * estimated execution time on that type). sort=before: the jobs that
 * arrived since the last pass are first sorted by the order (sjf: their
 * lowest estimated execution time over the types), then allocated one by
 * one, and each type's queue keeps the allocation order. The head of a
 * type's queue blocks the rest of that queue only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies_internal.h"

struct entry {
    double key;
    uint64_t seq; /* allocation number: equal keys keep that order */
    uint32_t job;
};

struct queue {
    struct entry *a; /* (cap) a min-heap on (key, seq) */
    size_t len, cap;
};

struct alloc {
    int efficiency; /* max-efficiency, else min-exec-time */
    int sjf;        /* order=sjf, else fifo */
    int before;     /* sort=before, else after */
    int mem_aware;
    double mem_margin;
    const double *usage; /* cfg->usage, borrowed */
    struct pol_placer *placer;
    struct queue q[SIM_MAX_GPU_TYPES];
    uint32_t *batch; /* (batch_cap) arrived, not yet allocated */
    size_t nbatch, batch_cap;
    uint64_t seq;
    int oom;
};

static const struct pol_param alloc_params[] = {
    {"order", "fifo", "fifo or sjf: the order of waiting jobs"},
    {"sort", "after",
     "after (allocate on arrival, then order each type's "
     "queue) or before (order the new jobs, then allocate)"},
    {NULL, NULL, NULL},
};

static int before(const struct entry *x, const struct entry *y)
{
    return x->key != y->key ? x->key < y->key : x->seq < y->seq;
}

static int queue_push(struct queue *q, struct entry e)
{
    if (q->len == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        struct entry *a = realloc(q->a, cap * sizeof *a);
        if (!a)
            return SIM_ENOMEM;
        q->a = a;
        q->cap = cap;
    }
    size_t i = q->len++;
    while (i > 0 && before(&e, &q->a[(i - 1) / 2])) {
        q->a[i] = q->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->a[i] = e;
    return 0;
}

static void queue_pop(struct queue *q)
{
    struct entry e = q->a[--q->len];
    size_t i = 0, c;
    while ((c = 2 * i + 1) < q->len) {
        if (c + 1 < q->len && before(&q->a[c + 1], &q->a[c]))
            c++;
        if (!before(&q->a[c], &e))
            break;
        q->a[i] = q->a[c];
        i = c;
    }
    if (q->len > 0)
        q->a[i] = e;
}

/* JOB's estimated peak memory per GPU: est_mem_mb, else the trace's
 * gpu_mem_peak; 0 when neither is known. */
static double mem_need(const struct alloc *a, const struct sim *s, uint32_t job)
{
    double m = sim_est_mem_mb(s, job);
    if (m > 0 || !a->usage)
        return m;
    m = a->usage[(size_t)job * 2 * POL_USAGE_N + 2 * POL_USE_GPU_MEM];
    return m > 0 ? m : 0;
}

/* eff(t): each resource with a known peak p and burst b (measured on the
 * reference type) adds p / (b * k), k the capacity of type T for it
 * relative to the reference: the job's speed-up for GPU utilization, the
 * memory ratio for GPU memory and its utilization, 1 for CPU. Without GPU
 * memory columns, est_mem_mb stands for the peak and the reference type's
 * memory for the burst. */
static double efficiency(const struct alloc *a, const struct sim *s,
                         uint32_t job, int32_t t)
{
    const struct cluster *c = sim_cluster(s);
    int32_t ref = c->reference;
    double rt = sim_est_runtime_s(s, job, t);
    double rt_ref = sim_est_runtime_s(s, job, ref);
    double k[POL_USAGE_N] = {
        [POL_USE_GPU_UTIL] = rt > 0 && rt_ref > 0
                                 ? rt_ref / rt
                                 : c->types[t].speed / c->types[ref].speed,
        [POL_USE_GPU_MEM_UTIL] =
            c->types[t].memory_mb / c->types[ref].memory_mb,
        [POL_USE_GPU_MEM] = c->types[t].memory_mb / c->types[ref].memory_mb,
        [POL_USE_CPU_UTIL] = 1,
    };
    double eff = 0;
    for (int r = 0; r < POL_USAGE_N; r++) {
        double p = NAN, b = NAN;
        if (a->usage) {
            p = a->usage[(size_t)job * 2 * POL_USAGE_N + 2 * (size_t)r];
            b = a->usage[(size_t)job * 2 * POL_USAGE_N + 2 * (size_t)r + 1];
        }
        if (r == POL_USE_GPU_MEM && !(p >= 0 && b > 0) &&
            sim_est_mem_mb(s, job) > 0) {
            p = sim_est_mem_mb(s, job);
            b = c->types[ref].memory_mb;
        }
        if (p >= 0 && b > 0 && k[r] > 0)
            eff += p / (b * k[r]);
    }
    return eff;
}

/* The type JOB goes to, or -1 when none can take it. */
static int32_t choose(const struct alloc *a, const struct sim *s, uint32_t job)
{
    const struct cluster *c = sim_cluster(s);
    const struct sim_job *j = sim_job(s, job);
    uint32_t ok = a->mem_aware
                      ? pol_mem_types(s, job, j->allowed, a->mem_margin)
                      : j->allowed;
    double mem = a->efficiency ? mem_need(a, s, job) : 0;
    int32_t best = -1;
    double best_eff = -INFINITY, best_rt = INFINITY;
    for (int32_t t = 0; t < c->ntypes; t++) {
        double rt = sim_est_runtime_s(s, job, t);
        if (!(ok & (1u << t)) || !(rt > 0) || j->num_gpus > c->types[t].gpus)
            continue;
        /* efficiency is defined where the job fits in memory */
        if (mem > c->types[t].memory_mb)
            continue;
        double eff = a->efficiency ? efficiency(a, s, job, t) : 0;
        if (eff > best_eff || (eff == best_eff && rt < best_rt)) {
            best = t;
            best_eff = eff;
            best_rt = rt;
        }
    }
    if (best < 0) /* memory rules out all: the fastest that can take it */
        for (int32_t t = 0; t < c->ntypes; t++) {
            double rt = sim_est_runtime_s(s, job, t);
            if ((j->allowed & (1u << t)) && rt > 0 &&
                j->num_gpus <= c->types[t].gpus && rt < best_rt) {
                best = t;
                best_rt = rt;
            }
        }
    return best;
}

/* Gives JOB to its type's queue; KEY orders it there. */
static void allocate(struct alloc *a, const struct sim *s, uint32_t job,
                     int use_order)
{
    int32_t t = choose(a, s, job);
    if (t < 0) { /* cannot happen for a job the engine let in */
        a->oom = 1;
        return;
    }
    double key = use_order && a->sjf ? sim_est_runtime_s(s, job, t) : 0;
    if (queue_push(&a->q[t], (struct entry){key, a->seq++, job}) != 0)
        a->oom = 1;
}

/* sort=before: the new jobs' order; SJF by the lowest estimate. */
static double batch_key(const struct alloc *a, const struct sim *s,
                        uint32_t job)
{
    if (!a->sjf)
        return 0;
    double best = INFINITY;
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++) {
        double rt = sim_est_runtime_s(s, job, t);
        if ((sim_job(s, job)->allowed & (1u << t)) && rt > 0 && rt < best)
            best = rt;
    }
    return best;
}

static int by_key(const void *x, const void *y)
{
    const struct entry *p = x, *q = y;
    return before(p, q) ? -1 : before(q, p);
}

static int allocate_batch(struct alloc *a, const struct sim *s)
{
    struct entry *e = malloc(a->nbatch * sizeof *e);
    if (!e)
        return SIM_ENOMEM;
    for (size_t i = 0; i < a->nbatch; i++)
        e[i] = (struct entry){batch_key(a, s, a->batch[i]), i, a->batch[i]};
    qsort(e, a->nbatch, sizeof *e, by_key);
    for (size_t i = 0; i < a->nbatch; i++)
        allocate(a, s, e[i].job, 0);
    a->nbatch = 0;
    free(e);
    return a->oom ? SIM_ENOMEM : 0;
}

static int alloc_schedule(void *state, struct sim *s)
{
    struct alloc *a = state;
    if (a->oom || (a->before && a->nbatch && allocate_batch(a, s) != 0))
        return SIM_ENOMEM;
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++) {
        struct queue *q = &a->q[t];
        while (q->len > 0) {
            struct sim_placement p;
            int rc = pol_place_on(a->placer, s, q->a[0].job, t, &p);
            if (rc == 1)
                break; /* the head blocks its type */
            if (rc == 0)
                rc = sim_start(s, q->a[0].job, &p);
            if (rc)
                return rc;
            queue_pop(q);
        }
    }
    return 0;
}

static void alloc_arrival(void *state, struct sim *s, uint32_t job)
{
    struct alloc *a = state;
    if (!a->before) {
        allocate(a, s, job, 1);
        return;
    }
    if (a->nbatch == a->batch_cap) {
        size_t cap = a->batch_cap ? 2 * a->batch_cap : 64;
        uint32_t *b = realloc(a->batch, cap * sizeof *b);
        if (!b) {
            a->oom = 1;
            return;
        }
        a->batch = b;
        a->batch_cap = cap;
    }
    a->batch[a->nbatch++] = job;
}

static void alloc_destroy(void *state)
{
    struct alloc *a = state;
    if (!a)
        return;
    pol_placer_destroy(a->placer);
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        free(a->q[t].a);
    free(a->batch);
    free(a);
}

static int alloc_create(const struct pol_config *cfg, void **state,
                        int efficiency)
{
    const char *order, *sort;
    int rc = pol_opt_string(cfg, "order", &order);
    if (!rc)
        rc = pol_opt_string(cfg, "sort", &sort);
    if (rc)
        return rc;
    if (strcmp(order, "fifo") != 0 && strcmp(order, "sjf") != 0)
        return pol_refuse(cfg,
                          "--policy-opt order wants fifo or sjf, got "
                          "'%s'",
                          order);
    if (strcmp(sort, "before") != 0 && strcmp(sort, "after") != 0)
        return pol_refuse(cfg,
                          "--policy-opt sort wants before or after, "
                          "got '%s'",
                          sort);
    struct alloc *a = calloc(1, sizeof *a);
    if (!a)
        return SIM_ENOMEM;
    a->efficiency = efficiency;
    a->sjf = strcmp(order, "sjf") == 0;
    a->before = strcmp(sort, "before") == 0;
    a->mem_aware = cfg->mem_aware;
    a->mem_margin = cfg->mem_margin;
    a->usage = cfg->usage;
    if (!(a->placer = pol_placer_for(cfg))) {
        alloc_destroy(a);
        return SIM_ENOMEM;
    }
    *state = a;
    return 0;
}

static int met_create(const struct pol_config *cfg, void **state)
{
    return alloc_create(cfg, state, 0);
}

static int eff_create(const struct pol_config *cfg, void **state)
{
    return alloc_create(cfg, state, 1);
}

const struct pol_ops pol_min_exec_time = {
    .name = "min-exec-time",
    .description = "each job to the GPU type of lowest estimated run time, "
                   "a queue per type (Ferrino & Choe 2024)",
    .params = alloc_params,
    .needs_estimates = 1,
    .create = met_create,
    .destroy = alloc_destroy,
    .on_arrival = alloc_arrival,
    .schedule = alloc_schedule,
};

const struct pol_ops pol_max_efficiency = {
    .name = "max-efficiency",
    .description = "each job to the GPU type of highest efficiency, the sum "
                   "of peak/burst usage, a queue per type (Ferrino & Choe "
                   "2024)",
    .params = alloc_params,
    .needs_estimates = 1,
    .create = eff_create,
    .destroy = alloc_destroy,
    .on_arrival = alloc_arrival,
    .schedule = alloc_schedule,
};
