/* tiresias.c -- the job CSV of the Tiresias simulator (SymbioticLab):
 *   job_id,num_gpu,submit_time,iterations,model_name,duration,interval
 *
 * Columns are found by name in any order (unknown ones ignored); job_id,
 * num_gpu, submit_time and duration are required, the rest optional.
 * submit_time (s, >= 0) is kept as written; duration is seconds (> 0);
 * model_name becomes both model and job_type; iterations (>= 1) is kept.
 * interval, the gap to the next arrival that Tiresias's generator wrote, is
 * checked (a number >= 0) but not stored: submit_time already says when each
 * job arrives. Job ids must be unique. */
#include "traces_internal.h"

#include <string.h>

enum {
    COL_JOB_ID,
    COL_NUM_GPU,
    COL_SUBMIT_TIME,
    COL_DURATION,
    COL_ITERATIONS,
    COL_MODEL_NAME,
    COL_INTERVAL,
    NCOLS
};
#define NREQUIRED 4

static const char *const names[NCOLS] = {
    "job_id",     "num_gpu",    "submit_time", "duration",
    "iterations", "model_name", "interval"};

struct tiresias {
    struct trace_build b;
    struct trace_csv *csv;
    long field_of[NCOLS];
    size_t nfields;
};

/* The cell of column c, or NULL when the file has no such column. */
static const struct trace_csv_field *
cell(const struct tiresias *r, const struct trace_csv_row *row, int c)
{
    return r->field_of[c] < 0 ? NULL : &row->fields[r->field_of[c]];
}

static int cell_failed(const struct tiresias *r,
                       const struct trace_csv_row *row, int c, const char *rule,
                       int status, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, c);
    return trace_cell_error(e, r->b.path, row->line, r->field_of[c] + 1,
                            names[c], rule, status, f->text, f->len);
}

/* The optional numbers; an empty cell counts as absent. */
static int check_optional(const struct tiresias *r,
                          const struct trace_csv_row *row,
                          struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, COL_ITERATIONS);
    double interval;
    int rc;
    if (f &&
        (rc = trace_cell_int(f->text, f->len, 1, INT64_MAX,
                             &job->iterations)) != 0 &&
        rc != TRACE_NUM_EMPTY)
        return cell_failed(r, row, COL_ITERATIONS, "an integer >= 1", rc, e);
    f = cell(r, row, COL_INTERVAL);
    if (f && (rc = trace_cell_double(f->text, f->len, 0, &interval)) != 0 &&
        rc != TRACE_NUM_EMPTY)
        return cell_failed(r, row, COL_INTERVAL, "a number >= 0", rc, e);
    return 0;
}

/* Checks every known cell of a row and fills *job with the numbers. */
static int check_row(const struct tiresias *r, const struct trace_csv_row *row,
                     struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, COL_JOB_ID);
    int64_t n;
    int rc;
    if (f->len == 0)
        return cell_failed(r, row, COL_JOB_ID, NULL, TRACE_NUM_EMPTY, e);
    f = cell(r, row, COL_NUM_GPU);
    if ((rc = trace_cell_int(f->text, f->len, 1, INT32_MAX, &n)) != 0)
        return cell_failed(r, row, COL_NUM_GPU, "an integer >= 1", rc, e);
    job->num_gpus = (int32_t)n;
    f = cell(r, row, COL_SUBMIT_TIME);
    if ((rc = trace_cell_double(f->text, f->len, 0, &job->submit_time)) != 0)
        return cell_failed(r, row, COL_SUBMIT_TIME, "a number >= 0", rc, e);
    f = cell(r, row, COL_DURATION);
    if ((rc = trace_cell_double(f->text, f->len, 1, &job->duration)) != 0)
        return cell_failed(r, row, COL_DURATION, "a number > 0", rc, e);
    if ((rc = check_optional(r, row, job, e)) != 0)
        return rc;
    f = cell(r, row, COL_JOB_ID);
    return trace_build_check_id(&r->b, f->text, f->len, row->line,
                                r->field_of[COL_JOB_ID] + 1, e);
}

static int add_row(struct tiresias *r, const struct trace_csv_row *row,
                   struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, COL_MODEL_NAME);
    if (f &&
        trace_strpool_intern(r->b.trace->pool, f->text, f->len, &job->model)) {
        trace_error_set(e, r->b.path, row->line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    job->job_type = job->model;
    f = cell(r, row, COL_JOB_ID);
    return trace_build_push(&r->b, job, f->text, f->len, row->line, 1, e);
}

/* One record of the file (the loop is trace_csv_rows). */
static int tiresias_row(void *ctx, const struct trace_csv_row *row,
                        struct trace_error *why)
{
    struct tiresias *r = ctx;
    struct trace_job job = trace_job_defaults;
    int rc = check_row(r, row, &job, why);
    return rc ? rc : add_row(r, row, &job, why);
}

int trace_read_tiresias(const char *path, const struct trace_options *opt,
                        struct trace **out, struct trace_error *err)
{
    struct tiresias r;
    struct trace_error e;
    int rc;
    memset(&r, 0, sizeof r);
    memset(&e, 0, sizeof e);
    rc = trace_build_start(&r.b, path, opt ? opt->flags : 0, TRACE_FMT_TIRESIAS,
                           &e);
    if (!rc)
        rc = trace_csv_open(path, &r.csv, &e);
    if (!rc)
        rc = trace_csv_header(r.csv, path, names, NCOLS, NREQUIRED, r.field_of,
                              &r.nfields, &r.b, &e);
    if (!rc)
        rc = trace_csv_rows(r.csv, &r.b, r.nfields, tiresias_row, &r, &e);
    trace_csv_close(r.csv);
    return trace_build_end(&r.b, rc, &e, out, err);
}
