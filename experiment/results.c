/* results.c -- running the engine and writing what it found: summary.json,
 * jobs.csv, timeline.csv, perf.json, and the table on stdout.
 *
 * The files, charts and report form one result set (experiment.h): written
 * whole into a temporary folder, then swapped with the results folder in
 * one rename, so the folder holds the old set or the new one, never a mix. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "estimators.h"
#include "policy.h"

enum { OUT_TIMELINE, OUT_JOBS, OUT_SUMMARY, OUT_PERF, OUT_FILES };
static const char *const out_names[OUT_FILES] = {
    "timeline.csv", "jobs.csv", "summary.json", "perf.json"};

struct timeline {
    FILE *f;
    struct cli_rows out; /* on f, when f */
    int32_t ntypes;
    const struct sim *s;
    struct cli_series *keep; /* also kept in memory for charts, or NULL */
    int oom;
    struct cli_progress progress;
};

static void timeline_change(void *ctx, double time, int32_t queued,
                            int32_t busy, const int32_t *busy_by_type)
{
    struct timeline *tl = ctx;
    if (tl->f) { /* NULL: --outputs summary or jobs */
        char *line = cli_rows_room(&tl->out);
        char *end = cli_timeline_row(line, time, queued, busy, busy_by_type,
                                     tl->ntypes, sim_frag_gpus(tl->s));
        cli_rows_put(&tl->out, (size_t)(end - line));
    }
    if (tl->keep && cli_series_add(tl->keep, time, queued, busy_by_type))
        tl->oom = 1;
    cli_progress_tick(&tl->progress, time, queued);
}

static void write_jobs(FILE *f, const struct sim *s, const struct trace *t,
                       const struct cluster *c)
{
    fputs(cli_jobs_header, f);
    struct cli_rows o;
    cli_rows_open(&o, f);
    for (uint32_t i = 0; i < sim_njobs(s); i++)
        cli_jobs_row(&o, s, c, i,
                     trace_str(t, t->jobs[sim_job(s, i)->trace_index].id));
    cli_rows_close(&o);
}

