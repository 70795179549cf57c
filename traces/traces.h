/* traces.h -- reading job traces into one flat array of job records.
 *
 * The traces module depends on nothing else of hetsim. A reader streams its
 * input (memory grows with the number of jobs kept, not with the file size)
 * and fills a struct trace: one array of struct trace_job plus a string pool
 * that holds every text field once (job ids, job types, users, ...). */
#ifndef HETSIM_TRACES_H
#define HETSIM_TRACES_H

#include <stddef.h>
#include <stdint.h>

/* Error codes of this module: 0 is success, every failure is negative. */
#define TRACE_ERRNO_MAP(X)                                   \
    X(TRACE_EIO, -1, "cannot read file")                     \
    X(TRACE_EPARSE, -2, "malformed trace")                   \
    X(TRACE_ENOMEM, -3, "out of memory")                     \
    X(TRACE_EFORMAT, -4, "unknown trace format")             \
    X(TRACE_EUNSORTED, -5, "trace not sorted by submit_time")

enum trace_errno {
#define TRACE_ERRNO_ENUM(name, value, text) name = value,
    TRACE_ERRNO_MAP(TRACE_ERRNO_ENUM)
#undef TRACE_ERRNO_ENUM
};

/* Text of an error code; never NULL. */
const char *trace_strerror(int code);

/* Where and why a read failed; the first error wins. line and column count
 * from 1; 0 means "not known" (e.g. a file that cannot be opened). */
struct trace_error {
    char source[256];
    long line;
    long column;
    char text[256];
};

/* Index into the string pool; TRACE_NOSTR means "column absent or empty". */
#define TRACE_NOSTR 0u

/* Resources whose peak and burst usage a trace may give (Ferrino & Choe,
 * 2024), as measured on the reference GPU type: GPU and GPU-memory
 * utilization and CPU utilization in percent, GPU memory in MB. */
enum trace_usage { TRACE_USE_GPU_UTIL, TRACE_USE_GPU_MEM_UTIL,
                   TRACE_USE_GPU_MEM, TRACE_USE_CPU_UTIL, TRACE_USE_N };

/* One job as the trace describes it. Missing optional numbers are NAN
 * (floating) or -1 (integers); missing strings are TRACE_NOSTR. */
struct trace_job {
    double submit_time;   /* s since the trace start */
    double duration;      /* s of run time on the reference GPU */
    double gpu_mem_mb;    /* true peak GPU memory need, NAN if absent */
    double params_m;      /* model parameters, millions */
    double learning_rate;
    double est_duration;  /* the user's estimate of duration, s */
    double deadline;      /* s since the trace start */
    double weight;        /* priority weight (Gavel physical traces) */
    double slo;           /* Gavel's SLO factor; NAN: none (< 0 in file) */
    double host_mem_mb;   /* host memory asked (Alibaba memory_mib) */
    double use_peak[TRACE_USE_N];  /* <resource>_peak columns, NAN absent */
    double use_burst[TRACE_USE_N]; /* <resource>_burst, > 0, NAN absent */
    int64_t iterations;   /* training steps (Gavel total_steps) */
    int32_t num_gpus;     /* >= 1 */
    int32_t gpu_milli;    /* thousandths of one GPU; 1000 = whole (default) */
    int32_t priority;
    int32_t batch_size;
    int32_t layers;
    int32_t input_dim;
    int32_t cpu_milli;    /* thousandths of a CPU core (Alibaba) */
    uint32_t id;          /* job_id text */
    uint32_t job_type;
    uint32_t gpu_types;   /* allowed GPU types, '|'-separated, as in the file */
    uint32_t user;
    uint32_t vc;
    uint32_t model;
    uint32_t precision;
    uint32_t optimizer;
    uint32_t qos;         /* Alibaba qos class */
    uint32_t status;      /* final state in the source (pod_phase, SWF) */
    uint32_t line;        /* line of the source file the job came from */
};

/* A count of rows a reader treated in a documented way (dropped CPU-only
 * pods, GPU counts without a measurement, ...), for `trace stats`. */
struct trace_note {
    const char *what; /* static text */
    size_t count;
};
#define TRACE_MAX_NOTES 8
#define TRACE_MAX_WARNINGS 8

