/* engine.c -- the event loop, job states, and the decisions policies make.
 *
 * One instant at a time: pop every event at time t (asserting the clock never
 * goes back), dispatch each through the handler table, then let the policy
 * schedule once, then tell the observer what changed. Arrivals are pushed one
 * ahead (the next job in submit order), so the heap holds at most the running
 * jobs plus one. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "sim_internal.h"

static void on_arrival(struct sim *s, const struct sim_event *ev);
static void on_finish(struct sim *s, const struct sim_event *ev);
static void on_wake(struct sim *s, const struct sim_event *ev);
static void on_oom(struct sim *s, const struct sim_event *ev);
#define refuse sim_refuse
static void on_slice_end(struct sim *s, const struct sim_event *ev);

static void (*const handlers[SIM_EV_KINDS])(struct sim *,
                                            const struct sim_event *) = {
    [SIM_EV_ARRIVAL] = on_arrival, [SIM_EV_FINISH] = on_finish,
    [SIM_EV_WAKE] = on_wake,       [SIM_EV_OOM] = on_oom,
    [SIM_EV_SLICE] = on_slice_end,
};

/* Legal transitions: bit `to` of legal[from]. */
#define BIT(state) (1u << (state))
static const unsigned legal[] = {
    [JOB_SUBMITTED] = BIT(JOB_QUEUED) | BIT(JOB_FAILED),
    [JOB_QUEUED] = BIT(JOB_RUNNING) | BIT(JOB_FAILED), /* FAILED: sim_drop */
    /* RUNNING -> QUEUED: out of GPU memory, it waits again from scratch */
    [JOB_RUNNING] = BIT(JOB_COMPLETED) | BIT(JOB_PREEMPTED) | BIT(JOB_FAILED) |
                    BIT(JOB_QUEUED),
    [JOB_PREEMPTED] = BIT(JOB_RUNNING) | BIT(JOB_FAILED),
    [JOB_COMPLETED] = 0,
    [JOB_FAILED] = 0,
};

/* The only place a job's state changes (record JOB, as every caller
 * holds it already, the swap path too). */
static void job_set_state(struct sim_job *job, enum job_state to)
{
    SIM_ASSERT(legal[job->state] & BIT(to));
    job->state = (uint8_t)to;
}

/* job_set_state where the caller has checked the transition already
 * (start_fields, stop_tail: start_run, sim_preempt and sim_swap check the
 * states; a swap makes two): the check is left to debug builds. */
static inline void job_set_state_checked(struct sim_job *job, enum job_state to)
{
#ifndef NDEBUG
    SIM_ASSERT(legal[job->state] & BIT(to));
#endif
    job->state = (uint8_t)to;
}

static void queue_push(struct sim *s, uint32_t j)
{
    struct sim_qlink *l = sim_qlink_at(s, j);
    l->prev = s->queue_tail;
    l->next = -1;
    if (s->queue_tail >= 0)
        sim_qlink_at(s, s->queue_tail)->next = (int32_t)j;
    else
        s->queue_head = (int32_t)j;
    s->queue_tail = (int32_t)j;
    s->queue_len++;
}

static void queue_remove(struct sim *s, uint32_t j)
{
    struct sim_qlink *l = sim_qlink_at(s, j);
    if (l->prev >= 0)
        sim_qlink_at(s, l->prev)->next = l->next;
    else
        s->queue_head = l->next;
    if (l->next >= 0)
        sim_qlink_at(s, l->next)->prev = l->prev;
    else
        s->queue_tail = l->prev;
    l->prev = l->next = -1;
    s->queue_len--;
}

static void push_next_arrival(struct sim *s)
{
    if (s->stream && s->next_arrival >= s->njobs && sim_stream_read(s))
        return; /* a streaming run reads the next job now (stream.c) */
    if (s->next_arrival >= s->njobs)
        return;
    uint32_t j =
        s->order ? s->order[s->next_arrival] : (uint32_t)s->next_arrival;
    s->next_arrival++;
    if (sim_heap_push(&s->heap, sim_job_at(s, j)->submit_time, SIM_EV_ARRIVAL,
                      j, 0) != 0)
        s->oom = 1;
}

