/* trace_cmd.c -- `hetsim trace`: the subcommand table; what the trace
 * commands share (reference run times, cluster capacity, the native CSV
 * writer, the output file); and `trace convert`. Reading a trace with its
 * cluster and matrix (struct trace_input) is in trace_stats.c. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>


#include "trace_cmd.h"

/* ---- run times and capacity (for stats and generate) ------------------ */

double cli_trace_capacity(const struct cluster *c)
{
    double sum = 0, ref = c->types[c->reference].speed;
    for (int32_t t = 0; t < c->ntypes; t++)
        sum += c->types[t].gpus * c->types[t].speed / ref;
    return sum;
}

double cli_trace_reference_s(const struct sim *s, uint32_t j)
{
    const struct cluster *c = sim_cluster(s);
    const struct sim_job *job = sim_job(s, j);
    int32_t ref = c->reference;
    for (int spread = 0; spread < 2; spread++) {
        if (job->allowed & (1u << ref)) {
            double r = sim_runtime_on(s, j, ref, spread);
            if (r > 0)
                return r;
        }
        double best = INFINITY;
        int32_t best_t = -1;
        for (int32_t t = 0; t < c->ntypes; t++) {
            double r = (job->allowed & (1u << t))
                           ? sim_runtime_on(s, j, t, spread)
                           : 0;
            if (r > 0 && r < best) {
                best = r;
                best_t = t;
            }
        }
        if (best_t >= 0)
            return best * c->types[best_t].speed / c->types[ref].speed;
    }
    return NAN;
}

/* ---- the native CSV writer --------------------------------------------- */

enum col_kind { COL_STR, COL_F64, COL_I32, COL_I64 };

/* A column of the native format: which member, and which values the
 * native reader takes (others are written as empty cells, i.e. absent). */
struct out_col {
    const char *name;
    enum col_kind kind;
    size_t offset;
    double min, max; /* allowed values; F64 with strict: > min */
    int strict;
    double absent; /* integers: the reader's default (written if set) */
};

#define OFF(m) offsetof(struct trace_job, m)
#define S(name, m)                                                             \
    {                                                                          \
        name, COL_STR, OFF(m), 0, 0, 0, 0                                      \
    }
#define F(name, m, strict)                                                     \
    {                                                                          \
        name, COL_F64, OFF(m), 0, INFINITY, strict, 0                          \
    }
#define I(name, m, lo, hi, absent)                                             \
    {                                                                          \
        name, COL_I32, OFF(m), lo, hi, 0, absent                               \
    }

/* The required four first, then the optional columns in the order of the
 * native reader. Gavel's slo has no native column. */
static const struct out_col out_cols[] = {
    S("job_id", id),
    F("submit_time", submit_time, 0),
    I("num_gpus", num_gpus, 1, INT32_MAX, -1),
    F("duration", duration, 1),
    S("job_type", job_type),
    S("gpu_type", gpu_types),
    F("gpu_mem_mb", gpu_mem_mb, 1),
    I("gpu_milli", gpu_milli, 1, 1000, 1000),
    S("user", user),
    S("vc", vc),
    I("priority", priority, INT32_MIN, INT32_MAX, 0),
    S("model", model),
    F("params_m", params_m, 0),
    I("batch_size", batch_size, 1, INT32_MAX, -1),
    I("layers", layers, 1, INT32_MAX, -1),
    I("input_dim", input_dim, 1, INT32_MAX, -1),
    {"iterations", COL_I64, OFF(iterations), 1, 9.3e18, 0, -1},
    S("precision", precision),
    S("optimizer", optimizer),
    F("learning_rate", learning_rate, 1),
    F("est_duration", est_duration, 1),
    F("deadline", deadline, 0),
    F("weight", weight, 1),
    I("cpu_milli", cpu_milli, 0, INT32_MAX, -1),
    F("host_mem_mb", host_mem_mb, 1),
    S("qos", qos),
    S("status", status),
    F("gpu_util_peak", use_peak[TRACE_USE_GPU_UTIL], 0),
    F("gpu_util_burst", use_burst[TRACE_USE_GPU_UTIL], 1),
    F("gpu_mem_util_peak", use_peak[TRACE_USE_GPU_MEM_UTIL], 0),
    F("gpu_mem_util_burst", use_burst[TRACE_USE_GPU_MEM_UTIL], 1),
    F("gpu_mem_peak", use_peak[TRACE_USE_GPU_MEM], 0),
    F("gpu_mem_burst", use_burst[TRACE_USE_GPU_MEM], 1),
    F("cpu_util_peak", use_peak[TRACE_USE_CPU_UTIL], 0),
    F("cpu_util_burst", use_burst[TRACE_USE_CPU_UTIL], 1),
};
#define NOUT_COLS (sizeof out_cols / sizeof out_cols[0])
#define NREQUIRED 4
#define COL_DURATION 3

