/* gavel.c -- Gavel's heterogeneity-aware policies (Narayanan et al.,
 * "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
 * Workloads", OSDI'20): an allocation X[j][t], the fraction of time job j
 * should run on GPU type t, from a linear program (lp.c), realised round by
 * round.
 *
 * Throughput T[j][t]: units of work per second of job j on one node of t
 * (1 / unit_s of its class), or spread over nodes when its class runs on t
 * only that way or it needs more GPUs than a node of t holds; 0 when it
 * may not or cannot run on t. A job with T = 0 everywhere is left out of
 * the LP. The paper's effective throughput (sec. 3.1) of job j is
 * sum_t T[j][t] X[j][t]. Every LP has Gavel's constraints (sec. 4.1):
 * X >= 0, sum_t X[j][t] <= 1, sum_j num_gpus(j) X[j][t] <= GPUs of t.
 *  - gavel-maxmin (sec. 4.1, heterogeneity-aware LAS): maximize min over
 *    jobs of num_gpus(j) * sum_t T[j][t] X[j][t] / E_j, where E_j =
 *    sum_t T[j][t] n_t / N is j's throughput under an equal share (its time
 *    spread over the types in proportion to their GPUs n_t, N = all GPUs:
 *    Gavel's proportional policy, policies/proportional.py). Weighting by
 *    num_gpus is Gavel's scale_factor (max_min_fairness.py): fairness in
 *    GPU-time, as LAS. Among the max-min optima, the one with the largest
 *    sum over jobs and types of X[j][t] T[j][t] / max_t T[j][t] (time,
 *    valued by the job's relative speed on the type; lp.c), so GPUs the
 *    bottleneck cannot use are used; Gavel's ECOS solver picks some
 *    optimum, we pick this one.
 *  - gavel-makespan (sec. 4.2, "minimize makespan"): minimize max_j S_j /
 *    throughput_j, S_j the work j has left by its estimate. That is the
 *    linear program: maximize u with sum_t T[j][t] X[j][t] >= S_j u (u =
 *    1 / makespan); Gavel finds the same optimum by bisection on the
 *    makespan (min_total_duration.py). Then the largest sum, as above. A
 *    job past its estimate counts 1/1000 of it as left.
 * The LP gets each job's T / max_t T and a separate scale (lp.c's need):
 *    GLPK's simplex fails when one row's numbers span many orders of
 *    magnitude (steps left range from a few to 10^8).
 *  - gavel-fifo (sec. 4.2, heterogeneity-aware FIFO): maximize sum_j
 *    (M - m_j) sum_t T[j][t] X[j][t] / max_t T[j][t], M the active jobs,
 *    m_j = 0, 1, ... their arrival rank: earlier jobs weigh more.
 *
 * Rounds (sec. 5): a round starts when a job arrives at an idle policy
 * (nothing of its running), round_s after the last one began, or as soon
 * as every job of the round has finished. At its start, X is solved again
 * if a job arrived or finished since the last solve. Each (job, type) pair
 * with X[j][t] > 0 gets priority X[j][t] / (r[j][t] / R_j): r = rounds j ran
 * on t, R_j = rounds it took part in since it arrived, this one included
 * (infinite while r = 0). Pairs are taken by priority (then larger X, lower
 * job id, lower type); a pair's job is planned on its type when it is not
 * planned yet and the type has GPUs left for it. Then running jobs planned
 * elsewhere, or nowhere, are preempted (sim_preempt: they keep their work
 * and pay the restart overhead at their next start), jobs that stay on
 * their type keep their GPUs, and the others start in pair order: one node
 * of the type (the lowest-numbered with room), else spread over nodes in
 * index order when their class may spread; one that finds no room this
 * round waits for the next. Arrivals and finishes inside a round change
 * nothing until it ends (Gavel's mechanism). A job that ran out of GPU
 * memory keeps its place and history; the type it failed on is gone from
 * its allowed types at the next solve.
 * Cost per round: one solve when the job set changed (GLPK simplex over
 * groups of identical jobs x types columns, lp.c; `make bench` times it)
 * and O(P log P) for the P pairs, listed from the jobs the last solve
 * gave time (O(those x types)), plus O(active jobs) for the plan (a byte
 * and an int each; only the jobs that ran last round are looked up) and,
 * when the job set changed, the active list's compaction. gavel-fifo's LP (one
 * group per job: the weights differ) starts from the previous solve's basis
 * over the jobs that can matter (lp_warm.c), with the same result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gavel_internal.h"
#include "lp_internal.h"
#include "policies_internal.h"

#define GAVEL_EPS 1e-9 /* an allocation below this is none */

