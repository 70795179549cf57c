/* test_stream.c -- the streaming run (sim_set_source, sim/stream.c): the
 * same jobs given whole (sim_add_job) and from a source give the same
 * summary bit for bit and the same jobs in id order, and the job store
 * frees its chunks as jobs retire. The expected figures come from the
 * whole-trace run, which the golden suite pins independently. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"

/* N jobs on ts_three_nodes (type A: nodes of 2 and 4 GPUs, type B: one
 * node of 2): Poisson arrivals, lognormal work, 1, 2 or 4 GPUs on any type,
 * A or B (4 on B fits nowhere: it fails at arrival). Ties in submit time
 * come from rounding to whole seconds. */
static struct sim_job_spec *make_jobs(size_t n, unsigned long seed, double rate)
{
    struct sim_job_spec *jobs = calloc(n, sizeof *jobs);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 1 / rate);
        static const int32_t gpus[] = {1, 1, 1, 2, 2, 4};
        jobs[i] = (struct sim_job_spec){
            .submit_time = floor(t),
            .work = gsl_ran_lognormal(r, 3, 1.2),
            .num_gpus = gpus[gsl_rng_uniform_int(r, 6)],
            .allowed = (uint32_t)gsl_rng_uniform_int(r, 3),
            .trace_index = (uint32_t)i};
    }
    gsl_rng_free(r);
    return jobs;
}

struct feed {
    const struct sim_job_spec *jobs;
    size_t n, next;
    struct sim_job *seen; /* (n) each job as retired */
    size_t retired;
    int out_of_order;
};

static int feed_next(void *ctx, struct sim_job_spec *out)
{
    struct feed *f = ctx;
    if (f->next == f->n)
        return 1;
    *out = f->jobs[f->next++];
    return 0;
}

static void feed_retire(void *ctx, const struct sim *s, uint32_t j)
{
    struct feed *f = ctx;
    f->out_of_order |= j != f->retired;
    f->seen[f->retired++] = *sim_job(s, j);
}

static const struct sim_policy first_node = {"first-node", NULL, NULL, NULL,
                                             ts_first_node_schedule};

/* The whole-trace run of JOBS: its summary into *M, its jobs into JOBS_OUT. */
static void run_whole(const struct cluster *c, const struct sim_job_spec *jobs,
                      size_t n, struct sim_summary *m, struct sim_job *out)
{
    struct sim *s = sim_create(c, 1);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(sim_add_job(s, &jobs[i]), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, NULL, &err), 0, "%s", err.text);
    cr_assert_eq(sim_summarize(s, m), 0);
    for (size_t i = 0; i < n; i++)
        out[i] = *sim_job(s, (uint32_t)i);
    sim_destroy(s);
}

/* Runs JOBS streamed and whole on C: the same summary, bit for bit, and
 * the same jobs, retired in id order. The whole run's summary and jobs
 * into *MW and WHOLE. */
static void check_streamed_as_whole(const struct cluster *c,
                                    const struct sim_job_spec *jobs, size_t n,
                                    struct sim_summary *mw,
                                    struct sim_job *whole)
{
    struct sim_summary ms;
    run_whole(c, jobs, n, mw, whole);
    struct feed f = {jobs, n, 0, malloc(n * sizeof(struct sim_job)), 0, 0};
    struct sim *s = sim_create(c, 1);
    struct sim_source src = {&f, feed_next, feed_retire};
    cr_assert_eq(sim_set_source(s, &src), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, NULL, &err), 0, "%s", err.text);
    cr_assert_eq(sim_summarize(s, &ms), 0);
    cr_assert_eq(f.retired, n);
    cr_assert_eq(f.out_of_order, 0);
    /* bit for bit: the same sums in the same order, the same quantiles */
    cr_assert_eq(memcmp(&ms, mw, sizeof ms), 0,
                 "avg_jct %.17g vs %.17g, p99 %.17g vs %.17g, frag %.17g vs "
                 "%.17g",
                 ms.avg_jct_s, mw->avg_jct_s, ms.p99_jct_s, mw->p99_jct_s,
                 ms.frag_rate_mean, mw->frag_rate_mean);
    for (size_t i = 0; i < n; i++) {
        const struct sim_job *a = &f.seen[i], *b = &whole[i];
        cr_assert(a->submit_time == b->submit_time &&
                      a->start_time == b->start_time &&
                      a->finish_time == b->finish_time &&
                      a->run_s == b->run_s && a->state == b->state &&
                      a->failure == b->failure && a->gpu_type == b->gpu_type &&
                      a->num_gpus == b->num_gpus &&
                      a->trace_index == b->trace_index,
                  "job %zu differs", i);
    }
    sim_destroy(s);
    free(f.seen);
}

