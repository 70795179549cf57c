/* test_swap_fast.c -- sim_swap's own path (engine.c) against the general
 * one it replaces, a preemption (sim_preempt) then a start (sim_start) on
 * the same GPU: the same figures for every job and in the sums, also for
 * a run that would run out of memory and with restart overheads; and the
 * event heap's stale test read from the compact copy of the epochs
 * (sim_heap.epochs) against the rule written out here. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "sim_internal.h"

/* One type of 1,000 MB, one node of 2 GPUs. */
static const char *const two_gpus =
    "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1000, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 2}]}";

/* What a run shows besides the jobs' fields (swap.reports_...): each run
 * end reported (sim_on_run_end) and, after each pass of rotate, the
 * clock, the busy counts and the fragmentation integral. */
struct ran {
    uint32_t job;
    int32_t node, gpus;
    double start, end;
};
struct after_pass {
    double now, frag_area;
    int32_t busy, busy0;
};
struct probe {
    struct ran ran[512];
    struct after_pass pass[512];
    size_t nran, npass;
};
static struct probe *probe; /* where rotate records, or NULL */

static void tally_ran(void *ctx, uint32_t job, int32_t node, int32_t gpus,
                      double start, double end)
{
    struct probe *pr = ctx;
    cr_assert_lt(pr->nran, 512);
    pr->ran[pr->nran++] = (struct ran){job, node, gpus, start, end};
}

static int rotate_pass(void *state, struct sim *s);

/* rotate_pass, then the probe's record of what it left. */
static int rotate(void *state, struct sim *s)
{
    int rc = rotate_pass(state, s);
    if (probe) {
        cr_assert_lt(probe->npass, 512);
        probe->pass[probe->npass++] = (struct after_pass){
            sim_now(s), sim_frag_area(s), s->busy, s->busy_by_type[0]};
    }
    return rc;
}

/* The test policy: free GPUs go to the waiting jobs in queue order; then
 * the queue's head takes the GPU of the running job that started longest
 * ago, if that was 7 s or more ago, by sim_swap (state NULL) or by
 * sim_preempt then sim_start (state non-NULL); a pass comes again 7 s
 * later while jobs wait. */
static int rotate_pass(void *state, struct sim *s)
{
    struct sim_placement pl;
    struct sim_seg seg;
    for (int32_t h = sim_queue_head(s); h >= 0;) {
        int32_t next = sim_queue_next(s, (uint32_t)h);
        int32_t need = sim_job(s, (uint32_t)h)->num_gpus;
        if (sim_free_gpus(s, 0) == 0)
            break;
        for (int32_t n = 0; n < sim_cluster(s)->nnodes; n++)
            if (sim_node_free(s, n) >= need) {
                seg = (struct sim_seg){n, need};
                pl = (struct sim_placement){0, 1, &seg, NULL};
                int rc = sim_start(s, (uint32_t)h, &pl);
                if (rc)
                    return rc;
                break;
            }
        h = next;
    }
    int32_t head = sim_queue_head(s), oldest = -1;
    for (uint32_t j = 0; j < sim_njobs(s); j++) {
        const struct sim_job *job = sim_job(s, j);
        if (job->state == JOB_RUNNING &&
            (oldest < 0 ||
             job->last_start < sim_job(s, (uint32_t)oldest)->last_start))
            oldest = (int32_t)j;
    }
    if (head < 0 || sim_job(s, (uint32_t)head)->num_gpus > 1)
        return 0; /* the 2-GPU job of swap.reports_... waits for both */
    int rc = 0;
    if (oldest >= 0 &&
        sim_now(s) - sim_job(s, (uint32_t)oldest)->last_start >= 7) {
        uint32_t v = (uint32_t)oldest;
        if (!state)
            rc = sim_swap(s, v, (uint32_t)head);
        else {
            seg = (struct sim_seg){s->segs[sim_job(s, v)->seg].node, 1};
            pl = (struct sim_placement){0, 1, &seg, NULL};
            rc = sim_preempt(s, v);
            if (!rc)
                rc = sim_start(s, (uint32_t)head, &pl);
        }
    }
    return rc ? rc : sim_wake_at(s, sim_now(s) + 7);
}

/* Five jobs: job 1 needs 2,000 MB (it runs out of memory 30 s into each
 * run on G, unless preempted first, and then fails: G is its only type);
 * jobs 2 and 4 pay 3 s and 11 s to restart, the others the run's 2 s. */
