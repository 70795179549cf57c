/* sharing.c -- GPU sharing for `hetsim run` (sim.h, sim_enable_sharing):
 * each job's demand (gpu_milli, CPU, memory), the nodes' CPU and memory,
 * the speeds of co-located jobs, util-pack's estimated utilizations, and
 * fragmentation's workload.
 *
 * A job with company on its GPU runs at Gavel's measured pair throughput
 * over its throughput alone, when the pair matrix (--pairs, else
 * --throughputs) knows both job types on that GPU type; otherwise at the
 * interference factor (default 0.65: the median, over the 676 measured
 * pairs of one-GPU jobs on V100 in Gavel's simulation_throughputs.json, of
 * a job's paired throughput over its throughput alone; 0.58 on P100, 0.51
 * on K80).
 *
 * util-pack with the oracle (any --estimates but a predictor): a job's GPU
 * utilization u is its trace's gpu_util_peak (percent) when it has one.
 * Otherwise, with a pair matrix, that of its job type A read off Gavel's
 * pairs on the cluster's reference type: u(A) = 1 - the mean, over the
 * trace's job types B measured with A, of B's throughput next to A over
 * B's throughput alone (the share of the GPU A takes from its partner); a
 * type with no measured partner gets 1 and never shares. A one-GPU job then
 * asks ceil(1000 u / BOUND) milli-GPU, so two share a GPU exactly when
 * u(A) + u(B) <= BOUND (to that rounding). With --estimates predictor and
 * a utilization model, the engine does the same on arrival from the
 * predicted u (sim_sharing.util_bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pack_internal.h"

int cli_trace_has_shares(const struct trace *t)
{
    for (size_t j = 0; j < t->njobs; j++)
        if (t->jobs[j].gpu_milli > 0 && t->jobs[j].gpu_milli < SHARE_MILLI)
            return 1;
    return 0;
}

/* Paired throughput over alone, from the matrix; else the factor. */
static double pair_speed(void *ctx, int32_t gpu_type, uint32_t a, uint32_t b)
{
    const struct cli_sharing *x = ctx;
    const struct trace *t = x->trace;
    uint32_t ta_type = t->jobs[a].job_type, tb_type = t->jobs[b].job_type;
    const char *worker = x->cluster->types[gpu_type].name;
    double ta, tb, alone;
    if (x->pairs && ta_type != TRACE_NOSTR && tb_type != TRACE_NOSTR &&
        trace_pair_throughput(x->pairs, worker, trace_str(t, ta_type), 1,
                              trace_str(t, tb_type), 1, &ta, &tb) == 0 &&
        trace_throughput(x->pairs, worker, trace_str(t, ta_type), 1, 0,
                         &alone) >= 0 &&
        alone > 0 && ta > 0)
        return ta < alone ? ta / alone : 1;
    return x->interference;
}

/* u(A) as above, over the distinct job types TYPES (N) of the trace. */
static double util_of(const struct cli_sharing *x, uint32_t a,
                      const uint32_t *types, size_t n)
{
    const char *worker = x->cluster->types[x->cluster->reference].name;
    const char *sa = trace_str(x->trace, a);
    double sum = 0, ta, tb, alone;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *sb = trace_str(x->trace, types[i]);
        if (trace_pair_throughput(x->pairs, worker, sa, 1, sb, 1, &ta, &tb) ==
                0 &&
            trace_throughput(x->pairs, worker, sb, 1, 0, &alone) >= 0 &&
            alone > 0) {
            sum += fmin(tb / alone, 1);
            k++;
        }
    }
    return k ? fmax(0, 1 - sum / (double)k) : 1;
}

/* The distinct job types of the trace into TYPES; their number. */
static size_t trace_types(const struct trace *t, uint32_t *types)
{
    size_t n = 0;
    for (size_t j = 0; j < t->njobs; j++) {
        uint32_t k = t->jobs[j].job_type;
        size_t i = 0;
        while (i < n && types[i] != k)
            i++;
        if (i == n && k != TRACE_NOSTR)
            types[n++] = k;
    }
    return n;
}

/* u of job J: its trace's gpu_util_peak (percent) when given, else the
 * estimate of its job type from the pairs (UTIL[i] of TYPES[i]), else -1. */
