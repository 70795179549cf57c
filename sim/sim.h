/* sim.h -- the discrete-event core: a heterogeneous cluster, jobs, the event
 * engine, the view a policy reads, the decisions it may take, and metrics.
 *
 * The engine knows no policy: it calls the hooks of a struct sim_policy.
 * Only the engine moves the clock; a policy changes the simulation only
 * through sim_start(), which validates every decision. */
#ifndef HETSIM_SIM_H
#define HETSIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#define SIM_ERRNO_MAP(X)                                        \
    X(SIM_EIO, -1, "cannot read file")                          \
    X(SIM_EPARSE, -2, "malformed input")                        \
    X(SIM_ENOMEM, -3, "out of memory")                          \
    X(SIM_EINVAL, -4, "invalid argument")                       \
    X(SIM_EDECISION, -5, "illegal scheduling decision")         \
    X(SIM_ENOTFOUND, -6, "no such name")

enum sim_errno {
#define SIM_ERRNO_ENUM(name, value, text) name = value,
    SIM_ERRNO_MAP(SIM_ERRNO_ENUM)
#undef SIM_ERRNO_ENUM
};

/* Text of an error code; never NULL. */
const char *sim_strerror(int code);

/* Where and why something failed; the first error wins. line/column 0 =
 * not known; text names the offending field. */
struct sim_error {
    char source[256];
    long line;
    long column;
    char text[256];
};

/* Where and why JSON TEXT failed to parse at byte OFF (cJSON's error
 * pointer): *LINE and *COL from 1, and WHY: "invalid JSON: trailing comma
 * before ']'" (pointing at the comma), "... near 'x'", or "... ends too
 * early". */
void sim_json_failure(const char *text, size_t off, long *line, long *col,
                      char *why, size_t cap);


/* ---- Cluster ------------------------------------------------------------ */

#define SIM_MAX_GPU_TYPES 32

struct gpu_type {
    char name[32];
    double memory_mb;
    double speed;         /* relative to the cluster's reference type */
    double tflops_fp32;   /* optional facts, 0 when not given */
    double tflops_fp16;
    double mem_bw_gbs;
    double cost_per_hour;
    int32_t gpus;         /* GPUs of this type in the whole cluster */
    int32_t max_per_node; /* most GPUs of this type on one node */
};

struct node {
    int32_t gpu_type;
    int32_t gpus;
};

/* Seconds a preempted job of JOB_TYPE loses at each restart. */
struct job_overhead {
    char job_type[64];
    double seconds;
};

struct cluster {
    char name[64];
    int32_t reference;      /* index of the reference GPU type */
    int32_t ntypes;
    int32_t nnodes;
    int32_t total_gpus;
    double spread_slowdown; /* run-time factor of a job spread over nodes */
    char throughputs[512];  /* matrix file named by the cluster, or "" */
    struct job_overhead *overheads; /* (noverheads) restart overhead by
                                       job type, from the cluster file */
    int32_t noverheads;
    struct gpu_type types[SIM_MAX_GPU_TYPES];
    struct node *nodes;     /* (nnodes) */
};

/* Reads a cluster JSON file (format in README). Returns 0 and a new cluster
 * in *out, or a negative SIM_E* code with *err filled and *out NULL. */
int cluster_load(const char *path, struct cluster **out, struct sim_error *err);

/* The same from JSON TEXT (NUL-terminated), named SRC in errors. */
int cluster_parse(const char *text, const char *src, struct cluster **out,
                  struct sim_error *err);

/* Builds the built-in cluster NAME; SIM_ENOTFOUND if there is none. */
int cluster_preset(const char *name, struct cluster **out);

/* Name and one-line description of preset i, or NULL past the last one. */
const char *cluster_preset_name(size_t i);
const char *cluster_preset_description(size_t i);

/* Index of the GPU type called NAME (exact match), or -1. */
int32_t cluster_find_type(const struct cluster *c, const char *name);

