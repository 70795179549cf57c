/* sweep.c -- `hetsim sweep SPEC.json`: every cell of a SPEC's cross product
 * as its own `hetsim run` (after a `hetsim trace generate` when the
 * workload is generated), a few at a time here or spread over the ranks of
 * mpirun, then the statistics over seeds in DIR/sweep.csv. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli.h"
#include "passopt.h"
#include "procpool.h"
#include "sweep_internal.h"

#define SWEEP_CMD "hetsim sweep"

static void sweep_usage(void)
{
    printf(
        "Usage: hetsim sweep SPEC.json [-j N] [--out DIR] [OPTIONS]\n"
        "       mpirun -np N hetsim sweep SPEC.json [-j N] [--out DIR] "
        "[OPTIONS]\n"
        "Runs every combination of the traces (or generated loads), "
        "clusters, policies,\nestimate modes and seeds that SPEC lists "
        "(docs/sweeps.md), then the mean,\nstandard deviation and 95%% "
        "confidence interval over seeds of each figure.\nSPEC - reads it "
        "from standard input (its paths then start from here).\n\n"
        "  -j, --jobs N      cells at a time (default 1); under mpirun, in "
        "each rank\n"
        "  -o, --out DIR     results folder (default results/sweep); "
        "created if missing\n"
        "      --progress    (kept for older scripts: progress shows on "
        "stderr unless\n"
        "                    -q; a log gets a plain line every 10 s)\n"
        "  -q, --quiet       no progress, and nothing on stdout on success\n"
        "      --json        print sweep.csv's rows as JSON on stdout\n"
        CLI_PASS_OPTIONS_HELP
        "                    passed to every run as given (`hetsim run "
        "--help`), before\n"
        "                    a SPEC policy's own placement, backfill and "
        "options; they\n"
        "                    are part of each cell's inputs (cell.txt)\n"
        "  -h, --help        show this help\n\n"
        "Writes into DIR:\n"
        "  cells/ID/         one cell: cell.txt (its inputs), and what "
        "`hetsim run`\n"
        "                    writes (its summary.json marks the cell done)\n"
        "  sweep.csv         one row per trace, load, cluster, policy and "
        "estimates:\n"
        "                    FIGURE_mean, FIGURE_sd, FIGURE_ci95 over the "
        "seeds\n"
        "  jct_vs_load, makespan (.gp, .png, .svg): charts\n"
        "A cell whose summary.json exists is done: run the same command "
        "again after a\ncrash or a kill and only the missing cells run. "
        "Under mpirun (when hetsim was\nbuilt with MPI), rank 0 hands out "
        "one cell at a time to the other ranks, each\nrunning -j N of them "
        "at a time, and writes sweep.csv, byte-identical to that of\na run "
        "on one machine.\n\n"
        "Example:\n"
        "  hetsim sweep examples/sweep.json -j 2 --out results/sweep\n");
}

#define SWEEP_MAX_PASS 64

struct sweep_args {
    const char *spec, *out;
    long jobs;
    int quiet, progress, json;
    const char *pass[SWEEP_MAX_PASS]; /* `hetsim run` flags and values */
    size_t npass;
};

static int parse_sweep_args(int argc, char **argv, struct sweep_args *a)
{
    static const struct option long_options[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"out", required_argument, NULL, 'o'},
        {"progress", no_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        CLI_PASS_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->out = "results/sweep";
    a->jobs = 1;
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":j:o:qh", long_options, NULL)) !=
           -1) {
        switch (opt) {
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'P': a->progress = 1; break;
        case 'J': a->json = 1; break;
        case 'j':
            if (cli_pool_parse_jobs(SWEEP_CMD, optarg, &a->jobs))
                return CLI_USAGE;
            break;
        case 'h': sweep_usage(); return -1;
        case '?':
        case ':':
            return cli_option_error_in(SWEEP_CMD, opt, argv, long_options);
        default:
            if ((rc = cli_pass_option(SWEEP_CMD, opt, optarg, a->pass,
                                      &a->npass, SWEEP_MAX_PASS)) != 0)
                return rc == 1 ? cli_option_error_in(SWEEP_CMD, opt, argv,
                                                     long_options)
                               : rc;
        }
    }
    if (optind == argc)
        return cli_usage_error(SWEEP_CMD, "missing SPEC.json");
    a->spec = argv[optind++];
    if (optind < argc)
        return cli_usage_error(SWEEP_CMD, "unexpected argument '%s'",
                               argv[optind]);
    return 0;
}

/* Cells from a list made here, with progress. */
struct local_source {
    const size_t *todo;
    size_t ntodo, next;
    struct sweep_progress *progress;
};

static long long local_next(void *ctx)
{
    struct local_source *l = ctx;
    return l->next < l->ntodo ? (long long)l->todo[l->next++] : -1;
}

static void local_done(void *ctx, size_t cell, int ok)
{
    struct local_source *l = ctx;
    (void)cell;
    sweep_progress_step(l->progress, !ok);
}

/* Runs what is not done yet, here or under MPI; *AGGREGATE says whether
 * this process writes the aggregate (every process but MPI's workers). */
static int run_cells(const struct sweep_spec *s, const struct sweep_args *a,
                     const struct sweep_cell *cells, size_t n, int *aggregate)
{
    /* a terminal: one line redrawn; a log: a plain line every 10 s and at
     * the end (--progress is kept for older scripts) */
    int show = !a->quiet;
    *aggregate = 1;
    if (sweep_mpi_launched())
        return sweep_mpi_run(s, a->out, cells, n, a->jobs, show, aggregate);
    size_t *todo = malloc((n ? n : 1) * sizeof *todo), ntodo = 0;
    if (!todo) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t k = 0; k < n; k++)
        if (!sweep_cell_done(a->out, &cells[k]))
            todo[ntodo++] = k;
    struct sweep_progress pr = {
        .total = n, .done = n - ntodo, .skipped = n - ntodo,
        .start = cli_clock(), .show = show};
    struct local_source l = {todo, ntodo, 0, &pr};
    struct sweep_source src = {local_next, local_done, &l};
    int rc = sweep_run_cells(s, a->out, cells, a->jobs, &src);
    sweep_progress_end(&pr);
    if (pr.failed)
        cli_error("%zu of %zu cells failed; run the same command again to "
                  "retry them", pr.failed, n);
    free(todo);
    return rc;
}

int cli_sweep(int argc, char **argv)
{
    struct sweep_args a;
    int rc = parse_sweep_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    static struct sweep_spec spec; /* large: keep it off the stack */
    struct sweep_cell *cells = NULL;
    size_t n = 0;
    int aggregate = 0;
    rc = sweep_spec_load(a.spec, &spec);
    spec.pass = a.pass;
    spec.npass = a.npass;
    if (!rc)
        rc = sweep_check_cells(&spec);
    if (!rc && !(cells = sweep_cells(&spec, &n))) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    if (!rc && cli_mkdirs(a.out) != 0) {
        cli_error("%s: cannot create: %s", a.out, strerror(errno));
        rc = CLI_FAILURE;
    }
    if (!rc)
        rc = run_cells(&spec, &a, cells, n, &aggregate);
    if (!rc && aggregate) {
        rc = sweep_aggregate(&spec, a.out, cells, n);
        if (!rc && !a.quiet)
            fprintf(stderr, "hetsim sweep: %zu cells; statistics over %zu seeds in "
                   "%s/sweep.csv\n", n, spec.nseeds, a.out);
        if (!rc && a.json)
            rc = sweep_print_json(&spec, a.out, n);
    }
    free(cells);
    sweep_spec_free(&spec);
    return rc;
}
