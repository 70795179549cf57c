/* preempt_swaps.c -- the swaps that open a pass of preemptive.c on a full
 * cluster of one GPU type, with the queue work done in bulk.
 *
 * On such a cluster (running jobs in one group, no sharing, a placement
 * rule that gives a lone free GPU to the job asking: every rule but
 * `random`) a pass first swaps: while the best waiting job, of one GPU,
 * comes before the worst running one, of one GPU, not started in this
 * pass, it takes that one's GPU (sim_swap). These are the decisions of the
 * general loop of pol_preempt_schedule and swap_start, without their
 * searches over types and groups; at the first case they must decide, it
 * stops and they go on from there.
 *
 * A burst under LAS makes millions of such swaps, each a preemption and a
 * start: the victims, taken worst first, go back to the waiting queue in
 * that order, each better than the last, and the started jobs, taken best
 * first, join the running ones each worse than the last. So instead of
 * filing each at once (a push into a run queue, and for a started job a
 * pop again when it comes on top), the loop keeps them aside in two lists,
 * in order: the best waiting job is the better of the queue's top and the
 * last victim kept aside, and the worst running one is the worse of the
 * group's top and the worst started job (which ends the swaps, as it was
 * started in this pass). At the end each list joins its queue as one
 * sorted run (rq_push_rising, or rq_push_many when a started job was
 * not filed worse than the one before). A queue's order is a total order on
 * (priority, submit time, id), so the jobs come out of it as they would have:
 * the decisions, and so the results, are those of filing each at once. Under
 * las the loop files its jobs of one GPU itself (swap_las), without
 * pol_pre_file's general tests. */
#include <math.h>

#include "preempt_internal.h"

/* The swap loop's lists: victims (waiting, each better than the last,
 * so the best is the last) and started jobs of group 0, the worst of them
 * in *worst; while each started job is worse than the one before (as they
 * are taken best first), `mixed` is 0. */
struct aside {
    uint32_t nv, ns;
    int mixed;
    struct rq_item worst;
};

/* Files the jobs kept aside in their queues; 0 or SIM_ENOMEM. */
static int flush(struct pol_preempt *p, struct aside *a)
{
    int rc = 0;
    if (rq_push_rising(&p->waiting, p->where, p->vs, a->nv) != 0)
        rc = -1;
    struct rq *g = &p->groups[0].q;
    if ((a->mixed ? rq_push_many(g, p->where, p->ss, a->ns)
                  : rq_push_rising(g, p->where, p->ss, a->ns)) != 0)
        rc = -1;
    a->nv = a->ns = 0;
    a->mixed = 0;
    return rc ? SIM_ENOMEM : 0;
}

/* Keeps victim E aside when it is better than the last kept (as victims
 * come), else files it in the waiting queue: 0 or SIM_ENOMEM. */
static inline int keep_victim(struct pol_preempt *p, struct aside *a,
                              struct rq_item e)
{
    if (a->nv == 0 ||
        pol_pre_before(e.key, &e, p->vs[a->nv - 1].key, &p->vs[a->nv - 1])) {
        p->vs[a->nv++] = e;
        return 0;
    }
    return rq_push(&p->waiting, p->where, e) != 0 ? SIM_ENOMEM : 0;
}

/* Keeps started job E aside, noting whether it is the worst so far. */
static inline void keep_started(struct pol_preempt *p, struct aside *a,
                                struct rq_item e)
{
    if (a->ns == 0 || pol_pre_before(a->worst.key, &a->worst, e.key, &e))
        a->worst = e;
    else
        a->mixed = 1;
    p->ss[a->ns++] = e;
}

/* Files victim or started JOB, kept aside when it may be: 0 or SIM_ENOMEM. */
static int file_aside(struct pol_preempt *p, struct sim *s, struct aside *a,
                      uint32_t job)
{
    struct rq_item e;
    int32_t idx;
    int rc = pol_pre_file(p, s, job, &e, &idx);
    if (rc)
        return rc;
    if (idx == 0)
        return keep_victim(p, a, e);
    if (idx == 1) {
        keep_started(p, a, e);
        return 0;
    }
    return rq_push(&p->groups[idx - 1].q, p->where, e) != 0 ? SIM_ENOMEM : 0;
}

