/* gavel_sim.c -- the gavel:* policies: Gavel's own trace-driven simulator
 * (github.com/stanford-futuredata/gavel, commit c4fa400,
 * scheduler/scheduler.py), rule for rule, so that hetsim reproduces its
 * numbers; hetsim's gavel-* policies (gavel.c) are the paper's
 * formulations instead. The rules (R1-R11 of tests/data/gavel-reference/
 * MANIFEST.md, which gives Gavel's line numbers):
 *
 * A round starts at time T when the last one ended (or, with nothing
 * running, at the next arrival). Jobs that arrived since the last round
 * start are added then (their JCT still counts from their arrival); each
 * starts with 180 s (half a round) of time on every type. If a job arrived,
 * finished or failed since the last recompute, and reset_s (1920) seconds have
 * passed since the last reset (or it was at 0), the time so far is reset --
 * deficit += alloc * (T - last reset) - (time - 180), time = 180, worker time =
 * the sum of those -- and the allocation recomputed (gavel_sim_alloc.c).
 * Priority of job j on type w: alloc / (time[j][w] / worker_time[w]), alloc *
 * 1e9 when the worker time is 0, 0 when alloc or the throughput is 0 or j is
 * not in the allocation. Types in Gavel's order V100, P100, K80 (shuffled every
 * round with random.Random(seed + 5) for gavel:fifo and
 * gavel:max_min_fairness); each type's (job, priority, deficit, allocation)
 * entries sorted by the last three, descending (stable), the lists concatenated
 * and walked: a job takes scale-factor GPUs of the entry's type unless it is
 * placed already, its throughput there is 0, it does not fit (later jobs may),
 * or (FIFO policies) its priority is 0. A placed job not in the allocation
 * holds its GPUs idle for the round (hold_unallocated). Each placed job
 * runs n = min(int(thr * round_s), steps left) steps at its consolidated
 * throughput wherever its GPUs are (sim_start_slice with
 * SIM_RUN_CONSOLIDATED) and ends at T + n / thr; the round ends at the
 * latest end. Its time on the type grows by its end minus the end of the
 * previous round that ran jobs. A micro-task with fewer steps than GPUs
 * (n // sf == 0: Gavel splits the steps over the workers) fails: its GPUs
 * are held for n / thr without progress (SIM_RUN_NO_PROGRESS); after 5
 * failures in a row the job is dropped (sim_drop) and left out of the
 * average JCT, as in Gavel (split_fail). A round that places nothing lets
 * the clock go to the next arrival; with no arrival left, Gavel forces
 * the last reset to 0 and tries again at once.
 *
 * Engine: every decision goes through sim_start_slice and sim_drop; the
 * engine's arrival and slice-end events are the only clock. Cost per round:
 * O(A T log(A T)) for A active jobs and T types, plus a recompute. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gavel_sim_internal.h"
#include "policies_internal.h"

#define GS_STUCK_TRIES 3 /* Gavel's loop at one instant before we give up */

struct entry {
    double prio, def, alloc;
    uint32_t job, pos;
};

static const char *const gavel_order[] = {"v100", "p100", "k80"};

static const struct pol_param gs_params[] = {
    {"round_s", "360", "seconds per round (Gavel's --time_per_iteration)"},
    {"reset_s", "1920",
     "least seconds between allocation recomputes "
     "(Gavel's minimum_time_between_allocation_resets)"},
    {"seed", "0",
     "Gavel's --seed: type shuffle Random(seed+5), FIFO's "
     "Random(seed)"},
    {"fifo_bug", "1",
     "1: as Gavel, gavel:fifo gives a queued job the alphabetically last "
     "type with a free GPU (fifo.py's loop variable, R7); 0: the random "
     "type it meant"},
    {"split_fail", "1",
     "1: as Gavel, a micro-task with fewer steps than GPUs fails and 5 "
     "failures drop the job (R9); 0: it runs"},
    {"hold_unallocated", "1",
     "1: as Gavel, a job placed before it is in the allocation holds its "
     "GPUs idle for the round (R5); 0: its GPUs stay free for others"},
    {NULL, NULL, NULL},
};

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *p = a, *q = b;
    if (p->prio != q->prio)
        return p->prio > q->prio ? -1 : 1;
    if (p->def != q->def)
        return p->def > q->def ? -1 : 1;
    if (p->alloc != q->alloc)
        return p->alloc > q->alloc ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos; /* stable */
}