static struct sim *five_jobs(const struct cluster *c)
{
    static const double submit[] = {0, 0, 1, 2.5, 4};
    static const double work[] = {40, 25, 19, 33, 8};
    struct sim *s = sim_create(c, 1);
    cr_assert_not_null(s);
    for (uint32_t j = 0; j < 5; j++) {
        struct sim_job_spec spec = {submit[j], work[j],           1, 0, j, 0,
                                    0,         j == 1 ? 2000 : 0, 0};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    sim_set_oom_detect_s(s, 30);
    sim_set_restart_overhead(s, 2);
    sim_set_job_restart_overhead(s, 2, 3);
    sim_set_job_restart_overhead(s, 4, 11);
    return s;
}

Test(swap, matches_a_preemption_then_a_start_field_by_field)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(two_gpus, "test", &c, &err), 0, "%s", err.text);
    struct sim *a = five_jobs(c), *b = five_jobs(c);
    static int general = 1;
    struct sim_policy pa = {"swap", NULL, NULL, NULL, rotate};
    struct sim_policy pb = {"preempt-start", &general, NULL, NULL, rotate};
    cr_assert_eq(sim_run(a, &pa, NULL, &err), 0, "%s", err.text);
    cr_assert_eq(sim_run(b, &pb, NULL, &err), 0, "%s", err.text);
    for (uint32_t j = 0; j < 5; j++) {
        const struct sim_job *x = sim_job(a, j), *y = sim_job(b, j);
        cr_assert_eq(x->state, y->state, "job %u", j);
        cr_assert_eq(x->preemptions, y->preemptions, "job %u", j);
        cr_assert_eq(x->ooms, y->ooms, "job %u", j);
        cr_assert_eq(x->epoch, y->epoch, "job %u", j);
        cr_assert(x->finish_time == y->finish_time &&
                      x->start_time == y->start_time && x->run_s == y->run_s &&
                      x->work_left == y->work_left &&
                      x->wasted_s == y->wasted_s &&
                      x->overhead_due == y->overhead_due &&
                      x->overhead_run == y->overhead_run,
                  "job %u: finish %.17g / %.17g, run %.17g / %.17g", j,
                  x->finish_time, y->finish_time, x->run_s, y->run_s);
    }
    cr_assert(a->overhead_gpu_s == b->overhead_gpu_s &&
              a->wasted_gpu_s == b->wasted_gpu_s &&
              a->wasted_by_type[0] == b->wasted_by_type[0]);
    cr_assert_eq(a->preemptions, b->preemptions);
    cr_assert_eq(a->oom_events, b->oom_events);
    /* Worth comparing: swaps happened, job 1 was stopped before and
     * after running out of memory, overheads were paid. */
    cr_assert_geq(a->preemptions, 5);
    cr_assert_gt(sim_job(a, 1)->preemptions, 0);
    cr_assert_eq(sim_job(a, 1)->state, JOB_FAILED);
    cr_assert_gt(a->overhead_gpu_s, 0);
    sim_destroy(a);
    sim_destroy(b);
    cluster_destroy(c);
}

/* What the swap's own path skips (hand_over_gpus: the free GPUs, the
 * busy counts, and the run-end reports and fragmentation touches when no
 * one asks): each run end reported, the fragmentation integral, the busy
 * counts and the clock after every pass are those of the general path,
 * with and without a run-end callback; and the compact copy of the
 * epochs (sim->epochs) still equals every record's at the end. */
Test(swap, reports_runs_and_counts_as_the_general_path)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(two_gpus, "test", &c, &err), 0, "%s", err.text);
    static int general = 1;
    static struct probe pa, pb;
    for (int report = 0; report <= 1; report++) {
        struct sim *a = five_jobs(c), *b = five_jobs(c);
        /* A 2-GPU job after the others: while one GPU is free, it is
         * a fragment (run_frag.c), so the integral grows. */
        struct sim_job_spec two = {1000, 5, 2, 0, 5, 0, 0, 0, 0};
        cr_assert_eq(sim_add_job(a, &two), 0);
        cr_assert_eq(sim_add_job(b, &two), 0);
        pa = (struct probe){0};
        pb = (struct probe){0};
        if (report) {
            sim_on_run_end(a, tally_ran, &pa);
            sim_on_run_end(b, tally_ran, &pb);
        }
        struct sim_policy sa = {"swap", NULL, NULL, NULL, rotate};
        struct sim_policy sb = {"preempt-start", &general, NULL, NULL, rotate};
        probe = &pa;
        cr_assert_eq(sim_run(a, &sa, NULL, &err), 0, "%s", err.text);
        probe = &pb;
        cr_assert_eq(sim_run(b, &sb, NULL, &err), 0, "%s", err.text);
        probe = NULL;
        cr_assert_eq(pa.nran, pb.nran, "report %d", report);
        cr_assert_eq(pa.nran > 0, report); /* reports only when asked */
        for (size_t i = 0; i < pa.nran; i++) {
            const struct ran *x = &pa.ran[i], *y = &pb.ran[i];
            cr_assert(x->job == y->job && x->node == y->node &&
                          x->gpus == y->gpus && x->start == y->start &&
                          x->end == y->end,
                      "run end %zu: job %u [%.17g, %.17g] / job %u "
                      "[%.17g, %.17g]",
                      i, x->job, x->start, x->end, y->job, y->start, y->end);
        }
        cr_assert_eq(pa.npass, pb.npass, "report %d", report);
        for (size_t i = 0; i < pa.npass; i++) {
            const struct after_pass *x = &pa.pass[i], *y = &pb.pass[i];
            cr_assert(x->now == y->now && x->busy == y->busy &&
                          x->busy0 == y->busy0 && x->frag_area == y->frag_area,
                      "pass %zu (report %d): now %.17g / %.17g, busy %d / "
                      "%d, area %.17g / %.17g",
                      i, report, x->now, y->now, x->busy, y->busy, x->frag_area,
                      y->frag_area);
        }
        cr_assert(sim_frag_area(a) == sim_frag_area(b), "%.17g / %.17g",
                  sim_frag_area(a), sim_frag_area(b));
        cr_assert(sim_now(a) == sim_now(b));
        cr_assert_eq(a->busy, b->busy);
        cr_assert_eq(a->busy_by_type[0], b->busy_by_type[0]);
        /* Worth comparing: the integral grew, GPUs were busy, swaps. */
        cr_assert_gt(sim_frag_area(a), 0);
        int32_t most = 0;
        for (size_t i = 0; i < pa.npass; i++)
            most = pa.pass[i].busy > most ? (int32_t)pa.pass[i].busy : most;
        cr_assert_eq(most, 2);
        cr_assert_geq(a->preemptions, 5);
        cr_assert_not_null(a->epochs);
        cr_assert_eq(sim_job(a, 5)->state, JOB_COMPLETED);
        for (uint32_t j = 0; j < 6; j++)
            cr_assert_eq(a->epochs[j], sim_job(a, j)->epoch, "job %u", j);
        sim_destroy(a);
        sim_destroy(b);
    }
    cluster_destroy(c);
}

