/* reproduce.c -- `hetsim reproduce EXPERIMENT`: parses, runs the plan of
 * experiment/ in parallel, prints its table. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "experiment.h"
#include "plots.h"
#include "procpool.h"

#define REP_CMD "hetsim reproduce"

static void reproduce_usage(void)
{
    printf("Usage: hetsim reproduce EXPERIMENT [OPTIONS]\n"
           "       hetsim reproduce --list\n"
           "Reruns a published experiment: generates its workload, runs its "
           "policies and\nseeds in parallel, and sets hetsim's figure beside "
           "the published one (and\nbeside Gavel's own simulator's where "
           "known) with the relative difference.\n\n"
           "  -l, --list            name each experiment with its source\n"
           "  -o, --out DIR         results (default "
           "results/reproduce/EXPERIMENT), written\n"
           "                        whole: table.txt, table.csv, runs.csv, "
           "figure (.gp, .png,\n"
           "                        .svg), report.html\n"
           "      --json            print table.csv's rows as JSON on stdout, "
           "not the table\n"
           "  -j, --jobs N          runs at a time (default 2)\n"
           "      --policies LIST   comma-separated policies (defaults: the "
           "paper's; gavel:NAME\n"
           "                        are Gavel's own, e.g. gavel:fifo_perf)\n"
           "      --rates LIST      gavel-continuous: input rates, jobs/h "
           "(default\n"
           "                        0.4,0.8,...,2.8)\n"
           "      --num-jobs LIST   gavel-makespan: jobs per static trace "
           "(default 50,100,200,400)\n"
           "      --arrived LIST    fgd: arrived shares read off (default "
           "0.5,0.6,...,1.2)\n"
           "      --seeds LIST      seeds (default 0,1,2; fgd: 1)\n"
           "      --quick           few rates or sizes and one seed (a few "
           "minutes)\n"
           "      --fixture[=DIR]   gavel-continuous on Gavel's own generated "
           "traces in DIR\n"
           "                        (default tests/data/gavel-reference): seed "
           "0, rates 0.4, 2.8\n"
           "      --trace-jobs N    jobs per generated continuous trace "
           "(default 6500)\n"
           "  -T, --throughputs F   Gavel's matrix (default "
           "traces/gavel/simulation_throughputs.json)\n"
           "  -t, --trace FILE      fgd: Alibaba 2023 pods (default "
           "traces/alibaba2023/pods.csv;\n"
           "                        or a copy of openb_pod_list_default.csv)\n"
           "      --nodes FILE      fgd: the node list (default "
           "traces/alibaba2023/nodes.csv)\n"
           "      --keep-runs       keep every run's folder under DIR/work\n"
           "      --progress        (kept for older scripts: a line per "
           "finished run goes to\n"
           "                        stderr unless -q)\n"
           "  -q, --quiet           print nothing on success\n"
           "  -h, --help            show this help\n\n"
           "Example:\n"
           "  hetsim reproduce gavel-continuous --fixture -j 2\n");
}

struct rep_args {
    struct exp_config cfg;
    const char *out;
    char out_buf[512];
    long jobs;
    int list, keep, progress, quiet, json;
    int list_opt; /* 'r', 'N' or 'A': which x list was given, or 0 */
    int have_trace, have_nodes;
};

static int parse_list(const char *opt, const char *arg, double *xs, size_t *n)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (end == t || *end || !isfinite(v) || v < 0 || *n >= EXP_MAX_LIST)
            return cli_usage_error(REP_CMD,
                                   "%s wants up to %d numbers >= 0, "
                                   "comma-separated, got '%s'",
                                   opt, EXP_MAX_LIST, arg);
        xs[(*n)++] = v;
    }
    return *n ? 0 : cli_usage_error(REP_CMD, "%s is empty", opt);
}

