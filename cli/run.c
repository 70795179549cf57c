/* run.c -- `hetsim run`: read a trace and a cluster, replay, write results. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hetsim_python.h"
#include "policy.h"

static void run_usage(void)
{
    printf(
        "Usage: hetsim run --trace FILE --cluster FILE|NAME [OPTIONS]\n"
        "Replays the jobs of a trace on a GPU cluster under one scheduling "
        "policy\nand writes its results to a folder.\n\n"
        "  -t, --trace FILE      jobs to replay (docs/formats.md)\n"
        CLI_TRACE_OPTIONS_HELP
        "  -c, --cluster C       a cluster JSON file, or a built-in name "
        "(`hetsim clusters`),\n"
        "                        or alibaba2023:NODES.csv[:TYPES.json] "
        "(docs/formats.md)\n"
        "  -T, --throughputs F   measured throughputs (Gavel's "
        "simulation_throughputs.json):\n"
        "                        jobs of a known job_type then run "
        "total_steps / throughput\n"
        "  -p, --policy NAME     policy (default fifo; `hetsim policies`; "
        "gavel:*)\n"
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
        );
    printf(
        "                        GPU sharing (jobs of gpu_milli < 1000, "
        "--util-pack, or a\n"
        "                        sharing placement): fgd (default), "
        "best-fit, dot-product,\n"
        "                        first-fit, random, util-pack (fgd with "
        "--util-pack 1)\n"
        "      --backfill B      none (default), easy or conservative: let "
        "later jobs start\n"
        "                        around a blocked head (non-preemptive "
        "policies; estimates);\n"
        "                        greedy: every job that fits starts, no "
        "reservation\n"
        "      --interference X  speed (0, 1] of a job sharing a GPU with "
        "one whose pair\n"
        "                        is not measured (default 0.65; "
        "docs/sharing.md)\n"
        "      --util-pack BOUND one-GPU jobs share a GPU while their "
        "estimated GPU\n"
        "                        utilizations sum to <= BOUND (oracle: the "
        "trace's\n"
        "                        gpu_util_peak, else Gavel's pairs; "
        "predicted: --estimates\n"
        "                        predictor:...,util=MODEL.bin)\n"
        "      --pairs FILE      Gavel's throughputs file for pair speeds "
        "only (run times\n"
        "                        stay the trace's durations)\n"
        "      --gpu-sharing     the sharing model even for whole-GPU jobs "
        "(a job on one\n"
        "                        node, CPU and memory of alibaba2023: "
        "nodes)\n"
        "      --estimates E     run-time estimates policies may use: none "
        "(default), oracle\n"
        "                        (the truth), trace (column est_duration), "
        "noisy:SIGMA\n"
        "                        (truth x lognormal(0, SIGMA), seeded),\n"
        "                        history[:vc|:user] (mean run time of the "
        "finished jobs\n"
        "                        of the same vc, default, or user; "
        "docs/predictor.md),\n"
        "                        or predictor:MODEL.bin[,memory=M2.bin]"
        "[,util=M3.bin]\n"
        "                        (models of\n"
        "                        `hetsim predictor train`, asked on every "
        "arrival);\n"
        "                        memory estimates likewise (trace: column "
        "gpu_mem_peak)\n"
        "      --restart-overhead S  seconds a preempted job loses at each "
        "restart (default 0)\n"
        "      --round-s S       round length of the gavel-* and gavel:* "
        "policies, s\n"
        "                        (default 360; same as --policy-opt "
        "round_s=S)\n"
        "      --oom-detect-s S  a job started on a GPU type with less memory "
        "than it needs\n"
        "                        fails after S seconds (default 60), wasting "
        "that GPU time,\n"
        "                        and waits again without that type "
        "(docs/memory.md)\n"
        "  -o, --out DIR         results folder (default results/run); created "
        "if missing\n"
        "  -s, --seed N          seed of every random choice (default 1)\n"
        "      --dry-run         check the inputs and the policy's needs, "
        "write nothing\n"
        "      --plots           also draw charts with gnuplot: JCT CDF, "
        "queue length,\n"
        "                        busy GPUs per type over time, utilization, "
        "and for\n"
        "                        traces of at most 300 jobs a Gantt chart of "
        "jobs on\n"
        "                        GPUs (.png, .svg, and the .gp script that "
        "redraws them)\n"
        "      --report          also write DIR/report.html: one "
        "self-contained "
        "page with\n"
        "                        the inputs, the summary, every chart and the "
        "command\n"
        "                        that reproduces the run (implies --plots)\n"
        "      --outputs WHAT    all (default); jobs: no timeline.csv; "
        "summary:\n"
        "                        only summary.json and perf.json (files left "
        "in DIR\n"
        "                        from an earlier run are removed). fifo "
        "streams a\n"
        "                        sorted native CSV trace in memory that "
        "follows the\n"
        "                        active jobs, unless --plots or --report\n"
        "                        (docs/streaming.md)\n"
        "  -q, --quiet           print nothing on success\n");
    printf(
        "      --json            print summary.json on stdout, not the "
        "table\n"
        "  -h, --help            show this help\n\n"
        "Writes, each complete or not at all:\n"
        "  DIR/summary.json   simulated figures: JCT, makespan, "
        "utilization, ...\n"
        "  DIR/jobs.csv       one row per job: submit, start, finish, JCT, "
        "wait, GPUs,\n"
        "                     status, and the reason of a job that did not "
        "complete\n"
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
    /* The generators behind a run take 32-bit seeds: 4294967296 would be
     * seed 0 again, so it is refused. */
    if (errno || end == arg || *end || arg[0] == '-' || v > UINT32_MAX)
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
    return cli_load_cluster_flags(arg, 0, out);
}