/* Frees a cluster; NULL is a no-op. */
void cluster_destroy(struct cluster *c);

/* ---- Jobs --------------------------------------------------------------- */

enum job_state {
    JOB_SUBMITTED, /* known, not yet arrived */
    JOB_QUEUED,    /* arrived, waiting */
    JOB_RUNNING,
    JOB_PREEMPTED, /* stopped before finishing, waiting again */
    JOB_COMPLETED,
    JOB_FAILED,
};

enum job_failure { JOB_FAIL_NONE, JOB_FAIL_UNSCHEDULABLE };

/* How fast the jobs of one class run: seconds per unit of work on GPU type
 * t, on one node (unit_s) or spread over several (spread_unit_s); 0 = the
 * class cannot run there (that way). Class 0 always exists: its unit is one
 * second on the reference type, so unit_s[t] = speed(ref) / speed(t) and
 * spread_unit_s[t] = unit_s[t] * spread_slowdown. A throughput matrix gives
 * other classes, with training steps as the unit: unit_s = 1 / steps/s. */
struct sim_class_spec {
    double unit_s[SIM_MAX_GPU_TYPES];
    double spread_unit_s[SIM_MAX_GPU_TYPES];
};

/* What the engine needs of a job; the rest of the trace stays outside. */
struct sim_job_spec {
    double submit_time;   /* s */
    double work;          /* units of its class; class 0: s alone on the
                             reference GPU type */
    int32_t num_gpus;
    uint32_t allowed;     /* bit t set = may run on GPU type t; 0 = any */
    uint32_t trace_index; /* the caller's handle, returned in results */
    int32_t job_class;    /* from sim_add_class, or 0 */
    double est_work;      /* what policies believe `work` is; 0 = unknown */
    double gpu_mem_mb;    /* true peak memory on each of its GPUs, MB; 0 =
                             unknown: it never runs out (README, "Memory") */
    double est_mem_mb;    /* what policies believe gpu_mem_mb is; 0 =
                             unknown */
};

struct sim_job {
    double submit_time;
    double work;         /* units of work in all (see sim_class_spec) */
    double start_time;   /* first start; -1 until then */
    double finish_time;  /* -1 until then */
    double run_s;        /* time spent running so far */
    double work_left;    /* units of work still to do */
    double last_start;   /* when the current run began */
    double unit_s;       /* seconds per unit of work where it runs now */
    double est_work;     /* estimate of work (0 = none), for policies */
    double overhead_due; /* restart overhead its next start pays, s */
    double overhead_run; /* overhead paid at the start of the current run */
    double restart_s;    /* its own restart overhead, or -1: the run's */
    double gpu_mem_mb;   /* true peak memory per GPU, MB (0 = unknown) */
    double est_mem_mb;   /* its estimate, for policies (0 = unknown) */
    double wasted_s;     /* time spent in runs that ran out of memory */
    uint32_t trace_index;
    uint32_t allowed;    /* types it may use and its class can run on */
    int32_t job_class;
    int32_t num_gpus;
    int32_t gpu_type;    /* type of the current or last placement, or -1 */
    int32_t preemptions;
    uint32_t epoch;      /* bumped when the pending finish event goes stale */
    int32_t prev, next;  /* links of the wait queue, -1 at the ends */
    int32_t seg;         /* first placement segment while running, or -1 */
    uint8_t state;       /* enum job_state */
    uint8_t failure;     /* enum job_failure */
    uint8_t spread;      /* current placement spans nodes */
    uint8_t doomed;      /* the current run will run out of memory */
    int32_t ooms;        /* runs that ran out of memory */
};

/* ---- Engine ------------------------------------------------------------- */

struct sim;

