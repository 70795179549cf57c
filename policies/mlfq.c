/* mlfq.c -- Tiresias' discretized priority queues (Gu et al., "Tiresias: A
 * GPU Cluster Manager for Distributed Deep Learning", NSDI'19, sec. 3.2),
 * the core of tiresias.c (2D-LAS) and gittins.c (2D-Gittins index).
 *
 * K queues Q1..QK (here 0..K-1). A job's attained service is GPU-time: the
 * seconds it has run since it last entered Q1 (sim_attained_s, restart
 * overheads included, whatever GPU type it ran on) times its GPUs. It
 * arrives in Q1; while it runs, it moves down from Qk to Qk+1 at the
 * instant its attained GPU-time reaches threshold k (a wake-up is asked for
 * then); it never moves down while it waits. A job in a higher queue
 * always goes first: it may preempt running jobs of lower queues, never
 * those of its own (running jobs keep their place ahead of the waiting
 * ones of their queue, as in the Tiresias simulator). Waiting jobs of one
 * queue are taken in the order of the policy's key (tiresias: the order
 * they entered the queue; gittins: the Gittins index), ties to the earlier
 * arrival; among the running jobs of one queue the latest arrival is
 * preempted first. Preemption rule, placement and restart overheads are
 * preemptive.c's, with one priority per job: queue * 2^40 + 1 + key while
 * it waits, queue * 2^40 while it runs. A waiting job's priority changes
 * only at its promotion, a running job's only at its demotion (wake-ups);
 * a job's key is taken again when it enters a queue or is preempted.
 * Starting makes a job's priority more urgent (preemptive.c asks that it
 * not jump), but safely: only a job of a higher queue can preempt it; one
 * waiting when it started was served before it in that pass, and one that
 * began to wait later in the pass is a victim, of a queue below the queue
 * of its preemptor, so below this job's: nothing preempts a job in the
 * pass that started it, and no job takes back GPUs it lost.
 *
 * Starvation (the paper's STARVELIMIT, knob PROMOTEKNOB; the simulator's
 * `solve_starvation`): with starvation_factor f > 0, a job in a lower
 * queue that has waited W >= f * E is promoted back to Q1, where E is the
 * time it has run since it last entered Q1 and W the time it has waited
 * since it first started after that (waiting before that start does not
 * count). As E does not grow while it waits, that is the instant
 * t0 + (1 + f) * E, t0 being that first start; a wake-up is asked for then.
 * Promotion resets its attained service to 0 (it walks down the queues
 * again from Q1) and it enters Q1 behind the jobs already there. f = 0
 * never promotes. This is what the Tiresias simulator (run_sim.py,
 * dlas_sim_jobs) does: executed_time and last_pending_time since the last
 * promotion, promoted when last_pending_time >= executed_time *
 * solve_starvation.
 *
 * Defaults from the Tiresias simulator (SymbioticLab/Tiresias,
 * simulator/jobs.py): num_queue = 3, queue_limit = [3250, 7200, 18000]
 * GPU-seconds, of which the first num_queue - 1 are used; its dlas-gpu
 * scheduler runs with solve_starvation = 0 (dlas-gpu-1, -2, -4, -8 ... set
 * it). Cost: O(1) per job started or preempted on top of preemptive.c,
 * plus the key's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlfq_internal.h"

#define MLFQ_SPAN 1099511627776.0 /* 2^40: the keys of one queue */

struct mlfq_job {
    double base;  /* sim_attained_s when it last entered Q1 */
    double t0;    /* its first start since then; -1 before */
    double due;   /* the `until` it was given last; INFINITY: none */
    double key;   /* its place in its queue */
    int8_t queue; /* -1 before its arrival */
    uint8_t running; /* it was running when last looked at */
};

struct mlfq {
    struct pol_preempt *sched;
    mlfq_key_fn key;
    void *ctx;
    int32_t nqueues;
    double limit[MLFQ_MAX_QUEUES]; /* GPU-s that end queue k (k < K-1) */
    double starve;                 /* starvation_factor; 0 = off */
    struct mlfq_job *jobs;         /* (njobs), made at the first arrival */
    int oom;
};

