/* dataset_gavel.c -- a real dataset from Gavel's measured throughputs: one
 * row per (job type, GPU type, GPU count) with facts about the model and
 * the GPU, and the measured steps per second. The facts tables below are
 * documented with their sources in README, "Gavel dataset". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dataset_cmd.h"

/* Model families of Gavel's job types (Narayanan et al., OSDI'20,
 * Table 2). Parameters and layers: see README for each source. */
static const struct gavel_model GAVEL_MODELS[] = {
    {"ResNet-18", "image_classification", 11.17, 18},
    {"ResNet-50", "image_classification", 25.56, 50},
    {"Transformer", "translation", 65.0, 12},
    {"LM", "language_modeling", 13.99, 2},
    {"Recommendation", "recommendation", 10.7, 2},
    {"A3C", "reinforcement_learning", 0.68, 4},
    {"CycleGAN", "image_to_image", 28.29, 24},
};

/* One GPU of each type (one die of a K80 board), NVIDIA datasheets. */
static const struct gavel_gpu GAVEL_GPUS[] = {
    {"k80", 12, 4.37, 240},
    {"p100", 16, 9.3, 732},
    {"v100", 16, 15.7, 900},
};

const struct gavel_model *gavel_model_of(const char *job_type)
{
    for (size_t i = 0; i < sizeof GAVEL_MODELS / sizeof GAVEL_MODELS[0]; i++) {
        size_t n = strlen(GAVEL_MODELS[i].family);
        if (strncmp(job_type, GAVEL_MODELS[i].family, n) == 0 &&
            (job_type[n] == '\0' || job_type[n] == ' '))
            return &GAVEL_MODELS[i];
    }
    return NULL;
}

const struct gavel_gpu *gavel_gpu_of(const char *worker)
{
    for (size_t i = 0; i < sizeof GAVEL_GPUS / sizeof GAVEL_GPUS[0]; i++)
        if (strcasecmp(worker, GAVEL_GPUS[i].name) == 0)
            return &GAVEL_GPUS[i];
    return NULL;
}

/* "X (batch size 64)" -> 64; job types without one (A3C, CycleGAN) train
 * on batch 1 in hetsim's reading (README). */
int gavel_batch_size(const char *job_type)
{
    const char *p = strstr(job_type, "(batch size ");
    return p ? atoi(p + 12) : 1;
}

/* TEXT as a quoted CSV field. */
static void put_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

int gavel_write_rows(FILE *f, const struct trace_throughputs *m,
                     const char *path, size_t *nrows, size_t *nflagged)
{
    fprintf(f, "job_type,model_family,domain,batch_size,params_m,layers,"
               "gpu_type,gpu_count,gpu_memory_gb,gpu_tflops_fp32,"
               "gpu_bandwidth_gbs,runnable,throughput\n");
    *nrows = *nflagged = 0;
    const char *type, *worker;
    char num[32], tp[32];
    for (size_t t = 0; (type = trace_throughputs_job_type(m, t)); t++) {
        const struct gavel_model *md = gavel_model_of(type);
        if (!md) {
            cli_error("%s: job type '%s' is of no model family hetsim "
                      "knows (README, \"Gavel dataset\")",
                      path, type);
            return CLI_BAD_INPUT;
        }
        for (size_t w = 0; (worker = trace_throughputs_worker(m, w)); w++) {
            const struct gavel_gpu *g = gavel_gpu_of(worker);
            if (!g) {
                cli_error("%s: GPU type '%s' has no facts in hetsim "
                          "(README, \"Gavel dataset\")",
                          path, worker);
                return CLI_BAD_INPUT;
            }
            int32_t n;
            for (size_t k = 0; (n = trace_throughputs_gpu_count(m, k)); k++) {
                double v;
                /* Only measured values; the fallbacks are extrapolations. */
                if (trace_throughput(m, worker, type, n, 0, &v) != 0)
                    continue;
                put_quoted(f, type);
                fprintf(f, ",%s,%s,%d,%s,%d,%s,%d,%g,%g,%g,%d,%s\n", md->family,
                        md->domain, gavel_batch_size(type),
                        pred_fmt_double(num, md->params_m), md->layers, g->name,
                        n, g->memory_gb, g->tflops, g->bandwidth_gbs, v > 0,
                        pred_fmt_double(tp, v));
                (*nrows)++;
                *nflagged += v <= 0;
            }
        }
    }
    return CLI_OK;
}
