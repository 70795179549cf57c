/* fair.c -- max-min fair shares of the cluster's GPUs across groups of jobs
 * (a trace's virtual clusters or users), with preemption to restore them.
 *
 * Groups: pol_config.groups gives each job's group (the caller fills it
 * from the trace column --policy-opt by=vc|user names); a job with no group
 * (POL_NO_GROUP, or no groups at all) is a group by itself: with no column
 * this is max-min fairness across jobs. A group's demand is the GPUs of its
 * active (waiting and running) jobs; GPUs of all types count alike. Shares:
 * water-filling with C = all the cluster's GPUs, share(g) = min(demand(g),
 * L), L the level where they add up to C (infinite if all demands fit); real
 * numbers: 8 GPUs and demands 6, 1, 4 give 3.5, 1, 3.5.
 *
 * Each scheduling pass (after every instant with an arrival or a finish):
 *  1. Groups with waiting jobs are served lowest alloc(g) / share(g) first
 *     (alloc: GPUs of its running jobs; ties: the group whose first waiting
 *     job arrived first), re-ranked after each start; within a group, first
 *     in, first out by arrival (a preempted job back in its place). A
 *     group's first job starts where pol_place puts it.
 *  2. If it does not fit, with preempt=1, and the group stays within its
 *     share with it (alloc(g) + num_gpus <= share(g)), running jobs of
 *     groups above their share are preempted to make room: the groups
 *     furthest above (largest alloc / share) first, in each the most
 *     recently started job first, a group only while still above its share,
 *     on one GPU type the job can use, as few as make room (all GPUs of the
 *     type counted when the job may spread, else one node's); of the types
 *     that can, the one that preempts the fewest GPUs (then the first
 *     listed). Victims keep their work and pay the restart overhead later.
 *  3. Otherwise the group is passed over for this pass; later groups may
 *     start jobs on GPUs it cannot use (nothing is reserved), even groups
 *     above their share (the policy is work-conserving).
 * A job started in a pass is not preempted in it, nor one preempted started
 * again. Shares are met up to a whole job: a group below its share by less
 * than its next job takes nothing by preemption (demands 6, 1, 4 on 8 GPUs
 * may end at 4, 1, 3); a victim's group may fall below by part of a job.
 * Cost per pass: O(log C) for L (waterfill.c), O(G log G) in the groups with waiting jobs
 * and a placement per job started (nothing when no GPU is free and no group
 * can preempt); a preemption walks the running jobs of groups above share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies_internal.h"
#include "waterfill_internal.h"

#define FAIR_EPS 1e-9 /* slack on comparisons with real-valued shares */

struct flist { /* jobs linked through fjob */
    int32_t head, tail;
};

struct fgroup {
    int64_t demand, alloc; /* GPUs of its active, of its running jobs */
    struct flist wait;     /* waiting jobs, by arrival */
    struct flist run;      /* running jobs, latest start first */
    int32_t active, heap;  /* index in fair.active, fair.heap, or -1 */
};

struct fjob {
    uint32_t group, pass; /* the pass it last started or was preempted in */
    int32_t prev, next;   /* in its group's wait list or run stack */
    int32_t node;         /* its node while it runs on one, else -1 */
};

struct fair {
    struct pol_placer *placer;
    const uint32_t *group_of; /* borrowed from pol_config */
    size_t ngroups;
    int preempt;
    struct fgroup *g; /* (ngroups + njobs): named ones, then one per job; */
    struct ranked { double key; int32_t g; } *rank; /* (same) scratch, */
    struct fjob *j;   /* (njobs), and in g's block, too: */
    int32_t *active;  /* (nactive) the groups with demand, */
    int32_t *heap;    /* (nheap) the pass's groups with waiting jobs */
    uint32_t *plan, *best; /* (total_gpus + 1) victims; in f's block */
    int32_t *node_freed;   /* (nnodes + 1); in f's block */
    struct pol_waterfill *water; /* the active groups' demands */
    int32_t nactive, nheap;
    int64_t free;          /* GPUs free, during a pass */
    size_t nwaiting;
    double level;          /* L of the water-filling */
    uint32_t pass;
    int oom;
};

