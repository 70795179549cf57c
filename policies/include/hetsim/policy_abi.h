/* hetsim/policy_abi.h -- the C ABI of hetsim's scheduling-policy plugins.
 *
 * A plugin is a shared object that `hetsim run --policy ./libmine.so` loads
 * with dlopen(). It exports one function, hetsim_policy_plugin(), which
 * returns a table describing the policy (struct hetsim_policy_plugin).
 * hetsim calls the table's hooks as the simulation runs and hands each one
 * a table of functions (struct hetsim_policy_api) through which the plugin
 * reads the simulation and takes its decisions; the plugin links against
 * nothing of hetsim. This header is all it needs (plain C, no hetsim
 * headers); it is installed as <hetsim/policy_abi.h>.
 *
 * Versioning: hetsim loads a plugin only when the plugin's abi_version, the
 * first member of its table, equals hetsim's HETSIM_POLICY_ABI_VERSION. Any
 * change to a struct, a signature or a meaning below bumps the version.
 *
 * Jobs are numbered 0 .. num_jobs-1, in trace order. GPU types are numbered
 * 0 .. num_gpu_types-1 in the cluster file's order, nodes 0 .. num_nodes-1.
 * Passing a job, type or node number out of range (or a NULL pointer) is a
 * bug in the plugin: hetsim neither crashes nor aborts. A reading function
 * then returns a sentinel: -1 (int32_t and int results), NaN (double), 0
 * (job_allowed_types) or NULL (gpu_type_name); a deciding function returns
 * HETSIM_EINVAL. Either way the run stops after the hook returns, with an
 * error naming the policy and the call. Decisions are checked: an illegal
 * one returns HETSIM_EDECISION, and a schedule hook that returns it stops
 * the run with the reason. A policy that makes no progress (more than
 * 100000 scheduling passes at one simulated instant, e.g. wake_at(now) at
 * every call, or starting and preempting a job forever) stops the run with
 * an error too. */
#ifndef HETSIM_POLICY_ABI_H
#define HETSIM_POLICY_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HETSIM_POLICY_ABI_VERSION 2

/* Return codes. */
#define HETSIM_OK 0
#define HETSIM_NO_ROOM 1 /* place(): nothing fits now */
#define HETSIM_ENOMEM (-3)
#define HETSIM_EINVAL (-4)
#define HETSIM_EDECISION (-5)

/* Job states (job_state()). */
#define HETSIM_JOB_SUBMITTED 0 /* not yet arrived */
#define HETSIM_JOB_QUEUED 1    /* arrived, waiting */
#define HETSIM_JOB_RUNNING 2
#define HETSIM_JOB_PREEMPTED 3 /* stopped before finishing, waiting again */
#define HETSIM_JOB_COMPLETED 4
#define HETSIM_JOB_FAILED 5

/* The simulation, as a plugin sees it: opaque, and valid only during the
 * hook call it is passed to. */
struct hetsim_sim;

/* GPUS GPUs of node NODE. */
struct hetsim_seg {
    int32_t node;
    int32_t gpus;
};

/* GPUs for one job: NSEG segments on distinct nodes of type GPU_TYPE that
 * add up to its num_gpus; more than one segment = spread over nodes. */
struct hetsim_placement {
    int32_t gpu_type;
    int32_t nseg;
    const struct hetsim_seg *seg; /* (nseg) */
};

/* What hetsim offers a plugin. Times are in seconds of simulated time. */
struct hetsim_policy_api {
    uint32_t abi_version; /* HETSIM_POLICY_ABI_VERSION */

    /* The clock and the wait queue (QUEUED and PREEMPTED jobs, in the
     * order they arrived or were preempted; queue_next gives -1 at the
     * end). */
    double (*now)(const struct hetsim_sim *s);
    size_t (*num_jobs)(const struct hetsim_sim *s);
    int32_t (*queue_head)(const struct hetsim_sim *s);
    int32_t (*queue_next)(const struct hetsim_sim *s, uint32_t job);
    size_t (*queue_len)(const struct hetsim_sim *s);

    /* Jobs. est_remaining_s: the run time left by the job's estimate on
     * its current GPU type, or when waiting on its fastest allowed type on
     * one node; -1 when the job has no estimate. attained_s: time run so
     * far. allowed_types: bit t set = it may run on GPU type t. gpu_type:
     * where it runs now or ran last, -1 if never. runtime_on: seconds its
     * whole work takes on TYPE, on one node or SPREAD; 0 = cannot run
     * there that way. gpu_milli: milli-GPUs it asks of each GPU, below
     * 1000 a share of one GPU (with --gpu-sharing), else 1000.
     * est_gpu_util: its estimated GPU utilization in [0, 1] from
     * --estimates (what util-pack packs by), -1 when unknown. (Both since
     * version 2.) */
    double (*job_submit_time)(const struct hetsim_sim *s, uint32_t job);
    int32_t (*job_num_gpus)(const struct hetsim_sim *s, uint32_t job);
    int (*job_state)(const struct hetsim_sim *s, uint32_t job);
    double (*job_est_remaining_s)(const struct hetsim_sim *s, uint32_t job);
    double (*job_attained_s)(const struct hetsim_sim *s, uint32_t job);
    uint32_t (*job_allowed_types)(const struct hetsim_sim *s, uint32_t job);
    int32_t (*job_gpu_type)(const struct hetsim_sim *s, uint32_t job);
    double (*job_runtime_on)(const struct hetsim_sim *s, uint32_t job,
                             int32_t type, int spread);
    int32_t (*job_gpu_milli)(const struct hetsim_sim *s, uint32_t job);
    double (*job_est_gpu_util)(const struct hetsim_sim *s, uint32_t job);

