/* trace.c -- the trace object, its error texts and error records, and what
 * the readers share to build one (struct trace_build). */
#include "traces_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_FIRST_JOBS 1024

const struct trace_job trace_job_defaults = {
    .submit_time = NAN,
    .duration = NAN,
    .gpu_mem_mb = NAN,
    .params_m = NAN,
    .learning_rate = NAN,
    .est_duration = NAN,
    .deadline = NAN,
    .weight = NAN,
    .slo = NAN,
    .host_mem_mb = NAN,
    .use_peak = {NAN, NAN, NAN, NAN},
    .use_burst = {NAN, NAN, NAN, NAN},
    .iterations = -1,
    .num_gpus = -1,
    .gpu_milli = 1000,
    .priority = 0,
    .batch_size = -1,
    .layers = -1,
    .input_dim = -1,
    .cpu_milli = -1,
};

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

int trace_note(struct trace *t, const char *what)
{
    size_t i;
    for (i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i].what, what) == 0)
            break;
    if (i == TRACE_MAX_NOTES)
        return -1;
    if (i == t->nnotes) {
        t->notes[i].what = what;
        t->notes[i].count = 0;
        t->nnotes++;
    }
    t->notes[i].count++;
    return 0;
}

/* ---- cells ------------------------------------------------------------- */

