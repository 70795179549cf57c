/* dataset_cmd.c -- `hetsim dataset synth|gavel`: the datasets of the
 * predictor experiments, written as CSV files. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_cmd.h"
#include "trace_cmd.h"

#define SYNTH_CMD "hetsim dataset synth"
#define GAVEL_CMD "hetsim dataset gavel"

int cli_pred_error(const struct pred_error *e)
{
    cli_error_at(e->source, e->line, 0, e->text);
    return CLI_BAD_INPUT;
}

int cli_parse_ulong(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

static void synth_usage(void)
{
    printf("Usage: hetsim dataset synth --schema gflops|memory [OPTIONS] -o "
           "FILE.csv\n"
           "Writes a synthetic dataset with the columns of a seed paper's "
           "table. The\ntargets come from an analytic model of training cost "
           "(docs/predictor.md, \"Synthetic\ndatasets\"), times lognormal noise; neither "
           "paper published its data.\n\n"
           "  gflops  Hu: model_type, params_m, batch_size, input_dim, "
           "num_layers,\n"
           "          iterations, precision, optimizer, learning_rate -> "
           "gpu_demand_gflops\n"
           "          (FLOPs of the whole training run, in GFLOPs)\n"
           "  memory  Wang et al.: input_dim, model_arch, num_layers, "
           "num_params,\n"
           "          precision, params_per_layer -> memory_mb (peak GPU "
           "memory, MiB)\n\n"
           "  -s, --schema S    gflops or memory (required)\n"
           "  -n, --rows N      rows (default 517 for gflops, 452 for memory, "
           "as the papers)\n"
           "      --seed S      seed of the GSL generator (default 1)\n"
           "      --noise SD    standard deviation of the log noise (default "
           "0.05, i.e. ~5%%)\n"
           "  -o, --out FILE    the CSV to write, or - for stdout\n"
           "  -h, --help        show this help\n\n"
           "Example:\n"
           "  hetsim dataset synth --schema gflops --seed 1 -o gflops.csv\n");
}

struct synth_args {
    const char *schema, *out;
    unsigned long rows, seed;
    double noise;
};

static int parse_synth_args(int argc, char **argv, struct synth_args *a)
{
    static const struct option long_options[] = {
        {"schema", required_argument, NULL, 's'},
        {"rows", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 'S'},
        {"noise", required_argument, NULL, 'N'},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (struct synth_args){.seed = 1, .noise = 0.05};
    char *end;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":s:n:o:h", long_options, NULL)) !=
           -1) {
        switch (opt) {
        case 's': a->schema = optarg; break;
        case 'o': a->out = optarg; break;
        case 'n':
            if (cli_parse_ulong(optarg, &a->rows) || a->rows < 2 ||
                a->rows > 10000000)
                return cli_usage_error(SYNTH_CMD, "--rows: expected a whole "
                                                  "number from 2 to 10000000");
            break;
        case 'S':
            if (cli_parse_ulong(optarg, &a->seed) || a->seed > UINT32_MAX)
                return cli_usage_error(SYNTH_CMD, "--seed: expected a whole "
                                                  "number >= 0");
            break;
        case 'N':
            a->noise = strtod(optarg, &end);
            if (*end || !(a->noise >= 0 && a->noise <= 2))
                return cli_usage_error(SYNTH_CMD, "--noise: expected a "
                                                  "number from 0 to 2");
            break;
        case 'h': synth_usage(); return -1;
        default:
            return cli_option_error_in(SYNTH_CMD, opt, argv, long_options);
        }
    }
    if (optind < argc)
        return cli_usage_error(SYNTH_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!a->schema ||
        (strcmp(a->schema, "gflops") && strcmp(a->schema, "memory")))
        return cli_usage_error(SYNTH_CMD, "--schema: expected gflops or "
                                          "memory");
    if (!a->out)
        return cli_usage_error(SYNTH_CMD, "missing -o FILE (or - for "
                                          "stdout)");
    return 0;
}

static int synth(int argc, char **argv)
{
    struct synth_args a;
    int rc = parse_synth_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    const char *out = a.out;
    int gf = strcmp(a.schema, "gflops") == 0;
    struct pred_table *t =
        pred_synth(gf ? PRED_SYNTH_GFLOPS : PRED_SYNTH_MEMORY,
                   a.rows ? a.rows
                   : gf   ? 517
                          : 452,
                   a.seed, a.noise);
    if (!t) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    struct trace_out o;
    rc = cli_trace_out_open(&o, out);
    if (rc == CLI_OK) {
        if (pred_table_write_csv(t, o.f, NULL, NULL) < 0) {
            cli_error("%s: cannot write: %s", out, strerror(errno));
            cli_trace_out_abort(&o);
            rc = CLI_FAILURE;
        } else {
            rc = cli_trace_out_commit(&o);
        }
    }
    pred_table_destroy(t);
    return rc;
}

static void gavel_usage(void)
{
    printf("Usage: hetsim dataset gavel --throughputs FILE -o FILE.csv\n"
           "Writes a dataset from Gavel's measured throughputs "
           "(simulation_throughputs.json):\none row per (job type, GPU type, "
           "GPU count) measured with the GPUs on one\nserver, with the model "
           "family, batch size, parameters and layers of the\nmodel, the "
           "GPU's memory, FP32 TFLOP/s and bandwidth (docs/predictor.md, \"Gavel\n"
           "dataset\", cites each), and the measured throughput in steps/s. "
           "Rows that\ncannot run (throughput 0, out of memory) are kept with "
           "runnable=0.\n\n"
           "  -T, --throughputs F  Gavel's simulation_throughputs.json "
           "(required)\n"
           "  -o, --out FILE       the CSV to write, or - for stdout\n"
           "      --target T       throughput (default) or util: one row per "
           "(job type,\n"
           "                       GPU type) with gpu_util from the measured "
           "pairs, for\n"
           "                       util-pack's model (docs/sharing.md)\n"
           "      --physics        add log10_compute_ms (a step's FLOPs / "
           "the GPU's\n"
           "                       peak) and log10_memory_ms (16 bytes a "
           "weight /\n"
           "                       bandwidth): docs/predictor.md, "
           "\"Physics features\"\n"
           "  -h, --help           show this help\n\n"
           "Example:\n"
           "  hetsim dataset gavel --throughputs "
           "traces/gavel/simulation_throughputs.json \\\n"
           "      -o gavel.csv\n");
}

static int gavel(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"throughputs", required_argument, NULL, 'T'},
        {"out", required_argument, NULL, 'o'},
        {"target", required_argument, NULL, 'g'},
        {"physics", no_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *tp = NULL, *out = NULL;
    int util = 0;
    int opt, physics = 0;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":T:o:g:ph", long_options, NULL)) !=
           -1) {
        switch (opt) {
        case 'T': tp = optarg; break;
        case 'o': out = optarg; break;
        case 'g':
            if (strcmp(optarg, "util") && strcmp(optarg, "throughput"))
                return cli_usage_error(GAVEL_CMD, "--target wants throughput "
                                       "or util, got '%s'", optarg);
            util = strcmp(optarg, "util") == 0;
            break;
        case 'p': physics = 1; break;
        case 'h': gavel_usage(); return CLI_OK;
        default:
            return cli_option_error_in(GAVEL_CMD, opt, argv, long_options);
        }
    }
    if (optind < argc)
        return cli_usage_error(GAVEL_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!tp || !out)
        return cli_usage_error(GAVEL_CMD, "missing %s",
                               tp ? "-o FILE"
                                  : "--throughputs "
                                    "FILE");
    struct trace_throughputs *m = NULL;
    int rc = cli_load_throughputs(tp, &m);
    struct trace_out o;
    size_t nrows = 0, nflag = 0;
    if (rc == CLI_OK && (rc = cli_trace_out_open(&o, out)) == CLI_OK) {
        rc = util ? gavel_write_util_rows(o.f, m, tp, &nrows)
                  : gavel_write_rows(o.f, m, tp, physics, &nrows, &nflag);
        if (rc == CLI_OK)
            rc = cli_trace_out_commit(&o);
        else
            cli_trace_out_abort(&o);
    }
    if (rc == CLI_OK && strcmp(out, "-") != 0 && util)
        fprintf(stderr, "hetsim dataset gavel: %zu rows (gpu_util) to %s\n",
                nrows, out);
    else if (rc == CLI_OK && strcmp(out, "-") != 0)
        fprintf(stderr,
                "hetsim dataset gavel: %zu rows (%zu cannot run, "
                "runnable=0) to %s\n",
                nrows, nflag, out);
    trace_throughputs_destroy(m);
    return rc;
}

int cli_dataset(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (cmd && strcmp(cmd, "synth") == 0)
        return synth(argc - 1, argv + 1);
    if (cmd && strcmp(cmd, "gavel") == 0)
        return gavel(argc - 1, argv + 1);
    if (cmd && (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0)) {
        printf("Usage: hetsim dataset COMMAND [OPTIONS]\n"
               "Writes the datasets of the predictor experiments as CSV.\n\n"
               "Commands:\n"
               "  synth  --schema gflops|memory: synthetic jobs with the "
               "columns of Hu's or\n"
               "         Wang et al.'s table, targets from an analytic "
               "model\n"
               "  gavel  --throughputs FILE: Gavel's measured throughputs "
               "with model and\n"
               "         GPU facts\n\n"
               "`hetsim dataset COMMAND --help` explains each one. Train "
               "on them with\n`hetsim predictor`.\n\n"
               "Example:\n"
               "  hetsim dataset synth --schema memory --seed 1 -o memory.csv\n");
        return CLI_OK;
    }
    static const char *const names[] = {"synth", "gavel"};
    char hint[128];
    if (cmd)
        cli_did_you_mean(hint, sizeof hint, cmd, names, 2);
    if (cmd)
        return cli_usage_error("hetsim dataset",
                               "unknown command '%s'%s "
                               "(choose from: synth, gavel)",
                               cmd, hint);
    return cli_usage_error("hetsim dataset", "missing command (synth or "
                                             "gavel)");
}
