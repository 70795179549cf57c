/* lp_internal.h -- the linear programs of the gavel-* policies (gavel.c)
 * behind one function, so that GLPK stays inside lp.c. Shared with the
 * tests and the benchmark, not part of policy.h. */
#ifndef HETSIM_LP_INTERNAL_H
#define HETSIM_LP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* An allocation problem: x[j][t] is the fraction of time job j runs on GPU
 * type t, with 0 <= x[j][t], sum over t of x[j][t] <= 1 for each job, and
 * sum over j of gpus[j] * x[j][t] <= capacity[t] for each type. Job j's
 * work is w_j = sum over t of coef[j][t] * x[j][t], its value v_j = w_j /
 * need[j]. Keep coef of one job within a small range (relative speeds, say)
 * and put the job's scale in need: GLPK's simplex fails on coefficients
 * that span many orders of magnitude. */
struct pol_lp {
    int32_t njobs, ntypes;
    const double *coef;      /* (njobs, ntypes) >= 0; 0 = x[j][t] stays 0 */
    const double *need;      /* (njobs) > 0, or NULL: all 1 */
    const int32_t *gpus;     /* (njobs) GPUs a job uses when it runs */
    const int32_t *capacity; /* (ntypes) GPUs of each type */
};

enum pol_lp_goal {
    /* Maximize min_j v_j over the jobs with a nonzero coefficient; among
     * the allocations that reach that minimum, maximize sum_j w_j (so that
     * GPUs the bottleneck jobs cannot use are not left idle). */
    POL_LP_MAX_MIN,
    /* Maximize sum_j w_j (need is not used). */
    POL_LP_MAX_SUM,
};

/* Solves LP for GOAL with GLPK's simplex. Fills X (njobs * ntypes, row j
 * for job j) and *value: min_j v_j for POL_LP_MAX_MIN, sum_j w_j for
 * POL_LP_MAX_SUM. Returns 0, SIM_ENOMEM, or SIM_EINVAL with WHY (CAP bytes)
 * saying how the solver failed. */
int pol_lp_solve(const struct pol_lp *lp, enum pol_lp_goal goal, double *x,
                 double *value, char *why, size_t cap);

/* A max-sum solver that starts each solve from the previous one's basis
 * (lp_warm.c): the same X as pol_lp_solve, which it calls whenever it
 * cannot prove its optimum is the only one. IDS[j] names job j across
 * solves (small integers: arrays are indexed by them). */
struct pol_lp_warm;
struct pol_lp_warm *pol_lp_warm_create(void);
void pol_lp_warm_destroy(struct pol_lp_warm *w);
int pol_lp_solve_warm(struct pol_lp_warm *w, const struct pol_lp *lp,
                      const uint32_t *ids, double *x, double *value, char *why,
                      size_t cap);
/* Solves whose seeded basis GLPK rejected (each then started again from
 * the slack basis): none, with the basis mended. */
uint32_t pol_lp_warm_rejected(const struct pol_lp_warm *w);

#endif
