/* waterfill_internal.h -- shared by fair.c only (and its tests): max-min
 * fair shares of a capacity by water-filling over integer demands. */
#ifndef HETSIM_WATERFILL_INTERNAL_H
#define HETSIM_WATERFILL_INTERNAL_H

#include <stdint.h>

struct pol_waterfill;

/* Shares of CAPACITY (>= 1) units. NULL when out of memory. */
struct pol_waterfill *pol_waterfill_create(int32_t capacity);
void pol_waterfill_destroy(struct pol_waterfill *w);

/* Adds N (< 0: removes) demands of D >= 1 units each. O(log capacity). */
void pol_waterfill_add(struct pol_waterfill *w, int64_t d, int32_t n);

/* The level L where the sum of min(demand, L) over the demands reaches the
 * capacity; INFINITY when all demands fit. A demand's share is
 * min(demand, L). O(log capacity). */
double pol_waterfill_level(const struct pol_waterfill *w);

#endif