/* The swap itself: waiting job W (the last victim kept aside when
 * FROM_ASIDE, else the waiting queue's top) takes the GPU of the top of
 * group 0, *V, which ran on node *NODE; both are out of their queues,
 * neither filed yet, their records after the swap in REC. 0 or sim_swap's
 * code. */
static inline int take_gpu(struct pol_preempt *p, struct sim *s,
                           struct aside *a, uint32_t w, int from_aside,
                           uint32_t *v, int32_t *node,
                           const struct sim_job *rec[2])
{
    *v = rq_pop(&p->groups[0].q, p->where).job;
    *node = p->slots[*v].node;
    p->slots[*v].heap = -1;
    int rc = sim_swap_rec(s, *v, w, rec);
    if (rc)
        return rc;
    if (from_aside)
        a->nv--;
    else
        rq_pop(&p->waiting, p->where);
    return 0;
}

/* Files W, just started on NODE in this pass, by file_aside. */
static inline int file_started(struct pol_preempt *p, struct sim *s,
                               struct aside *a, uint32_t w, int32_t node)
{
    p->slots[w].heap = -1;
    p->slots[w].node = node;
    p->slots[w].pass = p->pass;
    return file_aside(p, s, a, w);
}

/* One swap: waiting job W (the last victim kept aside when FROM_ASIDE,
 * else the waiting queue's top) takes the GPU of the top of group 0. */
static int swap_aside(struct pol_preempt *p, struct sim *s, struct aside *a,
                      uint32_t w, int from_aside)
{
    uint32_t v;
    int32_t node;
    const struct sim_job *rec[2];
    int rc = take_gpu(p, s, a, w, from_aside, &v, &node, rec);
    if (rc == 0)
        rc = file_aside(p, s, a, v);
    return rc ? rc : file_started(p, s, a, w, node);
}

/* LAS's filing of victim V (record J), as pol_pre_file's and file_aside's
 * for a job of one GPU that waits: its priority is its attained service
 * (pol_las_prio: run_s, times one GPU), no rekey; node and pass stay. */
static inline int file_victim_las(struct pol_preempt *p, struct aside *a,
                                  uint32_t v, const struct sim_job *j,
                                  double now)
{
    struct rq_item e = {(j->run_s + 0) * 1.0, p->rank[v], v};
    struct slot *sl = &p->slots[v];
    sl->base = e.key;
    sl->since = now;
    sl->heap = 0;
    sl->stamp++;
    return keep_victim(p, a, e);
}

/* LAS's filing of started job W (record J) in group 0, as pol_pre_file's
 * and file_aside's, when its priority moves at group 0's rate and asks
 * for no rekey (its restart overhead paid, or none); 1 when it does not
 * (the general path files it), else 0. */
static inline int file_starter_las(struct pol_preempt *p, struct aside *a,
                                   uint32_t w, const struct sim_job *j,
                                   double now, int32_t node)
{
    const struct group *g = &p->groups[0];
    double rate = 0, until = INFINITY;
    double prio = pol_las_prio(j, now, 0, &rate, &until); /* one GPU */
    if (j->state != JOB_RUNNING || j->gpu_type != g->type || rate != g->rate ||
        until < INFINITY)
        return 1;
    struct rq_item e = {prio - rate * now, p->rank[w], w};
    struct slot *sl = &p->slots[w];
    *sl = (struct slot){prio, now, 1, node, sl->stamp + 1, p->pass};
    keep_started(p, a, e);
    return 0;
}

/* swap_aside for las (prio_kind PRE_PRIO_LAS_*): the jobs of one GPU
 * filed by file_victim_las and file_starter_las, or file_aside where
 * those do not apply. */
