/* trace_generate.c -- `hetsim trace generate`: the command line of the
 * workload generator (the math is traces/generate.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace_cmd.h"

#define GEN_CMD "hetsim trace generate"

static void generate_usage_jobs(void);

static void generate_usage(void)
{
    printf(
        "Usage: hetsim trace generate -o OUT (--rate R | --load RHO "
        "--cluster C) [OPT...]\n"
        "Writes a synthetic workload as a native CSV trace. The same options "
        "and seed\ngive the same bytes (GSL's mt19937).\n\n"
        "  -o, --out OUT           the file to write, or - for stdout "
        "(written whole or\n"
        "                          not at all)\n"
        "  -n, --jobs N            jobs to draw (default 1000)\n"
        "  -s, --seed N            seed, 0 to 4294967295 (default 1)\n\n"
        "Arrival rate, one of:\n"
        "  -r, --rate R            mean arrivals per second\n"
        "  -l, --load RHO          the rate that offers load RHO to "
        "--cluster C, as\n"
        "                          `hetsim trace stats` defines it: rate = "
        "RHO x C /\n"
        "                          (E[num_gpus] x E[duration]), C the "
        "cluster's GPUs in\n"
        "                          reference-GPU equivalents\n"
        "  -c, --cluster C         a cluster JSON file or built-in name\n\n"
        "Arrivals:\n"
        "      --arrivals A        poisson (default): exponential gaps; mmpp: "
        "a two-state\n"
        "                          Markov-modulated Poisson process with a "
        "low and a high\n"
        "                          (burst) state:\n"
        "      --burst-rate-ratio R  high-state rate / low-state rate, >= 1 "
        "(default 10)\n"
        "      --burst-fraction F  share of the time in the high state, "
        "0 < F < 1\n"
        "                          (default 0.1)\n"
        "      --burst-mean-s S    mean stay in the high state, s (default "
        "3600); a stay\n"
        "                          in the low state lasts S x (1 - F) / F on "
        "average. The\n"
        "                          low rate is rate / (1 - F + F x R), so "
        "the mean rate\n"
        "                          is the rate asked; the first state is "
        "high with\n"
        "                          chance F\n\n");
    generate_usage_jobs();
}

static void generate_usage_jobs(void)
{
    printf(
        "Jobs:\n"
        "  -d, --durations D       seconds on the reference GPU type: "
        "exp:MEAN (default\n"
        "                          exp:3600), lognormal:MU,SIGMA (of ln "
        "duration),\n"
        "                          pareto:ALPHA,XMIN, or resample:TRACE "
        "(drawn with\n"
        "                          replacement from the durations of TRACE, "
        "any format)\n"
        "  -g, --gpus DIST         GPU counts and their weights, N:W,N:W,... "
        "(default\n"
        "                          1:1; e.g. 1:0.7,2:0.1,4:0.1,8:0.1; weights "
        "are\n"
        "                          normalised)\n"
        "      --job-types-from M  a throughput matrix (Gavel's\n"
        "                          simulation_throughputs.json): each job "
        "gets a job_type\n"
        "                          drawn uniformly among those measured (> 0 "
        "steps/s, one\n"
        "                          node) on WORKER at its GPU count, and "
        "iterations =\n"
        "                          max(1, round(duration x those steps/s)), "
        "so that a run\n"
        "                          with --throughputs takes about `duration` "
        "on WORKER\n"
        "      --worker WORKER     the matrix's worker type the durations "
        "are run times\n"
        "                          on "
        "(default: the reference type of --cluster when\n"
        "                          the matrix has it, else v100)\n\n"
        "Gavel's own generator, draw for draw: --like gavel (see "
        "`hetsim trace\n"
        "generate --like gavel --help`)\n\n"
        "Reading resample:TRACE:\n" CLI_TRACE_OPTIONS_HELP "\n"
        "  -q, --quiet             print nothing on success\n"
        "  -h, --help              show this help\n\n"
        "Example:\n"
        "  hetsim trace generate --load 0.8 --cluster gavel-108 --jobs 5000 "
        "\\\n"
        "      --gpus 1:0.7,2:0.1,4:0.1,8:0.1 --arrivals mmpp -o load80.csv\n");
}

struct gen_args {
    struct trace_gen_spec spec;
    const char *out, *cluster_arg, *matrix_path, *worker;
    double load;
    int have_rate, have_load, have_burst, quiet;
    enum trace_format format;
    struct trace_options opt;
};

/* A finite number > 0 for option NAME; 0, or CLI_USAGE after saying why. */
static int number_arg(const char *name, const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || !(v > 0))
        return cli_usage_error(GEN_CMD, "%s wants a number > 0, got '%s'", name,
                               arg);
    *out = v;
    return 0;
}