static double job_util(const struct cli_sharing *x, size_t j,
                       const uint32_t *types, const double *util, size_t n)
{
    double peak = x->trace->jobs[j].use_peak[TRACE_USE_GPU_UTIL];
    size_t i = 0;
    if (!isnan(peak))
        return fmin(peak / 100, 1);
    while (i < n && types[i] != x->trace->jobs[j].job_type)
        i++;
    return i < n ? util[i] : -1;
}

/* util-pack with the oracle: shrinks the demand of every one-GPU job with
 * a known utilization to that utilization over BOUND. */
static int util_pack_oracle(struct cli_sharing *x, double bound)
{
    size_t n = 0, nj = x->trace->njobs;
    uint32_t *types = malloc((nj ? nj : 1) * sizeof *types);
    double *util = malloc((nj ? nj : 1) * sizeof *util);
    if (!types || !util) {
        free(types);
        free(util);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (x->pairs)
        n = trace_types(x->trace, types);
    for (size_t i = 0; i < n; i++)
        util[i] = util_of(x, types[i], types, n);
    for (size_t j = 0; j < nj; j++) {
        struct share_demand *d = &x->demands[j];
        double u = job_util(x, j, types, util, n);
        if (u < 0 || d->num_gpus != 1 || d->gpu_milli != SHARE_MILLI)
            continue;
        double milli = ceil(SHARE_MILLI * u / bound);
        if (milli < SHARE_MILLI) {
            d->gpu_milli = milli < 1 ? 1 : (int32_t)milli;
            x->packed++;
        }
    }
    free(types);
    free(util);
    return CLI_OK;
}

static int enable(struct workload *w, const struct run_config *cfg,
                  struct cli_sharing *x)
{
    struct sim_sharing sh = {x->demands, x->w, x->host_cpu, x->host_mem,
                             pair_speed, x, 0};
    if (cfg->util_bound > 0 && cfg->estimates == CLI_EST_PREDICTOR)
        sh.util_bound = cfg->util_bound; /* predicted, on arrival */
    int rc = sim_enable_sharing(w->sim, &sh);
    if (rc == SIM_EINVAL) {
        cli_error("%s: a node has more than %d GPUs", cfg->cluster,
                  SHARE_MAX_NODE_GPUS);
        return CLI_BAD_INPUT;
    }
    if (rc) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

int cli_sharing_enable(struct workload *w, const struct run_config *cfg,
                       const struct trace *t,
                       const struct trace_throughputs *pairs)
{
    struct cli_sharing *x = calloc(1, sizeof *x);
    size_t n = t->njobs;
    int rc = CLI_OK;
    if (!x || !(x->demands = malloc((n ? n : 1) * sizeof *x->demands))) {
        free(x);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    w->share = x;
    x->trace = t;
    x->cluster = w->cluster;
    x->pairs = pairs;
    x->interference = cfg->interference;
    if (strncmp(cfg->cluster, "alibaba2023:", 12) == 0)
        rc = cli_share_hosts(cfg->cluster, w->cluster, &x->host_cpu,
                             &x->host_mem);
    for (size_t j = 0; j < n && rc == CLI_OK; j++)
        rc = cli_share_demand(w->cluster, t, cfg->trace, j, &x->demands[j]);
    if (rc == CLI_OK && cfg->util_bound > 0 &&
        cfg->estimates != CLI_EST_PREDICTOR)
        rc = util_pack_oracle(x, cfg->util_bound);
    if (rc == CLI_OK && share_workload_build(x->demands, n, &x->w)) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    return rc == CLI_OK ? enable(w, cfg, x) : rc;
}

size_t cli_sharing_packed(const struct workload *w)
{
    size_t n = w->share->packed;
    for (size_t j = 0; j < sim_njobs(w->sim); j++)
        n += sim_job_demand(w->sim, (uint32_t)j)->gpu_milli <
             w->share->demands[j].gpu_milli;
    return n;
}

void cli_sharing_free(struct cli_sharing *x)
{
    if (!x)
        return;
    free(x->demands);
    share_workload_destroy(x->w);
    free(x->host_cpu);
    free(x->host_mem);
    free(x);
}
