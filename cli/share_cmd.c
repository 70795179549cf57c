/* share_cmd.c -- `hetsim share`: replays a trace on shared GPUs (sim.h,
 * share_run): pods with gpu_milli < 1000 share GPUs, placed by one of the
 * sharing placements; with --util-pack, one-GPU jobs also share a GPU when
 * their estimated GPU utilizations sum to at most a bound (Yeung et al.,
 * "Towards GPU Utilization Prediction for Cloud Deep Learning", HotCloud'20).
 *
 * A job with company on its GPU runs at Gavel's measured pair throughput
 * over its throughput alone, when --throughputs knows both job types on
 * that GPU type; otherwise at the interference factor (default 0.65: the
 * median, over the 676 measured pairs of one-GPU jobs on V100 in Gavel's
 * simulation_throughputs.json, of a job's paired throughput over its
 * throughput alone; 0.58 on P100, 0.51 on K80).
 *
 * Estimated utilization for --util-pack: share_io.c. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "share_internal.h"

#define SHARE_CMD "hetsim share"

static void share_usage(void)
{
    printf("Usage: hetsim share --trace FILE --cluster C --out DIR [OPTIONS]\n"
           "Replays a trace with GPU sharing: pods asking gpu_milli < 1000 "
           "share a GPU\n(docs/sharing.md); waiting jobs are offered "
           "to the placement in\narrival order at every event.\n\n"
           "  -t, --trace FILE        jobs (any format; Alibaba 2023 pods "
           "carry gpu_milli)\n"
           "  -c, --cluster C         alibaba2023:NODES.csv, a cluster JSON "
           "file or a\n"
           "                          built-in name\n"
           "  -p, --placement RULE    fgd (default), best-fit, dot-product, "
           "first-fit, random\n"
           "  -o, --out DIR           results folder; created if missing\n"
           "  -T, --throughputs FILE  Gavel's simulation_throughputs.json: "
           "pair speeds\n"
           "  -I, --interference X    speed (0, 1] of a job sharing a GPU "
           "with one whose\n"
           "                          pair is not measured (default 0.65)\n"
           "  -U, --util-pack BOUND   one-GPU jobs share a GPU while their "
           "estimated\n"
           "                          utilizations sum to <= BOUND: the "
           "trace's\n"
           "                          gpu_util_peak (%%), else from "
           "--throughputs' pairs\n"
           "                          (default: off; 1 is a full GPU)\n"
           "  -s, --seed N            seed of `random` (default 1)\n"
           "      --no-plots          skip the chart\n"
           "  -q, --quiet             print nothing but errors\n"
           "  -f, --format NAME       the trace's format (default: detected)\n"
           "  -h, --help              show this help\n\n"
           "Writes into DIR: summary.json (avg_jct_s, makespan_s, "
           "gpu_utilization:\nallocated, effective_utilization: weighted by "
           "speed, frag_rate_mean: FGD's\nfragmentation over cluster GPUs, "
           "time mean), timeline.csv (time,\nallocated_gpus, frag_gpus, "
           "frag_rate from each time on), jobs.csv, and the\nchart sharing "
           "(.gp, .png, .svg).\n\n"
           "Example:\n"
           "  hetsim share --trace traces/alibaba2023/pods.csv \\\n"
           "               --cluster alibaba2023:traces/alibaba2023/nodes.csv "
           "\\\n               --out results/share\n");
}

static int parse_number(const char *opt, const char *arg, double lo, double hi,
                        double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (!*arg || *end || !(v > lo) || !(v <= hi))
        return cli_usage_error(SHARE_CMD, "%s: must be in (%g, %g]: '%s'", opt,
                               lo, hi, arg);
    *out = v;
    return CLI_OK;
}

/* What getopt cannot check: operands, required and related options. */
static int check_args(int argc, char **argv, const struct share_options *o)
{
    if (optind < argc)
        return cli_usage_error(SHARE_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!o->trace || !o->cluster || !o->out)
        return cli_usage_error(SHARE_CMD, "--trace, --cluster and --out are "
                                          "required");
    return CLI_OK;
}