static int is_fifo(const struct gs *g)
{
    return g->kind == GS_FIFO || g->kind == GS_FIFO_PERF;
}

/* A job leaves Gavel's scheduler (completed, or dropped). */
static void gs_remove(struct gs *g, uint32_t j)
{
    g->gone[j] = 1;
    g->need_update = 1;
}

static const struct gs *sort_ctx; /* for by_end (qsort has no context) */

/* Gavel's heap order of finished micro-tasks: latest end first, then id;
 * it sets the order of the floating-point sums of worker time. */
static int by_end(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double fx = sort_ctx->round_finish[x], fy = sort_ctx->round_finish[y];
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return (x > y) - (x < y);
}

/* The micro-tasks of the round that just ended (R1, R4, R9). */
static int end_round(struct gs *g, struct sim *s)
{
    size_t nt = (size_t)g->nt;
    sort_ctx = g;
    qsort(g->round, g->nround, sizeof *g->round, by_end);
    for (size_t k = 0; k < g->nround; k++) {
        uint32_t j = g->round[k];
        int32_t t = g->planned[j];
        int64_t n = g->round_n[j];
        int32_t sf = sim_job(s, j)->num_gpus;
        double exec = g->round_finish[j] - g->prev_round_end;
        int64_t least = g->split_fail ? sf : 1;
        if (n < least || !(exec > 0)) { /* a failed micro-task */
            g->need_update = 1;
            if (++g->failures[j] >= GS_MAX_FAILURES) {
                int rc = sim_drop(s, j,
                                  "dropped after 5 failed micro-tasks "
                                  "(Gavel's R9: fewer steps than GPUs)");
                if (rc)
                    return rc;
                gs_remove(g, j);
            }
            continue;
        }
        g->failures[j] = 0;
        g->steps_done[j] += n;
        g->jt[j * nt + (size_t)t] += exec;
        g->worker_time[t] += exec;
        if (sim_job(s, j)->state == JOB_COMPLETED)
            gs_remove(g, j);
        else if (sim_job(s, j)->state != JOB_PREEMPTED)
            return sim_fail(s, "gavel: a micro-task outlived its round");
    }
    g->nround = 0;
    g->prev_round_end = g->round_end;
    g->in_round = 0;
    size_t n = 0; /* drop the gone jobs, keeping the order */
    for (size_t i = 0; i < g->nactive; i++)
        if (!g->gone[g->active[i]])
            g->active[n++] = g->active[i];
    g->nactive = n;
    return 0;
}

/* Jobs that arrived since the last round start join (add_job). */
static void add_pending(struct gs *g, struct sim *s)
{
    size_t nt = (size_t)g->nt;
    for (size_t k = 0; k < g->npending; k++) {
        uint32_t j = g->pending[k];
        for (size_t t = 0; t < nt; t++) {
            g->jt[j * nt + t] = g->round_s / 2.0;
            g->def[j * nt + t] = 0;
            g->prio[j * nt + t] = 0;
            int32_t cls = sim_job(s, j)->job_class;
            double unit = sim_class(s, cls)->unit_s[t];
            double rate = sim_class_rate(s, cls, (int32_t)t);
            /* 0 also where it runs out of memory: Gavel measured 0 */
            g->thr[j * nt + t] = (sim_job(s, j)->allowed >> t & 1u) &&
                                         unit > 0 &&
                                         !sim_mem_overflows(s, j, (int32_t)t)
                                     ? (rate > 0 ? rate : 1.0 / unit)
                                     : 0;
        }
        g->in_alloc[j] = 0;
        g->active[g->nactive++] = j;
        g->need_update = 1;
    }
    g->npending = 0;
}