static void on_arrival(struct sim *s, const struct sim_event *ev)
{
    uint32_t j = ev->job;
    struct sim_job *job = sim_job_at(s, j);
    push_next_arrival(s);
    if (!sim_job_fits_somewhere(s, j)) {
        job->failure = JOB_FAIL_UNSCHEDULABLE;
        job_set_state(job, JOB_FAILED);
        return;
    }
    job_set_state(job, JOB_QUEUED);
    queue_push(s, j);
    s->instant_changed = 1;
    sim_estimate_arrival(s, j); /* before the policy ranks the job */
    if (s->share)
        sim_share_arrival(s, j); /* util-pack reads the estimate */
    if (s->policy->on_arrival)
        s->policy->on_arrival(s->policy->state, s, j);
}

/* Gives the GPUs of job J back to their nodes. */
static void release_gpus(struct sim *s, uint32_t j)
{
    struct sim_job *job = sim_job_at(s, j);
    int32_t i = job->seg;
    while (i >= 0) {
        struct sim_seg_slot *slot = &s->segs[i];
        if (s->ran_fn)
            s->ran_fn(s->ran_ctx, j, slot->node, slot->gpus, job->last_start,
                      s->now);
        if (s->share) /* milli-GPUs, and the counts follow */
            sim_share_give_piece(s, j, slot, i == job->seg);
        else
            sim_node_add_free(s, slot->node, slot->gpus);
        int32_t next = slot->next;
        slot->next = s->seg_free;
        s->seg_free = i;
        i = next;
    }
    job->seg = -1;
    if (s->share) {
        sim_share_release(s, j);
        return;
    }
    s->busy_by_type[job->gpu_type] -= job->num_gpus;
    s->busy -= job->num_gpus;
}

static void on_finish(struct sim *s, const struct sim_event *ev)
{
    uint32_t j = ev->job;
    struct sim_job *job = sim_job_at(s, j);
    release_gpus(s, j);
    job->run_s += s->now - job->last_start;
    job->work_left = 0;
    job->slice = 0;
    s->overhead_gpu_s += job->overhead_run * job->num_gpus;
    job->finish_time = s->now;
    job_set_state(job, JOB_COMPLETED);
    s->instant_changed = 1;
    sim_estimate_finish(s, j);
    if (s->policy->on_finish)
        s->policy->on_finish(s->policy->state, s, j);
}

/* A wake-up asked for by the policy: only a scheduling pass. */
static void on_wake(struct sim *s, const struct sim_event *ev)
{
    (void)ev;
    s->instant_changed = 1;
}

/* A doomed run ran out of GPU memory: its time is wasted, its GPU type is
 * ruled out, and it waits again; the policy sees it finish, then arrive. */
static void on_oom(struct sim *s, const struct sim_event *ev)
{
    uint32_t j = ev->job;
    struct sim_job *job = sim_job_at(s, j);
    double held = s->now - job->last_start;
    release_gpus(s, j);
    job->run_s += held;
    job->wasted_s += held;
    job->doomed = 0;
    job->ooms++;
    sim_run_stale(s, j, job);
    job->overhead_due = job->overhead_run; /* its restart never happened */
    s->oom_events++;
    s->wasted_gpu_s += held * job->num_gpus;
    s->wasted_by_type[job->gpu_type] += held * job->num_gpus;
    job->allowed &= ~(1u << job->gpu_type);
    s->instant_changed = 1;
    int again = sim_job_fits_somewhere(s, j);
    if (again) {
        job_set_state(job, JOB_QUEUED);
        queue_push(s, j);
    } else {
        job->failure = JOB_FAIL_UNSCHEDULABLE;
        job_set_state(job, JOB_FAILED);
    }
    if (s->policy->on_finish)
        s->policy->on_finish(s->policy->state, s, j);
    if (again && s->policy->on_arrival)
        s->policy->on_arrival(s->policy->state, s, j);
}