cJSON *cli_summary_json(const struct run_config *cfg, const struct trace *t,
                        const struct workload *w, const struct sim_summary *m)
{
    const struct cluster *c = w->cluster;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "hetsim_version", HETSIM_VERSION);
    cJSON_AddStringToObject(o, "policy", cfg->policy);
    cJSON_AddStringToObject(o, "trace", cfg->trace);
    cJSON_AddStringToObject(o, "trace_format", trace_format_name(t->format));
    cJSON_AddStringToObject(o, "cluster", c->name);
    cJSON_AddStringToObject(o, "placement",
                            w->share ? pol_share_rule_name(
                                           (enum pol_share_rule)cfg->share_rule)
                                     : pol_placement_name((enum pol_placement)
                                                              cfg->placement));
    static const char *const backfills[] = {"none", "easy", "conservative",
                                            "greedy"};
    cJSON_AddStringToObject(o, "backfill", backfills[cfg->backfill]);
    if (cfg->mem_aware)
        cli_json_number(o, "mem_aware_margin", cfg->mem_margin);
    cJSON_AddStringToObject(o, "estimates", cfg->estimates_text);
    cJSON *opts = cJSON_AddObjectToObject(o, "policy_options");
    for (size_t i = 0; opts && i < cfg->nopts; i++)
        cJSON_AddStringToObject(opts, cfg->opt_keys[i], cfg->opt_values[i]);
    cli_json_number(o, "restart_overhead_s", cfg->restart_overhead_s);
    cli_json_number(o, "seed", (double)cfg->seed);
    cli_json_number(o, "total_gpus", c->total_gpus);
    cli_json_number(o, "rows_skipped", (double)t->rows_skipped);
    cli_json_number(o, "jobs_from_throughputs", (double)w->matrix_jobs);
    cli_json_number(o, "throughput_fallback_jobs", (double)w->fallback_jobs);
    cli_json_number(o, "jobs_total", (double)m->jobs_total);
    cli_json_number(o, "jobs_completed", (double)m->jobs_completed);
    cli_json_number(o, "jobs_failed", (double)m->jobs_failed);
    cli_json_number(o, "jobs_unschedulable",
                            (double)m->jobs_unschedulable);
    cli_json_number(o, "makespan_s", m->makespan_s);
    cli_json_number(o, "avg_jct_s", m->avg_jct_s);
    cli_json_number(o, "median_jct_s", m->median_jct_s);
    cli_json_number(o, "p95_jct_s", m->p95_jct_s);
    cli_json_number(o, "p99_jct_s", m->p99_jct_s);
    cli_json_number(o, "avg_wait_s", m->avg_wait_s);
    cli_json_number(o, "avg_slowdown", m->avg_slowdown);
    cli_json_number(o, "gpu_utilization", m->gpu_utilization);
    /* Whole GPUs, no co-location: the busy time that did job work. */
    cli_json_number(o, "effective_utilization",
                    m->sharing ? m->effective_utilization
                    : m->makespan_s > 0
                        ? (m->busy_gpu_s - m->overhead_gpu_s -
                           m->wasted_gpu_s) /
                              (c->total_gpus * m->makespan_s)
                        : 0);
    cli_json_number(o, "frag_rate_mean", m->frag_rate_mean);
    cli_json_number(o, "jobs_shared", (double)m->jobs_shared);
    if (w->share) {
        cli_json_number(o, "interference", cfg->interference);
        cli_json_number(o, "util_pack_bound", cfg->util_bound);
        cli_json_number(o, "jobs_util_packed", (double)cli_sharing_packed(w));
    }
    cJSON *by_type = cJSON_AddObjectToObject(o, "utilization_by_type");
    for (int32_t g = 0; by_type && g < c->ntypes; g++)
        cli_json_number(by_type, c->types[g].name, m->utilization_by_type[g]);
    cli_json_number(o, "busy_gpu_s", m->busy_gpu_s);
    cli_json_number(o, "preemptions_total", (double)m->preemptions_total);
    cli_json_number(o, "overhead_gpu_s", m->overhead_gpu_s);
    cli_json_number(o, "oom_detect_s", cfg->oom_detect_s);
    cli_json_number(o, "jobs_with_memory_need", (double)w->mem_jobs);
    cli_json_number(o, "oom_events", (double)m->oom_events);
    cli_json_number(o, "wasted_gpu_s", m->wasted_gpu_s);
    cJSON *done = cJSON_AddObjectToObject(o, "per_type_completion_s");
    for (int32_t g = 0; done && g < c->ntypes; g++)
        cli_json_number(done, c->types[g].name, m->per_type_completion_s[g]);
    cli_json_number(o, "events", (double)m->events);
    cli_add_estimate_quality(o, w);
    return o;
}

cJSON *cli_perf_json(const struct run_perf *p, const struct sim *s)
{
    cJSON *o = cJSON_CreateObject();
    double events = (double)sim_events(s);
    cli_json_number(o, "read_wall_s", p->read_wall_s);
    cli_json_number(o, "sim_wall_s", p->sim_wall_s);
    cli_json_number(o, "write_wall_s", p->write_wall_s);
    cli_json_number(o, "predict_wall_s", p->predict_wall_s);
    cli_json_number(o, "peak_rss_mb", cli_peak_rss_mb());
    cli_json_number(o, "events_per_s",
                            p->sim_wall_s > 0 ? events / p->sim_wall_s : 0);
    cli_json_number(o, "jobs_per_s",
                            p->sim_wall_s > 0
                                ? (double)sim_njobs(s) / p->sim_wall_s
                                : 0);
    cli_json_number(o, "bytes_per_job",
                            (double)sizeof(struct sim_job));
    /* docs/streaming.md: which run this was, and why not streaming */
    cJSON_AddStringToObject(o, "run_path",
                            p->streamed ? "streaming" : "whole-trace");
    if (!p->streamed)
        cJSON_AddStringToObject(o, "streaming_not_used", p->stream_why);
    else if (p->timeline)
        cJSON_AddStringToObject(o, "timeline_written", p->timeline);
    return o;
}