/* _reset_time_run_so_far. */
static void reset_time(struct gs *g, double now)
{
    size_t nt = (size_t)g->nt;
    double elapsed = now - g->last_reset, half = g->round_s / 2.0;
    for (size_t t = 0; t < nt; t++) {
        g->worker_time[t] = 0.0;
        for (size_t i = 0; i < g->nactive; i++) {
            size_t c = g->active[i] * nt + t;
            double received = g->jt[c] - half;
            double should =
                g->in_alloc[g->active[i]] ? g->alloc[c] * elapsed : 0;
            g->def[c] += should - received;
            g->jt[c] = half;
            g->worker_time[t] += g->jt[c];
        }
    }
    g->last_reset = now;
}

/* _update_priorities. */
static int update_priorities(struct gs *g, struct sim *s)
{
    double now = sim_now(s);
    size_t nt = (size_t)g->nt;
    if (g->need_update &&
        (now - g->last_reset >= g->reset_s || g->last_reset == 0)) {
        reset_time(g, now);
        int rc = gs_compute_allocation(g, s);
        if (rc)
            return rc;
        g->need_update = 0;
    }
    for (size_t t = 0; t < nt; t++) {
        double wt = g->worker_time[t];
        for (size_t i = 0; i < g->nactive; i++) {
            size_t c = g->active[i] * nt + t;
            double fraction = wt == 0.0 ? 0.0 : g->jt[c] / wt, p = 0;
            if (g->in_alloc[g->active[i]]) {
                p = g->alloc[c] * 1e9;
                if (g->alloc[c] == 0.0 || g->thr[c] == 0)
                    p = 0;
                else if (fraction > 0.0)
                    p = g->alloc[c] / fraction;
            }
            g->prio[c] = p;
        }
    }
    return 0;
}

static int grow_scratch(struct gs *g)
{
    size_t need = g->nactive * (size_t)g->nt + 1;
    if (need <= g->scratch_cap)
        return 0;
    void *p = realloc(g->scratch, 2 * need * sizeof(struct entry));
    if (!p)
        return SIM_ENOMEM;
    g->scratch = p;
    g->scratch_cap = 2 * need;
    return 0;
}

/* _schedule_jobs_on_workers_helper: fills g->planned; returns the number
 * of types in ORDER. */
static int plan_round(struct gs *g, struct sim *s, int32_t *order)
{
    int32_t no = g->c->ntypes;
    memcpy(order, g->order, sizeof g->order);
    if (g->kind == GS_FIFO || g->kind == GS_MMF) /* no "Perf" in the name */
        sim_pyrand_shuffle(&g->shuffler, order, (uint32_t)no);
    struct entry *e = g->scratch;
    size_t ne = 0, nt = (size_t)g->nt;
    for (int32_t k = 0; k < no; k++) {
        size_t first = ne;
        for (size_t i = 0; i < g->nactive; i++) {
            uint32_t j = g->active[i];
            size_t c = j * nt + (size_t)order[k];
            e[ne] = (struct entry){g->prio[c], g->def[c],
                                   g->in_alloc[j] ? g->alloc[c] : 0.0, j,
                                   (uint32_t)i};
            ne++;
        }
        qsort(e + first, ne - first, sizeof *e, cmp_entry);
    }
    int32_t left[SIM_MAX_GPU_TYPES];
    for (int32_t t = 0; t < g->nt; t++)
        left[t] = g->c->types[t].gpus;
    for (size_t i = 0; i < g->nactive; i++)
        g->planned[g->active[i]] = -1;
    for (size_t k = 0, per = g->nactive; k < ne; k++) {
        uint32_t j = e[k].job;
        int32_t t = order[k / (per ? per : 1)];
        int32_t sf = sim_job(s, j)->num_gpus;
        if (left[t] == 0 || g->planned[j] >= 0 ||
            g->thr[j * nt + (size_t)t] <= 0)
            continue;
        if (is_fifo(g) && e[k].prio <= 0.0)
            continue;
        if (!g->hold_unallocated && !g->in_alloc[j])
            continue;
        if (sf > left[t])
            continue;
        left[t] -= sf;
        g->planned[j] = t;
    }
    return no;
}

