/* sweep_run.c -- running the cells of a sweep (moved from cli/sweep.c):
 * a pool of `hetsim run` processes over the cells, and the progress line
 * shown while they run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli.h"
#include "procpool.h"
#include "sweep_internal.h"

/* ---- Progress ------------------------------------------------------------ */

static void progress_draw(struct sweep_progress *p, double now)
{
    size_t ran = p->done - p->skipped, left = p->total - p->done;
    double rate = (double)ran / (now - p->start > 1e-9 ? now - p->start
                                                       : 1e-9);
    long eta = (long)((double)left / (rate > 0 ? rate : 1) + 0.5);
    /* a terminal gets one line redrawn; a log one plain line per draw */
    fprintf(stderr, "%shetsim sweep: %zu/%zu cells done",
            isatty(2) ? "\r" : "", p->done, p->total);
    if (p->skipped)
        fprintf(stderr, " (%zu before)", p->skipped);
    if (p->failed)
        fprintf(stderr, ", %zu failed", p->failed);
    fprintf(stderr, ", %.1f cells/s, ETA %ld:%02ld:%02ld%s", rate, eta / 3600,
            eta / 60 % 60, eta % 60, isatty(2) ? " " : "\n");
    p->last = now;
}

void sweep_progress_step(struct sweep_progress *p, int failed)
{
    p->done++;
    p->failed += failed != 0;
    double now = cli_clock();
    double every = isatty(2) ? 0.25 : 10; /* a log: a line per 10 s */
    if (p->show && (now - p->last >= every || p->done == p->total))
        progress_draw(p, now);
}

void sweep_progress_end(struct sweep_progress *p)
{
    if (!p->show)
        return;
    if (p->done == p->skipped) /* nothing ran: say so once */
        progress_draw(p, cli_clock());
    if (isatty(2))
        fputc('\n', stderr);
}

/* ---- Running the cells here -------------------------------------------- */

/* Starts STEP of cell K (tag 2K + STEP); 0, or -1 after a message. */
static int start_step(struct cli_pool *pool, const struct sweep_spec *s,
                      const char *out, const struct sweep_cell *cells,
                      size_t k, int step)
{
    static const char *args[SWEEP_MAX_ARGS];
    static char buf[SWEEP_ARGBUF];
    if (step == sweep_cell_first_step(s, &cells[k]) &&
        sweep_cell_prepare(s, out, &cells[k]) != 0) {
        cli_error("%s/cells/%s: %s", out, cells[k].id, strerror(errno));
        return -1;
    }
    if (sweep_cell_argv(s, out, &cells[k], step, args, buf) != 0) {
        cli_error("cell %s: its command line is too long (shorter paths?)",
                  cells[k].id);
        return -1;
    }
    if (cli_pool_spawn(pool, args, 2 * k + (size_t)step) != 0) {
        cli_error("cell %s: cannot start `hetsim`: %s", cells[k].id,
                  strerror(errno));
        return -1;
    }
    return 0;
}

/* The end of STEP of cell K, as the pool reported it in D: starts the
 * cell's next step, or tells SRC how the cell went. Returns the cell's
 * outcome so far: 0 ok (or still running), -1 failed. */
static int step_done(struct cli_pool *pool, const struct sweep_spec *s,
                     const char *out, const struct sweep_cell *cells,
                     const struct cli_pool_done *d,
                     const struct sweep_source *src)
{
    size_t k = d->tag / 2;
    int step = (int)(d->tag % 2), ok = cli_pool_ok(d);
    if (ok && step == 0 && start_step(pool, s, out, cells, k, 1) == 0)
        return 0;
    if (!ok) {
        char what[64];
        snprintf(what, sizeof what, "cell %s", cells[k].id);
        cli_pool_report(what, step ? "run" : "trace generate", d);
    }
    ok = ok && step == 1;
    src->done(src->ctx, k, ok);
    return ok ? 0 : -1;
}

int sweep_run_cells(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *cells, long jobs,
                    const struct sweep_source *src)
{
    struct cli_pool *pool = cli_pool_create((size_t)jobs);
    if (!pool) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    int rc = CLI_OK, exhausted = 0;
    while (!exhausted || cli_pool_running(pool) > 0) {
        if (!exhausted && !cli_pool_full(pool)) {
            long long k = src->next(src->ctx);
            exhausted = k < 0;
            if (k >= 0 && start_step(pool, s, out, cells, (size_t)k,
                                     sweep_cell_first_step(
                                         s, &cells[k])) != 0) {
                rc = CLI_FAILURE;
                src->done(src->ctx, (size_t)k, 0);
            }
            continue;
        }
        struct cli_pool_done d;
        if (cli_pool_wait(pool, &d) != 0) {
            cli_error("waitpid: %s", strerror(errno));
            rc = CLI_FAILURE;
            break;
        }
        if (step_done(pool, s, out, cells, &d, src) != 0)
            rc = CLI_FAILURE;
    }
    cli_pool_destroy(pool);
    return rc;
}

