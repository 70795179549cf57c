/* policy.h -- scheduling policies: the ops table each policy exports, the
 * registry that names them, and the placement rules they share.
 *
 * A policy orders jobs; a placer chooses GPUs for one job. Both read the
 * engine through the view of sim.h and act only through sim_start(). */
#ifndef HETSIM_POLICY_H
#define HETSIM_POLICY_H

#include <stddef.h>

#include "sim.h"

/* One policy: a table of functions and a state hidden behind void *. */
struct pol_ops {
    const char *name;
    const char *description; /* one line, for `hetsim policies` */
    /* Makes the policy's state for cluster C. 0 or SIM_ENOMEM. */
    int (*create)(const struct cluster *c, void **state);
    void (*destroy)(void *state);
    void (*on_arrival)(void *state, struct sim *s, uint32_t job);
    void (*on_finish)(void *state, struct sim *s, uint32_t job);
    int (*schedule)(void *state, struct sim *s);
};

/* The policy called NAME, or NULL. */
const struct pol_ops *pol_find(const char *name);

/* Policy i of the registry, or NULL past the last one. */
const struct pol_ops *pol_at(size_t i);

/* Creates the state of OPS for cluster C and fills the engine's hooks.
 * 0 or SIM_ENOMEM. Undo with pol_unbind(). */
int pol_bind(const struct pol_ops *ops, const struct cluster *c,
             struct sim_policy *out);
void pol_unbind(const struct pol_ops *ops, struct sim_policy *p);

/* ---- Placement ---------------------------------------------------------- */

struct pol_placer;

/* A placer for cluster C (borrowed), or NULL when out of memory. */
struct pol_placer *pol_placer_create(const struct cluster *c);
void pol_placer_destroy(struct pol_placer *pl);

/* The "fastest" rule: among the placements JOB could get now, the one that
 * runs it soonest done -- the fewest seconds per unit of work of its class
 * (sim_class_spec) on an allowed GPU type, one node or spread. Ties go to
 * the type listed first, then to one node over several. On one node: the
 * lowest-numbered node with room. Over several: nodes in index order, each
 * filled as far as it goes.
 * Returns 0 and fills *out (valid until the next call), 1 when nothing fits
 * now, or SIM_ENOMEM. */
int pol_place_fastest(struct pol_placer *pl, const struct sim *s,
                      uint32_t job, struct sim_placement *out);

#endif
