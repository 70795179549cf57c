/* policy.h -- scheduling policies: the ops table each policy exports, the
 * registry that names them, their options, and the placement rules.
 *
 * As in Blox, a decision is split three ways: an ordering policy (which job
 * next), a placement (which GPUs), and preemption. Policies read the engine
 * through the view of sim.h and act only through sim_start() and
 * sim_preempt(), which validate every decision. */
#ifndef HETSIM_POLICY_H
#define HETSIM_POLICY_H

#include <stddef.h>

#include "sim.h"

/* A parameter a policy takes as --policy-opt KEY=VALUE. */
struct pol_param {
    const char *name;
    const char *def;  /* default, as text */
    const char *help; /* one line, for `hetsim policies --verbose` */
};

enum pol_placement {
    POL_PLACE_FASTEST,     /* fewest seconds for the job (default) */
    POL_PLACE_CONSOLIDATE, /* fewest nodes, then fastest */
    POL_PLACE_FIRST_FIT,   /* types in cluster order, lowest node first */
    POL_PLACE_BEST_FIT,    /* the node left with the fewest free GPUs */
    POL_PLACE_RANDOM,      /* a random type and node with room (seeded) */
    POL_PLACE_COUNT
};

/* greedy: every waiting job that fits now starts, in the policy's order,
 * with no reservation for a blocked one (what `hetsim share` did). */
enum pol_backfill { POL_BACKFILL_NONE, POL_BACKFILL_EASY,
                    POL_BACKFILL_CONSERVATIVE, POL_BACKFILL_GREEDY };

#define POL_NO_GROUP UINT32_MAX /* a job in no group: a group of its own */

/* Resources with peak and burst usage (the native trace's columns). */
enum pol_usage { POL_USE_GPU_UTIL, POL_USE_GPU_MEM_UTIL, POL_USE_GPU_MEM,
                 POL_USE_CPU_UTIL, POL_USAGE_N };

/* What a policy is made with. */
struct pol_config {
    const struct cluster *cluster;
    enum pol_placement placement;
    int mem_aware;            /* placements keep jobs off GPU types whose
                                 memory is below est_mem_mb * (1 + margin) */
    double mem_margin;
    enum pol_backfill backfill;
    uint64_t seed;
    int has_estimates;        /* every job has est_work > 0 */
    const double *deadlines;  /* (njobs) by job id, s since trace start;
                                 NULL = none; NaN or < 0 = this job none */
    const uint32_t *groups;   /* (njobs) by job id, its group (fair's vc or
                                 user) in [0, ngroups), or POL_NO_GROUP;
                                 NULL = none; borrowed for the run */
    size_t ngroups;
    const double *usage;      /* (njobs * 2 * POL_USAGE_N) by job id: peak
                                 then burst of each enum pol_usage, as
                                 measured on the reference type; NAN
                                 unknown; NULL = none (max-efficiency) */
    const char *const *keys;  /* (nopts) from --policy-opt KEY=VALUE */
    const char *const *values;
    size_t nopts;
    const struct pol_param *params; /* the policy's, set by pol_bind */
    /* GPU sharing (sim_enable_sharing): when set, every placer places by
     * SHARE_RULE on the engine's milli-GPU cluster, SHARE_W being fgd's
     * target workload (borrowed for the run). */
    int sharing;
    int share_rule; /* enum pol_share_rule */
    const struct share_workload *share_w;
    char *error;              /* (error_cap) why create() refused */
    size_t error_cap;
};

/* One policy: a table of functions and a state hidden behind void *. */
struct pol_ops {
    const char *name;
    const char *description;        /* one line, for `hetsim policies` */
    const struct pol_param *params; /* ends with a NULL name; may be NULL */
    int needs_estimates;
    int preemptive;                 /* --backfill applies only if not */
    /* Makes the state. 0, SIM_ENOMEM, or SIM_EINVAL with cfg->error set. */
    int (*create)(const struct pol_config *cfg, void **state);
    void (*destroy)(void *state);
    void (*on_arrival)(void *state, struct sim *s, uint32_t job);
    void (*on_finish)(void *state, struct sim *s, uint32_t job);
    int (*schedule)(void *state, struct sim *s);
};

/* The policy called NAME, or NULL. */
const struct pol_ops *pol_find(const char *name);

/* Policy i of the registry, or NULL past the last one. */
const struct pol_ops *pol_at(size_t i);

/* Checks CFG against OPS (unknown option keys, estimates a policy needs,
 * --backfill on a preemptive policy), creates the state and fills the
 * engine's hooks. 0, SIM_ENOMEM, or SIM_EINVAL with cfg->error naming the
 * policy and what is wrong. Undo with pol_unbind(). */
int pol_bind(const struct pol_ops *ops, struct pol_config *cfg,
             struct sim_policy *out);
void pol_unbind(const struct pol_ops *ops, struct sim_policy *p);

/* Option KEY of CFG (the user's value, else the parameter's default) as a
 * number in [MIN, MAX], or as text. 0, or SIM_EINVAL with cfg->error set. */
