/* util.c -- messages, clocks and memory figures of the command line. */
#include <stdarg.h>
#include <stdio.h>
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