static const struct pol_param fair_params[] = {
    {"by", "vc", "the groups that share the GPUs: vc or user (a trace "
                 "without that column: every job is its own group)"},
    {"preempt", "1", "1: preempt jobs of groups above their share for "
                     "groups below it; 0: never"},
    {NULL, NULL, NULL},
};

static double share(const struct fair *f, int32_t g)
{
    return fmin((double)f->g[g].demand, f->level);
}

/* How far group G has got: the GPUs it holds over its share. */
static double ratio(const struct fair *f, int32_t g)
{
    return (double)f->g[g].alloc / share(f, g);
}

static int above_share(const struct fair *f, int32_t g)
{
    return ratio(f, g) > 1 + FAIR_EPS;
}

static int arrived_before(const struct sim *s, uint32_t a, uint32_t b)
{
    double ta = sim_job(s, a)->submit_time, tb = sim_job(s, b)->submit_time;
    return ta != tb ? ta < tb : a < b;
}

/* Links JOB into L after job AFTER (-1: first). */
static void link_after(struct fair *f, struct flist *l, uint32_t job,
                       int32_t after)
{
    int32_t before = after >= 0 ? f->j[after].next : l->head;
    f->j[job].prev = after;
    f->j[job].next = before;
    *(after >= 0 ? &f->j[after].next : &l->head) = (int32_t)job;
    *(before >= 0 ? &f->j[before].prev : &l->tail) = (int32_t)job;
}

static void unlink_job(struct fair *f, struct flist *l, uint32_t job)
{
    struct fjob *x = &f->j[job];
    *(x->prev >= 0 ? &f->j[x->prev].next : &l->head) = x->next;
    *(x->next >= 0 ? &f->j[x->next].prev : &l->tail) = x->prev;
}

/* Files waiting JOB in its group's list by arrival (from the back). */
static void wait_insert(struct fair *f, const struct sim *s, uint32_t job)
{
    struct flist *l = &f->g[f->j[job].group].wait;
    int32_t after = l->tail;
    while (after >= 0 && arrived_before(s, job, (uint32_t)after))
        after = f->j[after].prev;
    link_after(f, l, job, after);
    f->nwaiting++;
}

/* Whether group A is served before group B. */
static int served_before(const struct fair *f, const struct sim *s,
                         int32_t a, int32_t b)
{
    double ra = ratio(f, a), rb = ratio(f, b);
    return ra != rb ? ra < rb
                    : arrived_before(s, (uint32_t)f->g[a].wait.head,
                                     (uint32_t)f->g[b].wait.head);
}

static void heap_set(struct fair *f, int32_t i, int32_t g)
{
    f->heap[i] = g;
    f->g[g].heap = i;
}

/* Restores the heap around index I after its group's rank changed. */
static void heap_fix(struct fair *f, const struct sim *s, int32_t i)
{
    int32_t g = f->heap[i];
    while (i > 0 && served_before(f, s, g, f->heap[(i - 1) / 2])) {
        heap_set(f, i, f->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= f->nheap)
            break;
        if (c + 1 < f->nheap && served_before(f, s, f->heap[c + 1], f->heap[c]))
            c++;
        if (!served_before(f, s, f->heap[c], g))
            break;
        heap_set(f, i, f->heap[c]);
        i = c;
    }
    heap_set(f, i, g);
}

static void heap_remove(struct fair *f, const struct sim *s, int32_t i)
{
    f->g[f->heap[i]].heap = -1;
    if (i < --f->nheap) {
        heap_set(f, i, f->heap[f->nheap]);
        heap_fix(f, s, i);
    }
}

/* Ascending key, then group. */
static int by_key(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key)
                            : (x->g > y->g) - (x->g < y->g);
}

