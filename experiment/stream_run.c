/* stream_run.c -- the streaming run of `hetsim run` (docs/streaming.md):
 * a native CSV trace sorted by submit_time is read one arrival ahead of
 * the engine (sim_set_source), finished jobs leave memory in id order, and
 * summary.json comes from the engine's fold, the same doubles as the
 * whole-trace run. It applies where nothing needs a job after it finished:
 * see stream_why_not; everywhere else `hetsim run` reads the whole trace,
 * and perf.json says which path ran and why. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "policy.h"

/* Columns whose values the whole-trace run hands to policies, sharing or
 * memory as per-job arrays: a trace with one of them is not streamed. */
static const char *const per_job_columns[] = {
    "gpu_mem_mb",     "gpu_milli",         "deadline",
    "cpu_milli",      "host_mem_mb",       "gpu_util_peak",
    "gpu_util_burst", "gpu_mem_util_peak", "gpu_mem_util_burst",
    "gpu_mem_peak",   "gpu_mem_burst",     "cpu_util_peak",
    "cpu_util_burst",
};

/* Policies whose state is per waiting job, that never read a finished job
 * and need no estimates (pol_list_* without --backfill, whose positions
 * are per job id). sjf would need estimates, whose quality figures of
 * summary.json take two passes over every job (est_quality.c). */
static int streams_policy(const struct pol_ops *ops)
{
    return ops == pol_find("fifo"); /* the built-in, not a plugin so named */
}

/* Why CFG cannot stream before the trace is opened, or NULL. */
static const char *config_why_not(const struct run_config *cfg,
                                  const struct pol_ops *ops,
                                  const struct cluster *c)
{
    const char *env = getenv("HETSIM_STREAM");
    if (env && strcmp(env, "0") == 0)
        return "HETSIM_STREAM=0";
    if (!streams_policy(ops))
        return "the policy is not one that streams (fifo)";
    if (cfg->backfill != 0)
        return "--backfill keeps a position per job id";
    if (cfg->plots || cfg->report)
        return "charts and reports need every job";
    if (cfg->dry_run)
        return "--dry-run";
    if (cfg->estimates != CLI_EST_NONE)
        return "--estimates other than none";
    if (cfg->sharing || cfg->util_bound > 0 || cfg->mem_aware)
        return "GPU sharing or a memory-aware placement";
    if (cfg->throughputs || c->throughputs[0])
        return "a throughput matrix";
    if (strcmp(cfg->trace, "-") == 0)
        return "--trace - is spooled to a file first";
    return NULL;
}

/* Whether PATH is a pipe or other input that cannot be read twice. */
static int is_pipe(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || !S_ISREG(st.st_mode);
}

/* The ids of the jobs read and not yet retired, oldest first, each after
 * its length (2 bytes) and ending in a NUL: jobs retire in id order, so a
 * queue of their texts. */
struct idq {
    char *b;
    size_t head, tail, cap;
};

/* Pushes the LEN bytes of ID (up to a NUL among them; LEN < 2^16) as one
 * id. */
static int idq_push(struct idq *q, const char *id, size_t len)
{
    uint16_t n = (uint16_t)(len = strnlen(id, len));
    size_t need = sizeof n + len + 1; /* its length, its NUL */
    if (q->tail + need > q->cap) {
        if (q->tail - q->head + need > q->cap / 2) { /* more than half live */
            size_t cap = 2 * q->cap + need + 4096;
            char *b = realloc(q->b, cap);
            if (!b)
                return -1;
            q->b = b;
            q->cap = cap;
        }
        memmove(q->b, q->b + q->head, q->tail - q->head);
        q->tail -= q->head;
        q->head = 0;
    }
    memcpy(q->b + q->tail, &n, sizeof n);
    memcpy(q->b + q->tail + sizeof n, id, len);
    q->b[q->tail + need - 1] = '\0';
    q->tail += need;
    return 0;
}

/* The oldest id, valid until the next push, and its length, *LEN. */
static const char *idq_pop(struct idq *q, size_t *len)
{
    uint16_t n;
    memcpy(&n, q->b + q->head, sizeof n);
    const char *id = q->b + q->head + sizeof n;
    q->head += sizeof n + n + 1;
    *len = n;
    return id;
}

struct stream_ctx {
    struct cli_reader *rd; /* the trace's rows */
    const struct cluster *c;
    const char *src;
    int exit_rc;  /* the exit code when the source failed */
    int trace_rc; /* a trace error (TRACE_E*), with err */
    struct trace_error err;
    uint32_t used;  /* types some job can run on (usability.c) */
    size_t nowhere; /* jobs no type can run */
    int pipe;       /* the input cannot be read again */
    struct cli_rows_writer *jobs; /* jobs.csv, or NULL (--outputs summary) */
    struct cli_tl_spill *tl;      /* timeline.csv's rows, or NULL */
    struct idq ids;        /* with jobs: the ids of the unretired jobs */
    size_t retired;        /* jobs [0, retired) are retired */
    const struct sim *s;
    struct cli_progress progress; /* ticked as rows are read */
};

