/* procpool.h -- at most N `hetsim` children at a time, each with its
 * stderr kept aside: the pool behind `hetsim compare` and `hetsim sweep`. */
#ifndef HETSIM_CLI_PROCPOOL_H
#define HETSIM_CLI_PROCPOOL_H

#include <stddef.h>

#define CLI_POOL_MAX 256 /* children at a time */

struct cli_pool;

/* What one finished child left: the tag it was started with, its waitpid
 * status, and the start of what it wrote to stderr (trailing blanks cut). */
struct cli_pool_done {
    size_t tag;
    int status;
    char text[2048];
};

/* A pool of SLOTS (1..CLI_POOL_MAX) children; NULL when out of memory. */
struct cli_pool *cli_pool_create(size_t slots);
/* Waits for the children still running, then frees P; NULL is a no-op. */
void cli_pool_destroy(struct cli_pool *p);
size_t cli_pool_running(const struct cli_pool *p);
int cli_pool_full(const struct cli_pool *p);
/* Starts this very program (/proc/self/exe) with ARGV (NULL-terminated;
 * ARGV[0] is its name) as a child known by TAG. 0, or -1 with errno set;
 * the pool must not be full. */
int cli_pool_spawn(struct cli_pool *p, const char *const *argv, size_t tag);
/* Waits for one child to end and fills *D. 0, or -1 with errno set (ECHILD
 * when none is running). */
int cli_pool_wait(struct cli_pool *p, struct cli_pool_done *d);
/* Whether the child of D exited with code 0. */
int cli_pool_ok(const struct cli_pool_done *d);
/* -j ARG of command CMD (1..CLI_POOL_MAX) into *JOBS; 0, or CLI_USAGE
 * after saying why. */
int cli_pool_parse_jobs(const char *cmd, const char *arg, long *jobs);
/* `hetsim: error: WHAT: `hetsim CMD` exited with code N: its messages`. */
void cli_pool_report(const char *what, const char *cmd,
                     const struct cli_pool_done *d);

#endif