/* The value of column C of job J as a double (strings: their offset). */
static double col_value(const struct out_col *c, const struct trace_job *j)
{
    const char *p = (const char *)j + c->offset;
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    double d;
    switch (c->kind) {
    case COL_STR: memcpy(&u32, p, sizeof u32); return u32;
    case COL_F64: memcpy(&d, p, sizeof d); return d;
    case COL_I32: memcpy(&i32, p, sizeof i32); return i32;
    case COL_I64: memcpy(&i64, p, sizeof i64); return (double)i64;
    }
    return NAN;
}

/* Whether the native reader takes value V of column C. */
static int col_valid(const struct out_col *c, double v)
{
    if (c->kind == COL_STR)
        return v != TRACE_NOSTR;
    if (!isfinite(v) || v > c->max)
        return 0;
    return c->strict ? v > c->min : v >= c->min;
}

/* Writes S as one CSV field, in quotes when it holds a comma, a quote, a
 * line end or a blank at either end (RFC 4180: quotes doubled inside). */
static void put_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL ||
                (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
                       s[n - 1] == '\t'));
    if (quote)
        cli_csv_quoted(f, s);
    else
        fwrite(s, 1, n, f);
}

/* Cell of column C for job J whose value is V (exact for COL_I64). */
static void put_cell(FILE *f, const struct trace *t, const struct out_col *c,
                     const struct trace_job *j, double v)
{
    char buf[40];
    int64_t i64;
    if (!col_valid(c, v))
        return;
    switch (c->kind) {
    case COL_STR: put_field(f, trace_str(t, (uint32_t)v)); return;
    case COL_F64: fputs(cli_fmt_double(buf, v), f); return;
    case COL_I32: *cli_put_int(buf, (int64_t)v) = '\0'; break;
    case COL_I64:
        memcpy(&i64, (const char *)j + c->offset, sizeof i64);
        *cli_put_int(buf, i64) = '\0';
        break;
    }
    fputs(buf, f);
}

int cli_trace_write_native(FILE *f, const struct trace *t,
                           const double *duration)
{
    unsigned char used[NOUT_COLS];
    for (size_t k = 0; k < NOUT_COLS; k++) {
        const struct out_col *c = &out_cols[k];
        used[k] = k < NREQUIRED;
        for (size_t j = 0; j < t->njobs && !used[k]; j++) {
            double v = col_value(c, &t->jobs[j]);
            used[k] = col_valid(c, v) && (c->kind == COL_STR ||
                                          c->kind == COL_F64 || v != c->absent);
        }
    }
    for (size_t k = 0, n = 0; k < NOUT_COLS; k++)
        if (used[k])
            fprintf(f, "%s%s", n++ ? "," : "", out_cols[k].name);
    putc('\n', f);
    for (size_t j = 0; j < t->njobs; j++) {
        for (size_t k = 0, n = 0; k < NOUT_COLS; k++) {
            if (!used[k])
                continue;
            if (n++)
                putc(',', f);
            double v = col_value(&out_cols[k], &t->jobs[j]);
            if (k == COL_DURATION && !(v > 0) && duration)
                v = duration[j];
            put_cell(f, t, &out_cols[k], &t->jobs[j], v);
        }
        putc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* ---- the output file --------------------------------------------------- */

int cli_trace_out_open(struct trace_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return CLI_OK;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    int n = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path)
                  : snprintf(dir, sizeof dir, ".");
    if (!*name || n < 0 || (size_t)n >= sizeof dir) {
        cli_error("%s: not a file name", path);
        return CLI_FAILURE;
    }
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    if (cli_atomic_open(&o->a, dir, name) != 0) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        return CLI_FAILURE;
    }
    o->f = o->a.f;
    o->atomic = 1;
    return CLI_OK;
}