/* The hooks of a scheduling policy. schedule() is called once after all
 * events of one instant have been handled; it returns 0 or the negative code
 * of the first sim_start() it could not make. Any hook may be NULL.
 * A job that runs out of GPU memory (sim_set_oom_detect_s) is reported as
 * on_finish with the job no longer RUNNING: FAILED when no allowed type is
 * left, else QUEUED, followed by on_arrival as if it had just come. */
struct sim_policy {
    const char *name;
    void *state;
    void (*on_arrival)(void *state, struct sim *s, uint32_t job);
    void (*on_finish)(void *state, struct sim *s, uint32_t job);
    int (*schedule)(void *state, struct sim *s);
};

/* Called after each instant whose queue length, busy GPUs or fragmentation
 * (sim_frag_gpus) changed, with the values that hold from `time` until the
 * next call. */
struct sim_observer {
    void *ctx;
    void (*change)(void *ctx, double time, int32_t queued, int32_t busy,
                   const int32_t *busy_by_type);
};

/* Before sim_run: asks for RAN(CTX, ...) each time a run of a job ends (it
 * finished or was preempted), once per piece of its placement: GPUS GPUs
 * of NODE held from START to END (restart overhead included). Charts draw
 * Gantt charts from these; NULL stops the calls. */
typedef void sim_ran_fn(void *ctx, uint32_t job, int32_t node, int32_t gpus,
                        double start, double end);
void sim_on_run_end(struct sim *s, sim_ran_fn *ran, void *ctx);

/* A new engine on cluster C (borrowed: it must outlive the engine). */
struct sim *sim_create(const struct cluster *c, uint64_t seed);
void sim_destroy(struct sim *s);

/* Adds a job class before sim_run(); *id receives its number (1, 2, ...).
 * SIM_EINVAL for negative or non-finite entries, or SIM_ENOMEM. */
int sim_add_class(struct sim *s, const struct sim_class_spec *spec,
                  int32_t *id);

/* Adds a job before sim_run(); returns 0, SIM_EINVAL or SIM_ENOMEM. Jobs are
 * numbered 0, 1, ... in the order added; they arrive by submit time, ties in
 * the order added. */
int sim_add_job(struct sim *s, const struct sim_job_spec *spec);

/* Replays every job to the end. Returns 0, or a negative code with *err
 * naming the policy and the decision it got wrong. */
int sim_run(struct sim *s, const struct sim_policy *p,
            const struct sim_observer *obs, struct sim_error *err);

/* ---- The view a policy reads -------------------------------------------- */

double sim_now(const struct sim *s);
const struct cluster *sim_cluster(const struct sim *s);
size_t sim_njobs(const struct sim *s);
const struct sim_job *sim_job(const struct sim *s, uint32_t job);
uint64_t sim_events(const struct sim *s);

/* The wait queue (QUEUED and PREEMPTED jobs) in arrival order; -1 ends. */
int32_t sim_queue_head(const struct sim *s);
int32_t sim_queue_next(const struct sim *s, uint32_t job);
size_t sim_queue_len(const struct sim *s);

int32_t sim_free_gpus(const struct sim *s, int32_t gpu_type);
int32_t sim_node_free(const struct sim *s, int32_t node);

/* Lowest-numbered node of GPU_TYPE with at least NEED free GPUs, or -1;
 * O(log nodes). */
int32_t sim_find_node(const struct sim *s, int32_t gpu_type, int32_t need);

/* The nodes of GPU_TYPE in index order; *count receives their number. */
const int32_t *sim_type_nodes(const struct sim *s, int32_t gpu_type,
                              int32_t *count);

/* Class CLS (0 <= cls < sim_nclasses). */
const struct sim_class_spec *sim_class(const struct sim *s, int32_t cls);
int32_t sim_nclasses(const struct sim *s);

/* Seconds JOB's whole work takes on GPU_TYPE, on one node or SPREAD over
 * several; 0 when its class cannot run there that way. */
double sim_runtime_on(const struct sim *s, uint32_t job, int32_t gpu_type,
                      int spread);

/* ---- Decisions ---------------------------------------------------------- */

