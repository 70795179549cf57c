/* share_run.c -- replaying jobs on shared GPUs (contract in sim.h,
 * share_run). Its own small event loop beside the engine's (engine.c),
 * which knows only whole GPUs; both pop the same heap (heap.c).
 *
 * Speed. A share alone on its GPU runs at speed 1: its work left falls by
 * one second of reference work per second, divided by its GPU type's
 * slowdown (speed of the reference type over speed of this one). With
 * company, its speed is the product of pair_speed over the others on that
 * GPU. Whenever a GPU gains or loses a job, every job left on it has its
 * progress brought up to date at the old speed, gets the new speed, and a
 * new finish event (the old one goes stale through the job's epoch).
 *
 * Figures. Allocated milli-GPU and fragmentation are step functions of
 * time, integrated from the first submit to the last finish;
 * effective_utilization counts, per completed job, its milli-GPU times the
 * time it would have run alone: the work done, not the time held. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

/* The slowest a job runs, however many share its GPU. */
#define SHARE_MIN_SPEED 1e-6

struct run {
    struct share_cluster *sc;
    const struct cluster *c;
    struct share_job *jobs;
    size_t n;
    const struct share_workload *w;
    const struct share_run_hooks *h;
    struct sim_heap heap;
    double now;
    int32_t *gpu_base; /* (nnodes) global index of each node's GPU 0 */
    int32_t *gpu_head; /* (GPUs) first share on each GPU, or -1 */
    double *node_frag; /* (nnodes) */
    uint8_t *dirty;    /* (nnodes) changed in this instant */
    uint32_t *queue;   /* (n) waiting jobs in arrival order */
    size_t nq;
    double last_t, last_used, last_frag, used_area, frag_area;
    int oom;
};

/* Run-time factor of GPU type T: reference speed over T's speed. */
static double slowdown(const struct run *r, int32_t t)
{
    return r->c->types[r->c->reference].speed / r->c->types[t].speed;
}

static int32_t gpu_type_of(const struct run *r, const struct share_job *j)
{
    return r->sc->nodes[j->alloc.node].gpu_type;
}

/* Brings J's work left up to now at its current speed. */
static void progress(struct run *r, struct share_job *j)
{
    double done =
        (r->now - j->last) * j->speed / slowdown(r, gpu_type_of(r, j));
    j->work_left = j->work_left > done ? j->work_left - done : 0;
    j->last = r->now;
}

static void reschedule(struct run *r, uint32_t id)
{
    struct share_job *j = &r->jobs[id];
    double t =
        r->now + j->work_left * slowdown(r, gpu_type_of(r, j)) / j->speed;
    j->epoch++;
    if (sim_heap_push(&r->heap, t, SIM_EV_FINISH, id, j->epoch))
        r->oom = 1;
}

/* New speeds for the shares on global GPU G (after one came or went). */
static void respeed(struct run *r, int32_t g, int32_t gpu_type)
{
    for (int32_t a = r->gpu_head[g]; a >= 0; a = r->jobs[a].next_on_gpu) {
        struct share_job *ja = &r->jobs[a];
        double v = 1;
        progress(r, ja);
        for (int32_t b = r->gpu_head[g]; b >= 0; b = r->jobs[b].next_on_gpu) {
            if (b == a)
                continue;
            double x = r->h->pair_speed(r->h->ctx, gpu_type, ja->job_type,
                                        r->jobs[b].job_type);
            SIM_ASSERT(x > 0 && x <= 1);
            v *= x;
        }
        /* Many small shares on one GPU: no product underflows to a stop. */
        v = v > SHARE_MIN_SPEED ? v : SHARE_MIN_SPEED;
        ja->speed = v;
        reschedule(r, (uint32_t)a);
    }
}

static void start(struct run *r, uint32_t id, const struct share_alloc *a)
{
    struct share_job *j = &r->jobs[id];
    share_take(r->sc, &j->demand, a);
    j->alloc = *a;
    j->state = JOB_RUNNING;
    j->start_time = j->last = r->now;
    j->speed = 1;
    r->dirty[a->node] = 1;
    if (a->gpu < 0) {
        reschedule(r, id);
        return;
    }
    int32_t g = r->gpu_base[a->node] + a->gpu;
    j->next_on_gpu = r->gpu_head[g];
    r->gpu_head[g] = (int32_t)id;
    respeed(r, g, r->sc->nodes[a->node].gpu_type);
}