enum trace_format {
    TRACE_FMT_AUTO,        /* detect from the header and the extension */
    TRACE_FMT_NATIVE,
    TRACE_FMT_GAVEL,       /* Gavel .trace, 7 or 10 tab-separated fields */
    TRACE_FMT_PHILLY,
    TRACE_FMT_ALIBABA2023, /* openb_pod_list_*.csv */
    TRACE_FMT_SWF,
    TRACE_FMT_TIRESIAS,
    TRACE_FMT_COUNT
};

/* A trace: jobs in file order (readers do not sort). */
struct trace {
    struct trace_job *jobs; /* (njobs) */
    size_t njobs;
    size_t rows_skipped;    /* rows dropped under TRACE_SKIP_BAD_ROWS */
    struct trace_strpool *pool;
    enum trace_format format;
    struct trace_note notes[TRACE_MAX_NOTES];
    size_t nnotes;
    /* What a reader read but did not use (an unknown column), for the
     * caller to print; the first TRACE_MAX_WARNINGS, nwarnings counts all. */
    struct trace_error warnings[TRACE_MAX_WARNINGS];
    size_t nwarnings;
};

enum trace_flags {
    TRACE_SKIP_BAD_ROWS = 1 << 0, /* count bad rows instead of failing */
    TRACE_STRICT = 1 << 1,        /* an unknown column is an error, not a
                                     warning */
};

struct trace_options {
    int flags;            /* enum trace_flags */
    double procs_per_gpu; /* SWF: processors that make one GPU (default 1) */
};

/* Name of a format ("native", "gavel", ...) and back; -1 if unknown. */
const char *trace_format_name(enum trace_format f);
int trace_format_parse(const char *name);

/* Guesses the format of PATH from its first line and its extension.
 * Returns 0 with *out set, or TRACE_EIO / TRACE_EFORMAT with *err filled. */
int trace_detect_format(const char *path, enum trace_format *out,
                        struct trace_error *err);

/* Reads PATH in format F (TRACE_FMT_AUTO: detected); OPT may be NULL for
 * defaults. Contract as trace_read_native. */
int trace_read(const char *path, enum trace_format f,
               const struct trace_options *opt, struct trace **out,
               struct trace_error *err);

/* Reads a native CSV trace (README, "Trace format"): columns by name, job_id,
 * submit_time, num_gpus, duration required, unknown ones ignored; UTF-8 BOM,
 * CRLF and RFC 4180 quotes accepted. Returns 0 with *out owning a new trace
 * (trace_destroy) and *err, if non-NULL, the first row skipped under
 * TRACE_SKIP_BAD_ROWS (line 0, "" if none); or a negative TRACE_E* code with
 * *err filled (if non-NULL) and *out NULL. */
int trace_read_native(const char *path, int flags, struct trace **out,
                      struct trace_error *err);

/* Readers of one format each: contract as trace_read_native; OPT may be
 * NULL. Gavel .trace: 7 or 10 tab-separated fields (the first line decides);
 * ids "<base name>-<line>"; duration NAN (iterations / trace_throughput). */
int trace_read_gavel(const char *path, const struct trace_options *opt,
                     struct trace **out, struct trace_error *err);
/* Philly CSV: UTC timestamps become s from the earliest; gpu_time must be
 * duration * num_gpus (1e-6 relative); ids "philly-<line>". */
int trace_read_philly(const char *path, const struct trace_options *opt,
                      struct trace **out, struct trace_error *err);
/* Alibaba 2023 pods: submit = creation_time, duration = deletion_time -
 * scheduled_time; CPU-only, unscheduled and duration <= 0 pods dropped,
 * running ones ended at the file's last time, each counted in a note. */
int trace_read_alibaba2023(const char *path, const struct trace_options *opt,
                           struct trace **out, struct trace_error *err);
/* SWF 2.2: times from the earliest submit; num_gpus = ceil(processors /
 * procs_per_gpu); jobs without run time, processors or submit time dropped
 * into notes; an error's column is the field number (1-18). */
int trace_read_swf(const char *path, const struct trace_options *opt,
                   struct trace **out, struct trace_error *err);
/* Tiresias CSV: job_id, num_gpu, submit_time, duration required; model_name
 * is model and job_type; a repeated job_id is an error. */
int trace_read_tiresias(const char *path, const struct trace_options *opt,
                        struct trace **out, struct trace_error *err);