/* GPUs of type T for JOB: nodes in index order (placement never changes
 * speed in Gavel's simulator). */
static int place(struct gs *g, const struct sim *s, uint32_t job, int32_t t,
                 struct sim_placement *pl)
{
    int32_t count, need = sim_job(s, job)->num_gpus, n = 0;
    const int32_t *nodes = sim_type_nodes(s, t, &count);
    for (int32_t i = 0; i < count && need > 0; i++) {
        int32_t take = sim_node_free(s, nodes[i]);
        take = take < need ? take : need;
        if (take > 0) {
            g->seg[n++] = (struct sim_seg){nodes[i], take};
            need -= take;
        }
    }
    *pl = (struct sim_placement){t, n, g->seg};
    return need > 0;
}

/* Starts the micro-tasks of the planned jobs; sets in_round. */
static int start_round(struct gs *g, struct sim *s)
{
    double now = sim_now(s), end = now;
    size_t nt = (size_t)g->nt;
    g->nround = 0;
    for (size_t i = 0; i < g->nactive; i++) {
        uint32_t j = g->active[i];
        int32_t t = g->planned[j];
        if (t < 0 || !g->in_alloc[j])
            continue; /* not in the allocation: its GPUs stay idle */
        const struct sim_job *job = sim_job(s, j);
        double thr = g->thr[j * nt + (size_t)t];
        int64_t left = (int64_t)job->work - g->steps_done[j];
        int64_t n = (int64_t)(thr * g->round_s);
        n = n < left ? n : left;
        int64_t least = g->split_fail ? job->num_gpus : 1;
        unsigned flags = SIM_RUN_CONSOLIDATED;
        if (n < least)
            flags |= SIM_RUN_NO_PROGRESS;
        struct sim_placement pl;
        if (place(g, s, j, t, &pl))
            return sim_fail(s, "gavel: no room for a planned micro-task");
        int rc = sim_start_slice(s, j, &pl, (double)n, flags);
        if (rc)
            return rc;
        g->round_n[j] = n; /* its end, as the engine computes it */
        double rate = sim_class_rate(s, job->job_class, t);
        g->round_finish[j] =
            now + (rate > 0 ? (double)n / rate : (double)n * job->unit_s);
        end = fmax(end, g->round_finish[j]);
        g->round[g->nround++] = j;
    }
    g->in_round = g->nround > 0;
    g->round_end = end;
    return 0;
}

/* Whether a job of the trace has yet to arrive. */
static int arrivals_left(struct gs *g, const struct sim *s)
{
    while (g->cursor < g->njobs &&
           sim_job(s, (uint32_t)g->cursor)->state != JOB_SUBMITTED)
        g->cursor++;
    return g->cursor < g->njobs;
}

/* One pass of Gavel's simulate() loop at a round boundary. */
static int gs_iterate(struct gs *g, struct sim *s)
{
    int rc = g->in_round ? end_round(g, s) : 0;
    if (rc)
        return rc;
    add_pending(g, s);
    for (int tries = 0;; tries++) { /* with no job too, as Gavel's loop */
        if ((rc = grow_scratch(g)) || (rc = update_priorities(g, s)))
            return rc;
        int32_t order[SIM_MAX_GPU_TYPES];
        plan_round(g, s, order);
        if ((rc = start_round(g, s)) || g->in_round || g->nactive == 0 ||
            arrivals_left(g, s))
            return rc;
        if (tries == GS_STUCK_TRIES) /* Gavel's loop would spin for ever */
            return sim_fail(s, "gavel: no job can run and none will arrive");
        g->last_reset = 0; /* no arrival left, nothing ran: l. 1274-1279 */
    }
}

