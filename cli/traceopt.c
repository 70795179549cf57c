/* traceopt.c -- the options that say how to read a trace, shared by
 * `hetsim run` and `hetsim trace ...`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_trace_option(const char *cmd, int opt, const char *arg,
                     enum trace_format *f, struct trace_options *o)
{
    switch (opt) {
    case 'f': {
        int k = trace_format_parse(arg);
        if (k < 0)
            return cli_usage_error(cmd, "unknown trace format '%s' (choose "
                                   "from: native, gavel, philly, "
                                   "alibaba2023, swf, tiresias)", arg);
        *f = (enum trace_format)k;
        return 0;
    }
    case 'X':
        o->flags |= TRACE_STRICT;
        return 0;
    case 'B':
        if (strcmp(arg, "skip") == 0)
            o->flags |= TRACE_SKIP_BAD_ROWS;
        else if (strcmp(arg, "error") == 0)
            o->flags &= ~TRACE_SKIP_BAD_ROWS;
        else
            return cli_usage_error(cmd, "--on-bad-row wants 'error' or "
                                   "'skip', got '%s'", arg);
        return 0;
    case 'G': {
        char *end;
        errno = 0;
        double v = strtod(arg, &end);
        if (errno || end == arg || *end || !(v > 0) || v > 1e6)
            return cli_usage_error(cmd, "--procs-per-gpu wants a number > 0, "
                                   "got '%s'", arg);
        o->procs_per_gpu = v;
        return 0;
    }
    }
    return cli_usage_error(cmd, "unknown option");
}