struct sim_seg {
    int32_t node;
    int32_t gpus;
};

struct sim_placement {
    int32_t gpu_type;
    int32_t nseg;
    const struct sim_seg *seg; /* (nseg), borrowed */
};

/* Starts a waiting JOB on placement P (copied). Returns 0, or SIM_EDECISION
 * when the job is not waiting, P does not give it exactly num_gpus free GPUs
 * of one allowed type, or it names a node twice; the engine then stops with
 * the reason. */
int sim_start(struct sim *s, uint32_t job, const struct sim_placement *p);

/* Stops running JOB now. Its GPUs are freed, the work done so far is kept,
 * it waits again (PREEMPTED) at the tail of the queue, and its next start
 * first pays the restart overhead (sim_set_restart_overhead) before work
 * resumes. Returns 0, or SIM_EDECISION when JOB is not running. */
int sim_preempt(struct sim *s, uint32_t job);

/* Asks for a scheduling pass at TIME (>= now), e.g. when a running job's
 * priority will cross a threshold. 0, SIM_EINVAL or SIM_ENOMEM. */
int sim_wake_at(struct sim *s, double time);

/* Stops the run from a policy hook that cannot go on (its solver failed,
 * say): WHY (copied) becomes the run's error. Returns SIM_EDECISION, for
 * the hook to return. */
int sim_fail(struct sim *s, const char *why);

/* Seconds a preempted job loses on each restart (default 0); before run.
 * The per-job form overrides it for one job (e.g. by job type). */
void sim_set_restart_overhead(struct sim *s, double seconds);
void sim_set_job_restart_overhead(struct sim *s, uint32_t job,
                                  double seconds);

/* The cluster's restart overhead for JOB_TYPE, or -1 when it sets none. */
double cluster_job_overhead(const struct cluster *c, const char *job_type);

/* Time JOB has spent running so far (the current run included), and the
 * work it has left now (its current run's progress included). */
double sim_attained_s(const struct sim *s, uint32_t job);
double sim_work_left(const struct sim *s, uint32_t job);

/* ---- GPU sharing (share.c, frag.c) -------------------------------------- */

/* A pod of Alibaba's 2023 trace asks one node for CPU, memory and either a
 * share of one GPU (num_gpus 1, gpu_milli < 1000) or num_gpus whole GPUs.
 * GPUs are counted in milli-GPU: 1000 is one whole GPU (README, "GPU
 * sharing"). A cap of 0 means the dimension is not modelled (always fits). */
#define SHARE_MILLI 1000
#define SHARE_MAX_NODE_GPUS 64

struct share_demand {
    int64_t cpu_milli;
    double memory_mib;
    int32_t num_gpus;  /* >= 1 */
    int32_t gpu_milli; /* per GPU, 1..1000; < 1000 only with num_gpus 1 */
    uint32_t allowed;  /* bit t = may use GPU type t; 0 = any */
};

struct share_node {
    int32_t gpu_type;
    int32_t gpus;              /* <= SHARE_MAX_NODE_GPUS */
    int64_t cpu_cap, cpu_free; /* milli-CPU; cap 0: not modelled */
    double mem_cap, mem_free;  /* MiB; cap 0: not modelled */
    int32_t *gpu_free;         /* (gpus) milli-GPU free on each GPU */
    uint32_t version;          /* bumped by every change made through the
                                  functions below (placers cache by it) */
};

struct share_cluster {
    struct share_node *nodes; /* (nnodes) */
    int32_t nnodes;
    int64_t total_milli;      /* 1000 x GPUs */
    int64_t used_milli;       /* milli-GPU allocated now */
    int32_t *gpu_block;       /* one block behind every gpu_free */
};

/* Where a pod went: NODE, and GPU (a share) or the GPUs of MASK (whole). */
struct share_alloc {
    int32_t node;
    int32_t gpu;   /* the shared GPU, or -1 for whole GPUs */
    uint64_t mask; /* bit g = whole GPU g taken */
};

