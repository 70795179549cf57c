/* suggest.c -- "did you mean" for misspelt options, commands, policies and
 * clusters (the distance is trace_nearest_name's). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "policy.h"

void cli_did_you_mean(char *buf, size_t cap, const char *word,
                      const char *const *names, size_t n)
{
    const char *near = trace_nearest_name(word, strlen(word), names, n);
    if (near)
        snprintf(buf, cap, " (did you mean '%s'?)", near);
    else if (cap)
        buf[0] = '\0';
}

int cli_option_error_in(const char *cmd, int opt, char **argv,
                        const struct option *table)
{
    const char *arg = argv[optind - 1];
    if (opt == ':')
        return cli_usage_error(cmd, "option '%s' needs a value", arg);
    if (strncmp(arg, "--", 2) != 0 || !table)
        return cli_usage_error(cmd, "unknown option '%s'", arg);
    const char *names[128];
    size_t n = 0;
    for (; table[n].name && n < sizeof names / sizeof names[0]; n++)
        names[n] = table[n].name;
    size_t len = strcspn(arg + 2, "=");
    const char *near = trace_nearest_name(arg + 2, len, names, n);
    if (near)
        return cli_usage_error(cmd,
                               "unknown option '%.*s' (did you mean "
                               "'--%s'?)",
                               (int)(len + 2), arg, near);
    return cli_usage_error(cmd, "unknown option '%.*s'", (int)(len + 2), arg);
}

void cli_policy_hint(char *buf, size_t cap, const char *name)
{
    const char *names[128];
    size_t n = 0;
    for (; n < 128 && pol_at(n); n++)
        names[n] = pol_at(n)->name;
    cli_did_you_mean(buf, cap, name, names, n);
}
