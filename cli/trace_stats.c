/* trace_stats.c -- `hetsim trace stats`: what a trace holds, and the load
 * it offers to a cluster; also how the trace commands read a trace with
 * its cluster and throughput matrix (struct trace_input).
 *
 * Offered load: rho = sum_j num_gpus_j * r_j / (T * C), with r_j the run
 * time of job j alone on the cluster's reference GPU type, T = last submit
 * - first submit, and C the cluster's GPUs in reference-GPU equivalents
 * (sum of gpus * speed / reference speed). It is the fraction of the
 * cluster the jobs would keep busy if each ran at reference speed: an
 * approximation that ignores placement, jobs that outlive the last
 * arrival, and faster or slower types than the reference. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_statistics_double.h>

#include "trace_cmd.h"

/* ---- reading a trace with its cluster and matrix ----------------------- */

/* Fills in->ref_s from the engine (with a cluster) or the trace. */
static int fill_reference(struct trace_input *in)
{
    const struct trace *t = in->trace;
    in->ref_s = malloc((t->njobs ? t->njobs : 1) * sizeof *in->ref_s);
    if (!in->ref_s) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (in->cluster) {
        in->sim = sim_create(in->cluster, 1);
        if (!in->sim) {
            cli_error("out of memory");
            return CLI_FAILURE;
        }
        in->w = (struct workload){
            .cluster = in->cluster, .sim = in->sim, .matrix = in->matrix};
        int rc = cli_workload_build(&in->w, t, in->path);
        if (rc)
            return rc;
    }
    for (size_t j = 0; j < t->njobs; j++) {
        double d = in->sim ? cli_trace_reference_s(in->sim, (uint32_t)j)
                           : t->jobs[j].duration;
        in->ref_s[j] = d > 0 && isfinite(d) ? d : NAN;
        if (isnan(in->ref_s[j]))
            in->no_runtime++;
    }
    return CLI_OK;
}

int cli_trace_input_load(struct trace_input *in, int need_durations)
{
    int rc = CLI_OK;
    if (in->cluster_arg)
        rc = cli_load_cluster(in->cluster_arg, &in->cluster);
    if (!rc)
        rc = cli_read_trace(in->path, in->format, &in->opt, &in->trace);
    if (rc)
        return rc;
    const char *mpath = in->throughputs ? in->throughputs
                        : in->cluster && in->cluster->throughputs[0]
                            ? in->cluster->throughputs
                            : NULL;
    if (mpath && (rc = cli_load_throughputs(mpath, &in->matrix)) != 0)
        return rc;
    size_t missing = 0;
    for (size_t j = 0; j < in->trace->njobs; j++)
        missing += !(in->trace->jobs[j].duration > 0);
    if (missing && (need_durations || in->cluster) &&
        (!in->matrix || !in->cluster))
        return cli_usage_error(
            in->cmd,
            "%s: %zu of %zu jobs have no duration (a %s trace): "
            "pass --throughputs FILE and --cluster C to take their run time "
            "on the cluster's reference GPU type",
            in->path, missing, in->trace->njobs,
            trace_format_name(in->trace->format));
    return fill_reference(in);
}

void cli_trace_input_free(struct trace_input *in)
{
    cli_workload_free(&in->w);
    sim_destroy(in->sim);
    trace_throughputs_destroy(in->matrix);
    trace_destroy(in->trace);
    cluster_destroy(in->cluster);
    free(in->ref_s);
    in->sim = NULL;
    in->matrix = NULL;
    in->trace = NULL;
    in->cluster = NULL;
    in->ref_s = NULL;
}

/* ---- the figures ------------------------------------------------------- */

struct gpu_bin {
    int32_t num_gpus;
    size_t jobs;
};

struct stats {
    double first, last, span; /* submit times, s */
    struct gpu_bin *bins;     /* (nbins) by num_gpus */
    size_t nbins;
    double *runtime; /* (nruntime) sorted, the known ref_s */
    size_t nruntime;
    double q[6];           /* min, p50, p90, p99, max, mean */
    double capacity, load; /* NAN without a cluster */
};