enum gavel_goal { GAVEL_MAXMIN, GAVEL_MAKESPAN, GAVEL_FIFO };

struct gavel {
    enum gavel_goal goal;
    double round_s;
    const struct cluster *c;
    int32_t nt;
    int32_t capacity[SIM_MAX_GPU_TYPES];
    double *x;         /* (njobs, nt) allocation of the last solve */
    int32_t *received; /* (njobs, nt) rounds run on each type */
    int32_t *rounds;   /* (njobs) rounds taken part in */
    int32_t *plan;     /* (njobs) type this round, or -1 */
    uint32_t *active;  /* (njobs) arrived, not finished, by arrival */
    uint8_t *listed;   /* (njobs) in active */
    size_t nactive;
    /* The active jobs the last solve gave time (some x above GAVEL_EPS),
     * by arrival; finished ones among them are no longer listed. The
     * rounds between two solves rank only these. */
    uint32_t *alloc; /* (njobs) */
    size_t nalloc;
    uint8_t *ran;       /* (njobs) running when the round began (realise) */
    double *coef, *sol; /* (cap, nt) scratch of a solve */
    double *need;       /* (cap) */
    int32_t *gpus;      /* (cap) */
    struct gavel_pair *pairs; /* (cap, nt), then as many for sorting */
    size_t cap;
    struct sim_seg *seg;      /* (nnodes) */
    struct pol_lp_warm *warm; /* gavel-fifo's solver (lp_warm.c) */
    double round_end;
    int32_t running; /* jobs of this round still running */
    int in_round, dirty, oom;
};

static const struct pol_param gavel_params[] = {
    {"round_s", "360",
     "seconds per round: the allocation is realised "
     "round by round (Gavel's default 6 min)"},
    {NULL, NULL, NULL},
};

/* T[j][t] of the header comment. */
static double throughput(const struct sim *s, uint32_t job, int32_t t)
{
    const struct sim_job *j = sim_job(s, job);
    const struct gpu_type *ty = &sim_cluster(s)->types[t];
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    if (!(j->allowed & (1u << t)) || j->num_gpus > ty->gpus)
        return 0;
    if (cl->unit_s[t] > 0 && j->num_gpus <= ty->max_per_node)
        return 1 / cl->unit_s[t];
    return cl->spread_unit_s[t] > 0 ? 1 / cl->spread_unit_s[t] : 0;
}

/* Job j's row of the LP from THR = T[j][.]: coefficients T / max_t T (its
 * relative speeds) into THR, and the need that scales them (lp.c). */
static double to_lp_row(const struct gavel *g, const struct sim *s, size_t i,
                        double *thr)
{
    uint32_t job = g->active[i];
    const struct sim_job *j = sim_job(s, job);
    double equal = 0, best = 0;
    for (int32_t t = 0; t < g->nt; t++) {
        equal += thr[t] * g->capacity[t] / g->c->total_gpus;
        best = fmax(best, thr[t]);
    }
    if (!(best > 0))
        return 1; /* all 0: out of the LP */
    for (int32_t t = 0; t < g->nt; t++)
        thr[t] /= best;
    switch (g->goal) {
    case GAVEL_MAXMIN: /* v = num_gpus T X / E */
        return equal / (j->num_gpus * best);
    case GAVEL_MAKESPAN: { /* v = T X / S */
        double left = j->est_work - (j->work - sim_work_left(s, job));
        return fmax(left, 1e-3 * j->est_work) / best;
    }
    default: /* FIFO's weight (M - m) goes into the coefficients */
        for (int32_t t = 0; t < g->nt; t++)
            thr[t] *= (double)(g->nactive - i);
        return 1;
    }
}

static int grow(struct gavel *g, size_t n)
{
    if (n <= g->cap)
        return 0;
    size_t cap = 2 * n, cells = cap * (size_t)g->nt;
    double *coef = realloc(g->coef, cells * sizeof *coef);
    if (coef)
        g->coef = coef;
    double *sol = realloc(g->sol, cells * sizeof *sol);
    if (sol)
        g->sol = sol;
    int32_t *gpus = realloc(g->gpus, cap * sizeof *gpus);
    if (gpus)
        g->gpus = gpus;
    double *need = realloc(g->need, cap * sizeof *need);
    if (need)
        g->need = need;
    struct gavel_pair *pairs = realloc(g->pairs, 2 * cells * sizeof *pairs);
    if (pairs)
        g->pairs = pairs;
    if (!coef || !sol || !gpus || !need || !pairs)
        return SIM_ENOMEM;
    g->cap = cap;
    return 0;
}

