/* cli.h -- the command-line program: only this module prints, exits, and
 * wires the libraries together. */
#ifndef HETSIM_CLI_H
#define HETSIM_CLI_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"
#include "traces.h"

/* Exit codes (README, "Exit codes"). */
enum cli_exit {
    CLI_OK = 0,
    CLI_FAILURE = 1, /* something went wrong while running */
    CLI_USAGE = 2,   /* the command line is wrong */
    CLI_BAD_INPUT = 3, /* a trace, cluster or dataset is missing or wrong */
};

/* Subcommands: argv[0] is the subcommand's name. Each returns an exit code. */
int cli_run(int argc, char **argv);
int cli_clusters(int argc, char **argv);
int cli_policies(int argc, char **argv);
/* `hetsim trace stats|convert|generate` (trace_cmd.c). */
int cli_trace(int argc, char **argv);
/* `hetsim compare`: one run per policy, then a comparison (compare.c). */
int cli_compare(int argc, char **argv);
/* `hetsim dataset synth|gavel` (dataset_cmd.c) and `hetsim predictor
 * train|eval|predict|compare` (predictor_cmd.c). */
int cli_dataset(int argc, char **argv);
int cli_predictor(int argc, char **argv);
/* `hetsim pack`: FGD's packing experiment on shared GPUs (pack.c). */
int cli_pack(int argc, char **argv);
/* `hetsim share`: a replay with shared GPUs (share_cmd.c). */
int cli_share(int argc, char **argv);
/* `hetsim sweep`: a cross product of runs, statistics over seeds
 * (sweep.c); `hetsim check`: figures against a golden file (check.c). */
int cli_sweep(int argc, char **argv);
int cli_check(int argc, char **argv);
/* `hetsim reproduce EXPERIMENT`: a published experiment (reproduce.c). */
int cli_reproduce(int argc, char **argv);

/* Messages on stderr, as `hetsim: error: ...`. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: one line, then the hint; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The usage error for getopt_long's answer OPT about argv[optind - 1]:
 * ':' a value is missing, anything else an unknown option. CLI_USAGE. */
int cli_option_error(const char *cmd, int opt, char **argv);
struct option;
/* As cli_option_error, and for an unknown long option the nearest one of
 * TABLE (getopt_long's, ended by a NULL name) as "did you mean" (suggest.c). */
int cli_option_error_in(const char *cmd, int opt, char **argv,
                        const struct option *table);
/* " (did you mean 'NAME'?)" into BUF for the one of NAMES[0..N) nearest to
 * WORD, or "" when none is near (trace_nearest_name). */
void cli_did_you_mean(char *buf, size_t cap, const char *word,
                      const char *const *names, size_t n);
/* cli_did_you_mean over the built-in policies. */
void cli_policy_hint(char *buf, size_t cap, const char *name);
/* `hetsim: error: SOURCE:LINE:COLUMN: text` from an error record. */
void cli_error_at(const char *source, long line, long column,
                  const char *text);

/* Reports the trace_error ERR of a failed read of PATH (code RC) and
 * returns the exit code: CLI_FAILURE when out of memory, else
 * CLI_BAD_INPUT. */
int cli_trace_failure(int rc, const struct trace_error *err,
                      const char *path);

/* Each job's group: a number per distinct user (USER nonzero) or vc of T,
 * 0, 1, ... in order of first appearance, UINT32_MAX (POL_NO_GROUP) where
 * the job has none. Writes T->njobs numbers to OUT; returns how many
 * groups, or -1 out of memory. */
long cli_number_groups(const struct trace *t, int user, uint32_t *out);

/* Seconds on a monotonic clock. */
double cli_clock(void);
/* Peak resident set size of this process in MiB. */
double cli_peak_rss_mb(void);

/* ---- Shared steps of the commands (run.c, results.c) -------------------- */

struct pol_ops;

#define CLI_MAX_POLICY_OPTS 32

/* How run-time estimates are made (--estimates). */
enum cli_estimates { CLI_EST_NONE, CLI_EST_ORACLE, CLI_EST_TRACE,
                     CLI_EST_NOISY, CLI_EST_HISTORY, CLI_EST_PREDICTOR };