static int whole_arg(const char *name, const char *arg, uint64_t max,
                     uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v > max)
        return cli_usage_error(GEN_CMD,
                               "%s wants a whole number from 0 to "
                               "%llu, got '%s'",
                               name, (unsigned long long)max, arg);
    *out = v;
    return 0;
}

static int spec_arg(int rc, const struct trace_error *err, const char *name)
{
    return rc ? cli_usage_error(GEN_CMD, "%s: %s", name, err->text) : 0;
}

/* Options about how jobs and arrivals are drawn. */
static int draw_option(struct gen_args *a, int opt)
{
    struct trace_gen_spec *s = &a->spec;
    struct trace_error err = {0};
    uint64_t v = 0;
    switch (opt) {
    case 'n':
        if (whole_arg("--jobs", optarg, UINT32_MAX, &v))
            return CLI_USAGE;
        s->njobs = (size_t)v;
        return v ? 0 : cli_usage_error(GEN_CMD, "--jobs wants at least 1");
    case 's':
        if (whole_arg("--seed", optarg, UINT32_MAX, &v))
            return CLI_USAGE;
        s->seed = v;
        return 0;
    case 'A':
        if (strcmp(optarg, "poisson") && strcmp(optarg, "mmpp"))
            return cli_usage_error(GEN_CMD,
                                   "--arrivals wants poisson or "
                                   "mmpp, got '%s'",
                                   optarg);
        s->arrivals = optarg[0] == 'm' ? TRACE_GEN_MMPP : TRACE_GEN_POISSON;
        return 0;
    case 'R':
        a->have_burst = 1;
        return number_arg("--burst-rate-ratio", optarg, &s->mmpp.rate_ratio);
    case 'F':
        a->have_burst = 1;
        return number_arg("--burst-fraction", optarg, &s->mmpp.high_fraction);
    case 'S':
        a->have_burst = 1;
        return number_arg("--burst-mean-s", optarg, &s->mmpp.high_mean_s);
    case 'd':
        return spec_arg(trace_gen_parse_durations(optarg, &s->durations, &err),
                        &err, "--durations");
    case 'g':
        return spec_arg(trace_gen_parse_gpus(optarg, &s->gpus, &err), &err,
                        "--gpus");
    }
    return -2;
}

static int gen_option(struct gen_args *a, int opt, char **argv)
{
    int rc = draw_option(a, opt);
    if (rc != -2)
        return rc;
    switch (opt) {
    case 'o': a->out = optarg; return 0;
    case 'c': a->cluster_arg = optarg; return 0;
    case 'M': a->matrix_path = optarg; return 0;
    case 'W': a->worker = optarg; return 0;
    case 'q': a->quiet = 1; return 0;
    case 'r':
        a->have_rate = 1;
        return number_arg("--rate", optarg, &a->spec.rate);
    case 'l': a->have_load = 1; return number_arg("--load", optarg, &a->load);
    case 'f':
    case 'X':
    case 'B':
    case 'G':
        return cli_trace_option(GEN_CMD, opt, optarg, &a->format, &a->opt);
    case 'h': generate_usage(); return -1;
    case ':':
        return cli_usage_error(GEN_CMD, "option '%s' needs a value",
                               argv[optind - 1]);
    default:
        return cli_usage_error(GEN_CMD, "unknown option '%s'",
                               argv[optind - 1]);
    }
}