/* Solves the policy's LP over the active jobs into g->x. */
static int solve(struct gavel *g, struct sim *s)
{
    size_t n = g->nactive, nt = (size_t)g->nt;
    if (grow(g, n))
        return SIM_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        double *row = &g->coef[i * nt];
        for (int32_t t = 0; t < g->nt; t++)
            row[t] = throughput(s, g->active[i], t);
        g->need[i] = to_lp_row(g, s, i, row);
        g->gpus[i] = sim_job(s, g->active[i])->num_gpus;
    }
    struct pol_lp lp = {(int32_t)n, g->nt,   g->coef,
                        g->need,    g->gpus, g->capacity};
    char why[200], text[256];
    double value;
    int rc = g->goal == GAVEL_FIFO
                 ? pol_lp_solve_warm(g->warm, &lp, g->active, g->sol, &value,
                                     why, sizeof why)
                 : pol_lp_solve(&lp, POL_LP_MAX_MIN, g->sol, &value, why,
                                sizeof why);
    if (rc == SIM_EINVAL) {
        snprintf(text, sizeof text, "at %.17g s, %zu jobs: %s", sim_now(s), n,
                 why);
        return sim_fail(s, text);
    }
    if (rc == 0)
        g->nalloc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint32_t j = g->active[i];
        memcpy(&g->x[j * nt], &g->sol[i * nt], nt * sizeof *g->sol);
        int some = 0;
        for (size_t t = 0; t < nt; t++)
            some |= g->x[j * nt + t] > GAVEL_EPS;
        if (some)
            g->alloc[g->nalloc++] = j;
    }
    return rc;
}

/* The order of a round's pairs, a total one: higher priority first, then
 * the larger share, then by job and type. */
static inline int pair_before(const struct gavel_pair *p,
                              const struct gavel_pair *q)
{
    if (p->prio != q->prio)
        return p->prio > q->prio;
    if (p->x != q->x)
        return p->x > q->x;
    if (p->job != q->job)
        return p->job < q->job;
    return p->type < q->type;
}

/* gavel_internal.h. Runs of 8 by insertion, then merged in passes from
 * one array to the other. qsort's call through a pointer for each
 * comparison was 7 % of gavel-fifo's instructions on Gavel's 6214e9
 * (55,311 rounds); the order being total, the result is qsort's. */
void pol_gavel_sort_pairs(struct gavel_pair *a, struct gavel_pair *tmp,
                          size_t n)
{
    enum { RUN = 8 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            struct gavel_pair e = a[i];
            size_t k = i;
            for (; k > lo && pair_before(&e, &a[k - 1]); k--)
                a[k] = a[k - 1];
            a[k] = e;
        }
    }
    struct gavel_pair *from = a, *to = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n,
                   hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid,
                   k = lo;
            while (i < mid && j < hi)
                to[k++] =
                    pair_before(&from[j], &from[i]) ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        struct gavel_pair *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, n * sizeof *a);
}

/* The pairs of this round, by priority; returns how many. */
static size_t rank_pairs(struct gavel *g)
{
    size_t np = 0, nt = (size_t)g->nt;
    for (size_t i = 0; i < g->nalloc; i++) {
        uint32_t j = g->alloc[i];
        if (!g->listed[j]) /* finished since the solve */
            continue;
        size_t first = np;
        for (int32_t t = 0; t < g->nt; t++) {
            double x = g->x[j * nt + (size_t)t];
            if (x > GAVEL_EPS)
                g->pairs[np++] = (struct gavel_pair){0, x, j, t};
        }
        if (np > first)
            g->rounds[j]++;
        for (size_t k = first; k < np; k++) {
            int32_t r = g->received[j * nt + (size_t)g->pairs[k].type];
            g->pairs[k].prio = r ? g->pairs[k].x * g->rounds[j] / r : INFINITY;
        }
    }
    pol_gavel_sort_pairs(g->pairs, g->pairs + g->cap * (size_t)g->nt, np);
    return np;
}