/* GPU-seconds JOB has attained since it last entered Q1. */
static double queue_gpu_s(const struct mlfq *q, const struct sim *s,
                          uint32_t job)
{
    return (sim_attained_s(s, job) - q->jobs[job].base) *
           sim_job(s, job)->num_gpus;
}

/* Puts JOB at the back of QUEUE (MLFQ_ENTERED) or keeps it in its queue
 * after a preemption, and asks the policy for its key there. */
static void place(struct mlfq *q, const struct sim *s, uint32_t job,
                  int32_t queue, enum mlfq_why why)
{
    struct mlfq_job *m = &q->jobs[job];
    m->queue = (int8_t)queue;
    double quantum = INFINITY;
    if (queue < q->nqueues - 1)
        quantum = fmax(q->limit[queue] - queue_gpu_s(q, s, job), 0);
    struct mlfq_at at = {why, queue,
                         sim_attained_s(s, job) * sim_job(s, job)->num_gpus,
                         quantum};
    m->key = q->key(q->ctx, s, job, &at, m->key);
}

/* A time strictly after NOW, at or after T. */
static double later(double now, double t)
{
    return t > now ? t : nextafter(now, INFINITY);
}

/* When running JOB reaches the threshold of its queue; INFINITY in QK. */
static double demotion_time(const struct mlfq *q, const struct sim *s,
                            uint32_t job, double now)
{
    const struct mlfq_job *m = &q->jobs[job];
    if (m->queue >= q->nqueues - 1)
        return INFINITY;
    double left = q->limit[m->queue] - queue_gpu_s(q, s, job);
    return later(now, now + left / sim_job(s, job)->num_gpus);
}

/* When waiting JOB is promoted back to Q1; INFINITY if never. */
static double promotion_time(const struct mlfq *q, const struct sim *s,
                             uint32_t job, double now)
{
    const struct mlfq_job *m = &q->jobs[job];
    if (!(q->starve > 0) || m->queue == 0 || m->t0 < 0)
        return INFINITY;
    double ran = sim_attained_s(s, job) - m->base;
    if (!(ran > 0))
        return INFINITY;
    return later(now, m->t0 + ran * (1 + q->starve));
}

/* Moves JOB down while its attained GPU-time is past its queue's end;
 * FORCE: at least once (its wake-up came). Returns how many queues. */
static int demote(struct mlfq *q, const struct sim *s, uint32_t job,
                  int force)
{
    struct mlfq_job *m = &q->jobs[job];
    int moved = 0;
    while (m->queue < q->nqueues - 1 &&
           (force || queue_gpu_s(q, s, job) >= q->limit[m->queue])) {
        place(q, s, job, m->queue + 1, MLFQ_ENTERED);
        force = 0;
        moved++;
    }
    return moved;
}

/* Updates JOB's queue for what happened to it since it was last looked
 * at: it arrived, started, was preempted, or a wake-up it asked for came
 * (it demotes a running job, promotes a waiting one). */
static void update(struct mlfq *q, const struct sim *s, uint32_t job,
                   int running, double now)
{
    struct mlfq_job *m = &q->jobs[job];
    if (m->queue < 0) { /* arrival */
        *m = (struct mlfq_job){sim_attained_s(s, job), -1, INFINITY, 0, 0, 0};
        place(q, s, job, 0, MLFQ_ENTERED);
    } else if (running == m->running && now >= m->due) {
        if (running)
            demote(q, s, job, 1);
        else { /* starved: back to Q1 */
            m->base = sim_attained_s(s, job);
            m->t0 = -1;
            place(q, s, job, 0, MLFQ_ENTERED);
        }
    } else if (running) { /* started: its priority stays as it was */
        if (m->t0 < 0)
            m->t0 = now;
    } else if (demote(q, s, job, 0) == 0) { /* preempted */
        place(q, s, job, m->queue, MLFQ_PREEMPTED);
    }
}