int cli_load_cluster_flags(const char *arg, int flags, struct cluster **out)
{
    if (strncmp(arg, "alibaba2023:", 12) == 0)
        return cli_alibaba_cluster(arg + 12, flags, out);
    struct stat st;
    int is_file =
        stat(arg, &st) == 0 || strchr(arg, '/') || strstr(arg, ".json");
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
        const char *list[64];
        size_t n = 0;
        for (; n < 64 && cluster_preset_name(n); n++)
            list[n] = cluster_preset_name(n);
        char hint[128];
        cli_did_you_mean(hint, sizeof hint, arg, list, n);
        cli_error("%s: no such cluster file or built-in cluster%s (built-in: "
                  "%s)", arg, hint, names);
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

int cli_spool_stdin(char *tmp, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, cap, "%s/hetsim-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    char buf[65536];
    size_t n;
    int bad = !f;
    while (f && (n = fread(buf, 1, sizeof buf, stdin)) > 0)
        bad |= fwrite(buf, 1, n, f) != n;
    bad |= ferror(stdin);
    if (f)
        bad |= fclose(f) != 0;
    else if (fd >= 0)
        close(fd);
    if (bad) {
        cli_error("-: cannot copy standard input to %s: %s", tmp,
                  strerror(errno));
        if (fd >= 0)
            unlink(tmp);
        return CLI_FAILURE;
    }
    return 0;
}

/* Names of TMP in the messages of T's reading become "-" (stdin). */
static void name_stdin(struct trace_error *e, const char *tmp)
{
    if (strcmp(e->source, tmp) == 0)
        snprintf(e->source, sizeof e->source, "-");
}

int cli_read_trace(const char *path, enum trace_format f,
                   const struct trace_options *opt, struct trace **out)
{
    struct trace_error err = {0};
    char tmp[4096] = "";
    if (strcmp(path, "-") == 0) { /* --trace -: standard input */
        if (cli_spool_stdin(tmp, sizeof tmp) != 0)
            return CLI_FAILURE;
        path = tmp;
    }
    int rc = trace_read(path, f, opt, out, &err);
    if (tmp[0]) {
        unlink(tmp);
        name_stdin(&err, tmp);
        for (size_t i = 0; !rc && i < (*out)->nwarnings &&
                           i < TRACE_MAX_WARNINGS; i++)
            name_stdin(&(*out)->warnings[i], tmp);
        path = "-";
    }
    if (rc == 0) {
        cli_trace_warnings(*out, &err, path);
        return CLI_OK;
    }
    return cli_trace_failure(rc, &err, path);
}

/* --policy-opt, --placement, --backfill, --estimates, --restart-overhead,
 * --round-s */
static int policy_option(const char *cmd, int opt, const char *arg,
                         struct run_config *cfg)
{
    int k;
    switch (opt) {
    case 'O': {
        const char *eq = strchr(arg, '=');
        size_t i = cfg->nopts;
        if (!eq || eq == arg || strlen(arg) >= sizeof cfg->opt_buf[0])
            return cli_usage_error(cmd,
                                   "--policy-opt wants KEY=VALUE, got "
                                   "'%s'",
                                   arg);
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
    case 'L': return cli_parse_placement(cmd, arg, cfg);
    case 'F':
        if ((k = pol_backfill_parse(arg)) < 0)
            return cli_usage_error(cmd, "--backfill wants none, easy, "
                                   "conservative or greedy, got '%s'", arg);
        cfg->backfill = k;
        return 0;
    case 'E': return cli_parse_estimates(cmd, arg, cfg);
    case 'W': { /* a shorthand for --policy-opt round_s=S */
        char opt_text[256];
        snprintf(opt_text, sizeof opt_text, "round_s=%s", arg);
        return policy_option(cmd, 'O', opt_text, cfg);
    }
    case 'I':
    case 'U': {
        char *end;
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v > 0) || (opt == 'I' && v > 1) ||
            v > 1e6)
            return cli_usage_error(cmd, "%s wants a number %s, got '%s'",
                                   opt == 'I' ? "--interference"
                                              : "--util-pack",
                                   opt == 'I' ? "in (0, 1]" : "> 0", arg);
        *(opt == 'I' ? &cfg->interference : &cfg->util_bound) = v;
        return 0;
    }
    default: {
        char *end;
        const char *name = opt == 'R' ? "--restart-overhead" : "--oom-detect-s";
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v >= 0) || v > 1e12)
            return cli_usage_error(cmd, "%s wants seconds >= 0, got '%s'", name,
                                   arg);
        *(opt == 'R' ? &cfg->restart_overhead_s : &cfg->oom_detect_s) = v;
        return 0;
    }
    }
}

