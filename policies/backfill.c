/* backfill.c -- --backfill easy|conservative: later jobs start around a
 * blocked head of a non-preemptive list policy (fifo, sjf, edf, ...).
 *
 * Each pass rebuilds, for every GPU type, a profile of free GPUs over time:
 * the GPUs free now, plus those of each running job at its estimated end,
 * now + pol_est_remaining_s(). GPUs are counted per type, not per node: the
 * placer spreads a job over nodes when no node has room, so a count is what
 * decides whether a job can start, and fragmentation only makes the spread
 * job slower (a class that cannot spread may find its reservation
 * optimistic). A job that has outlived its estimate is expected to end now,
 * so the reservations behind it wait with it; a backfilled job that
 * outlives its own estimate delays them. Neither breaks the engine: they
 * are the price of wrong estimates, as in any backfilling scheduler.
 *
 * Reservation of a waiting job: for every type T it may use (allowed, its
 * class runs there, enough GPUs of T in the cluster), its estimated run D(T)
 * (estimated work times the class's seconds per unit on T, on one node when
 * it fits on one node of T, else spread), and the earliest step of T's
 * profile from which num_gpus GPUs stay free for D(T). It takes the
 * earliest of these (ties: the shorter run, then the type listed first) and
 * removes its GPUs from that type's profile over [start, start + D).
 *
 * Start rule, for each later waiting job in key order: the placer (the
 * --placement rule) proposes a placement now; the job starts if the profile
 * of that placement's type keeps num_gpus GPUs free over [now, now + D),
 * with D its estimated run on that placement, and its GPUs are then taken
 * from the profile. Only the placer's proposal is tried, not other types.
 *
 * EASY (Lifka 1995; Mu'alem & Feitelson 2001): only the blocked head holds
 * a reservation. Because free GPUs of running jobs only grow over time, the
 * start rule is exactly the classic one: with the head reserved on type R
 * at the shadow time S and E "extra" GPUs of R free at S beyond its needs,
 * a job may start now if it lands on a type other than R, or ends (by its
 * estimate) by S, or needs at most E GPUs, which then leave E.
 *
 * Conservative: every waiting job that does not start gets a reservation,
 * in key order, so a job starts now only if it delays no reservation of any
 * job ahead of it. Reservations are recomputed at every pass; a job that
 * arrives with a smaller key (sjf, edf) goes ahead of those already
 * waiting, as the policy's order says.
 *
 * A pass stops as soon as no GPU is free now. A conservative pass also
 * stops after POL_BF_DEPTH (100) waiting jobs, the head included: deeper
 * jobs neither start nor hold reservations in that pass (as Slurm's
 * bf_max_job_test and Maui's reservation depth bound theirs), because each
 * reservation costs O(profile steps) and the steps grow by two with each.
 * EASY looks at the whole queue: per pass O(running log running) for the
 * profile, then per job O(log queue) to reach it in key order, one
 * placement and O(running) to check it. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "listsched_internal.h"

#ifndef POL_BF_DEPTH
#define POL_BF_DEPTH 100 /* jobs a conservative pass looks at */
#endif

/* FREE GPUs from time T until the next step. */
struct step {
    double t;
    int32_t free;
};

struct profile {
    struct step *st; /* (cap) in time order; st[0].t = now */
    size_t n, cap;
};

struct release {
    double t;
    int32_t type, gpus;
};

struct pol_bf {
    const struct cluster *cluster;
    enum pol_backfill mode;
    double now;
    size_t offered;      /* jobs looked at in this pass, the head included */
    uint32_t *running;   /* (run_cap) jobs we started, some since ended */
    struct release *rel; /* (run_cap) scratch */
    size_t nrun, run_cap;
    struct profile prof[SIM_MAX_GPU_TYPES];
};

/* Times this close are one instant: estimated ends are sums of floats. */
static double slack(double t)
{
    return 1e-9 * (fabs(t) > 1 ? fabs(t) : 1);
}

/* X comes before END, END excluded. */
static int before(double x, double end)
{
    return isinf(end) || x < end - slack(end);
}

static int prof_grow(struct profile *p, size_t n)
{
    if (n <= p->cap)
        return 0;
    size_t cap = p->cap ? 2 * p->cap : 64;
    while (cap < n)
        cap *= 2;
    struct step *st = realloc(p->st, cap * sizeof *st);
    if (!st)
        return SIM_ENOMEM;
    p->st = st;
    p->cap = cap;
    return 0;
}

