/* share_io.c -- `hetsim share`: reading the inputs into sharing jobs, the
 * utilization estimates of --util-pack, and the result files.
 *
 * Estimated GPU utilization of a job (for --util-pack): its trace's
 * gpu_util_peak column (percent, README "Native CSV") when it has one --
 * what a utilization predictor in the manner of Yeung et al. would give.
 * Otherwise, with --throughputs, that of its job type A, read off Gavel's
 * pair measurements on the cluster's reference GPU type: u(A) = 1 - the mean,
 * over the trace's job types B measured with A, of B's throughput next to A
 * over B's throughput alone, i.e. the share of the GPU that A takes from
 * whoever it shares with (0: harmless, 1: B stops). A type with no measured
 * partner gets 1 and never shares. A one-GPU job of type A then asks ceil(1000
 * u(A) / BOUND) milli-GPU, so two jobs share a GPU exactly when u(A) + u(B) <=
 * BOUND (up to that rounding). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plots.h"
#include "share_internal.h"

/* u(A) as above, over the distinct job types TYPES (N) of the trace. */
static double util_of(const struct share_ctx *x, uint32_t a,
                      const uint32_t *types, size_t n)
{
    const char *worker = x->cluster->types[x->cluster->reference].name;
    const char *sa = trace_str(x->trace, a);
    double sum = 0, ta, tb, alone;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *sb = trace_str(x->trace, types[i]);
        if (trace_pair_throughput(x->matrix, worker, sa, 1, sb, 1, &ta, &tb) ==
                0 &&
            trace_throughput(x->matrix, worker, sb, 1, 0, &alone) >= 0 &&
            alone > 0) {
            sum += fmin(tb / alone, 1);
            k++;
        }
    }
    return k ? fmax(0, 1 - sum / (double)k) : 1;
}

/* u of job J: its trace's gpu_util_peak (percent) when given, else the
 * estimate of its job type from the pairs (UTIL[i] of TYPES[i]), else -1. */
static double job_util(const struct share_ctx *x, size_t j,
                       const uint32_t *types, const double *util, size_t n)
{
    double peak = x->trace->jobs[j].use_peak[TRACE_USE_GPU_UTIL];
    size_t i = 0;
    if (!isnan(peak))
        return fmin(peak / 100, 1);
    while (i < n && types[i] != x->jobs[j].job_type)
        i++;
    return i < n ? util[i] : -1;
}

/* The distinct job types of the trace into TYPES; their number. */
static size_t trace_types(const struct trace *t, uint32_t *types)
{
    size_t n = 0;
    for (size_t j = 0; j < t->njobs; j++) {
        uint32_t k = t->jobs[j].job_type;
        size_t i = 0;
        while (i < n && types[i] != k)
            i++;
        if (i == n && k != TRACE_NOSTR)
            types[n++] = k;
    }
    return n;
}

/* Shrinks the demand of every one-GPU job with a utilization estimate to
 * that estimate over the bound. */
static int util_pack(const struct share_options *o, struct share_ctx *x)
{
    size_t n = 0;
    uint32_t *types = malloc((x->njobs ? x->njobs : 1) * sizeof *types);
    double *util = malloc((x->njobs ? x->njobs : 1) * sizeof *util);
    if (!types || !util) {
        free(types);
        free(util);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (x->matrix)
        n = trace_types(x->trace, types);
    for (size_t i = 0; i < n; i++)
        util[i] = util_of(x, types[i], types, n);
    for (size_t j = 0; j < x->njobs; j++) {
        struct share_demand *d = &x->jobs[j].demand;
        double u = job_util(x, j, types, util, n);
        if (u < 0 || d->num_gpus != 1 || d->gpu_milli != SHARE_MILLI)
            continue;
        double milli = ceil(SHARE_MILLI * u / o->util_bound);
        if (milli < SHARE_MILLI) {
            d->gpu_milli = milli < 1 ? 1 : (int32_t)milli;
            x->packed++;
        }
    }
    free(types);
    free(util);
    return CLI_OK;
}

static int build_jobs(const struct share_options *o, struct share_ctx *x)
{
    const struct trace *t = x->trace;
    struct share_demand *d = malloc((t->njobs ? t->njobs : 1) * sizeof *d);
    int rc = CLI_OK;
    x->jobs = calloc(t->njobs ? t->njobs : 1, sizeof *x->jobs);
    if (!x->jobs || !d) {
        free(d);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t j = 0; j < t->njobs && rc == CLI_OK; j++) {
        const struct trace_job *tj = &t->jobs[j];
        struct share_job *sj = &x->jobs[j];
        rc = cli_share_demand(x->cluster, t, o->trace, j, &sj->demand);
        if (rc == CLI_OK && !(tj->duration > 0 && tj->duration < INFINITY)) {
            cli_error_at(o->trace, (long)tj->line, 0,
                         "duration: a run time > 0 is needed");
            rc = CLI_BAD_INPUT;
        }
        sj->submit_time = tj->submit_time;
        sj->work = tj->duration;
        sj->job_type = tj->job_type;
        x->njobs = j + 1;
    }
    if (rc == CLI_OK && o->util_bound > 0)
        rc = util_pack(o, x);
    for (size_t j = 0; j < x->njobs && rc == CLI_OK; j++)
        d[j] = x->jobs[j].demand;
    if (rc == CLI_OK && share_workload_build(d, x->njobs, &x->w)) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    free(d);
    return rc;
}

int share_load(const struct share_options *o, struct share_ctx *x)
{
    int rc = cli_load_cluster(o->cluster, &x->cluster);
    if (!rc && strncmp(o->cluster, "alibaba2023:", 12) == 0)
        rc =
            cli_share_hosts(o->cluster, x->cluster, &x->host_cpu, &x->host_mem);
    if (!rc && o->throughputs)
        rc = cli_load_throughputs(o->throughputs, &x->matrix);
    if (!rc)
        rc = cli_read_trace(o->trace, o->format, &o->trace_opt, &x->trace);
    if (!rc && x->trace->njobs == 0) {
        cli_error("%s: no jobs", o->trace);
        rc = CLI_BAD_INPUT;
    }
    return rc ? rc : build_jobs(o, x);
}

void share_ctx_free(struct share_ctx *x)
{
    cluster_destroy(x->cluster);
    trace_destroy(x->trace);
    trace_throughputs_destroy(x->matrix);
    free(x->host_cpu);
    free(x->host_mem);
    free(x->jobs);
    share_workload_destroy(x->w);
    free(x->steps);
}

/* ---- results ------------------------------------------------------------ */

static int write_summary(const struct share_options *o,
                         const struct share_ctx *x,
                         const struct share_run_summary *m)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "placement", pol_share_rule_name(o->rule));
    cli_json_number(root, "interference", o->interference);
    cli_json_number(root, "util_pack_bound", o->util_bound);
    cJSON_AddNumberToObject(root, "jobs_total", (double)m->jobs);
    cJSON_AddNumberToObject(root, "jobs_completed", (double)m->completed);
    cJSON_AddNumberToObject(root, "jobs_unschedulable",
                            (double)m->unschedulable);
    cJSON_AddNumberToObject(root, "jobs_util_packed", (double)x->packed);
    cli_json_number(root, "makespan_s", m->makespan_s);
    cli_json_number(root, "avg_jct_s", m->avg_jct_s);
    cli_json_number(root, "avg_wait_s", m->avg_wait_s);
    cli_json_number(root, "gpu_utilization", m->gpu_utilization);
    cli_json_number(root, "effective_utilization", m->effective_utilization);
    cli_json_number(root, "frag_rate_mean", m->frag_rate_mean);
    return cli_write_json_file(o->out, "summary.json", root);
}