/* A share cluster with C's nodes, all free, CPU and memory not modelled.
 * 0, SIM_EINVAL (a node with more than SHARE_MAX_NODE_GPUS) or SIM_ENOMEM. */
int share_cluster_create(const struct cluster *c, struct share_cluster **out);
void share_cluster_destroy(struct share_cluster *sc);
/* Gives NODE its CPU (milli) and memory (MiB) capacity, all free. */
void share_node_set_host(struct share_node *n, int64_t cpu_milli,
                         double mem_mib);

/* 1 when D is well formed (see struct share_demand), else 0. */
int share_demand_valid(const struct share_demand *d);
/* 1 when node N can host D now (type, CPU, memory and GPUs), else 0. */
int share_fits(const struct share_node *n, const struct share_demand *d);
/* For a share (gpu_milli < 1000): 1 when GPU G of N can take it now. */
int share_gpu_fits(const struct share_node *n, const struct share_demand *d,
                   int32_t g);
/* Whole GPUs: the lowest-numbered fully free GPUs of N for D into *mask;
 * 0, or 1 when there are not enough. */
int share_whole_gpus(const struct share_node *n, const struct share_demand *d,
                     uint64_t *mask);
/* Takes or gives back the resources of D at A (checked by the caller). */
void share_node_take(struct share_node *n, const struct share_demand *d,
                     const struct share_alloc *a);
void share_node_give(struct share_node *n, const struct share_demand *d,
                     const struct share_alloc *a);
void share_take(struct share_cluster *sc, const struct share_demand *d,
                const struct share_alloc *a);
void share_give(struct share_cluster *sc, const struct share_demand *d,
                const struct share_alloc *a);

/* The target workload of FGD's fragmentation: task types (distinct
 * demands) with their popularity, summing to 1. */
struct share_workload {
    struct share_demand *types; /* (n) in order of first appearance */
    double *weight;             /* (n) */
    size_t n;
};

/* Groups the N demands of PODS into types; 0, SIM_EINVAL (N = 0 or a bad
 * demand) or SIM_ENOMEM. */
int share_workload_build(const struct share_demand *pods, size_t n,
                         struct share_workload **out);
void share_workload_destroy(struct share_workload *w);

/* FGD's fragmentation (frag.c; Weng et al., ATC'23, section 3.2), in
 * milli-GPU: of node N for one task D; of N for workload W (the
 * popularity-weighted sum over W's types); of the whole cluster (the sum
 * over its nodes). */
double share_task_frag(const struct share_node *n, const struct share_demand *d);
double share_node_frag(const struct share_node *n,
                       const struct share_workload *w);
double share_cluster_frag(const struct share_cluster *sc,
                          const struct share_workload *w);

/* The engine's own cluster in that measure, whole GPUs only, against the
 * workload of all its jobs (GPU count and allowed types): GPUs, now. */
double sim_frag_gpus(const struct sim *s);

/* ---- Replaying jobs on shared GPUs (share_run.c) ----------------------- */

/* A job of a sharing replay: the caller fills the first four fields, the
 * replay the rest. A share (gpu_milli < 1000) sits on one GPU with any
 * other shares that fit there, and runs at a speed below 1 while it has
 * company (share_run_hooks.pair_speed); whole GPUs are its own, speed 1. */
struct share_job {
    double submit_time;
    double work;       /* s alone on the cluster's reference GPU type */
    struct share_demand demand;
    uint32_t job_type; /* the caller's key for pair_speed */
    double start_time, finish_time; /* -1 until then */
    double work_left;  /* s alone on the reference type */
    double speed;      /* now: 1 alone, the product of pair speeds */
    double last;       /* when work_left was last brought up to date */
    struct share_alloc alloc;
    int32_t next_on_gpu; /* the next share on the same GPU, or -1 */
    uint32_t epoch;    /* bumped when its finish event goes stale */
    uint8_t state;     /* enum job_state */
};