/* The engine's rule for an event, written out: a run's event (finish, out
 * of memory, slice end) is live while its job's epoch is the one it was
 * pushed with; others always are. */
static int live_by_rule(const uint32_t *epochs, const struct sim_event *e)
{
    int run = e->kind == SIM_EV_FINISH || e->kind == SIM_EV_OOM ||
              e->kind == SIM_EV_SLICE;
    return !run || e->epoch == epochs[e->job];
}

/* Set as sim_heap.live beside sim_heap.epochs, which the compaction reads
 * instead: never called. */
static int live_unused(const void *ctx, const struct sim_event *ev)
{
    (void)ctx;
    (void)ev;
    cr_assert_fail("the compaction called live, not the epochs");
    return 1;
}

Test(event_heap, compacts_by_the_compact_epochs_as_by_the_rule)
{
    enum { JOBS = 64 };
    static const uint32_t kinds[] = {SIM_EV_FINISH, SIM_EV_OOM, SIM_EV_SLICE};
    uint32_t epochs[JOBS] = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    struct sim_heap a = {0}, b = {0}; /* b keeps every event */
    a.epochs = epochs;
    a.live = live_unused;
    size_t popped = 0, wakes_kept = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        uint32_t j = (uint32_t)gsl_rng_uniform_int(r, JOBS);
        /* one in 20 a wake-up (near, always live), else a run's event */
        uint32_t kind = gsl_rng_uniform(r) < 0.05
                            ? SIM_EV_WAKE
                            : kinds[gsl_rng_uniform_int(r, 3)];
        if (gsl_rng_uniform(r) < 0.8) /* its last run stopped: stale */
            epochs[j]++;
        /* most far ahead, as a preempted run's finish: they pile up */
        double t = (double)i + (double)gsl_rng_uniform_int(r, 50) +
                   (kind != SIM_EV_WAKE && gsl_rng_uniform(r) < 0.9 ? 1e6 : 0);
        /* a wake-up carries epoch 0 whatever its job's */
        uint32_t ep = kind == SIM_EV_WAKE ? 0 : epochs[j];
        cr_assert_eq(sim_heap_push(&a, t, kind, j, ep), 0);
        cr_assert_eq(sim_heap_push(&b, t, kind, j, ep), 0);
        if (i % 8 == 0) { /* the next live event of each */
            struct sim_event x, y;
            int ra, rb;
            while ((ra = sim_heap_pop(&a, &x)) == 0 &&
                   !live_by_rule(epochs, &x))
                ;
            while ((rb = sim_heap_pop(&b, &y)) == 0 &&
                   !live_by_rule(epochs, &y))
                ;
            cr_assert_eq(ra, rb);
            if (ra)
                continue;
            cr_assert(x.seq == y.seq && x.time == y.time && x.job == y.job,
                      "pop %zu: seq %llu, kept-all heap seq %llu", popped,
                      (unsigned long long)x.seq, (unsigned long long)y.seq);
            wakes_kept += x.kind == SIM_EV_WAKE && x.epoch != epochs[x.job];
            popped++;
        }
    }
    cr_assert_gt(popped, 10000);
    cr_assert_gt(wakes_kept, 100); /* kept whatever their epoch */
    cr_assert_lt(a.cap, b.cap, "compacted cap %zu, kept-all %zu", a.cap, b.cap);
    sim_heap_free(&a);
    sim_heap_free(&b);
    gsl_rng_free(r);
}