int cli_trace_out_commit(struct trace_out *o)
{
    if (!o->atomic) {
        if (fflush(o->f) != 0 || ferror(o->f)) {
            cli_error("%s: cannot write: %s", "stdout", strerror(errno));
            return CLI_FAILURE;
        }
        return CLI_OK;
    }
    o->atomic = 0;
    errno = 0;
    if (cli_atomic_commit(&o->a) != 0) {
        cli_error("%s: cannot write: %s", o->path,
                  strerror(errno ? errno : EIO));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

void cli_trace_out_abort(struct trace_out *o)
{
    if (o->atomic)
        cli_atomic_abort(&o->a);
    o->atomic = 0;
}

/* ---- trace convert ----------------------------------------------------- */

#define CONVERT_CMD "hetsim trace convert"

static void convert_usage(void)
{
    printf(
        "Usage: hetsim trace convert FILE --to native -o OUT [OPTIONS]\n"
        "Rewrites a trace of any format hetsim reads as a native CSV trace "
        "(docs/formats.md,\n\"Native CSV\"): the four required columns, then each "
        "optional column that\nat least one job has. Text is quoted (RFC "
        "4180) when it holds a comma, a\nquote, a line end or a blank at "
        "either end; numbers are written in the\nshortest form that reads "
        "back exactly, so a native trace converts to the\nsame jobs. "
        "Gavel's slo field has no native column and is left out.\n\n"
        "      --to FORMAT       the format to write: native (the only one; "
        "default)\n"
        "  -o, --out OUT         the file to write, or - for stdout; written "
        "under a\n"
        "                        temporary name and renamed into place, so a "
        "failed\n"
        "                        convert leaves no "
        "file\n" CLI_TRACE_OPTIONS_HELP
        "  -T, --throughputs F   measured throughputs (Gavel's\n"
        "                        simulation_throughputs.json)\n"
        "  -c, --cluster C       a cluster JSON file or built-in name. Gavel "
        "jobs have no\n"
        "                        duration: give both --throughputs and "
        "--cluster and each\n"
        "                        gets its run time alone on the cluster's "
        "reference GPU\n"
        "                        type (total_steps / steps per second "
        "there)\n"
        "  -q, --quiet           print nothing on success\n"
        "  -h, --help            show this help\n\n"
        "Example:\n"
        "  hetsim trace convert traces/gavel/msr/seed=0/6214e9.trace "
        "--to native \\\n"
        "      --throughputs traces/gavel/simulation_throughputs.json \\\n"
        "      --cluster gavel-108 -o 6214e9.csv\n");
}

struct convert_args {
    struct trace_input in;
    const char *out;
    int quiet;
};

static int convert_option(struct convert_args *a, int opt, char **argv)
{
    switch (opt) {
    case 't':
        if (strcmp(optarg, "native") != 0)
            return cli_usage_error(CONVERT_CMD,
                                   "--to: unknown format '%s' "
                                   "(choose from: native)",
                                   optarg);
        return 0;
    case 'o': a->out = optarg; return 0;
    case 'c': a->in.cluster_arg = optarg; return 0;
    case 'T': a->in.throughputs = optarg; return 0;
    case 'q': a->quiet = 1; return 0;
    case 'f':
    case 'X':
    case 'B':
    case 'G':
        return cli_trace_option(CONVERT_CMD, opt, optarg, &a->in.format,
                                &a->in.opt);
    case 'h': convert_usage(); return -1;
    case ':':
        return cli_usage_error(CONVERT_CMD, "option '%s' needs a value",
                               argv[optind - 1]);
    default:
        return cli_usage_error(CONVERT_CMD, "unknown option '%s'",
                               argv[optind - 1]);
    }
}

static int parse_convert_args(int argc, char **argv, struct convert_args *a)
{
    static const struct option long_options[] = {
        {"to", required_argument, NULL, 't'},
        {"out", required_argument, NULL, 'o'},
        {"cluster", required_argument, NULL, 'c'},
        {"throughputs", required_argument, NULL, 'T'},
        CLI_TRACE_LONG_OPTIONS,
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (struct convert_args){
        .in = {.cmd = CONVERT_CMD, .opt = {.procs_per_gpu = 1}}};
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:c:T:f:qh", long_options, NULL)) !=
           -1)
        if ((rc = opt == '?' || opt == ':'
                      ? cli_option_error_in(CONVERT_CMD, opt, argv, long_options)
                      : convert_option(a, opt, argv)) != 0)
            return rc;
    if (optind >= argc)
        return cli_usage_error(CONVERT_CMD, "missing the trace FILE");
    if (optind + 1 < argc)
        return cli_usage_error(CONVERT_CMD, "unexpected argument '%s'",
                               argv[optind + 1]);
    a->in.path = argv[optind];
    if (!a->out)
        return cli_usage_error(CONVERT_CMD, "missing -o OUT (a file, or - "
                                            "for stdout)");
    if (a->in.throughputs && !a->in.cluster_arg)
        return cli_usage_error(CONVERT_CMD,
                               "--throughputs needs --cluster "
                               "(run times are taken on its reference GPU "
                               "type)");
    return 0;
}

/* CLI_BAD_INPUT after a message when a job without a duration got no run
 * time either (its class runs on no GPU type of the cluster). */
static int check_durations(const struct trace_input *in)
{
    const struct trace *t = in->trace;
    for (size_t j = 0; j < t->njobs; j++) {
        if (t->jobs[j].duration > 0 || !isnan(in->ref_s[j]))
            continue;
        char text[320];
        snprintf(text, sizeof text,
                 "job \"%s\" can run on no GPU type of "
                 "cluster %s, so it has no duration to write",
                 trace_str(t, t->jobs[j].id), in->cluster->name);
        cli_error_at(in->path, (long)t->jobs[j].line, 0, text);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int cli_trace_convert(int argc, char **argv)
{
    struct convert_args a;
    int rc = parse_convert_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    rc = cli_trace_input_load(&a.in, 1);
    if (!rc)
        rc = check_durations(&a.in);
    struct trace_out o;
    if (!rc)
        rc = cli_trace_out_open(&o, a.out);
    if (!rc) {
        if (cli_trace_write_native(o.f, a.in.trace, a.in.ref_s) != 0) {
            cli_error("%s: cannot write: %s", a.out, strerror(errno));
            cli_trace_out_abort(&o);
            rc = CLI_FAILURE;
        } else
            rc = cli_trace_out_commit(&o);
    }
    if (!rc && !a.quiet && strcmp(a.out, "-") != 0)
        fprintf(stderr, "hetsim trace convert: %zu jobs from %s (%s) to %s\n",
               a.in.trace->njobs, a.in.path,
               trace_format_name(a.in.trace->format), a.out);
    cli_trace_input_free(&a.in);
    return rc;
}

/* ---- hetsim trace COMMAND ---------------------------------------------- */

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} trace_commands[] = {
    {"stats", cli_trace_stats,
     "FILE: jobs, time span, GPU counts, durations, offered load"},
    {"convert", cli_trace_convert,
     "FILE --to native -o OUT: rewrite a trace as a native CSV"},
    {"generate", cli_trace_generate,
     "-o OUT: a seeded synthetic workload, as a native CSV"},
};
#define NTRACE_COMMANDS (sizeof trace_commands / sizeof trace_commands[0])

static void trace_usage(void)
{
    printf("Usage: hetsim trace COMMAND [OPTIONS]\n"
           "Reads, converts, summarises and generates job traces (formats: "
           "native, gavel,\nphilly, alibaba2023, swf, tiresias).\n\n"
           "Commands:\n");
    for (size_t i = 0; i < NTRACE_COMMANDS; i++)
        printf("  %-9s %s\n", trace_commands[i].name,
               trace_commands[i].summary);
    printf("\n`hetsim trace COMMAND --help` explains each one.\n\n"
           "Example:\n"
           "  hetsim trace stats traces/gavel/msr-seed0-6214e9.csv "
           "--cluster gavel-108\n\n"
           "Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 bad input "
           "(trace,\ncluster, throughput matrix).\n");
}

int cli_trace(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("hetsim trace", "missing command (stats, "
                                               "convert or generate)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        trace_usage();
        return CLI_OK;
    }
    for (size_t i = 0; i < NTRACE_COMMANDS; i++)
        if (strcmp(cmd, trace_commands[i].name) == 0)
            return trace_commands[i].run(argc - 1, argv + 1);
    static const char *const names[] = {"stats", "convert", "generate"};
    char hint[128];
    cli_did_you_mean(hint, sizeof hint, cmd, names, 3);
    return cli_usage_error("hetsim trace",
                           "unknown command '%s'%s (choose "
                           "from: stats, convert, generate)",
                           cmd, hint);
}
