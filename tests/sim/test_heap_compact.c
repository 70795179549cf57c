/* test_heap_compact.c -- the event heap dropping stale events (heap.c,
 * sim_heap.live): it pops the live events in the order a heap that keeps
 * every event pops them (stale ones skipped there by hand, as the engine
 * does), and its size follows the live events, not all pushes. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

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
