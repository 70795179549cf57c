/* test_runq.c -- the run queues of preemptive.c (policies/runq.c): orders
 * worked out by hand, the runs they make, and random operations against a
 * linear scan. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "runq_internal.h"

#define NJOBS 64

static struct rq_item it(double key, uint32_t rank, uint32_t job)
{
    return (struct rq_item){key, rank, job};
}

static uint32_t pop_job(struct rq *q, struct rq_where *w)
{
    return rq_pop(q, w).job;
}

/* The next N pops of Q are the jobs WANT[0..N-1], in that order. */
static void pops_in_order(struct rq *q, struct rq_where *w,
                          const uint32_t *want, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pop_job(q, w), want[i], "pop %d", i);
}

Test(runq, min_queue_pops_by_key_then_rank_then_job)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 1, 0);
    /* (5, 0, 0) (1, 2, 1) (1, 1, 2) (1, 1, 3) (3, 0, 4): by key, then
     * rank, then id: 2, 3, 1, 4, 0. */
    cr_assert_eq(rq_push(&q, w, it(5, 0, 0)), 0);
    cr_assert_eq(rq_push(&q, w, it(1, 2, 1)), 0);
    cr_assert_eq(rq_push(&q, w, it(1, 1, 2)), 0);
    cr_assert_eq(rq_push(&q, w, it(1, 1, 3)), 0);
    cr_assert_eq(rq_push(&q, w, it(3, 0, 4)), 0);
    cr_assert_eq(q.len, 5);
    cr_assert_eq(rq_top(&q)->job, 2);
    uint32_t want[] = {2, 3, 1, 4, 0};
    pops_in_order(&q, w, want, 5);
    cr_assert_null(rq_top(&q));
    rq_free(&q);
}

Test(runq, max_queue_puts_the_greatest_on_top)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 2, 1);
    cr_assert_eq(rq_push(&q, w, it(2, 0, 0)), 0);
    cr_assert_eq(rq_push(&q, w, it(7, 0, 1)), 0);
    cr_assert_eq(rq_push(&q, w, it(7, 0, 2)), 0); /* ties: the later id */
    cr_assert_eq(rq_push(&q, w, it(4, 0, 3)), 0);
    uint32_t want[] = {2, 1, 3, 0};
    pops_in_order(&q, w, want, 4);
    rq_free(&q);
}

Test(runq, items_pushed_in_order_make_one_run)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 1, 0);
    /* Each a better one than the last (a pass's victims, worst first):
     * one run growing upwards. */
    for (uint32_t j = 0; j < 10; j++)
        cr_assert_eq(rq_push(&q, w, it(100 - (double)j, 0, j)), 0);
    cr_assert_eq(q.hlen, 1);
    /* Then each worse than the last (arrivals in rank order): a second
     * run, growing downwards. */
    for (uint32_t j = 10; j < 20; j++)
        cr_assert_eq(rq_push(&q, w, it(200, j, j)), 0);
    cr_assert_eq(q.hlen, 2);
    for (uint32_t j = 10; j-- > 0;)
        cr_assert_eq(pop_job(&q, w), j);
    for (uint32_t j = 10; j < 20; j++)
        cr_assert_eq(pop_job(&q, w), j);
    cr_assert_eq(q.hlen, 0);
    rq_free(&q);
}

Test(runq, a_job_taken_from_inside_a_run_is_skipped)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 1, 0);
    for (uint32_t j = 0; j < 5; j++) /* one run: top 4, then 3, 2, 1, 0 */
        cr_assert_eq(rq_push(&q, w, it(10 - (double)j, 0, j)), 0);
    cr_assert_eq(rq_remove(&q, w, 2).job, 2);
    cr_assert_eq(rq_remove(&q, w, 4).job, 4); /* the top */
    cr_assert_eq(q.len, 3);
    cr_assert_eq(rq_top(&q)->job, 3);
    /* Job 2 comes back, with a key above all (a new run): the dead entry
     * of its old place must not count. */
    cr_assert_eq(rq_push(&q, w, it(50, 0, 2)), 0);
    uint32_t want[] = {3, 1, 0, 2};
    pops_in_order(&q, w, want, 4);
    cr_assert_null(rq_top(&q));
    rq_free(&q);
}

/* The least (or greatest) of the N jobs marked in, by a linear scan. */
static int naive_top_of(const struct rq_item *item, const int *in, int n,
                        int max)
{
    int best = -1;
    for (int j = 0; j < n; j++) {
        if (!in[j])
            continue;
        const struct rq_item *a = &item[j], *b = best < 0 ? NULL : &item[best];
        int lt = !b || (a->key != b->key     ? a->key < b->key
                        : a->rank != b->rank ? a->rank < b->rank
                                             : a->job < b->job);
        if (!b || (max ? !lt : lt))
            best = j;
    }
    return best;
}

