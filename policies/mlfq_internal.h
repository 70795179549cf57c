/* mlfq_internal.h -- shared by tiresias.c and gittins.c only: Tiresias'
 * discretized priority queues on attained GPU-time (mlfq.c), and the
 * empirical distribution of finished jobs' GPU-time behind the Gittins
 * index (gittins.c). The rules are in mlfq.c and gittins.c. */
#ifndef HETSIM_MLFQ_INTERNAL_H
#define HETSIM_MLFQ_INTERNAL_H

#include "policy.h"

#define MLFQ_MAX_QUEUES 32

/* The parameters every discretized policy takes (tiresias, gittins). */
#define MLFQ_PARAMS                                                        \
    {"queues", "3", "number of priority queues K, 1 to 32 (Tiresias "      \
                    "simulator: 3)"},                                      \
    {"thresholds", "3250,7200,18000",                                      \
     "attained GPU-seconds at which a job leaves queue 1, 2, ... (K-1 "    \
     "increasing values; the default's first K-1 when left as it is)"},   \
    {"starvation_factor", "0",                                             \
     "promote a waiting job to the first queue once it has waited this "   \
     "many times its run time since it last entered it (0 = never)"}

/* Why a job's place in its queue is asked for: it has just entered the
 * queue (arrival, demotion, promotion), or it was preempted and waits
 * again in the queue it was in. */
enum mlfq_why { MLFQ_ENTERED, MLFQ_PREEMPTED };

/* What a key function is told about a job. */
struct mlfq_at {
    enum mlfq_why why;
    int32_t queue;
    double gpu_s;   /* attained GPU-seconds in all (restart overheads too) */
    double quantum; /* GPU-seconds left before it leaves its queue;
                       INFINITY in the last queue */
};

/* A job's place in its queue, lower first: a number in [0, 2^40); larger
 * values, INFINITY and NaN count as the last place. OLD is its previous
 * key (0 for a new job). Ties go to the earlier arrival. */
typedef double (*mlfq_key_fn)(void *ctx, const struct sim *s, uint32_t job,
                              const struct mlfq_at *at, double old);

struct mlfq;

/* Queues with the options queues, thresholds and starvation_factor of CFG
 * (MLFQ_PARAMS), ordering each queue by KEY (CTX is handed to it). 0,
 * SIM_ENOMEM, or SIM_EINVAL with cfg->error set. */
int mlfq_create(const struct pol_config *cfg, mlfq_key_fn key, void *ctx,
                struct mlfq **out);

/* NULL is a no-op. The hooks below are the policy's, as pol_preempt_*'s;
 * schedule returns SIM_ENOMEM when an arrival could not be recorded. */
void mlfq_destroy(struct mlfq *q);
void mlfq_arrival(struct mlfq *q, struct sim *s, uint32_t job);
void mlfq_finish(struct mlfq *q, struct sim *s, uint32_t job);
int mlfq_schedule(struct mlfq *q, struct sim *s);

/* ---- The empirical distribution of GPU-time (gittins.c) ------------------ */

struct gittins_dist;

struct gittins_dist *gittins_dist_create(void); /* NULL: no memory */
void gittins_dist_destroy(struct gittins_dist *d);

/* Adds a finished job's GPU-seconds X (> 0). 0 or SIM_ENOMEM. */
int gittins_dist_add(struct gittins_dist *d, double x);

/* How many samples queries see now (refreshes lag, see gittins.c). */
size_t gittins_dist_count(const struct gittins_dist *d);

/* 1 / G(A, DELTA), the reciprocal of the Gittins index of a job that has
 * attained A GPU-seconds, for a quantum of DELTA more (INFINITY: all it
 * needs): E[min(S - A, DELTA) | S > A] / P(S - A <= DELTA | S > A) over the
 * samples S. INFINITY when no sample exceeds A or none ends within DELTA
 * (index 0). O(log n). */
double gittins_dist_rank(const struct gittins_dist *d, double a,
                         double delta);

#endif