/* Index of the step in force at time T >= st[0].t. */
static size_t prof_at(const struct profile *p, double t)
{
    size_t lo = 0, hi = p->n; /* st[lo].t <= t; the answer is below hi */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->st[mid].t <= t + slack(t))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Fewest free GPUs over [A, END). */
static int32_t prof_min(const struct profile *p, double a, double end)
{
    size_t i = prof_at(p, a);
    int32_t m = p->st[i].free;
    for (i++; i < p->n && before(p->st[i].t, end); i++)
        if (p->st[i].free < m)
            m = p->st[i].free;
    return m;
}

/* The earliest step from which NEED GPUs stay free for D seconds, or
 * INFINITY. */
static double prof_earliest(const struct profile *p, int32_t need, double d)
{
    size_t i = 0;
    while (i < p->n) {
        if (p->st[i].free < need) {
            i++;
            continue;
        }
        double end = p->st[i].t + d;
        size_t k = i + 1;
        while (k < p->n && before(p->st[k].t, end) && p->st[k].free >= need)
            k++;
        if (k == p->n || !before(p->st[k].t, end))
            return p->st[i].t;
        i = k + 1; /* st[k] is short: no start up to it can work */
    }
    return INFINITY;
}

/* Index of the step that starts at T, split off if none does; -1 when out
 * of memory. */
static ptrdiff_t prof_split(struct profile *p, double t)
{
    size_t i = prof_at(p, t);
    if (fabs(p->st[i].t - t) <= slack(t))
        return (ptrdiff_t)i;
    if (prof_grow(p, p->n + 1) != 0)
        return -1;
    memmove(&p->st[i + 2], &p->st[i + 1], (p->n - i - 1) * sizeof *p->st);
    p->st[i + 1] = (struct step){t, p->st[i].free};
    p->n++;
    return (ptrdiff_t)i + 1;
}

/* Takes NEED GPUs over [A, END). */
static int prof_take(struct profile *p, double a, double end, int32_t need)
{
    ptrdiff_t ia = prof_split(p, a), ib = (ptrdiff_t)p->n;
    if (ia < 0)
        return SIM_ENOMEM;
    if (!isinf(end) && (ib = prof_split(p, end)) < 0)
        return SIM_ENOMEM;
    for (ptrdiff_t i = ia; i < ib; i++)
        p->st[i].free -= need;
    return 0;
}

struct pol_bf *pol_bf_create(const struct cluster *c, enum pol_backfill mode)
{
    struct pol_bf *bf = calloc(1, sizeof *bf);
    if (!bf)
        return NULL;
    bf->cluster = c;
    bf->mode = mode;
    /* Running jobs hold a GPU each at least; twice that many slots make
     * pruning the ended ones amortised O(1) per start. */
    bf->run_cap = 2 * (size_t)c->total_gpus + 1;
    bf->running = malloc(bf->run_cap * sizeof *bf->running);
    bf->rel = malloc(bf->run_cap * sizeof *bf->rel);
    if (!bf->running || !bf->rel) {
        pol_bf_destroy(bf);
        return NULL;
    }
    return bf;
}

void pol_bf_destroy(struct pol_bf *bf)
{
    if (!bf)
        return;
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        free(bf->prof[t].st);
    free(bf->running);
    free(bf->rel);
    free(bf);
}

static void prune(struct pol_bf *bf, const struct sim *s)
{
    size_t k = 0;
    for (size_t i = 0; i < bf->nrun; i++)
        if (sim_job(s, bf->running[i])->state == JOB_RUNNING)
            bf->running[k++] = bf->running[i];
    bf->nrun = k;
}

void pol_bf_started(struct pol_bf *bf, const struct sim *s, uint32_t job)
{
    if (bf->nrun == bf->run_cap)
        prune(bf, s);
    if (bf->nrun < bf->run_cap) /* always, as no more jobs than GPUs run */
        bf->running[bf->nrun++] = job;
}

static int any_free(const struct sim *s)
{
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++)
        if (sim_free_gpus(s, t) > 0)
            return 1;
    return 0;
}

/* Estimated units of work JOB has left. */
static double est_left(const struct sim *s, uint32_t job)
{
    const struct sim_job *j = sim_job(s, job);
    double left = j->est_work - (j->work - sim_work_left(s, job));
    return left > 0 ? left : 0;
}

