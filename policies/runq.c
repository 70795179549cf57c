/* runq.c -- priority queues kept as sorted runs (runq_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "runq_internal.h"

#define NONE UINT32_MAX
#define RUN_KEEP 256 /* items a freed run's array may hold and stay */

static const struct rq_item *run_top(const struct rq_run *r)
{
    return &r->a[r->dir < 0 ? r->lo : r->hi - 1];
}

static int alive(const struct rq *q, const struct rq_where *w, uint32_t run,
                 uint32_t i)
{
    const struct rq_where *x = &w[q->runs[run].a[i].job];
    return x->queue == q->id && x->run == run && x->idx == i;
}

/* Sets RUN's clean count (not empty, its top alive): its items from the
 * top down that are alive, up to RQ_CLEAN. */
static void find_clean(const struct rq *q, const struct rq_where *w,
                       uint32_t run)
{
    struct rq_run *r = &q->runs[run];
    uint32_t n = r->hi - r->lo, k = 1;
    if (r->live == n) {
        r->clean = n;
        return;
    }
    while (k < n && k < RQ_CLEAN &&
           alive(q, w, run, r->dir < 0 ? r->lo + k : r->hi - 1 - k))
        k++;
    r->clean = k;
}

/* ---- the heap of runs, by their tops ---- */

static void set_at(struct rq *q, uint32_t i, struct rq_top t)
{
    q->heap[i] = t;
    q->runs[t.run].at = i;
}

