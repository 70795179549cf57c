/* pack.c -- `hetsim pack`: the FGD paper's packing experiment. Pods arrive
 * in trace order and never leave; each placement rule puts every pod where
 * it chooses, or fails it when no node can host it (no queue), and after
 * each pod we record the share of the cluster's GPUs allocated and the
 * cluster's fragmentation against the trace's own pod distribution (Weng et
 * al., "Beware of Fragmentation", USENIX ATC'23, sections 3.2 and 6). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pack_internal.h"

#define PACK_CMD "hetsim pack"
#define PACK_MAX_RULES POL_SHARE_COUNT

struct pack_options {
    const char *trace, *cluster, *out;
    enum trace_format format;
    struct trace_options trace_opt;
    enum pol_share_rule rule[PACK_MAX_RULES];
    size_t nrules;
    uint64_t seed;
    int plots, quiet, json;
};

static void pack_usage(void)
{
    printf(
        "Usage: hetsim pack --trace FILE --cluster C --out DIR [OPTIONS]\n"
        "Fills a cluster with pods that share GPUs, in arrival order and "
        "without\ndepartures (the FGD paper's experiment), under each "
        "placement rule, and\nreports how much of the cluster's GPU gets "
        "allocated and how fragmented\nit is as the cluster fills (README, "
        "\"GPU sharing\").\n\n"
        "  -t, --trace FILE       pods: an Alibaba 2023 pod list (cpu_milli, "
        "memory_mib,\n"
        "                         num_gpu, gpu_milli, gpu_spec) or any "
        "trace (whole GPUs)\n"
        "  -c, --cluster C        alibaba2023:NODES.csv (GPUs, CPU and "
        "memory per node),\n"
        "                         a cluster JSON file or a built-in name "
        "(GPUs only)\n"
        "  -P, --placements LIST  comma-separated, from fgd, best-fit, "
        "dot-product,\n"
        "                         first-fit, random (default "
        "fgd,best-fit,dot-product)\n"
        "  -o, --out DIR          results folder; created if missing\n"
        "  -s, --seed N           seed of `random` (default 1)\n"
        "      --no-plots         skip the charts\n"
        "  -q, --quiet            print nothing but errors\n"
        "      --json             print summary.json on stdout, not the "
        "table\n"
        "  -f, --format NAME      the trace's format (default: detected)\n"
        "  -h, --help             show this help\n\n"
        "A pod that no node can host when it arrives fails (it is not "
        "queued). The\nfragmentation is FGD's: the expected unallocated GPU "
        "that a pod drawn from\nthe trace's own mix of demands could not "
        "use, summed over nodes.\n\n"
        "Writes into DIR:\n"
        "  pack.csv          one row per placement and pod: pods_arrived, "
        "arrived\n"
        "                    (GPUs asked so far / cluster GPUs), "
        "pods_placed,\n"
        "                    allocation_rate (GPUs allocated / cluster "
        "GPUs),\n"
        "                    frag_gpus, frag_rate (frag_gpus / cluster "
        "GPUs)\n"
        "  pack_summary.csv  one row per placement (also printed as a "
        "table)\n"
        "  summary.json      the same, with gpu_utilization and "
        "frag_rate_mean\n"
        "  allocation, fragmentation (.gp, .png, .svg): both against "
        "arrived\n\n"
        "Example:\n"
        "  hetsim pack --trace traces/alibaba2023/pods.csv \\\n"
        "              --cluster alibaba2023:traces/alibaba2023/nodes.csv "
        "--out results/pack\n");
}

static int parse_rules(struct pack_options *o, const char *arg)
{
    char list[256];
    if (strlen(arg) >= sizeof list)
        return cli_usage_error(PACK_CMD, "--placements: list too long");
    snprintf(list, sizeof list, "%s", arg);
    o->nrules = 0;
    for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
        int r = pol_share_rule_parse(p);
        if (r < 0)
            return cli_usage_error(PACK_CMD,
                                   "unknown placement '%s' (fgd, best-fit, "
                                   "dot-product, first-fit, random)",
                                   p);
        for (size_t i = 0; i < o->nrules; i++)
            if (o->rule[i] == (enum pol_share_rule)r)
                return cli_usage_error(PACK_CMD, "placement '%s' twice", p);
        o->rule[o->nrules++] = (enum pol_share_rule)r;
    }
    return o->nrules ? CLI_OK
                     : cli_usage_error(PACK_CMD, "--placements: empty list");
}

static int parse_args(int argc, char **argv, struct pack_options *o)
{
    static const struct option long_options[] = {
        {"trace", required_argument, NULL, 't'},
        {"cluster", required_argument, NULL, 'c'},
        {"placements", required_argument, NULL, 'P'},
        {"out", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 's'},
        {"no-plots", no_argument, NULL, 'N'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        CLI_TRACE_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    int opt, rc;
    char *end;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":t:c:P:o:s:qhf:", long_options,
                              NULL)) != -1) {
        switch (opt) {
        case 't': o->trace = optarg; break;
        case 'c': o->cluster = optarg; break;
        case 'o': o->out = optarg; break;
        case 'N': o->plots = 0; break;
        case 'q': o->quiet = 1; break;
        case 'J': o->json = 1; break;
        case 'h': pack_usage(); return -1;
        case 'P':
            if ((rc = parse_rules(o, optarg)))
                return rc;
            break;
        case 's':
            o->seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || optarg[0] == '-' ||
                o->seed > UINT32_MAX)
                return cli_usage_error(PACK_CMD, "--seed: not a number: '%s'",
                                       optarg);
            break;
        case 'f':
        case 'X':
        case 'B':
        case 'G':
            if ((rc = cli_trace_option(PACK_CMD, opt, optarg, &o->format,
                                       &o->trace_opt)))
                return rc;
            break;
        default: return cli_option_error_in(PACK_CMD, opt, argv, long_options);
        }
    }
    if (optind < argc)
        return cli_usage_error(PACK_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!o->trace || !o->cluster || !o->out)
        return cli_usage_error(PACK_CMD, "--trace, --cluster and --out are "
                                         "required");
    return CLI_OK;
}

/* Arrival order: submit time, ties in file order. */
static const struct trace *sort_trace;
static int by_submit(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = sort_trace->jobs[i].submit_time;
    double y = sort_trace->jobs[j].submit_time;
    return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

static int build_pods(struct pack_input *in, const char *src)
{
    const struct trace *t = in->trace;
    size_t n = t->njobs, *order = malloc((n ? n : 1) * sizeof *order);
    double asked = 0, total = 0;
    int rc = CLI_OK;
    in->pods = malloc((n ? n : 1) * sizeof *in->pods);
    in->arrived = malloc((n ? n : 1) * sizeof *in->arrived);
    if (!order || !in->pods || !in->arrived) {
        free(order);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_trace = t;
    qsort(order, n, sizeof *order, by_submit);
    total = (double)in->cluster->total_gpus * SHARE_MILLI;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        struct share_demand *d = &in->pods[i];
        rc = cli_share_demand(in->cluster, t, src, order[i], d);
        asked += (double)d->num_gpus * d->gpu_milli;
        in->arrived[i] = asked / total;
    }
    free(order);
    in->npods = n;
    if (rc == CLI_OK && share_workload_build(in->pods, n, &in->w)) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    return rc;
}

static int fresh_cluster(const struct pack_input *in,
                         struct share_cluster **sc);

/* Marks the pods that no node could host even with the cluster empty (a
 * model it lacks, more GPUs or CPU than any node has): they fail under
 * every rule and say nothing of one. */
static int mark_unfit(struct pack_input *in)
{
    struct share_cluster *sc = NULL;
    int rc = fresh_cluster(in, &sc);
    if (rc)
        return rc;
    in->unfit = calloc(in->npods ? in->npods : 1, 1);
    if (!in->unfit) {
        share_cluster_destroy(sc);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t k = 0; k < in->npods; k++) {
        int32_t i = 0;
        while (i < sc->nnodes && !share_fits(&sc->nodes[i], &in->pods[k]))
            i++;
        in->unfit[k] = i == sc->nnodes;
        in->nunfit += in->unfit[k];
    }
    share_cluster_destroy(sc);
    return CLI_OK;
}

static int load(const struct pack_options *o, struct pack_input *in)
{
    int rc = cli_load_cluster(o->cluster, &in->cluster);
    if (!rc && strncmp(o->cluster, "alibaba2023:", 12) == 0)
        rc = cli_share_hosts(o->cluster, in->cluster, &in->host_cpu,
                             &in->host_mem);
    if (!rc)
        rc = cli_read_trace(o->trace, o->format, &o->trace_opt, &in->trace);
    if (!rc && in->trace->njobs == 0) {
        cli_error("%s: no pods with GPUs", o->trace);
        rc = CLI_BAD_INPUT;
    }
    if (!rc)
        rc = build_pods(in, o->trace);
    return rc ? rc : mark_unfit(in);
}

static void free_input(struct pack_input *in)
{
    cluster_destroy(in->cluster);
    trace_destroy(in->trace);
    free(in->pods);
    free(in->arrived);
    free(in->host_cpu);
    free(in->host_mem);
    free(in->unfit);
    share_workload_destroy(in->w);
}

/* The cluster, empty, with its hosts' CPU and memory. */
static int fresh_cluster(const struct pack_input *in, struct share_cluster **sc)
{
    int rc = share_cluster_create(in->cluster, sc);
    if (rc == SIM_EINVAL) {
        cli_error("a node has more than %d GPUs", SHARE_MAX_NODE_GPUS);
        return CLI_BAD_INPUT;
    }
    if (rc) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (int32_t i = 0; in->host_cpu && i < (*sc)->nnodes; i++)
        share_node_set_host(&(*sc)->nodes[i], in->host_cpu[i], in->host_mem[i]);
    return CLI_OK;
}

/* Places every pod under R->rule; fills R. */
static int pack_one(const struct pack_options *o, const struct pack_input *in,
                    struct pack_result *r)
{
    struct share_cluster *sc = NULL;
    struct pol_sharer *p = pol_sharer_create(r->rule, in->w, o->seed);
    double *node_frag = NULL, total, start = cli_clock();
    int rc = p ? fresh_cluster(in, &sc) : CLI_FAILURE;
    size_t nn = sc ? (size_t)sc->nnodes : 0;
    int tty = !o->quiet && isatty(STDERR_FILENO);
    r->alloc = malloc(in->npods * sizeof *r->alloc);
    r->frag = malloc(in->npods * sizeof *r->frag);
    node_frag = malloc((nn ? nn : 1) * sizeof *node_frag);
    if (rc == CLI_OK && (!r->alloc || !r->frag || !node_frag))
        rc = CLI_FAILURE;
    if (rc) {
        if (rc == CLI_FAILURE)
            cli_error("out of memory");
        goto done;
    }
    total = (double)sc->total_milli;
    for (size_t i = 0; i < nn; i++)
        node_frag[i] = share_node_frag(&sc->nodes[i], in->w);
    r->first_fail = NAN;
    for (size_t k = 0; k < in->npods; k++) {
        struct share_alloc a;
        double f = 0;
        if (pol_share_place(p, sc, &in->pods[k], &a) == 0) {
            share_take(sc, &in->pods[k], &a);
            node_frag[a.node] = share_node_frag(&sc->nodes[a.node], in->w);
            r->placed++;
        } else {
            r->failed++;
            if (!in->unfit[k] && isnan(r->first_fail))
                r->first_fail = in->arrived[k];
        }
        for (size_t i = 0; i < nn; i++)
            f += node_frag[i];
        r->alloc[k] = (double)sc->used_milli / total;
        r->frag[k] = f / total;
        if (tty && (k + 1) % 500 == 0)
            fprintf(stderr, "\r%s: %zu / %zu pods",
                    pol_share_rule_name(r->rule), k + 1, in->npods);
    }
    if (tty)
        fprintf(stderr, "\r\033[K");
    r->wall_s = cli_clock() - start;
done:
    free(node_frag);
    share_cluster_destroy(sc);
    pol_sharer_destroy(p);
    return rc;
}

int cli_pack(int argc, char **argv)
{
    struct pack_options o = {
        .format = TRACE_FMT_AUTO,
        .seed = 1,
        .plots = 1,
        .nrules = 3,
        .rule = {POL_SHARE_FGD, POL_SHARE_BEST_FIT, POL_SHARE_DOT_PRODUCT}};
    struct pack_input in = {0};
    struct pack_result r[PACK_MAX_RULES] = {{0}};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    rc = load(&o, &in);
    for (size_t i = 0; i < o.nrules && rc == CLI_OK; i++) {
        r[i].rule = o.rule[i];
        rc = pack_one(&o, &in, &r[i]);
        if (!rc && !o.quiet)
            fprintf(stderr, "%s: %zu pods in %.3f s (%.0f pods/s)\n",
                    pol_share_rule_name(r[i].rule), in.npods, r[i].wall_s,
                    (double)in.npods / (r[i].wall_s > 0 ? r[i].wall_s : 1e-9));
    }
    if (rc == CLI_OK)
        rc = pack_write(o.out, &in, r, o.nrules, o.plots, o.quiet, o.json);
    for (size_t i = 0; i < o.nrules; i++) {
        free(r[i].alloc);
        free(r[i].frag);
    }
    free_input(&in);
    return rc;
}
