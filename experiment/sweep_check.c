/* sweep_check.c -- what every cell of a sweep needs, checked before any
 * cell runs (as compare checks its runs first): a policy that needs
 * run-time estimates under estimates "none", a backfill that needs them,
 * or a backfill given to a preemptive policy would otherwise fail in its
 * cells only, after the others ran. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "policy.h"
#include "sweep_internal.h"

/* The --backfill of sweep's command line, or NULL. */
static const char *passed_backfill(const struct sweep_spec *s)
{
    const char *b = NULL;
    for (size_t i = 0; i + 1 < s->npass; i++)
        if (strcmp(s->pass[i], "--backfill") == 0)
            b = s->pass[i + 1];
    return b;
}

/* Why policy P cannot run under estimates E, or NULL. */
static const char *refusal(const struct sweep_policy *p, const char *backfill,
                           const char *e, char *why, size_t cap)
{
    const struct pol_ops *ops = pol_find(p->name);
    int bf = backfill ? pol_backfill_parse(backfill) : POL_BACKFILL_NONE;
    int none = strcmp(e, "none") == 0;
    if (!ops) /* a plugin: its run says what is wrong */
        return NULL;
    if (ops->needs_estimates && none)
        snprintf(why, cap,
                 "policy %s needs run-time estimates, and "
                 "\"estimates\" lists none",
                 p->name);
    else if (ops->preemptive && bf > POL_BACKFILL_NONE)
        snprintf(why, cap,
                 "policy %s preempts: --backfill %s does not "
                 "apply to it",
                 p->name, backfill);
    else if (none && bf > POL_BACKFILL_NONE && bf != POL_BACKFILL_GREEDY)
        snprintf(why, cap,
                 "--backfill %s (policy %s) needs run-time "
                 "estimates, and \"estimates\" lists none",
                 backfill, p->name);
    else
        return NULL;
    return why;
}

int sweep_check_cells(const struct sweep_spec *s)
{
    char why[512];
    const char *passed = passed_backfill(s);
    for (size_t p = 0; p < s->npolicies; p++) {
        const struct sweep_policy *pol = &s->policies[p];
        const char *bf = pol->backfill ? pol->backfill : passed;
        for (size_t e = 0; e < s->nestimates; e++)
            if (refusal(pol, bf, s->estimates[e], why, sizeof why)) {
                cli_error("%s: %s; no cell ran", s->source, why);
                return CLI_BAD_INPUT;
            }
    }
    return CLI_OK;
}