const char *trace_shown(char *buf, const char *text, size_t len)
{
    size_t n = len > 40 ? 40 : len;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        buf[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    strcpy(buf + n, len > n ? "..." : "");
    return buf;
}

int trace_cell_double(const char *s, size_t len, int positive, double *out)
{
    double d;
    int rc = trace_csv_double(s, len, &d);
    if (rc)
        return rc;
    if (positive ? !(d > 0) : !(d >= 0))
        return TRACE_NUM_BAD;
    *out = d + 0.0; /* "-0" is stored as +0, so that it never prints as -0 */
    return TRACE_NUM_OK;
}

int trace_cell_int(const char *s, size_t len, int64_t min, int64_t max,
                   int64_t *out)
{
    int64_t v;
    int rc = trace_csv_int(s, len, &v);
    if (rc)
        return rc;
    if (v < min || v > max)
        return TRACE_NUM_BAD;
    *out = v;
    return TRACE_NUM_OK;
}

int trace_cell_error(struct trace_error *e, const char *path, long line,
                     long column, const char *name, const char *rule,
                     int status, const char *text, size_t len)
{
    char buf[TRACE_SHOWN_SIZE];
    if (status == TRACE_NUM_EMPTY)
        trace_error_set(e, path, line, column, "%s is empty", name);
    else if (status == TRACE_NUM_RANGE)
        trace_error_set(e, path, line, column, "%s \"%s\" is out of range",
                        name, trace_shown(buf, text, len));
    else
        trace_error_set(e, path, line, column, "%s must be %s, got \"%s\"",
                        name, rule, trace_shown(buf, text, len));
    return TRACE_EPARSE;
}

/* ---- building a trace -------------------------------------------------- */

int trace_build_start(struct trace_build *b, const char *path, int flags,
                      enum trace_format format, struct trace_error *e)
{
    b->path = path;
    b->flags = flags;
    b->trace = trace_create();
    if (!b->trace) {
        trace_error_set(e, path, 0, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    b->trace->format = format;
    return 0;
}

int trace_build_skip(struct trace_build *b, int rc,
                     const struct trace_error *why, struct trace_error *e)
{
    if (rc == TRACE_EPARSE && (b->flags & TRACE_SKIP_BAD_ROWS)) {
        if (b->trace->rows_skipped++ == 0)
            b->skipped = *why;
        return 0;
    }
    *e = *why;
    return rc;
}

/* The ids seen: open addressing, a slot holding the id's hash beside the
 * job's index + 1 (0 marks a free slot), at most half full. */
static uint32_t id_find(const struct trace_build *b, const char *text,
                        size_t len, uint32_t h)
{
    for (size_t i = h & b->ids_mask; b->ids && b->ids[i];
         i = (i + 1) & b->ids_mask) {
        uint32_t job1 = (uint32_t)b->ids[i];
        const char *s;
        if ((uint32_t)(b->ids[i] >> 32) != h)
            continue;
        s = trace_str(b->trace, b->trace->jobs[job1 - 1].id);
        if (strncmp(s, text, len) == 0 && s[len] == '\0')
            return job1;
    }
    return 0;
}

static void id_place(uint64_t *slots, size_t mask, uint64_t slot)
{
    size_t i = (size_t)(slot >> 32) & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = slot;
}

/* Adds the id of job njobs - 1, growing the table first when needed. */
static int id_add(struct trace_build *b, uint32_t h, size_t njobs)
{
    if (!b->ids || 2 * njobs > b->ids_mask + 1) {
        size_t mask = b->ids ? 2 * b->ids_mask + 1 : 1023;
        uint64_t *big = calloc(mask + 1, sizeof *big);
        if (!big)
            return TRACE_ENOMEM;
        for (size_t i = 0; b->ids && i <= b->ids_mask; i++)
            if (b->ids[i])
                id_place(big, mask, b->ids[i]);
        free(b->ids);
        b->ids = big;
        b->ids_mask = mask;
    }
    id_place(b->ids, b->ids_mask, (uint64_t)h << 32 | (uint32_t)njobs);
    return 0;
}

int trace_build_check_id(const struct trace_build *b, const char *text,
                         size_t len, long line, long column,
                         struct trace_error *e)
{
    char buf[TRACE_SHOWN_SIZE];
    uint32_t first = id_find(b, text, len, trace_hash(text, len));
    if (!first)
        return 0;
    trace_error_set(e, b->path, line, column,
                    "duplicate job_id \"%s\" (first on line %lu)",
                    trace_shown(buf, text, len),
                    (unsigned long)b->trace->jobs[first - 1].line);
    return TRACE_EPARSE;
}

int trace_check_times(const struct trace_job *job, const char *path,
                      long line, struct trace_error *e)
{
    /* Past 1e15 s (30 million years) a time is no schedule: its sums
     * overflow to inf and every figure of the run would be null. */
    const struct {
        const char *name;
        double v;
    } t[] = {{"submit_time", job->submit_time},
             {"duration", job->duration},
             {"est_duration", job->est_duration},
             {"deadline", job->deadline}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (isnan(t[i].v) || fabs(t[i].v) <= TRACE_MAX_TIME_S)
            continue;
        trace_error_set(e, path, line, 0,
                        "%s %g s is beyond 1e15 s (30 million years): not a "
                        "time of a job",
                        t[i].name, t[i].v);
        return TRACE_EPARSE;
    }
    return 0;
}

int trace_build_push(struct trace_build *b, struct trace_job *job,
                     const char *text, size_t len, long line, int check_ids,
                     struct trace_error *e)
{
    struct trace *t = b->trace;
    int bad = trace_check_times(job, b->path, line, e);
    if (bad)
        return bad;
    job->line = line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    if (trace_strpool_append(t->pool, text, len, &job->id) ||
        trace_push_job(t, &b->cap, job) ||
        (check_ids && id_add(b, trace_hash(text, len), t->njobs))) {
        trace_error_set(e, b->path, line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    return 0;
}

int trace_build_end(struct trace_build *b, int rc, const struct trace_error *e,
                    struct trace **out, struct trace_error *err)
{
    struct trace_error none;
    memset(&none, 0, sizeof none);
    free(b->ids);
    b->ids = NULL;
    if (!rc && b->trace->njobs == 0) {
        trace_error_set(&none, b->path, 0, 0, "trace has no jobs");
        e = &none;
        rc = TRACE_EPARSE;
    }
    *out = NULL;
    if (rc) {
        trace_destroy(b->trace);
        if (err)
            *err = *e;
    } else {
        trace_finish(b->trace);
        *out = b->trace;
        if (err)
            *err = b->skipped;
    }
    b->trace = NULL;
    return rc;
}

int trace_csv_rows(struct trace_csv *csv, struct trace_build *b,
                   size_t nfields, trace_row_fn row_fn, void *ctx,
                   struct trace_error *e)
{
    for (;;) {
        struct trace_csv_row row;
        struct trace_error why;
        int got = trace_csv_next(csv, &row, &why), rc;
        if (got < 0) { /* the tokenizer cannot go on: never skipped */
            *e = why;
            return got;
        }
        if (got == TRACE_CSV_END)
            return 0;
        rc = trace_csv_check_row(b->path, got, &row, nfields, &why);
        if (!rc)
            rc = row_fn(ctx, &row, &why);
        if (rc && (rc = trace_build_skip(b, rc, &why, e)) != 0)
            return rc;
    }
}