static int write_timeline(const char *dir, const struct share_ctx *x)
{
    struct cli_atomic a;
    char b[4][32];
    double gpus = x->cluster->total_gpus;
    if (cli_atomic_open(&a, dir, "timeline.csv"))
        return -1;
    fputs("time,allocated_gpus,frag_gpus,frag_rate\n", a.f);
    for (size_t i = 0; i < x->nsteps; i++) {
        const struct share_step *s = &x->steps[i];
        fprintf(a.f, "%s,%s,%s,%s\n", cli_fmt_double(b[0], s->time),
                cli_fmt_double(b[1], (double)s->used_milli / SHARE_MILLI),
                cli_fmt_double(b[2], s->frag / SHARE_MILLI),
                cli_fmt_double(b[3], s->frag / SHARE_MILLI / gpus));
    }
    return cli_atomic_commit(&a);
}

static int write_jobs(const char *dir, const struct share_ctx *x)
{
    struct cli_atomic a;
    char b[4][32];
    if (cli_atomic_open(&a, dir, "jobs.csv"))
        return -1;
    fputs("job_id,submit_time,start_time,finish_time,node,gpu,gpu_milli\n",
          a.f);
    for (size_t j = 0; j < x->njobs; j++) {
        const struct share_job *s = &x->jobs[j];
        int done = s->state == JOB_COMPLETED;
        fprintf(a.f, "%s,%s,%s,%s,%d,%d,%d\n",
                trace_str(x->trace, x->trace->jobs[j].id),
                cli_fmt_double(b[0], s->submit_time),
                done ? cli_fmt_double(b[1], s->start_time) : "",
                done ? cli_fmt_double(b[2], s->finish_time) : "", s->alloc.node,
                s->alloc.gpu, s->demand.gpu_milli);
    }
    return cli_atomic_commit(&a);
}

/* Allocated and fragmented GPU over time, one chart. */
static int chart(const char *dir, const struct share_ctx *x)
{
    size_t n = x->nsteps;
    double *col = malloc((n ? n : 1) * 3 * sizeof *col);
    if (!col || !n) {
        free(col);
        return col ? 0 : -1;
    }
    for (size_t i = 0; i < n; i++) {
        col[i] = x->steps[i].time;
        col[n + i] = (double)x->steps[i].used_milli / SHARE_MILLI;
        col[2 * n + i] = x->steps[i].frag / SHARE_MILLI;
    }
    struct plot_series s[2] = {{"allocated GPUs", col + n, n},
                               {"fragmented GPUs (FGD)", col + 2 * n, n}};
    struct plot_chart c = {.dir = dir,
                           .name = "sharing",
                           .title = "GPU allocated and fragmented over time",
                           .xlabel = "time (s)",
                           .ylabel = "GPUs"};
    int rc = plot_steps(&c, col, n, s, 2);
    free(col);
    return cli_chart_check(rc, "sharing");
}

int share_write(const struct share_options *o, const struct share_ctx *x,
                const struct share_run_summary *m)
{
    if (cli_mkdirs(o->out) || write_summary(o, x, m) ||
        write_timeline(o->out, x) || write_jobs(o->out, x)) {
        cli_error("%s: cannot write the results", o->out);
        return CLI_FAILURE;
    }
    if (o->plots && chart(o->out, x))
        return CLI_FAILURE;
    if (!o->quiet)
        printf("%s: %zu of %zu jobs completed, avg JCT %.1f s, makespan "
               "%.1f s,\nGPU utilization %.4f (effective %.4f), "
               "fragmentation %.4f of the GPUs on average\n",
               pol_share_rule_name(o->rule), m->completed, m->jobs,
               m->avg_jct_s, m->makespan_s, m->gpu_utilization,
               m->effective_utilization, m->frag_rate_mean);
    return CLI_OK;
}