int pol_opt_double(const struct pol_config *cfg, const char *key, double min,
                   double max, double *out);
int pol_opt_string(const struct pol_config *cfg, const char *key,
                   const char **out);

/* Sets cfg->error (printf style) and returns SIM_EINVAL. */
int pol_refuse(const struct pol_config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Names of placements and backfill modes, and back (-1 if unknown). */
const char *pol_placement_name(enum pol_placement p);
int pol_placement_parse(const char *name);
int pol_backfill_parse(const char *name);

/* JOB's estimated run time left, in seconds: (est_work - work done) times
 * the seconds per unit of work where it runs now, or when waiting on its
 * fastest allowed GPU type on one node; never below 0. Requires est_work. */
double pol_est_remaining_s(const struct sim *s, uint32_t job);

/* ---- Placement ---------------------------------------------------------- */

struct pol_placer;

/* A placer using rule KIND on cluster C (borrowed); SEED drives `random`.
 * NULL when out of memory. */
struct pol_placer *pol_placer_create(const struct cluster *c,
                                     enum pol_placement kind, uint64_t seed);
void pol_placer_destroy(struct pol_placer *pl);

/* A placer as CFG asks: its rule, seed, and mem-aware margin. */
struct pol_placer *pol_placer_for(const struct pol_config *cfg);

/* Makes PL mem-aware (pol_mem_types) with MARGIN >= 0. */
void pol_placer_mem_aware(struct pol_placer *pl, double margin);

/* The GPU types of ALLOWED whose memory_mb holds JOB's estimated memory
 * need times 1 + MARGIN (all of ALLOWED when the estimate is 0, unknown);
 * when none does, those of ALLOWED with the most memory, so that a job
 * whose estimate exceeds every type still runs somewhere. */
uint32_t pol_mem_types(const struct sim *s, uint32_t job, uint32_t allowed,
                       double margin);

/* GPUs for JOB now, by the placer's rule. Every rule keeps a job on one GPU
 * type, on allowed types its class can run on, and spreads it over nodes
 * only when no single node of that type has room. "fastest": among the
 * placements the job could get now, the fewest seconds per unit of work of
 * its class (sim_class_spec), one node or spread; ties to the type listed
 * first, then to one node. On one node: the lowest-numbered node with room;
 * over several: nodes in index order, each filled as far as it goes.
 * The other rules take one node of any type before they spread ("faster":
 * the class's seconds per unit of work, then the type listed first), and
 * a spread fills each node as far as it goes. "consolidate": the fastest
 * type with room on one node, there the node left with the fewest free
 * GPUs (then the lowest index); else the type whose spread needs the
 * fewest nodes (then the faster), nodes with the most free GPUs first.
 * "first-fit": types in cluster order, the lowest-numbered node with room;
 * else the first type that can spread, nodes in index order. "best-fit":
 * over all types, the node left with the fewest free GPUs (then the faster
 * type, the lower index); else the type left with the fewest free GPUs,
 * nodes with the fewest free GPUs first. "random" (seeded): a uniformly
 * random type that can host the job now, there a uniformly random node
 * with room, else nodes in a random order. A mem-aware placer first drops
 * the types pol_mem_types rules out. Cost: place_rules.c.
 * Returns 0 and fills *out (valid until the next call), 1 when nothing fits
 * now, or SIM_ENOMEM. */
int pol_place(struct pol_placer *pl, const struct sim *s, uint32_t job,
              struct sim_placement *out);

/* The same on GPU_TYPE only (1 also when JOB may not use it); the policy
 * chose the type, so mem-aware does not rule it out here. */
int pol_place_on(struct pol_placer *pl, const struct sim *s, uint32_t job,
                 int32_t gpu_type, struct sim_placement *out);

/* ---- Placing pods on shared GPUs (share_place.c) ------------------------ */

/* Where a pod of struct share_demand goes, by the rules the FGD paper
 * compares (Weng et al., ATC'23, section 6.1); each takes one node that
 * can host the pod, ties to the lowest node, then the lowest GPU:
 *   fgd:         the node and GPU whose placement raises the cluster's
 *                fragmentation against the workload the least;
 *   best-fit:    the node left with the least free resources (sum over
 *                modelled dimensions of free / capacity), there the GPU
 *                with the least free share that still holds the pod;
 *   dot-product: the node and GPU whose free resources align best with the
 *                demand (Tetris, Grandl et al., SIGCOMM'14: the largest
 *                sum of demand x free, each over capacity; the GPU term
 *                is the candidate GPU's free share for a share);
 *   first-fit:   the first node, its first GPU that holds the pod;
 *   random:      a uniformly random node that can host it (seeded), there
 *                a uniformly random GPU that holds it.
 * Whole GPUs are always the node's lowest-numbered fully free ones. */
enum pol_share_rule { POL_SHARE_FGD, POL_SHARE_BEST_FIT,
                      POL_SHARE_DOT_PRODUCT, POL_SHARE_FIRST_FIT,
                      POL_SHARE_RANDOM, POL_SHARE_COUNT };

const char *pol_share_rule_name(enum pol_share_rule r);
int pol_share_rule_parse(const char *name); /* -1 if unknown */

struct pol_sharer;

/* A placer by RULE; W (borrowed) is fgd's target workload (may be NULL for
 * the others), SEED drives random. NULL when out of memory. */
struct pol_sharer *pol_sharer_create(enum pol_share_rule rule,
                                     const struct share_workload *w,
                                     uint64_t seed);
void pol_sharer_destroy(struct pol_sharer *p);

/* Chooses where D goes on SC now: 0 with *out filled, or 1 when no node
 * can host it. Does not take the resources (share_take does). */
int pol_share_place(struct pol_sharer *p, const struct share_cluster *sc,
                    const struct share_demand *d, struct share_alloc *out);

/* ---- Non-preemptive list scheduling (listsched.c) ------------------------ */

/* A non-preemptive policy is a key: waiting jobs start in increasing key
 * order (ties by arrival); the first one that cannot be placed blocks the
 * rest, unless cfg->backfill lets later jobs start around it. KEY is read
 * once, when the job arrives. */
typedef double (*pol_key_fn)(const struct sim *s, uint32_t job);

struct pol_list;
int pol_list_create(const struct pol_config *cfg, pol_key_fn key,
                    struct pol_list **out);
void pol_list_destroy(struct pol_list *l);
void pol_list_arrival(struct pol_list *l, struct sim *s, uint32_t job);
int pol_list_schedule(struct pol_list *l, struct sim *s);

/* ---- Plugins (plugin.c; the ABI: include/hetsim/policy_abi.h) ------------ */

/* Loads the policy plugin at PATH (a bare name is taken in the current
 * folder) and sets *out to its ops, valid for the life of the process; the
 * same file loaded twice gives the same ops. 0, or SIM_EIO (no such file),
 * SIM_EPARSE (not a shared object, no hetsim_policy_plugin(), another ABI
 * version, a broken table) or SIM_EINVAL (too many plugins), with WHY (CAP
 * bytes) saying so, naming the file. */
int pol_load_plugin(const char *path, const struct pol_ops **out, char *why,
                    size_t cap);

/* Opens FILE, a module built with the hetsim program (hetsim_embed.so,
 * hetsim_mpi.so), found beside the program or one folder up, into the
 * global scope, and returns its symbol ENTRY with the module's PATH (CAP
 * PATH_CAP). NULL with WHY (CAP bytes): "NEEDS FILE, built with the hetsim
 * program and kept beside it: not found in DIR", dlopen's error, or "PATH
 * is not WHAT of this hetsim program (rebuild both)" without ENTRY. */
void *pol_open_module(const char *file, const char *entry, const char *needs,
                      const char *what, char *path, size_t path_cap, char *why,
                      size_t cap);

/* The same for a table made in this process (e.g. by the Python embedding,
 * python/): PI (borrowed, alive for the life of the process) goes through
 * the same adapter and api as a loaded plugin. Registering PI again refills
 * its slot (its params may have changed). 0, or SIM_EINVAL with WHY. */
struct hetsim_policy_plugin;
struct hetsim_sim;
int pol_plugin_register(const struct hetsim_policy_plugin *pi,
                        const struct pol_ops **out, char *why, size_t cap);

/* Stops the run from inside a hook of such a policy, with WHY (copied) as
 * its error; returns HETSIM_EDECISION for the hook to return. */
int pol_plugin_fail(struct hetsim_sim *view, const char *why);

/* ---- Preemptive priority scheduling (preemptive.c) ----------------------- */

/* A preemptive policy is a priority: JOB's now, lower = more urgent (ties by
 * arrival, then id). A waiting job's must not change while it waits; a
 * running job's moves at *RATE per second (preset 0). Either holds until
 * *UNTIL (preset INFINITY; later than now), when it is asked again. It must
 * not jump when the job starts. The rule is in preemptive.c. */
typedef double (*pol_prio_fn)(void *ctx, const struct sim *s, uint32_t job,
                              double *rate, double *until);
/* After each pass: when to look again (INFINITY: not before an event). */
typedef double (*pol_repass_fn)(void *ctx, const struct sim *s);

/* CTX goes to PRIO and REPASS (which may be NULL); 0 or SIM_ENOMEM. PRIO
 * is NULL only for las, whose priority the scheduler computes itself
 * (preempt_internal.h). */
struct pol_preempt;
int pol_preempt_create(const struct pol_config *cfg, pol_prio_fn prio,
                       pol_repass_fn repass, void *ctx,
                       struct pol_preempt **out);
void pol_preempt_destroy(struct pol_preempt *p);
void pol_preempt_arrival(struct pol_preempt *p, struct sim *s, uint32_t job);
void pol_preempt_finish(struct pol_preempt *p, struct sim *s, uint32_t job);
int pol_preempt_schedule(struct pol_preempt *p, struct sim *s);

#endif
