/* rows.c -- the rows of hetsim's CSV results: formatted straight into one
 * large block, written out whole when less than a row's worth of room is
 * left (one fwrite per block, not one per row); and the rows of jobs.csv,
 * which the whole-trace run writes after the run and the streaming run as
 * each job retires (stream_run.c), the same bytes either way. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define ROWS_BLOCK ((size_t)1 << 18)

void cli_rows_open(struct cli_rows *o, FILE *f)
{
    o->f = f;
    o->b = malloc(ROWS_BLOCK); /* NULL: a row at a time, from spare */
    o->n = 0;
}

static void rows_flush(struct cli_rows *o)
{
    if (o->n)
        fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

char *cli_rows_room(struct cli_rows *o)
{
    if (!o->b)
        return o->spare;
    if (ROWS_BLOCK - o->n < CLI_ROW_MAX)
        rows_flush(o);
    return o->b + o->n;
}

void cli_rows_put(struct cli_rows *o, size_t len)
{
    if (o->b)
        o->n += len;
    else /* the write's error shows when the file is committed */
        fwrite(o->spare, 1, len, o->f);
}

void cli_rows_close(struct cli_rows *o)
{
    rows_flush(o);
    free(o->b);
    o->b = NULL;
}

const char cli_jobs_header[] =
    "job_id,submit_time,start_time,finish_time,jct,wait,num_gpus,"
    "gpu_type,preemptions,status,reason\n";

static const char *status_name(int state, int failure)
{
    switch (state) {
    case JOB_COMPLETED: return "completed";
    case JOB_FAILED:
        return failure == JOB_FAIL_UNSCHEDULABLE ? "unschedulable"
               : failure == JOB_FAIL_DROPPED     ? "dropped"
                                                 : "failed";
    default: return "unfinished";
    }
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

void cli_job_fields(const struct sim *s, const struct cluster *c, uint32_t i,
                    const char *id, char *why, size_t cap,
                    struct cli_job_fields *f)
{
    const struct sim_job *j = sim_job(s, i);
    *f = (struct cli_job_fields){.submit = j->submit_time,
                                 .start = j->start_time,
                                 .finish = j->finish_time,
                                 .run_s = j->run_s,
                                 .num_gpus = j->num_gpus,
                                 .gpu_type = j->gpu_type,
                                 .preemptions = j->preemptions,
                                 .state = j->state,
                                 .failure = j->failure,
                                 .id = id,
                                 .reason = cli_job_reason(s, c, i, why, cap)};
}

const char *cli_job_shown_id(const char *id)
{
    return strlen(id) > CLI_ID_MAX ? "(id too long)" : id;
}

void cli_jobs_put(struct cli_rows *o, const struct cluster *c,
                  const struct cli_job_fields *f)
{
    char *line = cli_rows_room(o), *p = line;
    p = put_str(p, cli_job_shown_id(f->id));
    *p++ = ',';
    char *submit = p;
    p = cli_put_double(p, f->submit);
    if (f->state == JOB_COMPLETED) {
        double jct = f->finish - f->submit;
        double v[] = {f->finish, jct, jct - f->run_s};
        *p++ = ',';
        if (f->start == f->submit) { /* most jobs: the same text */
            size_t n = (size_t)(p - 1 - submit);
            memcpy(p, submit, n);
            p += n;
        } else
            p = cli_put_double(p, f->start);
        for (int k = 0; k < 3; k++) {
            *p++ = ',';
            p = cli_put_double(p, v[k]);
        }
    } else
        p = put_str(p, ",,,,");
    *p++ = ',';
    p = cli_put_int(p, f->num_gpus);
    *p++ = ',';
    if (f->state == JOB_COMPLETED)
        p = put_str(p, c->types[f->gpu_type].name);
    *p++ = ',';
    p = cli_put_int(p, f->preemptions);
    *p++ = ',';
    p = put_str(p, status_name(f->state, f->failure));
    *p++ = ',';
    p = put_str(p, f->reason);
    *p++ = '\n';
    cli_rows_put(o, (size_t)(p - line));
}

void cli_jobs_row(struct cli_rows *o, const struct sim *s,
                  const struct cluster *c, uint32_t i, const char *id)
{
    char why[160];
    struct cli_job_fields f;
    cli_job_fields(s, c, i, id, why, sizeof why, &f);
    cli_jobs_put(o, c, &f);
}

void cli_timeline_header(FILE *f, const struct cluster *c)
{
    fputs("time,queued,busy_gpus", f);
    for (int32_t g = 0; g < c->ntypes; g++)
        fprintf(f, ",busy_%s", c->types[g].name);
    fputs(",frag_gpus\n", f);
}

char *cli_timeline_prefix(char *p, double time, int32_t queued, int32_t busy,
                          const int32_t *busy_by_type, int32_t ntypes)
{
    p = cli_put_double(p, time);
    *p++ = ',';
    p = cli_put_int(p, queued);
    *p++ = ',';
    p = cli_put_int(p, busy);
    for (int32_t t = 0; t < ntypes; t++) {
        *p++ = ',';
        p = cli_put_int(p, busy_by_type[t]);
    }
    *p++ = ',';
    return p;
}

char *cli_timeline_row(char *p, double time, int32_t queued, int32_t busy,
                       const int32_t *busy_by_type, int32_t ntypes, double frag)
{
    p = cli_timeline_prefix(p, time, queued, busy, busy_by_type, ntypes);
    p = cli_put_double(p, frag);
    *p++ = '\n';
    return p;
}
