/* swf.c -- the Standard Workload Format (version 2.2) of the Parallel
 * Workloads Archive: ';' starts a comment line (the header), every other
 * non-blank line is one job of 18 blank-separated numbers, -1 = missing.
 *
 * A job keeps: field 1 (job number) as its id, 2 (submit time) minus the
 * earliest submit time of the jobs kept (so the trace starts at 0; the
 * archive's logs start near 0 already), 4 (run time) as duration, 5
 * (allocated processors; 8, requested processors, when 5 is missing) as
 * num_gpus = ceil(processors / procs_per_gpu), 9 (requested time) as
 * est_duration when > 0, 11 (status), 12 (user id) and 15 (queue number) as
 * the texts status, user and vc. A well-formed job without a run time
 * (-1 or 0), without a processor count or without a submit time is dropped
 * and counted in a note (under the first of these that applies). Errors
 * give the field number (1-18) as the column: a line without 18 fields, a
 * field that is not a number, a used field that is negative but not -1, a
 * job number that is not an integer >= 0 or seen before. */
#include "traces_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 18

enum {
    F_JOB = 0,
    F_SUBMIT = 1,
    F_RUN = 3,
    F_ALLOC = 4,
    F_REQ_PROCS = 7,
    F_REQ_TIME = 8,
    F_STATUS = 10,
    F_USER = 11,
    F_QUEUE = 14
};

static const char *const field_names[NFIELDS] = {"job number",
                                                 "submit time",
                                                 "wait time",
                                                 "run time",
                                                 "allocated processors",
                                                 "average CPU time",
                                                 "used memory",
                                                 "requested processors",
                                                 "requested time",
                                                 "requested memory",
                                                 "status",
                                                 "user id",
                                                 "group id",
                                                 "executable number",
                                                 "queue number",
                                                 "partition number",
                                                 "preceding job number",
                                                 "think time"};

static const char note_no_run[] =
    "jobs with no run time (SWF run time -1 or 0): dropped";
static const char note_no_procs[] =
    "jobs with no processor count (SWF fields 5 and 8 -1 or 0): dropped";
static const char note_no_submit[] =
    "jobs with no submit time (SWF submit time -1): dropped";

/* One job line, split in place. */
struct swf_line {
    char *text[NFIELDS];
    size_t len[NFIELDS];
    double v[NFIELDS];
    long line;
};

struct swf {
    struct trace_build b;
    FILE *file;
    double procs_per_gpu;
    double earliest; /* submit time of the earliest job kept */
};

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Splits line into fields; returns their count (stops counting past
 * NFIELDS + 1) and leaves every field NUL-terminated. */
static size_t split(char *p, struct swf_line *l)
{
    size_t n = 0;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p || n > NFIELDS)
            return n;
        if (n < NFIELDS)
            l->text[n] = p;
        while (*p && !is_blank(*p))
            p++;
        if (n < NFIELDS)
            l->len[n] = (size_t)(p - l->text[n]);
        n++;
        if (*p)
            *p++ = '\0';
    }
}

static int field_error(const struct swf *s, const struct swf_line *l, int k,
                       const char *rule, struct trace_error *e)
{
    return trace_cell_error(e, s->b.path, l->line, k + 1, field_names[k], rule,
                            TRACE_NUM_BAD, l->text[k], l->len[k]);
}

/* The fields this reader uses: integers (below 2^53, so that they print
 * exactly) where the format says so, and nothing negative but -1. */
static int check_used(const struct swf *s, const struct swf_line *l,
                      struct trace_error *e)
{
    static const int used[] = {F_JOB,    F_SUBMIT,    F_RUN,
                               F_ALLOC,  F_REQ_PROCS, F_REQ_TIME,
                               F_STATUS, F_USER,      F_QUEUE};
    static const unsigned char integral[NFIELDS] = {
        [F_JOB] = 1,    [F_ALLOC] = 1, [F_REQ_PROCS] = 1,
        [F_STATUS] = 1, [F_USER] = 1,  [F_QUEUE] = 1};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
        int k = used[i];
        double v = l->v[k];
        if (k == F_JOB && v < 0)
            return field_error(s, l, k, "an integer >= 0", e);
        if (integral[k] && (v != floor(v) || v >= 9007199254740992.0))
            return field_error(
                s, l, k,
                k == F_JOB ? "an integer >= 0" : "an integer >= 0 or -1", e);
        if (v < 0 && v != -1)
            return field_error(s, l, k,
                               integral[k] ? "an integer >= 0 or -1"
                                           : "a number >= 0 or -1",
                               e);
    }
    return 0;
}

/* Reads a job line into *l; TRACE_EPARSE with *e filled when malformed. */
static int parse_line(const struct swf *s, char *text, struct swf_line *l,
                      struct trace_error *e)
{
    size_t n = split(text, l);
    if (n != NFIELDS) {
        trace_error_set(e, s->b.path, l->line, (long)(n < NFIELDS ? n + 1 : n),
                        "expected %d fields, got %s%zu", NFIELDS,
                        n > NFIELDS ? "more than " : "",
                        n > NFIELDS ? (size_t)NFIELDS : n);
        return TRACE_EPARSE;
    }
    for (int k = 0; k < NFIELDS; k++) {
        int rc = trace_csv_double(l->text[k], l->len[k], &l->v[k]);
        if (rc)
            return trace_cell_error(e, s->b.path, l->line, k + 1,
                                    field_names[k], "a number", rc, l->text[k],
                                    l->len[k]);
    }
    return check_used(s, l, e);
}