/* GPUs of type T for waiting JOB now (the rule of the header comment):
 * 0 with *pl filled, or 1 when there is no room this round. */
static int place_on(struct gavel *g, const struct sim *s, uint32_t job,
                    int32_t t, struct sim_placement *pl)
{
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    *pl = (struct sim_placement){t, 1, g->seg, NULL};
    int32_t node, count, need = j->num_gpus, n = 0;
    if (cl->unit_s[t] > 0 && (node = sim_find_node(s, t, need)) >= 0) {
        g->seg[0] = (struct sim_seg){node, need};
        return 0;
    }
    if (!(cl->spread_unit_s[t] > 0))
        return 1;
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    for (int32_t i = 0; i < count && need > 0; i++) {
        int32_t take = sim_node_free(s, nodes[i]);
        if (n == 0 && !(cl->unit_s[t] > 0) && take >= need)
            take = need - 1; /* it runs on t only spread */
        take = take < need ? take : need;
        if (take > 0) {
            g->seg[n++] = (struct sim_seg){nodes[i], take};
            need -= take;
        }
    }
    pl->nseg = n;
    return need > 0 || n < 2;
}

/* Plans this round (greedy by priority), preempts, starts. */
static int realise(struct gavel *g, struct sim *s, size_t np)
{
    int32_t left[SIM_MAX_GPU_TYPES];
    memcpy(left, g->capacity, sizeof left);
    size_t nt = (size_t)g->nt;
    /* a job runs only if the last round planned it (its type kept until
     * it finished, gavel_finish): the others need no look at their
     * records below */
    for (size_t i = 0; i < g->nactive; i++) {
        uint32_t j = g->active[i];
        g->ran[j] = g->plan[j] >= 0;
        g->plan[j] = -1;
    }
    for (size_t k = 0; k < np; k++) {
        const struct gavel_pair *p = &g->pairs[k];
        int32_t need = sim_job(s, p->job)->num_gpus;
        if (g->plan[p->job] < 0 && left[p->type] >= need) {
            g->plan[p->job] = p->type;
            left[p->type] -= need;
        }
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < g->nactive; i++) {
        uint32_t job = g->active[i];
        if (!g->ran[job])
            continue;
        const struct sim_job *j = sim_job(s, job);
        if (j->state == JOB_RUNNING && g->plan[job] != j->gpu_type)
            rc = sim_preempt(s, job);
    }
    g->running = 0;
    for (size_t k = 0; rc == 0 && k < np; k++) {
        uint32_t job = g->pairs[k].job;
        int32_t t = g->pairs[k].type;
        if (g->plan[job] != t)
            continue;
        struct sim_placement pl;
        if (sim_job(s, job)->state != JOB_RUNNING) {
            if (place_on(g, s, job, t, &pl)) {
                g->plan[job] = -1;
                continue;
            }
            rc = sim_start(s, job, &pl);
        }
        g->received[job * nt + (size_t)t]++;
        g->running++;
    }
    return rc;
}

/* Drops finished (and failed) jobs from the active list, keeping arrival
 * order. */
static void compact(struct gavel *g, const struct sim *s)
{
    size_t n = 0;
    for (size_t i = 0; i < g->nactive; i++) {
        uint32_t j = g->active[i];
        uint8_t state = sim_job(s, j)->state;
        if (state == JOB_COMPLETED || state == JOB_FAILED)
            g->listed[j] = 0;
        else
            g->active[n++] = j;
    }
    g->nactive = n;
}

static int round_start(struct gavel *g, struct sim *s)
{
    if (g->dirty) /* every job that finishes or fails goes by gavel_finish */
        compact(g, s);
    g->in_round = 0;
    if (g->nactive == 0)
        return 0;
    int rc = 0;
    if (g->dirty && (rc = solve(g, s)) != 0)
        return rc;
    g->dirty = 0;
    if ((rc = realise(g, s, rank_pairs(g))) != 0 || g->running == 0)
        return rc;
    g->in_round = 1;
    g->round_end = sim_now(s) + g->round_s;
    return sim_wake_at(s, g->round_end);
}

static int gavel_schedule(void *state, struct sim *s)
{
    struct gavel *g = state;
    if (g->oom)
        return SIM_ENOMEM;
    if (g->in_round && sim_now(s) < g->round_end && g->running > 0)
        return 0;
    return round_start(g, s);
}