/* predictor:[MODEL.bin][,memory=MODEL2.bin][,util=MODEL3.bin] into CFG:
 * the run-time model first, unless only named parts are given. */
static int parse_predictor(const char *cmd, const char *spec,
                           struct run_config *cfg)
{
    const char *p = spec;
    cfg->est_model[0] = cfg->est_memory_model[0] = cfg->est_util_model[0] =
        '\0';
    for (int first = 1; *p || first; first = 0) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *dst = NULL;
        size_t skip = 0;
        if (strncmp(p, "memory=", 7) == 0)
            dst = cfg->est_memory_model, skip = 7;
        else if (strncmp(p, "util=", 5) == 0)
            dst = cfg->est_util_model, skip = 5;
        else if (first)
            dst = cfg->est_model;
        if (!dst || len <= skip || len - skip >= sizeof cfg->est_model)
            return cli_usage_error(cmd, "--estimates wants predictor:MODEL.bin"
                                   "[,memory=MODEL2.bin][,util=MODEL3.bin], "
                                   "got 'predictor:%s'", spec);
        snprintf(dst, sizeof cfg->est_model, "%.*s", (int)(len - skip),
                 p + skip);
        p += len + (comma != NULL);
        if (!comma)
            break;
    }
    return 0;
}

/* The sharing placements; 1 when TEXT is one only sharing has. */
static int parse_share_placement(const char *text, struct run_config *cfg)
{
    int r = pol_share_rule_parse(text);
    cfg->placement_given = 1;
    cfg->share_rule = r;
    if (strcmp(text, "util-pack") == 0) {
        cfg->share_rule = POL_SHARE_FGD;
        if (!(cfg->util_bound > 0))
            cfg->util_bound = -1; /* 1 unless --util-pack says */
        return cfg->sharing = 1;
    }
    if (r == POL_SHARE_FGD || r == POL_SHARE_DOT_PRODUCT)
        return cfg->sharing = 1;
    return 0;
}

int cli_run_option(const char *cmd, int opt, const char *arg,
                   struct run_config *cfg)
{
    if (opt == 'f' || opt == 'X' || opt == 'B' || opt == 'G')
        return cli_trace_option(cmd, opt, arg, &cfg->format, &cfg->trace_opt);
    return policy_option(cmd, opt, arg, cfg);
}

