/* listsched_internal.h -- shared by the list scheduler (listsched.c), the
 * policies built on it, and backfilling (backfill.c); policies module only.
 */
#ifndef HETSIM_LISTSCHED_INTERNAL_H
#define HETSIM_LISTSCHED_INTERNAL_H

#include "policy.h"

/* Queues JOB with KEY given by the caller instead of the list's key
 * function (for keys that need the policy's state, such as edf's
 * deadlines). A list created with a NULL key function takes only these. */
void pol_list_push(struct pol_list *l, uint32_t job, double key);

/* ---- Backfilling (backfill.c) -------------------------------------------
 *
 * One pass: pol_bf_begin() with the blocked head, then pol_bf_offer() for
 * each later waiting job in key order while pol_bf_more() says so. The rules
 * are in backfill.c. */

struct pol_bf;

/* Backfilling in MODE (not NONE) on cluster C (borrowed); NULL when out of
 * memory. */
struct pol_bf *pol_bf_create(const struct cluster *c, enum pol_backfill mode);
void pol_bf_destroy(struct pol_bf *bf);

/* Tells BF that the list scheduler started JOB (it tracks the running jobs
 * whose estimated ends shape the reservations). */
void pol_bf_started(struct pol_bf *bf, const struct sim *s, uint32_t job);

/* Starts a pass: the profile of free GPUs per type over time, and the
 * blocked HEAD's reservation. 1 when the pass may start something, 0 when
 * no GPU is free now, or SIM_ENOMEM. */
int pol_bf_begin(struct pol_bf *bf, const struct sim *s, uint32_t head);

/* Offers waiting JOB, next in key order: starts it through PL when the mode
 * allows, else (conservative) reserves it. 1 started, 0 not, or a negative
 * SIM_E* code. */
int pol_bf_offer(struct pol_bf *bf, struct pol_placer *pl, struct sim *s,
                 uint32_t job);

/* 1 while the pass may go on: some GPU is free now, and (conservative)
 * fewer than POL_BF_DEPTH jobs have been looked at. */
int pol_bf_more(struct pol_bf *bf, const struct sim *s);

#endif