static void gavel_arrival(void *state, struct sim *s, uint32_t job)
{
    struct gavel *g = state;
    if (!g->x) {
        size_t n = sim_njobs(s), cells = n * (size_t)g->nt;
        g->x = calloc(cells, sizeof *g->x);
        g->received = calloc(cells, sizeof *g->received);
        g->rounds = calloc(n, sizeof *g->rounds);
        g->plan = malloc(n * sizeof *g->plan);
        g->active = malloc(n * sizeof *g->active);
        g->listed = calloc(n, sizeof *g->listed);
        g->alloc = malloc(n * sizeof *g->alloc);
        g->ran = calloc(n, sizeof *g->ran);
        if (!g->x || !g->received || !g->rounds || !g->plan || !g->active ||
            !g->listed || !g->alloc || !g->ran) {
            g->oom = 1;
            return;
        }
    }
    g->plan[job] = -1;
    if (!g->listed[job]) {  /* a job back from running out of memory is */
        g->listed[job] = 1; /* still listed, at its first arrival */
        g->active[g->nactive++] = job;
    }
    g->dirty = 1;
}

static void gavel_finish(void *state, struct sim *s, uint32_t job)
{
    (void)s;
    struct gavel *g = state;
    if (g->plan && g->plan[job] >= 0) {
        g->plan[job] = -1;
        g->running--;
    }
    g->dirty = 1;
}

static void gavel_destroy(void *state)
{
    struct gavel *g = state;
    if (!g)
        return;
    free(g->x);
    free(g->received);
    free(g->rounds);
    free(g->plan);
    free(g->active);
    free(g->listed);
    free(g->alloc);
    free(g->ran);
    free(g->coef);
    free(g->sol);
    free(g->gpus);
    free(g->need);
    free(g->pairs);
    pol_lp_warm_destroy(g->warm);
    free(g);
}

static int create(const struct pol_config *cfg, enum gavel_goal goal,
                  void **state)
{
    const struct cluster *c = cfg->cluster;
    struct gavel *g =
        calloc(1, sizeof *g + ((size_t)c->nnodes + 1) * sizeof(struct sim_seg));
    if (!g)
        return SIM_ENOMEM;
    g->seg = (struct sim_seg *)(g + 1);
    g->goal = goal;
    g->c = c;
    g->nt = c->ntypes;
    for (int32_t t = 0; t < c->ntypes; t++)
        g->capacity[t] = c->types[t].gpus;
    int rc = pol_opt_double(cfg, "round_s", 1e-3, 1e9, &g->round_s);
    if (!rc && goal == GAVEL_FIFO && !(g->warm = pol_lp_warm_create()))
        rc = SIM_ENOMEM;
    if (rc) {
        free(g);
        return rc;
    }
    *state = g;
    return 0;
}

static int create_maxmin(const struct pol_config *cfg, void **state)
{
    return create(cfg, GAVEL_MAXMIN, state);
}

static int create_makespan(const struct pol_config *cfg, void **state)
{
    return create(cfg, GAVEL_MAKESPAN, state);
}

static int create_fifo(const struct pol_config *cfg, void **state)
{
    return create(cfg, GAVEL_FIFO, state);
}

#define GAVEL_OPS(policy, desc, estimates)                                     \
    .name = policy, .description = desc, .params = gavel_params,               \
    .needs_estimates = estimates, .preemptive = 1, .destroy = gavel_destroy,   \
    .on_arrival = gavel_arrival, .on_finish = gavel_finish,                    \
    .schedule = gavel_schedule

const struct pol_ops pol_gavel_maxmin = {
    GAVEL_OPS("gavel-maxmin",
              "Gavel's heterogeneity-aware max-min fairness: an LP (GLPK) "
              "over effective throughputs, time-sliced in rounds",
              0),
    .create = create_maxmin,
};

const struct pol_ops pol_gavel_makespan = {
    GAVEL_OPS("gavel-makespan",
              "Gavel's makespan policy: an LP (GLPK) that finishes the "
              "active jobs soonest, time-sliced in rounds",
              1),
    .create = create_makespan,
};

const struct pol_ops pol_gavel_fifo = {
    GAVEL_OPS("gavel-fifo",
              "Gavel's heterogeneity-aware FIFO: an LP (GLPK) weighting "
              "earlier jobs more, time-sliced in rounds",
              0),
    .create = create_fifo,
};
