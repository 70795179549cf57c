/* heap.c -- the event queue: a binary min-heap on (time, insertion number).
 *
 * The insertion number makes the order total, so events at equal times pop
 * in the order they were pushed and every run replays identically. */
#include <math.h>

#include "sim_internal.h"

static int event_before(const struct sim_event *a, const struct sim_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return a->seq < b->seq;
}

/* Moves E down from slot I of the first N events to its place. */
static void sift_down(struct sim_event *ev, size_t n, size_t i,
                      struct sim_event e)
{
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && event_before(&ev[child + 1], &ev[child]))
            child++;
        if (!event_before(&ev[child], &e))
            break;
        ev[i] = ev[child];
        i = child;
    }
    ev[i] = e;
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
    for (size_t i = n / 2; i-- > 0;)
        sift_down(h->ev, n, i, h->ev[i]);
}

int sim_heap_push_slow(struct sim_heap *h, double time, uint32_t kind,
                       uint32_t job, uint32_t epoch)
{
    if (h->len == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        if (h->live && h->len >= 1024) {
            /* Amortized O(1): 7 cap / 8 pushes at least between two
             * compactions. LAS on a burst (one stale finish a preemption):
             * keeping the capacity only up to cap / 2 live took 7 % to
             * 11 % longer, up to cap / 4 about 5 % longer than this
             * (docs/performance.md). */
            compact(h);
            if (h->len <= h->cap / 8)
                cap = h->cap;
        }
        if (cap != h->cap) {
            struct sim_event *ev = realloc(h->ev, cap * sizeof *ev);
            if (!ev)
                return SIM_ENOMEM;
            h->ev = ev;
            h->cap = cap;
        }
    }
    struct sim_event e = {time, h->next_seq++, kind, job, epoch};
    if (kind == SIM_EV_ARRIVAL && !h->has_front) {
        h->front = e;
        h->has_front = 1;
        return 0;
    }
    size_t i = h->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!event_before(&e, &h->ev[parent]))
            break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i] = e;
    return 0;
}

int sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
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
    /* Bottom-up (Floyd): the hole goes down to a leaf along the earlier
     * children, one comparison per level, then the last event rises from
     * there; it belongs near the bottom, so it rarely rises far. The keys
     * are distinct, so the events pop in the same order as by sift_down. */
    struct sim_event *ev = h->ev;
    for (size_t child; (child = 2 * i + 1) < n; i = child) {
        if (child + 1 < n && event_before(&ev[child + 1], &ev[child]))
            child++;
        ev[i] = ev[child];
    }
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!event_before(&last, &ev[parent]))
            break;
        ev[i] = ev[parent];
        i = parent;
    }
    ev[i] = last;
    return 0;
}

double sim_heap_top_time(const struct sim_heap *h)
{
    double t = h->len ? h->ev[0].time : INFINITY;
    return h->has_front && h->front.time < t ? h->front.time : t;
}

void sim_heap_free(struct sim_heap *h)
{
    h->has_front = 0;
    free(h->ev);
    h->ev = NULL;
    h->len = h->cap = 0;
}