static void finish(struct run *r, uint32_t id)
{
    struct share_job *j = &r->jobs[id];
    share_give(r->sc, &j->demand, &j->alloc);
    j->state = JOB_COMPLETED;
    j->finish_time = r->now;
    j->work_left = 0;
    r->dirty[j->alloc.node] = 1;
    if (j->alloc.gpu < 0)
        return;
    int32_t g = r->gpu_base[j->alloc.node] + j->alloc.gpu;
    int32_t *p = &r->gpu_head[g];
    while (*p != (int32_t)id)
        p = &r->jobs[*p].next_on_gpu;
    *p = j->next_on_gpu;
    respeed(r, g, r->sc->nodes[j->alloc.node].gpu_type);
}

/* Whether D fits node N when N is empty. */
static int fits_empty(const struct share_node *n, const struct share_demand *d)
{
    int32_t full[SHARE_MAX_NODE_GPUS];
    struct share_node e = *n;
    for (int32_t g = 0; g < n->gpus; g++)
        full[g] = SHARE_MILLI;
    e.gpu_free = full;
    e.cpu_free = e.cpu_cap;
    e.mem_free = e.mem_cap;
    return share_fits(&e, d);
}

static void arrive(struct run *r, uint32_t id)
{
    struct share_job *j = &r->jobs[id];
    for (int32_t i = 0; i < r->sc->nnodes; i++) {
        if (fits_empty(&r->sc->nodes[i], &j->demand)) {
            j->state = JOB_QUEUED;
            r->queue[r->nq++] = id;
            return;
        }
    }
    j->state = JOB_FAILED;
}

/* Offers every waiting job to the placement, in arrival order. */
static void schedule(struct run *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nq; i++) {
        uint32_t id = r->queue[i];
        struct share_alloc a;
        if (r->h->place(r->h->ctx, r->sc, &r->jobs[id].demand, &a) == 0)
            start(r, id, &a);
        else
            r->queue[k++] = id;
    }
    r->nq = k;
}

/* Closes an instant: integrals up to now, then the new values. */
static void observe(struct run *r)
{
    double f = 0;
    r->used_area += r->last_used * (r->now - r->last_t);
    r->frag_area += r->last_frag * (r->now - r->last_t);
    for (int32_t i = 0; i < r->sc->nnodes; i++) {
        if (r->dirty[i])
            r->node_frag[i] = share_node_frag(&r->sc->nodes[i], r->w);
        r->dirty[i] = 0;
        f += r->node_frag[i];
    }
    r->last_t = r->now;
    r->last_used = (double)r->sc->used_milli;
    r->last_frag = f;
    if (r->h->change)
        r->h->change(r->h->ctx, r->now, r->sc->used_milli, f);
}

static void summarize(const struct run *r, struct share_run_summary *out)
{
    double first = INFINITY, last = -INFINITY, jct = 0, wait = 0, work = 0;
    memset(out, 0, sizeof *out);
    out->jobs = r->n;
    for (size_t i = 0; i < r->n; i++) {
        const struct share_job *j = &r->jobs[i];
        first = fmin(first, j->submit_time);
        if (j->state == JOB_FAILED)
            out->unschedulable++;
        if (j->state != JOB_COMPLETED)
            continue;
        out->completed++;
        last = fmax(last, j->finish_time);
        jct += j->finish_time - j->submit_time;
        wait += j->start_time - j->submit_time;
        work += (double)j->demand.num_gpus * j->demand.gpu_milli * j->work *
                slowdown(r, gpu_type_of(r, j));
    }
    if (!out->completed)
        return;
    out->makespan_s = last - first;
    out->avg_jct_s = jct / (double)out->completed;
    out->avg_wait_s = wait / (double)out->completed;
    if (out->makespan_s > 0) {
        double all = (double)r->sc->total_milli * out->makespan_s;
        out->gpu_utilization = r->used_area / all;
        out->effective_utilization = work / all;
        out->frag_rate_mean = r->frag_area / all;
    }
}

