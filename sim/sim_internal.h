/* sim_internal.h -- shared between the files of the sim module only. */
#ifndef HETSIM_SIM_INTERNAL_H
#define HETSIM_SIM_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

/* A broken invariant is a bug in hetsim: say where, then stop. */
#define SIM_ASSERT(cond)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "hetsim: internal error: %s:%d: %s\n",         \
                    __FILE__, __LINE__, #cond);                            \
            abort();                                                       \
        }                                                                  \
    } while (0)

/* printf-style fill of an error record; the first error wins. */
void sim_error_set(struct sim_error *err, const char *source, long line,
                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses the cluster JSON TEXT (NUL-terminated), named SRC in errors. */
int sim_cluster_parse(const char *text, const char *src, struct cluster **out,
                      struct sim_error *err);

/* ---- Event heap (heap.c) ------------------------------------------------ */

enum sim_event_kind { SIM_EV_ARRIVAL, SIM_EV_FINISH, SIM_EV_WAKE,
                      SIM_EV_OOM, SIM_EV_SLICE, SIM_EV_KINDS };

struct sim_event {
    double time;
    uint64_t seq;   /* insertion number: equal times pop in insertion order */
    uint32_t kind;  /* enum sim_event_kind */
    uint32_t job;
    uint32_t epoch; /* the job's epoch when pushed; stale if it moved on */
};

/* The stale-event rule, in one place (event_live in engine.c, the heap's
 * compaction): an event of a run (finish, out of memory, slice end) is
 * stale once its job's epoch has moved on; any other event is live. */
static inline int sim_kind_of_run(uint32_t kind)
{
    return kind == SIM_EV_FINISH || kind == SIM_EV_OOM || kind == SIM_EV_SLICE;
}

static inline int sim_event_of_run(const struct sim_event *ev)
{
    return sim_kind_of_run(ev->kind);
}

/* The rule read from EPOCHS, the compact copy of the jobs' epochs. */
static inline int sim_event_live_in(const struct sim_event *ev,
                                    const uint32_t *epochs)
{
    return !sim_event_of_run(ev) || ev->epoch == epochs[ev->job];
}

struct sim_heap {
    struct sim_event *ev; /* (cap) */
    /* When set with LIVE, LIVE's rule read inline: an event of a run
     * (finish, out of memory, slice end) is live when its epoch is
     * epochs[job]; any other always. */
    const uint32_t *epochs;
    size_t len, cap;
    uint64_t next_seq;
    /* When set, a full heap first drops the events LIVE says are stale
     * (preempted runs' finishes) and grows only if that freed less than
     * three quarters: the heap holds O(live events), not O(preemptions). */
    int (*live)(const void *ctx, const struct sim_event *ev);
    const void *live_ctx;
    /* One arrival kept beside the heap (runs have one pending arrival at a
     * time): pushed and popped in O(1), ordered by the same (time, seq). */
    struct sim_event front;
    int has_front;
    /* The events of runs sim_swap starts (sim_heap_push_aside) later than
     * the horizon, kept unsorted beside the heap: LAS on a burst preempts
     * nearly every such run before its end is due, so most of them are
     * dropped by a scan (heap.c, aside_scan) without ever being sorted.
     * The heap holds every event up to the horizon; a scan moves it on
     * when the heap's earliest is past it. */
    size_t aside_len;     /* they fill ev[cap - aside_len, cap) */
    double aside_horizon; /* every event aside is later */
};

/* Children of an event in the heap (heap.c): 4 halves its depth, and a
 * pop looks at 4 adjacent events (128 bytes) a level. */
#define SIM_HEAP_D 4

/* sim_heap_push's out-of-line path: an arrival (it may go beside the
 * heap), or a full heap (compaction, growth); 0 or SIM_ENOMEM. */
int sim_heap_push_slow(struct sim_heap *h, double time, uint32_t kind,
                       uint32_t job, uint32_t epoch);

/* Adds an event; 0 or SIM_ENOMEM. Inline for the usual case (not an
 * arrival, room left: every start pushes one; sim_swap's go through
 * sim_heap_push_aside, here when they are due by the horizon). */
static inline int sim_heap_push(struct sim_heap *h, double time, uint32_t kind,
                                uint32_t job, uint32_t epoch)
{
    if (kind == SIM_EV_ARRIVAL || h->len + h->aside_len == h->cap)
        return sim_heap_push_slow(h, time, kind, job, epoch);
    struct sim_event e = {time, h->next_seq++, kind, job, epoch};
    struct sim_event *ev = h->ev;
    size_t i = h->len++;
    /* E's insertion number is the largest yet: it comes before an event
     * exactly when its time is earlier (the (time, seq) order). */
    while (i > 0) {
        size_t parent = (i - 1) / SIM_HEAP_D;
        if (!(time < ev[parent].time))
            break;
        ev[i] = ev[parent];
        i = parent;
    }
    ev[i] = e;
    return 0;
}

/* sim_heap_push_aside's out-of-line path: a full buffer (a scan, or
 * growth); 0 or SIM_ENOMEM. */
int sim_heap_push_aside_slow(struct sim_heap *h, double time, uint32_t kind,
                             uint32_t job, uint32_t epoch);

/* sim_heap_push for an event of a run (sim_event_of_run) likely to go
 * stale before it is due (sim_swap's): later than the horizon, appended
 * unsorted beside the heap; it pops in the same (time, seq) order as by
 * sim_heap_push. 0 or SIM_ENOMEM. */
static inline int sim_heap_push_aside(struct sim_heap *h, double time,
                                      uint32_t kind, uint32_t job,
                                      uint32_t epoch)
{
    size_t i = h->aside_len;
    /* Only events of runs go aside: a scan tells them stale by their
     * epochs alone (heap.c, aside_drop_stale) */
    if (!(time > h->aside_horizon) || !sim_kind_of_run(kind))
        return sim_heap_push(h, time, kind, job, epoch);
    if (h->len + i == h->cap)
        return sim_heap_push_aside_slow(h, time, kind, job, epoch);
    h->ev[h->cap - 1 - i] =
        (struct sim_event){time, h->next_seq++, kind, job, epoch};
    h->aside_len = i + 1;
    return 0;
}

/* Removes the earliest event into *out; 0, or -1 when empty. */
int sim_heap_pop(struct sim_heap *h, struct sim_event *out);
void sim_heap_free(struct sim_heap *h);
/* The time of the earliest event, or INFINITY when there is none (it may
 * scan the events aside, hence not const). */
double sim_heap_top_time(struct sim_heap *h);

/* ---- Free GPUs per type (freemap.c) ------------------------------------- */

/* An 8-ary max tree over the nodes of one GPU type: leftmost node with at
 * least k free GPUs in O(log n). */
struct sim_freemap {
    int32_t *nodes; /* (n) global node index of each leaf */
    int32_t *tree;  /* max free GPUs below each tree node; leaves from size */
    int32_t n, size;
    int32_t free_total;
};

int sim_freemap_init(struct sim_freemap *m, const struct cluster *c,
                     int32_t gpu_type);
void sim_freemap_free(struct sim_freemap *m);
/* Leaf index of the leftmost node with >= need free GPUs, or -1. */
int32_t sim_freemap_find(const struct sim_freemap *m, int32_t need);
void sim_freemap_set(struct sim_freemap *m, int32_t leaf, int32_t value);

/* ---- The engine's state (engine.c, state.c) ----------------------------- */

/* One piece of a running job's placement; pieces chain through `next`. */
struct sim_seg_slot {
    int32_t node, gpus, next;
    uint64_t mask; /* with sharing on: the whole GPUs it holds there */
};

/* Links of the wait queue: job ids, -1 at the ends (and out of it). */
struct sim_qlink {
    int32_t prev, next;
};

struct sim {
    const struct cluster *cluster;
    uint64_t seed;
    /* Jobs by id in chunks of SIM_CHUNK jobs (sim_job_at); a streaming run
     * (stream.c) frees a chunk once all its jobs are retired. */
    struct sim_job **chunks; /* (chunks_cap), NULL where freed */
    size_t njobs, chunks_cap;
    struct sim_stream *stream; /* streaming run (stream.c), or NULL */
    uint32_t *order;      /* (njobs) job ids by submit time, then id */
    /* (njobs) each job's epoch, kept with its record's (sim_run_stale):
     * the event heap's stale test reads it, not the record (LAS on a burst
     * compacts millions of events, their records out of the caches). NULL
     * in a streaming run. */
    uint32_t *epochs;
    size_t next_arrival;
    struct sim_heap heap;
    double now;
    uint64_t events;
    const struct sim_policy *policy;

    int32_t queue_head, queue_tail;
    size_t queue_len;
    /* The wait queue's links by job (sim_qlink_at), beside the records:
     * a swap touches its neighbours' 8 bytes, not their records. A ring
     * of qlink_mask + 1 (a power of two) slots that holds the jobs not
     * retired (all in a run that does not stream). */
    struct sim_qlink *qlink;
    size_t qlink_mask;

    int32_t *node_free;  /* (nnodes) */
    int32_t *node_leaf;  /* (nnodes) leaf of the node in its type's freemap */
    uint32_t *node_stamp; /* (nnodes) marks nodes seen while checking */
    uint32_t stamp;
    struct sim_freemap maps[SIM_MAX_GPU_TYPES];
    int32_t busy, busy_by_type[SIM_MAX_GPU_TYPES];

    struct sim_class_spec *classes; /* (nclasses); class 0 from speeds */
    int32_t nclasses, classes_cap;

    struct sim_seg_slot *segs; /* pool of placement pieces */
    int32_t nsegs, segs_cap, seg_free;

    sim_ran_fn *ran_fn; /* sim_on_run_end, or NULL */
    void *ran_ctx;
    int instant_changed; /* an arrival or finish happened in this instant */
    int observed, last_queued, last_busy;
    int32_t last_busy_by_type[SIM_MAX_GPU_TYPES];
    int ran, oom;
    double restart_overhead;
    uint64_t preemptions;
    double overhead_gpu_s;
    double oom_detect_s;      /* sim_set_oom_detect_s */
    uint64_t oom_events;
    double wasted_gpu_s;
    double wasted_by_type[SIM_MAX_GPU_TYPES]; /* GPU-s of runs out of memory */
    double *est_runtime;      /* (est_rows * ntypes) overrides, or NULL */
    size_t est_rows;
    char decision_error[200];
    /* The no-progress guard (engine.c, check_progress): the instant of the
     * last scheduling pass and how many passes it has had. */
    double guard_time;
    uint64_t guard_passes;
    struct sim_frag *frag;    /* FGD fragmentation of whole GPUs, or NULL */
    double last_frag;         /* sim_frag_key when last observed */

    const struct sim_estimator *estimator; /* or NULL */
    int est_rc;           /* first failure of the estimator */
    double *est_util;     /* (est_util_n, 2) GPU and memory utilization, -1
                             unknown; NULL until an estimator gives one */
    size_t est_util_n;
    const char **drop_why; /* (njobs) sim_drop's reasons, or NULL */
    double (*rates)[SIM_MAX_GPU_TYPES]; /* (nrates) sim_set_class_rate */
    int32_t nrates;

    struct sim_share *share; /* GPU sharing (colocate.c), or NULL */
};

/* Job J (< njobs, not retired by a streaming run). */
#define SIM_CHUNK_BITS 14
#define SIM_CHUNK ((size_t)1 << SIM_CHUNK_BITS)
#define sim_job_at(s, j)                                                       \
    (&(s)->chunks[(size_t)(j) >> SIM_CHUNK_BITS][(size_t)(j) & (SIM_CHUNK - 1)])

/* The wait queue's links of job J (not retired). */
#define sim_qlink_at(s, j) (&(s)->qlink[(size_t)(j) & (s)->qlink_mask])

/* The run of job J ends or moves: its pending event goes stale (the only
 * way a job's epoch changes). JOB is J's record, sim_job_at(s, J), which
 * every caller holds already (checked in debug builds). */
static inline void sim_run_stale(struct sim *s, uint32_t j, struct sim_job *job)
{
#ifndef NDEBUG
    SIM_ASSERT(job == sim_job_at(s, j));
#endif
    job->epoch++;
    if (s->epochs)
        s->epochs[j] = job->epoch;
}

/* The work left at NOW of J's run when it makes progress on its own (not
 * doomed, not a slice without progress, no GPU sharing): its working time
 * is the time since its start less its restart overhead (sim_work_left,
 * sim_swap). */
static inline double sim_run_work_left(const struct sim_job *j, double now)
{
    double working = now - j->last_start - j->overhead_run;
    double left = j->work_left - (working > 0 ? working / j->unit_s : 0);
    return left > 0 ? left : 0;
}

/* ---- Streaming run (stream.c) ------------------------------------------- */

/* Asks the source for the next job when the arrivals read so far are used
 * up; 0 when one was added, 1 at the end or on an error (recorded). */
int sim_stream_read(struct sim *s);
/* After an instant: retires finished jobs in id order, frees chunks. */
void sim_stream_retire(struct sim *s);
/* Whether the source failed (the run stops); after the loop: the last
 * retirements, and the source's error as the run's (0 or its code). */
int sim_stream_failed(const struct sim *s);
int sim_stream_end(struct sim *s, struct sim_error *err);
/* Whether job J has been retired (its chunk may be gone). */
int sim_stream_retired(const struct sim *s, uint32_t j);
/* How many jobs have been retired: jobs [0, that) (0 when not streaming). */
size_t sim_stream_nretired(const struct sim *s);
void sim_stream_free(struct sim *s);
/* A chunk freed by retirement, kept for reuse (its pages stay mapped),
 * or NULL. */
struct sim_job *sim_stream_spare(struct sim *s);
/* The fold of the retired jobs, or NULL when not streaming. */
struct sim_fold *sim_stream_fold(const struct sim *s);
/* run_frag.c, streaming: counts job J into the workload of the
 * fragmentation, which is known only at the end (the updates are logged
 * to a temporary file and replayed in sim_frag_area). */
void sim_frag_count_job(struct sim *s, uint32_t j);
/* The slot of job njobs in the store, for sim_add_job to fill (and then
 * count), or NULL when out of memory. */
struct sim_job *sim_new_job(struct sim *s);

/* hugepage.c: advises the whole 2 MB pages inside [P, P + BYTES) to be
 * mapped as such (no value changes, only fewer page faults). */
void sim_huge_advise(void *p, size_t bytes);
/* A block of BYTES, 64-byte aligned, free()d as usual; from 2 MB on, or
 * with ROUND, 2 MB aligned and advised, its size rounded up to whole 2 MB
 * pages with ROUND (none of it on 4 KB pages: for blocks that are reused). */
void *sim_huge_alloc(size_t bytes, int round);
/* A block grown from OLD_BYTES to BYTES (>= OLD_BYTES; P NULL: a new
 * one), on advised 2 MB pages from 2 MB on: grown and freed only by these
 * two, which are told its size in bytes. */
void *sim_huge_realloc(void *p, size_t old_bytes, size_t bytes);
void sim_huge_free(void *p, size_t bytes);

/* Summary as a fold over jobs in id order (metrics.c). */
struct sim_fold {
    double busy_by_type[SIM_MAX_GPU_TYPES], last_by_type[SIM_MAX_GPU_TYPES];
    double sum_jct, sum_wait, sum_slow, first, last;
    size_t n, unschedulable, failed, cap;
    double *jct; /* (cap) JCTs of completed jobs, 8 bytes per job */
    int oom;
};
/* BUSY0: the busy GPU-s each type starts from (wasted_by_type). */
int sim_fold_init(struct sim_fold *f, const double *busy0, size_t cap);
void sim_fold_job(struct sim_fold *f, const struct sim *s, uint32_t j);
void sim_fold_free(struct sim_fold *f);

/* rank_select.c: OUT[i] = the value of rank RANKS[i] (from 0, < N) of X,
 * as sorting would put there; at most 8 ranks. 0, or -1 when that would
 * take a copy of more than N / 16 + 4096 values (or memory): then select
 * in place. */
int sim_rank_values(const double *x, size_t n, const size_t *ranks, size_t m,
                    double *out);
/* The element of rank K (from 0) of X[FROM..N), moving elements there
 * (Hoare's selection, median of three): the value sorting would put at
 * X[K], without sorting's buffer. */
double sim_select_rank(double *x, size_t from, size_t n, size_t k);

/* ---- GPU sharing (colocate.c) ------------------------------------------- */

/* What sharing adds to the engine, per job (by id) and per GPU. */
struct sim_share {
    struct share_cluster *sc;
    const struct share_workload *w;
    double (*pair_speed)(void *ctx, int32_t gpu_type, uint32_t a, uint32_t b);
    void *ctx;
    double util_bound;
    struct share_demand *demand; /* (njobs) */
    struct share_alloc *alloc;   /* (njobs) where it runs or ran last */
    double *speed;               /* (njobs) now: 1 alone */
    double *last;                /* (njobs) progress counted up to here */
    int32_t *next_on_gpu;        /* (njobs) next share on its GPU, or -1 */
    uint8_t *shared;             /* (njobs) ever had company */
    int32_t *gpu_base;           /* (nnodes) global index of GPU 0 */
    int32_t *gpu_head;           /* (GPUs) first share on each, or -1 */
    double *node_frag;           /* (nnodes) */
    uint8_t *dirty;              /* (nnodes) changed in this instant */
    double last_t, last_used, last_frag, used_area, frag_area;
};

void sim_share_free(struct sim *s);
/* Before the loop: where the integrals start. */
void sim_share_begin(struct sim *s);
/* J's demand with the GPU types it may still use (colocate.c). */
struct share_demand sim_share_demand_now(const struct sim *s, uint32_t j);
/* Whether job J fits some node of the empty milli-GPU cluster. */
int sim_share_fits_somewhere(const struct sim *s, uint32_t j);
/* util-pack on arrival (after the estimator spoke). */
void sim_share_arrival(struct sim *s, uint32_t j);
/* Checks the sharing side of placement P for J; 0 or SIM_EDECISION (with
 * the reason recorded through sim_refuse). */
int sim_share_check(struct sim *s, uint32_t j, const struct sim_placement *p);
/* Takes the milli-GPUs of a checked placement for J, which starts now with
 * its first `overhead` seconds spent restarting; pushes its finish (or,
 * DOOMED, its out-of-memory) event. 0 or SIM_ENOMEM. */
int sim_share_start(struct sim *s, uint32_t j, const struct sim_placement *p,
                    double overhead, int doomed);
/* Gives back the whole GPUs of one piece SLOT of J's placement (FIRST:
 * the piece that holds its CPU and memory). */
void sim_share_give_piece(struct sim *s, uint32_t j,
                          const struct sim_seg_slot *slot, int first);
/* Gives a share's milli-GPUs back; its former companions speed up. */
void sim_share_release(struct sim *s, uint32_t j);
/* J's work left now (running, sharing on). */
double sim_share_work_left(const struct sim *s, uint32_t j);
/* After an instant that changed anything: the integrals. */
void sim_share_instant(struct sim *s);
/* Sharing's part of the summary. */
void sim_share_summarize(const struct sim *s, struct sim_summary *out);
double sim_share_frag_gpus(const struct sim *s);
int sim_refuse(struct sim *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- Fragmentation of whole GPUs (run_frag.c) --------------------------- */

/* Builds s->frag from the jobs and the empty cluster at sim_run; 0 or
 * SIM_ENOMEM. Then every change of a node's free GPUs goes through
 * sim_frag_update (sim_node_add_free), which integrates over time. */
int sim_frag_init(struct sim *s);
void sim_frag_update(struct sim *s, int32_t node, int32_t old_free,
                     int32_t new_free);
/* sim_frag_update with NODE's free GPUs unchanged (sim_swap hands them
 * over): the integral brought up to now, once an instant. */
void sim_frag_touch(struct sim *s, int32_t node);
/* Whether the integral is up to now already: a touch would change nothing. */
int sim_frag_current(const struct sim *s);
void sim_frag_free(struct sim *s);
/* What observe compares: sim_frag_gpus, or in a streaming run the mark. */
double sim_frag_key(const struct sim *s);
/* Integral of fragmentation (GPUs) over time so far, GPU-s. */
double sim_frag_area(const struct sim *s);

/* Orders jobs by (submit time, id) into s->order. 0 or SIM_ENOMEM. */
int sim_sort_arrivals(struct sim *s);
/* Whether some allowed GPU type has enough GPUs in total for the job. */
int sim_job_fits_somewhere(const struct sim *s, uint32_t j);
/* Takes the GPUs of a checked placement for job J. 0 or SIM_ENOMEM. */
int sim_take_gpus(struct sim *s, uint32_t j, const struct sim_placement *p);
void sim_node_add_free(struct sim *s, int32_t node, int32_t gpus);

/* estimate.c: asks the estimator about arriving job J, and tells it of
 * finished job J; frees the utilization array. */
void sim_estimate_arrival(struct sim *s, uint32_t j);
void sim_estimate_finish(struct sim *s, uint32_t j);
void sim_estimates_free(struct sim *s);

#endif