Test(stream, a_streamed_run_gives_the_whole_runs_summary_and_jobs_in_id_order)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    size_t n = 60000; /* 4 chunks of 16,384 jobs */
    struct sim_job_spec *jobs = make_jobs(n, 7, 0.05);
    struct sim_job *whole = malloc(n * sizeof *whole);
    struct sim_summary mw;
    check_streamed_as_whole(c, jobs, n, &mw, whole);
    cr_assert_gt(mw.jobs_unschedulable, 0, "some 4-GPU jobs on B fail");
    cr_assert_gt(mw.frag_rate_mean, 0);
    free(whole);
    free(jobs);
    cluster_destroy(c);
}

/* A streaming run logs each fragmentation update's time by the
 * difference of its double's bits from the last one's (run_frag.c): in
 * the word itself when small, in one more word, or whole in two more. Jobs
 * placed to make each: at -0 and 0 (the first time whole, then the same
 * time), 1,000 short jobs 10 ms apart at 1e9 s (updates 1 ms and 9 ms
 * apart: about 8,400 and 75,000 ulps, in the word), 1,000 jobs 100 s apart
 * at 4e9 s (about 10^8 ulps, in a second word), and jumps between the
 * groups (whole). The whole-trace run integrates the fragmentation as it
 * goes, without the log: the streamed run's summary, the log replayed,
 * must equal it bit for bit. */
Test(stream, the_logged_times_read_back_exactly_near_and_far)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    size_t n = 2002;
    struct sim_job_spec *jobs = make_jobs(n, 5, 1);
    jobs[0].submit_time = -0.0;
    jobs[1].submit_time = 0.0;
    jobs[0].work = jobs[1].work = 10;
    for (size_t i = 2; i < n; i++) {
        size_t k = i - 2;
        int near = k < 1000;
        jobs[i].submit_time =
            near ? 1e9 + (double)k * 0.01 : 4e9 + (double)(k - 1000) * 100;
        jobs[i].work = near ? 0.001 : 50;
    }
    struct sim_job *whole = malloc(n * sizeof *whole);
    struct sim_summary mw;
    check_streamed_as_whole(c, jobs, n, &mw, whole);
    cr_assert_gt(mw.frag_rate_mean, 0);
    free(whole);
    free(jobs);
    cluster_destroy(c);
}

/* The wait queue's links live in a ring of the jobs not retired, first
 * 1,024 slots (state.c): an overload (about 1.1 times what the GPUs can
 * do) keeps a queue whose span from the oldest waiting job to the newest
 * arrival outgrows it while jobs retire, so the ring wraps and grows with
 * jobs retired; the first-node policy walks the queue in its order. */
Test(stream, a_long_queue_keeps_its_order_as_its_links_wrap_and_grow)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    size_t n = 40000;
    struct sim_job_spec *jobs = make_jobs(n, 5, 0.12);
    struct sim_job *whole = malloc(n * sizeof *whole);
    struct sim_summary mw;
    check_streamed_as_whole(c, jobs, n, &mw, whole);
    size_t span = 0, k = 0; /* ids are the arrival order */
    for (size_t i = 0; i < n; i++) {
        if (whole[i].start_time < 0)
            continue;
        while (k < n && jobs[k].submit_time <= whole[i].start_time)
            k++;
        if (k - i > span)
            span = k - i;
    }
    cr_assert_gt(span, 2048, "the span %zu outgrows the ring twice", span);
    free(whole);
    free(jobs);
    cluster_destroy(c);
}

/* 300,000 jobs at a light load: about 19 chunks in all, but only the span
 * from the oldest unfinished job to the newest arrival is held. */
Test(stream, the_job_store_frees_its_chunks_as_jobs_retire)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    size_t n = 300000;
    struct sim_job_spec *jobs = make_jobs(n, 11, 0.02);
    struct feed f = {jobs, n, 0, calloc(1, sizeof(struct sim_job)), 0, 0};
    struct sim *s = sim_create(c, 1);
    struct sim_source src = {&f, feed_next, NULL};
    cr_assert_eq(sim_set_source(s, &src), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, NULL, &err), 0, "%s", err.text);
    size_t peak, live = sim_live_chunks(s, &peak);
    cr_assert_eq(sim_njobs(s), n);
    cr_assert_leq(peak, 2, "peak %zu chunks held of %zu", peak,
                  (n + 16383) / 16384);
    cr_assert_leq(live, 1, "every full chunk is freed at the end");
    sim_destroy(s);
    free(f.seen);
    free(jobs);
    cluster_destroy(c);
}