    /* The cluster. speed: relative to the reference type. free_gpus: free
     * GPUs of TYPE in the whole cluster. */
    int32_t (*num_gpu_types)(const struct hetsim_sim *s);
    const char *(*gpu_type_name)(const struct hetsim_sim *s, int32_t type);
    double (*gpu_type_speed)(const struct hetsim_sim *s, int32_t type);
    int32_t (*gpu_type_gpus)(const struct hetsim_sim *s, int32_t type);
    int32_t (*free_gpus)(const struct hetsim_sim *s, int32_t type);
    int32_t (*num_nodes)(const struct hetsim_sim *s);
    int32_t (*node_gpu_type)(const struct hetsim_sim *s, int32_t node);
    int32_t (*node_gpus)(const struct hetsim_sim *s, int32_t node);
    int32_t (*node_free)(const struct hetsim_sim *s, int32_t node);

    /* Decisions. place: GPUs for JOB now by the placement rule the user
     * chose (--placement); HETSIM_OK with *out filled (valid until the next
     * place call), HETSIM_NO_ROOM, or HETSIM_ENOMEM. start: starts waiting
     * JOB on P (copied). preempt: stops running JOB, which waits again at
     * the tail of the queue. wake_at: asks for a schedule call at TIME >=
     * now. Each returns HETSIM_OK or a negative code. */
    int (*place)(struct hetsim_sim *s, uint32_t job,
                 struct hetsim_placement *out);
    int (*start)(struct hetsim_sim *s, uint32_t job,
                 const struct hetsim_placement *p);
    int (*preempt)(struct hetsim_sim *s, uint32_t job);
    int (*wake_at)(struct hetsim_sim *s, double time);
};

/* A parameter the policy takes as --policy-opt NAME=VALUE. */
struct hetsim_policy_param {
    const char *name;
    const char *def;  /* default, as text */
    const char *help; /* one line */
};

/* What create() is given; valid during the call only (copy what you keep,
 * except api, which lives as long as the plugin is loaded). */
struct hetsim_policy_config {
    const struct hetsim_policy_api *api;
    uint64_t seed;             /* --seed */
    int has_estimates;         /* every job has an estimate */
    const char *placement;     /* --placement, as text */
    const char *backfill;      /* --backfill: "none", "easy", ... */
    const char *const *keys;   /* (nopts) --policy-opt KEY=VALUE, checked */
    const char *const *values; /* against params */
    size_t nopts;
    char *error;               /* (error_cap) why create() refused */
    size_t error_cap;
};

/* The plugin's table. Any hook but schedule may be NULL. ctx is the state
 * create() made (NULL if there is no create). on_arrival: JOB has just
 * arrived and waits. on_finish: JOB has just completed. schedule: called
 * once after all events of one instant; returns HETSIM_OK (any value >= 0
 * counts as OK) or the negative code of the first decision that failed,
 * which stops the run. */
struct hetsim_policy_plugin {
    uint32_t abi_version;  /* HETSIM_POLICY_ABI_VERSION: keep it first */
    const char *name;      /* for messages and results */
    const char *description;              /* one line */
    const struct hetsim_policy_param *params; /* NULL name ends; or NULL */
    int needs_estimates;   /* refuse to run without --estimates */
    int preemptive;        /* calls preempt(); --backfill then refused */
    /* HETSIM_OK, HETSIM_ENOMEM, or HETSIM_EINVAL with cfg->error set. */
    int (*create)(const struct hetsim_policy_config *cfg, void **ctx);
    void (*destroy)(void *ctx);
    void (*on_arrival)(void *ctx, const struct hetsim_policy_api *api,
                       struct hetsim_sim *s, uint32_t job);
    void (*on_finish)(void *ctx, const struct hetsim_policy_api *api,
                      struct hetsim_sim *s, uint32_t job);
    int (*schedule)(void *ctx, const struct hetsim_policy_api *api,
                    struct hetsim_sim *s);
};

#if defined(__GNUC__)
#define HETSIM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define HETSIM_PLUGIN_EXPORT
#endif

/* The one symbol a plugin exports; the table it returns must live as long
 * as the plugin is loaded (a static const is the usual way). */
#define HETSIM_POLICY_PLUGIN_SYMBOL "hetsim_policy_plugin"
HETSIM_PLUGIN_EXPORT const struct hetsim_policy_plugin *
hetsim_policy_plugin(void);

#ifdef __cplusplus
}
#endif

#endif