static const char *const q_names[6] = {"min", "p50", "p90",
                                       "p99", "max", "mean"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The GPU-count histogram: sorts a copy of the counts, then runs. */
static int gpu_histogram(const struct trace *t, struct stats *st)
{
    int32_t *g = malloc(t->njobs * sizeof *g);
    st->bins = malloc(t->njobs * sizeof *st->bins);
    if (!g || !st->bins) {
        free(g);
        return -1;
    }
    for (size_t j = 0; j < t->njobs; j++)
        g[j] = t->jobs[j].num_gpus;
    qsort(g, t->njobs, sizeof *g, cmp_int32);
    for (size_t j = 0; j < t->njobs; j++) {
        if (st->nbins == 0 || st->bins[st->nbins - 1].num_gpus != g[j])
            st->bins[st->nbins++] = (struct gpu_bin){g[j], 0};
        st->bins[st->nbins - 1].jobs++;
    }
    free(g);
    return 0;
}

static int compute(const struct trace_input *in, struct stats *st)
{
    const struct trace *t = in->trace;
    memset(st, 0, sizeof *st);
    st->first = INFINITY;
    st->last = -INFINITY;
    double work = 0, sum = 0;
    st->runtime = malloc(t->njobs * sizeof *st->runtime);
    if (!st->runtime || gpu_histogram(t, st) != 0)
        return -1;
    for (size_t j = 0; j < t->njobs; j++) {
        const struct trace_job *job = &t->jobs[j];
        st->first = fmin(st->first, job->submit_time);
        st->last = fmax(st->last, job->submit_time);
        if (isnan(in->ref_s[j]))
            continue;
        st->runtime[st->nruntime++] = in->ref_s[j];
        work += job->num_gpus * in->ref_s[j];
        sum += in->ref_s[j];
    }
    st->span = st->last - st->first;
    qsort(st->runtime, st->nruntime, sizeof *st->runtime, cmp_double);
    for (int k = 0; k < 6; k++)
        st->q[k] = NAN;
    if (st->nruntime) {
        const double p[4] = {0, 0.5, 0.9, 0.99};
        for (int k = 0; k < 4; k++)
            st->q[k] = gsl_stats_quantile_from_sorted_data(st->runtime, 1,
                                                           st->nruntime, p[k]);
        st->q[4] = st->runtime[st->nruntime - 1];
        st->q[5] = sum / (double)st->nruntime;
    }
    st->capacity = st->load = NAN;
    if (in->cluster) {
        st->capacity = cli_trace_capacity(in->cluster);
        st->load = st->span > 0 ? work / (st->span * st->capacity) : INFINITY;
    }
    return 0;
}

static void stats_free(struct stats *st)
{
    free(st->bins);
    free(st->runtime);
}

/* ---- the report -------------------------------------------------------- */

static const char *basis(const struct trace_input *in, char *buf, size_t n)
{
    if (!in->cluster)
        return "duration (s, as in the trace)";
    snprintf(buf, n, "run time alone on %s, the reference type (s)",
             in->cluster->types[in->cluster->reference].name);
    return buf;
}

/* The GPU types of MASK, as "K80, V100", into BUF. */
static const char *type_list(const struct cluster *c, uint32_t mask, char *buf,
                             size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int32_t t = 0; t < c->ntypes && len < n; t++)
        if (mask >> t & 1u)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                                    c->types[t].name);
    return buf;
}

