/* trace.c -- the trace object, its error texts and error records. */
#include "traces_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_FIRST_JOBS 1024

const char *trace_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define TRACE_ERRNO_TEXT(name, value, text) \
    case name:                              \
        return text;
        TRACE_ERRNO_MAP(TRACE_ERRNO_TEXT)
#undef TRACE_ERRNO_TEXT
    default:
        return "unknown error";
    }
}

struct trace *trace_create(void)
{
    struct trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->pool = trace_strpool_create();
    if (!t->pool) {
        free(t);
        return NULL;
    }
    return t;
}

void trace_destroy(struct trace *t)
{
    if (!t)
        return;
    free(t->jobs);
    trace_strpool_destroy(t->pool);
    free(t);
}

const char *trace_str(const struct trace *t, uint32_t s)
{
    return t ? trace_strpool_get(t->pool, s) : "";
}

int trace_push_job(struct trace *t, size_t *cap, const struct trace_job *job)
{
    if (t->njobs == *cap) {
        size_t n = *cap ? 2 * *cap : TRACE_FIRST_JOBS;
        struct trace_job *jobs;
        /* Pool offsets and job lines are 32-bit; so is the job count. */
        if (n > UINT32_MAX || n > SIZE_MAX / sizeof *jobs)
            return TRACE_ENOMEM;
        jobs = realloc(t->jobs, n * sizeof *jobs);
        if (!jobs)
            return TRACE_ENOMEM;
        t->jobs = jobs;
        *cap = n;
    }
    t->jobs[t->njobs++] = *job;
    return 0;
}

void trace_finish(struct trace *t)
{
    /* Doubling leaves up to half the array unused; a trace is read once and
     * then kept for the whole simulation, so give the slack back. */
    if (t->njobs) {
        struct trace_job *jobs = realloc(t->jobs, t->njobs * sizeof *jobs);
        if (jobs)
            t->jobs = jobs;
    }
    trace_strpool_seal(t->pool);
}

void trace_error_set(struct trace_error *e, const char *source, long line,
                     long column, const char *fmt, ...)
{
    va_list ap;
    size_t n = source ? strlen(source) : 0;
    if (n >= sizeof e->source)
        n = sizeof e->source - 1;
    memcpy(e->source, source ? source : "", n);
    e->source[n] = '\0';
    e->line = line;
    e->column = column;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}
