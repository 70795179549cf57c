/* gavel_sim_internal.h -- the state of the gavel:* policies (Gavel's own
 * simulator, rule for rule; gavel_sim.c), shared with the file that
 * computes their allocations (gavel_sim_alloc.c). Not part of policy.h. */
#ifndef HETSIM_GAVEL_SIM_INTERNAL_H
#define HETSIM_GAVEL_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ipm.h"
#include "policy.h"

/* Gavel's policies (scheduler/policies/ at commit c4fa400). */
enum gs_kind {
    GS_FIFO,      /* FIFOPolicy, mode 'base' ("FIFO") */
    GS_FIFO_PERF, /* FIFOPolicyWithPerf ("FIFO_Perf") */
    GS_MMF,       /* MaxMinFairnessPolicy ("MaxMinFairness") */
    GS_MMF_PERF,  /* MaxMinFairnessPolicyWithPerf */
    GS_MTD_PERF,  /* MinTotalDurationPolicyWithPerf */
    GS_FTF_PERF,  /* FinishTimeFairnessPolicyWithPerf */
};

#define GS_MAX_FAILURES 5 /* Gavel's MAX_FAILED_ATTEMPTS */

struct gs {
    enum gs_kind kind;
    const struct cluster *c;
    int32_t nt;
    double round_s, reset_s;
    int fifo_bug, split_fail, hold_unallocated;
    double ftf_tol; /* finish_time_fairness_perf's bisection tolerance */
    int32_t order[SIM_MAX_GPU_TYPES]; /* Gavel's type order: v100, p100, k80,
                                         then other types */
    int32_t alpha[SIM_MAX_GPU_TYPES]; /* types by lower-case name */
    struct sim_pyrand shuffler;       /* random.Random(seed + 5) */
    struct sim_pyrand fifo_rng;       /* FIFOPolicy's random.Random(seed) */

    /* per job (njobs), or per job and type (njobs * nt) */
    int64_t *steps_done;
    double *jt;    /* _job_time_so_far */
    double *def;   /* _deficits */
    double *alloc; /* the allocation of the last recompute */
    double *prio;  /* _priorities */
    double *thr;   /* consolidated steps/s; 0 = cannot run there */
    uint8_t *in_alloc, *failures, *gone;
    int32_t *fifo_type; /* FIFOPolicy's persistent allocation, or -1 */
    int32_t *planned;   /* type of this placement pass, or -1 */
    int64_t *round_n;   /* steps of its micro-task this round */
    double *round_finish;

    double worker_time[SIM_MAX_GPU_TYPES]; /* _worker_time_so_far */
    double last_reset;
    int need_update;
    double prev_round_end; /* current_round_start_time */
    double round_end;
    int in_round;

    uint32_t *active; /* added jobs by arrival (_jobs' order) */
    size_t nactive;
    uint32_t *pending; /* arrived, added at the next round's start */
    size_t npending;
    uint32_t *round; /* jobs running this round */
    size_t nround;
    size_t njobs, cursor; /* cursor: first job id maybe not arrived yet */
    struct sim_seg *seg;  /* (nnodes) */
    void *scratch;        /* sort entries (nactive * nt) */
    size_t scratch_cap;
    int oom;
};

/* Recomputes the allocation of the active jobs (Gavel's
 * _compute_allocation) into g->alloc and g->in_alloc. 0, SIM_ENOMEM, or
 * the code of sim_fail when the LP solver fails. */
int gs_compute_allocation(struct gs *g, struct sim *s);

/* The engine hooks (gavel_sim.c), for the ops tables (gavel_sim_ops.c). */
int gs_schedule(void *state, struct sim *s);
void gs_arrival(void *state, struct sim *s, uint32_t job);
void gs_destroy(void *state);

/* min_total_duration_perf's allocation (gavel_sim_mtd.c); same returns. */
/* The active jobs into OUT (room for nactive), by id. */
void gs_active_by_id(const struct gs *g, uint32_t *out);
/* Row i of the LP solution X (m x nt, types alphabetical) clipped to
 * [0, 1] as job JOBS[i]'s allocation, as Gavel clips its x. */
void gs_set_alloc(struct gs *g, const uint32_t *jobs, size_t m,
                  const double *x);
int gs_mtd_allocation(struct gs *g, struct sim *s);

/* max_min_fairness's allocation (gavel_sim_mmf.c); same returns. */
int gs_mmf_allocation(struct gs *g, struct sim *s);

/* finish_time_fairness_perf's allocation (gavel_sim_ftf.c); same returns. */
int gs_ftf_allocation(struct gs *g, struct sim *s);

/* The feasibility LP of min_total_duration_perf and
 * finish_time_fairness_perf (gavel_sim_feas.c): m jobs, nt types, capacity
 * gpus (nt), scale factors sf (m), throughputs thr (m * nt, job by job),
 * types in name order. gs_feas_solve asks for sum_t thr[i][t] x[i][t] >=
 * need[i] (m) and returns ipm_solve's status (IPM_OK: x (m * nt) is a
 * feasible point) or -1 (memory). */
struct gs_feas {
    struct ipm_lp lp;
    size_t m, nt;
    size_t *row, *col;
    double *val, *b, *c;
};
/* The active jobs' data, JOBS (nactive) in the LP's order: capacity gpus
 * (nt), steps left (m), sf (m) and thr (m * nt), types in name order. */
void gs_feas_data(const struct gs *g, const struct sim *s, const uint32_t *jobs,
                  double *gpus, double *left, double *sf, double *thr);
int gs_feas_init(struct gs_feas *d, size_t m, size_t nt, const double *gpus,
                 const double *sf, const double *thr);
int gs_feas_solve(struct gs_feas *d, const double *need, double *x);
void gs_feas_free(struct gs_feas *d);

/* finish_time_fairness_perf's search (gavel_sim_ftf.c), on d's LP: the
 * least R, within tol, for which every job i can have
 *     rho_i = (since[i] + left[i] / (thr_i . x_i)) / iso[i] <= R,
 * iso[i] being job i's finish time (since its arrival) in isolation, i.e.
 * thr_i . x_i >= left[i] / (R iso[i] - since[i]) (iso[i] = +inf: no such
 * bound), by bisection over (max_i since[i] / iso[i], 1]. Returns 1
 * with *r = R and the point in x when some R < 1 is feasible, 0 when none
 * is (x untouched; R = 1 is the isolated allocation's), or -1 (memory). */
int gs_ftf_search(struct gs_feas *d, const double *left, const double *since,
                  const double *iso, double tol, double *x, double *r);

#endif