static int check_args(const struct gen_args *a, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(GEN_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!a->out)
        return cli_usage_error(GEN_CMD, "missing -o OUT (a file, or - for "
                                        "stdout)");
    if (a->have_rate == a->have_load)
        return cli_usage_error(GEN_CMD, "give the arrival rate one way: "
                                        "--rate R or --load RHO --cluster C");
    if (a->have_load && !a->cluster_arg)
        return cli_usage_error(GEN_CMD, "--load needs --cluster C");
    if (a->have_burst && a->spec.arrivals != TRACE_GEN_MMPP)
        return cli_usage_error(GEN_CMD, "--burst-* options need --arrivals "
                                        "mmpp");
    if (a->spec.mmpp.rate_ratio < 1 || a->spec.mmpp.high_fraction >= 1)
        return cli_usage_error(GEN_CMD, "--burst-rate-ratio wants >= 1 and "
                                        "--burst-fraction a number below 1");
    if (a->worker && !a->matrix_path)
        return cli_usage_error(GEN_CMD, "--worker needs --job-types-from");
    return 0;
}

static int parse_generate_args(int argc, char **argv, struct gen_args *a)
{
    static const struct option long_options[] = {
        {"out", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"arrivals", required_argument, NULL, 'A'},
        {"burst-rate-ratio", required_argument, NULL, 'R'},
        {"burst-fraction", required_argument, NULL, 'F'},
        {"burst-mean-s", required_argument, NULL, 'S'},
        {"durations", required_argument, NULL, 'd'},
        {"gpus", required_argument, NULL, 'g'},
        {"job-types-from", required_argument, NULL, 'M'},
        {"worker", required_argument, NULL, 'W'},
        {"rate", required_argument, NULL, 'r'},
        {"load", required_argument, NULL, 'l'},
        {"cluster", required_argument, NULL, 'c'},
        CLI_TRACE_LONG_OPTIONS,
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    trace_gen_defaults(&a->spec);
    a->opt.procs_per_gpu = 1;
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:n:s:d:g:r:l:c:f:qh", long_options,
                              NULL)) != -1)
        if ((rc = opt == '?' || opt == ':'
                      ? cli_option_error_in(GEN_CMD, opt, argv, long_options)
                      : gen_option(a, opt, argv)) != 0)
            return rc;
    return check_args(a, argc, argv);
}

/* The durations of resample:TRACE, into a->spec (*samples: the caller
 * frees them). */
static int load_samples(struct gen_args *a, double **samples)
{
    struct trace *t = NULL;
    const char *path = a->spec.durations.path;
    int rc = cli_read_trace(path, a->format, &a->opt, &t);
    if (rc)
        return rc;
    double *s = malloc(t->njobs * sizeof *s);
    size_t n = 0;
    for (size_t j = 0; s && j < t->njobs; j++)
        if (t->jobs[j].duration > 0 && isfinite(t->jobs[j].duration))
            s[n++] = t->jobs[j].duration;
    trace_destroy(t);
    *samples = s;
    if (!s) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (n == 0) {
        cli_error("%s: no job has a duration to resample (Gavel traces: "
                  "`hetsim trace convert` them with --throughputs and "
                  "--cluster first)",
                  path);
        return CLI_BAD_INPUT;
    }
    a->spec.durations.samples = s;
    a->spec.durations.nsamples = n;
    return CLI_OK;
}

/* The worker type of M whose name is NAME, ASCII case ignored, or NULL. */
static const char *find_worker(const struct trace_throughputs *m,
                               const char *name)
{
    for (size_t i = 0; trace_throughputs_worker(m, i); i++)
        if (strcasecmp(trace_throughputs_worker(m, i), name) == 0)
            return trace_throughputs_worker(m, i);
    return NULL;
}

