/* test_heap_compact.c -- the event heap dropping stale events (heap.c,
 * sim_heap.live): it pops the live events in the order a heap that keeps
 * every event pops them (stale ones skipped there by hand, as the engine
 * does), and its size follows the live events, not all pushes; the same
 * with events pushed aside (sim_heap_push_aside) against a reference. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "sim_internal.h"

/* Events with an odd epoch are stale in this test. */
static int live_even(const void *ctx, const struct sim_event *ev)
{
    (void)ctx;
    return ev->epoch % 2 == 0;
}

Test(event_heap, dropping_stale_events_keeps_the_order_and_bounds_the_size)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    struct sim_heap a = {0}, b = {0};
    a.live = live_even;
    size_t live = 0, max_live = 0, popped = 0;
    double now = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        /* Few distinct times (ties), 9 stale events in 10, most of them
         * far ahead (a preempted run's finish) so that they pile up. */
        uint32_t epoch = gsl_rng_uniform(r) < 0.9 ? 1 : 0;
        double t = now + (double)gsl_rng_uniform_int(r, 20) +
                   (epoch && gsl_rng_uniform(r) < 0.9 ? 1e6 : 0);
        cr_assert_eq(sim_heap_push(&a, t, SIM_EV_FINISH, i, epoch), 0);
        cr_assert_eq(sim_heap_push(&b, t, SIM_EV_FINISH, i, epoch), 0);
        live += epoch == 0;
        max_live = live > max_live ? live : max_live;
        while (i % 3 == 0 && live > 0) { /* pop the next live event */
            struct sim_event x, y;
            do
                cr_assert_eq(sim_heap_pop(&a, &x), 0);
            while (!live_even(NULL, &x));
            do
                cr_assert_eq(sim_heap_pop(&b, &y), 0);
            while (!live_even(NULL, &y));
            cr_assert(x.time == y.time && x.seq == y.seq && x.job == y.job,
                      "event %zu: job %u at %g, kept-all heap job %u at %g",
                      popped, x.job, x.time, y.job, y.time);
            now = x.time;
            live--;
            popped++;
            if (gsl_rng_uniform(r) < 0.5)
                break;
        }
    }
    cr_assert_gt(popped, 10000);
    cr_assert_gt(b.cap, 4 * a.cap, "kept-all cap %zu, dropping cap %zu", b.cap,
                 a.cap);
    /* A full heap of 1024 or more is compacted, and doubles only when
     * more than a quarter of it is live: cap < 8 live events, or 2048. */
    cr_assert_leq(a.cap, 8 * max_live + 2048, "cap %zu for %zu live events",
                  a.cap, max_live);
    sim_heap_free(&a);
    sim_heap_free(&b);
    gsl_rng_free(r);
}

/* The reference: every event pushed, in a plain array; the next one is
 * found by a linear search for the least (time, seq) among those not yet
 * popped and live by the rule (a run's event is live while its job's
 * epoch is the one it was pushed with). */
struct ref_event {
    double time;
    uint64_t seq;
    uint32_t job, epoch, kind, aside, done;
};

static int ref_live(const struct ref_event *e, const uint32_t *epochs)
{
    return e->kind == SIM_EV_WAKE || e->kind == SIM_EV_ARRIVAL ||
           e->epoch == epochs[e->job];
}

/* Index of the next live event of REF (N of them), or N; drops from the
 * front the ones done or stale for good (epochs only grow) at *FROM. */
static size_t ref_next(struct ref_event *ref, size_t n, size_t *from,
                       const uint32_t *epochs)
{
    while (*from < n && (ref[*from].done || !ref_live(&ref[*from], epochs)))
        (*from)++;
    size_t best = n;
    for (size_t i = *from; i < n; i++) {
        const struct ref_event *e = &ref[i];
        if (e->done || !ref_live(e, epochs))
            continue;
        if (best == n || e->time < ref[best].time ||
            (e->time == ref[best].time && e->seq < ref[best].seq))
            best = i;
    }
    return best;
}

/* Never called: the heap reads its epochs. */
static int live_by_epochs_only(const void *ctx, const struct sim_event *ev)
{
    (void)ctx;
    (void)ev;
    cr_assert_fail("the heap called live, not its epochs");
    return 1;
}

/* The stale rule through the heap's callback (a run without the compact
 * epochs: a streaming one), its epochs in CTX; counts its calls. */
static size_t live_calls;
static int live_by_callback(const void *ctx, const struct sim_event *ev)
{
    const uint32_t *epochs = ctx;
    live_calls++;
    return !sim_event_of_run(ev) || ev->epoch == epochs[ev->job];
}

/* Run events pushed aside (sim_heap_push_aside, as sim_swap does), most
 * of them stale before they are due, mixed with wake-ups, arrivals and
 * run events pushed into the heap, with many equal times: the live events
 * pop in the (time, seq) order of the reference, through scans that drop
 * the stale events aside and move the due ones into the heap, and through
 * the compactions of a full block; its size follows the live events; the
 * heap's earliest time (sim_heap_top_time, which may scan) is the time of
 * the next event popped. BY_CALLBACK: the heap tells stale events by its
 * live callback, not by compact epochs, and at the end some run events
 * are due at infinity (the horizon goes there). */
