/* check_internal.h -- what the files of `hetsim check` share: its options,
 * and the figures read from a result (check_read.c). */
#ifndef HETSIM_CLI_CHECK_INTERNAL_H
#define HETSIM_CLI_CHECK_INTERNAL_H

#include <stddef.h>

#define CHECK_MAX_FILE (64u << 20)
#define CHECK_MAX_KEYS 64

struct check_args {
    const char *baseline, *write, *result;
    double tolerance; /* NaN: not given */
    const char *keys[CHECK_MAX_KEYS];
    size_t nkeys;
    char keybuf[4096];
    int quiet, json;
};

/* Named figures, in the order read. */
struct figures {
    char **name;
    double *value;
    size_t n, cap;
};

/* Appends figure NAME = V; -1 when out of memory. */
int check_fig_add(struct figures *f, const char *name, double v);
void check_fig_free(struct figures *f);
/* Whether figure NAME is among --keys (by its column; all when none). */
int check_wanted(const struct check_args *a, const char *name);
/* Says "out of memory"; returns CLI_FAILURE. */
int check_oom(void);
/* The figures of a->result (summary.json, or a sweep.csv by its name)
 * that --keys wants. CLI_OK, CLI_BAD_INPUT or CLI_FAILURE after saying
 * why. */
int check_read_result(const struct check_args *a, struct figures *f);

#endif