int cli_parse_placement(const char *cmd, const char *text,
                        struct run_config *cfg)
{
    char rule[64];
    if (parse_share_placement(text, cfg))
        return 0;
    const char *comma = strchr(text, ',');
    const char *mem = comma ? comma + 1 : text;
    int k = 0; /* "mem-aware" alone keeps the default rule */
    cfg->mem_aware =
        strncmp(mem, "mem-aware", 9) == 0 && (mem[9] == '\0' || mem[9] == ':');
    if (comma || !cfg->mem_aware) {
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        snprintf(rule, sizeof rule, "%.*s", (int)(len < 63 ? len : 63), text);
        k = pol_placement_parse(rule);
    }
    if (k < 0 || (comma && !cfg->mem_aware))
        return cli_usage_error(cmd,
                               "unknown placement '%s' (choose from: "
                               "fastest, consolidate, first-fit, best-fit, "
                               "random; then ,mem-aware[:MARGIN])",
                               text);
    cfg->placement = k;
    cfg->mem_margin = 0;
    if (cfg->mem_aware && mem[9] == ':') {
        char *end;
        double v = strtod(mem + 10, &end);
        if (end == mem + 10 || *end || !(v >= 0) || v > 10)
            return cli_usage_error(cmd,
                                   "mem-aware:MARGIN wants a MARGIN "
                                   "from 0 to 10, got '%s'",
                                   text);
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
            return cli_usage_error(cmd,
                                   "--estimates noisy:SIGMA wants a "
                                   "SIGMA from 0 to 10, got '%s'",
                                   text);
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
        return cli_usage_error(cmd,
                               "--estimates wants oracle, trace, "
                               "noisy:SIGMA, history[:vc|:user], "
                               "predictor:MODEL.bin[,memory=MODEL2.bin] or "
                               "none, got '%s'",
                               text);
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
        {"strict", no_argument, NULL, 'X'},
        {"policy-opt", required_argument, NULL, 'O'},
        {"placement", required_argument, NULL, 'L'},
        {"backfill", required_argument, NULL, 'F'},
        {"estimates", required_argument, NULL, 'E'},
        {"restart-overhead", required_argument, NULL, 'R'},
        {"round-s", required_argument, NULL, 'W'},
        {"oom-detect-s", required_argument, NULL, 'M'},
        {"interference", required_argument, NULL, 'I'},
        {"util-pack", required_argument, NULL, 'U'},
        {"pairs", required_argument, NULL, 'A'},
        {"gpu-sharing", no_argument, NULL, 'S'},
        {"outputs", required_argument, NULL, 'Y'},
        {"dry-run", no_argument, NULL, 'D'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = "fifo";
    cfg->out = "results/run";
    cfg->seed = 1;
    cfg->trace_opt.procs_per_gpu = 1;
    cfg->estimates_text = "none";
    cfg->oom_detect_s = SIM_OOM_DETECT_S_DEFAULT;
    cfg->share_rule = POL_SHARE_FGD;
    cfg->interference = 0.65;
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
        case 'D': cfg->dry_run = 1; break;
        case 'J': cfg->json = 1; break;
        case 'P': cfg->plots = 1; break;
        case 'H': cfg->report = cfg->plots = 1; break;
        case 'T': cfg->throughputs = optarg; break;
        case 'A': cfg->pairs = optarg; break;
        case 'S': cfg->sharing = 1; break;
        case 'Y':
            if (strcmp(optarg, "all") != 0 && strcmp(optarg, "summary") != 0 &&
                strcmp(optarg, "jobs") != 0)
                return cli_usage_error("hetsim run",
                                       "--outputs wants all, jobs or "
                                       "summary, got '%s'",
                                       optarg);
            cfg->summary_only = strcmp(optarg, "summary") == 0;
            cfg->no_timeline = strcmp(optarg, "jobs") == 0;
            break;
        case 'I':
        case 'U':
        case 'O':
        case 'L':
        case 'F':
        case 'E':
        case 'R':
        case 'W':
        case 'M':
            if (policy_option("hetsim run", opt, optarg, cfg) != 0)
                return CLI_USAGE;
            break;
        case 'f':
        case 'X':
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
                                       "--seed wants a whole number from 0 "
                                       "to 4294967295, got '%s'", optarg);
            break;
        default:
            return cli_option_error_in("hetsim run", opt, argv, long_options);
        }
    }
    if (optind < argc)
        return cli_usage_error("hetsim run", "unexpected argument '%s'",
                               argv[optind]);
    if (!cfg->trace)
        return cli_usage_error("hetsim run", "missing --trace FILE");
    if (!cfg->cluster)
        return cli_usage_error("hetsim run", "missing --cluster FILE|NAME");
    if (cfg->util_bound < 0)
        cfg->util_bound = 1; /* --placement util-pack */
    return 0;
}

