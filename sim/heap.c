/* heap.c -- the event queue: a 4-ary min-heap (SIM_HEAP_D) on (time,
 * insertion number).
 *
 * The insertion number makes the order total, so events at equal times pop
 * in the order they were pushed and every run replays identically. Beside
 * the heap: the next arrival (front), and the events pushed aside
 * (sim_heap_push_aside), unsorted until they are due or stale. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

static int event_before(const struct sim_event *a, const struct sim_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return a->seq < b->seq;
}

/* The earliest of the children from FIRST of one parent, among the first
 * N events (FIRST < N). */
static size_t earliest_child(const struct sim_event *ev, size_t first, size_t n)
{
    size_t end = first + SIM_HEAP_D < n ? first + SIM_HEAP_D : n, child = first;
    for (size_t c = first + 1; c < end; c++)
        if (event_before(&ev[c], &ev[child]))
            child = c;
    return child;
}

/* Moves E down from slot I of the first N events to its place. */
static void sift_down(struct sim_event *ev, size_t n, size_t i,
                      struct sim_event e)
{
    for (;;) {
        size_t child = SIM_HEAP_D * i + 1;
        if (child >= n)
            break;
        child = earliest_child(ev, child, n);
        if (!event_before(&ev[child], &e))
            break;
        ev[i] = ev[child];
        i = child;
    }
    ev[i] = e;
}

/* Whether E still counts, by the heap's rule (sim_heap.live, or its
 * epochs inline); every event without one. */
static int heap_live(const struct sim_heap *h, const struct sim_event *e)
{
    if (h->epochs)
        return sim_event_live_in(e, h->epochs);
    return !h->live || h->live(h->live_ctx, e);
}

/* Drops the stale events and makes a heap of the rest again (Floyd's
 * O(n) build). The order of what is left is the total order on (time,
 * seq), so the events pop as they would have. */
static void compact(struct sim_heap *h)
{
    size_t n = 0;
    if (h->epochs) /* live's rule, inline */
        for (size_t i = 0; i < h->len; i++) {
            const struct sim_event *e = &h->ev[i];
            if (sim_event_live_in(e, h->epochs))
                h->ev[n++] = *e;
        }
    else
        for (size_t i = 0; i < h->len; i++)
            if (h->live(h->live_ctx, &h->ev[i]))
                h->ev[n++] = h->ev[i];
    h->len = n;
    for (size_t i = n > 1 ? (n - 2) / SIM_HEAP_D + 1 : 0; i-- > 0;)
        sift_down(h->ev, n, i, h->ev[i]);
}

/* Adds E (its insertion number given) to the heap; room for it taken. */
static void heap_insert(struct sim_heap *h, struct sim_event e)
{
    size_t i = h->len++;
    while (i > 0) {
        size_t parent = (i - 1) / SIM_HEAP_D;
        if (!event_before(&e, &h->ev[parent]))
            break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i] = e;
}

/* The time of the earliest event of the heap and the front. */
static double heap_front_time(const struct sim_heap *h)
{
    double t = h->len ? h->ev[0].time : INFINITY;
    return h->has_front && h->front.time < t ? h->front.time : t;
}

/* The events aside share the heap's block: they fill its end,
 * ev[cap - aside_len, cap), so moving one into the heap needs no memory.
 * Drops the stale ones (the heap's rule: they are all events of runs, so
 * by their epochs alone); the live ones' times' sum and least go to
 * TIMES[0] and TIMES[1]. */
static void aside_drop_stale(struct sim_heap *h, double times[2])
{
    struct sim_event *ev = h->ev;
    size_t cap = h->cap, lo = cap - h->aside_len, w = cap;
    double s = 0, l = INFINITY;
    const uint32_t *epochs = h->epochs;
    if (epochs) /* live's rule, inline; the live ones packed at the end */
        for (size_t p = cap; p-- > lo;) {
            struct sim_event e = ev[p]; /* of a run (sim_heap_push_aside) */
            if (e.epoch != epochs[e.job])
                continue;
            s += e.time;
            l = e.time < l ? e.time : l;
            ev[--w] = e;
        }
    else
        for (size_t p = cap; p-- > lo;)
            if (heap_live(h, &ev[p])) {
                s += ev[p].time;
                l = ev[p].time < l ? ev[p].time : l;
                ev[--w] = ev[p];
            }
    h->aside_len = cap - w;
    times[0] = s;
    times[1] = l;
}

/* Called when the heap's (and the front's) earliest is past the horizon:
 * drops the stale events aside, and moves into the heap those due by a
 * new horizon, no earlier than that earliest. So every event left aside
 * is later than the horizon, which is no earlier than the heap's
 * earliest, and the heap alone gives the next event.
 * The horizon goes an eighth of the live ones' mean distance ahead: on
 * LAS's burst (nearly every run preempted before its end is due) each
 * event aside is scanned about once before it is dropped, and few are
 * ever sorted. When nearly all were live (SRTF: runs seldom preempted),
 * all go into the heap, each scanned once; the horizon is the same. */
