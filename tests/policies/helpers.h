/* helpers.h -- small helpers shared by the policies test suite
 * (tests/test_policies.c and tests/policies/ *.c): building a cluster from
 * JSON text, adding a job, splitting a "key=value" option, and binding and
 * running a policy. Defined in helpers.c. */
#ifndef HETSIM_TESTS_POLICIES_HELPERS_H
#define HETSIM_TESTS_POLICIES_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* The cluster JSON describes (parsed under the name "test"); asserts it
 * parses. */
struct cluster *th_cluster(const char *json);

/* Adds a job of class 0, id the next one, of WORK seconds on the reference
 * type that policies believe takes EST (0 = no estimate); asserts it is
 * accepted. */
void th_add(struct sim *s, double submit, double work, double est, int gpus,
            uint32_t allowed);

/* The built-in policy NAME; asserts there is one. */
const struct pol_ops *th_find(const char *name);

/* Splits OPT ("key=value") into KEY and VALUE. */
void th_split_opt(const char *opt, char *key, size_t kcap, char *value,
                  size_t vcap);

/* Binds OPS with CFG; when that works, runs S to the end under it, with
 * observer OBS (may be NULL), and asserts the run succeeds. Unbinds either
 * way. Returns pol_bind's code; its message is in CFG's error buffer. */
int th_bind_run(struct sim *s, const struct pol_ops *ops,
                struct pol_config *cfg, const struct sim_observer *obs);

/* Expects every job of S to have finished at FINISH[j] (within 1e-9) after
 * PREEMPTIONS[j] preemptions. */
void th_expect_finish(const struct sim *s, const double *finish,
                      const int *preemptions);

#endif
