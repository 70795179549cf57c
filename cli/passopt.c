/* passopt.c -- the `hetsim run` options that compare and sweep pass on to
 * their runs, checked here so that misuse exits 2 before anything runs. */
#include <stddef.h>

#include "cli.h"
#include "passopt.h"

/* The `hetsim run` flag of OPT, or NULL when it is not passed. */
static const char *pass_flag(int opt)
{
    switch (opt) {
    case 'L': return "--placement";
    case 'O': return "--policy-opt";
    case 'F': return "--backfill";
    case 'R': return "--restart-overhead";
    case 'W': return "--round-s";
    case 'M': return "--oom-detect-s";
    case 'B': return "--on-bad-row";
    case 'G': return "--procs-per-gpu";
    case 'X': return "--strict";
    default: return NULL;
    }
}

int cli_pass_option(const char *cmd, int opt, const char *arg,
                    const char **pass, size_t *n, size_t cap)
{
    static struct run_config scratch; /* large: keep it off the stack */
    const char *flag = pass_flag(opt);
    if (!flag)
        return 1;
    scratch.nopts = 0; /* --policy-opt counts into it */
    if (cli_run_option(cmd, opt, arg, &scratch) != 0)
        return CLI_USAGE;
    if (*n + 2 > cap)
        return cli_usage_error(cmd, "too many options");
    pass[(*n)++] = flag;
    if (arg)
        pass[(*n)++] = arg;
    return 0;
}