struct run_config {
    const char *trace, *cluster, *policy, *out;
    const char *throughputs; /* matrix file, or NULL */
    enum trace_format format;
    struct trace_options trace_opt;
    uint64_t seed;
    int quiet;
    int dry_run; /* check every input and the policy's needs; write nothing */
    int json;    /* print summary.json on stdout instead of the table */
    int plots; /* draw the charts of the run into out */
    int summary_only; /* --outputs summary: no jobs.csv, timeline.csv */
    int no_timeline;  /* --outputs jobs: jobs.csv, no timeline.csv */
    int report; /* also write out/report.html (implies plots) */
    int argc;   /* the command line of this run, for the report */
    char **argv;
    const char *estimates_text;     /* as given, for summary.json */
    enum cli_estimates estimates;
    double noise_sigma;             /* noisy:SIGMA */
    int history_by_user;            /* history:user (default vc) */
    char est_model[1024];           /* predictor:MODEL.bin */
    char est_memory_model[1024];    /* ...,memory=MODEL2.bin, or "" */
    char est_util_model[1024];      /* ...,util=MODEL3.bin, or "" */
    double restart_overhead_s;
    int placement;                  /* enum pol_placement */
    int mem_aware;                  /* --placement ...,mem-aware[:MARGIN] */
    double mem_margin;
    double oom_detect_s;            /* --oom-detect-s */
    int backfill;                   /* enum pol_backfill */
    int placement_given;            /* --placement was on the command line */
    int sharing;                    /* GPU sharing asked for (sharing.c) */
    int share_rule;                 /* enum pol_share_rule; -1: the
                                       placement has no sharing form */
    double interference;            /* --interference, (0, 1] */
    double util_bound;              /* --util-pack BOUND; 0 = off */
    const char *pairs;              /* --pairs FILE, or NULL */
    const char *opt_keys[CLI_MAX_POLICY_OPTS];
    const char *opt_values[CLI_MAX_POLICY_OPTS];
    char opt_buf[CLI_MAX_POLICY_OPTS][256];
    size_t nopts;
};

/* Standard input copied into a new temporary file, whose name goes into
 * TMP (its size): the readers read a file by name, twice when they detect
 * the format; the caller unlinks it. 0, or CLI_FAILURE after a message
 * (run.c). */
int cli_spool_stdin(char *tmp, size_t cap);

/* Whether a --policy NAME names a plugin to load: it holds a '/' or ends
 * in ".so" (run.c). */
int cli_policy_is_plugin(const char *name);

/* One option of `hetsim run` by its short code (run.c's table: 'O'
 * --policy-opt, 'L' --placement, 'F' --backfill, 'E' --estimates, 'R'
 * --restart-overhead, 'W' --round-s, 'M' --oom-detect-s, 'I', 'U', and the
 * trace's 'f', 'X', 'B', 'G') into CFG; misuse is said as CMD's. 0, or an
 * exit code. */
int cli_run_option(const char *cmd, int opt, const char *arg,
                   struct run_config *cfg);
/* Parses --placement RULE[,mem-aware[:MARGIN]] into CFG; 0 or CLI_USAGE
 * after a message. */
int cli_parse_placement(const char *cmd, const char *text,
                        struct run_config *cfg);

/* Parses --estimates TEXT into CFG; 0 or CLI_USAGE after a message. */
int cli_parse_estimates(const char *cmd, const char *text,
                        struct run_config *cfg);

/* What a long run says on stderr (progress.c): a line redrawn on a
 * terminal, else a line per 10% of SPAN (the arrivals' span), or of the
 * file p->reader read when set, or every 10 s when neither is known, once
 * the run has taken 2 s. Nothing with --quiet. */
struct cli_progress {
    const struct sim *s;
    const struct cli_reader *reader; /* a streaming run's rows, or NULL */
    int terminal, log_lines;
    uint64_t calls, every; /* a look at the clock when calls & every is 0 */
    double next_report, started, span, next_pct, next_line, quiet_s;
};
void cli_progress_init(struct cli_progress *p, const struct run_config *cfg,
                       const struct sim *s, double span);
void cli_progress_tick(struct cli_progress *p, double time, int32_t queued);
void cli_progress_end(struct cli_progress *p); /* ends a redrawn line */