static int gs_schedule(void *state, struct sim *s)
{
    struct gs *g = state;
    if (g->oom)
        return SIM_ENOMEM;
    if (g->in_round && sim_now(s) < g->round_end)
        return 0; /* inside a round: arrivals wait for its end */
    return gs_iterate(g, s);
}

static int gs_alloc_arrays(struct gs *g, const struct sim *s)
{
    size_t n = sim_njobs(s), cells = n * (size_t)g->nt;
    g->njobs = n;
    g->steps_done = calloc(n, sizeof *g->steps_done);
    g->jt = calloc(cells, sizeof *g->jt);
    g->def = calloc(cells, sizeof *g->def);
    g->alloc = calloc(cells, sizeof *g->alloc);
    g->prio = calloc(cells, sizeof *g->prio);
    g->thr = calloc(cells, sizeof *g->thr);
    g->in_alloc = calloc(n, 1);
    g->failures = calloc(n, 1);
    g->gone = calloc(n, 1);
    g->fifo_type = malloc(n * sizeof *g->fifo_type);
    g->planned = malloc(n * sizeof *g->planned);
    g->round_n = calloc(n, sizeof *g->round_n);
    g->round_finish = calloc(n, sizeof *g->round_finish);
    g->active = malloc(n * sizeof *g->active);
    g->pending = malloc(n * sizeof *g->pending);
    g->round = malloc(n * sizeof *g->round);
    if (!g->steps_done || !g->jt || !g->def || !g->alloc || !g->prio ||
        !g->thr || !g->in_alloc || !g->failures || !g->gone || !g->fifo_type ||
        !g->planned || !g->round_n || !g->round_finish || !g->active ||
        !g->pending || !g->round)
        return SIM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->fifo_type[i] = g->planned[i] = -1;
    return 0;
}

static void gs_arrival(void *state, struct sim *s, uint32_t job)
{
    struct gs *g = state;
    if (!g->active && gs_alloc_arrays(g, s) != 0)
        g->oom = 1;
    if (!g->oom)
        g->pending[g->npending++] = job;
}

static void gs_destroy(void *state)
{
    struct gs *g = state;
    if (!g)
        return;
    void *p[] = {g->steps_done,   g->jt,        g->def,      g->alloc,
                 g->prio,         g->thr,       g->in_alloc, g->failures,
                 g->gone,         g->fifo_type, g->planned,  g->round_n,
                 g->round_finish, g->active,    g->pending,  g->round,
                 g->scratch};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        free(p[i]);
    free(g);
}

/* Gavel's type order, then the alphabetical one (lower case). */
static void type_orders(struct gs *g)
{
    const struct cluster *c = g->c;
    int32_t n = 0;
    uint8_t used[SIM_MAX_GPU_TYPES] = {0};
    for (size_t k = 0; k < 3; k++)
        for (int32_t t = 0; t < c->ntypes; t++)
            if (!used[t] && strcasecmp(c->types[t].name, gavel_order[k]) == 0) {
                g->order[n++] = t;
                used[t] = 1;
            }
    for (int32_t t = 0; t < c->ntypes; t++)
        if (!used[t])
            g->order[n++] = t;
    for (int32_t t = 0; t < c->ntypes; t++)
        g->alpha[t] = t;
    for (int32_t i = 1; i < c->ntypes; i++) /* insertion sort by name */
        for (int32_t k = i; k > 0 && strcasecmp(c->types[g->alpha[k - 1]].name,
                                                c->types[g->alpha[k]].name) > 0;
             k--) {
            int32_t tmp = g->alpha[k];
            g->alpha[k] = g->alpha[k - 1];
            g->alpha[k - 1] = tmp;
        }
}