void cli_print_run_table(const struct run_config *cfg, const struct workload *w,
                         const struct sim_summary *m)
{
    const struct cluster *c = w->cluster;
    printf("hetsim run: policy %s, cluster %s (%d GPUs), trace %s\n",
           cfg->policy, c->name, c->total_gpus, cfg->trace);
    printf("  %-18s %zu of %zu", "jobs completed", m->jobs_completed,
           m->jobs_total);
    if (m->jobs_unschedulable || m->jobs_failed)
        printf(" (%zu unschedulable, %zu failed)", m->jobs_unschedulable,
               m->jobs_failed);
    printf("\n  %-18s %12.1f s  (%.2f h)\n", "makespan", m->makespan_s,
           m->makespan_s / 3600);
    printf("  %-18s %12.1f s\n", "avg JCT", m->avg_jct_s);
    printf("  %-18s %12.1f s\n", "median JCT", m->median_jct_s);
    printf("  %-18s %12.1f s\n", "p99 JCT", m->p99_jct_s);
    printf("  %-18s %12.1f s\n", "avg wait", m->avg_wait_s);
    printf("  %-18s %12.2f\n", "avg slowdown", m->avg_slowdown);
    printf("  %-18s %12.1f %%", "GPU utilization", 100 * m->gpu_utilization);
    for (int32_t t = 0; c->ntypes > 1 && t < c->ntypes; t++)
        printf("%s%s %.1f %%", t ? ", " : "  (", c->types[t].name,
               100 * m->utilization_by_type[t]);
    printf("%s\n", c->ntypes > 1 ? ")" : "");
    if (m->oom_events > 0)
        printf("  %-18s %12llu  (%.0f GPU-s wasted)\n", "out of memory",
               (unsigned long long)m->oom_events, m->wasted_gpu_s);
    if (m->preemptions_total > 0)
        printf("  %-18s %12llu  (%.0f GPU-s of restart overhead)\n",
               "preemptions", (unsigned long long)m->preemptions_total,
               m->overhead_gpu_s);
    cli_print_estimates(w);
    printf("  %-18s %12llu\n", "events", (unsigned long long)m->events);
    fflush(stdout); /* the figures, then where the files are (status) */
    fprintf(stderr, "results in %s/: summary.json%s perf.json%s%s\n", cfg->out,
            cfg->summary_only  ? ""
            : cfg->no_timeline ? " jobs.csv"
                               : " jobs.csv timeline.csv",
            cfg->plots ? " jct_cdf.png queue.png busy_gpus.png "
                         "utilization.png"
                       : "",
            cfg->plots && m->jobs_total <= CLI_GANTT_MAX_JOBS ? " gantt.png"
                                                              : "");
    if (cfg->report)
        fprintf(stderr, "report: %s/report.html (open it in a browser)\n",
                cfg->out);
}

/* Each job's deadline (NAN when it has none), by job id = trace index, or
 * NULL when no job has one. Freed by the caller. */
static double *job_deadlines(const struct trace *t)
{
    size_t any = 0;
    for (size_t i = 0; i < t->njobs; i++)
        any += isnan(t->jobs[i].deadline) ? 0u : 1u;
    double *d = any ? malloc(t->njobs * sizeof *d) : NULL;
    for (size_t i = 0; d && i < t->njobs; i++)
        d[i] = t->jobs[i].deadline;
    return d;
}

/* Each job's peak and burst usage (pol_config.usage), by job id = trace
 * index, or NULL when no job has any. Freed by the caller. */
static double *job_usage(const struct trace *t)
{
    _Static_assert((int)POL_USAGE_N == (int)TRACE_USE_N &&
                       (int)POL_USE_GPU_MEM == (int)TRACE_USE_GPU_MEM &&
                       (int)POL_USE_CPU_UTIL == (int)TRACE_USE_CPU_UTIL,
                   "the two lists of resources agree");
    int any = 0;
    for (size_t i = 0; i < t->njobs && !any; i++)
        for (int r = 0; r < TRACE_USE_N; r++)
            any |= !isnan(t->jobs[i].use_peak[r]) ||
                   !isnan(t->jobs[i].use_burst[r]);
    double *u = any ? malloc(t->njobs * 2 * TRACE_USE_N * sizeof *u) : NULL;
    for (size_t i = 0; u && i < t->njobs; i++)
        for (int r = 0; r < TRACE_USE_N; r++) {
            u[(i * TRACE_USE_N + (size_t)r) * 2] = t->jobs[i].use_peak[r];
            u[(i * TRACE_USE_N + (size_t)r) * 2 + 1] = t->jobs[i].use_burst[r];
        }
    return u;
}

