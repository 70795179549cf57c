/* fixtures.h -- clusters and a placement loop that the sim and policies
 * test suites share (tests/test_sim.c, tests/sim/ *.c, tests/policies/ *.c).
 * Defined in fixtures.c, which both executables link. */
#ifndef HETSIM_TESTS_SIM_FIXTURES_H
#define HETSIM_TESTS_SIM_FIXTURES_H

#include "sim.h"

/* K80 (12 GB, half the speed) listed first, P100 (16 GB, the reference):
 * one node of 2 GPUs each. K80 is type 0, P100 type 1; first-fit tries K80
 * first. */
extern const char *const ts_k80_p100;

/* Three nodes: 0 = type A, 2 GPUs; 1 = type A, 4 GPUs; 2 = type B, 2
 * GPUs. Memory not modelled; the sharing tests give them 8, 16 and 8
 * cores. */
extern const char *const ts_three_nodes;

/* The schedule function of a test policy: each waiting job, in queue
 * order, goes to the first node (of the first allowed type) that has room;
 * jobs that fit nowhere wait. Memory-blind. 0, or sim_start's code. */
int ts_first_node_schedule(void *state, struct sim *s);

#endif