static int next_job(void *ctx, struct sim_job_spec *out)
{
    struct stream_ctx *x = ctx;
    const struct cli_read_row *row;
    const char *id, *text;
    int got = cli_reader_next(x->rd, &row, &id, &text, &x->err);
    if (got == 0)
        return 1;
    if (got < 0) {
        x->trace_rc = got;
        return SIM_EINVAL;
    }
    cli_progress_tick(&x->progress, sim_now(x->s),
                      (int32_t)sim_queue_len(x->s));
    if (row->mask < 0) { /* says why */
        cli_allowed_types(x->c, text, x->src, row->line);
        x->exit_rc = CLI_BAD_INPUT;
        return SIM_EINVAL;
    }
    if (x->jobs && idq_push(&x->ids, id, row->id_len))
        return SIM_ENOMEM;
    /* as cli_workload_build without a matrix or estimates */
    *out = (struct sim_job_spec){row->submit_time,
                                 row->duration,
                                 row->num_gpus,
                                 (uint32_t)row->mask,
                                 0,
                                 0,
                                 0,
                                 0,
                                 0};
    return 0;
}

/* Job I's row of jobs.csv. */
static void put_row(struct stream_ctx *x, const struct sim *s, uint32_t i)
{
    char why[160];
    struct cli_job_fields f;
    size_t len;
    const char *id = idq_pop(&x->ids, &len);
    cli_job_fields(s, x->c, i, id, why, sizeof why, &f);
    cli_rows_writer_put(x->jobs, &f, len);
}

/* As cli_report_usability, job by job; and jobs.csv's row. */
static void retire_job(void *ctx, const struct sim *s, uint32_t i)
{
    struct stream_ctx *x = ctx;
    uint32_t here = cli_job_usable_types(s, x->c, i);
    x->used |= here;
    x->nowhere += here == 0;
    if (x->jobs)
        put_row(x, s, i);
    x->retired++;
}

/* summary.json and perf.json into SET, the result set of cfg->out (begun
 * here when NULL), which is then committed, or aborted on an error. */