/* The end of a slice that did not finish the job (sim_start_slice): it
 * waits again with the slice's work done (none for a run without
 * progress, whose time is wasted). */
static void on_slice_end(struct sim *s, const struct sim_event *ev)
{
    uint32_t j = ev->job;
    struct sim_job *job = sim_job_at(s, j);
    double held = s->now - job->last_start;
    release_gpus(s, j);
    job->run_s += held;
    if (job->slice == 1 + SIM_RUN_NO_PROGRESS) {
        job->wasted_s += held;
        s->wasted_gpu_s += held * job->num_gpus;
        s->wasted_by_type[job->gpu_type] += held * job->num_gpus;
    } else {
        job->work_left -= job->slice_work;
        if (job->work_left < 0)
            job->work_left = 0;
    }
    s->overhead_gpu_s += job->overhead_run * job->num_gpus;
    job->slice = 0;
    sim_run_stale(s, j, job);
    job_set_state(job, JOB_PREEMPTED);
    queue_push(s, j);
    s->instant_changed = 1;
}

int sim_drop(struct sim *s, uint32_t j, const char *why)
{
    if (j >= s->njobs || (sim_job_at(s, j)->state != JOB_QUEUED &&
                          sim_job_at(s, j)->state != JOB_PREEMPTED))
        return refuse(s, "job %u is not waiting, so it cannot be dropped", j);
    if (s->stream) /* drop_why is by job id, sized once */
        return refuse(s, "a streaming run cannot drop jobs");
    if (!s->drop_why && !(s->drop_why = calloc(s->njobs, sizeof *s->drop_why)))
        return SIM_ENOMEM;
    s->drop_why[j] = why;
    queue_remove(s, j);
    sim_job_at(s, j)->failure = JOB_FAIL_DROPPED;
    job_set_state(sim_job_at(s, j), JOB_FAILED);
    s->instant_changed = 1;
    return 0;
}

const char *sim_job_failure_text(const struct sim *s, uint32_t j)
{
    SIM_ASSERT(j < s->njobs);
    const struct sim_job *job = sim_job_at(s, j);
    if (job->state != JOB_FAILED)
        return "";
    if (job->failure == JOB_FAIL_DROPPED)
        return s->drop_why && s->drop_why[j] ? s->drop_why[j]
                                             : "dropped by the policy";
    return "no allowed GPU type has enough GPUs";
}

int sim_wake_at(struct sim *s, double time)
{
    if (!(time >= s->now) || !(time < INFINITY))
        return refuse(s, "wake-up at %g, before now (%g) or not finite", time,
                      s->now);
    return sim_heap_push(&s->heap, time, SIM_EV_WAKE, 0, 0);
}

int sim_fail(struct sim *s, const char *why)
{
    return refuse(s, "%s", why);
}

static void observe(struct sim *s, const struct sim_observer *obs)
{
    if (!obs || !obs->change) /* what it keeps is only for the next call */
        return;
    int32_t q = (int32_t)s->queue_len;
    size_t bytes = (size_t)s->cluster->ntypes * sizeof *s->busy_by_type;
    double frag = sim_frag_key(s);
    if (s->observed && q == s->last_queued && s->busy == s->last_busy &&
        memcmp(s->busy_by_type, s->last_busy_by_type, bytes) == 0 &&
        frag == s->last_frag)
        return;
    s->last_frag = frag;
    s->observed = 1;
    s->last_queued = q;
    s->last_busy = s->busy;
    memcpy(s->last_busy_by_type, s->busy_by_type, bytes);
    obs->change(obs->ctx, s->now, q, s->busy, s->busy_by_type);
}

