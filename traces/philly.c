/* philly.c -- the public Philly-derived CSV: one job a row,
 *   timestamp,duration,num_gpus,gpu_time,cluster
 * with timestamp "YYYY-MM-DD HH:MM:SS" in UTC, duration in seconds, gpu_time
 * = duration * num_gpus in GPU-seconds and the virtual cluster's name.
 *
 * Columns are found by name (unknown ones ignored). Timestamps become
 * seconds since 1970 by days-from-civil arithmetic, not timegm/mktime, so
 * the result does not depend on the locale or TZ. Rows need not be sorted:
 * each job keeps its absolute time while the file streams by, and the
 * earliest timestamp of the jobs kept is subtracted at the end, so the trace
 * starts at 0. gpu_time is redundant: it must equal duration * num_gpus
 * within 1e-6 (relative), else the row is an error that names both. Job ids
 * are "philly-<line>". */
#include "traces_internal.h"

#include <math.h>
#include <string.h>

enum {
    COL_TIMESTAMP,
    COL_DURATION,
    COL_NUM_GPUS,
    COL_GPU_TIME,
    COL_CLUSTER,
    NCOLS
};

static const char *const names[NCOLS] = {"timestamp", "duration", "num_gpus",
                                         "gpu_time", "cluster"};

struct philly {
    struct trace_build b;
    struct trace_csv *csv;
    long field_of[NCOLS];
    size_t nfields;
    double earliest; /* s since 1970 of the earliest job kept */
};

/* ---- timestamps -------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Howard
 * Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int64_t m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

/* Reads n digits at s; -1 if one is not a digit. */
static int64_t digits(const char *s, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DD HH:MM:SS" (blanks around allowed) to seconds since 1970 UTC.
 * Returns NULL, or what is wrong with the value. */
static const char *parse_timestamp(const char *s, size_t len, double *out)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    int64_t y, mo, d, h, mi, sec;
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len != sizeof shape - 1)
        return "must be \"YYYY-MM-DD HH:MM:SS\"";
    for (size_t i = 0; i < len; i++)
        if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
            return "must be \"YYYY-MM-DD HH:MM:SS\"";
    y = digits(s, 4);
    mo = digits(s + 5, 2);
    d = digits(s + 8, 2);
    h = digits(s + 11, 2);
    mi = digits(s + 14, 2);
    sec = digits(s + 17, 2);
    if (mo < 1 || mo > 12)
        return "has no month 1-12";
    if (d < 1 || d > days_in_month(y, mo))
        return "has a day that its month does not have";
    if (h > 23 || mi > 59 || sec > 59)
        return "must have a time from 00:00:00 to 23:59:59";
    *out =
        (double)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec);
    return NULL;
}

/* ---- rows -------------------------------------------------------------- */

static const struct trace_csv_field *
cell(const struct philly *p, const struct trace_csv_row *row, int c)
{
    return &row->fields[p->field_of[c]];
}

static int cell_failed(const struct philly *p, const struct trace_csv_row *row,
                       int c, const char *rule, int status,
                       struct trace_error *e)
{
    const struct trace_csv_field *f = cell(p, row, c);
    return trace_cell_error(e, p->b.path, row->line, p->field_of[c] + 1,
                            names[c], rule, status, f->text, f->len);
}

/* Checks that gpu_time is duration * num_gpus. */
static int check_gpu_time(const struct philly *p,
                          const struct trace_csv_row *row,
                          const struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(p, row, COL_GPU_TIME);
    double gpu_time, want = job->duration * job->num_gpus;
    char buf[TRACE_SHOWN_SIZE];
    int rc = trace_cell_double(f->text, f->len, 0, &gpu_time);
    if (rc)
        return cell_failed(p, row, COL_GPU_TIME, "a number >= 0", rc, e);
    if (fabs(gpu_time - want) <= 1e-6 * want)
        return 0;
    trace_error_set(e, p->b.path, row->line, p->field_of[COL_GPU_TIME] + 1,
                    "gpu_time \"%s\" is not duration * num_gpus = %.15g * %d "
                    "= %.15g",
                    trace_shown(buf, f->text, f->len), job->duration,
                    (int)job->num_gpus, want);
    return TRACE_EPARSE;
}

