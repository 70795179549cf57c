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

/* DROPPED: the policy gave up on the job (sim_drop); sim_job_failure_text
 * says why. */
enum job_failure { JOB_FAIL_NONE, JOB_FAIL_UNSCHEDULABLE, JOB_FAIL_DROPPED };

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
    /* What a finish and the retirement of a streaming run read, in the
     * first 64 bytes (one cache line: the chunks are aligned), since by
     * then the job has left the caches. */
    double submit_time;
    double finish_time;  /* -1 until then */
    double last_start;   /* when the current run began */
    double run_s;        /* time spent running so far */
    uint32_t epoch;      /* bumped when the pending finish event goes stale */
    int32_t seg;         /* first placement segment while running, or -1 */
    int32_t num_gpus;
    int32_t gpu_type;    /* type of the current or last placement, or -1 */
    uint32_t allowed;    /* types it may use and its class can run on */
    int32_t job_class;
    uint8_t state;       /* enum job_state */
    uint8_t failure;     /* enum job_failure */
    uint8_t slice;       /* the current run is a slice: 0 no, else
                            1 + SIM_RUN_NO_PROGRESS when it does no work */
    uint8_t doomed;      /* the current run will run out of memory */
    uint8_t spread;      /* current placement spans nodes */
    /* The rest of what they read, first in the second line. */
    double work;         /* units of work in all (see sim_class_spec) */
    double work_left;    /* units of work still to do */
    double overhead_run; /* overhead paid at the start of the current run */
    double wasted_s;     /* time spent in runs that ran out of memory */
    double start_time;   /* first start; -1 until then */
    double unit_s;       /* seconds per unit of work where it runs now */
    double est_work;     /* estimate of work (0 = none), for policies */
    double overhead_due; /* restart overhead its next start pays, s */
    double restart_s;    /* its own restart overhead, or -1: the run's */
    double gpu_mem_mb;   /* true peak memory per GPU, MB (0 = unknown) */
    double est_mem_mb;   /* its estimate, for policies (0 = unknown) */
    double slice_work;   /* work the current slice credits (sim_start_slice) */
    uint32_t trace_index;
    int32_t preemptions;
    int32_t ooms;        /* runs that ran out of memory */
    uint32_t unused_[4]; /* to 192 bytes: every job starts a cache line */
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
 * (sim_frag_gpus; in a streaming run sim_frag_mark) changed, with the
 * values that hold from `time` until the next call. */
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

/* Gives class CLS its units per second on one node of each type exactly as
 * measured (RATE: ntypes values, 1 / unit_s before rounding; 0 = not
 * given), for policies that repeat another simulator's arithmetic bit for
 * bit: gavel:*'s consolidated slices last WORK / rate (sim_start_slice).
 * Before sim_run; 0, SIM_EINVAL or SIM_ENOMEM. */
int sim_set_class_rate(struct sim *s, int32_t cls, const double *rate);
/* That rate of class CLS on type T, or 0. */
double sim_class_rate(const struct sim *s, int32_t cls, int32_t t);

/* Adds a job before sim_run(); returns 0, SIM_EINVAL or SIM_ENOMEM. Jobs are
 * numbered 0, 1, ... in the order added; they arrive by submit time, ties in
 * the order added. */
int sim_add_job(struct sim *s, const struct sim_job_spec *spec);

/* Replays every job to the end. Returns 0, or a negative code with *err
 * naming the policy and the decision it got wrong. */
int sim_run(struct sim *s, const struct sim_policy *p,
            const struct sim_observer *obs, struct sim_error *err);

/* A streaming run (docs/streaming.md): instead of sim_add_job before the
 * run, jobs come from NEXT, asked for one at a time when the arrivals read
 * so far are used up. NEXT fills *out and returns 0, 1 at the end, or a
 * negative code that stops the run. Jobs must come in order of submit
 * time (SIM_EINVAL otherwise); their ids are 0, 1, ... in that order.
 * After each instant, finished jobs are retired in id order: RETIRE (may
 * be NULL) reads job J a last time, then the engine may free it; policies
 * must not keep the ids of finished jobs. sim_summarize then works from a
 * fold of the retired jobs in id order (the same sums in the same order as
 * a whole-trace run, so the same doubles), with 8 bytes per job for the
 * JCT quantiles. Before sim_run and before any sim_add_job; 0, SIM_EINVAL
 * or SIM_ENOMEM. */
struct sim_source {
    void *ctx;
    int (*next)(void *ctx, struct sim_job_spec *out);
    void (*retire)(void *ctx, const struct sim *s, uint32_t job);
};
int sim_set_source(struct sim *s, const struct sim_source *src);