/* Adds GPUS (< 0: takes) to group G's demand; keeps f->active. */
static void demand_add(struct fair *f, int32_t g, int64_t gpus)
{
    struct fgroup *x = &f->g[g];
    if (x->demand == 0)
        f->active[x->active = f->nactive++] = g;
    else
        pol_waterfill_add(f->water, x->demand, -1);
    if ((x->demand += gpus) == 0) {
        int32_t last = f->active[--f->nactive];
        f->g[last].active = x->active;
        f->active[x->active] = last;
    } else
        pol_waterfill_add(f->water, x->demand, 1);
}

/* The groups above their share, furthest above (alloc / share) first, into
 * f->rank; returns how many. */
static int32_t groups_above(struct fair *f)
{
    int32_t n = 0;
    for (int32_t i = 0; i < f->nactive; i++)
        if (above_share(f, f->active[i]))
            f->rank[n++] = (struct ranked){-ratio(f, f->active[i]),
                                           f->active[i]};
    qsort(f->rank, (size_t)n, sizeof *f->rank, by_key);
    return n;
}

/* Victims on type T for waiting JOB (rule 2), into f->plan: their number,
 * or 0 when T cannot make room; *gpus receives the GPUs they free. */
static int32_t plan_on(struct fair *f, const struct sim *s, uint32_t job,
                       int32_t t, int32_t nabove, int64_t *gpus)
{
    const struct sim_job *w = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, w->job_class);
    int32_t need = w->num_gpus, n = 0, room = -1, kept = 0;
    int any = need == 1 ? cl->unit_s[t] > 0 : cl->spread_unit_s[t] > 0;
    int64_t freed = sim_free_gpus(s, t);
    if (!any && !(cl->unit_s[t] > 0))
        return 0;
    for (int32_t k = 0; k < nabove && !(any && freed >= need) && room < 0;
         k++) {
        int32_t g = f->rank[k].g; /* taken from while above its share */
        double left = (double)f->g[g].alloc, sh = share(f, g) + FAIR_EPS;
        for (int32_t v = f->g[g].run.head; v >= 0 && left > sh && room < 0 &&
                                           !(any && freed >= need);
             v = f->j[v].next) {
            int32_t gv = sim_job(s, (uint32_t)v)->num_gpus, node = f->j[v].node;
            if (sim_job(s, (uint32_t)v)->gpu_type != t ||
                f->j[v].pass == f->pass || (!any && node < 0))
                continue; /* elsewhere, started in this pass, spread */
            f->plan[n++] = (uint32_t)v;
            left -= gv;
            freed += gv;
            if (!any && (f->node_freed[node] += gv) + sim_node_free(s, node) >=
                            need)
                room = node;
        }
    }
    *gpus = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t node = f->j[f->plan[i]].node;
        if (!any)
            f->node_freed[node] = 0;
        if (any || node == room) {
            *gpus += sim_job(s, f->plan[i])->num_gpus;
            f->plan[kept++] = f->plan[i];
        }
    }
    return (any ? freed >= need : room >= 0) ? kept : 0;
}

/* Stops V and files it as waiting in its group. */
static int preempt_one(struct fair *f, struct sim *s, uint32_t v)
{
    struct fgroup *g = &f->g[f->j[v].group];
    int rc = sim_preempt(s, v);
    if (rc)
        return rc;
    unlink_job(f, &g->run, v);
    g->alloc -= sim_job(s, v)->num_gpus;
    f->free += sim_job(s, v)->num_gpus;
    f->j[v].node = -1;
    f->j[v].pass = f->pass;
    wait_insert(f, s, v);
    if (g->heap >= 0)
        heap_fix(f, s, g->heap);
    return 0;
}

/* Makes room for waiting JOB by rule 2: 1 done, 0 no type can, or a
 * negative SIM_E* code. */
