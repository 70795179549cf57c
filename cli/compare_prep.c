/* compare_prep.c -- what `hetsim compare` does before its runs: every
 * run checked (`hetsim run --dry-run`) so that nothing runs unless all
 * would start; and the pool loop that runs the policies, checked or for
 * real. (What an earlier compare left goes with the result set that
 * replaces --out whole.) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "compare_internal.h"
#include "procpool.h"

/* The exit code of a failed child: its own, or CLI_FAILURE. */
static int child_code(const struct cli_pool_done *d)
{
    if (WIFEXITED(d->status) && WEXITSTATUS(d->status) != 0)
        return WEXITSTATUS(d->status);
    return CLI_FAILURE;
}

int cmp_run_each(const struct cmp_options *o, int dry, cmp_done_fn *done,
                 void *ctx)
{
    struct cli_pool *pool = cli_pool_create((size_t)o->jobs);
    if (!pool) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    size_t next = 0;
    int rc = CLI_OK;
    while (next < o->npolicies || cli_pool_running(pool) > 0) {
        if (next < o->npolicies && !cli_pool_full(pool)) {
            char out[4096];
            const char *args[CMP_MAX_PASS + 16];
            cmp_run_args(o, next, dry, out, sizeof out, args);
            if (cli_pool_spawn(pool, args, next) != 0) {
                cli_error("policy %s: cannot start `hetsim run`: %s",
                          o->label[next], strerror(errno));
                rc = CLI_FAILURE;
            }
            next++;
            continue;
        }
        struct cli_pool_done d;
        if (cli_pool_wait(pool, &d) != 0) {
            cli_error("waitpid: %s", strerror(errno));
            rc = CLI_FAILURE;
            break;
        }
        int r = done(ctx, &d);
        if (r != CLI_OK && rc == CLI_OK)
            rc = r;
    }
    cli_pool_destroy(pool);
    return rc;
}

/* A dry run ended: its failure said, its warnings shown once. */
static int checked(void *ctx, const struct cli_pool_done *d)
{
    const struct cmp_options *o = ctx;
    static char shown[2048]; /* the warnings shown last: said once */
    if (!cli_pool_ok(d)) {
        char what[256];
        snprintf(what, sizeof what, "policy %s", o->label[d->tag]);
        cli_pool_report(what, "run --dry-run", d);
        return child_code(d);
    }
    if (d->text[0] && strcmp(d->text, shown) != 0) {
        fprintf(stderr, "%s\n", d->text); /* its warnings, once */
        snprintf(shown, sizeof shown, "%s", d->text);
    }
    return CLI_OK;
}

int cmp_check_all(const struct cmp_options *o)
{
    return cmp_run_each(o, 1, checked, (void *)o);
}