/* The no-progress guard: a policy that keeps one instant going (wake_at
 * now at every call, a job started and preempted forever) would hold the
 * clock still for ever. More than SIM_MAX_PASSES_PER_INSTANT scheduling
 * passes at one time stop the run with the reason. */
#define SIM_MAX_PASSES_PER_INSTANT 100000
static int check_progress(struct sim *s)
{
    if (!s->instant_changed)
        return 0;
    if (s->guard_passes == 0 || s->now != s->guard_time) {
        s->guard_time = s->now;
        s->guard_passes = 1;
        return 0;
    }
    if (++s->guard_passes <= SIM_MAX_PASSES_PER_INSTANT)
        return 0;
    return refuse(s, "no progress: %d scheduling passes at t = %g s; the "
                     "policy keeps this instant going (wake_at(now) at every "
                     "call, or a job started and preempted in a cycle)",
                  SIM_MAX_PASSES_PER_INSTANT, s->now);
}

/* Ends an instant: one scheduling pass, then the observer. */
static int end_instant(struct sim *s, const struct sim_observer *obs)
{
    if (!s->instant_changed)
        return 0;
    s->instant_changed = 0;
    if (s->policy->schedule) {
        int rc = s->policy->schedule(s->policy->state, s);
        if (rc)
            return rc;
        if (s->decision_error[0])
            return SIM_EDECISION;
    }
    if (s->share)
        sim_share_instant(s);
    observe(s, obs);
    return 0;
}

void sim_on_run_end(struct sim *s, sim_ran_fn *ran, void *ctx)
{
    s->ran_fn = ran;
    s->ran_ctx = ctx;
}

/* Whether EV still counts (sim_event_of_run's rule): an event of a run
 * stopped since is stale and may be dropped from the heap. */
static int event_live(const void *ctx, const struct sim_event *ev)
{
    const struct sim *s = ctx;
    if (s->epochs)
        return sim_event_live_in(ev, s->epochs);
    if (!sim_event_of_run(ev))
        return 1;
    return !(s->stream && sim_stream_retired(s, ev->job)) &&
           ev->epoch == sim_job_at(s, ev->job)->epoch;
}

/* Starts loading the record of the job of the next event in the heap (a
 * finish, mostly) while this one is handled: by the time a job finishes
 * its record has left the caches (sim.h), and its first two lines are
 * what the finish reads. Only a hint: no value changes. */
static void prefetch_next_job(const struct sim *s)
{
    uint32_t j = s->heap.len ? s->heap.ev[0].job : UINT32_MAX;
    const struct sim_job *chunk =
        j < s->njobs ? s->chunks[j >> SIM_CHUNK_BITS] : NULL;
    if (!chunk) /* none, or a chunk a streaming run has freed */
        return;
    const char *rec = (const char *)&chunk[j & (SIM_CHUNK - 1)];
    __builtin_prefetch(rec);
    __builtin_prefetch(rec + 64);
}

/* A compact copy of the jobs' epochs, read by the stale-event rule
 * (sim_event_live_in) and kept with the records' by sim_run_stale. */
static int copy_epochs(struct sim *s)
{
    if (s->njobs == 0)
        return 0;
    s->epochs = malloc(s->njobs * sizeof *s->epochs);
    if (!s->epochs)
        return SIM_ENOMEM;
    for (size_t j = 0; j < s->njobs; j++)
        s->epochs[j] = sim_job_at(s, j)->epoch;
    s->heap.epochs = s->epochs;
    return 0;
}