/* Levenshtein distance between A[0..ALEN) and the string B ((size_t)-1 for
 * names of 64 characters or more). */
size_t trace_edit_distance(const char *a, size_t alen, const char *b);
/* The one of NAMES[0..N) (NULL entries skipped) nearest to WORD[0..LEN)
 * that is close enough to be a typo of it (1 edit for names of up to 4
 * characters, 2 up to 8, 3 beyond; or WORD is a prefix of it of at least 3
 * characters), NULL if none is or WORD is one of them. */
const char *trace_nearest_name(const char *word, size_t len,
                               const char *const *names, size_t n);

/* Frees a trace; NULL is a no-op. */
void trace_destroy(struct trace *t);

/* Text of a pooled string ("" for TRACE_NOSTR); lives as long as T. */
const char *trace_str(const struct trace *t, uint32_t s);

/* ---- Gavel's measured throughputs (throughputs.c) ---------------------- */

struct trace_throughputs;

/* Reads simulation_throughputs.json (schema in README). 0, or a negative
 * TRACE_E* code with *err filled. */
int trace_throughputs_load(const char *path, struct trace_throughputs **out,
                           struct trace_error *err);
void trace_throughputs_destroy(struct trace_throughputs *m);

/* Worker types in the file ("k80", "p100", ...; without "_unconsolidated"),
 * i from 0; NULL past the last. */
const char *trace_throughputs_worker(const struct trace_throughputs *m,
                                     size_t i);
/* Job types in the file, in file order, i from 0; NULL past the last. */
const char *trace_throughputs_job_type(const struct trace_throughputs *m,
                                       size_t i);
/* GPU counts found in the file, ascending, i from 0; 0 past the last. */
int32_t trace_throughputs_gpu_count(const struct trace_throughputs *m,
                                    size_t i);

/* Steps per second (0..1e9; 0: cannot run there) of JOB_TYPE on N GPUs of
 * WORKER (any case), consolidated or spread (the *_unconsolidated entries).
 * 0: measured; 1: a fallback, t(m) * N / m from the largest measured count
 * m, the consolidated value for a spread 1-GPU job (never spread), a spread
 * fallback capped at the consolidated value; -1: unknown worker, job type
 * or N < 1 (*out untouched). */
int trace_throughput(const struct trace_throughputs *m, const char *worker,
                     const char *job_type, int32_t n, int spread,
                     double *out);

/* Steps per second of job A (on NA GPUs) and of job B when the two share
 * WORKER's GPUs. 0 when measured, -1 when the file has no such pair. */
int trace_pair_throughput(const struct trace_throughputs *m,
                          const char *worker, const char *a, int32_t na,
                          const char *b, int32_t nb, double *a_out,
                          double *b_out);

/* ---- Model and GPU facts of Gavel's job types (model_facts.c) ---------- */

/* What a job type is as a model (sources in traces/README.md). */
struct trace_model_facts {
    const char *family;  /* "ResNet-50" */
    const char *task;    /* "image_classification" */
    const char *dataset; /* "ImageNet" */
    const char *arch;    /* "cnn", "mlp", "rnn" or "transformer" */
    double params_m;     /* parameters, millions */
    int32_t layers;      /* weight layers of the network */
    int32_t input_dim;   /* image side, sequence length or input width */
    int32_t batch_size;  /* from "(batch size N)", else the family's */
};

/* Facts of Gavel job type JOB_TYPE ("LM (batch size 20)"); 0, or -1 when
 * the family is not known or the name is malformed. */
int trace_model_facts(const char *job_type, struct trace_model_facts *out);
/* Family i from 0 (batch size 0 = given by the job type), NULL past the
 * last. */
const struct trace_model_facts *trace_model_family(size_t i);

/* One GPU of a Gavel worker type (sources in traces/README.md). */
struct trace_gpu_facts {
    const char *name;     /* "k80", "p100", "v100": Gavel's worker names */
    double memory_gb;     /* memory of one GPU (one die of a K80 board) */
    double tflops_fp32;   /* FP32 peak, TFLOP/s */
    double bandwidth_gbs; /* memory bandwidth, GB/s */
};

/* Facts of Gavel worker type WORKER (any ASCII case), NULL when hetsim has
 * none. */