struct run_perf {
    double read_wall_s, sim_wall_s, write_wall_s;
    double predict_wall_s; /* inside sim_wall_s: the estimator's calls */
    int streamed;          /* the streaming run (stream_run.c) */
    const char *timeline;  /* how its timeline.csv was written, or NULL */
    char stream_why[200];  /* else why not, for perf.json */
};

/* Each returns an exit code, having printed why when it is not CLI_OK. */
int cli_load_cluster(const char *arg, struct cluster **out);
/* The same, FLAGS (enum trace_flags, TRACE_STRICT) applying to the node
 * list of an alibaba2023: cluster. */
int cli_load_cluster_flags(const char *arg, int flags, struct cluster **out);
int cli_read_trace(const char *path, enum trace_format f,
                   const struct trace_options *opt, struct trace **out);
/* `alibaba2023:NODES.csv[:TYPES.json]` (alibaba_cluster.c). */
int cli_alibaba_cluster(const char *spec, int flags, struct cluster **out);
int cli_load_throughputs(const char *path, struct trace_throughputs **out);

/* How to read a trace: -f/--format, -B/--on-bad-row, -G/--procs-per-gpu,
 * -X/--strict.
 * Sets *F or *O from option OPT's ARG; 0, or CLI_USAGE after saying why. */
int cli_trace_option(const char *cmd, int opt, const char *arg,
                     enum trace_format *f, struct trace_options *o);
/* Those three options' entries for a getopt_long table (<getopt.h>). */
#define CLI_TRACE_LONG_OPTIONS                                               \
    {"format", required_argument, NULL, 'f'},                                \
    {"on-bad-row", required_argument, NULL, 'B'},                            \
    {"procs-per-gpu", required_argument, NULL, 'G'},                         \
    {"strict", no_argument, NULL, 'X'}
#define CLI_TRACE_OPTIONS_HELP                                               \
    "  -f, --format NAME     native, gavel, philly, alibaba2023, swf, "     \
    "tiresias\n"                                                             \
    "                        (default: detected from the header and the "  \
    "extension)\n"                                                           \
    "      --on-bad-row R    error (default: stop at the first bad row, "   \
    "exit 3)\n"                                                              \
    "                        or skip (count bad rows, warn, go on)\n"       \
    "      --procs-per-gpu N SWF traces: processors that make one GPU "     \
    "(default 1)\n"                                                          \
    "      --strict          an unknown column is an error (exit 3)\n"

/* Bit mask of the GPU types of C in the '|'-separated list TYPES (0 for
 * ""), or -1 after a message naming SRC:LINE and the unknown type;
 * cli_types_mask says -1 without the message. */
int64_t cli_types_mask(const struct cluster *c, const char *types);
int64_t cli_allowed_types(const struct cluster *c, const char *types,
                          const char *src, long line);

/* The jobs of a trace, given to an engine (workload.c). */
struct cli_class_map {
    uint64_t *keys; /* (cap) (job_type << 32 | num_gpus) + 1; 0 = empty */
    int32_t *ids;   /* (cap) class, -1 not made yet, -3 unknown job type */
    size_t cap, len;
};

struct cli_estimator;

/* A (job type, GPU count) of the trace whose throughput the matrix lacks
 * on some GPU type and trace_throughput filled (traces/throughputs_lookup.c:
 * linear scaling from the largest measured count). Only fills that can
 * change a run count: a spread value only for a job of more than one GPU,
 * on a type of several servers, where it runs at all. */
struct cli_fill {
    uint32_t job_type;   /* trace string */
    int32_t num_gpus;
    uint32_t one_server; /* bit t: its one-server value on type t filled */
    uint32_t spread;     /* bit t: only its spread value on type t filled */
    size_t jobs;
};