/* Streaming run: job chunks held now and at most so far (a test hook). */
size_t sim_live_chunks(const struct sim *s, size_t *peak);

/* ---- The view a policy reads -------------------------------------------- */

double sim_now(const struct sim *s);
const struct cluster *sim_cluster(const struct sim *s);
size_t sim_njobs(const struct sim *s);
const struct sim_job *sim_job(const struct sim *s, uint32_t job);
/* Asks the caches for JOB's record (a hint: nothing when JOB is out of
 * range or gone); for a policy that knows the jobs it will touch next. */
void sim_job_prefetch(const struct sim *s, uint32_t job);
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

struct share_alloc;

struct sim_placement {
    int32_t gpu_type;
    int32_t nseg;
    const struct sim_seg *seg; /* (nseg), borrowed */
    /* With GPU sharing on (sim_enable_sharing): which GPUs of the one node
     * (a share's GPU, or the mask of whole GPUs); NULL lets the engine take
     * the lowest fully free GPUs of each node. Borrowed. */
    const struct share_alloc *share;
};

/* Starts a waiting JOB on placement P (copied). Returns 0, or SIM_EDECISION
 * when the job is not waiting, P does not give it exactly num_gpus free GPUs
 * of one allowed type, or it names a node twice; the engine then stops with
 * the reason. With sharing on, a share (gpu_milli < 1000) needs P->share
 * naming a GPU with that much free on a node whose CPU and memory hold it. */
int sim_start(struct sim *s, uint32_t job, const struct sim_placement *p);

/* A bounded run, for round-based policies (Gavel's rounds: policies/
 * gavel_sim.c). Starts waiting JOB on P for WORK units of its work (> 0,
 * or 0 for an empty run); the run ends by itself after WORK times its
 * seconds per unit. When WORK >= its work left the job completes there as
 * with sim_start; otherwise it then waits again (PREEMPTED, at the tail of
 * the queue) with exactly WORK less to do: the end of a slice is not a
 * preemption (no restart overhead, not counted), and the policy hears of
 * it only through the scheduling pass of that instant. FLAGS:
 *   SIM_RUN_CONSOLIDATED: at the one-node speed of its class on P's type
 *     even when P spans nodes (a simulator that ignores placement); the
 *     slice lasts WORK / rate where the class gives the measured rate;
 *   SIM_RUN_NO_PROGRESS: the run holds its GPUs for the time WORK would
 *     take and does nothing (a failed attempt); that time counts as wasted.
 * Returns 0, or SIM_EDECISION as sim_start (and for a bad WORK). */
#define SIM_RUN_CONSOLIDATED 1u
#define SIM_RUN_NO_PROGRESS 2u
int sim_start_slice(struct sim *s, uint32_t job, const struct sim_placement *p,
                    double work, unsigned flags);

/* Gives up on waiting JOB: it fails for good (JOB_FAILED, failure
 * JOB_FAIL_DROPPED) and leaves the queue; WHY (borrowed: a string that
 * outlives the run, e.g. a literal) says why. 0, or SIM_EDECISION when JOB
 * is not waiting, or SIM_ENOMEM. */
int sim_drop(struct sim *s, uint32_t job, const char *why);

/* Why JOB failed, in a few words ("" when it did not). */
const char *sim_job_failure_text(const struct sim *s, uint32_t job);

/* Stops running JOB now. Its GPUs are freed, the work done so far is kept,
 * it waits again (PREEMPTED) at the tail of the queue, and its next start
 * first pays the restart overhead (sim_set_restart_overhead) before work
 * resumes. Returns 0, or SIM_EDECISION when JOB is not running. */
int sim_preempt(struct sim *s, uint32_t job);

/* sim_preempt(VICTIM), then sim_start(JOB) on the GPUs VICTIM held, in one
 * step: the same results (the run's end reported, the same finish event),
 * without giving the GPUs back and taking them again. For a policy that
 * knows its placement would be those GPUs (preemptive.c). VICTIM must run
 * on one node, not a slice; JOB must wait, need as many GPUs, be allowed on
 * that type and its class run on one node of it; not with GPU sharing.
 * Returns 0, or SIM_EDECISION (nothing changed) when any of that fails. */
int sim_swap(struct sim *s, uint32_t victim, uint32_t job);

/* sim_swap that also gives the two records after the swap, REC[0]
 * VICTIM's and REC[1] JOB's (as sim_job would; set only on success): a
 * policy that files both at once saves two lookups (preempt_swaps.c). */
int sim_swap_rec(struct sim *s, uint32_t victim, uint32_t job,
                 const struct sim_job *rec[2]);

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

