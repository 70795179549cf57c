/* place_internal.h -- shared by place.c and place_rules.c only: the placer's
 * state and the helpers every placement rule uses. */
#ifndef HETSIM_PLACE_INTERNAL_H
#define HETSIM_PLACE_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "policy.h"

struct candidate {
    double unit_s;  /* seconds per unit of work there: lower is faster */
    int32_t type;
    int32_t spread; /* 0 = one node, 1 = several */
};

/* The placements of one job class, fastest first (ties: type listed first,
 * then one node before spread). */
struct ranking {
    struct candidate cand[2 * SIM_MAX_GPU_TYPES];
    int32_t ncand;
    int built;
};

struct pol_placer {
    const struct cluster *cluster;
    enum pol_placement kind;
    uint64_t seed;
    struct ranking *by_class; /* (nclasses), built on first use */
    int32_t nclasses;
    struct sim_seg *segs;     /* (segs_cap) the placement handed out */
    size_t segs_cap;
    int32_t *order;           /* (most nodes of one type) scratch node list */
    int32_t *count;           /* (most GPUs on one node + 2) scratch */
    int32_t most_per_node[SIM_MAX_GPU_TYPES]; /* GPUs of its largest node */
    gsl_rng *rng;             /* `random` only, else NULL */
    int mem_aware;
    double mem_margin;
    uint32_t allowed;         /* types the job being placed may use */
    struct pol_sharer *sharer; /* sharing placements, or NULL */
    struct share_alloc alloc;  /* the share handed out */
};

/* The ranking of class CLS, built the first time; NULL when out of
 * memory. */
const struct ranking *pol_place_ranking(struct pol_placer *pl,
                                        const struct sim *s, int32_t cls);

/* Makes room for N segments in pl->segs. 0 or SIM_ENOMEM. */
int pol_place_reserve(struct pol_placer *pl, size_t n);

/* Fills the nodes of TYPE in index order until NEED GPUs are found, into
 * pl->segs; the number of nodes used, or 0 when they do not add up to NEED
 * or would fit on one node (that is not a spread). O(nodes of TYPE). */
int32_t pol_place_spread_in_order(struct pol_placer *pl, const struct sim *s,
                                  int32_t type, int32_t need);

/* The rules of place_rules.c, with pol_place's contract; pl->segs already
 * holds room for the job's num_gpus segments. */
int pol_place_consolidate(struct pol_placer *pl, const struct sim *s,
                          uint32_t job, struct sim_placement *out);
int pol_place_first_fit(struct pol_placer *pl, const struct sim *s,
                        uint32_t job, struct sim_placement *out);
int pol_place_best_fit(struct pol_placer *pl, const struct sim *s,
                       uint32_t job, struct sim_placement *out);
int pol_place_random(struct pol_placer *pl, const struct sim *s, uint32_t job,
                     struct sim_placement *out);

#endif