/* naive_top_of for NJOBS jobs. */
static int naive_top(const struct rq_item *item, const int *in, int max)
{
    return naive_top_of(item, in, NJOBS, max);
}

Test(runq, random_operations_agree_with_a_linear_scan)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 19);
    for (int max = 0; max <= 1; max++) {
        struct rq q;
        struct rq_where w[NJOBS] = {{0}};
        struct rq_item item[NJOBS];
        int in[NJOBS] = {0}, n = 0;
        rq_init(&q, 3, max);
        double base = 0;
        for (int step = 0; step < 20000; step++) {
            uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NJOBS);
            unsigned op = (unsigned)gsl_rng_uniform_int(r, 4);
            if (!in[j] && op < 2) {
                /* keys drift with runs in both directions and ties */
                base += (double)gsl_rng_uniform_int(r, 3) - 1;
                item[j] = it(base + (double)gsl_rng_uniform_int(r, 4),
                             (uint32_t)gsl_rng_uniform_int(r, 3), j);
                cr_assert_eq(rq_push(&q, w, item[j]), 0);
                in[j] = 1;
                n++;
            } else if (in[j] && op == 2) {
                cr_assert_eq(rq_remove(&q, w, j).job, j);
                in[j] = 0;
                n--;
            } else if (n > 0 && op == 3) {
                int t = naive_top(item, in, max);
                cr_assert_eq(rq_top(&q)->job, (uint32_t)t, "step %d", step);
                cr_assert_eq(pop_job(&q, w), (uint32_t)t);
                in[t] = 0;
                n--;
            }
            cr_assert_eq(q.len, (uint32_t)n);
        }
        rq_free(&q);
    }
    gsl_rng_free(r);
}

Test(runq, a_rising_list_pushed_at_once_is_one_run)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 1, 0);
    cr_assert_eq(rq_push(&q, w, it(5, 0, 20)), 0); /* a run of its own */
    /* Victims worst first: each better than the last; one run with job 9
     * (key 1) on top, job 20 (key 5) between jobs 5 and 4. */
    struct rq_item e[10];
    for (uint32_t j = 0; j < 10; j++)
        e[j] = it(10 - (double)j, 0, j);
    cr_assert_eq(rq_push_many(&q, w, e, 10), 0);
    cr_assert_eq(q.hlen, 2);
    cr_assert_eq(q.len, 11);
    cr_assert_eq(rq_top(&q)->job, 9);
    cr_assert_eq(rq_remove(&q, w, 7).job, 7); /* from inside the run */
    uint32_t want[] = {9, 8, 6, 5, 20, 4, 3, 2, 1, 0};
    pops_in_order(&q, w, want, 10);
    cr_assert_null(rq_top(&q));
    rq_free(&q);
}

Test(runq, a_list_rising_in_two_pieces_is_two_runs)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 2, 1); /* running jobs: the greatest on top */
    /* Started jobs best first: keys rise, but jobs 4 and 5 tie on key 3
     * and 5 comes after 4 by id only where it is pushed after it; here 5
     * is pushed before 4: the list breaks there (as two priorities that
     * round to one key break a pass's list). */
    struct rq_item e[9] = {it(0, 0, 1), it(1, 0, 2), it(2, 0, 3),
                           it(3, 0, 5), it(3, 0, 4), it(4, 0, 6),
                           it(5, 0, 7), it(6, 0, 8), it(7, 0, 9)};
    cr_assert_eq(rq_push_many(&q, w, e, 9), 0);
    cr_assert_eq(q.hlen, 2);
    cr_assert_eq(q.len, 9);
    uint32_t want[] = {9, 8, 7, 6, 5, 4, 3, 2, 1}; /* ties: higher id on top */
    pops_in_order(&q, w, want, 9);
    cr_assert_null(rq_top(&q));
    rq_free(&q);
}

/* The item K below the top by rq_ahead (a span of one), or NULL. */
static const struct rq_item *ahead1(const struct rq *q, uint32_t k)
{
    int step;
    return rq_ahead(q, k, 1, &step);
}