static int parse_args(int argc, char **argv, struct share_options *o)
{
    static const struct option long_options[] = {
        {"trace", required_argument, NULL, 't'},
        {"cluster", required_argument, NULL, 'c'},
        {"placement", required_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'o'},
        {"throughputs", required_argument, NULL, 'T'},
        {"interference", required_argument, NULL, 'I'},
        {"util-pack", required_argument, NULL, 'U'},
        {"seed", required_argument, NULL, 's'},
        {"quiet", no_argument, NULL, 'q'},
        {"no-plots", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        CLI_TRACE_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    int opt, rc = CLI_OK, r;
    char *end;
    optind = 0;
    while (rc == CLI_OK &&
           (opt = getopt_long(argc, argv, "t:c:p:o:T:I:U:s:qhf:", long_options,
                              NULL)) != -1) {
        switch (opt) {
        case 't': o->trace = optarg; break;
        case 'c': o->cluster = optarg; break;
        case 'o': o->out = optarg; break;
        case 'T': o->throughputs = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'N': o->plots = 0; break;
        case 'h': share_usage(); return -1;
        case 'I':
            rc = parse_number("--interference", optarg, 0, 1, &o->interference);
            break;
        case 'U':
            rc = parse_number("--util-pack", optarg, 0, 64, &o->util_bound);
            break;
        case 'p':
            if ((r = pol_share_rule_parse(optarg)) < 0)
                return cli_usage_error(SHARE_CMD,
                                       "unknown placement '%s' "
                                       "(fgd, best-fit, dot-product, "
                                       "first-fit, random)",
                                       optarg);
            o->rule = (enum pol_share_rule)r;
            break;
        case 's':
            o->seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || optarg[0] == '-')
                return cli_usage_error(SHARE_CMD,
                                       "--seed: not a number: "
                                       "'%s'",
                                       optarg);
            break;
        case 'f':
        case 'X':
        case 'B':
        case 'G':
            rc = cli_trace_option(SHARE_CMD, opt, optarg, &o->format,
                                  &o->trace_opt);
            break;
        default: return cli_option_error_in(SHARE_CMD, opt, argv, long_options);
        }
    }
    return rc ? rc : check_args(argc, argv, o);
}

/* ---- hooks of the replay ------------------------------------------------ */

static int place_hook(void *ctx, const struct share_cluster *sc,
                      const struct share_demand *d, struct share_alloc *out)
{
    return pol_share_place(((struct share_ctx *)ctx)->sharer, sc, d, out);
}

/* Paired throughput over alone, from the matrix; else the factor. */
static double pair_speed_hook(void *ctx, int32_t gpu_type, uint32_t a,
                              uint32_t b)
{
    const struct share_ctx *x = ctx;
    const char *worker = x->cluster->types[gpu_type].name;
    double ta, tb, alone;
    if (x->matrix && a != TRACE_NOSTR && b != TRACE_NOSTR &&
        trace_pair_throughput(x->matrix, worker, trace_str(x->trace, a), 1,
                              trace_str(x->trace, b), 1, &ta, &tb) == 0 &&
        trace_throughput(x->matrix, worker, trace_str(x->trace, a), 1, 0,
                         &alone) >= 0 &&
        alone > 0 && ta > 0)
        return ta < alone ? ta / alone : 1;
    return x->interference;
}

static void change_hook(void *ctx, double time, int64_t used_milli, double frag)
{
    struct share_ctx *x = ctx;
    if (x->oom)
        return;
    if (x->nsteps == x->steps_cap) {
        size_t cap = x->steps_cap ? 2 * x->steps_cap : 1024;
        struct share_step *s = realloc(x->steps, cap * sizeof *s);
        if (!s) {
            x->oom = 1;
            return;
        }
        x->steps = s;
        x->steps_cap = cap;
    }
    x->steps[x->nsteps++] = (struct share_step){time, used_milli, frag};
}

/* ---- the command -------------------------------------------------------- */

static int replay(struct share_ctx *x, const struct share_options *o,
                  struct share_run_summary *m)
{
    struct share_cluster *sc = NULL;
    struct pol_sharer *p = pol_sharer_create(o->rule, x->w, o->seed);
    int rc = p ? share_cluster_create(x->cluster, &sc) : SIM_ENOMEM;
    struct share_run_hooks h = {x, place_hook, pair_speed_hook, change_hook};
    if (rc == SIM_EINVAL) {
        cli_error("a node has more than %d GPUs", SHARE_MAX_NODE_GPUS);
        pol_sharer_destroy(p);
        return CLI_BAD_INPUT;
    }
    for (int32_t i = 0; !rc && x->host_cpu && i < sc->nnodes; i++)
        share_node_set_host(&sc->nodes[i], x->host_cpu[i], x->host_mem[i]);
    x->sharer = p;
    if (!rc)
        rc = share_run(sc, x->cluster, x->jobs, x->njobs, x->w, &h, m);
    share_cluster_destroy(sc);
    pol_sharer_destroy(p);
    if (rc == 0 && !x->oom)
        return CLI_OK;
    cli_error("%s", rc == SIM_EDECISION ? "a job was left waiting on an "
                                          "empty cluster"
                                        : "out of memory");
    return CLI_FAILURE;
}

int cli_share(int argc, char **argv)
{
    struct share_options o = {.format = TRACE_FMT_AUTO,
                              .seed = 1,
                              .rule = POL_SHARE_FGD,
                              .interference = 0.65,
                              .plots = 1};
    struct share_ctx x = {0};
    struct share_run_summary m;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    x.interference = o.interference;
    rc = share_load(&o, &x);
    if (!rc)
        rc = replay(&x, &o, &m);
    if (!rc)
        rc = share_write(&o, &x, &m);
    share_ctx_free(&x);
    return rc;
}