static int swap_las(struct pol_preempt *p, struct sim *s, struct aside *a,
                    uint32_t w, int from_aside)
{
    uint32_t v;
    int32_t node;
    const struct sim_job *rec[2];
    int rc = take_gpu(p, s, a, w, from_aside, &v, &node, rec);
    if (rc)
        return rc;
    double now = sim_now(s);
    rc = rec[0]->state == JOB_RUNNING ? file_aside(p, s, a, v)
                                      : file_victim_las(p, a, v, rec[0], now);
    if (rc)
        return rc;
    if (file_starter_las(p, a, w, rec[1], now, node) == 0)
        return 0;
    return file_started(p, s, a, w, node);
}

/* The next swap's waiting job: 1 with *w when the loop swaps it for the
 * worst running one, *from_aside saying where W is; 0 when it stops. */
static int next_pair(const struct pol_preempt *p, const struct sim *s,
                     const struct aside *a, const struct rq_item **w,
                     int *from_aside)
{
    const struct group *g = &p->groups[0];
    const struct rq_item *wq = rq_top(&p->waiting), *t = rq_top(&g->q);
    const struct rq_item *va = a->nv ? &p->vs[a->nv - 1] : NULL;
    *from_aside = va && (!wq || pol_pre_before(va->key, va, wq->key, wq));
    *w = *from_aside ? va : wq;
    if (!*w || !t ||
        (a->ns > 0 && pol_pre_before(t->key, t, a->worst.key, &a->worst)))
        return 0; /* none waits, or the worst runs since this pass */
    if (!pol_pre_before((*w)->key, *w, pol_pre_prio_now(p, g, t, sim_now(s)),
                        t))
        return 0;
    /* T runs on type 0, the only one, and not a slice (this scheduler
     * starts none) */
    return p->one_gpu[(*w)->job] == (PRE_ONE_GPU | PRE_ON_TYPE0) &&
           (p->one_gpu[t->job] & PRE_ONE_GPU) &&
           p->slots[t->job].pass != p->pass;
}

/* Swaps ahead of the next one whose jobs are prefetched, PF_SPAN swaps'
 * jobs at a time, every PF_SPAN swaps. */
#define AHEAD 8
#define PF_SPAN 4

/* Asks the caches for what the swaps of the PF_SPAN jobs AHEAD places
 * below Q's top will read: their engine records, slots and places in the
 * queues. On a large burst these are misses, and the queues know the
 * next jobs. An item may be a dead entry, of a finished job: its record is
 * still there (only fifo runs are streamed, which retire records). */
static void prefetch(const struct pol_preempt *p, const struct sim *s,
                     const struct rq *q)
{
    int step;
    const struct rq_item *x = rq_ahead(q, AHEAD, PF_SPAN, &step);
    if (!x)
        return;
    for (int i = 0; i < PF_SPAN; i++, x += step) {
        sim_job_prefetch(s, x->job);
        __builtin_prefetch(&p->slots[x->job]);
        __builtin_prefetch(&p->where[x->job]);
    }
}

int pol_pre_swaps(struct pol_preempt *p, struct sim *s)
{
    const struct cluster *c = sim_cluster(s);
    if (c->ntypes != 1 || p->ngroups != 1 || sim_share_cluster(s) ||
        !pol_placer_takes_lone_gpu(p->placer))
        return 0;
    /* A swap leaves the GPUs busy and the free ones as they were. */
    if (p->busy != c->total_gpus || sim_free_gpus(s, 0) != 0)
        return 0;
    struct aside a = {0, 0, 0, {0, 0, 0}};
    const struct rq_item *w;
    int rc = 0, from_aside, las = p->prio_kind != PRE_PRIO_FN;
    uint32_t n = 0;
    while (rc == 0 && next_pair(p, s, &a, &w, &from_aside)) {
        if (p->prefetch && n++ % PF_SPAN == 0) {
            prefetch(p, s, &p->groups[0].q);
            prefetch(p, s, &p->waiting);
        }
        rc = las ? swap_las(p, s, &a, w->job, from_aside)
                 : swap_aside(p, s, &a, w->job, from_aside);
    }
    int frc = flush(p, &a);
    return rc ? rc : frc;
}
