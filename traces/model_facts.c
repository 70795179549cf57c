/* model_facts.c -- what a Gavel job type is, as a model: family, size,
 * depth and batch size, the features a resource predictor reads; and what
 * Gavel's GPU types are. hetsim's one table of both: `hetsim dataset
 * gavel` writes its columns from it and `--estimates predictor:` fills a
 * model's features from it, so a model sees in the loop what it was
 * trained on.
 *
 * Gavel's traces name a job only by type ("ResNet-50 (batch size 64)");
 * its paper (Narayanan et al., OSDI'20, Table 2) says which model, task and
 * data set each family is, and its job table (scheduler/job_table.py)
 * which program trains it. Parameter and layer counts are worked out from
 * those programs' architectures, as listed in traces/README.md ("Model
 * facts of the Gavel job types"), where the reasoning behind each figure
 * is written out. The batch size is in the job type's name; the two types
 * without one use the batch size of the workload Gavel ran. */
#include "traces_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct trace_model_facts families[] = {
    /* family, task, dataset, architecture, params_m, layers, input_dim,
     * default batch (0: always in the name) */
    {"ResNet-18", "image_classification", "CIFAR-10", "cnn", 11.17, 18, 32,
     0},
    {"ResNet-50", "image_classification", "ImageNet", "cnn", 25.56, 50, 224,
     0},
    {"Transformer", "translation", "Multi30k", "transformer", 65.0, 12, 64,
     0},
    {"LM", "language_modeling", "Wikitext-2", "rnn", 13.99, 2, 35, 0},
    {"Recommendation", "recommendation", "ML-20M", "mlp", 8.06, 2, 20108,
     0},
    {"A3C", "reinforcement_learning", "Pong", "cnn", 3.25, 6, 80, 20},
    {"CycleGAN", "image_to_image", "monet2photo", "cnn", 28.29, 24, 256, 1},
};

#define NFAMILIES (sizeof families / sizeof families[0])

/* One GPU of each of Gavel's worker types (one die of a K80 board), NVIDIA
 * data sheets; the variants are traces/README.md's assumption. */
static const struct trace_gpu_facts gpus[] = {
    {"k80", 12, 4.37, 240},
    {"p100", 16, 9.3, 732},
    {"v100", 16, 15.7, 900},
};

const struct trace_model_facts *trace_model_family(size_t i)
{
    return i < NFAMILIES ? &families[i] : NULL;
}

int trace_model_facts(const char *job_type, struct trace_model_facts *out)
{
    for (size_t i = 0; i < NFAMILIES; i++) {
        size_t n = strlen(families[i].family);
        if (strncmp(job_type, families[i].family, n) != 0 ||
            (job_type[n] != '\0' && job_type[n] != ' '))
            continue;
        *out = families[i];
        const char *rest = job_type + n;
        if (!*rest)
            return out->batch_size > 0 ? 0 : -1;
        static const char tag[] = " (batch size ";
        if (strncmp(rest, tag, sizeof tag - 1) != 0)
            return -1;
        char *end;
        long b = strtol(rest + sizeof tag - 1, &end, 10);
        if (b < 1 || b > 1000000 || strcmp(end, ")") != 0)
            return -1;
        out->batch_size = (int32_t)b;
        return 0;
    }
    return -1;
}

const struct trace_gpu_facts *trace_gpu_facts(const char *worker)
{
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        if (strcasecmp(worker, gpus[i].name) == 0)
            return &gpus[i];
    return NULL;
}
