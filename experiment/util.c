/* util.c -- messages, clocks, memory figures and job groups of the command
 * line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "hetsim: %s: ", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning", fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", cmd);
    return CLI_USAGE;
}

int cli_option_error(const char *cmd, int opt, char **argv)
{
    if (opt == ':')
        return cli_usage_error(cmd, "option '%s' needs a value",
                               argv[optind - 1]);
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

void cli_error_at(const char *source, long line, long column,
                  const char *text)
{
    if (line > 0 && column > 0)
        cli_error("%s:%ld:%ld: %s", source, line, column, text);
    else if (line > 0)
        cli_error("%s:%ld: %s", source, line, text);
    else
        cli_error("%s: %s", source, text);
}

int cli_trace_failure(int rc, const struct trace_error *err,
                      const char *path)
{
    if (rc == TRACE_ENOMEM) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    cli_error_at(err->source[0] ? err->source : path, err->line, err->column,
                 err->text[0] ? err->text : trace_strerror(rc));
    return CLI_BAD_INPUT;
}

void cli_trace_warnings(const struct trace *t,
                        const struct trace_error *skipped, const char *path)
{
    for (size_t i = 0; i < t->nwarnings && i < TRACE_MAX_WARNINGS; i++) {
        const struct trace_error *w = &t->warnings[i];
        char text[sizeof w->source + sizeof w->text + 64];
        snprintf(text, sizeof text, "%s:%ld:%ld: %s", w->source, w->line,
                 w->column, w->text);
        cli_warn("%s", text);
    }
    if (t->rows_skipped > 0)
        cli_warn("%s: skipped %zu bad rows; the first: line %ld: %s", path,
                 t->rows_skipped, skipped->line, skipped->text);
}

long cli_number_groups(const struct trace *t, int user, uint32_t *out)
{
    /* Pool ids are interned (equal names, equal ids; never 0, the empty
     * slot): an open-addressing map from id to group number. */
    size_t cap = 16;
    while (cap < 2 * t->njobs)
        cap *= 2;
    uint32_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    long n = keys && vals ? 0 : -1;
    for (size_t i = 0; n >= 0 && i < t->njobs; i++) {
        uint32_t name = user ? t->jobs[i].user : t->jobs[i].vc;
        out[i] = UINT32_MAX;
        if (name == TRACE_NOSTR)
            continue;
        size_t h = (name * 2654435761u) & (cap - 1);
        while (keys[h] && keys[h] != name)
            h = (h + 1) & (cap - 1);
        if (!keys[h]) {
            keys[h] = name;
            vals[h] = (uint32_t)n++;
        }
        out[i] = vals[h];
    }
    free(keys);
    free(vals);
    return n;
}

double cli_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cli_peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}