const struct trace_gpu_facts *trace_gpu_facts(const char *worker);

/* ---- Alibaba 2023 node list (alibaba_nodes.c) -------------------------- */

struct trace_node {
    char name[48];
    char model[32];   /* GPU model; "" for a node without GPUs */
    int32_t gpus;
    int32_t cpu_milli;
    double memory_mib;
};

struct trace_nodes {
    struct trace_node *nodes; /* (n) in file order */
    size_t n;
    /* Unknown header columns, as struct trace's warnings. */
    struct trace_error warnings[TRACE_MAX_WARNINGS];
    size_t nwarnings;
};

/* Reads openb_node_list_gpu_node.csv (sn,cpu_milli,memory_mib,gpu,model).
 * Contract as trace_read_native. */
int trace_read_alibaba_nodes(const char *path, struct trace_nodes **out,
                             struct trace_error *err);
/* The same with FLAGS (enum trace_flags): an unknown column is a warning in
 * (*out)->warnings naming the nearest known one, or under TRACE_STRICT an
 * error (TRACE_EPARSE). */
int trace_read_alibaba_nodes_flags(const char *path, int flags,
                                   struct trace_nodes **out,
                                   struct trace_error *err);
void trace_nodes_destroy(struct trace_nodes *n);

/* ---- A native trace row by row (native.c) ------------------------------ */

/* trace_read_native in steps: open reads the header (the contract of
 * trace_read_native for errors); then either read_all reads the rest into
 * a whole trace exactly as trace_read_native does, or next streams the
 * rows: 1 with *job filled (its strings are not interned: TRACE_NOSTR;
 * trace_native_text gives the row's texts), 0 at the end (with *err the
 * first row skipped under TRACE_SKIP_BAD_ROWS, if any), or a negative
 * code with *err filled. A streamed trace must be sorted by submit_time
 * (TRACE_EUNSORTED at the first row that is not, naming its line), and
 * its job ids are checked for duplicates without being kept (idset.c).
 * read_all and close free N. */
struct trace_native;
int trace_native_open(const char *path, int flags, struct trace_native **out,
                      struct trace_error *err);
int trace_native_read_all(struct trace_native *n, struct trace **out,
                          struct trace_error *err);
int trace_native_next(struct trace_native *n, struct trace_job *job,
                      struct trace_error *err);
/* Whether the header has column NAME (docs/formats.md's name). */
int trace_native_has_column(const struct trace_native *n, const char *name);
/* The text of column NAME in the row just streamed, NUL-terminated in BUF
 * (CAP > 0 bytes, cut to fit); "" when the column is absent. */
const char *trace_native_text(const struct trace_native *n, const char *name,
                              char *buf, size_t cap);
/* The job_id of the row just streamed: its *LEN bytes, not NUL-terminated,
 * valid until the next row (trace_native_text without the name's look-up
 * and the copy). */
const char *trace_native_id(const struct trace_native *n, size_t *len);
/* The trace being read: format, warnings, rows_skipped, and njobs, the
 * rows streamed so far (no jobs are kept). */
const struct trace *trace_native_trace(const struct trace_native *n);
/* The share of the file read so far (0 to 1), or -1 for a pipe. */
double trace_native_fraction(const struct trace_native *n);
void trace_native_close(struct trace_native *n);

/* ---- Workload generator (generate.c) ---- */

/* A synthetic workload: N jobs whose arrival, GPU count, duration and (with
 * a matrix) job type are drawn in that order, job after job, from GSL's
 * mt19937 seeded with `seed`, so one spec always gives the same trace. */

enum trace_gen_arrivals {
    TRACE_GEN_POISSON, /* exponential gaps of mean 1 / rate */
    TRACE_GEN_MMPP,    /* two-state Markov-modulated Poisson, below */
};

/* MMPP: arrivals are Poisson at rate_low in the low state and at rate_high
 * = rate_ratio * rate_low in the high one. A state lasts an exponential
 * time of mean high_mean_s (high) or high_mean_s * (1 - f) / f (low), so
 * the high state holds a fraction f = high_fraction of the time, and
 * rate_low = rate / (1 - f + f * rate_ratio) keeps the mean rate at `rate`.
 * The first state is drawn from that stationary law (high with chance f). */