/* What the matrix lacked and how it was filled (cli_fill). */
#define FILLS_SHOWN 20
static void print_fills(const struct trace_input *in)
{
    const struct workload *w = &in->w;
    printf("    %zu jobs ran at the throughput matrix's speeds",
           w->matrix_jobs);
    if (!w->fallback_jobs) {
        printf("; it measured every (job type, GPU count) they need\n");
        return;
    }
    printf(", %zu of them at a (job type,\n    GPU count) it did not "
           "measure on some GPU type (%zu only when spread over\n    "
           "servers): filled by linear scaling from the largest GPU count m "
           "measured,\n    throughput(n) = throughput(m) x n / m (a spread "
           "value never above the\n    one-server one):\n",
           w->fallback_jobs, w->fallback_spread_jobs);
    char one[256], spread[256];
    for (size_t i = 0; i < w->nfills && i < FILLS_SHOWN; i++) {
        const struct cli_fill *f = &w->fills[i];
        printf("      %s x%d, %zu job%s:", trace_str(in->trace, f->job_type),
               (int)f->num_gpus, f->jobs, f->jobs == 1 ? "" : "s");
        if (f->one_server)
            printf(" on %s",
                   type_list(in->cluster, f->one_server, one, sizeof one));
        uint32_t sp = f->spread & ~f->one_server;
        if (sp)
            printf("%s only spread over servers on %s",
                   f->one_server ? ";" : "",
                   type_list(in->cluster, sp, spread, sizeof spread));
        printf("\n");
    }
    if (w->nfills > FILLS_SHOWN)
        printf("      ... and %zu more (job type, GPU count) pairs (--json "
               "lists all)\n",
               w->nfills - FILLS_SHOWN);
}

static void print_runtimes(const struct trace_input *in, const struct stats *st)
{
    char buf[128];
    printf("\n  %s, %zu jobs\n", basis(in, buf, sizeof buf), st->nruntime);
    for (int k = 0; k < 6 && st->nruntime; k++)
        printf("    %-6s %18.1f\n", q_names[k], st->q[k]);
    if (in->no_runtime)
        printf("    %zu jobs have %s\n", in->no_runtime,
               in->cluster ? "no run time on any GPU type of the cluster"
                           : "no duration (Gavel: pass --throughputs and "
                             "--cluster)");
    if (in->matrix)
        print_fills(in);
}

static void print_report(const struct trace_input *in, const struct stats *st)
{
    const struct trace *t = in->trace;
    printf("hetsim trace stats: %s\n", in->path);
    printf("  %-16s %s\n", "format", trace_format_name(t->format));
    printf("  %-16s %zu\n", "jobs", t->njobs);
    printf("  %-16s %zu\n", "rows skipped", t->rows_skipped);
    for (size_t i = 0; i < t->nnotes; i++)
        printf("  %-16s %zu %s\n", i ? "" : "notes", t->notes[i].count,
               t->notes[i].what);
    printf("  %-16s %.1f s\n  %-16s %.1f s\n  %-16s %.1f s = %.2f days\n",
           "first submit", st->first, "last submit", st->last, "span", st->span,
           st->span / 86400);
    printf("\n  %-16s %10s %8s\n", "GPUs per job", "jobs", "%");
    for (size_t b = 0; b < st->nbins; b++)
        printf("  %16d %10zu %8.1f\n", (int)st->bins[b].num_gpus,
               st->bins[b].jobs,
               100.0 * (double)st->bins[b].jobs / (double)t->njobs);
    print_runtimes(in, st);
    if (!in->cluster)
        return;
    const struct cluster *c = in->cluster;
    printf("\n  offered load on %s: rho = ", c->name);
    if (isfinite(st->load))
        printf("%.3f\n", st->load);
    else
        printf("n/a (every job arrives at the same time)\n");
    printf("    = sum of num_gpus x run time on %s / (span x %.2f "
           "%s-equivalent GPUs)\n",
           c->types[c->reference].name, st->capacity,
           c->types[c->reference].name);
}

