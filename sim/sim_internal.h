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
                      SIM_EV_OOM, SIM_EV_KINDS };

struct sim_event {
    double time;
    uint64_t seq;   /* insertion number: equal times pop in insertion order */
    uint32_t kind;  /* enum sim_event_kind */
    uint32_t job;
    uint32_t epoch; /* the job's epoch when pushed; stale if it moved on */
};

struct sim_heap {
    struct sim_event *ev; /* (cap) */
    size_t len, cap;
    uint64_t next_seq;
};

int sim_heap_push(struct sim_heap *h, double time, uint32_t kind,
                  uint32_t job, uint32_t epoch);
/* Removes the earliest event into *out; 0, or -1 when empty. */
int sim_heap_pop(struct sim_heap *h, struct sim_event *out);
void sim_heap_free(struct sim_heap *h);

/* ---- Free GPUs per type (freemap.c) ------------------------------------- */

/* A max segment tree over the nodes of one GPU type: leftmost node with at
 * least k free GPUs in O(log n). */
struct sim_freemap {
    int32_t *nodes; /* (n) global node index of each leaf */
    int32_t *tree;  /* (2 * size) max free GPUs below each tree node */
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
};

struct sim {
    const struct cluster *cluster;
    uint64_t seed;
    struct sim_job *jobs; /* (njobs) indexed by job id */
    size_t njobs, jobs_cap;
    uint32_t *order;      /* (njobs) job ids by submit time, then id */
    size_t next_arrival;
    struct sim_heap heap;
    double now;
    uint64_t events;
    const struct sim_policy *policy;

    int32_t queue_head, queue_tail;
    size_t queue_len;

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
    double last_frag;         /* sim_frag_gpus when last observed */

    const struct sim_estimator *estimator; /* or NULL */
    int est_rc;           /* first failure of the estimator */
    double *est_util;     /* (est_util_n, 2) GPU and memory utilization, -1
                             unknown; NULL until an estimator gives one */
    size_t est_util_n;
};

/* ---- Fragmentation of whole GPUs (run_frag.c) --------------------------- */

/* Builds s->frag from the jobs and the empty cluster at sim_run; 0 or
 * SIM_ENOMEM. Then every change of a node's free GPUs goes through
 * sim_frag_update (sim_node_add_free), which integrates over time. */
int sim_frag_init(struct sim *s);
void sim_frag_update(struct sim *s, int32_t node, int32_t old_free,
                     int32_t new_free);
void sim_frag_free(struct sim *s);
/* Integral of fragmentation (GPUs) over time so far, GPU-s. */
double sim_frag_area(const struct sim *s);

/* Orders jobs by (submit time, id) into s->order. 0 or SIM_ENOMEM. */
int sim_sort_arrivals(struct sim *s);
/* Whether some allowed GPU type has enough GPUs in total for the job. */
int sim_job_fits_somewhere(const struct sim *s, const struct sim_job *job);
/* Takes the GPUs of a checked placement for job J. 0 or SIM_ENOMEM. */
int sim_take_gpus(struct sim *s, uint32_t j, const struct sim_placement *p);
void sim_node_add_free(struct sim *s, int32_t node, int32_t gpus);

/* estimate.c: asks the estimator about arriving job J, and tells it of
 * finished job J; frees the utilization array. */
void sim_estimate_arrival(struct sim *s, uint32_t j);
void sim_estimate_finish(struct sim *s, uint32_t j);
void sim_estimates_free(struct sim *s);

#endif
