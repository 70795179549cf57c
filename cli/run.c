/* run.c -- `hetsim run`: read a trace and a cluster, replay, write results. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "hetsim_python.h"
#include "policy.h"

static void run_usage(void)
{
    printf(
        "Usage: hetsim run --trace FILE --cluster FILE|NAME [OPTIONS]\n"
        "Replays the jobs of a trace on a GPU cluster under one scheduling "
        "policy\nand writes its results to a folder.\n\n"
        "  -t, --trace FILE      jobs to replay (README, \"Trace formats\")\n"
        CLI_TRACE_OPTIONS_HELP
        "  -c, --cluster C       a cluster JSON file, or a built-in name "
        "(`hetsim clusters`),\n"
        "                        or alibaba2023:NODES.csv[:TYPES.json] "
        "(README)\n"
        "  -T, --throughputs F   measured throughputs (Gavel's "
        "simulation_throughputs.json):\n"
        "                        jobs of a known job_type then run "
        "total_steps / throughput\n"
        "  -p, --policy NAME     scheduling policy (default fifo; "
        "`hetsim policies`)\n"
        "      --policy-opt K=V  a policy parameter (repeatable; "
        "`hetsim policies --verbose`)\n"
        "      --placement P     fastest (default), consolidate, first-fit, "
        "best-fit, random;\n"
        "                        add ,mem-aware[:MARGIN] to keep jobs off GPU "
        "types with less\n"
        "                        memory than their estimate times 1 + MARGIN "
        "(default 0),\n"
        "                        e.g. fastest,mem-aware:0.1 (\"mem-aware\" "
        "alone: fastest)\n"
        "      --backfill B      none (default), easy or conservative: let "
        "later jobs start\n"
        "                        around a blocked head (non-preemptive "
        "policies; estimates)\n"
        "      --estimates E     run-time estimates policies may use: none "
        "(default), oracle\n"
        "                        (the truth), trace (column est_duration), "
        "noisy:SIGMA\n"
        "                        (truth x lognormal(0, SIGMA), seeded),\n"
        "                        history[:vc|:user] (mean run time of the "
        "finished jobs\n"
        "                        of the same vc, default, or user; README), "
        "or\n"
        "                        predictor:MODEL.bin[,memory=MODEL2.bin] "
        "(models of\n"
        "                        `hetsim predictor train`, asked on every "
        "arrival);\n"
        "                        memory estimates likewise (trace: column "
        "gpu_mem_peak)\n"
        "      --restart-overhead S  seconds a preempted job loses at each "
        "restart (default 0)\n"
        "      --round-s S       round length of the gavel-* policies, seconds\n"
        "                        (default 360; same as --policy-opt round_s=S)\n"
        "      --oom-detect-s S  a job started on a GPU type with less memory "
        "than it needs\n"
        "                        fails after S seconds (default 60), wasting "
        "that GPU time,\n"
        "                        and waits again without that type (README, "
        "\"Memory\")\n"
        "  -o, --out DIR         results folder (default results); created "
        "if missing\n"
        "  -s, --seed N          seed of every random choice (default 1)\n"
        "      --plots           also draw charts with gnuplot: JCT CDF, "
        "queue length,\n"
        "                        busy GPUs per type over time, utilization, "
        "and for\n"
        "                        traces of at most 300 jobs a Gantt chart of "
        "jobs on\n"
        "                        GPUs (.png, .svg, and the .gp script that "
        "redraws them)\n"
        "      --report          also write DIR/report.html: one self-contained "
        "page with\n"
        "                        the inputs, the summary, every chart and the "
        "command\n"
        "                        that reproduces the run (implies --plots)\n"
        "  -q, --quiet           print nothing on success\n"
        "  -h, --help            show this help\n\n"
        "Writes, each complete or not at all:\n"
        "  DIR/summary.json   simulated figures: JCT, makespan, "
        "utilization, ...\n"
        "  DIR/jobs.csv       one row per job: submit, start, finish, JCT, "
        "wait, GPUs\n"
        "  DIR/timeline.csv   queued jobs, busy GPUs (total, per type) "
        "and fragmented\n"
        "                     GPUs (FGD) at each change\n"
        "  DIR/perf.json      how the run went on this machine (wall "
        "times, memory)\n"
        "The same inputs and seed give byte-identical summary.json, "
        "jobs.csv and\ntimeline.csv.\n\n"
        "Example:\n"
        "  hetsim run --trace traces/gavel/msr-seed0-6214e9.csv "
        "--cluster gavel-108 \\\n"
        "             --policy fifo --out results/fifo\n");
    /* A second string: ISO C caps one at 4095 bytes. */
    fputs("--policy also takes a plugin (./libmine.so) or a policy in Python "
          "(mine.py,\ndocs/python.md).\n", stdout);
}