/* Makes the policy's state; an exit code, having said why when not OK. */
int cli_bind_policy(const struct run_config *cfg, const struct pol_ops *ops,
                    const struct workload *w, struct pol_config *pc,
                    struct sim_policy *hooks)
{
    size_t n = sim_njobs(w->sim);
    int rc = pol_bind(ops, pc, hooks);
    if (rc == 0)
        return CLI_OK;
    pol_unbind(ops, hooks);
    if (rc == SIM_EINVAL && cfg->estimates == CLI_EST_TRACE &&
        !pc->has_estimates) {
        cli_error("%s; with --estimates trace, %zu of %zu jobs have no "
                  "est_duration", pc->error, n - w->estimated_jobs, n);
        return CLI_USAGE;
    }
    if (rc == SIM_EINVAL)
        return cli_usage_error("hetsim run", "%s", pc->error);
    cli_error("out of memory");
    return CLI_FAILURE;
}

/* Whether OPS takes the parameter NAME. */
static int takes_param(const struct pol_ops *ops, const char *name)
{
    for (size_t i = 0; ops->params && ops->params[i].name; i++)
        if (strcmp(ops->params[i].name, name) == 0)
            return 1;
    return 0;
}

/* For policies with a `by` parameter (fair): each job's group, a dense
 * number per distinct vc (or user) of the trace, POL_NO_GROUP where the
 * job has none; NULL when no job has one. Freed by the caller. */
static uint32_t *job_groups(const struct run_config *cfg,
                            const struct pol_ops *ops, const struct trace *t,
                            size_t *ngroups)
{
    *ngroups = 0;
    if (!takes_param(ops, "by") || t->njobs == 0)
        return NULL;
    const char *by = "vc";
    for (size_t i = 0; i < cfg->nopts; i++)
        if (strcmp(cfg->opt_keys[i], "by") == 0)
            by = cfg->opt_values[i];
    uint32_t *g = malloc(t->njobs * sizeof *g);
    long n = g ? cli_number_groups(t, strcmp(by, "user") == 0, g) : -1;
    if (n <= 0) {
        free(g);
        return NULL;
    }
    *ngroups = (size_t)n;
    return g;
}

static int simulate(const struct run_config *cfg, const struct pol_ops *ops,
                    const struct trace *t, const struct workload *w, FILE *tf,
                    struct cli_series *keep, struct run_perf *perf)
{
    const struct cluster *c = w->cluster;
    struct sim *s = w->sim;
    struct timeline tl = {.f = tf, .ntypes = c->ntypes, .s = s, .keep = keep};
    double span = 0;
    for (size_t j = 0; j < t->njobs; j++)
        span = fmax(span, t->jobs[j].submit_time);
    cli_progress_init(&tl.progress, cfg, s, span);
    if (tf) { /* NULL: --outputs summary */
        cli_rows_open(&tl.out, tf);
        cli_timeline_header(tf, c);
    }
    char why[512] = "";
    struct pol_config pc = {
        .cluster = c, .placement = (enum pol_placement)cfg->placement,
        .backfill = (enum pol_backfill)cfg->backfill, .seed = cfg->seed,
        .mem_aware = cfg->mem_aware, .mem_margin = cfg->mem_margin,
        .has_estimates = w->estimated_jobs == sim_njobs(s),
        .keys = cfg->opt_keys, .values = cfg->opt_values,
        .nopts = cfg->nopts, .error = why, .error_cap = sizeof why,
        .sharing = w->share != NULL, .share_rule = cfg->share_rule,
        .share_w = w->share ? w->share->w : NULL};
    double *deadlines = job_deadlines(t);
    pc.deadlines = deadlines;
    double *usage = job_usage(t);
    pc.usage = usage;
    uint32_t *groups = job_groups(cfg, ops, t, &pc.ngroups);
    pc.groups = groups;
    struct sim_policy hooks;
    int rc = cli_bind_policy(cfg, ops, w, &pc, &hooks);
    if (rc == CLI_OK && cfg->dry_run)
        pol_unbind(ops, &hooks);
    else if (rc == CLI_OK) {
        struct sim_observer obs = {&tl, timeline_change};
        if (keep && keep->gantt)
            sim_on_run_end(s, cli_series_ran, keep);
        struct sim_error err = {0};
        double t0 = cli_clock();
        int src = sim_run(s, &hooks, &obs, &err);
        perf->sim_wall_s = cli_clock() - t0;
        perf->predict_wall_s = w->est ? w->est->wall_s : 0;
        pol_unbind(ops, &hooks);
        cli_progress_end(&tl.progress);
        if (src) {
            cli_error("%s%s%s", err.text[0] ? err.text : sim_strerror(src),
                      w->est && w->est->error[0] ? ": " : "",
                      w->est ? w->est->error : "");
            rc = CLI_FAILURE;
        } else if (tl.oom || (keep && keep->pieces_oom)) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
        }
    }
    if (tf)
        cli_rows_close(&tl.out);
    free(deadlines);
    free(usage);
    free(groups);
    return rc;
}