int sim_run(struct sim *s, const struct sim_policy *p,
            const struct sim_observer *obs, struct sim_error *err)
{
    const char *name = p->name ? p->name : "policy";
    SIM_ASSERT(!s->ran);
    s->ran = 1;
    s->policy = p;
    int rc = s->stream ? 0 : sim_sort_arrivals(s);
    if (!rc && !s->share) /* sharing measures its own (colocate.c) */
        rc = sim_frag_init(s);
    if (rc)
        return rc;
    if (s->share)
        sim_share_begin(s);
    if (!s->stream && (rc = copy_epochs(s)))
        return rc;
    s->heap.live = event_live;
    s->heap.live_ctx = s;
    push_next_arrival(s);
    struct sim_event ev;
    while (!s->oom && !s->est_rc && !(s->stream && sim_stream_failed(s)) &&
           sim_heap_pop(&s->heap, &ev) == 0) {
        SIM_ASSERT(ev.time >= s->now);
        s->now = ev.time;
        prefetch_next_job(s);
        if (event_live(s, &ev)) { /* the rule the heap compacts by */
            s->events++;
            handlers[ev.kind](s, &ev);
        }
        if (sim_heap_top_time(&s->heap) == s->now)
            continue;
        rc = check_progress(s);
        if (!rc)
            rc = end_instant(s, obs);
        if (!rc && s->stream)
            sim_stream_retire(s);
        if (rc) {
            sim_error_set(err, name, 0, "policy %s: %s", name,
                          s->decision_error[0] ? s->decision_error
                                               : sim_strerror(rc));
            return rc;
        }
    }
    if (s->oom)
        return SIM_ENOMEM;
    if (s->stream && (rc = sim_stream_end(s, err)) != 0)
        return rc;
    if (s->est_rc) {
        sim_error_set(err, name, 0, "estimator %s: %s",
                      s->estimator->name ? s->estimator->name : "(unnamed)",
                      sim_strerror(s->est_rc));
        return s->est_rc;
    }
    if (s->queue_len > 0) {
        sim_error_set(err, name, 0,
                      "policy %s left %zu jobs waiting on an idle cluster",
                      name, s->queue_len);
        return SIM_EDECISION;
    }
    return 0;
}

/* Records why a decision was refused; the first reason wins. */
int sim_refuse(struct sim *s, const char *fmt, ...)
{
    if (!s->decision_error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->decision_error, sizeof s->decision_error, fmt, ap);
        va_end(ap);
    }
    return SIM_EDECISION;
}

/* Checks that P gives job J exactly its GPUs on free nodes of one type. */
static int check_placement(struct sim *s, uint32_t j,
                           const struct sim_placement *p)
{
    const struct cluster *c = s->cluster;
    const struct sim_job *job = sim_job_at(s, j);
    if (p->gpu_type < 0 || p->gpu_type >= c->ntypes)
        return refuse(s, "job %u: no GPU type %d", j, p->gpu_type);
    if (!(job->allowed & (1u << p->gpu_type)))
        return refuse(s, "job %u may not run on %s", j,
                      c->types[p->gpu_type].name);
    if (p->nseg < 1)
        return refuse(s, "job %u: empty placement", j);
    int64_t total = 0;
    s->stamp++;
    for (int32_t i = 0; i < p->nseg; i++) {
        struct sim_seg g = p->seg[i];
        if (g.node < 0 || g.node >= c->nnodes)
            return refuse(s, "job %u: no node %d", j, g.node);
        if (c->nodes[g.node].gpu_type != p->gpu_type)
            return refuse(s, "job %u: node %d holds no %s", j, g.node,
                          c->types[p->gpu_type].name);
        if (s->node_stamp[g.node] == s->stamp)
            return refuse(s, "job %u: node %d named twice", j, g.node);
        s->node_stamp[g.node] = s->stamp;
        if (g.gpus < 1 || g.gpus > s->node_free[g.node])
            return refuse(s,
                          "job %u: asks %d GPUs of node %d, which has %d "
                          "free",
                          j, g.gpus, g.node, s->node_free[g.node]);
        total += g.gpus;
    }
    if (total != job->num_gpus)
        return refuse(s, "job %u needs %d GPUs, placement gives %lld", j,
                      job->num_gpus, (long long)total);
    return 0;
}

static int begin_run(struct sim *s, uint32_t j, const struct sim_placement *p,
                     double slice, unsigned flags);

