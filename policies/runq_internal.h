/* runq_internal.h -- the priority queues of preemptive.c (runq.c), shared
 * with its test only.
 *
 * A queue of items in a strict total order (key, then rank, then job; the
 * top is the least, or with `max` the greatest), each job at most once,
 * kept as sorted runs: an item pushed just above the top of the run pushed
 * to last (or just below its bottom, for a run that grows downwards) joins
 * that run at O(1); any other starts a run of its own. A binary heap orders
 * the runs by their tops. So a pop costs O(1) plus O(log R) for R runs: on
 * patterns where items come in order (a scheduling pass preempts its
 * victims worst first and starts its jobs best first) R stays small, and at
 * worst every run holds one item and the queue is a binary heap. A job
 * taken out from inside a run leaves a dead entry, skipped when it comes to
 * an end of its run; a run counts the items at its top known alive
 * (clean), so that the usual pop looks at no other entry. */
#ifndef HETSIM_RUNQ_INTERNAL_H
#define HETSIM_RUNQ_INTERNAL_H

#include <stdint.h>

#define RQ_CLEAN 64 /* see rq_run.clean */

/* 16 bytes. The scheduler's rank (preemptive.c) is the job's place in
 * (submit time, id) order: one integer compare where ties on key are
 * common (a burst under LAS), instead of a submit time and an id. */
struct rq_item {
    double key;
    uint32_t rank; /* ties: the lower rank, */
    uint32_t job;  /* then the lower id */
};

/* Where a job's item is: its queue's id, run and index there. One array
 * for all the queues a job can be in (indexed by job id, the caller's). */
struct rq_where {
    uint32_t queue, run, idx;
};

struct rq_run {
    struct rq_item *a; /* (cap); a[lo, hi) sorted, the top at one end */
    uint32_t lo, hi, cap, live;
    uint32_t at;    /* its index in the heap of runs */
    uint32_t clean; /* >= 1 for a run in the heap: its items from the top
                       down that are known alive (at most RQ_CLEAN more
                       looked at after a dead one) */
    int8_t dir;     /* 1: top at hi - 1 (grows upwards), -1: top at lo,
                       0: one item so far */
};

/* A run in the heap of runs, with a copy of its top item. */
struct rq_top {
    struct rq_item top;
    uint32_t run;
};

struct rq {
    uint32_t id;         /* nonzero, distinct per queue sharing a where array */
    int max;             /* 1: the greatest on top */
    struct rq_run *runs; /* (runs_cap); freed ones keep their arrays */
    struct rq_top *heap; /* (runs_cap) the runs, by their tops */
    uint32_t *spare;     /* (runs_cap) ids of free runs */
    uint32_t nruns, nspare, runs_cap, hlen;
    uint32_t open; /* the run pushed to last, or UINT32_MAX */
    uint32_t len;  /* items in the queue */
    /* Pops known to leave the top's run on top: its next `safe` items
     * (alive, within its clean count) are higher than every other run's
     * top. 0 when unknown; every change but rq_pop_next's sets it to 0. A
     * pass pops hundreds of items from one run: they need no comparison
     * with the other runs' tops. */
    uint32_t safe;
};

/* An empty queue with id ID (>= 1) and order MAX. */
void rq_init(struct rq *q, uint32_t id, int max);
void rq_free(struct rq *q);

/* Adds E (its job in no queue of W). 0 or -1 when out of memory. */
int rq_push(struct rq *q, struct rq_where *w, struct rq_item e);

/* Adds E[0, N) (their jobs in no queue of W), as N rq_push calls would;
 * where each comes after the one before nearer the top (a pass's victims
 * worst first, its started jobs best first) for 4 items or more, those
 * form one run, in O(N) plus O(log R) a run. 0 or -1 when out of memory. */
int rq_push_many(struct rq *q, struct rq_where *w, const struct rq_item *e,
                 uint32_t n);

/* rq_push_many for E[0, N) known to rise (each nearer the top than the
 * one before), without the comparisons that find it out. */
