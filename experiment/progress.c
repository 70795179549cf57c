/* progress.c -- what `hetsim run` says on stderr while a long run goes
 * on: on a terminal one line redrawn every half second; otherwise, once
 * the run has taken 2 s (HETSIM_PROGRESS_AFTER_S), a line per 10% of the
 * arrivals' span (of the trace read, in a streaming run), and every 10 s
 * after it or when neither is known (a pipe streamed), so that a log shows
 * slow is not hung. */
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

void cli_progress_init(struct cli_progress *p, const struct run_config *cfg,
                       const struct sim *s, double span)
{
    const char *after = getenv("HETSIM_PROGRESS_AFTER_S");
    *p = (struct cli_progress){.s = s,
                               .terminal = !cfg->quiet && isatty(2),
                               .log_lines = !cfg->quiet && !isatty(2),
                               .started = cli_clock(),
                               .span = span,
                               .next_pct = 10,
                               .quiet_s = 2,
                               .every = 4095};
    if (after && *after)
        p->quiet_s = strtod(after, NULL);
}

static void log_line(struct cli_progress *p, double time, int32_t queued)
{
    double wall = cli_clock();
    if (wall - p->started < p->quiet_s)
        return;
    double read = p->reader ? cli_reader_fraction(p->reader) : -1;
    double pct = read >= 0     ? 100 * read
                 : p->span > 0 ? 100 * time / p->span
                               : 100;
    if (pct < p->next_pct && (pct < 100 || wall < p->next_line))
        return;
    while (p->next_pct <= pct)
        p->next_pct += 10;
    p->next_line = wall + 10; /* after the last arrival: every 10 s */
    char where[64] = "";      /* how far, when known */
    if (read >= 0 || p->span > 0)
        snprintf(where, sizeof where, " (%.0f%% of %s)", pct > 100 ? 100 : pct,
                 read >= 0 ? "the trace read" : "the arrivals' span");
    fprintf(stderr,
            "hetsim: run: simulated %.0f s%s, %llu events, %d queued, %.0f s "
            "so far\n",
            time, where, (unsigned long long)sim_events(p->s), queued,
            wall - p->started);
}

void cli_progress_tick(struct cli_progress *p, double time, int32_t queued)
{
    if ((++p->calls & p->every) != 0)
        return;
    if (p->log_lines)
        log_line(p, time, queued);
    if (p->terminal && cli_clock() >= p->next_report) {
        p->next_report = cli_clock() + 0.5;
        fprintf(stderr, "\rhetsim: simulated %.0f s, %llu events, %d queued",
                time, (unsigned long long)sim_events(p->s), queued);
    }
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->terminal && p->calls > p->every)
        fputc('\n', stderr);
}