/* Starts waiting job J on P: a whole run (SLICE < 0) or a slice of SLICE
 * units of work with FLAGS (sim_start_slice). */
static int start_run(struct sim *s, uint32_t j, const struct sim_placement *p,
                     double slice, unsigned flags)
{
    if (j >= s->njobs)
        return refuse(s, "no job %u", j);
    struct sim_job *job = sim_job_at(s, j);
    if (job->state != JOB_QUEUED && job->state != JOB_PREEMPTED)
        return refuse(s, "job %u is not waiting", j);
    const struct share_demand *d = s->share ? &s->share->demand[j] : NULL;
    int rc = d && d->gpu_milli < SHARE_MILLI ? 0 : check_placement(s, j, p);
    if (!rc && d)
        rc = sim_share_check(s, j, p);
    if (!rc && d && slice >= 0)
        rc = refuse(s, "job %u: slices (gavel:*) do not run with GPU sharing",
                    j);
    if (rc)
        return rc;
    const struct sim_class_spec *cl = &s->classes[job->job_class];
    int spread = p->nseg > 1 && !(flags & SIM_RUN_CONSOLIDATED);
    if ((spread ? cl->spread_unit_s : cl->unit_s)[p->gpu_type] <= 0)
        return refuse(s, "job %u cannot run %s on %s", j,
                      spread ? "spread over nodes" : "on one node",
                      s->cluster->types[p->gpu_type].name);
    rc = sim_take_gpus(s, j, p);
    return rc ? rc : begin_run(s, j, p, slice, flags);
}

/* The fields every start sets (begin_run, sim_swap): waiting job J (record
 * JOB; start_run and sim_swap checked that it waits) runs on GPU type T,
 * SPREAD or not, at UNIT_S seconds a unit of work; returns how long its
 * whole work takes, overhead first. */
static double start_fields(struct sim *s, uint32_t j, struct sim_job *job,
                           int32_t t, uint8_t spread, double unit_s)
{
    queue_remove(s, j);
    job_set_state_checked(job, JOB_RUNNING);
    job->gpu_type = t;
    job->spread = spread;
    job->unit_s = unit_s;
    if (job->start_time < 0)
        job->start_time = s->now;
    job->last_start = s->now;
    job->overhead_run = job->overhead_due;
    job->overhead_due = 0;
    double run = job->overhead_run + job->work_left * job->unit_s;
    job->slice = 0;
    return run;
}

/* Whether J's run (record JOB) on GPU type T will run out of memory
 * (memory.c): it will never finish, and ends instead after oom_detect_s
 * with SIM_EV_OOM (*RUN, *KIND). */
static void doom_check(struct sim *s, uint32_t j, struct sim_job *job,
                       int32_t t, double *run, uint32_t *kind)
{
    job->doomed = (uint8_t)(job->gpu_mem_mb > 0 && /* else it never is */
                            sim_mem_overflows(s, j, t));
    if (job->doomed) {
        *run = s->oom_detect_s;
        *kind = SIM_EV_OOM;
        job->slice = 0;
    }
}