static int choose_worker(struct gen_args *a, const struct trace_throughputs *m,
                         const struct cluster *c)
{
    const char *w = NULL;
    if (!a->worker && c)
        w = find_worker(m, c->types[c->reference].name);
    const char *want = a->worker ? a->worker : "v100";
    if (!w)
        w = find_worker(m, want);
    if (w && !a->worker && c &&
        strcasecmp(w, c->types[c->reference].name) != 0)
        /* never a silent fallback: say what the durations now mean */
        cli_warn("%s has no worker type '%s' (the reference GPU type of "
                 "cluster %s); durations are run times on '%s' instead; pick "
                 "one with --worker", a->matrix_path,
                 c->types[c->reference].name, c->name, w);
    else if (w && !a->quiet)
        fprintf(stderr, "hetsim trace generate: job types from %s; "
                "durations are run times on its worker type '%s' (%s)\n",
                a->matrix_path, w,
                a->worker ? "--worker"
                : c       ? "the reference GPU type of --cluster"
                          : "the default; --worker or --cluster to change");
    if (w) {
        a->spec.worker = w;
        return CLI_OK;
    }
    char names[512] = "";
    for (size_t i = 0; trace_throughputs_worker(m, i); i++) {
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                 trace_throughputs_worker(m, i));
    }
    return cli_usage_error(GEN_CMD,
                           "%s has no worker type '%s' (it has: "
                           "%s); pick one with --worker",
                           a->matrix_path, want, names);
}

static int set_rate(struct gen_args *a, const struct cluster *c)
{
    if (!a->have_load)
        return CLI_OK;
    /* Durations that cannot be drawn say so before their mean is used. */
    struct trace_error err = {0};
    if (trace_gen_check(&a->spec, &err) != 0)
        return cli_usage_error(GEN_CMD, "%s", err.text);
    double rate =
        trace_gen_rate_for_load(&a->spec, a->load, cli_trace_capacity(c));
    if (!(rate > 0) || !isfinite(rate))
        return cli_usage_error(GEN_CMD, "--load needs durations with a "
                                        "finite mean (pareto: ALPHA > 1)");
    a->spec.rate = rate;
    return CLI_OK;
}

static int draw(const struct gen_args *a, struct trace **t)
{
    struct trace_error err = {0};
    int rc = trace_gen_check(&a->spec, &err);
    if (rc)
        return cli_usage_error(GEN_CMD, "%s", err.text);
    rc = trace_generate(&a->spec, t, &err);
    if (rc == TRACE_ENOMEM) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (rc) {
        cli_error("%s: %s", a->matrix_path ? a->matrix_path : "generate",
                  err.text);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

static int write_trace(const struct gen_args *a, const struct trace *t)
{
    struct trace_out o;
    int rc = cli_trace_out_open(&o, a->out);
    if (rc)
        return rc;
    if (cli_trace_write_native(o.f, t, NULL) != 0) {
        cli_error("%s: cannot write: %s", a->out, strerror(errno));
        cli_trace_out_abort(&o);
        return CLI_FAILURE;
    }
    return cli_trace_out_commit(&o);
}

int cli_trace_generate(int argc, char **argv)
{
    if (cli_trace_like_wanted(argc, argv))
        return cli_trace_generate_like(argc, argv);
    struct gen_args a;
    int rc = parse_generate_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    struct cluster *c = NULL;
    struct trace_throughputs *m = NULL;
    struct trace *t = NULL;
    double *samples = NULL;
    if (a.cluster_arg)
        rc = cli_load_cluster(a.cluster_arg, &c);
    if (!rc && a.spec.durations.kind == TRACE_GEN_RESAMPLE)
        rc = load_samples(&a, &samples);
    if (!rc && a.matrix_path &&
        !(rc = cli_load_throughputs(a.matrix_path, &m))) {
        a.spec.matrix = m;
        rc = choose_worker(&a, m, c);
    }
    if (!rc)
        rc = set_rate(&a, c);
    if (!rc)
        rc = draw(&a, &t);
    if (!rc)
        rc = write_trace(&a, t);
    if (!rc && !a.quiet && strcmp(a.out, "-") != 0)
        fprintf(stderr, "hetsim trace generate: %zu jobs to %s (%s arrivals, %.6g "
               "jobs/s on average)\n",
               a.spec.njobs, a.out,
               a.spec.arrivals == TRACE_GEN_MMPP ? "MMPP" : "Poisson",
               a.spec.rate);
    trace_destroy(t);
    free(samples);
    trace_throughputs_destroy(m);
    cluster_destroy(c);
    return rc;
}