/* Turns GPU sharing on when the trace, the placement or --util-pack asks;
 * an exit code. */
static int maybe_share(struct run_config *cfg, struct workload *w,
                       const struct trace *t,
                       struct trace_throughputs **pairs)
{
    if (!cfg->sharing && !(cfg->util_bound > 0) && !cli_trace_has_shares(t))
        return CLI_OK;
    cfg->sharing = 1;
    if (cfg->share_rule < 0)
        return cli_usage_error("hetsim run", "with GPU sharing, --placement "
                               "wants fgd, best-fit, dot-product, first-fit, "
                               "random or util-pack");
    if (cfg->mem_aware)
        return cli_usage_error("hetsim run", "mem-aware placements apply to "
                               "whole GPUs only");
    if (strncmp(cfg->policy, "gavel-", 6) == 0 ||
        strncmp(cfg->policy, "gavel:", 6) == 0)
        return cli_usage_error("hetsim run", "the gavel-* and gavel:* policies "
                               "time-slice whole GPUs in rounds; they do not "
                               "take GPU sharing");
    int rc = cfg->pairs ? cli_load_throughputs(cfg->pairs, pairs) : CLI_OK;
    if (rc)
        return rc;
    return cli_sharing_enable(w, cfg, t, *pairs ? *pairs : w->matrix);
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
        char hint[128];
        cli_policy_hint(hint, sizeof hint, cfg.policy);
        return cli_usage_error("hetsim run",
                               "unknown policy '%s'%s (choose from: %s)",
                               cfg.policy, hint, names);
    }
    struct cluster *c = NULL;
    struct trace *t = NULL;
    struct trace_throughputs *m = NULL;
    struct workload w = {0};
    double t0 = cli_clock();
    rc = cli_load_cluster_flags(cfg.cluster, cfg.trace_opt.flags, &c);
    struct run_perf perf = {0};
    if (!rc) { /* docs/streaming.md */
        rc = cli_run_streaming(&cfg, ops, c, &perf, &t);
        if (rc != CLI_STREAM_DECLINED) {
            cluster_destroy(c);
            return rc;
        }
        rc = t ? CLI_OK
               : cli_read_trace(cfg.trace, cfg.format, &cfg.trace_opt, &t);
    }
    const char *mpath = cfg.throughputs          ? cfg.throughputs
                        : c && c->throughputs[0] ? c->throughputs
                                                 : NULL;
    if (!rc && mpath)
        rc = cli_load_throughputs(mpath, &m);
    perf.read_wall_s = cli_clock() - t0;
    struct sim *s = NULL;
    if (!rc && !(s = sim_create(c, cfg.seed))) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    w = (struct workload){.cluster = c,
                          .sim = s,
                          .matrix = m,
                          .estimates = cfg.estimates,
                          .noise_sigma = cfg.noise_sigma,
                          .seed = cfg.seed};
    if (s) {
        sim_set_restart_overhead(s, cfg.restart_overhead_s);
        sim_set_oom_detect_s(s, cfg.oom_detect_s);
    }
    if (!rc)
        rc = cli_workload_build(&w, t, cfg.trace);
    if (!rc) {
        struct cli_usability u;
        cli_report_usability(s, c, cfg.trace, &u);
    }
    if (!rc)
        rc = cli_workload_estimator(&w, &cfg, t);
    struct trace_throughputs *pairs = NULL;
    if (!rc)
        rc = maybe_share(&cfg, &w, t, &pairs);
    if (!rc)
        rc = cli_simulate_and_write(&cfg, ops, t, &w, &perf);
    cli_sharing_free(w.share);
    trace_throughputs_destroy(pairs);
    cli_workload_free(&w);
    trace_throughputs_destroy(m);
    sim_destroy(s);
    trace_destroy(t);
    cluster_destroy(c);
    return rc;
}
