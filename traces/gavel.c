/* gavel.c -- the job traces of Gavel (Narayanan et al., OSDI'20): .trace
 * files, one job a line, fields separated by tabs, no header:
 *
 *   7 fields (traces/msr/seed=0): job_type, command, num_steps_arg,
 *     needs_data_dir, total_steps, arrival_time, scale_factor
 *   10 fields (traces/physical_cluster): job_type, command, working_dir,
 *     num_steps_arg, needs_data_dir, total_steps, scale_factor,
 *     priority_weight, SLO, arrival_time
 *
 * The first line with 7 or 10 fields decides which; a line with another
 * count is an error at the first field that does not fit. Empty lines are
 * skipped (their numbers still count).
 *
 * A job: job_type (interned, not empty), iterations = total_steps (an
 * integer >= 1), num_gpus = scale_factor (>= 1), submit_time = arrival_time
 * (s, >= 0), weight = priority_weight (> 0), duration NAN: run times come
 * from the throughput table (throughputs.c), total_steps / steps per second
 * on the GPU type a job gets, applied by the caller. command, num_steps_arg
 * and working_dir say how to launch the job on a real cluster and are not
 * kept; needs_data_dir is checked (0 or 1) and not kept.
 * SLO: Gavel's Job class reads a negative SLO as "none", and every shipped
 * physical-cluster trace has -1 on every line; a negative SLO is read as NAN
 * (this module's "absent"), any other number as written. The 7-field layout
 * has neither weight nor SLO: both stay NAN.
 * Ids: "<file name without directory and .trace>-<line>", e.g. "6214e9-17"
 * for line 17 of 6214e9.trace: unique in a file, and they lead back to the
 * line (Gavel itself numbers jobs 0, 1, ... as it reads them).
 *
 * The lines are not CSV (the command holds spaces, "%s" and "&&", never a
 * tab or a quote), so they are read by a small line reader of their own
 * rather than the CSV tokenizer, whose quote handling has no place here. */
#include "traces_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAVEL_BLOCK ((size_t)1 << 20)
#define GAVEL_MAX_FIELDS 10
#define GAVEL_MAX_BASE 200

/* Field indices (from 0) of each layout; -1: absent. */
struct layout {
    size_t nfields;
    int type, data_dir, steps, sf, arrival, weight, slo;
};

static const struct layout layouts[] = {
    {7, 0, 3, 4, 6, 5, -1, -1},
    {10, 0, 4, 5, 6, 9, 7, 8},
};

/* Lines of a file read in blocks into one buffer; a line that runs past
 * the buffered bytes is moved to the front and the buffer refilled, growing
 * only when one line fills it, so memory follows the longest line. */
struct lines {
    FILE *file;
    char *buf; /* (cap + 1): a line's end can always be NUL-terminated */
    size_t cap, len;
    size_t pos;  /* where the next line starts */
    size_t scan; /* bytes after pos known to hold no '\n' */
    int eof;
    long line; /* number of the line last returned */
};

struct gavel {
    struct trace_build b;
    struct lines in;
    const struct layout *layout; /* NULL until a line decides */
    const char *base;            /* file name without directory */
    int base_len;                /* without ".trace" */
};

/* ---- lines ------------------------------------------------------------- */