Test(runq, ahead_gives_the_items_below_the_top_in_its_run)
{
    struct rq q;
    struct rq_where w[NJOBS] = {{0}};
    rq_init(&q, 1, 0);
    cr_assert_null(ahead1(&q, 0));
    struct rq_item e[5];
    for (uint32_t j = 0; j < 5; j++) /* worst first: job 4 on top */
        e[j] = it(10 - (double)j, 0, j);
    cr_assert_eq(rq_push_many(&q, w, e, 5), 0);
    for (uint32_t k = 0; k < 5; k++)
        cr_assert_eq(ahead1(&q, k)->job, 4 - k, "k %u", k);
    cr_assert_null(ahead1(&q, 5));
    int step = 0;
    const struct rq_item *x = rq_ahead(&q, 1, 3, &step); /* jobs 3, 2, 1 */
    cr_assert_not_null(x);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(x[i * step].job, (uint32_t)(3 - i), "i %d", i);
    cr_assert_null(rq_ahead(&q, 2, 4, &step));      /* only 3 below 2 */
    cr_assert_eq(rq_push(&q, w, it(20, 0, 10)), 0); /* below its bottom */
    cr_assert_eq(rq_push(&q, w, it(21, 0, 11)), 0); /* a run growing down */
    cr_assert_eq(pop_job(&q, w), 4);
    cr_assert_eq(ahead1(&q, 0)->job, 3);
    for (int i = 0; i < 4; i++)
        pop_job(&q, w);
    cr_assert_eq(rq_top(&q)->job, 10);
    cr_assert_eq(ahead1(&q, 1)->job, 11);
    cr_assert_null(ahead1(&q, 2));
    x = rq_ahead(&q, 0, 2, &step); /* growing down: 10, then 11 */
    cr_assert_not_null(x);
    cr_assert_eq(x[0].job, 10);
    cr_assert_eq(x[step].job, 11);
    rq_free(&q);
}

Test(runq, lists_pushed_at_once_agree_with_a_linear_scan)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    for (int max = 0; max <= 1; max++) {
        struct rq q;
        struct rq_where w[NJOBS] = {{0}};
        struct rq_item item[NJOBS], list[NJOBS];
        int in[NJOBS] = {0}, n = 0;
        rq_init(&q, 3, max);
        for (int step = 0; step < 5000; step++) {
            unsigned op = (unsigned)gsl_rng_uniform_int(r, 3);
            if (op == 0) { /* a list of jobs not in, rising or not */
                uint32_t k = 0, sorted = gsl_rng_uniform_int(r, 4) != 0;
                double key = (double)gsl_rng_uniform_int(r, 100);
                for (uint32_t j = 0; j < NJOBS && k < 12; j++) {
                    if (in[j] || gsl_rng_uniform_int(r, 3) != 0)
                        continue;
                    /* rising: each nearer the top than the last (ties
                     * broken by the id, which rises) */
                    key += sorted ? (max ? 1 : -1) *
                                        (double)gsl_rng_uniform_int(r, 2)
                                  : (double)gsl_rng_uniform_int(r, 7) - 3;
                    if (sorted && !max && gsl_rng_uniform_int(r, 2))
                        key -= 1; /* a min-queue's tie would fall */
                    item[j] = list[k++] = it(key, 0, j);
                    in[j] = 1;
                    n++;
                }
                cr_assert_eq(rq_push_many(&q, w, list, k), 0);
            } else if (n > 0 && op == 1) {
                int t = naive_top(item, in, max);
                cr_assert_eq(pop_job(&q, w), (uint32_t)t, "step %d", step);
                in[t] = 0;
                n--;
            } else if (n > 0) { /* take out a random job that is in */
                uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NJOBS);
                if (in[j]) {
                    cr_assert_eq(rq_remove(&q, w, j).job, j);
                    in[j] = 0;
                    n--;
                }
            }
            cr_assert_eq(q.len, (uint32_t)n);
        }
        rq_free(&q);
    }
    gsl_rng_free(r);
}

#define NBIG 600

/* Pushes by rq_push_rising one list of up to LEN of the jobs below NBIG
 * not IN Q (each taken with chance 1/2, in job order), their keys from KEY
 * moving 1 to SPREAD a job toward Q's top, ranks below RANKS, ITEM
 * recording each; how many. */
static int push_rising_list(gsl_rng *r, struct rq *q, struct rq_where *w,
                            struct rq_item *item, int *in, uint32_t len,
                            double key, unsigned long spread, uint32_t ranks)
{
    static struct rq_item list[NBIG];
    uint32_t k = 0;
    for (int j = 0; j < NBIG && k < len; j++) {
        if (in[j] || gsl_rng_uniform_int(r, 2) != 0)
            continue;
        key += (q->max ? 1 : -1) * (double)(1 + gsl_rng_uniform_int(r, spread));
        item[j] = list[k++] =
            it(key, (uint32_t)gsl_rng_uniform_int(r, ranks), (uint32_t)j);
        in[j] = 1;
    }
    cr_assert_eq(rq_push_rising(q, w, list, k), 0);
    return (int)k;
}