/* Seconds per unit of work of J on TYPE, one node or SPREAD; 0 = never. */
static double unit_on(const struct sim *s, const struct sim_job *j,
                      int32_t type, int spread)
{
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    return spread ? cl->spread_unit_s[type] : cl->unit_s[type];
}

/* Reserves waiting JOB's GPUs at its earliest start on a type it may use
 * (see the top of the file); a job with no such start reserves nothing. */
static int reserve(struct pol_bf *bf, const struct sim *s, uint32_t job)
{
    const struct sim_job *j = sim_job(s, job);
    const struct cluster *c = bf->cluster;
    double best = INFINITY, best_d = 0, left = est_left(s, job);
    int32_t type = -1;
    for (int32_t t = 0; t < c->ntypes; t++) {
        if (!(j->allowed & (1u << t)) || j->num_gpus > c->types[t].gpus)
            continue;
        double unit = unit_on(s, j, t, j->num_gpus > c->types[t].max_per_node);
        if (unit <= 0)
            unit = unit_on(s, j, t, 1); /* a class that only runs spread */
        if (unit <= 0)
            continue;
        double d = left * unit;
        double at = prof_earliest(&bf->prof[t], j->num_gpus, d);
        if (at < best || (at == best && !isinf(at) && d < best_d)) {
            best = at;
            best_d = d;
            type = t;
        }
    }
    if (type < 0)
        return 0;
    return prof_take(&bf->prof[type], best, best + best_d, j->num_gpus);
}

static int by_time(const void *a, const void *b)
{
    const struct release *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

int pol_bf_begin(struct pol_bf *bf, const struct sim *s, uint32_t head)
{
    if (!any_free(s))
        return 0;
    bf->now = sim_now(s);
    bf->offered = 1;
    prune(bf, s);
    for (size_t i = 0; i < bf->nrun; i++) {
        const struct sim_job *j = sim_job(s, bf->running[i]);
        bf->rel[i] =
            (struct release){bf->now + pol_est_remaining_s(s, bf->running[i]),
                             j->gpu_type, j->num_gpus};
    }
    qsort(bf->rel, bf->nrun, sizeof *bf->rel, by_time);
    for (int32_t t = 0; t < bf->cluster->ntypes; t++) {
        struct profile *p = &bf->prof[t];
        if (prof_grow(p, 1) != 0)
            return SIM_ENOMEM;
        p->st[0] = (struct step){bf->now, sim_free_gpus(s, t)};
        p->n = 1;
    }
    for (size_t i = 0; i < bf->nrun; i++) {
        struct profile *p = &bf->prof[bf->rel[i].type];
        struct step *last = &p->st[p->n - 1];
        if (bf->rel[i].t <= last->t + slack(last->t)) {
            last->free += bf->rel[i].gpus; /* ends with the step before */
            continue;
        }
        if (prof_grow(p, p->n + 1) != 0)
            return SIM_ENOMEM;
        p->st[p->n] =
            (struct step){bf->rel[i].t, p->st[p->n - 1].free + bf->rel[i].gpus};
        p->n++;
    }
    int rc = reserve(bf, s, head);
    return rc < 0 ? rc : 1;
}

int pol_bf_more(struct pol_bf *bf, const struct sim *s)
{
    return any_free(s) && (bf->mode != POL_BACKFILL_CONSERVATIVE ||
                           bf->offered < POL_BF_DEPTH);
}

int pol_bf_offer(struct pol_bf *bf, struct pol_placer *pl, struct sim *s,
                 uint32_t job)
{
    struct sim_placement p;
    bf->offered++;
    int rc = pol_place(pl, s, job, &p);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        const struct sim_job *j = sim_job(s, job);
        int32_t need = j->num_gpus;
        double end =
            bf->now + est_left(s, job) * unit_on(s, j, p.gpu_type, p.nseg > 1);
        struct profile *pr = &bf->prof[p.gpu_type];
        if (prof_min(pr, bf->now, end) >= need) {
            if ((rc = sim_start(s, job, &p)) != 0 ||
                (rc = prof_take(pr, bf->now, end, need)) != 0)
                return rc;
            pol_bf_started(bf, s, job);
            return 1;
        }
    }
    return bf->mode == POL_BACKFILL_CONSERVATIVE ? reserve(bf, s, job) : 0;
}