static int parse_policies(struct exp_config *c, char *arg)
{
    c->npolicies = 0;
    for (char *save = NULL, *t = strtok_r(arg, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (c->npolicies >= EXP_MAX_LIST)
            return cli_usage_error(REP_CMD, "--policies: at most %d",
                                   EXP_MAX_LIST);
        c->policies[c->npolicies++] = t;
    }
    return c->npolicies ? 0 : cli_usage_error(REP_CMD, "--policies is empty");
}

static int rep_option(struct rep_args *a, int opt, char **argv)
{
    double xs[EXP_MAX_LIST];
    size_t n;
    switch (opt) {
    case 'l': a->list = 1; return 0;
    case 'o': a->out = optarg; return 0;
    case 'j': return cli_pool_parse_jobs(REP_CMD, optarg, &a->jobs);
    case 'P': return parse_policies(&a->cfg, optarg);
    case 'r':
    case 'N':
    case 'A':
        a->list_opt = opt;
        return parse_list(argv[optind - 1], optarg, a->cfg.xs, &a->cfg.nxs);
    case 'S':
        if (parse_list("--seeds", optarg, xs, &n))
            return CLI_USAGE;
        for (size_t i = 0; i < n; i++)
            a->cfg.seeds[i] = (uint64_t)xs[i];
        a->cfg.nseeds = n;
        return 0;
    case 'Q': a->cfg.quick = 1; return 0;
    case 'F':
        a->cfg.fixture = optarg ? optarg : "tests/data/gavel-reference";
        return 0;
    case 'J':
        if (parse_list("--trace-jobs", optarg, xs, &n) || n != 1 || xs[0] < 1)
            return cli_usage_error(REP_CMD, "--trace-jobs wants one number "
                                            ">= 1");
        a->cfg.njobs = (size_t)xs[0];
        return 0;
    case 'T': a->cfg.throughputs = optarg; return 0;
    case 't':
        a->have_trace = 1;
        a->cfg.trace = optarg;
        return 0;
    case 'n':
        a->have_nodes = 1;
        a->cfg.nodes = optarg;
        return 0;
    case 'K': a->keep = 1; return 0;
    case 'p': a->progress = 1; return 0;
    case 'q': a->quiet = 1; return 0;
    case 'W': a->json = 1; return 0;
    case 'h': reproduce_usage(); return -1;
    default: return cli_option_error(REP_CMD, opt, argv); /* not reached */
    }
}

static int find_experiment(struct rep_args *a, int argc, char **argv)
{
    if (optind >= argc)
        return cli_usage_error(REP_CMD, "missing EXPERIMENT (hetsim "
                                        "reproduce --list)");
    if (optind + 1 < argc)
        return cli_usage_error(REP_CMD, "unexpected argument '%s'",
                               argv[optind + 1]);
    const char *name = argv[optind];
    a->cfg.info = exp_find(name);
    if (!a->cfg.info) {
        const char *near = exp_suggest(name);
        if (near)
            return cli_usage_error(REP_CMD,
                                   "no experiment '%s'; did you mean "
                                   "'%s'? (hetsim reproduce --list)",
                                   name, near);
        return cli_usage_error(REP_CMD,
                               "no experiment '%s' (hetsim reproduce "
                               "--list)",
                               name);
    }
    return 0;
}

/* Options that belong to another experiment are a usage error, not
 * silently ignored. */
static int check_fit(const struct rep_args *a)
{
    const char *name = a->cfg.info->name;
    int continuous = strcmp(name, "gavel-continuous") == 0;
    int makespan = strcmp(name, "gavel-makespan") == 0;
    int fgd = strcmp(name, "fgd") == 0;
    const char *bad = NULL;
    if (a->list_opt == 'r' && !continuous)
        bad = "--rates";
    else if (a->list_opt == 'N' && !makespan)
        bad = "--num-jobs";
    else if (a->list_opt == 'A' && !fgd)
        bad = "--arrived";
    else if ((a->cfg.fixture || a->cfg.njobs) && !continuous)
        bad = a->cfg.fixture ? "--fixture" : "--trace-jobs";
    else if ((a->have_trace || a->have_nodes) && !fgd)
        bad = a->have_trace ? "--trace" : "--nodes";
    if (bad)
        return cli_usage_error(REP_CMD, "%s does not apply to %s", bad, name);
    if (a->have_trace != a->have_nodes)
        return cli_usage_error(REP_CMD, "fgd: give --trace PODS and --nodes "
                                        "NODES together (the pods of one "
                                        "trace need its own nodes)");
    if (a->cfg.fixture && (a->cfg.nseeds || a->cfg.quick))
        return cli_usage_error(REP_CMD, "--fixture runs seed 0 only (Gavel's "
                                        "own traces): leave out --seeds and "
                                        "--quick");
    return 0;
}

static int parse_args(int argc, char **argv, struct rep_args *a)
{
    static const struct option long_options[] = {
        {"list", no_argument, NULL, 'l'},
        {"out", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"policies", required_argument, NULL, 'P'},
        {"rates", required_argument, NULL, 'r'},
        {"num-jobs", required_argument, NULL, 'N'},
        {"arrived", required_argument, NULL, 'A'},
        {"seeds", required_argument, NULL, 'S'},
        {"quick", no_argument, NULL, 'Q'},
        {"fixture", optional_argument, NULL, 'F'},
        {"trace-jobs", required_argument, NULL, 'J'},
        {"throughputs", required_argument, NULL, 'T'},
        {"trace", required_argument, NULL, 't'},
        {"nodes", required_argument, NULL, 'n'},
        {"keep-runs", no_argument, NULL, 'K'},
        {"progress", no_argument, NULL, 'p'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'W'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->jobs = 2;
    a->cfg.throughputs = "traces/gavel/simulation_throughputs.json";
    a->cfg.trace = "traces/alibaba2023/pods.csv";
    a->cfg.nodes = "traces/alibaba2023/nodes.csv";
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":lo:j:T:t:qh", long_options,
                              NULL)) != -1)
        if ((rc = opt == '?' || opt == ':'
                      ? cli_option_error_in(REP_CMD, opt, argv, long_options)
                      : rep_option(a, opt, argv)) != 0)
            return rc;
    if (a->list)
        return 0;
    if ((rc = find_experiment(a, argc, argv)) != 0)
        return rc;
    if ((rc = check_fit(a)) != 0)
        return rc;
    if (!a->out) {
        snprintf(a->out_buf, sizeof a->out_buf, "results/reproduce/%s",
                 a->cfg.info->name);
        a->out = a->out_buf;
    }
    return 0;
}