/* The loop: one instant at a time, as in engine.c. */
static int replay(struct run *r)
{
    struct sim_event ev;
    for (size_t i = 0; i < r->n; i++)
        if (sim_heap_push(&r->heap, r->jobs[i].submit_time, SIM_EV_ARRIVAL,
                          (uint32_t)i, 0))
            return SIM_ENOMEM;
    r->now = r->last_t = r->heap.len ? r->heap.ev[0].time : 0;
    int changed = 0;
    while (!r->oom && sim_heap_pop(&r->heap, &ev) == 0) {
        SIM_ASSERT(ev.time >= r->now);
        r->now = ev.time;
        if (ev.kind == SIM_EV_ARRIVAL) {
            arrive(r, ev.job);
            changed = 1;
        } else if (ev.epoch == r->jobs[ev.job].epoch) {
            finish(r, ev.job);
            changed = 1;
        }
        if (!changed || (r->heap.len > 0 && r->heap.ev[0].time == r->now))
            continue; /* stale finishes alone change nothing */
        schedule(r);
        observe(r);
        changed = 0;
    }
    if (r->oom)
        return SIM_ENOMEM;
    /* The cluster is empty now: only a placement that refuses a job some
     * node can host leaves one waiting. */
    return r->nq ? SIM_EDECISION : 0;
}

static int check_jobs(const struct share_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!share_demand_valid(&jobs[i].demand) ||
            !(jobs[i].submit_time >= 0) || !(jobs[i].work > 0) ||
            !(jobs[i].submit_time < INFINITY) || !(jobs[i].work < INFINITY))
            return SIM_EINVAL;
    return n > UINT32_MAX ? SIM_EINVAL : 0;
}

int share_run(struct share_cluster *sc, const struct cluster *c,
              struct share_job *jobs, size_t n, const struct share_workload *w,
              const struct share_run_hooks *h, struct share_run_summary *out)
{
    struct run r = {.sc = sc, .c = c, .jobs = jobs, .n = n, .w = w, .h = h};
    size_t nn = (size_t)sc->nnodes,
           gpus = (size_t)(sc->total_milli / SHARE_MILLI);
    int rc = check_jobs(jobs, n);
    if (rc)
        return rc;
    r.gpu_base = malloc((nn ? nn : 1) * sizeof *r.gpu_base);
    r.gpu_head = malloc((gpus ? gpus : 1) * sizeof *r.gpu_head);
    r.node_frag = malloc((nn ? nn : 1) * sizeof *r.node_frag);
    r.dirty = calloc(nn ? nn : 1, 1);
    r.queue = malloc((n ? n : 1) * sizeof *r.queue);
    rc = SIM_ENOMEM;
    if (r.gpu_base && r.gpu_head && r.node_frag && r.dirty && r.queue) {
        for (size_t i = 0, g = 0; i < nn; g += (size_t)sc->nodes[i++].gpus) {
            r.gpu_base[i] = (int32_t)g;
            r.node_frag[i] = share_node_frag(&sc->nodes[i], w);
            r.last_frag += r.node_frag[i];
        }
        for (size_t g = 0; g < gpus; g++)
            r.gpu_head[g] = -1;
        for (size_t i = 0; i < n; i++)
            jobs[i] = (struct share_job){jobs[i].submit_time,
                                         jobs[i].work,
                                         jobs[i].demand,
                                         jobs[i].job_type,
                                         -1,
                                         -1,
                                         jobs[i].work,
                                         1,
                                         0,
                                         {-1, -1, 0},
                                         -1,
                                         0,
                                         JOB_SUBMITTED};
        rc = replay(&r);
    }
    if (!rc)
        summarize(&r, out);
    sim_heap_free(&r.heap);
    free(r.gpu_base);
    free(r.gpu_head);
    free(r.node_frag);
    free(r.dirty);
    free(r.queue);
    return rc;
}