static int write_results(const struct run_config *cfg, const struct trace *t,
                         const struct workload *w, struct run_perf *perf,
                         struct sim_summary *m, struct exp_set *set)
{
    char err[EXP_PATH_MAX + 256];
    if (!set && exp_set_begin(&set, cfg->out, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    double t0 = cli_clock();
    int rc = sim_summarize(w->sim, m);
    if (rc) /* cli_write_json_file says itself why it fails */
        cli_error("cannot write the results into %s: %s", cfg->out,
                  sim_strerror(rc));
    else
        rc = cli_write_json_file(exp_set_dir(set), "summary.json",
                                 cli_summary_json(cfg, t, w, m)) != 0;
    perf->write_wall_s += cli_clock() - t0;
    if (!rc)
        rc = cli_write_json_file(exp_set_dir(set), "perf.json",
                                 cli_perf_json(perf, w->sim)) != 0;
    if (rc) {
        exp_set_abort(set);
        return CLI_FAILURE;
    }
    if (exp_set_commit(set, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* Binds the policy as simulate() does for this configuration. */
static int run_engine(const struct run_config *cfg, const struct pol_ops *ops,
                      struct workload *w, struct stream_ctx *x)
{
    char why[512] = "";
    struct pol_config pc = {.cluster = w->cluster,
                            .placement = (enum pol_placement)cfg->placement,
                            .backfill = (enum pol_backfill)cfg->backfill,
                            .seed = cfg->seed,
                            .keys = cfg->opt_keys,
                            .values = cfg->opt_values,
                            .nopts = cfg->nopts,
                            .error = why,
                            .error_cap = sizeof why};
    struct sim_policy hooks;
    int rc = cli_bind_policy(cfg, ops, w, &pc, &hooks);
    if (rc != CLI_OK)
        return rc;
    struct sim_error err = {0};
    struct sim_observer obs = {x->tl, cli_tl_spill_change};
    rc = sim_run(w->sim, &hooks, x->tl ? &obs : NULL, &err);
    pol_unbind(ops, &hooks);
    if (!rc)
        return CLI_OK;
    if (x->exit_rc)
        return x->exit_rc;
    if (x->trace_rc == TRACE_EUNSORTED && !x->pipe)
        return CLI_STREAM_DECLINED; /* a file: read it whole instead */
    if (x->trace_rc)
        return cli_trace_failure(x->trace_rc, &x->err, cfg->trace);
    cli_error("%s", err.text[0] ? err.text : sim_strerror(rc));
    return CLI_FAILURE;
}

/* The files besides summary.json and perf.json: jobs.csv written as the
 * jobs retire, and timeline.csv's rows kept aside (stream_timeline.c)
 * unless --outputs jobs; both in the result set begun before the run. */
struct stream_out {
    struct exp_set *set;
    struct cli_atomic jobs_file, tl_file;
    struct cli_rows rows;
    struct cli_tl_spill tl;
};

static int outs_begin(const struct run_config *cfg, struct stream_out *o,
                      struct stream_ctx *x)
{
    char err[EXP_PATH_MAX + 256];
    if (exp_set_begin(&o->set, cfg->out, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    if (cli_atomic_open(&o->jobs_file, exp_set_dir(o->set), "jobs.csv") != 0) {
        cli_error("%s", o->jobs_file.err);
        exp_set_abort(o->set);
        return CLI_FAILURE;
    }
    fputs(cli_jobs_header, o->jobs_file.f);
    cli_rows_open(&o->rows, o->jobs_file.f);
    x->jobs = cli_rows_writer_start(&o->rows, x->c, &o->jobs_file);
    if (!x->jobs) {
        cli_error("out of memory");
        goto fail;
    }
    if (cfg->no_timeline)
        return CLI_OK;
    if (cli_atomic_open(&o->tl_file, exp_set_dir(o->set), "timeline.csv")) {
        cli_error("%s", o->tl_file.err);
        cli_rows_writer_end(x->jobs);
        x->jobs = NULL;
        goto fail;
    }
    cli_timeline_header(o->tl_file.f, x->c);
    if (cli_tl_spill_open(&o->tl, x->s, x->c->ntypes, &o->tl_file) != 0) {
        cli_error("cannot make a temporary file for timeline.csv: %s",
                  strerror(errno));
        cli_rows_writer_end(x->jobs);
        x->jobs = NULL;
        cli_atomic_abort(&o->tl_file);
        goto fail;
    }
    x->tl = &o->tl;
    return CLI_OK;
fail:
    cli_rows_close(&o->rows);
    cli_atomic_abort(&o->jobs_file);
    exp_set_abort(o->set);
    return CLI_FAILURE;
}

/* timeline.csv committed into the set: as its rows were written during
 * the run, or from the rows kept aside. */
static int write_timeline(struct stream_out *o, const struct cluster *c,
                          struct run_perf *perf)
{
    perf->timeline = "during the run";
    if (!cli_tl_spill_written(&o->tl)) {
        perf->timeline = "after the run";
        cli_atomic_abort(&o->tl_file);
        if (cli_atomic_open(&o->tl_file, exp_set_dir(o->set), "timeline.csv")) {
            cli_error("%s", o->tl_file.err);
            return CLI_FAILURE;
        }
        if (cli_tl_spill_write(&o->tl, o->tl_file.f, c) != 0) {
            cli_error("cannot read back the rows of timeline.csv kept in a "
                      "temporary file (out of disk space?)");
            cli_atomic_abort(&o->tl_file);
            return CLI_FAILURE;
        }
    }
    if (cli_atomic_commit(&o->tl_file) != 0) {
        cli_error("%s", o->tl_file.err);
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* After the run (RC its exit code): the rows of the jobs that never
 * retired (never finished), jobs.csv and timeline.csv committed into the
 * set, or the set aborted; RC, or the failure. jobs.csv's last rows are
 * written, and the file written to disk, on the writer's thread while this
 * one writes timeline.csv. */
static int outs_end(struct stream_out *o, struct stream_ctx *x, int rc,
                    struct run_perf *perf)
{
    for (size_t j = x->retired; rc == CLI_OK && j < sim_njobs(x->s); j++)
        put_row(x, x->s, (uint32_t)j);
    if (rc == CLI_OK)
        cli_rows_writer_finish(x->jobs);
    if (rc == CLI_OK && x->tl)
        rc = write_timeline(o, x->c, perf);
    if (x->tl)
        cli_tl_spill_close(&o->tl);
    cli_atomic_abort(&o->tl_file); /* unless committed */
    cli_rows_writer_end(x->jobs);
    cli_rows_close(&o->rows);
    free(x->ids.b);
    if (rc == CLI_OK && cli_atomic_commit(&o->jobs_file) != 0) {
        cli_error("%s", o->jobs_file.err);
        rc = CLI_FAILURE;
    } else if (rc != CLI_OK)
        cli_atomic_abort(&o->jobs_file);
    if (rc != CLI_OK)
        exp_set_abort(o->set);
    return rc;
}

/* Streams the trace opened as N; an exit code. */
static int stream(const struct run_config *cfg, const struct pol_ops *ops,
                  const struct cluster *c, struct trace_native *n, int pipe,
                  struct run_perf *perf)
{
    struct stream_ctx x = {.c = c, .src = cfg->trace, .pipe = pipe};
    struct sim *s = sim_create(c, cfg->seed);
    struct sim_source src = {&x, next_job, retire_job};
    x.s = s;
    cli_progress_init(&x.progress, cfg, s, 0);
    x.progress.every = 255; /* rows, not events: about 2 events each */
    struct workload w = {
        .cluster = c, .sim = s, .seed = cfg->seed, .streamed = 1};
    if (!s || sim_set_source(s, &src) != 0 ||
        !(x.rd = cli_reader_start(n, c, !cfg->summary_only))) {
        sim_destroy(s);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    x.progress.reader = x.rd;
    sim_set_restart_overhead(s, cfg->restart_overhead_s);
    sim_set_oom_detect_s(s, cfg->oom_detect_s);
    struct stream_out outs = {0};
    if (!cfg->summary_only && outs_begin(cfg, &outs, &x) != CLI_OK) {
        cli_reader_end(x.rd);
        sim_destroy(s);
        return CLI_FAILURE;
    }
    double t0 = cli_clock();
    int rc = run_engine(cfg, ops, &w, &x);
    cli_reader_end(x.rd); /* N is the run's again */
    perf->sim_wall_s = cli_clock() - t0;
    cli_progress_end(&x.progress);
    double w0 = cli_clock(); /* write_results adds its part */
    if (x.jobs)
        rc = outs_end(&outs, &x, rc, perf);
    perf->write_wall_s = cli_clock() - w0;
    perf->streamed = rc != CLI_STREAM_DECLINED;
    if (!perf->streamed) {
        snprintf(perf->stream_why, sizeof perf->stream_why,
                 "the trace is not sorted by submit_time (line %ld)",
                 x.err.line);
        sim_destroy(s);
        return rc;
    }
    const struct trace *t = trace_native_trace(n);
    struct sim_summary m;
    if (!rc) {
        cli_trace_warnings(t, &x.err, cfg->trace);
        struct cli_usability u = {.jobs = sim_njobs(s),
                                  .jobs_nowhere = x.nowhere};
        cli_warn_usability(c, x.used, cfg->trace, &u);
        rc = write_results(cfg, t, &w, perf, &m, outs.set);
    }
    if (!rc && cfg->json &&
        cli_write_json(stdout, cli_summary_json(cfg, t, &w, &m)) != 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    } else if (!rc && !cfg->json && !cfg->quiet)
        cli_print_run_table(cfg, &w, &m);
    sim_destroy(s);
    return rc;
}

int cli_run_streaming(const struct run_config *cfg, const struct pol_ops *ops,
                      const struct cluster *c, struct run_perf *perf,
                      struct trace **t)
{
    *t = NULL;
    const char *why = config_why_not(cfg, ops, c);
    int pipe = is_pipe(cfg->trace);
    enum trace_format f = cfg->format;
    struct trace_error err = {0};
    if (!why && f == TRACE_FMT_AUTO && !pipe &&
        trace_detect_format(cfg->trace, &f, &err) != 0)
        f = TRACE_FMT_AUTO; /* the whole-trace read says why */
    if (!why && f != TRACE_FMT_NATIVE)
        why = f == TRACE_FMT_AUTO && pipe
                  ? "a pipe needs --format native to stream"
                  : "the trace is not in the native CSV format";
    if (why) {
        snprintf(perf->stream_why, sizeof perf->stream_why, "%s", why);
        return CLI_STREAM_DECLINED;
    }
    struct trace_native *n;
    int rc = trace_native_open(cfg->trace, cfg->trace_opt.flags, &n, &err);
    if (rc)
        return cli_trace_failure(rc, &err, cfg->trace);
    for (size_t i = 0;
         !why && i < sizeof per_job_columns / sizeof *per_job_columns; i++)
        if (trace_native_has_column(n, per_job_columns[i]))
            why = per_job_columns[i];
    if (why) {
        snprintf(perf->stream_why, sizeof perf->stream_why,
                 "the trace has a %s column", why);
        if (!pipe) { /* read it again from the start, as usual */
            trace_native_close(n);
            return CLI_STREAM_DECLINED;
        }
        rc = trace_native_read_all(n, t, &err); /* the header is read */
        if (rc)
            return cli_trace_failure(rc, &err, cfg->trace);
        cli_trace_warnings(*t, &err, cfg->trace);
        return CLI_STREAM_DECLINED;
    }
    rc = stream(cfg, ops, c, n, pipe, perf);
    trace_native_close(n);
    return rc;
}
