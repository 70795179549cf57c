/* trace_like_gavel.c -- `hetsim trace generate --like gavel`: Gavel's own
 * job generator (experiment/gavel_gen.c), for its continuous and static
 * experiments. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "trace_cmd.h"

#define LIKE_CMD "hetsim trace generate --like gavel"

static void like_usage(void)
{
    printf(
        "Usage: hetsim trace generate --like gavel -o OUT --rate-per-hour R "
        "[OPT...]\n"
        "Draws jobs as Gavel's simulator does without a trace (Narayanan et "
        "al.,\nOSDI'20; scheduler.py and utils.generate_job at commit "
        "c4fa400): Gavel's\n26 job types, its duration mix, its scale "
        "factors, total_steps from the\nsteps/s on one V100, Poisson "
        "arrivals from 0. The same seed gives Gavel's\nown trace, job for "
        "job. Written in Gavel's 7-field .trace format.\n\n"
        "  -o, --out OUT           the file to write, or - for stdout\n"
        "  -r, --rate-per-hour R   arrivals per hour (Gavel's -l is 3600 / "
        "R); 0: every\n"
        "                          job at time 0 (Gavel's static traces)\n"
        "  -n, --jobs N            jobs to draw (default 6500)\n"
        "  -s, --seed N            Gavel's --seed (default 0): jobs from "
        "Random(N+2),\n"
        "                          gaps from Random(N+3)\n"
        "      --multi-gpu         Gavel's --generate-multi-gpu-jobs: 1, 2, 4 "
        "or 8 GPUs\n"
        "  -T, --throughputs F     Gavel's simulation_throughputs.json "
        "(default\n"
        "                          traces/gavel/simulation_throughputs.json)\n"
        "  -q, --quiet             print nothing on success\n"
        "  -h, --help              show this help\n\n"
        "Example (Gavel's continuous-single trace at 2.8 jobs/h, seed 0):\n"
        "  hetsim trace generate --like gavel --rate-per-hour 2.8 -o "
        "r2.8.trace\n");
}

int cli_trace_like_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--like") == 0 ||
            strncmp(argv[i], "--like=", 7) == 0)
            return 1;
    return 0;
}

struct like_args {
    struct exp_gavel_gen g;
    const char *out, *throughputs;
    int have_rate, quiet;
};

static int like_number(const char *name, const char *arg, double max,
                       double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > max)
        return cli_usage_error(LIKE_CMD,
                               "%s wants a number from 0 to %g, "
                               "got '%s'",
                               name, max, arg);
    *out = v;
    return 0;
}

static int like_option(struct like_args *a, int opt, char **argv)
{
    double v = 0;
    switch (opt) {
    case 'L':
        return strcmp(optarg, "gavel") == 0
                   ? 0
                   : cli_usage_error(LIKE_CMD,
                                     "--like knows only gavel, "
                                     "got '%s'",
                                     optarg);
    case 'o': a->out = optarg; return 0;
    case 'r':
        a->have_rate = 1;
        return like_number("--rate-per-hour", optarg, 1e9, &a->g.rate_per_h);
    case 'n':
        if (like_number("--jobs", optarg, 1e8, &v) || v < 1 || v != floor(v))
            return cli_usage_error(LIKE_CMD, "--jobs wants a whole number "
                                             "from 1 to 1e8");
        a->g.njobs = (size_t)v;
        return 0;
    case 's':
        if (like_number("--seed", optarg, 4294967295.0, &v) || v != floor(v))
            return cli_usage_error(LIKE_CMD, "--seed wants a whole number");
        a->g.seed = (uint64_t)v;
        return 0;
    case 'M': a->g.multi_gpu = 1; return 0;
    case 'T': a->throughputs = optarg; return 0;
    case 'q': a->quiet = 1; return 0;
    case 'h': like_usage(); return -1;
    default: return cli_option_error(LIKE_CMD, opt, argv);
    }
}

static int like_parse(int argc, char **argv, struct like_args *a)
{
    static const struct option long_options[] = {
        {"like", required_argument, NULL, 'L'},
        {"out", required_argument, NULL, 'o'},
        {"rate-per-hour", required_argument, NULL, 'r'},
        {"jobs", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"multi-gpu", no_argument, NULL, 'M'},
        {"throughputs", required_argument, NULL, 'T'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->g.njobs = 6500;
    a->throughputs = "traces/gavel/simulation_throughputs.json";
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:r:n:s:T:qh", long_options,
                              NULL)) != -1)
        if ((rc = opt == '?' || opt == ':'
                      ? cli_option_error_in(LIKE_CMD, opt, argv, long_options)
                      : like_option(a, opt, argv)) != 0)
            return rc;
    if (optind < argc)
        return cli_usage_error(LIKE_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!a->out)
        return cli_usage_error(LIKE_CMD, "missing -o OUT");
    if (!a->have_rate)
        return cli_usage_error(LIKE_CMD, "missing --rate-per-hour R (0: "
                                         "every job at time 0)");
    return 0;
}

int cli_trace_generate_like(int argc, char **argv)
{
    struct like_args a;
    int rc = like_parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    struct trace_throughputs *m = NULL;
    if ((rc = cli_load_throughputs(a.throughputs, &m)) != 0)
        return rc;
    struct exp_gavel_job *jobs = malloc(a.g.njobs * sizeof *jobs);
    char err[512];
    if (!jobs) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    } else if (exp_gavel_generate(m, &a.g, jobs, err, sizeof err) != 0) {
        cli_error("%s: %s", a.throughputs, err);
        rc = CLI_BAD_INPUT;
    }
    struct trace_out o;
    if (!rc && !(rc = cli_trace_out_open(&o, a.out))) {
        if (exp_gavel_write(o.f, jobs, a.g.njobs) != 0) {
            cli_error("%s: cannot write: %s", a.out, strerror(errno));
            cli_trace_out_abort(&o);
            rc = CLI_FAILURE;
        } else
            rc = cli_trace_out_commit(&o);
    }
    if (!rc && !a.quiet && strcmp(a.out, "-") != 0)
        printf("hetsim trace generate: %zu Gavel jobs to %s (%g jobs/h, "
               "seed %llu%s)\n",
               a.g.njobs, a.out, a.g.rate_per_h, (unsigned long long)a.g.seed,
               a.g.multi_gpu ? ", multi-GPU" : "");
    free(jobs);
    trace_throughputs_destroy(m);
    return rc;
}