static int parse_seed(const char *arg, uint64_t *seed)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-')
        return -1;
    *seed = v;
    return 0;
}

int cli_load_throughputs(const char *path, struct trace_throughputs **out)
{
    struct trace_error err = {0};
    int rc = trace_throughputs_load(path, out, &err);
    if (rc == 0)
        return CLI_OK;
    return cli_trace_failure(rc, &err, path);
}

int cli_load_cluster(const char *arg, struct cluster **out)
{
    if (strncmp(arg, "alibaba2023:", 12) == 0)
        return cli_alibaba_cluster(arg + 12, out);
    struct stat st;
    int is_file = stat(arg, &st) == 0 || strchr(arg, '/') ||
                  strstr(arg, ".json");
    if (!is_file) {
        int rc = cluster_preset(arg, out);
        if (rc == 0)
            return CLI_OK;
        if (rc == SIM_ENOMEM) {
            cli_error("out of memory");
            return CLI_FAILURE;
        }
        char names[512] = "";
        for (size_t i = 0; cluster_preset_name(i); i++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                     cluster_preset_name(i));
        }
        cli_error("%s: no such cluster file or built-in cluster (built-in: "
                  "%s)", arg, names);
        return CLI_BAD_INPUT;
    }
    struct sim_error err = {0};
    int rc = cluster_load(arg, out, &err);
    if (rc == 0)
        return CLI_OK;
    if (rc == SIM_ENOMEM) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    cli_error_at(err.source, err.line, err.column, err.text);
    return CLI_BAD_INPUT;
}

int cli_read_trace(const char *path, enum trace_format f,
                   const struct trace_options *opt, struct trace **out)
{
    struct trace_error err = {0};
    int rc = trace_read(path, f, opt, out, &err);
    if (rc == 0) {
        if ((*out)->rows_skipped > 0)
            cli_warn("%s: skipped %zu bad rows; the first: line %ld: %s",
                     path, (*out)->rows_skipped, err.line, err.text);
        return CLI_OK;
    }
    return cli_trace_failure(rc, &err, path);
}

int64_t cli_allowed_types(const struct cluster *c, const char *types,
                          const char *src, long line)
{
    if (!types[0])
        return 0;
    uint32_t mask = 0;
    const char *p = types;
    for (;;) {
        size_t len = strcspn(p, "|");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
        int32_t t = cluster_find_type(c, name);
        if (t < 0) {
            char text[256];
            snprintf(text, sizeof text,
                     "gpu_type \"%s\" is not a GPU type of cluster %s", name,
                     c->name);
            cli_error_at(src, line, 0, text);
            return -1;
        }
        mask |= 1u << t;
        if (!p[len])
            return mask;
        p += len + 1;
    }
}

/* --policy-opt, --placement, --backfill, --estimates, --restart-overhead,
 * --round-s */