struct workload {
    const struct cluster *cluster;
    struct sim *sim;
    const struct trace_throughputs *matrix; /* NULL: durations only */
    const char *worker[SIM_MAX_GPU_TYPES];  /* matrix worker of each type */
    struct cli_class_map classes;
    uint8_t *fallback; /* (fallback_cap) class used the GPU-count fallback:
                          0 no, 1 on one server, 2 only spread over servers */
    double *class_mem; /* (fallback_cap) memory need the matrix implies, MB:
                          0 = none (README, "Memory") */
    int32_t *fill_index; /* (fallback_cap) its entry of fills, or -1 */
    size_t fallback_cap;
    size_t matrix_jobs, fallback_jobs; /* fallback: jobs of a filled class */
    size_t fallback_spread_jobs;       /* of those, only spread was filled */
    struct cli_fill *fills;            /* (nfills) the filled classes */
    size_t nfills;
    enum cli_estimates estimates; /* how est_work is made */
    double noise_sigma;
    uint64_t seed;
    size_t estimated_jobs;        /* jobs given an est_work > 0 */
    struct cli_estimator *est;    /* predictor in the loop, or NULL */
    size_t mem_jobs;              /* jobs with a known memory need */
    struct cli_sharing *share;    /* GPU sharing (sharing.c), or NULL */
    int streamed; /* a streaming run: its jobs are gone after the run */
};

/* ---- GPU sharing in `hetsim run` (sharing.c) ---------------------------- */

struct cli_sharing {
    struct share_demand *demands; /* (njobs) by job id = trace index */
    struct share_workload *w;     /* fragmentation's and fgd's workload */
    int64_t *host_cpu;            /* (nnodes) or NULL */
    double *host_mem;
    const struct trace *trace;
    const struct cluster *cluster;
    const struct trace_throughputs *pairs; /* or NULL */
    double interference;
    size_t packed; /* jobs util-pack's oracle let share a GPU */
};

/* Whether some job of T asks for a share of a GPU (gpu_milli < 1000). */
int cli_trace_has_shares(const struct trace *t);
/* Turns sharing on for w->sim (after its jobs and estimator): demands,
 * hosts, util-pack, workload. PAIRS (borrowed, may be NULL) gives pair
 * speeds. An exit code, having said why. */
int cli_sharing_enable(struct workload *w, const struct run_config *cfg,
                       const struct trace *t,
                       const struct trace_throughputs *pairs);
/* Jobs util-pack let share a GPU: by the oracle before the run, or by the
 * predicted utilization on arrival. */
size_t cli_sharing_packed(const struct workload *w);
void cli_sharing_free(struct cli_sharing *x);

/* Adds every job of T (read from SRC) to w->sim, with classes from
 * w->matrix where it knows the job type. */
int cli_workload_build(struct workload *w, const struct trace *t,
                       const char *src);
/* Puts the estimator of CFG (history, predictor) into w->sim; every job
 * then counts as estimated. An exit code, having said why. */
int cli_workload_estimator(struct workload *w, const struct run_config *cfg,
                           const struct trace *t);

/* Quality of the estimates over the jobs simulated (est_quality.c): run
 * time on the type each completed job last ran on, one node, against
 * sim_est_runtime_s; memory need against sim_est_mem_mb. MAPE in
 * percent; NAN where no job has both figures. 0, or -1 out of memory. */
struct cli_est_quality {
    double runtime_mape, runtime_r2, memory_mape;
    size_t runtime_jobs, memory_jobs;
};
int cli_estimate_quality(const struct sim *s, struct cli_est_quality *q);
/* MAPE (percent) and R^2 of EST against TRUTH (N pairs, truths > 0); NAN
 * when N is 0, R^2 NAN when every truth is equal. */
void cli_mape_r2(const double *truth, const double *est, size_t n,
                 double *mape, double *r2);
void cli_workload_free(struct workload *w);

/* What the jobs of a workload can use of its cluster (usability.c). */
struct cli_usability {
    size_t jobs, jobs_nowhere; /* jobs no GPU type can run */
    size_t gpus_unusable;      /* GPUs of types no job can run on */
};
/* Fills *U for the jobs added to S on C and warns, naming TRACE, about
 * unusable GPU types and jobs that can run nowhere. */
void cli_report_usability(const struct sim *s, const struct cluster *c,
                          const char *trace, struct cli_usability *u);
/* The GPU types of C that job I of S can run on (the engine's test,
 * sim_job_fits_somewhere, type by type); 0: none. */
uint32_t cli_job_usable_types(const struct sim *s, const struct cluster *c,
                              uint32_t i);