static int gs_create(const struct pol_config *cfg, enum gs_kind kind,
                     void **state)
{
    const struct cluster *c = cfg->cluster;
    struct gs *g =
        calloc(1, sizeof *g + ((size_t)c->nnodes + 1) * sizeof(struct sim_seg));
    if (!g)
        return SIM_ENOMEM;
    g->seg = (struct sim_seg *)(g + 1);
    g->kind = kind;
    g->c = c;
    g->nt = c->ntypes;
    double seed, bug, split, hold;
    int rc = pol_opt_double(cfg, "round_s", 1e-3, 1e9, &g->round_s);
    if (!rc)
        rc = pol_opt_double(cfg, "reset_s", 0, 1e12, &g->reset_s);
    if (!rc)
        rc = pol_opt_double(cfg, "seed", 0, 4294967295.0, &seed);
    if (!rc)
        rc = pol_opt_double(cfg, "fifo_bug", 0, 1, &bug);
    if (!rc)
        rc = pol_opt_double(cfg, "split_fail", 0, 1, &split);
    if (!rc)
        rc = pol_opt_double(cfg, "hold_unallocated", 0, 1, &hold);
    if (rc) {
        free(g);
        return rc;
    }
    g->fifo_bug = bug != 0;
    g->split_fail = split != 0;
    g->hold_unallocated = hold != 0;
    sim_pyrand_seed(&g->shuffler, (uint64_t)seed + 5);
    sim_pyrand_seed(&g->fifo_rng, (uint64_t)seed);
    type_orders(g);
    *state = g;
    return 0;
}

#define GS_CREATE(fn, kind)                                                    \
    static int fn(const struct pol_config *cfg, void **state)                  \
    {                                                                          \
        return gs_create(cfg, kind, state);                                    \
    }
GS_CREATE(create_fifo, GS_FIFO)
GS_CREATE(create_fifo_perf, GS_FIFO_PERF)
GS_CREATE(create_mmf, GS_MMF)
GS_CREATE(create_mmf_perf, GS_MMF_PERF)
GS_CREATE(create_mtd_perf, GS_MTD_PERF)

#define GS_OPS(policy, desc, fn)                                               \
    {                                                                          \
        .name = policy, .description = desc, .params = gs_params,              \
        .needs_estimates = 0, .preemptive = 1, .create = fn,                   \
        .destroy = gs_destroy, .on_arrival = gs_arrival, .on_finish = NULL,    \
        .schedule = gs_schedule                                                \
    }

const struct pol_ops pol_gs_fifo = GS_OPS(
    "gavel:fifo",
    "Gavel's simulator, fifo: arrival order on a random type, with Gavel's "
    "type-selection bug (fifo_bug)",
    create_fifo);
const struct pol_ops pol_gs_fifo_perf = GS_OPS(
    "gavel:fifo_perf",
    "Gavel's simulator, fifo_perf: arrival order on the fastest free type, "
    "re-placed (migrated) at each recompute",
    create_fifo_perf);
const struct pol_ops pol_gs_mmf = GS_OPS(
    "gavel:max_min_fairness",
    "Gavel's simulator, max_min_fairness (LAS): max-min LP over GPU time, "
    "heterogeneity-agnostic",
    create_mmf);
const struct pol_ops pol_gs_mmf_perf =
    GS_OPS("gavel:max_min_fairness_perf",
           "Gavel's simulator, max_min_fairness_perf: max-min LP (GLPK) over "
           "normalised throughputs",
           create_mmf_perf);
const struct pol_ops pol_gs_mtd_perf = GS_OPS(
    "gavel:min_total_duration_perf",
    "Gavel's simulator, min_total_duration_perf (makespan): bisection over "
    "feasibility LPs (GLPK)",
    create_mtd_perf);