static int policy_option(int opt, const char *arg, struct run_config *cfg)
{
    const char *cmd = "hetsim run";
    int k;
    switch (opt) {
    case 'O': {
        const char *eq = strchr(arg, '=');
        size_t i = cfg->nopts;
        if (!eq || eq == arg || strlen(arg) >= sizeof cfg->opt_buf[0])
            return cli_usage_error(cmd, "--policy-opt wants KEY=VALUE, got "
                                   "'%s'", arg);
        if (i == CLI_MAX_POLICY_OPTS)
            return cli_usage_error(cmd, "at most %d --policy-opt",
                                   CLI_MAX_POLICY_OPTS);
        snprintf(cfg->opt_buf[i], sizeof cfg->opt_buf[i], "%s", arg);
        cfg->opt_buf[i][eq - arg] = '\0';
        cfg->opt_keys[i] = cfg->opt_buf[i];
        cfg->opt_values[i] = cfg->opt_buf[i] + (eq - arg) + 1;
        cfg->nopts++;
        return 0;
    }
    case 'L':
        return cli_parse_placement(cmd, arg, cfg);
    case 'F':
        if ((k = pol_backfill_parse(arg)) < 0)
            return cli_usage_error(cmd, "--backfill wants none, easy or "
                                   "conservative, got '%s'", arg);
        cfg->backfill = k;
        return 0;
    case 'E':
        return cli_parse_estimates(cmd, arg, cfg);
    case 'W': { /* a shorthand for --policy-opt round_s=S */
        char opt_text[256];
        snprintf(opt_text, sizeof opt_text, "round_s=%s", arg);
        return policy_option('O', opt_text, cfg);
    }
    default: {
        char *end;
        const char *name = opt == 'R' ? "--restart-overhead" : "--oom-detect-s";
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v >= 0) || v > 1e12)
            return cli_usage_error(cmd, "%s wants seconds >= 0, got '%s'",
                                   name, arg);
        *(opt == 'R' ? &cfg->restart_overhead_s : &cfg->oom_detect_s) = v;
        return 0;
    }
    }
}

/* predictor:MODEL.bin[,memory=MODEL2.bin] into CFG. */
static int parse_predictor(const char *cmd, const char *spec,
                           struct run_config *cfg)
{
    const char *comma = strchr(spec, ',');
    size_t len = comma ? (size_t)(comma - spec) : strlen(spec);
    if (len == 0 || len >= sizeof cfg->est_model)
        return cli_usage_error(cmd, "--estimates predictor:MODEL.bin wants "
                               "a model file, got 'predictor:%s'", spec);
    snprintf(cfg->est_model, sizeof cfg->est_model, "%.*s", (int)len, spec);
    cfg->est_memory_model[0] = '\0';
    if (!comma)
        return 0;
    const char *mem = comma + 1;
    if (strncmp(mem, "memory=", 7) != 0 || !mem[7] ||
        strlen(mem + 7) >= sizeof cfg->est_memory_model)
        return cli_usage_error(cmd, "--estimates predictor:MODEL.bin,"
                               "memory=MODEL2.bin, got '%s' after the comma",
                               mem);
    snprintf(cfg->est_memory_model, sizeof cfg->est_memory_model, "%s",
             mem + 7);
    return 0;
}

int cli_parse_placement(const char *cmd, const char *text,
                        struct run_config *cfg)
{
    char rule[64];
    const char *comma = strchr(text, ',');
    const char *mem = comma ? comma + 1 : text;
    int k = 0; /* "mem-aware" alone keeps the default rule */
    cfg->mem_aware = strncmp(mem, "mem-aware", 9) == 0 &&
                     (mem[9] == '\0' || mem[9] == ':');
    if (comma || !cfg->mem_aware) {
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        snprintf(rule, sizeof rule, "%.*s", (int)(len < 63 ? len : 63), text);
        k = pol_placement_parse(rule);
    }
    if (k < 0 || (comma && !cfg->mem_aware))
        return cli_usage_error(cmd, "unknown placement '%s' (choose from: "
                               "fastest, consolidate, first-fit, best-fit, "
                               "random; then ,mem-aware[:MARGIN])", text);
    cfg->placement = k;
    cfg->mem_margin = 0;
    if (cfg->mem_aware && mem[9] == ':') {
        char *end;
        double v = strtod(mem + 10, &end);
        if (end == mem + 10 || *end || !(v >= 0) || v > 10)
            return cli_usage_error(cmd, "mem-aware:MARGIN wants a MARGIN "
                                   "from 0 to 10, got '%s'", text);
        cfg->mem_margin = v;
    }
    return 0;
}