/* cli_report_usability's warnings from USED (the union of the jobs'
 * usable types) and U's jobs and jobs_nowhere; sets U->gpus_unusable. */
void cli_warn_usability(const struct cluster *c, uint32_t used,
                        const char *trace, struct cli_usability *u);
/* Why job I of S did not complete, for jobs.csv's reason column: "" for a
 * job that did not fail; else a text without commas, in BUF (CAP bytes) or
 * static. */
const char *cli_job_reason(const struct sim *s, const struct cluster *c,
                           uint32_t i, char *buf, size_t cap);
/* pol_bind of OPS with PC for W's run; CLI_OK, or an exit code after a
 * message (a usage error names PC->error), the hooks then unbound. */
struct pol_config;
struct sim_policy;
int cli_bind_policy(const struct run_config *cfg, const struct pol_ops *ops,
                    const struct workload *w, struct pol_config *pc,
                    struct sim_policy *hooks);
/* Runs S under OPS and writes every result file of CFG->out. */
int cli_simulate_and_write(const struct run_config *cfg,
                           const struct pol_ops *ops, const struct trace *t,
                           const struct workload *w, struct run_perf *perf);

/* summary.json and perf.json of a run, and the table on stdout
 * (results.c). */
struct cJSON *cli_summary_json(const struct run_config *cfg,
                               const struct trace *t, const struct workload *w,
                               const struct sim_summary *m);
struct cJSON *cli_perf_json(const struct run_perf *p, const struct sim *s);
void cli_print_run_table(const struct run_config *cfg, const struct workload *w,
                         const struct sim_summary *m);

/* The streaming run of `hetsim run` (stream_run.c, docs/streaming.md):
 * when CFG, OPS and C allow it and the trace is a native CSV sorted by
 * submit_time, runs it reading the trace one arrival ahead and writes
 * summary.json and perf.json; returns its exit code. Otherwise returns
 * CLI_STREAM_DECLINED with perf->stream_why saying why, and *T the whole
 * trace when the header was read from a pipe (NULL: read it as usual). */
#define CLI_STREAM_DECLINED (-1)
int cli_run_streaming(const struct run_config *cfg, const struct pol_ops *ops,
                      const struct cluster *c, struct run_perf *perf,
                      struct trace **t);
/* Prints the warnings of a trace just read from PATH (unknown columns,
 * skipped rows: SKIPPED the first) (util.c). */
void cli_trace_warnings(const struct trace *t,
                        const struct trace_error *skipped, const char *path);

/* Reads the numbers KEYS[0..N-1] of DIR/summary.json into V, NULL_VALUE
 * for a null (summary_read.c). CLI_OK, or CLI_FAILURE after a message when
 * the file is unreadable or a key is missing or not a number. */
int cli_read_summary(const char *dir, const char *const *keys, size_t n,
                     double null_value, double *v);

/* ---- Charts of a run (charts.c) ----------------------------------------- */

/* Gantt charts are drawn for runs of at most this many jobs. */
#define CLI_GANTT_MAX_JOBS 300

/* One piece of one run of a job, for the Gantt chart (gantt.c). */
struct cli_run_piece {
    uint32_t job;
    int32_t node, gpus;
    double start, end;
};

/* The timeline kept in memory for charts: col[0] time, col[1] queued jobs,
 * col[2 + t] busy GPUs of type t; and, for the Gantt chart, the pieces of
 * every run (collected only when gantt is set). */
struct cli_series {
    double *col[2 + SIM_MAX_GPU_TYPES]; /* (cap) each */
    size_t ncols, n, cap;
    int gantt;                   /* collect pieces */
    int pieces_oom;
    struct cli_run_piece *piece; /* (npieces) */
    size_t npieces, pieces_cap;
};
/* A sim_ran_fn (sim_on_run_end) that appends to the cli_series CTX. */
void cli_series_ran(void *ctx, uint32_t job, int32_t node, int32_t gpus,
                    double start, double end);
/* Draws DIR/gantt from TS's pieces (gantt.c); returns as plot_gantt. */
int cli_draw_gantt(const char *dir, const char *title, const struct cluster *c,
                   const struct sim *s, const struct trace *t,
                   const struct cli_series *ts);