Test(stream, a_source_going_back_in_time_stops_the_run)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    struct sim_job_spec jobs[3] = {
        {.submit_time = 5, .work = 1, .num_gpus = 1},
        {.submit_time = 9, .work = 1, .num_gpus = 1},
        {.submit_time = 7, .work = 1, .num_gpus = 1}};
    struct feed f = {jobs, 3, 0, calloc(3, sizeof(struct sim_job)), 0, 0};
    struct sim *s = sim_create(c, 1);
    struct sim_source src = {&f, feed_next, feed_retire};
    cr_assert_eq(sim_set_source(s, &src), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, NULL, &err), SIM_EINVAL);
    cr_assert(strstr(err.text, "before the previous"), "%s", err.text);
    sim_destroy(s);
    free(f.seen);
    cluster_destroy(c);
}

/* What an observer of the streamed run saw: the fragmentation's mark and
 * each node's free GPUs, at every call. */
struct seen_frag {
    const struct sim *s;
    int32_t nnodes;
    size_t n, cap;
    uint64_t *mark;
    int32_t *free; /* (cap x nnodes) */
};

static void note_frag(void *ctx, double time, int32_t queued, int32_t busy,
                      const int32_t *by_type)
{
    (void)time, (void)queued, (void)busy, (void)by_type;
    struct seen_frag *o = ctx;
    if (o->n == o->cap) {
        o->cap = 2 * o->cap + 1024;
        o->mark = realloc(o->mark, o->cap * sizeof *o->mark);
        o->free =
            realloc(o->free, o->cap * (size_t)o->nnodes * sizeof *o->free);
    }
    o->mark[o->n] = sim_frag_mark(o->s);
    for (int32_t i = 0; i < o->nnodes; i++)
        o->free[o->n * (size_t)o->nnodes + (size_t)i] = sim_node_free(o->s, i);
    o->n++;
}

/* A streaming run knows the jobs' mix only at its end: the replay of its
 * log says, at each mark an observer noted, the fragmentation worked out
 * from scratch from the nodes' free GPUs then and the whole mix (FGD with
 * whole GPUs, run_frag.c: a node of type t with f free GPUs counts f x the
 * share of jobs that may not use t or ask more than f), as the same
 * integer sum over N, so the same double. */
Test(stream, the_replayed_fragmentation_is_the_one_worked_out_from_scratch)
{
    struct cluster *c;
    cr_assert_eq(cluster_parse(ts_three_nodes, "test", &c, NULL), 0);
    size_t n = 100000; /* the log outgrows its block: it spills */
    struct sim_job_spec *jobs = make_jobs(n, 11, 0.05);
    struct feed f = {jobs, n, 0, malloc(n * sizeof(struct sim_job)), 0, 0};
    struct sim *s = sim_create(c, 1);
    struct sim_source src = {&f, feed_next, feed_retire};
    struct seen_frag o = {.s = s, .nnodes = c->nnodes};
    struct sim_observer obs = {&o, note_frag};
    cr_assert_eq(sim_set_source(s, &src), 0);
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, &obs, &err), 0, "%s", err.text);
    cr_assert_eq(f.retired, n);
    struct sim_frag_replay *r;
    cr_assert_eq(sim_frag_replay_begin(s, &r), 0);
    /* fit[t][f]: jobs that may use type t and ask at most f GPUs */
    int64_t fit[2][5] = {{0}};
    for (size_t j = 0; j < n; j++)
        for (int32_t t = 0; t < 2; t++)
            for (int32_t g = 0; g <= 4; g++)
                fit[t][g] +=
                    (f.seen[j].allowed >> t & 1u) && f.seen[j].num_gpus <= g;
    size_t fragmented = 0;
    for (size_t k = 0; k < o.n; k++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < c->nnodes; i++) {
            int32_t g = o.free[k * (size_t)c->nnodes + (size_t)i];
            sum += g * ((int64_t)n - fit[c->nodes[i].gpu_type][g]);
        }
        double want = (double)sum / (double)n;
        double got = sim_frag_replay_gpus(r, o.mark[k]);
        cr_assert(got == want, "call %zu: %.17g, from scratch %.17g", k, got,
                  want);
        fragmented += want > 0;
    }
    cr_assert_gt(fragmented, o.n / 10, "%zu of %zu", fragmented, o.n);
    cr_assert_gt(o.mark[o.n - 1], 1u << 18, "the log spilled (FRAG_LOG)");
    cr_assert_eq(sim_frag_replay_end(r), 0);
    free(o.mark);
    free(o.free);
    sim_destroy(s);
    free(f.seen);
    free(jobs);
    cluster_destroy(c);
}