static void heap_up(struct rq *q, uint32_t i)
{
    if (i == 0 || !rq_higher(q, &q->heap[i].top, &q->heap[(i - 1) / 2].top))
        return; /* in its place already */
    struct rq_top t = q->heap[i];
    while (i > 0 && rq_higher(q, &t.top, &q->heap[(i - 1) / 2].top)) {
        set_at(q, i, q->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    set_at(q, i, t);
}

/* The child of I that belongs higher, or NONE for a leaf. */
static uint32_t top_child(const struct rq *q, uint32_t i)
{
    uint32_t c = 2 * i + 1;
    if (c >= q->hlen)
        return NONE;
    if (c + 1 < q->hlen && rq_higher(q, &q->heap[c + 1].top, &q->heap[c].top))
        c++;
    return c;
}

static void heap_down(struct rq *q, uint32_t i)
{
    uint32_t c = top_child(q, i);
    if (c == NONE || !rq_higher(q, &q->heap[c].top, &q->heap[i].top))
        return; /* in its place already */
    struct rq_top t = q->heap[i];
    do {
        set_at(q, i, q->heap[c]);
        i = c;
    } while ((c = top_child(q, i)) != NONE &&
             rq_higher(q, &q->heap[c].top, &t.top));
    set_at(q, i, t);
}

static void heap_remove_at(struct rq *q, uint32_t i)
{
    struct rq_top last = q->heap[--q->hlen];
    if (i >= q->hlen)
        return;
    set_at(q, i, last);
    if (i > 0 && rq_higher(q, &last.top, &q->heap[(i - 1) / 2].top))
        heap_up(q, i);
    else
        heap_down(q, i);
}

/* ---- runs ---- */

void rq_init(struct rq *q, uint32_t id, int max)
{
    memset(q, 0, sizeof *q);
    q->id = id;
    q->max = max;
    q->open = NONE;
}

void rq_free(struct rq *q)
{
    for (uint32_t r = 0; r < q->nruns; r++)
        free(q->runs[r].a);
    free(q->runs);
    free(q->heap);
    free(q->spare);
    rq_init(q, q->id, q->max);
}

/* Room for one more item at the end of full RUN: its live items moved to
 * the front when at most half of it is live, else a larger array. */
static int grow_run(struct rq *q, struct rq_where *w, uint32_t run)
{
    struct rq_run *r = &q->runs[run];
    if (r->cap > 0 && r->live <= r->cap / 2) {
        uint32_t n = 0;
        for (uint32_t i = r->lo; i < r->hi; i++)
            if (alive(q, w, run, i)) {
                r->a[n] = r->a[i];
                w[r->a[n].job].idx = n;
                n++;
            }
        r->lo = 0;
        r->hi = n;
        r->clean = n;
        return 0;
    }
    uint32_t cap = r->cap ? 2 * r->cap : 1; /* most runs hold one item */
    struct rq_item *a = realloc(r->a, cap * sizeof *a);
    if (!a)
        return -1;
    r->a = a;
    r->cap = cap;
    return 0;
}

static inline int run_room(struct rq *q, struct rq_where *w, uint32_t run)
{
    return q->runs[run].hi < q->runs[run].cap ? 0 : grow_run(q, w, run);
}

static void append(struct rq *q, struct rq_where *w, uint32_t run,
                   struct rq_item e)
{
    struct rq_run *r = &q->runs[run];
    w[e.job] = (struct rq_where){q->id, run, r->hi};
    r->a[r->hi++] = e;
    r->live++;
    q->len++;
}

/* A new run holding only E. 0 or -1. */
static int new_run(struct rq *q, struct rq_where *w, struct rq_item e)
{
    if (q->nspare == 0 && q->nruns == q->runs_cap) {
        uint32_t cap = q->runs_cap ? 2 * q->runs_cap : 8;
        struct rq_run *runs = realloc(q->runs, cap * sizeof *runs);
        if (!runs)
            return -1;
        q->runs = runs;
        struct rq_top *heap = realloc(q->heap, cap * sizeof *heap);
        if (heap)
            q->heap = heap;
        uint32_t *spare = heap ? realloc(q->spare, cap * sizeof *spare) : NULL;
        if (!spare)
            return -1;
        q->spare = spare;
        q->runs_cap = cap;
    }
    uint32_t run = q->nspare ? q->spare[--q->nspare] : q->nruns;
    if (run == q->nruns)
        q->runs[q->nruns++] = (struct rq_run){NULL, 0, 0, 0, 0, 0, 0, 0};
    struct rq_run *r = &q->runs[run];
    r->lo = r->hi = r->live = 0;
    r->dir = 0;
    if (run_room(q, w, run) != 0) {
        q->spare[q->nspare++] = run;
        return -1;
    }
    append(q, w, run, e);
    r->clean = 1;
    set_at(q, q->hlen, (struct rq_top){e, run});
    heap_up(q, q->hlen++);
    q->open = run;
    return 0;
}

int rq_push(struct rq *q, struct rq_where *w, struct rq_item e)
{
    q->safe = 0;
    uint32_t run = q->open;
    if (run != NONE) {
        struct rq_run *r = &q->runs[run];
        const struct rq_item *end = &r->a[r->hi - 1];
        int up = r->dir >= 0 && rq_higher(q, &e, end);
        if (up || (r->dir <= 0 && rq_higher(q, end, &e))) {
            if (run_room(q, w, run) != 0)
                return -1;
            r->dir = up ? 1 : -1;
            if (up || r->clean == r->hi - r->lo)
                r->clean++; /* a new top, or all alive still */
            append(q, w, run, e);
            if (up) { /* a new top */
                q->heap[r->at].top = e;
                heap_up(q, r->at);
            }
            return 0;
        }
    }
    return new_run(q, w, e);
}

/* Adds E[0, N), each nearer the top than the one before (N >= 1), as one
 * new run. 0 or -1. */
static int push_run(struct rq *q, struct rq_where *w, const struct rq_item *e,
                    uint32_t n)
{
    if (new_run(q, w, e[0]) != 0)
        return -1;
    uint32_t run = q->open, i;
    struct rq_run *r = &q->runs[run];
    if (r->cap < n) {
        struct rq_item *a = realloc(r->a, n * sizeof *a);
        if (!a) { /* then one by one, as far as memory goes */
            for (i = 1; i < n; i++)
                if (rq_push(q, w, e[i]) != 0)
                    return -1;
            return 0;
        }
        r->a = a;
        r->cap = n;
    }
    for (i = 1; i < n; i++) {
        w[e[i].job] = (struct rq_where){q->id, run, i};
        r->a[i] = e[i];
    }
    r->hi = r->live = r->clean = n;
    r->dir = n > 1 ? 1 : 0;
    q->len += n - 1;
    q->heap[r->at].top = e[n - 1];
    heap_up(q, r->at);
    return 0;
}

int rq_push_many(struct rq *q, struct rq_where *w, const struct rq_item *e,
                 uint32_t n)
{
    q->safe = 0;
    /* Each rising piece of 4 or more items is a run of its own (a pass's
     * list of started jobs breaks where two priorities round to one key). */
    for (uint32_t from = 0, i; from < n; from = i) {
        for (i = from + 1; i < n && rq_higher(q, &e[i], &e[i - 1]); i++)
            ;
        if (i - from >= 4) {
            if (push_run(q, w, e + from, i - from) != 0)
                return -1;
            continue;
        }
        for (uint32_t k = from; k < i; k++)
            if (rq_push(q, w, e[k]) != 0)
                return -1;
    }
    return 0;
}

int rq_push_rising(struct rq *q, struct rq_where *w, const struct rq_item *e,
                   uint32_t n)
{
    q->safe = 0;
    if (n >= 4)
        return push_run(q, w, e, n);
    for (uint32_t k = 0; k < n; k++)
        if (rq_push(q, w, e[k]) != 0)
            return -1;
    return 0;
}

const struct rq_item *rq_top(const struct rq *q)
{
    return q->hlen ? &q->heap[0].top : NULL;
}

/* After RUN lost its top: dead entries off that end, then the run goes
 * down the heap, or out of it when it is empty. */
static void fix_top(struct rq *q, struct rq_where *w, uint32_t run)
{
    struct rq_run *r = &q->runs[run];
    if (r->dir < 0)
        while (r->lo < r->hi && !alive(q, w, run, r->lo))
            r->lo++;
    else
        while (r->hi > r->lo && !alive(q, w, run, r->hi - 1))
            r->hi--;
    if (r->lo < r->hi) {
        find_clean(q, w, run);
        q->heap[r->at].top = *run_top(r);
        heap_down(q, r->at);
        return;
    }
    heap_remove_at(q, r->at);
    if (r->cap > RUN_KEEP) { /* a spare run keeps a small array only */
        free(r->a);
        r->a = NULL;
        r->cap = 0;
    }
    q->spare[q->nspare++] = run;
    if (q->open == run)
        q->open = NONE;
}

/* Takes the item at index I of RUN out. */
static struct rq_item take(struct rq *q, struct rq_where *w, uint32_t run,
                           uint32_t i)
{
    struct rq_run *r = &q->runs[run];
    struct rq_item e = r->a[i];
    q->safe = 0;
    w[e.job].queue = 0;
    r->live--;
    q->len--;
    if (i == (r->dir < 0 ? r->lo : r->hi - 1)) {
        if (r->dir < 0)
            r->lo++;
        else
            r->hi--;
        fix_top(q, w, run);
    } else { /* a dead entry, D items below the top */
        uint32_t d = r->dir < 0 ? i - r->lo : r->hi - 1 - i;
        if (r->clean > d)
            r->clean = d;
    }
    return e;
}

void rq_sink_top(struct rq *q)
{
    q->safe = 0;
    heap_down(q, 0);
}

uint32_t rq_safe_pops(const struct rq *q, const struct rq_run *r)
{
    if (r->clean < 2)
        return 0;
    uint32_t lo = 0, hi = r->clean - 1; /* the items below the top, alive */
    if (q->hlen < 2)
        return hi;
    const struct rq_item *rival = &q->heap[1].top;
    if (q->hlen >= 3 && rq_higher(q, &q->heap[2].top, rival))
        rival = &q->heap[2].top;
    /* The run falls away from its top: the last of its items higher than
     * the rival, by bisection (item LO is, item HI + 1 is not or none). */
    while (lo < hi) {
        uint32_t mid = hi - (hi - lo) / 2;
        if (rq_higher(q, &r->a[r->dir < 0 ? r->lo + mid : r->hi - 1 - mid],
                      rival))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

struct rq_item rq_pop_any(struct rq *q, struct rq_where *w)
{
    uint32_t run = q->heap[0].run;
    struct rq_run *r = &q->runs[run];
    /* Mostly the run's next item is alive and stays on top (a pass takes
     * its jobs from one run): take's and fix_top's work, rq_pop_next. */
    uint32_t i = r->dir < 0 ? r->lo + 1 : r->hi - 2;
    if (r->hi - r->lo < 2 ||
        (r->live != r->hi - r->lo && !alive(q, w, run, i))) /* dead ones */
        return take(q, w, run, r->dir < 0 ? r->lo : r->hi - 1);
    r->clean = 2;                            /* r->a[i] alive too */
    struct rq_item e = rq_pop_next(q, w, r); /* its top becomes r->a[i] */
    find_clean(q, w, run);
    return e;
}

struct rq_item rq_remove(struct rq *q, struct rq_where *w, uint32_t job)
{
    return take(q, w, w[job].run, w[job].idx);
}