/* The start of a run whose GPUs J holds already (start_run). */
static int begin_run(struct sim *s, uint32_t j, const struct sim_placement *p,
                     double slice, unsigned flags)
{
    struct sim_job *job = sim_job_at(s, j);
    const struct sim_class_spec *cl = &s->classes[job->job_class];
    int spread = p->nseg > 1 && !(flags & SIM_RUN_CONSOLIDATED);
    double run =
        start_fields(s, j, job, p->gpu_type, p->nseg > 1,
                     (spread ? cl->spread_unit_s : cl->unit_s)[p->gpu_type]);
    uint32_t kind = SIM_EV_FINISH;
    if (slice >= 0) { /* a slice, maybe up to the job's end */
        job->slice = (uint8_t)(1 + (flags & SIM_RUN_NO_PROGRESS));
        job->slice_work = slice;
        if (!(flags & SIM_RUN_NO_PROGRESS) && slice >= job->work_left) {
            job->slice = 0; /* it finishes in this slice */
            kind = SIM_EV_FINISH;
        } else
            kind = SIM_EV_SLICE;
        double w = kind == SIM_EV_FINISH ? job->work_left : slice;
        double rate = sim_class_rate(s, job->job_class, p->gpu_type);
        run = job->overhead_run + ((flags & SIM_RUN_CONSOLIDATED) && rate > 0
                                       ? w / rate
                                       : w * job->unit_s);
    }
    doom_check(s, j, job, p->gpu_type, &run, &kind);
    if (s->share)
        return sim_share_start(s, j, p, job->overhead_run, job->doomed);
    s->busy_by_type[p->gpu_type] += job->num_gpus;
    s->busy += job->num_gpus;
    return sim_heap_push(&s->heap, s->now + run, kind, j, job->epoch);
}

int sim_start(struct sim *s, uint32_t j, const struct sim_placement *p)
{
    return start_run(s, j, p, -1, 0);
}

int sim_start_slice(struct sim *s, uint32_t j, const struct sim_placement *p,
                    double work, unsigned flags)
{
    if (!(work >= 0) || !(work < INFINITY) ||
        (flags & ~(SIM_RUN_CONSOLIDATED | SIM_RUN_NO_PROGRESS)))
        return refuse(s, "job %u: a slice of %g units with flags %#x", j, work,
                      flags);
    return start_run(s, j, p, work, flags);
}

/* Hands the GPUs of job J over to the job sim_swap starts on them: the
 * run's end is reported and the fragmentation integral brought up to now,
 * as release_gpus and sim_take_gpus would, but the free GPUs, the counts
 * and the free-GPU map stay as they are. */
static void hand_over_gpus(struct sim *s, uint32_t j, const struct sim_job *job)
{
    if (!s->ran_fn && (!s->frag || sim_frag_current(s)))
        return; /* nothing to report or touch (most swaps of an instant) */
    for (int32_t i = job->seg; i >= 0; i = s->segs[i].next) {
        const struct sim_seg_slot *slot = &s->segs[i];
        if (s->ran_fn)
            s->ran_fn(s->ran_ctx, j, slot->node, slot->gpus, job->last_start,
                      s->now);
        if (s->frag) /* its integral up to now; the sum is unchanged */
            sim_frag_touch(s, slot->node);
    }
}

/* The end of both stop paths (stop_run, swap_stop): running job J (record
 * JOB; sim_preempt and sim_swap checked that it runs),
 * stopped after ELAPSED seconds of which PAID were restart overhead,
 * waits again, preempted. */
static inline void stop_tail(struct sim *s, uint32_t j, struct sim_job *job,
                             double elapsed, double paid)
{
    job->run_s += elapsed;
    sim_run_stale(s, j, job); /* its finish event is now stale */
    job->preemptions++;
    job->overhead_due =
        job->restart_s >= 0 ? job->restart_s : s->restart_overhead;
    if (job->doomed) { /* stopped before it ran out of memory: no progress */
        job->doomed = 0;
        job->wasted_s += elapsed;
        s->wasted_gpu_s += elapsed * job->num_gpus;
        s->wasted_by_type[job->gpu_type] += elapsed * job->num_gpus;
        paid = 0;
    }
    s->overhead_gpu_s += paid * job->num_gpus;
    s->preemptions++;
    job_set_state_checked(job, JOB_PREEMPTED);
    queue_push(s, j);
}