static void aside_scan(struct sim_heap *h)
{
    double t = heap_front_time(h), times[2];
    size_t m = h->aside_len;
    aside_drop_stale(h, times);
    size_t n = h->aside_len;
    if (n == 0)
        return;
    double base = t < INFINITY ? t : times[1];
    double ahead = times[0] / (double)n - base;
    double horizon = ahead > 0 ? base + ahead / 8 : base;
    int all = 8 * n > 7 * m;
    struct sim_event *ev = h->ev;
    size_t cap = h->cap, lo = cap - n;
    for (size_t p = lo; p < cap; p++)
        if (all || ev[p].time <= horizon) { /* to lo's slot or below */
            struct sim_event e = ev[p];
            ev[p] = ev[lo++];
            heap_insert(h, e);
        }
    h->aside_len = cap - lo;
    h->aside_horizon = horizon;
}

/* Makes room for one more event in a full block (heap and events aside):
 * amortized O(1), 7 cap / 8 pushes at least between two compactions. LAS
 * on a burst (one stale finish a preemption): keeping the capacity only up
 * to cap / 2 live took 7 % to 11 % longer, up to cap / 4 about 5 % longer
 * than this (docs/performance.md). 0 or SIM_ENOMEM. */
static int make_room(struct sim_heap *h)
{
    size_t cap = h->cap ? h->cap * 2 : 64;
    if (h->live && h->len + h->aside_len >= 1024) {
        compact(h);
        double times[2];
        if (h->aside_len)
            aside_drop_stale(h, times);
        if (h->len + h->aside_len <= h->cap / 8)
            cap = h->cap;
    }
    if (cap != h->cap) {
        struct sim_event *ev = realloc(h->ev, cap * sizeof *ev);
        if (!ev)
            return SIM_ENOMEM;
        memmove(ev + cap - h->aside_len, ev + h->cap - h->aside_len,
                h->aside_len * sizeof *ev);
        h->ev = ev;
        h->cap = cap;
    }
    return 0;
}

/* Room for one more event: make_room when the block is full. */
static int room_for_one(struct sim_heap *h)
{
    return h->len + h->aside_len == h->cap ? make_room(h) : 0;
}

int sim_heap_push_slow(struct sim_heap *h, double time, uint32_t kind,
                       uint32_t job, uint32_t epoch)
{
    int rc = room_for_one(h);
    if (rc)
        return rc;
    struct sim_event e = {time, h->next_seq++, kind, job, epoch};
    if (kind == SIM_EV_ARRIVAL && !h->has_front) {
        h->front = e;
        h->has_front = 1;
        return 0;
    }
    heap_insert(h, e);
    return 0;
}

int sim_heap_push_aside_slow(struct sim_heap *h, double time, uint32_t kind,
                             uint32_t job, uint32_t epoch)
{
    int rc = room_for_one(h);
    return rc ? rc : sim_heap_push_aside(h, time, kind, job, epoch);
}

/* Before the heap decides, T its earliest (and the front's): when that
 * is past the horizon, the events aside due by a new one go into it
 * (aside_scan). Whether T changed. */
static inline int aside_settle(struct sim_heap *h, double t)
{
    if (h->aside_len == 0 || !(t > h->aside_horizon))
        return 0;
    aside_scan(h);
    return 1;
}

int sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
    if (h->aside_len)
        aside_settle(h, heap_front_time(h));
    if (h->has_front && (h->len == 0 || event_before(&h->front, &h->ev[0]))) {
        *out = h->front;
        h->has_front = 0;
        return 0;
    }
    if (h->len == 0)
        return -1;
    *out = h->ev[0];
    struct sim_event last = h->ev[--h->len];
    size_t n = h->len, i = 0;
    if (n == 0)
        return 0;
    /* Bottom-up (Floyd): the hole goes down to a leaf along the earliest
     * children (of 4: two comparisons, then one between their winners),
     * then the last event rises from there; it belongs near the bottom, so
     * it rarely rises far. The keys are distinct, so the events pop in the
     * same order as by sift_down. On 1M FIFO jobs (1,000 events in the
     * heap) the 4-ary heap took 6 % off the simulation of the binary one
     * (docs/performance.md). */
    _Static_assert(SIM_HEAP_D == 4, "the pop below compares 4 children");
    struct sim_event *ev = h->ev;
    for (size_t child; (child = SIM_HEAP_D * i + 1) < n; i = child) {
        if (child + SIM_HEAP_D <= n) {
            size_t a = child + (size_t)event_before(&ev[child + 1], &ev[child]);
            size_t b = child + 2 +
                       (size_t)event_before(&ev[child + 3], &ev[child + 2]);
            child = event_before(&ev[b], &ev[a]) ? b : a;
        } else /* the last parent's children: fewer than 4 */
            child = earliest_child(ev, child, n);
        ev[i] = ev[child];
    }
    while (i > 0) {
        size_t parent = (i - 1) / SIM_HEAP_D;
        if (!event_before(&last, &ev[parent]))
            break;
        ev[i] = ev[parent];
        i = parent;
    }
    ev[i] = last;
    return 0;
}

double sim_heap_top_time(struct sim_heap *h)
{
    double t = heap_front_time(h);
    return aside_settle(h, t) ? heap_front_time(h) : t;
}

void sim_heap_free(struct sim_heap *h)
{
    h->has_front = 0;
    h->aside_len = 0;
    h->aside_horizon = 0;
    free(h->ev);
    h->ev = NULL;
    h->len = h->cap = 0;
}