/* Runs far longer than RQ_CLEAN, pushed whole by rq_push_rising, with
 * jobs taken out from inside them (dead entries deep below the top, and
 * clean counts cut and found again), against a linear scan. */
Test(runq, long_rising_runs_with_dead_entries_agree_with_a_linear_scan)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 29);
    static struct rq_where w[NBIG];
    static struct rq_item item[NBIG];
    static int in[NBIG];
    for (int max = 0; max <= 1; max++) {
        struct rq q;
        int n = 0, pops = 0;
        memset(w, 0, sizeof w);
        memset(in, 0, sizeof in);
        rq_init(&q, 5, max);
        for (int step = 0; step < 20000; step++) {
            unsigned op = (unsigned)gsl_rng_uniform_int(r, 8);
            if (op == 0) { /* a rising list: each nearer the top */
                uint32_t len = 1 + (uint32_t)gsl_rng_uniform_int(r, 200);
                double key = (double)gsl_rng_uniform_int(r, 1000);
                n += push_rising_list(r, &q, w, item, in, len, key, 2, 4);
            } else if (n > 0 && op <= 3) {
                int t = naive_top_of(item, in, NBIG, max);
                cr_assert_eq(pop_job(&q, w), (uint32_t)t, "step %d", step);
                in[t] = 0;
                n--;
                pops++;
            } else if (n > 0 && op <= 6) { /* one from inside a run */
                uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NBIG);
                if (in[j]) {
                    cr_assert_eq(rq_remove(&q, w, j).job, j);
                    in[j] = 0;
                    n--;
                }
            } else { /* one alone, anywhere */
                uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NBIG);
                if (!in[j]) {
                    item[j] = it((double)gsl_rng_uniform_int(r, 1000),
                                 (uint32_t)gsl_rng_uniform_int(r, 4), j);
                    cr_assert_eq(rq_push(&q, w, item[j]), 0);
                    in[j] = 1;
                    n++;
                }
            }
            cr_assert_eq(q.len, (uint32_t)n);
        }
        cr_assert_gt(pops, 1000);
        rq_free(&q);
    }
    gsl_rng_free(r);
}

/* Long streaks of pops over runs whose keys interleave (the pops that
 * need no comparison, rq.safe, and those that do), with an item taken out
 * or pushed now and then, against a linear scan. */
Test(runq, streaks_of_pops_over_interleaved_runs_agree_with_a_linear_scan)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 31);
    static struct rq_where w[NBIG];
    static struct rq_item item[NBIG];
    static int in[NBIG];
    for (int max = 0; max <= 1; max++) {
        struct rq q;
        int n = 0, safe_pops = 0;
        memset(w, 0, sizeof w);
        memset(in, 0, sizeof in);
        rq_init(&q, 7, max);
        for (int round = 0; round < 40; round++) {
            /* 2 to 5 rising runs, keys spaced so that runs overlap */
            int runs = 2 + (int)gsl_rng_uniform_int(r, 4);
            for (int k = 0; k < runs; k++) {
                uint32_t len = 20 + (uint32_t)gsl_rng_uniform_int(r, 100);
                double key = max ? (double)gsl_rng_uniform_int(r, 300)
                                 : 1000 + (double)gsl_rng_uniform_int(r, 300);
                n += push_rising_list(r, &q, w, item, in, len, key,
                                      3 * (unsigned long)(k + 1), 3);
            }
            while (n > 10) {
                unsigned op = (unsigned)gsl_rng_uniform_int(r, 40);
                if (op == 0) { /* one taken out, anywhere */
                    uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NBIG);
                    if (in[j]) {
                        cr_assert_eq(rq_remove(&q, w, j).job, j);
                        in[j] = 0;
                        n--;
                    }
                } else if (op == 1) { /* one pushed, anywhere */
                    uint32_t j = (uint32_t)gsl_rng_uniform_int(r, NBIG);
                    if (!in[j]) {
                        item[j] = it(500 + (double)gsl_rng_uniform_int(r, 600),
                                     (uint32_t)gsl_rng_uniform_int(r, 3), j);
                        cr_assert_eq(rq_push(&q, w, item[j]), 0);
                        in[j] = 1;
                        n++;
                    }
                } else {
                    safe_pops += q.safe > 0;
                    int t = naive_top_of(item, in, NBIG, max);
                    cr_assert_eq(pop_job(&q, w), (uint32_t)t, "round %d",
                                 round);
                    in[t] = 0;
                    n--;
                }
                cr_assert_eq(q.len, (uint32_t)n);
            }
        }
        cr_assert_gt(safe_pops, 1000); /* the path without comparisons ran */
        rq_free(&q);
    }
    gsl_rng_free(r);
}