/* sim_preempt; with KEEP, its GPUs stay taken (hand_over_gpus). */
static void stop_run(struct sim *s, uint32_t j, int keep)
{
    struct sim_job *job = sim_job_at(s, j);
    double elapsed = s->now - job->last_start;
    double paid = elapsed < job->overhead_run ? elapsed : job->overhead_run;
    job->work_left = sim_work_left(s, j);
    if (job->slice == 1 + SIM_RUN_NO_PROGRESS) { /* wasted, as below */
        job->wasted_s += elapsed;
        s->wasted_gpu_s += elapsed * job->num_gpus;
        s->wasted_by_type[job->gpu_type] += elapsed * job->num_gpus;
    }
    job->slice = 0;
    if (keep)
        hand_over_gpus(s, j, job);
    else
        release_gpus(s, j);
    stop_tail(s, j, job, elapsed, paid);
}

int sim_preempt(struct sim *s, uint32_t j)
{
    if (j >= s->njobs || sim_job_at(s, j)->state != JOB_RUNNING)
        return refuse(s, "job %u is not running, so it cannot be preempted", j);
    stop_run(s, j, 0);
    return 0;
}

/* The victim's side of sim_swap: stop_run (KEEP) for a run that is not a
 * slice, without GPU sharing, each value computed as there, in its order. */
static void swap_stop(struct sim *s, uint32_t victim, struct sim_job *v)
{
    double elapsed = s->now - v->last_start;
    double paid = elapsed < v->overhead_run ? elapsed : v->overhead_run;
    if (!v->doomed) /* sim_work_left's usual case */
        v->work_left = sim_run_work_left(v, s->now);
    hand_over_gpus(s, victim, v);
    stop_tail(s, victim, v, elapsed, paid);
}

/* Why sim_swap refuses VICTIM and J (its checks in full, in the order
 * they are reported); SIM_EDECISION. */
static int swap_refused(struct sim *s, uint32_t victim, uint32_t j)
{
    if (victim >= s->njobs || sim_job_at(s, victim)->state != JOB_RUNNING)
        return refuse(s, "job %u is not running, so it cannot be preempted",
                      victim);
    const struct sim_job *job;
    if (j >= s->njobs || ((job = sim_job_at(s, j))->state != JOB_QUEUED &&
                          job->state != JOB_PREEMPTED))
        return refuse(s, "job %u is not waiting", j);
    return refuse(s, "job %u cannot take the GPUs of job %u", j, victim);
}

/* sim_swap does what stop_run and begin_run would for a whole run on one
 * node of type T (LAS on a burst makes millions): the same fields get
 * the same values, the same event is pushed. The busy counts stay: the
 * two jobs hold as many GPUs of one type. */
int sim_swap_rec(struct sim *s, uint32_t victim, uint32_t j,
                 const struct sim_job *rec[2])
{
    size_t n = s->njobs;
    if (victim >= n || j >= n)
        return swap_refused(s, victim, j);
    struct sim_job *v = sim_job_at(s, victim), *job = sim_job_at(s, j);
    /* One branch for the states and what a victim's run must be (else
     * gpu_type is no index yet): the usual case is a legal swap. */
    if (((v->state ^ JOB_RUNNING) | v->spread | v->slice) ||
        !(BIT(job->state) & (BIT(JOB_QUEUED) | BIT(JOB_PREEMPTED))) || s->share)
        return swap_refused(s, victim, j);
    int32_t t = v->gpu_type;
    double unit_s = s->classes[job->job_class].unit_s[t];
    if (job->num_gpus != v->num_gpus || !(job->allowed >> t & 1u) ||
        unit_s <= 0)
        return swap_refused(s, victim, j);
    swap_stop(s, victim, v);
    job->seg = v->seg;
    v->seg = -1;
    double run = start_fields(s, j, job, t, 0, unit_s);
    uint32_t kind = SIM_EV_FINISH;
    doom_check(s, j, job, t, &run, &kind);
    rec[0] = v;
    rec[1] = job;
    return sim_heap_push_aside(&s->heap, s->now + run, kind, j, job->epoch);
}

int sim_swap(struct sim *s, uint32_t victim, uint32_t j)
{
    const struct sim_job *rec[2];
    return sim_swap_rec(s, victim, j, rec);
}