int cli_series_init(struct cli_series *ts, int32_t ntypes);
int cli_series_add(struct cli_series *ts, double time, int32_t queued,
                   const int32_t *busy_by_type);
void cli_series_free(struct cli_series *ts);

/* Draws jct_cdf, queue, busy_gpus, utilization and, when TS collected
 * pieces, gantt (.gp, .png, .svg) into cfg->out. Warns about what failed;
 * 0 when all were drawn or gnuplot is missing, -1 otherwise. May rescale
 * ts's time column. */
int cli_draw_charts(const struct run_config *cfg, const struct cluster *c,
                    const struct sim *s, const struct trace *t,
                    const struct sim_summary *m, struct cli_series *ts);
/* Warns about chart NAME's failure RC (a missing gnuplot once in all);
 * 0 when RC is 0 or PLOT_ENOGNUPLOT, -1 otherwise. */
int cli_chart_check(int rc, const char *name);

/* Writes cfg->out/report.html (report.c): one self-contained page with the
 * inputs, the figures of M, the charts already drawn into cfg->out (their
 * SVG inlined) and the command that reproduces the run. 0, or -1 after a
 * message. */
int cli_write_report(const struct run_config *cfg, const struct cluster *c,
                     const struct trace *t, const struct sim_summary *m);

/* ---- Output files (output.c) ------------------------------------------- */

/* Shortest decimal text that reads back as exactly X ("%.17g" at worst);
 * BUF holds at least 32 bytes. Returns BUF. */
char *cli_fmt_double(char *buf, double x);
/* The same written at P, and a whole number; each returns the end (where a
 * NUL is written). P needs room for 32 bytes. */
char *cli_put_double(char *p, double x);
char *cli_put_int(char *p, int64_t v);

/* Rows of a CSV file formatted straight into a 256 KB block, written
 * whole when less than CLI_ROW_MAX bytes of room are left (rows.c); a row
 * at a time from spare when the block could not be had. Write errors show
 * when the file is committed (cli_atomic_commit). */
#define CLI_ROW_MAX 2048
struct cli_rows {
    FILE *f;
    char *b;
    size_t n;
    char spare[CLI_ROW_MAX];
};
void cli_rows_open(struct cli_rows *o, FILE *f);
/* Where the next row (at most CLI_ROW_MAX bytes) goes; cli_rows_put then
 * takes its LEN bytes. */
char *cli_rows_room(struct cli_rows *o);
void cli_rows_put(struct cli_rows *o, size_t len);
void cli_rows_close(struct cli_rows *o); /* flushes and frees the block */
/* timeline.csv: its header line (a busy_ column per type of C), and a row
 * written at P (at most 96 + 12 x NTYPES bytes); the row's end. */
void cli_timeline_header(FILE *f, const struct cluster *c);
char *cli_timeline_row(char *p, double time, int32_t queued, int32_t busy,
                       const int32_t *busy_by_type, int32_t ntypes,
                       double frag);
/* The same row up to its last column (frag_gpus), with the comma before
 * it: at most CLI_TIMELINE_PREFIX_MAX bytes; the end. */
#define CLI_TIMELINE_PREFIX_MAX (64 + 12 * SIM_MAX_GPU_TYPES)
char *cli_timeline_prefix(char *p, double time, int32_t queued, int32_t busy,
                          const int32_t *busy_by_type, int32_t ntypes);
/* jobs.csv: its header line, and job I of S's row (ID: its trace id,
 * shown as cli_job_shown_id: "(id too long)" over CLI_ID_MAX bytes, so
 * that a row fits CLI_ROW_MAX). */
#define CLI_ID_MAX 1024
const char *cli_job_shown_id(const char *id);
extern const char cli_jobs_header[];
void cli_jobs_row(struct cli_rows *o, const struct sim *s,
                  const struct cluster *c, uint32_t i, const char *id);
/* The same in two steps: what the row says, taken from S (REASON, when
 * not "", in WHY of CAP bytes), and the row of those fields. */
struct cli_job_fields {
    double submit, start, finish, run_s;
    int32_t num_gpus, gpu_type, preemptions;
    int state, failure;
    const char *id, *reason;
};
void cli_job_fields(const struct sim *s, const struct cluster *c, uint32_t i,
                    const char *id, char *why, size_t cap,
                    struct cli_job_fields *f);