int rq_push_rising(struct rq *q, struct rq_where *w, const struct rq_item *e,
                   uint32_t n);

/* The top item, or NULL when the queue is empty. */
const struct rq_item *rq_top(const struct rq *q);

/* A hint, to prefetch what the next pops will touch: the items K to
 * K + N - 1 places below the top in the top's run (maybe taken out since,
 * maybe not those of the queue), from the one returned in steps of *STEP
 * entries; NULL when the run holds fewer. */
static inline const struct rq_item *rq_ahead(const struct rq *q, uint32_t k,
                                             uint32_t n, int *step)
{
    if (q->hlen == 0)
        return NULL;
    const struct rq_run *r = &q->runs[q->heap[0].run];
    if (r->hi - r->lo < k + n)
        return NULL;
    *step = r->dir < 0 ? 1 : -1;
    return &r->a[r->dir < 0 ? r->lo + k : r->hi - 1 - k];
}

/* rq_pop in every case (dead entries, a run of one item). */
struct rq_item rq_pop_any(struct rq *q, struct rq_where *w);

/* Moves the heap of runs' top down to its place (after it changed). */
void rq_sink_top(struct rq *q);

/* The pops of top run R (its top higher than every other run's) that
 * will leave it on top, as rq.safe counts them. */
uint32_t rq_safe_pops(const struct rq *q, const struct rq_run *r);

/* The order of items, the one of every run queue and of the preemptive
 * scheduler (pol_pre_before): (key, rank, job); A with key KA before B
 * with key KB (a key given apart, as a priority now, or the item's). */
static inline int rq_before_key(double ka, const struct rq_item *a, double kb,
                                const struct rq_item *b)
{
    if (ka != kb)
        return ka < kb;
    return a->rank != b->rank ? a->rank < b->rank : a->job < b->job;
}

/* Whether X belongs nearer the top than Y in Q: rq_before_key's order,
 * reversed when Q->max. */
static inline int rq_higher(const struct rq *q, const struct rq_item *x,
                            const struct rq_item *y)
{
    return q->max ? rq_before_key(y->key, y, x->key, x)
                  : rq_before_key(x->key, x, y->key, y);
}

/* The usual pop (rq_pop, rq_pop_any): the top's run R has a next item,
 * alive, (R->clean >= 2), which becomes the run's top; the run goes down
 * the heap of runs only when a child's top is higher, and when it stays,
 * the pops after it that will leave it there are counted (rq.safe). */
static inline struct rq_item rq_pop_next(struct rq *q, struct rq_where *w,
                                         struct rq_run *r)
{
    struct rq_item e = q->heap[0].top; /* the copy of the run's top */
    w[e.job].queue = 0;
    r->live--;
    r->clean--;
    q->len--;
    const struct rq_item *next =
        r->dir < 0 ? &r->a[++r->lo] : &r->a[--r->hi - 1];
    q->heap[0].top = *next;
    if (q->safe > 0) {
        q->safe--;
        return e;
    }
    if ((q->hlen >= 2 && rq_higher(q, &q->heap[1].top, next)) ||
        (q->hlen >= 3 && rq_higher(q, &q->heap[2].top, next)))
        rq_sink_top(q);
    else
        q->safe = rq_safe_pops(q, r);
    return e;
}

/* Takes the top item out (the queue is not empty). Inline for the usual
 * case, where the item after the top in the top's run is known alive (a
 * pass takes its jobs from one run; LAS on a burst pops millions, and its
 * runs of running jobs hold dead entries where jobs ended): that item
 * becomes the run's top, and the run goes down the heap of runs only when
 * a child's top is higher. */
static inline struct rq_item rq_pop(struct rq *q, struct rq_where *w)
{
    struct rq_run *r = &q->runs[q->heap[0].run];
    if (r->clean < 2)
        return rq_pop_any(q, w);
    return rq_pop_next(q, w, r);
}

/* Takes JOB's item out (JOB is in Q). */
struct rq_item rq_remove(struct rq *q, struct rq_where *w, uint32_t job);

#endif
