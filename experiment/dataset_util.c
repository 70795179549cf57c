/* dataset_util.c -- `hetsim dataset gavel --target util`: a GPU
 * utilization dataset from Gavel's pair measurements, for a model that
 * util-pack (docs/sharing.md) asks on every arrival through
 * `--estimates predictor:...,util=MODEL.bin`.
 *
 * One row per (job type, GPU type) measured on one GPU with a partner:
 * the facts of the model and the GPU, as in the throughput dataset, and
 * gpu_util = 1 - the mean, over the job types B measured next to A on that
 * GPU type, of B's throughput next to A over B's throughput alone (at most
 * 1): the share of the GPU that A takes from whoever it shares with
 * (0: harmless, 1: B stops). This is the figure `hetsim run --util-pack`
 * takes as its oracle from the pairs (sharing.c), so a model trained on it
 * predicts that oracle from model facts. */
#include <stdio.h>

#include "dataset_cmd.h"

/* u of job type A on WORKER, or -1 when no pair with A was measured. */
static double pair_util(const struct trace_throughputs *m, const char *worker,
                        const char *a)
{
    double sum = 0, ta, tb, alone;
    size_t k = 0;
    const char *b;
    for (size_t i = 0; (b = trace_throughputs_job_type(m, i)); i++) {
        if (trace_pair_throughput(m, worker, a, 1, b, 1, &ta, &tb) == 0 &&
            trace_throughput(m, worker, b, 1, 0, &alone) >= 0 && alone > 0) {
            sum += tb / alone < 1 ? tb / alone : 1;
            k++;
        }
    }
    if (!k)
        return -1;
    return sum / (double)k < 1 ? 1 - sum / (double)k : 0;
}

int gavel_write_util_rows(FILE *f, const struct trace_throughputs *m,
                          const char *path, size_t *nrows)
{
    const char *type, *worker;
    char num[32], u[32];
    fprintf(f, "job_type,model_family,domain,batch_size,params_m,layers,"
               "gpu_type,gpu_count,gpu_memory_gb,gpu_tflops_fp32,"
               "gpu_bandwidth_gbs,gpu_util\n");
    *nrows = 0;
    for (size_t t = 0; (type = trace_throughputs_job_type(m, t)); t++) {
        struct trace_model_facts md;
        if (trace_model_facts(type, &md) != 0) {
            cli_error("%s: job type '%s' is of no model family hetsim "
                      "knows (traces/README.md)", path, type);
            return CLI_BAD_INPUT;
        }
        for (size_t w = 0; (worker = trace_throughputs_worker(m, w)); w++) {
            const struct trace_gpu_facts *g = trace_gpu_facts(worker);
            double v = pair_util(m, worker, type);
            if (!g || v < 0)
                continue;
            cli_csv_quoted(f, type);
            fprintf(f, ",%s,%s,%d,%s,%d,%s,1,%g,%g,%g,%s\n", md.family,
                    md.task, md.batch_size, pred_fmt_double(num, md.params_m),
                    md.layers, g->name, g->memory_gb, g->tflops_fp32,
                    g->bandwidth_gbs, pred_fmt_double(u, v));
            (*nrows)++;
        }
    }
    return CLI_OK;
}