static void json_runtimes(cJSON *o, const struct trace_input *in,
                          const struct stats *st)
{
    cJSON *d = cJSON_AddObjectToObject(o, "run_time_s");
    if (!d)
        return;
    cJSON_AddStringToObject(d, "basis", in->cluster ? "reference" : "trace");
    if (in->cluster)
        cJSON_AddStringToObject(
            d, "gpu_type", in->cluster->types[in->cluster->reference].name);
    cli_json_number(d, "jobs", (double)st->nruntime);
    for (int k = 0; k < 6; k++)
        cli_json_number(d, q_names[k], st->q[k]);
    cli_json_number(o, "jobs_without_run_time", (double)in->no_runtime);
    cli_json_number(o, "matrix_jobs", (double)in->w.matrix_jobs);
    cli_json_number(o, "fallback_jobs", (double)in->w.fallback_jobs);
    cli_json_number(o, "fallback_spread_only_jobs",
                    (double)in->w.fallback_spread_jobs);
    cJSON *fills = cJSON_AddArrayToObject(o, "filled_throughputs");
    char buf[256];
    for (size_t i = 0; fills && i < in->w.nfills; i++) {
        const struct cli_fill *f = &in->w.fills[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddStringToObject(e, "job_type",
                                trace_str(in->trace, f->job_type));
        cli_json_number(e, "num_gpus", f->num_gpus);
        cli_json_number(e, "jobs", (double)f->jobs);
        cJSON_AddStringToObject(
            e, "one_server",
            type_list(in->cluster, f->one_server, buf, sizeof buf));
        cJSON_AddStringToObject(e, "spread_only",
                                type_list(in->cluster,
                                          f->spread & ~f->one_server, buf,
                                          sizeof buf));
        cJSON_AddItemToArray(fills, e);
    }
}

static cJSON *stats_json(const struct trace_input *in, const struct stats *st)
{
    const struct trace *t = in->trace;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", in->path);
    cJSON_AddStringToObject(o, "format", trace_format_name(t->format));
    cli_json_number(o, "jobs", (double)t->njobs);
    cli_json_number(o, "rows_skipped", (double)t->rows_skipped);
    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (size_t i = 0; notes && i < t->nnotes; i++) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "what", t->notes[i].what);
        cli_json_number(n, "count", (double)t->notes[i].count);
        cJSON_AddItemToArray(notes, n);
    }
    cli_json_number(o, "first_submit_s", st->first);
    cli_json_number(o, "last_submit_s", st->last);
    cli_json_number(o, "span_s", st->span);
    cli_json_number(o, "span_days", st->span / 86400);
    cJSON *bins = cJSON_AddArrayToObject(o, "gpus");
    for (size_t b = 0; bins && b < st->nbins; b++) {
        cJSON *n = cJSON_CreateObject();
        cli_json_number(n, "num_gpus", st->bins[b].num_gpus);
        cli_json_number(n, "jobs", (double)st->bins[b].jobs);
        cli_json_number(n, "fraction",
                        (double)st->bins[b].jobs / (double)t->njobs);
        cJSON_AddItemToArray(bins, n);
    }
    json_runtimes(o, in, st);
    if (in->cluster)
        cJSON_AddStringToObject(o, "cluster", in->cluster->name);
    else
        cJSON_AddNullToObject(o, "cluster");
    cli_json_number(o, "capacity_gpus", st->capacity);
    cli_json_number(o, "offered_load", st->load);
    return o;
}

static int print_json(const struct trace_input *in, const struct stats *st)
{
    return cli_write_json(stdout, stats_json(in, st));
}

/* ---- the command ------------------------------------------------------- */

#define STATS_CMD "hetsim trace stats"