struct trace_gen_mmpp {
    double rate_ratio;    /* >= 1 (1: Poisson) */
    double high_fraction; /* in (0, 1) */
    double high_mean_s;   /* > 0 */
};

enum trace_gen_dist {
    TRACE_GEN_EXP,       /* a = mean */
    TRACE_GEN_LOGNORMAL, /* ln d ~ Normal(a = mu, b = sigma) */
    TRACE_GEN_PARETO,    /* P(d > x) = (b / x)^a, x >= b: a = alpha, b = xmin */
    TRACE_GEN_RESAMPLE,  /* uniformly, with replacement, from samples */
};

struct trace_gen_durations {
    enum trace_gen_dist kind;
    double a, b;
    const double *samples; /* (nsamples) borrowed, each finite and > 0 */
    size_t nsamples;
    const char *path;      /* resample: the trace named in the text */
};

#define TRACE_GEN_MAX_GPU_BINS 32
struct trace_gen_gpus {
    int32_t count[TRACE_GEN_MAX_GPU_BINS]; /* (n) distinct, >= 1 */
    double prob[TRACE_GEN_MAX_GPU_BINS];   /* (n) > 0, summing to 1 */
    size_t n;
};

struct trace_gen_spec {
    uint64_t seed;  /* mt19937 takes the low 32 bits (0 = its default) */
    size_t njobs;   /* 1 .. UINT32_MAX */
    double rate;    /* mean arrivals per second */
    enum trace_gen_arrivals arrivals;
    struct trace_gen_mmpp mmpp;
    struct trace_gen_durations durations;
    struct trace_gen_gpus gpus;
    /* With a matrix (borrowed), each job also gets a job type drawn
     * uniformly among those with a measured throughput > 0 on WORKER at its
     * GPU count (one node), and iterations = max(1, round(duration * that
     * throughput)): the durations are run times on WORKER. */
    const struct trace_throughputs *matrix;
    const char *worker;
};

/* Defaults: seed 1, 1000 jobs, rate 1/s, Poisson; MMPP 10, 0.1, 3600 s;
 * exp:3600; one GPU; no matrix, worker "v100". */
void trace_gen_defaults(struct trace_gen_spec *s);

/* "exp:MEAN", "lognormal:MU,SIGMA", "pareto:ALPHA,XMIN" or "resample:PATH"
 * (d->path points into TEXT; the caller fills samples). 0, or TRACE_EPARSE
 * with err->text saying what is wrong. */
int trace_gen_parse_durations(const char *text, struct trace_gen_durations *d,
                              struct trace_error *err);

/* "N:W,N:W,..." GPU counts and weights > 0, normalised to sum 1. 0, or
 * TRACE_EPARSE with err->text. */
int trace_gen_parse_gpus(const char *text, struct trace_gen_gpus *g,
                         struct trace_error *err);

/* Checks every parameter of S but the matrix; 0, or TRACE_EPARSE. */
int trace_gen_check(const struct trace_gen_spec *s, struct trace_error *err);

/* E[duration] (INFINITY for pareto with alpha <= 1) and E[num_gpus]. */
double trace_gen_mean_duration(const struct trace_gen_durations *d);
double trace_gen_mean_gpus(const struct trace_gen_gpus *g);

/* The arrival rate (jobs/s) that offers LOAD to a cluster of CAPACITY
 * reference-GPU equivalents: LOAD * CAPACITY / (E[num_gpus] E[duration])
 * (the two are drawn independently). 0 when the mean is not finite. */
double trace_gen_rate_for_load(const struct trace_gen_spec *s, double load,
                               double capacity);

/* Arrival rate and mean sojourn of the low [0] and high [1] MMPP states. */
void trace_gen_mmpp_states(const struct trace_gen_mmpp *m, double rate,
                           double rate_of[2], double mean_sojourn_s[2]);

/* Draws the trace of S (format native, jobs "job-1", "job-2", ... in
 * arrival order, line = i + 2 as written with a header). 0 with *out owning
 * it; TRACE_EPARSE (spec, or a GPU count without a job type) or
 * TRACE_ENOMEM with err->text saying why. ERR may be NULL, here and in the
 * parse and check functions above. */
int trace_generate(const struct trace_gen_spec *s, struct trace **out,
                   struct trace_error *err);

#endif
