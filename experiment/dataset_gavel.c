/* dataset_gavel.c -- a real dataset from Gavel's measured throughputs: one
 * row per (job type, GPU type, GPU count) with facts about the model and
 * the GPU, and the measured steps per second. The facts come from
 * traces/model_facts.c, documented with their sources in traces/README.md
 * ("Model facts of the Gavel job types"). */
#include <math.h>
#include <stdio.h>

#include "dataset_cmd.h"

/* The physics columns of one row (docs/predictor.md, "Physics features"):
 * log10 of the compute and memory times of a step, in ms. */
static void physics_cols(FILE *f, const struct trace_model_facts *md,
                         const struct trace_gpu_facts *g)
{
    struct pred_physics_in in = {
        md->arch,       md->params_m,   md->layers,      md->input_dim,
        md->batch_size, g->tflops_fp32, g->bandwidth_gbs};
    double c, mem;
    char a[32], b[32];
    if (pred_physics(&in, &c, &mem) < 0)
        c = mem = NAN;
    fprintf(f, "%s,%s,", pred_fmt_double(a, log10(c)),
            pred_fmt_double(b, log10(mem)));
}

int gavel_write_rows(FILE *f, const struct trace_throughputs *m,
                     const char *path, int physics, size_t *nrows,
                     size_t *nflagged)
{
    fprintf(f,
            "job_type,model_family,domain,batch_size,params_m,layers,"
            "gpu_type,gpu_count,gpu_memory_gb,gpu_tflops_fp32,"
            "gpu_bandwidth_gbs,%srunnable,throughput\n",
            physics ? "log10_compute_ms,log10_memory_ms," : "");
    *nrows = *nflagged = 0;
    const char *type, *worker;
    char num[32], tp[32];
    for (size_t t = 0; (type = trace_throughputs_job_type(m, t)); t++) {
        struct trace_model_facts md;
        if (trace_model_facts(type, &md) != 0) {
            cli_error("%s: job type '%s' is of no model family hetsim "
                      "knows (traces/README.md, \"Model facts of the Gavel "
                      "job types\")",
                      path, type);
            return CLI_BAD_INPUT;
        }
        for (size_t w = 0; (worker = trace_throughputs_worker(m, w)); w++) {
            const struct trace_gpu_facts *g = trace_gpu_facts(worker);
            if (!g) {
                cli_error("%s: GPU type '%s' has no facts in hetsim "
                          "(traces/README.md, \"Model facts of the Gavel "
                          "job types\")",
                          path, worker);
                return CLI_BAD_INPUT;
            }
            int32_t n;
            for (size_t k = 0; (n = trace_throughputs_gpu_count(m, k)); k++) {
                double v;
                /* Only measured values; the fallbacks are extrapolations. */
                if (trace_throughput(m, worker, type, n, 0, &v) != 0)
                    continue;
                cli_csv_quoted(f, type);
                fprintf(f, ",%s,%s,%d,%s,%d,%s,%d,%g,%g,%g,", md.family,
                        md.task, md.batch_size,
                        pred_fmt_double(num, md.params_m), md.layers, g->name,
                        n, g->memory_gb, g->tflops_fp32, g->bandwidth_gbs);
                if (physics)
                    physics_cols(f, &md, g);
                fprintf(f, "%d,%s\n", v > 0, pred_fmt_double(tp, v));
                (*nrows)++;
                *nflagged += v <= 0;
            }
        }
    }
    return CLI_OK;
}