static void pushed_aside_case(int by_callback)
{
    enum { JOBS = 40, PUSHES = 150000 };
    uint32_t epochs[JOBS] = {0};
    struct ref_event *ref = calloc(PUSHES, sizeof *ref);
    cr_assert_not_null(ref);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 19);
    struct sim_heap h = {0};
    h.epochs = by_callback ? NULL : epochs;
    h.live = by_callback ? live_by_callback : live_by_epochs_only;
    h.live_ctx = epochs;
    live_calls = 0;
    size_t n = 0, from = 0, popped = 0, aside_popped = 0, ties = 0;
    size_t max_aside = 0, max_live = 0, stale_skipped = 0;
    double now = 0, last = -1;
    while (n < PUSHES) {
        /* a few pushes at NOW, or now and then a pass's many (which
         * fill the block), then one pop */
        int burst =
            gsl_rng_uniform(r) < 0.002 ? 1500 : (int)gsl_rng_uniform_int(r, 6);
        for (int k = burst; k >= 0 && n < PUSHES; k--) {
            uint32_t j = (uint32_t)gsl_rng_uniform_int(r, JOBS);
            double u = gsl_rng_uniform(r);
            struct ref_event *e = &ref[n];
            e->seq = h.next_seq;
            e->job = j;
            if (u < 0.005) { /* an arrival, soon: the front or the heap */
                e->kind = SIM_EV_ARRIVAL;
                e->time = now + (double)gsl_rng_uniform_int(r, 4);
                cr_assert_eq(sim_heap_push(&h, e->time, e->kind, j, 0), 0);
            } else if (u < 0.05) { /* a wake-up, soon (or at the horizon) */
                e->kind = SIM_EV_WAKE;
                e->time = now + (double)gsl_rng_uniform_int(r, 4);
                if (u < 0.01 && h.aside_horizon >= now)
                    e->time = h.aside_horizon;
                cr_assert_eq(sim_heap_push(&h, e->time, e->kind, 0, 0), 0);
                e->job = 0;
            } else { /* J's run ends or moves: its event goes stale */
                epochs[j]++;
                e->kind = u < 0.1 ? SIM_EV_OOM : SIM_EV_FINISH;
                e->epoch = epochs[j];
                /* whole seconds (equal times), mostly far ahead */
                e->time = now + (double)gsl_rng_uniform_int(r, 3) +
                          (gsl_rng_uniform(r) < 0.7
                               ? (double)gsl_rng_uniform_int(r, 400)
                               : 0);
                /* now and then at the horizon itself (heap.c): ties
                 * across the heap and the events aside */
                if (gsl_rng_uniform(r) < 0.05 && h.aside_horizon >= now)
                    e->time = h.aside_horizon;
                if (by_callback && n > PUSHES - 200 && u > 0.8)
                    e->time = INFINITY; /* a run that never ends */
                e->aside = u < 0.9;     /* the rest into the heap itself */
                int rc =
                    e->aside
                        ? sim_heap_push_aside(&h, e->time, e->kind, j, e->epoch)
                        : sim_heap_push(&h, e->time, e->kind, j, e->epoch);
                cr_assert_eq(rc, 0);
            }
            n++;
        }
        max_aside = h.aside_len > max_aside ? h.aside_len : max_aside;
        size_t live = 0;
        for (size_t i = from; i < n; i++)
            live += !ref[i].done && ref_live(&ref[i], epochs);
        max_live = live > max_live ? live : max_live;
        /* the heap's next live event (stale ones skipped, as the engine
         * does) against the reference's */
        struct sim_event x;
        double top = sim_heap_top_time(&h);
        int rc = sim_heap_pop(&h, &x);
        cr_assert(rc != 0 ? top == INFINITY : x.time == top,
                  "top time %g, popped %g", top, rc ? INFINITY : x.time);
        while (rc == 0 && sim_event_of_run(&x) && x.epoch != epochs[x.job]) {
            stale_skipped++;
            rc = sim_heap_pop(&h, &x);
        }
        size_t want = ref_next(ref, n, &from, epochs);
        if (want == n) {
            cr_assert_neq(rc, 0, "popped seq %llu, none live in the reference",
                          (unsigned long long)x.seq);
            continue;
        }
        cr_assert_eq(rc, 0, "empty, reference seq %llu next",
                     (unsigned long long)ref[want].seq);
        cr_assert(x.seq == ref[want].seq && x.time == ref[want].time &&
                      x.job == ref[want].job && x.kind == ref[want].kind,
                  "pop %zu: seq %llu at %g, reference seq %llu at %g", popped,
                  (unsigned long long)x.seq, x.time,
                  (unsigned long long)ref[want].seq, ref[want].time);
        cr_assert_geq(x.time, now);
        ref[want].done = 1;
        ties += x.time == last;
        last = now = x.time;
        aside_popped += ref[want].aside;
        popped++;
    }
    cr_assert_gt(popped, 10000);
    cr_assert_gt(aside_popped, 1000); /* moved into the heap by scans */
    cr_assert_gt(ties, 1000);         /* equal times, by insertion order */
    cr_assert_gt(max_aside, 512);
    cr_assert_gt(stale_skipped, 100); /* some popped stale, as in the engine */
    /* Every event aside is dropped or moved: the size follows the live
     * events (at most JOBS run events and a few wake-ups), not the 150,000
     * pushes: a full block of 1024 or more is compacted, and doubles only
     * when more than an eighth of it is left. */
    cr_assert_leq(h.cap, 2048, "cap %zu for %zu live events", h.cap, max_live);
    if (by_callback)
        cr_assert_gt(live_calls, 10000);
    sim_heap_free(&h);
    gsl_rng_free(r);
    free(ref);
}

Test(event_heap, events_pushed_aside_pop_in_the_order_of_a_sorted_reference)
{
    pushed_aside_case(0);
}

Test(event_heap, events_aside_told_stale_by_the_callback_pop_in_order)
{
    pushed_aside_case(1);
}