int cli_parse_estimates(const char *cmd, const char *text,
                        struct run_config *cfg)
{
    cfg->estimates_text = text;
    if (strcmp(text, "none") == 0)
        cfg->estimates = CLI_EST_NONE;
    else if (strcmp(text, "oracle") == 0)
        cfg->estimates = CLI_EST_ORACLE;
    else if (strcmp(text, "trace") == 0)
        cfg->estimates = CLI_EST_TRACE;
    else if (strncmp(text, "noisy:", 6) == 0) {
        char *end;
        double v = strtod(text + 6, &end);
        if (end == text + 6 || *end || !(v >= 0) || v > 10)
            return cli_usage_error(cmd, "--estimates noisy:SIGMA wants a "
                                   "SIGMA from 0 to 10, got '%s'", text);
        cfg->estimates = CLI_EST_NOISY;
        cfg->noise_sigma = v;
    } else if (strcmp(text, "history") == 0 ||
               strcmp(text, "history:vc") == 0 ||
               strcmp(text, "history:user") == 0) {
        cfg->estimates = CLI_EST_HISTORY;
        cfg->history_by_user = strcmp(text, "history:user") == 0;
    } else if (strncmp(text, "predictor:", 10) == 0) {
        cfg->estimates = CLI_EST_PREDICTOR;
        return parse_predictor(cmd, text + 10, cfg);
    } else
        return cli_usage_error(cmd, "--estimates wants oracle, trace, "
                               "noisy:SIGMA, history[:vc|:user], "
                               "predictor:MODEL.bin[,memory=MODEL2.bin] or "
                               "none, got '%s'", text);
    return 0;
}