/* Checks every cell of a row and fills *job with the numbers. */
static int check_row(struct philly *p, const struct trace_csv_row *row,
                     struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(p, row, COL_TIMESTAMP);
    const char *why = parse_timestamp(f->text, f->len, &job->submit_time);
    char buf[TRACE_SHOWN_SIZE];
    int64_t n;
    int rc;
    if (why) {
        trace_error_set(e, p->b.path, row->line, p->field_of[0] + 1,
                        "timestamp \"%s\" %s",
                        trace_shown(buf, f->text, f->len), why);
        return TRACE_EPARSE;
    }
    f = cell(p, row, COL_DURATION);
    if ((rc = trace_cell_double(f->text, f->len, 1, &job->duration)) != 0)
        return cell_failed(p, row, COL_DURATION, "a number > 0", rc, e);
    f = cell(p, row, COL_NUM_GPUS);
    if ((rc = trace_cell_int(f->text, f->len, 1, INT32_MAX, &n)) != 0)
        return cell_failed(p, row, COL_NUM_GPUS, "an integer >= 1", rc, e);
    job->num_gpus = (int32_t)n;
    return check_gpu_time(p, row, job, e);
}

/* Writes "philly-<line>" to buf (32 bytes); returns its length. By hand:
 * snprintf cost an eighth of the read time. */
static size_t philly_id(char *buf, long line)
{
    char digits[24];
    size_t n = 0, len = sizeof "philly-" - 1;
    unsigned long v = (unsigned long)line;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(buf, "philly-", len);
    while (n)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

static int add_row(struct philly *p, const struct trace_csv_row *row,
                   struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(p, row, COL_CLUSTER);
    char id[32];
    size_t n = philly_id(id, row->line);
    if (trace_strpool_intern(p->b.trace->pool, f->text, f->len, &job->vc)) {
        trace_error_set(e, p->b.path, row->line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    if (trace_build_push(&p->b, job, id, n, row->line, 0, e))
        return TRACE_ENOMEM;
    if (p->b.trace->njobs == 1 || job->submit_time < p->earliest)
        p->earliest = job->submit_time;
    return 0;
}

/* One record of the file (the loop is trace_csv_rows). */
static int philly_row(void *ctx, const struct trace_csv_row *row,
                      struct trace_error *why)
{
    struct philly *p = ctx;
    struct trace_job job = trace_job_defaults;
    int rc = check_row(p, row, &job, why);
    return rc ? rc : add_row(p, row, &job, why);
}

int trace_read_philly(const char *path, const struct trace_options *opt,
                      struct trace **out, struct trace_error *err)
{
    struct philly p;
    struct trace_error e;
    int rc;
    memset(&p, 0, sizeof p);
    memset(&e, 0, sizeof e);
    rc = trace_build_start(&p.b, path, opt ? opt->flags : 0, TRACE_FMT_PHILLY,
                           &e);
    if (!rc)
        rc = trace_csv_open(path, &p.csv, &e);
    if (!rc)
        rc = trace_csv_header(p.csv, path, names, NCOLS, NCOLS, p.field_of,
                              &p.nfields, &p.b, &e);
    if (!rc)
        rc = trace_csv_rows(p.csv, &p.b, p.nfields, philly_row, &p, &e);
    trace_csv_close(p.csv);
    /* Exact: both are whole seconds far below 2^53. */
    for (size_t i = 0; !rc && i < p.b.trace->njobs; i++)
        p.b.trace->jobs[i].submit_time -= p.earliest;
    return trace_build_end(&p.b, rc, &e, out, err);
}
