/* passopt.h -- the `hetsim run` options that compare and sweep pass to
 * every run they start (passopt.c): one table, one check, one list. */
#ifndef HETSIM_CLI_PASSOPT_H
#define HETSIM_CLI_PASSOPT_H

#include <getopt.h>
#include <stddef.h>

/* Their getopt_long entries (codes as in run.c's table). */
#define CLI_PASS_LONG_OPTIONS                                                  \
    {"placement", required_argument, NULL, 'L'},                               \
        {"policy-opt", required_argument, NULL, 'O'},                          \
        {"backfill", required_argument, NULL, 'F'},                            \
        {"restart-overhead", required_argument, NULL, 'R'},                    \
        {"round-s", required_argument, NULL, 'W'},                             \
        {"oom-detect-s", required_argument, NULL, 'M'},                        \
        {"on-bad-row", required_argument, NULL, 'B'},                          \
        {"procs-per-gpu", required_argument, NULL, 'G'},                       \
    {                                                                          \
        "strict", no_argument, NULL, 'X'                                       \
    }

/* Their lines of a --help. */
#define CLI_PASS_OPTIONS_HELP                                                  \
    "      --placement P, --policy-opt K=V, --backfill B,\n"                   \
    "      --restart-overhead S, --round-s S, --oom-detect-s S,\n"             \
    "      --on-bad-row R, --procs-per-gpu N, --strict\n"

/* OPT (with ARG) when it is one of them: checked as `hetsim run` checks
 * it (misuse said as CMD's), then its run flag and ARG appended to
 * PASS[*N] (room for CAP). 0; 1 when OPT is not one of them; or an exit
 * code after a message. */
int cli_pass_option(const char *cmd, int opt, const char *arg,
                    const char **pass, size_t *n, size_t cap);

#endif