struct share_run_hooks {
    void *ctx;
    /* Where D goes now: 0 with *out filled, 1 when nothing fits. */
    int (*place)(void *ctx, const struct share_cluster *sc,
                 const struct share_demand *d, struct share_alloc *out);
    /* Speed in (0, 1] of a job of type A on a GPU of type T shared with
     * one of type B; with several others the product over them (never
     * below 1e-6). */
    double (*pair_speed)(void *ctx, int32_t gpu_type, uint32_t a,
                         uint32_t b);
    /* After each instant that changed anything: milli-GPU allocated and
     * the cluster's fragmentation (milli-GPU) from TIME on. May be NULL. */
    void (*change)(void *ctx, double time, int64_t used_milli, double frag);
};

struct share_run_summary {
    size_t jobs, completed, unschedulable;
    double makespan_s, avg_jct_s, avg_wait_s;
    double gpu_utilization;       /* allocated milli-GPU x time, over all */
    double effective_utilization; /* the same weighted by speed: work done */
    double frag_rate_mean;        /* time mean of fragmentation / GPUs */
};

/* Replays the N JOBS on SC (empty, and C's, borrowed) in submit order:
 * waiting jobs are offered to H->place in arrival order at every instant
 * (one that does not fit lets later ones try); a job that fits no node of
 * the empty cluster fails at arrival. W is the fragmentation's workload.
 * 0, SIM_EINVAL (a bad job), SIM_EDECISION (H->place left a job waiting
 * on an empty cluster) or SIM_ENOMEM. */
int share_run(struct share_cluster *sc, const struct cluster *c,
              struct share_job *jobs, size_t n, const struct share_workload *w,
              const struct share_run_hooks *h, struct share_run_summary *out);

/* ---- Memory and estimates (memory.c) ------------------------------------ */

#define SIM_OOM_DETECT_S_DEFAULT 60.0

/* Seconds after its start at which a job placed on a GPU type with less
 * memory_mb than its gpu_mem_mb fails (default 60). Its GPU time is then
 * wasted, the type leaves its allowed types, and it waits again (or fails
 * as unschedulable when none is left). Before sim_run. */
void sim_set_oom_detect_s(struct sim *s, double seconds);

/* Whether JOB's true memory need exceeds the memory of GPU_TYPE. */
int sim_mem_overflows(const struct sim *s, uint32_t job, int32_t gpu_type);

/* What policies believe JOB's whole run takes on GPU_TYPE with its GPUs, in
 * seconds: the override of sim_set_est_runtime when it gives one (> 0),
 * else est_work times the seconds per unit of its class there (one node,
 * or spread where its class only runs spread); -1 when unknown (no
 * est_work, or its class cannot run there). */
double sim_est_runtime_s(const struct sim *s, uint32_t job, int gpu_type);

/* Sets JOB's believed run time on each GPU type: PER_TYPE_S holds ntypes
 * values (copied), where one <= 0 or not finite means "unknown there";
 * NULL clears them. Any time, e.g. from a predictor between instants. */
void sim_set_est_runtime(struct sim *s, uint32_t job,
                         const double *per_type_s);

/* JOB's estimated peak GPU memory per GPU in MB; 0 when unknown. */
double sim_est_mem_mb(const struct sim *s, uint32_t job);

/* ---- A predictor in the loop (estimate.c) ------------------------------- */

/* What an estimator believes of one job, asked once when it arrives. */
struct sim_estimate {
    double runtime_s[SIM_MAX_GPU_TYPES]; /* whole job on type t with its
                                            GPUs; <= 0 = no estimate there */
    double mem_mb;   /* peak GPU memory per GPU; 0 = unknown */
    double gpu_util; /* fraction of the GPU's compute used; -1 = unknown */
    double mem_util; /* fraction of its memory bandwidth; -1 = unknown */
};

