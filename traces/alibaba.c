/* alibaba.c -- the pod lists of Alibaba's GPU cluster trace 2023
 * (clusterdata, cluster-trace-gpu-v2023, openb_pod_list_*.csv; Weng et al.,
 * "Beware of Fragmentation", USENIX ATC'23):
 *
 *   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
 *   creation_time,deletion_time,scheduled_time
 *
 * Columns are found by name (all eleven are required, unknown ones are
 * ignored). Times are seconds from the trace start.
 *
 * A pod becomes a job: name -> id (unique among the kept pods), cpu_milli,
 * memory_mib -> host_mem_mb, num_gpu -> num_gpus, gpu_milli (thousandths of
 * one GPU; 1..1000 for a pod with GPUs, and 1000 when num_gpu > 1),
 * gpu_spec -> gpu_types ('|'-separated models, empty: any), qos, pod_phase
 * -> status (Running, Succeeded, Failed or Pending).
 * submit_time = creation_time, when the user asked for the pod: the wait
 * until scheduled_time is what a scheduler under test decides anew.
 * duration = deletion_time - scheduled_time, the time the pod held its GPUs.
 *
 * Pods are dropped or mended in documented ways, each counted in the trace's
 * notes (`trace stats` prints them), in this order of precedence:
 *   - num_gpu 0 (CPU-only pods): dropped, nothing for a GPU scheduler;
 *   - scheduled_time empty (never scheduled, the Pending pods): dropped;
 *   - deletion_time empty (still running when the trace ends): ended at the
 *     trace's last timestamp (the largest time of any row), as the trace
 *     itself does for pods still running (deletion_time 12902960 in
 *     openb_pod_list_default.csv);
 *   - duration <= 0: dropped.
 * Malformed rows are errors (FILE:LINE:COLUMN), or counted and skipped under
 * TRACE_SKIP_BAD_ROWS, as in every reader. */
#include "traces_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    COL_NAME,
    COL_CPU_MILLI,
    COL_MEMORY_MIB,
    COL_NUM_GPU,
    COL_GPU_MILLI,
    COL_GPU_SPEC,
    COL_QOS,
    COL_POD_PHASE,
    COL_CREATION,
    COL_DELETION,
    COL_SCHEDULED,
    NCOLS
};

static const char *const names[NCOLS] = {
    "name",          "cpu_milli",     "memory_mib",    "num_gpu",
    "gpu_milli",     "gpu_spec",      "qos",           "pod_phase",
    "creation_time", "deletion_time", "scheduled_time"};

static const char *const phases[] = {"Running", "Succeeded", "Failed",
                                     "Pending"};

#define NOTE_CPU_ONLY "CPU-only pods (num_gpu 0) dropped"
#define NOTE_UNSCHEDULED "pods never scheduled (no scheduled_time) dropped"
#define NOTE_OPEN                                                              \
    "pods without deletion_time ended at the trace's last timestamp"
#define NOTE_NO_RUN "pods with deletion_time <= scheduled_time dropped"

/* A kept pod without deletion_time: its duration waits for the last time. */
struct open_pod {
    size_t job;
    double scheduled;
};

struct alibaba {
    struct trace_build b;
    struct trace_csv *csv;
    long field_of[NCOLS];
    size_t nfields;
    double last_time;      /* the largest time of any row so far */
    struct open_pod *open; /* (nopen) */
    size_t nopen, open_cap;
};

/* The times of a row; NAN where the cell is empty. */
struct pod_times {
    double creation, deletion, scheduled;
};

static const struct trace_csv_field *
cell(const struct alibaba *r, const struct trace_csv_row *row, int c)
{
    return &row->fields[r->field_of[c]];
}

static int cell_failed(const struct alibaba *r, const struct trace_csv_row *row,
                       int c, const char *rule, int status,
                       struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, c);
    return trace_cell_error(e, r->b.path, row->line, r->field_of[c] + 1,
                            names[c], rule, status, f->text, f->len);
}

/* An integer cell in [min, max]. */
static int get_int(const struct alibaba *r, const struct trace_csv_row *row,
                   int c, int64_t min, int64_t max, const char *rule,
                   int64_t *out, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, c);
    int rc = trace_cell_int(f->text, f->len, min, max, out);
    return rc ? cell_failed(r, row, c, rule, rc, e) : 0;
}

/* A time cell (>= 0); empty gives NAN when optional. */
static int get_time(const struct alibaba *r, const struct trace_csv_row *row,
                    int c, int optional, double *out, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, c);
    int rc = trace_cell_double(f->text, f->len, 0, out);
    if (rc == TRACE_NUM_EMPTY && optional) {
        *out = NAN;
        return 0;
    }
    return rc ? cell_failed(r, row, c, "a number >= 0", rc, e) : 0;
}