static int parse_run_args(int argc, char **argv, struct run_config *cfg)
{
    static const struct option long_options[] = {
        {"trace", required_argument, NULL, 't'},
        {"cluster", required_argument, NULL, 'c'},
        {"policy", required_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 's'},
        {"quiet", no_argument, NULL, 'q'},
        {"plots", no_argument, NULL, 'P'},
        {"report", no_argument, NULL, 'H'},
        {"format", required_argument, NULL, 'f'},
        {"throughputs", required_argument, NULL, 'T'},
        {"on-bad-row", required_argument, NULL, 'B'},
        {"procs-per-gpu", required_argument, NULL, 'G'},
        {"policy-opt", required_argument, NULL, 'O'},
        {"placement", required_argument, NULL, 'L'},
        {"backfill", required_argument, NULL, 'F'},
        {"estimates", required_argument, NULL, 'E'},
        {"restart-overhead", required_argument, NULL, 'R'},
        {"round-s", required_argument, NULL, 'W'},
        {"oom-detect-s", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = "fifo";
    cfg->out = "results";
    cfg->seed = 1;
    cfg->trace_opt.procs_per_gpu = 1;
    cfg->estimates_text = "none";
    cfg->oom_detect_s = SIM_OOM_DETECT_S_DEFAULT;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":t:c:p:o:s:qhf:T:", long_options,
                              NULL)) != -1) {
        switch (opt) {
        case 't': cfg->trace = optarg; break;
        case 'c': cfg->cluster = optarg; break;
        case 'p': cfg->policy = optarg; break;
        case 'o': cfg->out = optarg; break;
        case 'q': cfg->quiet = 1; break;
        case 'P': cfg->plots = 1; break;
        case 'H': cfg->report = cfg->plots = 1; break;
        case 'T': cfg->throughputs = optarg; break;
        case 'O':
        case 'L':
        case 'F':
        case 'E':
        case 'R':
        case 'W':
        case 'M':
            if (policy_option(opt, optarg, cfg) != 0)
                return CLI_USAGE;
            break;
        case 'f':
        case 'B':
        case 'G':
            if (cli_trace_option("hetsim run", opt, optarg, &cfg->format,
                                 &cfg->trace_opt) != 0)
                return CLI_USAGE;
            break;
        case 'h': run_usage(); return -1;
        case 's':
            if (parse_seed(optarg, &cfg->seed) != 0)
                return cli_usage_error("hetsim run",
                                       "--seed wants a whole number >= 0, "
                                       "got '%s'", optarg);
            break;
        case ':':
            return cli_usage_error("hetsim run", "option '%s' needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("hetsim run", "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("hetsim run", "unexpected argument '%s'",
                               argv[optind]);
    if (!cfg->trace)
        return cli_usage_error("hetsim run", "missing --trace FILE");
    if (!cfg->cluster)
        return cli_usage_error("hetsim run", "missing --cluster FILE|NAME");
    return 0;
}

int cli_policy_is_plugin(const char *name)
{
    size_t len = strlen(name);
    return strchr(name, '/') || hpy_is_policy(name) ||
           (len > 3 && strcmp(name + len - 3, ".so") == 0);
}

int cli_run(int argc, char **argv)
{
    static struct run_config cfg; /* large: keep it off the stack */
    int rc = parse_run_args(argc, argv, &cfg);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    cfg.argc = argc;
    cfg.argv = argv;
    const struct pol_ops *ops = pol_find(cfg.policy);
    if (!ops && cli_policy_is_plugin(cfg.policy)) {
        char why[1024];
        if ((hpy_is_policy(cfg.policy)
                 ? hpy_load_policy(cfg.policy, &ops, why, sizeof why)
                 : pol_load_plugin(cfg.policy, &ops, why, sizeof why)) != 0) {
            cli_error("%s", why);
            return CLI_BAD_INPUT;
        }
    }
    if (!ops) {
        char names[512] = "";
        for (size_t i = 0; pol_at(i); i++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                     pol_at(i)->name);
        }
        return cli_usage_error("hetsim run",
                               "unknown policy '%s' (choose from: %s)",
                               cfg.policy, names);
    }
    struct cluster *c = NULL;
    struct trace *t = NULL;
    struct trace_throughputs *m = NULL;
    struct workload w = {0};
    double t0 = cli_clock();
    rc = cli_load_cluster(cfg.cluster, &c);
    if (!rc)
        rc = cli_read_trace(cfg.trace, cfg.format, &cfg.trace_opt, &t);
    const char *mpath = cfg.throughputs ? cfg.throughputs
                        : c && c->throughputs[0] ? c->throughputs : NULL;
    if (!rc && mpath)
        rc = cli_load_throughputs(mpath, &m);
    struct run_perf perf = {.read_wall_s = cli_clock() - t0};
    struct sim *s = NULL;
    if (!rc && !(s = sim_create(c, cfg.seed))) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    w = (struct workload){.cluster = c, .sim = s, .matrix = m,
                          .estimates = cfg.estimates,
                          .noise_sigma = cfg.noise_sigma, .seed = cfg.seed};
    if (s) {
        sim_set_restart_overhead(s, cfg.restart_overhead_s);
        sim_set_oom_detect_s(s, cfg.oom_detect_s);
    }
    if (!rc)
        rc = cli_workload_build(&w, t, cfg.trace);
    if (!rc)
        rc = cli_workload_estimator(&w, &cfg, t);
    if (!rc)
        rc = cli_simulate_and_write(&cfg, ops, t, &w, &perf);
    cli_workload_free(&w);
    trace_throughputs_destroy(m);
    sim_destroy(s);
    trace_destroy(t);
    cluster_destroy(c);
    return rc;
}
