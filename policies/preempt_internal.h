/* preempt_internal.h -- the state of preemptive.c's scheduler, shared with
 * preempt_swaps.c (its swap loop, in bulk) only. */
#ifndef HETSIM_PREEMPT_INTERNAL_H
#define HETSIM_PREEMPT_INTERNAL_H

#include "policies_internal.h"
#include "runq_internal.h"

struct pheap {
    struct rq_item *a; /* (cap) */
    uint32_t len, cap;
    int max; /* 1: the worst on top (running), 0: the best */
};

/* The running jobs on one GPU type whose priorities move at one rate. */
struct group {
    int32_t type;
    double rate;
    struct rq q;
};

struct slot {
    double base, since; /* priority `base` when filed at time `since` */
    int32_t heap;       /* -1 none, 0 waiting, g + 1 running group g */
    int32_t node;       /* its node while it runs on one node, else -1 */
    uint32_t stamp;     /* bumped at each (re)insertion: old rekeys stale */
    uint32_t pass;      /* the pass that last started it */
};

/* Where the jobs' priorities come from (pol_pre_file). */
enum pre_prio {
    PRE_PRIO_FN,           /* the policy's pol_prio_fn, through PRIO */
    PRE_PRIO_LAS_TIME,     /* pol_las_prio, attained time (las) */
    PRE_PRIO_LAS_GPU_TIME, /* pol_las_prio, attained GPU time */
};

struct pol_preempt {
    pol_prio_fn prio; /* NULL unless prio_kind is PRE_PRIO_FN */
    pol_repass_fn repass;
    void *ctx;
    struct pol_placer *placer;
    struct slot *slots;     /* (njobs) */
    struct rq_where *where; /* (njobs) its place in a queue; slots' block */
    uint32_t *rank;         /* (njobs) its place in arrival order, which is
                               (submit time, id) order, or UINT32_MAX before
                               its arrival; same block */
    uint8_t *one_gpu;       /* (njobs) PRE_* bits, set at arrival; same block */
    uint32_t arrived;       /* jobs arrived so far */
    double last_submit;     /* the last arrival's submit time, */
    uint32_t last_job;      /* and id */
    int prefetch;           /* the jobs' records outgrow the caches */
    enum pre_prio prio_kind;
    struct rq waiting;
    struct group *groups; /* (groups_cap) */
    int32_t ngroups, groups_cap;
    struct pheap rekeys;  /* key = time, rank = the job's stamp then */
    struct pheap skipped; /* passed over in this pass, out of `waiting` */
    struct scratch {      /* (total_gpus) running jobs taken out by */
        struct rq_item e; /* victims_on(), in the order taken */
        int32_t group, victim;
    } * v; /* in p's block, and so are node, vs and ss */
    struct node_room {
        int32_t freed, touched;
    } * node; /* (nnodes) */
    /* (total_gpus each) the swap loop's victims and started jobs, filed
     * in their queues at its end (preempt_swaps.c) */
    struct rq_item *vs, *ss;
    uint32_t pass;
    int32_t busy;        /* GPUs of the jobs it started, still running */
    double wake_pending; /* the earliest wake-up asked for, or -1 */
    int oom;
    int bad_order; /* an arrival out of (submit time, id) order */
};

/* A job's one_gpu bits: it holds one GPU; it may run on one node of GPU
 * type 0 (allowed, with a run time there). What the swap loop asks of a
 * job on a one-type cluster (preempt_swaps.c), without its sim_job. */
#define PRE_ONE_GPU 1u
#define PRE_ON_TYPE0 2u

/* Bytes of job records and slots above which the swap loop prefetches
 * (preempt_swaps.c): beyond a core's L2 cache; below it the prefetches
 * only add instructions (5,000 jobs: 1.1 MB). */
#define PRE_CACHED ((size_t)2 << 20)

/* LAS's priority (las.c) of job J at NOW: its attained service, times
 * its GPUs with GPU_TIME; *rate and *until as pol_prio_fn's. Here so that
 * pol_pre_file computes it without a call through pol_prio_fn and a
 * second lookup of the record (LAS on a burst files millions). */
static inline double pol_las_prio(const struct sim_job *j, double now,
                                  int gpu_time, double *rate, double *until)
{
    double weight = gpu_time ? (double)j->num_gpus : 1;
    int running = j->state == JOB_RUNNING;
    /* sim_attained_s */
    double attained = j->run_s + (running ? now - j->last_start : 0);
    if (running) { /* its overhead is charged at its end */
        double resume = j->last_start + j->overhead_run;
        attained -= (now < resume ? now : resume) - j->last_start;
        if (now < resume)
            *until = resume;
        else
            *rate = weight;
    }
    return attained * weight;
}

/* The order of jobs: (priority, submit time, id), the run queues' own
 * (rq_before_key) with the rank for (submit time, id); A with priority KA
 * before B with KB. */
static inline int pol_pre_before(double ka, const struct rq_item *a, double kb,
                                 const struct rq_item *b)
{
    return rq_before_key(ka, a, kb, b);
}

/* The priority now of E, running in group G (exact at its start). */
static inline double pol_pre_prio_now(const struct pol_preempt *p,
                                      const struct group *g,
                                      const struct rq_item *e, double now)
{
    const struct slot *sl = &p->slots[e->job];
    return sl->base + g->rate * (now - sl->since);
}

/* Files JOB by its state and its priority now, except in its queue: its
 * slot is set, a rekey asked for, and *e and *idx receive its item and
 * its queue (0 waiting, g + 1 running group g), where the caller puts it.
 * 0 or SIM_ENOMEM. */
int pol_pre_file(struct pol_preempt *p, struct sim *s, uint32_t job,
                 struct rq_item *e, int32_t *idx);

/* The swaps that open a pass on a full cluster of one GPU type
 * (preempt_swaps.c): 0 when the pass goes on, or a negative SIM_E* code. */
int pol_pre_swaps(struct pol_preempt *p, struct sim *s);

#endif