static void stats_usage(void)
{
    printf(
        "Usage: hetsim trace stats FILE [OPTIONS]\n"
        "Summarises a trace: its format, jobs, rows skipped and the reader's "
        "notes, the\nsubmit span, how many jobs ask for each GPU count, "
        "duration quantiles (min,\np50, p90, p99, max, mean) and, with "
        "--cluster, the load it offers.\n\n" CLI_TRACE_OPTIONS_HELP
        "  -c, --cluster C       a cluster JSON file or built-in name: "
        "quantiles are then\n"
        "                        of each job's run time alone on its "
        "reference GPU type,\n"
        "                        and the offered load is reported\n"
        "  -T, --throughputs F   measured throughputs (Gavel's\n"
        "                        simulation_throughputs.json; needs "
        "--cluster): jobs of\n"
        "                        a known job_type run total_steps at the "
        "measured speed;\n"
        "                        Gavel traces need it\n"
        "  -j, --json            print the same figures as JSON (numbers "
        "that read back\n"
        "                        exactly; null where there is none)\n"
        "  -h, --help            show this help\n\n"
        "Offered load, an approximation:\n"
        "  rho = sum over jobs of num_gpus x r / (T x C)\n"
        "  r: the job's run time alone on the cluster's reference GPU type "
        "(one node);\n"
        "     for a job that cannot run there, its fastest type's run time x "
        "that\n"
        "     type's speed / the reference speed\n"
        "  T: last submit - first submit\n"
        "  C: the cluster's GPUs in reference-GPU equivalents, sum of gpus x "
        "speed /\n"
        "     reference speed\n"
        "rho is the share of the cluster the jobs would keep busy at "
        "reference speed;\nit ignores placement, multi-node slowdown and "
        "work left after the last\narrival. Above 1 the queue grows "
        "without bound.\n\n"
        "Example:\n"
        "  hetsim trace stats traces/gavel/msr-seed0-6214e9.csv --cluster "
        "gavel-108\n");
}

static int stats_option(struct trace_input *in, int *json, int opt, char **argv)
{
    switch (opt) {
    case 'c': in->cluster_arg = optarg; return 0;
    case 'T': in->throughputs = optarg; return 0;
    case 'j': *json = 1; return 0;
    case 'f':
    case 'X':
    case 'B':
    case 'G':
        return cli_trace_option(STATS_CMD, opt, optarg, &in->format, &in->opt);
    case 'h': stats_usage(); return -1;
    case ':':
        return cli_usage_error(STATS_CMD, "option '%s' needs a value",
                               argv[optind - 1]);
    default:
        return cli_usage_error(STATS_CMD, "unknown option '%s'",
                               argv[optind - 1]);
    }
}

static int parse_stats_args(int argc, char **argv, struct trace_input *in,
                            int *json)
{
    static const struct option long_options[] = {
        {"cluster", required_argument, NULL, 'c'},
        {"throughputs", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},
        CLI_TRACE_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *in = (struct trace_input){.cmd = STATS_CMD, .opt = {.procs_per_gpu = 1}};
    *json = 0;
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":c:T:jf:h", long_options, NULL)) !=
           -1)
        if ((rc = opt == '?' || opt == ':'
                      ? cli_option_error_in(STATS_CMD, opt, argv, long_options)
                      : stats_option(in, json, opt, argv)) != 0)
            return rc;
    if (optind >= argc)
        return cli_usage_error(STATS_CMD, "missing the trace FILE");
    if (optind + 1 < argc)
        return cli_usage_error(STATS_CMD, "unexpected argument '%s'",
                               argv[optind + 1]);
    in->path = argv[optind];
    if (in->throughputs && !in->cluster_arg)
        return cli_usage_error(STATS_CMD,
                               "--throughputs needs --cluster "
                               "(run times are taken on its reference GPU "
                               "type)");
    return 0;
}

int cli_trace_stats(int argc, char **argv)
{
    struct trace_input in;
    int json;
    int rc = parse_stats_args(argc, argv, &in, &json);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    rc = cli_trace_input_load(&in, 0);
    struct stats st = {0};
    if (!rc && compute(&in, &st) != 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    if (!rc && json && print_json(&in, &st) != 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    } else if (!rc && !json)
        print_report(&in, &st);
    if (!rc && fflush(stdout) != 0) {
        cli_error("cannot write to stdout: %s", strerror(errno));
        rc = CLI_FAILURE;
    }
    stats_free(&st);
    cli_trace_input_free(&in);
    return rc;
}