static double mlfq_prio(void *ctx, const struct sim *s, uint32_t job,
                        double *rate, double *until)
{
    (void)rate; /* 0: a priority stands still between changes */
    struct mlfq *q = ctx;
    struct mlfq_job *m = &q->jobs[job];
    double now = sim_now(s);
    int running = sim_job(s, job)->state == JOB_RUNNING;
    update(q, s, job, running, now);
    m->running = (uint8_t)running;
    m->due = running ? demotion_time(q, s, job, now)
                     : promotion_time(q, s, job, now);
    *until = m->due;
    if (running)
        return m->queue * MLFQ_SPAN;
    double key = m->key;
    if (!(key >= 0))
        key = key < 0 ? 0 : MLFQ_SPAN; /* NaN: last */
    return m->queue * MLFQ_SPAN + 1 + fmin(key, MLFQ_SPAN - 2);
}

/* Reads `thresholds` into q->limit: exactly K-1 increasing positive
 * numbers, or when the option was not given, the default's first K-1. */
static int read_thresholds(const struct pol_config *cfg, struct mlfq *q)
{
    const char *text;
    int rc = pol_opt_string(cfg, "thresholds", &text);
    if (rc)
        return rc;
    int given = 0, n = 0, want = q->nqueues - 1;
    for (size_t i = 0; i < cfg->nopts; i++)
        given |= strcmp(cfg->keys[i], "thresholds") == 0;
    double prev = 0;
    for (const char *p = text; *p; n++) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (errno || end == p || (*end && *end != ',') || !isfinite(v) ||
            !(v > prev) || (*end == ',' && !end[1]))
            return pol_refuse(cfg, "--policy-opt thresholds wants increasing "
                              "positive GPU-seconds separated by commas, got "
                              "'%s'", text);
        if (n < want)
            q->limit[n] = v;
        prev = v;
        p = *end ? end + 1 : end;
    }
    if (given ? n != want : n < want)
        return pol_refuse(cfg, "--policy-opt queues=%d wants %d threshold%s, "
                          "got '%s'", q->nqueues, want, want == 1 ? "" : "s",
                          text);
    return 0;
}

int mlfq_create(const struct pol_config *cfg, mlfq_key_fn key, void *ctx,
                struct mlfq **out)
{
    double queues, starve;
    int rc = pol_opt_double(cfg, "queues", 1, MLFQ_MAX_QUEUES, &queues);
    if (rc == 0 && queues != floor(queues))
        rc = pol_refuse(cfg, "--policy-opt queues wants a whole number, "
                        "got %g", queues);
    if (rc == 0)
        rc = pol_opt_double(cfg, "starvation_factor", 0, 1e9, &starve);
    if (rc)
        return rc;
    struct mlfq *q = calloc(1, sizeof *q);
    if (!q)
        return SIM_ENOMEM;
    *q = (struct mlfq){.key = key, .ctx = ctx, .nqueues = (int32_t)queues,
                       .starve = starve};
    rc = read_thresholds(cfg, q);
    if (rc == 0)
        rc = pol_preempt_create(cfg, mlfq_prio, NULL, q, &q->sched);
    if (rc) {
        free(q);
        return rc;
    }
    *out = q;
    return 0;
}

void mlfq_destroy(struct mlfq *q)
{
    if (!q)
        return;
    pol_preempt_destroy(q->sched);
    free(q->jobs);
    free(q);
}

void mlfq_arrival(struct mlfq *q, struct sim *s, uint32_t job)
{
    if (!q->jobs) {
        size_t n = sim_njobs(s);
        q->jobs = malloc(n * sizeof *q->jobs);
        if (!q->jobs) {
            q->oom = 1;
            return;
        }
        for (size_t i = 0; i < n; i++)
            q->jobs[i].queue = -1;
    }
    pol_preempt_arrival(q->sched, s, job);
}

void mlfq_finish(struct mlfq *q, struct sim *s, uint32_t job)
{
    pol_preempt_finish(q->sched, s, job);
}

int mlfq_schedule(struct mlfq *q, struct sim *s)
{
    return q->oom ? SIM_ENOMEM : pol_preempt_schedule(q->sched, s);
}