/* Reads the three times; a pod is scheduled and deleted after it is
 * created. */
static int check_times(const struct alibaba *r, const struct trace_csv_row *row,
                       struct pod_times *t, struct trace_error *e)
{
    int rc;
    if ((rc = get_time(r, row, COL_CREATION, 0, &t->creation, e)) ||
        (rc = get_time(r, row, COL_DELETION, 1, &t->deletion, e)) ||
        (rc = get_time(r, row, COL_SCHEDULED, 1, &t->scheduled, e)))
        return rc;
    if (t->scheduled < t->creation)
        return cell_failed(r, row, COL_SCHEDULED, ">= creation_time",
                           TRACE_NUM_BAD, e);
    if (t->deletion < t->creation)
        return cell_failed(r, row, COL_DELETION, ">= creation_time",
                           TRACE_NUM_BAD, e);
    return 0;
}

/* Reads the resources asked into *job. */
static int check_resources(const struct alibaba *r,
                           const struct trace_csv_row *row,
                           struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, COL_MEMORY_MIB);
    int64_t cpu, gpus, milli;
    int rc;
    if ((rc = get_int(r, row, COL_CPU_MILLI, 0, INT32_MAX, "an integer >= 0",
                      &cpu, e)) ||
        (rc = get_int(r, row, COL_NUM_GPU, 0, INT32_MAX, "an integer >= 0",
                      &gpus, e)) ||
        (rc = get_int(r, row, COL_GPU_MILLI, 0, 1000,
                      "an integer from 0 to 1000", &milli, e)))
        return rc;
    if ((rc = trace_cell_double(f->text, f->len, 0, &job->host_mem_mb)))
        return cell_failed(r, row, COL_MEMORY_MIB, "a number >= 0", rc, e);
    if (gpus >= 1 && milli == 0)
        return cell_failed(r, row, COL_GPU_MILLI,
                           "from 1 to 1000 for a pod with GPUs", TRACE_NUM_BAD,
                           e);
    if (gpus > 1 && milli != 1000)
        return cell_failed(r, row, COL_GPU_MILLI, "1000 when num_gpu > 1",
                           TRACE_NUM_BAD, e);
    job->cpu_milli = (int32_t)cpu;
    job->num_gpus = (int32_t)gpus;
    job->gpu_milli = (int32_t)milli;
    return 0;
}

/* Checks every cell of a row: name, resources, phase, times. */
static int check_row(const struct alibaba *r, const struct trace_csv_row *row,
                     struct trace_job *job, struct pod_times *t,
                     struct trace_error *e)
{
    const struct trace_csv_field *f = cell(r, row, COL_NAME);
    size_t p = 0;
    int rc;
    if (f->len == 0)
        return cell_failed(r, row, COL_NAME, NULL, TRACE_NUM_EMPTY, e);
    if ((rc = check_resources(r, row, job, e)) != 0)
        return rc;
    f = cell(r, row, COL_POD_PHASE);
    while (p < sizeof phases / sizeof phases[0] && strcmp(f->text, phases[p]))
        p++;
    if (p == sizeof phases / sizeof phases[0])
        return cell_failed(r, row, COL_POD_PHASE,
                           "Running, Succeeded, Failed or Pending",
                           f->len ? TRACE_NUM_BAD : TRACE_NUM_EMPTY, e);
    return check_times(r, row, t, e);
}

static int note(struct alibaba *r, const char *what, long line,
                struct trace_error *e)
{
    if (trace_note(r->b.trace, what) == 0)
        return 0;
    trace_error_set(e, r->b.path, line, 0, "too many kinds of notes");
    return TRACE_ENOMEM;
}