void cli_jobs_put(struct cli_rows *o, const struct cluster *c,
                  const struct cli_job_fields *f);
struct cli_atomic;
/* Records handed to a thread of their own (rows_writer.c), where CONSUME
 * takes them a block at a time, in the order put, then DONE (may be NULL)
 * is called once; or both called by the caller where no thread can be had
 * (NULL: out of memory). A record is at most CLI_PIPE_RECORD_MAX bytes: room
 * gives where to write one of SIZE bytes, put hands it over. finish hands
 * over the last and returns; end also waits for DONE and frees P. */
#define CLI_PIPE_RECORD_MAX 2048
typedef void cli_pipe_fn(void *ctx, const char *block, size_t len);
struct cli_pipe;
struct cli_pipe *cli_pipe_start(cli_pipe_fn *consume, void (*done)(void *ctx),
                                void *ctx);
char *cli_pipe_room(struct cli_pipe *p, size_t size);
void cli_pipe_put(struct cli_pipe *p, size_t size);
void cli_pipe_finish(struct cli_pipe *p);
void cli_pipe_end(struct cli_pipe *p);
/* Whether P's records are consumed on its thread. */
int cli_pipe_threaded(const struct cli_pipe *p);
/* Whether a run may hand work to threads (rows_writer.c): not where
 * environment variable ENV is "0", nor where the process may run on one
 * CPU only. */
int cli_thread_wanted(const char *env);
/* Makes MU and CV and starts *T running FN(ARG): 1, or 0 with none of
 * them made. */
int cli_thread_start(pthread_t *t, pthread_mutex_t *mu, pthread_cond_t *cv,
                     void *(*fn)(void *), void *arg);

/* The rows of a streamed native trace N (stream_read.c), read a block ahead
 * on a thread of their own where one can be had (not with
 * HETSIM_READER_THREAD=0). A row's record: its fields, the mask of its
 * gpu_type (cli_types_mask, 0 without the column), then its job_id (with
 * WANT_ID; cut to CLI_ID_MAX + 1 bytes) and, when mask is -1 only, its
 * gpu_type text, each with its NUL. The reader stops after such a row. */
struct cli_read_row {
    double submit_time, duration;
    long line;
    int64_t mask;
    int32_t num_gpus;
    uint16_t id_len, text_len;
};
struct cli_reader;
struct cli_reader *cli_reader_start(struct trace_native *n,
                                    const struct cluster *c, int want_id);
/* trace_native_next's contract, a row at a time: 1 with *ROW, *ID and
 * *TEXT valid until the next call; 0 at the end or a negative code, with
 * *ERR as trace_native_next leaves it. */
int cli_reader_next(struct cli_reader *r, const struct cli_read_row **row,
                    const char **id, const char **text,
                    struct trace_error *err);
/* The share of the file read by the rows taken so far, or -1 for a pipe
 * (or before the first row). */
double cli_reader_fraction(const struct cli_reader *r);
/* Stops the thread, waits for it, and frees R (N stays open). */
void cli_reader_end(struct cli_reader *r);

/* cli_jobs_put's rows into OUT through a pipe, in the order put (NULL: out
 * of memory); a job's record is its fields, its shown id (at most
 * CLI_ID_MAX bytes) and its reason (cli_job_reason: under 160 bytes), so
 * it fits CLI_PIPE_RECORD_MAX. FILE (may be NULL) is OUT's file: on the
 * pipe's thread it is written to disk as it grows (cli_atomic_background).
 * finish hands over the last row and returns: then OUT is closed
 * (cli_rows_close) and FILE flushed and written to disk
 * (cli_atomic_presync) while the caller goes on. end waits for all that
 * and frees W; OUT's file is then the caller's again. */
struct cli_rows_writer;
struct cli_rows_writer *cli_rows_writer_start(struct cli_rows *out,
                                              const struct cluster *c,
                                              struct cli_atomic *file);
/* put: F's row, F->id of ID_LEN bytes (strlen, known to the caller). */
void cli_rows_writer_put(struct cli_rows_writer *w,
                         const struct cli_job_fields *f, size_t id_len);