/* Writes an integral v (0 <= v < 2^53, checked by check_used) in decimal to
 * buf (24 bytes); returns the length. By hand: "%.0f" cost a fifth of the
 * read time. */
static size_t format_count(char *buf, double v)
{
    char digits[24];
    uint64_t u = (uint64_t)v;
    size_t n = 0, len = 0;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

/* Interns field k as text ("1", not "1.0"), or leaves TRACE_NOSTR when it is
 * -1. */
static int intern_int(struct swf *s, const struct swf_line *l, int k,
                      uint32_t *out)
{
    char buf[24];
    if (l->v[k] < 0)
        return 0;
    return trace_strpool_intern(s->b.trace->pool, buf,
                                format_count(buf, l->v[k]), out);
}

/* Fills *job from a well-formed line; returns the note to drop it under,
 * or NULL to keep it. */
static const char *fill_job(const struct swf_line *l, struct trace_job *job)
{
    double procs = l->v[F_ALLOC] > 0 ? l->v[F_ALLOC] : l->v[F_REQ_PROCS];
    if (!(l->v[F_RUN] > 0))
        return note_no_run;
    if (!(procs > 0))
        return note_no_procs;
    if (l->v[F_SUBMIT] < 0)
        return note_no_submit;
    job->submit_time = l->v[F_SUBMIT];
    job->duration = l->v[F_RUN];
    if (l->v[F_REQ_TIME] > 0)
        job->est_duration = l->v[F_REQ_TIME];
    return NULL;
}

static int add_job(struct swf *s, const struct swf_line *l,
                   struct trace_error *e)
{
    struct trace_job job = trace_job_defaults;
    const char *note = fill_job(l, &job);
    int k = l->v[F_ALLOC] > 0 ? F_ALLOC : F_REQ_PROCS, rc;
    double gpus = ceil(l->v[k] / s->procs_per_gpu);
    char id[24];
    size_t n = format_count(id, l->v[F_JOB]);
    if (note) {
        (void)trace_note(s->b.trace, note); /* at most 3 notes: never full */
        return 0;
    }
    if (gpus > INT32_MAX)
        return trace_cell_error(e, s->b.path, l->line, k + 1, field_names[k],
                                NULL, TRACE_NUM_RANGE, l->text[k], l->len[k]);
    job.num_gpus = (int32_t)gpus;
    if ((rc = trace_build_check_id(&s->b, id, n, l->line, F_JOB + 1, e)) != 0)
        return rc;
    if (intern_int(s, l, F_STATUS, &job.status) ||
        intern_int(s, l, F_USER, &job.user) ||
        intern_int(s, l, F_QUEUE, &job.vc)) {
        trace_error_set(e, s->b.path, l->line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    if ((rc = trace_build_push(&s->b, &job, id, n, l->line, 1, e)))
        return rc;
    if (s->b.trace->njobs == 1 || job.submit_time < s->earliest)
        s->earliest = job.submit_time;
    return 0;
}

static int read_lines(struct swf *s, struct trace_error *e)
{
    struct swf_line l;
    char *text = NULL;
    size_t size = 0;
    ssize_t len;
    int rc = 0;
    l.line = 0;
    errno = 0;
    while (!rc && (len = getline(&text, &size, s->file)) >= 0) {
        struct trace_error why;
        char *p = text + strspn(text, " \t");
        l.line++;
        if (memchr(text, '\0', (size_t)len)) {
            trace_error_set(&why, s->b.path, l.line, 0,
                            "line contains a NUL byte");
            rc = TRACE_EPARSE;
        } else {
            text[strcspn(text, "\r\n")] = '\0';
            if (*p == ';' || *p == '\0')
                continue;
            rc = parse_line(s, text, &l, &why);
        }
        if (!rc)
            rc = add_job(s, &l, &why);
        if (rc)
            rc = trace_build_skip(&s->b, rc, &why, e);
    }
    if (!rc && ferror(s->file)) {
        trace_error_set(e, s->b.path, l.line, 0, "%s",
                        strerror(errno ? errno : EIO));
        rc = TRACE_EIO;
    }
    free(text);
    return rc;
}

int trace_read_swf(const char *path, const struct trace_options *opt,
                   struct trace **out, struct trace_error *err)
{
    struct swf s;
    struct trace_error e;
    int rc;
    memset(&s, 0, sizeof s);
    memset(&e, 0, sizeof e);
    s.procs_per_gpu = opt && opt->procs_per_gpu > 0 ? opt->procs_per_gpu : 1;
    rc = trace_build_start(&s.b, path, opt ? opt->flags : 0, TRACE_FMT_SWF, &e);
    if (!rc && !(s.file = fopen(path, "rb"))) {
        trace_error_set(&e, path, 0, 0, "%s", strerror(errno));
        rc = TRACE_EIO;
    }
    if (!rc)
        rc = read_lines(&s, &e);
    if (s.file)
        fclose(s.file);
    for (size_t i = 0; !rc && i < s.b.trace->njobs; i++)
        s.b.trace->jobs[i].submit_time -= s.earliest;
    return trace_build_end(&s.b, rc, &e, out, err);
}