/* Interns the texts of a checked row into *job and appends it. */
static int push_pod(struct alibaba *r, const struct trace_csv_row *row,
                    struct trace_job *job, struct trace_error *e)
{
    struct trace_strpool *pool = r->b.trace->pool;
    const struct trace_csv_field *spec = cell(r, row, COL_GPU_SPEC);
    const struct trace_csv_field *qos = cell(r, row, COL_QOS);
    const struct trace_csv_field *phase = cell(r, row, COL_POD_PHASE);
    const struct trace_csv_field *name = cell(r, row, COL_NAME);
    int rc = trace_build_check_id(&r->b, name->text, name->len, row->line,
                                  r->field_of[COL_NAME] + 1, e);
    if (rc)
        return rc;
    if (trace_strpool_intern(pool, spec->text, spec->len, &job->gpu_types) ||
        trace_strpool_intern(pool, qos->text, qos->len, &job->qos) ||
        trace_strpool_intern(pool, phase->text, phase->len, &job->status)) {
        trace_error_set(e, r->b.path, row->line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    return trace_build_push(&r->b, job, name->text, name->len, row->line, 1, e);
}

/* Remembers the last job pushed: it ends at the trace's last timestamp. */
static int add_open(struct alibaba *r, double scheduled, long line,
                    struct trace_error *e)
{
    if (r->nopen == r->open_cap) {
        size_t cap = r->open_cap ? 2 * r->open_cap : 64;
        struct open_pod *p = realloc(r->open, cap * sizeof *p);
        if (!p) {
            trace_error_set(e, r->b.path, line, 0, "out of memory");
            return TRACE_ENOMEM;
        }
        r->open = p;
        r->open_cap = cap;
    }
    r->open[r->nopen++] = (struct open_pod){r->b.trace->njobs - 1, scheduled};
    return 0;
}

/* Keeps, mends or drops a checked pod (see the top of the file). */
static int take_pod(struct alibaba *r, const struct trace_csv_row *row,
                    struct trace_job *job, const struct pod_times *t,
                    struct trace_error *e)
{
    int rc;
    job->submit_time = t->creation;
    job->duration = t->deletion - t->scheduled;
    if (job->num_gpus == 0)
        return note(r, NOTE_CPU_ONLY, row->line, e);
    if (isnan(t->scheduled))
        return note(r, NOTE_UNSCHEDULED, row->line, e);
    if (!isnan(t->deletion) && !(job->duration > 0))
        return note(r, NOTE_NO_RUN, row->line, e);
    if ((rc = push_pod(r, row, job, e)) != 0)
        return rc;
    return isnan(t->deletion) ? add_open(r, t->scheduled, row->line, e) : 0;
}

static void see_times(struct alibaba *r, const struct pod_times *t)
{
    if (t->creation > r->last_time)
        r->last_time = t->creation;
    if (t->deletion > r->last_time) /* false for NAN */
        r->last_time = t->deletion;
    if (t->scheduled > r->last_time)
        r->last_time = t->scheduled;
}

/* One record of the file (the loop is trace_csv_rows). */
static int alibaba_row(void *ctx, const struct trace_csv_row *row,
                       struct trace_error *why)
{
    struct alibaba *r = ctx;
    struct trace_job job = trace_job_defaults;
    struct pod_times t;
    int rc = check_row(r, row, &job, &t, why);
    if (!rc && (rc = take_pod(r, row, &job, &t, why)) == 0)
        see_times(r, &t); /* of every valid row, kept or dropped */
    return rc;
}

/* Ends the pods without deletion_time at the last timestamp; one scheduled
 * at that very time never ran and is dropped. */
static int close_open_pods(struct alibaba *r, struct trace_error *e)
{
    struct trace *t = r->b.trace;
    size_t w = 0, k = 0;
    for (size_t i = 0; i < r->nopen; i++) {
        struct trace_job *job = &t->jobs[r->open[i].job];
        job->duration = r->last_time - r->open[i].scheduled;
        if (note(r, job->duration > 0 ? NOTE_OPEN : NOTE_NO_RUN, job->line, e))
            return TRACE_ENOMEM;
    }
    for (size_t i = 0; i < t->njobs; i++) {
        size_t drop = k < r->nopen && r->open[k].job == i;
        k += drop;
        if (!drop || t->jobs[i].duration > 0)
            t->jobs[w++] = t->jobs[i];
    }
    t->njobs = w;
    return 0;
}

int trace_read_alibaba2023(const char *path, const struct trace_options *opt,
                           struct trace **out, struct trace_error *err)
{
    struct alibaba r;
    struct trace_error e;
    int rc;
    memset(&r, 0, sizeof r);
    memset(&e, 0, sizeof e);
    rc = trace_build_start(&r.b, path, opt ? opt->flags : 0,
                           TRACE_FMT_ALIBABA2023, &e);
    if (!rc)
        rc = trace_csv_open(path, &r.csv, &e);
    if (!rc)
        rc = trace_csv_header(r.csv, path, names, NCOLS, NCOLS, r.field_of,
                              &r.nfields, &r.b, &e);
    if (!rc)
        rc = trace_csv_rows(r.csv, &r.b, r.nfields, alibaba_row, &r, &e);
    if (!rc && r.nopen)
        rc = close_open_pods(&r, &e);
    trace_csv_close(r.csv);
    free(r.open);
    return trace_build_end(&r.b, rc, &e, out, err);
}