/* A predictor in the loop: estimate() is called on every arrival, before
 * the policy hears of the job, and fills *out (zeroed, utilizations -1);
 * a non-zero return stops the run with that code. on_finish, which may be
 * NULL, tells it a job completed (history estimators learn there). The
 * engine knows only this table; models live outside sim/. What it says
 * goes to sim_set_est_runtime, sim_set_est_mem and est_work (below). */
struct sim_estimator {
    const char *name;
    void *ctx;
    int (*estimate)(void *ctx, const struct sim *s, uint32_t job,
                    struct sim_estimate *out);
    void (*on_finish)(void *ctx, const struct sim *s, uint32_t job);
};

/* Installs E (borrowed, may be NULL) before sim_run. */
void sim_set_estimator(struct sim *s, const struct sim_estimator *e);

/* Sets JOB's estimated memory need (MB, 0 = unknown); 0 or SIM_EINVAL. */
int sim_set_est_mem(struct sim *s, uint32_t job, double mem_mb);

/* Sets est_work from JOB's per-type run-time estimates, so that policies
 * reading est_work agree with them: the estimate on the fastest type the
 * job may use, in units of its work (else the first type with one; 0 when
 * none has one). */
void sim_est_work_from_runtime(struct sim *s, uint32_t job);

/* JOB's estimated utilizations from the estimator; -1 when unknown. */
double sim_est_gpu_util(const struct sim *s, uint32_t job);
double sim_est_mem_util(const struct sim *s, uint32_t job);

/* ---- Results ------------------------------------------------------------ */

struct sim_summary {
    size_t jobs_total, jobs_completed, jobs_failed, jobs_unschedulable;
    double first_submit, last_finish, makespan_s;
    double avg_jct_s, median_jct_s, p95_jct_s, p99_jct_s;
    double avg_wait_s, avg_slowdown, gpu_utilization;
    double busy_gpu_s;
    uint64_t preemptions_total;
    double overhead_gpu_s; /* GPU-seconds spent on restart overheads */
    double utilization_by_type[SIM_MAX_GPU_TYPES];
    uint64_t events;
    uint64_t oom_events;   /* runs that ran out of GPU memory */
    double wasted_gpu_s;   /* GPU-seconds held by those runs */
    /* Last finish of a completed job on each type, s after first_submit;
     * NAN where none finished. */
    double per_type_completion_s[SIM_MAX_GPU_TYPES];
    /* FGD's fragmentation of whole GPUs (run_frag.c), time mean over the
     * makespan, over the cluster's GPUs. */
    double frag_rate_mean;
};

/* Figures of a finished run (definitions in README). SIM_ENOMEM or 0. */
int sim_summarize(const struct sim *s, struct sim_summary *out);

/* ---- CPython's random stream (pyrand.c) --------------------------------- */

/* MT19937 as CPython's random.Random(seed) draws it, for reproducing another
 * simulator's Python code number for number (Gavel's shuffles and its job
 * generator). Anything of hetsim's own draws from seeded GSL generators. */
#define SIM_PYRAND_N 624
struct sim_pyrand {
    uint32_t mt[SIM_PYRAND_N];
    int mti;
};
void sim_pyrand_seed(struct sim_pyrand *r, uint64_t seed); /* Random(seed) */
uint32_t sim_pyrand_u32(struct sim_pyrand *r);     /* getrandbits(32) */
double sim_pyrand_random(struct sim_pyrand *r);    /* random() */
uint32_t sim_pyrand_below(struct sim_pyrand *r, uint32_t n); /* randrange(n),
                                                        n > 0 */
/* shuffle(a): Fisher-Yates from the end, as CPython's */
void sim_pyrand_shuffle(struct sim_pyrand *r, int32_t *a, uint32_t n);
double sim_pyrand_expovariate(struct sim_pyrand *r, double lambd);

#endif