static void list_experiments(void)
{
    const struct exp_info *e;
    for (size_t i = 0; (e = exp_info_at(i)) != NULL; i++)
        printf("%-17s %s\n%17s %s\n%17s %s\n\n", e->name, e->source, "",
               e->figure, "", e->measure);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs every cell of P, at most JOBS at a time, timing each. */
static int run_cells(struct exp_plan *p, long jobs, int progress)
{
    struct cli_pool *pool = cli_pool_create((size_t)jobs);
    double *start = calloc(p->ncells ? p->ncells : 1, sizeof *start);
    if (!pool || !start) {
        cli_pool_destroy(pool);
        free(start);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    size_t next = 0, done = 0, total = 0;
    for (size_t i = 0; i < p->ncells; i++)
        total += !p->cells[i].skip_run;
    int rc = CLI_OK;
    while (rc == CLI_OK && (next < p->ncells || cli_pool_running(pool) > 0)) {
        if (next < p->ncells && p->cells[next].skip_run) {
            next++;
            continue;
        }
        if (next < p->ncells && !cli_pool_full(pool)) {
            start[next] = cli_clock();
            if (cli_pool_spawn(pool, (const char *const *)p->cells[next].argv,
                               next) != 0) {
                cli_error("cannot start a run: %s", strerror(errno));
                rc = CLI_FAILURE;
            }
            next++;
            continue;
        }
        struct cli_pool_done d;
        if (cli_pool_wait(pool, &d) != 0) {
            cli_error("waitpid: %s", strerror(errno));
            rc = CLI_FAILURE;
            break;
        }
        struct exp_cell *c = &p->cells[d.tag];
        c->wall_s = cli_clock() - start[d.tag];
        char what[4300];
        snprintf(what, sizeof what, "%s", c->out);
        if (!cli_pool_ok(&d)) {
            cli_pool_report(what, c->argv[1], &d);
            rc = CLI_FAILURE;
        } else if (progress)
            fprintf(stderr,
                    "hetsim reproduce: [%zu/%zu] %s x=%g seed %llu: "
                    "%.1f s\n",
                    ++done, total, p->cfg.policies[c->policy], p->cfg.xs[c->x],
                    (unsigned long long)p->cfg.seeds[c->seed], c->wall_s);
    }
    cli_pool_destroy(pool);
    free(start);
    return rc;
}

static void join_command(char *buf, size_t cap, int argc, char **argv)
{
    size_t len = (size_t)snprintf(buf, cap, "hetsim");
    for (int i = 0; i < argc && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, " %s", argv[i]);
}

/* Collects P, writes the set into TMP and prints the table. */
static int finish(struct rep_args *a, struct exp_plan *p, const char *tmp,
                  int argc, char **argv)
{
    char err[4600] = "";
    struct exp_row *rows = NULL;
    if (exp_collect(p, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    long n = exp_rows(p, &rows);
    if (n < 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    char command[4096];
    join_command(command, sizeof command, argc, argv);
    int chart_rc = 0;
    int rc =
        exp_write(tmp, p, rows, (size_t)n, command, &chart_rc, err, sizeof err);
    if (rc == 0) {
        cli_chart_check(chart_rc, "figure");
        if (!a->quiet && !a->json)
            exp_print_table(stdout, p, rows, (size_t)n);
    } else
        cli_error("%s", err);
    free(rows);
    return rc ? CLI_FAILURE : CLI_OK;
}

/* --json: table.csv's rows, as JSON on stdout. */
static int print_json(const struct rep_args *a)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/table.csv", a->out);
    cJSON *rows = cli_csv_json_rows(path);
    cJSON *root = rows ? cJSON_CreateObject() : NULL;
    if (root) {
        cJSON_AddStringToObject(root, "experiment", a->cfg.info->name);
        cJSON_AddStringToObject(root, "out", a->out);
        cJSON_AddItemToObject(root, "rows", rows);
    } else
        cJSON_Delete(rows);
    if (!root || cli_write_json(stdout, root) != 0) {
        if (rows)
            cli_error("out of memory");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

static int reproduce(struct rep_args *a, int argc, char **argv)
{
    char tmp[4200], work[4300], err[4600] = "";
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", a->out, (long)getpid());
    snprintf(work, sizeof work, "%s/work", tmp);
    if (cli_mkdirs(work) != 0) {
        cli_error("%s: %s", work, strerror(errno));
        return CLI_FAILURE;
    }
    a->cfg.work = work;
    exp_config_defaults(&a->cfg);
    qsort(a->cfg.xs, a->cfg.nxs, sizeof *a->cfg.xs, cmp_double);
    struct exp_plan *p = NULL;
    int rc = CLI_OK;
    if (exp_plan_create(&a->cfg, &p, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = CLI_BAD_INPUT;
    }
    /* a plain line per finished run, on a terminal or in a log */
    int progress = a->progress || !a->quiet;
    if (rc == CLI_OK)
        rc = run_cells(p, a->jobs, progress);
    if (rc == CLI_OK)
        rc = finish(a, p, tmp, argc, argv);
    exp_plan_destroy(p);
    if (rc == CLI_OK && !a->keep)
        exp_remove_tree(work);
    if (rc == CLI_OK && exp_dir_swap(tmp, a->out) != 0) {
        cli_error("%s: cannot put the results in place: %s", a->out,
                  strerror(errno));
        rc = CLI_FAILURE;
    }
    if (rc != CLI_OK)
        exp_remove_tree(tmp);
    else if (!a->quiet)
        fprintf(stderr, "hetsim reproduce: results in %s\n", a->out);
    if (rc == CLI_OK && a->json)
        rc = print_json(a);
    return rc;
}

int cli_reproduce(int argc, char **argv)
{
    struct rep_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    if (a.list) {
        list_experiments();
        return CLI_OK;
    }
    return reproduce(&a, argc, argv);
}