static int lines_open(struct lines *l, const char *path, struct trace_error *e)
{
    l->file = fopen(path, "rb");
    if (!l->file) {
        trace_error_set(e, path, 0, 0, "cannot open: %s", strerror(errno));
        return TRACE_EIO;
    }
    l->cap = GAVEL_BLOCK;
    if (!(l->buf = malloc(l->cap + 1))) {
        trace_error_set(e, path, 0, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    return 0;
}

static void lines_close(struct lines *l)
{
    if (l->file)
        fclose(l->file);
    free(l->buf);
}

/* Moves the unread bytes to the front and reads more after them. */
static int refill(struct lines *l, const char *path, struct trace_error *e)
{
    size_t n;
    memmove(l->buf, l->buf + l->pos, l->len - l->pos);
    l->len -= l->pos;
    l->pos = 0;
    if (l->cap - l->len < GAVEL_BLOCK / 2) {
        char *big =
            l->cap <= SIZE_MAX / 2 - 1 ? realloc(l->buf, 2 * l->cap + 1) : NULL;
        if (!big) {
            trace_error_set(e, path, l->line + 1, 0, "out of memory");
            return TRACE_ENOMEM;
        }
        l->buf = big;
        l->cap *= 2;
    }
    n = fread(l->buf + l->len, 1, l->cap - l->len, l->file);
    l->len += n;
    if (n == 0 && ferror(l->file)) {
        trace_error_set(e, path, l->line + 1, 0, "read error");
        return TRACE_EIO;
    }
    l->eof = n == 0;
    return 0;
}

/* The next line without its "\n" or "\r\n", NUL-terminated in place.
 * Returns 1 with *text and *len set, 0 at the end of the file, or a
 * negative TRACE_E* code with *e filled. */
static int next_line(struct lines *l, char **text, size_t *len,
                     const char *path, struct trace_error *e)
{
    for (;;) {
        char *start = l->buf + l->pos, *end;
        char *nl = memchr(start + l->scan, '\n', l->len - l->pos - l->scan);
        int rc;
        if (nl || (l->eof && l->pos < l->len)) {
            end = nl ? nl : l->buf + l->len;
            l->pos = (size_t)(end - l->buf) + (nl != NULL);
            l->scan = 0;
            if (end > start && end[-1] == '\r')
                end--;
            *end = '\0';
            *text = start;
            *len = (size_t)(end - start);
            l->line++;
            return 1;
        }
        if (l->eof)
            return 0;
        l->scan = l->len - l->pos;
        if ((rc = refill(l, path, e)) != 0)
            return rc;
    }
}

/* ---- jobs -------------------------------------------------------------- */

/* Splits text at tabs in place; returns the field count (only the first
 * GAVEL_MAX_FIELDS + 1 are stored). */
static size_t split(char *text, size_t len, char **f, size_t *flen)
{
    size_t n = 0;
    char *end = text + len;
    for (char *p = text;; n++) {
        char *tab = memchr(p, '\t', (size_t)(end - p));
        char *stop = tab ? tab : end;
        if (n <= GAVEL_MAX_FIELDS) {
            f[n] = p;
            flen[n] = (size_t)(stop - p);
        }
        if (!tab)
            return n + 1;
        *tab = '\0';
        p = tab + 1;
    }
}

/* Chooses the layout of a line with n fields or fails. */
static int check_count(struct gavel *r, size_t n, struct trace_error *e)
{
    const struct layout *l = r->layout;
    if (!l) {
        for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
            if (layouts[i].nfields == n)
                l = r->layout = &layouts[i];
        if (!l) {
            trace_error_set(e, r->b.path, r->in.line, 0,
                            "expected 7 or 10 tab-separated fields, got %zu",
                            n);
            return TRACE_EPARSE;
        }
    }
    if (n == l->nfields)
        return 0;
    trace_error_set(
        e, r->b.path, r->in.line, (long)(n < l->nfields ? n : l->nfields) + 1,
        "expected %zu tab-separated fields, got %zu", l->nfields, n);
    return TRACE_EPARSE;
}

static int field_failed(const struct gavel *r, int field, const char *name,
                        const char *rule, int status, char **f, size_t *flen,
                        struct trace_error *e)
{
    return trace_cell_error(e, r->b.path, r->in.line, field + 1, name, rule,
                            status, f[field], flen[field]);
}

/* Checks the numbers of a split line into *job. */
static int check_numbers(const struct gavel *r, char **f, size_t *flen,
                         struct trace_job *job, struct trace_error *e)
{
    const struct layout *l = r->layout;
    int64_t v;
    int rc;
#define FAIL(field, name, rule)                                                \
    return field_failed(r, l->field, name, rule, rc, f, flen, e)
    if ((rc = trace_cell_int(f[l->data_dir], flen[l->data_dir], 0, 1, &v)))
        FAIL(data_dir, "needs_data_dir", "0 or 1");
    if ((rc = trace_cell_int(f[l->steps], flen[l->steps], 1, INT64_MAX,
                             &job->iterations)))
        FAIL(steps, "total_steps", "an integer >= 1");
    if ((rc = trace_cell_int(f[l->sf], flen[l->sf], 1, INT32_MAX, &v)))
        FAIL(sf, "scale_factor", "an integer >= 1");
    job->num_gpus = (int32_t)v;
    if ((rc = trace_cell_double(f[l->arrival], flen[l->arrival], 0,
                                &job->submit_time)))
        FAIL(arrival, "arrival_time", "a number >= 0");
    if (l->weight < 0)
        return 0;
    if ((rc =
             trace_cell_double(f[l->weight], flen[l->weight], 1, &job->weight)))
        FAIL(weight, "priority_weight", "a number > 0");
    if ((rc = trace_csv_double(f[l->slo], flen[l->slo], &job->slo)))
        FAIL(slo, "SLO", "a number");
    /* Gavel: a negative SLO is no SLO; "-0" is stored as +0 */
    job->slo = job->slo < 0 ? NAN : job->slo + 0.0;
    return 0;
#undef FAIL
}

/* Checks one non-empty line and appends its job. */
static int add_line(struct gavel *r, char *text, size_t len,
                    struct trace_error *e)
{
    char *f[GAVEL_MAX_FIELDS + 1], id[GAVEL_MAX_BASE + 32];
    size_t flen[GAVEL_MAX_FIELDS + 1], n;
    struct trace_job job = trace_job_defaults;
    const char *nul = memchr(text, '\0', len);
    int rc, idlen;
    if (nul) {
        size_t field = 1;
        for (const char *p = text; p < nul; p++)
            field += *p == '\t';
        trace_error_set(e, r->b.path, r->in.line, (long)field,
                        "line contains a NUL byte");
        return TRACE_EPARSE;
    }
    n = split(text, len, f, flen);
    if ((rc = check_count(r, n, e)) != 0)
        return rc;
    if (flen[r->layout->type] == 0)
        return field_failed(r, r->layout->type, "job_type", NULL,
                            TRACE_NUM_EMPTY, f, flen, e);
    if ((rc = check_numbers(r, f, flen, &job, e)) != 0)
        return rc;
    if (trace_strpool_intern(r->b.trace->pool, f[r->layout->type],
                             flen[r->layout->type], &job.job_type)) {
        trace_error_set(e, r->b.path, r->in.line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    idlen =
        snprintf(id, sizeof id, "%.*s-%ld", r->base_len, r->base, r->in.line);
    return trace_build_push(&r->b, &job, id, (size_t)idlen, r->in.line, 0, e);
}

static int read_jobs(struct gavel *r, struct trace_error *e)
{
    for (;;) {
        struct trace_error why;
        char *text;
        size_t len;
        int rc = next_line(&r->in, &text, &len, r->b.path, &why);
        if (rc < 0) { /* the file cannot be read on: never skipped */
            *e = why;
            return rc;
        }
        if (rc == 0)
            return 0;
        if (len == 0)
            continue;
        rc = add_line(r, text, len, &why);
        if (rc && (rc = trace_build_skip(&r->b, rc, &why, e)) != 0)
            return rc;
    }
}

/* The file name without directory and ".trace", for the job ids. */
static void set_base(struct gavel *r, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t len, suffix = strlen(".trace");
    r->base = slash ? slash + 1 : path;
    len = strlen(r->base);
    if (len > suffix && strcmp(r->base + len - suffix, ".trace") == 0)
        len -= suffix;
    r->base_len = (int)(len > GAVEL_MAX_BASE ? GAVEL_MAX_BASE : len);
}

int trace_read_gavel(const char *path, const struct trace_options *opt,
                     struct trace **out, struct trace_error *err)
{
    struct gavel r;
    struct trace_error e;
    int rc;
    memset(&r, 0, sizeof r);
    memset(&e, 0, sizeof e);
    set_base(&r, path);
    rc = trace_build_start(&r.b, path, opt ? opt->flags : 0, TRACE_FMT_GAVEL,
                           &e);
    if (!rc)
        rc = lines_open(&r.in, path, &e);
    if (!rc)
        rc = read_jobs(&r, &e);
    lines_close(&r.in);
    return trace_build_end(&r.b, rc, &e, out, err);
}