void cli_rows_writer_finish(struct cli_rows_writer *w);
void cli_rows_writer_end(struct cli_rows_writer *w);

/* A file written under a temporary name and renamed into place by
 * cli_atomic_commit(), so readers never see half of it (exp_file of
 * experiment.h: fsync'ed; a device, FIFO or "-" streamed to). */
#include "experiment.h"
struct cli_atomic {
    FILE *f;
    char path[4096];
    char tmp[4096];
    struct exp_file x;
    char err[EXP_PATH_MAX + 128];
};
int cli_atomic_open(struct cli_atomic *a, const char *dir, const char *name);
/* Flushes, fsyncs, closes and renames; 0, or -1 with errno set and
 * A->err holding "FILE: reason". */
int cli_atomic_commit(struct cli_atomic *a);
/* Closes and removes the temporary file. */
void cli_atomic_abort(struct cli_atomic *a);
/* exp_file_presync: A's bytes flushed and written to disk now, so that its
 * commit's fsync has little left to do (its errors show at the commit). */
void cli_atomic_presync(struct cli_atomic *a);
/* exp_file_background: A written by a thread that may wait. */
void cli_atomic_background(struct cli_atomic *a);

/* timeline.csv of a streaming run (stream_timeline.c): the observer's
 * rows (CTX of cli_tl_spill_change, the sim_observer's change) formatted on
 * a pipe's thread into a temporary file, then written after the run with
 * the fragmentation the run learnt only at its end. While every job may
 * run on one GPU of any type (sim_frag_nil), that column is 0, and the
 * thread writes the rows into FILE (timeline.csv, opened and its header
 * written; may be NULL) instead, with a note of each in the temporary
 * file. cli_tl_spill_written waits for the thread: 1 when FILE then holds
 * the whole file, written to disk, to commit; else FILE is opened again
 * for reading, and may be aborted, and cli_tl_spill_write writes the file
 * to F from both. 0, or -1 when the temporary file could not be had,
 * written or read back, or FILE's rows could not (a write failed). */
struct cli_tl_rows;
struct cli_tl_spill {
    const struct sim *s;
    struct cli_pipe *pipe; /* the records to format */
    int32_t ntypes;
    int nil;               /* sim_frag_nil, looked at lately */
    uint64_t records;      /* handed over */
    struct cli_tl_rows *w; /* the pipe's thread's */
};
int cli_tl_spill_open(struct cli_tl_spill *sp, const struct sim *s,
                      int32_t ntypes, struct cli_atomic *file);
void cli_tl_spill_change(void *ctx, double time, int32_t queued, int32_t busy,
                         const int32_t *busy_by_type);
int cli_tl_spill_written(struct cli_tl_spill *sp);
int cli_tl_spill_write(struct cli_tl_spill *sp, FILE *f,
                       const struct cluster *c);
void cli_tl_spill_close(struct cli_tl_spill *sp);

/* TEXT as a quoted CSV field, its quotes doubled (RFC 4180). */
void cli_csv_quoted(FILE *f, const char *text);

/* Writes the JSON text of ROOT (may be NULL) and a newline to F; frees
 * ROOT. -1 when out of memory. */
struct cJSON;
int cli_write_json(FILE *f, struct cJSON *root);
/* The rows of the CSV file PATH (one hetsim wrote: a header, RFC 4180
 * quoting) as a JSON array of objects, numbers as numbers, empty fields
 * null; NULL after a message (sweep_json.c). */
struct cJSON *cli_csv_json_rows(const char *path);
/* ROOT's JSON text into DIR/NAME through cli_atomic; frees ROOT. 0, or
 * -1 after saying why (out of memory, or the file and its write error,
 * with errno set). */
int cli_write_json_file(const char *dir, const char *name, struct cJSON *root);
/* Adds number X under KEY in the shortest text that reads back exactly
 * (cJSON's own printing only round-trips to within an epsilon); null when X
 * is not finite, as JSON has no NaN. */
void cli_json_number(struct cJSON *o, const char *key, double x);

/* mkdir -p DIR; 0 or -1 with errno set. */
int cli_mkdirs(const char *dir);

#endif