/* The run's files, written into the set's temporary folder DIR. */
static int write_set(const struct run_config *cfg, const struct pol_ops *ops,
                     const struct trace *t, const struct workload *w,
                     struct run_perf *perf, struct sim_summary *m,
                     struct cli_series *series)
{
    const struct cluster *c = w->cluster;
    struct sim *s = w->sim;
    struct cli_atomic out[OUT_FILES] = {0};
    int rc = CLI_OK, opened = 0;
    for (; opened < OUT_FILES; opened++) {
        if ((cfg->summary_only &&
             (opened == OUT_TIMELINE || opened == OUT_JOBS)) ||
            (cfg->no_timeline && opened == OUT_TIMELINE))
            continue; /* --outputs summary or jobs */
        if (cli_atomic_open(&out[opened], cfg->out, out_names[opened])) {
            cli_error("%s", out[opened].err);
            rc = CLI_FAILURE;
            goto done;
        }
    }
    rc = simulate(cfg, ops, t, w, out[OUT_TIMELINE].f,
                  cfg->plots ? series : NULL, perf);
    if (rc)
        goto done;
    double t0 = cli_clock();
    if (sim_summarize(s, m) != 0 ||
        cli_write_json(out[OUT_SUMMARY].f, cli_summary_json(cfg, t, w, m)) !=
            0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
        goto done;
    }
    if (out[OUT_JOBS].f)
        write_jobs(out[OUT_JOBS].f, s, t, c);
    perf->write_wall_s = cli_clock() - t0;
    if (cli_write_json(out[OUT_PERF].f, cli_perf_json(perf, s)) != 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
        goto done;
    }
    for (int i = 0; i < OUT_FILES; i++) {
        if (!out[i].f) /* not asked for (--outputs summary) */
            continue;
        if (rc == CLI_OK && cli_atomic_commit(&out[i]) != 0) {
            cli_error("%s", out[i].err);
            rc = CLI_FAILURE;
        } else if (rc != CLI_OK) {
            cli_atomic_abort(&out[i]);
        }
    }
    opened = 0;
    if (!rc && cfg->plots && cli_draw_charts(cfg, c, s, t, m, series) != 0)
        rc = CLI_FAILURE;
    if (!rc && cfg->report && cli_write_report(cfg, c, t, m) != 0)
        rc = CLI_FAILURE;
done:
    for (int i = 0; i < opened; i++)
        cli_atomic_abort(&out[i]);
    return rc;
}

int cli_simulate_and_write(const struct run_config *cfg,
                           const struct pol_ops *ops, const struct trace *t,
                           const struct workload *w, struct run_perf *perf)
{
    if (cfg->dry_run) { /* as far as the policy's binding; nothing written */
        FILE *nowhere = tmpfile();
        if (!nowhere) {
            cli_error("tmpfile: %s", strerror(errno));
            return CLI_FAILURE;
        }
        int rc = simulate(cfg, ops, t, w, nowhere, NULL, perf);
        fclose(nowhere);
        return rc;
    }
    /* One set: the files, charts and report go into a temporary folder
     * that replaces cfg->out whole (experiment.h, docs/guarantees.md). */
    struct exp_set *set;
    char err[EXP_PATH_MAX + 256];
    if (exp_set_begin(&set, cfg->out, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    struct run_config in_set = *cfg;
    in_set.out = exp_set_dir(set);
    struct cli_series series;
    cli_series_init(&series, w->cluster->ntypes);
    series.gantt = sim_njobs(w->sim) <= CLI_GANTT_MAX_JOBS;
    struct sim_summary m;
    int rc = write_set(&in_set, ops, t, w, perf, &m, &series);
    cli_series_free(&series);
    if (rc != CLI_OK) {
        exp_set_abort(set);
        return rc;
    }
    if (exp_set_commit(set, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    if (cfg->json &&
        cli_write_json(stdout, cli_summary_json(cfg, t, w, &m)) != 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    } else if (!cfg->json && !cfg->quiet)
        cli_print_run_table(cfg, w, &m);
    return CLI_OK;
}