static int make_room(struct fair *f, struct sim *s, uint32_t job)
{
    const struct sim_job *w = sim_job(s, job);
    const struct cluster *c = sim_cluster(s);
    int32_t nabove = groups_above(f), nbest = 0;
    int64_t best_gpus = 0, gpus;
    for (int32_t t = 0; t < c->ntypes && nabove > 0; t++) {
        if (!(w->allowed & (1u << t)) || c->types[t].gpus < w->num_gpus)
            continue;
        int32_t n = plan_on(f, s, job, t, nabove, &gpus);
        if (n > 0 && (nbest == 0 || gpus < best_gpus)) {
            uint32_t *x = f->best; /* this type's plan becomes the best */
            f->best = f->plan;
            f->plan = x;
            nbest = n;
            best_gpus = gpus;
        }
    }
    for (int32_t i = 0; i < nbest; i++) {
        int rc = preempt_one(f, s, f->best[i]);
        if (rc)
            return rc;
    }
    return nbest > 0;
}

static int start(struct fair *f, struct sim *s, uint32_t job,
                 const struct sim_placement *pl)
{
    struct fgroup *g = &f->g[f->j[job].group];
    int rc = sim_start(s, job, pl);
    if (rc)
        return rc;
    unlink_job(f, &g->wait, job);
    f->nwaiting--;
    link_after(f, &g->run, job, -1);
    g->alloc += sim_job(s, job)->num_gpus;
    f->free -= sim_job(s, job)->num_gpus;
    f->j[job].node = pl->nseg == 1 ? pl->seg[0].node : -1;
    f->j[job].pass = f->pass;
    return 0;
}

/* Serves the first job of the group on top of the heap (rules 1 to 3):
 * 0 started, 1 passed over, or a negative SIM_E* code. */
static int serve(struct fair *f, struct sim *s, int32_t g)
{
    uint32_t job = (uint32_t)f->g[g].wait.head;
    if (f->j[job].pass == f->pass)
        return 1; /* preempted in this pass */
    struct sim_placement pl;
    int rc = pol_place(f->placer, s, job, &pl);
    if (rc == 1 && f->preempt &&
        (double)(f->g[g].alloc + sim_job(s, job)->num_gpus) <=
            share(f, g) + FAIR_EPS) {
        rc = make_room(f, s, job);
        rc = rc == 1 ? pol_place(f->placer, s, job, &pl) : rc == 0 ? 1 : rc;
    }
    return rc == 0 ? start(f, s, job, &pl) : rc;
}

/* Counts the free GPUs into f->free; returns whether a preemption may be
 * possible: it is on, a group is above its share, and L >= 1 (it needs
 * alloc + num_gpus <= share <= L). */
static int may_preempt(struct fair *f, const struct sim *s)
{
    int any = 0;
    f->free = 0;
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++)
        f->free += sim_free_gpus(s, t);
    for (int32_t i = 0; f->preempt && f->level >= 1 && !any && i < f->nactive;
         i++)
        any = above_share(f, f->active[i]);
    return any;
}

static int fair_schedule(void *state, struct sim *s)
{
    struct fair *f = state;
    if (f->oom || f->nwaiting == 0)
        return f->oom ? SIM_ENOMEM : 0;
    f->pass++;
    f->level = pol_waterfill_level(f->water);
    int rc = 0, preempt = may_preempt(f, s);
    for (int32_t i = f->nheap = 0; i < f->nactive && (f->free || preempt); i++)
        if (f->g[f->active[i]].wait.head >= 0) {
            heap_set(f, f->nheap++, f->active[i]);
            heap_fix(f, s, f->nheap - 1);
        }
    while (rc >= 0 && f->nheap > 0 && (f->free > 0 || preempt)) {
        int32_t g = f->heap[0];
        rc = serve(f, s, g); /* victims' groups may move above it */
        if (rc == 1 || f->g[g].wait.head < 0)
            heap_remove(f, s, f->g[g].heap);
        else if (rc == 0)
            heap_fix(f, s, f->g[g].heap);
    }
    while (f->nheap > 0) /* left when no GPU is free and none can preempt */
        f->g[f->heap[--f->nheap]].heap = -1;
    return rc < 0 ? rc : 0;
}

static void fair_destroy(void *state)
{
    struct fair *f = state;
    if (!f)
        return;
    pol_placer_destroy(f->placer);
    pol_waterfill_destroy(f->water);
    free(f->g);
    free(f);
}