/* A streaming run (sim_set_source) learns the workload of that measure
 * only at its end, so sim_frag_gpus says 0 during the run. Its observer
 * is then called also when the fragmentation may have changed: it notes
 * sim_frag_mark, and after the run a replay says the value at each mark,
 * the double a whole-trace run's sim_frag_gpus said there. Marks must be
 * asked in increasing order. begin: 0, SIM_ENOMEM or SIM_EIO (the replay
 * is to be ended either way); end reads the rest of the log, so that
 * sim_summarize need not read it again: 0 or SIM_EIO (the log could not be
 * read back). Without a streaming run the replay says sim_frag_gpus. */
uint64_t sim_frag_mark(const struct sim *s);
struct sim_frag_replay;
int sim_frag_replay_begin(const struct sim *s, struct sim_frag_replay **r);
double sim_frag_replay_gpus(struct sim_frag_replay *r, uint64_t mark);
int sim_frag_replay_end(struct sim_frag_replay *r);
/* In a streaming run: 1 when every job so far may run on one GPU of any
 * type, so that no free GPU is a fragment and the replay would say 0 at
 * every mark so far; once 0, it stays 0 (such jobs only grow in number). 0
 * in any other run. */
int sim_frag_nil(const struct sim *s);

/* ---- GPU sharing in the engine (colocate.c) ------------------------------ */

/* Turns the engine's cluster into milli-GPUs (struct share_cluster) before
 * sim_run, after the jobs are added: every job then has a demand (a share
 * of one GPU or whole GPUs on one node, CPU and memory), whole GPUs are
 * the fully free ones, and jobs on one GPU run at a speed below 1 while
 * they have company: the product of pair_speed over the others there
 * (never below 1e-6). Whenever a GPU gains or loses a job, every job left
 * on it has its progress brought up to date at the old speed, gets the new
 * speed and a new finish time. A share of m milli has m/1000 of its GPU's
 * memory: a job needing more runs out of memory (sim_set_oom_detect_s).
 * A job that fits no node of the empty cluster fails at arrival. */
struct sim_sharing {
    const struct share_demand *demands; /* (njobs) by job id, copied */
    const struct share_workload *w;     /* fragmentation's workload,
                                           borrowed for the run */
    const int64_t *host_cpu;            /* (nnodes) milli-CPU, or NULL */
    const double *host_mem;             /* (nnodes) MiB, or NULL */
    /* Speed in (0, 1] of job A on a GPU of GPU_TYPE next to job B (engine
     * job ids). */
    double (*pair_speed)(void *ctx, int32_t gpu_type, uint32_t a,
                         uint32_t b);
    void *ctx;
    /* > 0: util-pack (Yeung et al., HotCloud'20). A one-GPU job whose
     * estimator gives a GPU utilization u on arrival asks
     * ceil(1000 u / util_bound) milli-GPU when that is below 1000, so jobs
     * share a GPU while their utilizations sum to at most the bound. */
    double util_bound;
};

/* 0, SIM_EINVAL (a bad demand, a node with more than SHARE_MAX_NODE_GPUS)
 * or SIM_ENOMEM. */
int sim_enable_sharing(struct sim *s, const struct sim_sharing *cfg);

/* The engine's milli-GPU cluster now, or NULL when sharing is off. */
const struct share_cluster *sim_share_cluster(const struct sim *s);
/* JOB's demand now (util-pack may have shrunk it), or NULL when off. */
const struct share_demand *sim_job_demand(const struct sim *s, uint32_t job);
/* Where running JOB sits (sharing on), or NULL. */
const struct share_alloc *sim_job_alloc(const struct sim *s, uint32_t job);
/* Whether waiting job W would fit some node if the running VICTIMS (N)
 * were stopped (for preemptive policies; 0 when out of memory). */
int sim_share_fits_if_freed(const struct sim *s, uint32_t w,
                            const uint32_t *victims, size_t n);
/* Whether JOB ever ran on a GPU together with another job. */
int sim_job_was_shared(const struct sim *s, uint32_t job);

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

/* The milli-GPUs JOB asks of each of its GPUs: below SHARE_MILLI a share
 * of one GPU (only with GPU sharing on), else SHARE_MILLI (whole GPUs). */
int32_t sim_job_gpu_milli(const struct sim *s, uint32_t job);

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
    /* GPU sharing (sim_enable_sharing): with it on, gpu_utilization is
     * allocated milli-GPU x time over all of it, effective_utilization the
     * milli-GPU x run time alone of each completed job over the same, and
     * frag_rate_mean FGD's fragmentation of the milli-GPU cluster against
     * the sharing workload. jobs_shared counts the jobs that ran on a GPU
     * together with another one at some time (0 with sharing off). */
    int sharing;
    size_t jobs_shared;
    double effective_utilization;
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
