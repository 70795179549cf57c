/* main.c -- `hetsim COMMAND ...`: finds the subcommand and runs it. */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli.h"
#include "experiment.h"
#include "hetsim_commit.h" /* HETSIM_COMMIT, written at build time */
#include "html.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"run", cli_run, "replay a trace on a cluster under one policy"},
    {"clusters", cli_clusters, "list the built-in clusters"},
    {"policies", cli_policies, "list the scheduling policies"},
    {"trace", cli_trace, "read, convert, summarise and generate traces"},
    {"compare", cli_compare, "run several policies on a trace; compare"},
    {"dataset", cli_dataset,
     "write the predictor's datasets (synthetic, Gavel)"},
    {"predictor", cli_predictor,
     "train, evaluate and compare resource predictors"},
    {"sweep", cli_sweep, "run a cross product of experiments over seeds"},
    {"check", cli_check, "compare results with a golden file (for CI)"},
    {"pack", cli_pack, "fill a cluster with GPU-sharing pods; fragmentation"},
    {"share", cli_share, "replay a trace with GPUs shared by fractional jobs"},
    {"reproduce", cli_reproduce, "rerun a published experiment; hetsim vs paper"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(void)
{
    printf("Usage: hetsim COMMAND [OPTIONS]\n"
           "A discrete-event simulator of heterogeneous GPU clusters: it "
           "replays\ndeep-learning job traces under a scheduling policy and "
           "reports job\ncompletion time, makespan and utilization.\n\n"
           "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf(
        "\nOptions:\n"
        "  -h, --help     show this help (`hetsim help COMMAND`: a command's)\n"
        "  -V, --version  show the version\n\n"
        "Example:\n"
        "  hetsim run --trace traces/gavel/msr-seed0-6214e9.csv "
        "--cluster gavel-108 --policy fifo --out results/fifo\n\n"
        "Policies (`hetsim policies`): hetsim's own, and gavel:NAME, Gavel's "
        "own\nsimulator rule for rule (gavel:fifo, gavel:fifo_perf, "
        "gavel:max_min_fairness,\ngavel:max_min_fairness_perf, "
        "gavel:min_total_duration_perf,\ngavel:finish_time_fairness_perf)."
        "\n\n"
        "Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 bad input "
        "(trace, cluster).\n");
}

/* The command named NAME, or NULL. */
static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS];
    char hint[128];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    cli_did_you_mean(hint, sizeof hint, name, names, NCOMMANDS);
    return cli_usage_error("hetsim", "unknown command '%s'%s", name, hint);
}

int main(int argc, char **argv)
{
    /* GSL aborts on errors by default; every status is checked instead. */
    gsl_set_error_handler_off();
    cli_build_commit = HETSIM_COMMIT; /* for the reports */
    /* SIGINT, SIGTERM, SIGHUP remove our temporary files before we die. */
    exp_safety_init();
    if (argc < 2)
        return cli_usage_error("hetsim", "missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 && argc >= 3) {
        /* `hetsim help CMD [SUB]` is `hetsim CMD [SUB] --help` */
        const struct command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        char help[] = "--help";
        char *args[4] = {argv[2], argc >= 4 ? argv[3] : help,
                         argc >= 4 ? help : NULL, NULL};
        return c->run(argc >= 4 ? 3 : 2, args);
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        usage();
        return CLI_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("hetsim %s (commit %s)\n", HETSIM_VERSION, HETSIM_COMMIT);
        return CLI_OK;
    }
    const struct command *c = find_command(cmd);
    if (c)
        return c->run(argc - 1, argv + 1);
    return unknown_command(cmd);
}