static int fair_create(const struct pol_config *cfg, void **state)
{
    const char *by, *preempt;
    int rc = pol_opt_string(cfg, "by", &by);
    if (rc == 0 && (rc = pol_opt_string(cfg, "preempt", &preempt)) == 0 &&
        strcmp(by, "vc") != 0 && strcmp(by, "user") != 0)
        rc = pol_refuse(cfg, "--policy-opt by wants vc or user, got '%s'", by);
    else if (rc == 0 && strcmp(preempt, "0") != 0 && strcmp(preempt, "1") != 0)
        rc = pol_refuse(cfg, "--policy-opt preempt wants 0 or 1, got '%s'",
                        preempt);
    if (rc)
        return rc;
    const struct cluster *c = cfg->cluster;
    size_t gpus = (size_t)c->total_gpus + 1, nodes = (size_t)c->nnodes + 1;
    struct fair *f = calloc(1, sizeof *f + 2 * gpus * sizeof *f->plan +
                                   nodes * sizeof *f->node_freed);
    if (f) {
        *f = (struct fair){.group_of = cfg->groups, .ngroups = cfg->groups ?
                           cfg->ngroups : 0, .preempt = preempt[0] == '1',
                           .plan = (uint32_t *)(f + 1)};
        f->best = f->plan + gpus;
        f->node_freed = (int32_t *)(f->best + gpus);
        f->placer = pol_placer_for(cfg);
        f->water = pol_waterfill_create(c->total_gpus);
    }
    if (!f || !f->placer || !f->water) {
        fair_destroy(f);
        return SIM_ENOMEM;
    }
    *state = f;
    return 0;
}

/* Makes the per-group and per-job tables (one block) at the first arrival. */
static int make_tables(struct fair *f, const struct sim *s)
{
    size_t n = sim_njobs(s), ng = f->ngroups + n;
    f->g = malloc(ng * (sizeof *f->g + 2 * sizeof(int32_t) + sizeof *f->rank) +
                  n * sizeof *f->j);
    if (!f->g)
        return SIM_ENOMEM;
    f->rank = (struct ranked *)(f->g + ng);
    f->j = (struct fjob *)(f->rank + ng);
    f->active = (int32_t *)(f->j + n);
    f->heap = f->active + ng;
    for (size_t i = 0; i < ng; i++)
        f->g[i] = (struct fgroup){0, 0, {-1, -1}, {-1, -1}, -1, -1};
    for (size_t i = 0; i < n; i++) {
        uint32_t g = f->group_of ? f->group_of[i] : POL_NO_GROUP;
        f->j[i] = (struct fjob){g < f->ngroups ? g : (uint32_t)(f->ngroups + i),
                                0, -1, -1, -1};
    }
    return 0;
}

static void fair_arrival(void *state, struct sim *s, uint32_t job)
{
    struct fair *f = state;
    if (f->oom || (!f->g && make_tables(f, s) != 0)) {
        f->oom = 1;
        return;
    }
    demand_add(f, (int32_t)f->j[job].group, sim_job(s, job)->num_gpus);
    wait_insert(f, s, job);
}

static void fair_finish(void *state, struct sim *s, uint32_t job)
{
    struct fair *f = state; /* not after an oom: nothing started then */
    struct fgroup *g = &f->g[f->j[job].group];
    unlink_job(f, &g->run, job);
    g->alloc -= sim_job(s, job)->num_gpus;
    demand_add(f, (int32_t)f->j[job].group, -sim_job(s, job)->num_gpus);
}

const struct pol_ops pol_fair = {
    .name = "fair",
    .description = "max-min fair shares of GPUs across vcs or users, "
                   "preempting groups above their share",
    .params = fair_params,
    .preemptive = 1,
    .create = fair_create,
    .destroy = fair_destroy,
    .on_arrival = fair_arrival,
    .on_finish = fair_finish,
    .schedule = fair_schedule,
};
