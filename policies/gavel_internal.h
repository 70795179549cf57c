/* gavel_internal.h -- the order of a round of gavel.c's policies, for its
 * tests. */
#ifndef HETSIM_GAVEL_INTERNAL_H
#define HETSIM_GAVEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* A job and a GPU type its allocation gives time on, in a round. */
struct gavel_pair {
    double prio; /* its share over the rounds it got, or INFINITY */
    double x;    /* its share of time on the type, from the LP */
    uint32_t job;
    int32_t type;
};

/* Sorts A[0, N) in the round's order, a total one: higher prio first,
 * then the larger x, then by job and type; TMP holds N more pairs. */
void pol_gavel_sort_pairs(struct gavel_pair *a, struct gavel_pair *tmp,
                          size_t n);

#endif
