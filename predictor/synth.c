/* synth.c -- synthetic datasets with the columns of the papers' tables.
 *
 * Neither paper published its data, so hetsim draws jobs at random and
 * computes their targets from analytic models of training cost (README,
 * "Synthetic datasets", cites each factor), then multiplies by lognormal
 * noise. Every draw comes from one GSL mt19937 generator seeded by the
 * caller, in a fixed order, so a seed gives the same rows everywhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tabular_internal.h"

/* Levels in strcmp order, as pred_table_read would sort them. */
static const char *const ARCHS[] = {"cnn", "mlp", "rnn", "transformer"};
static const char *const PRECISIONS[] = {"bf16", "fp16", "fp32"};
static const char *const OPTIMIZERS[] = {"adam", "momentum", "sgd"};

enum { ARCH_CNN, ARCH_MLP, ARCH_RNN, ARCH_TRANSFORMER, NARCH };

static int find(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* ---- Hu's schema: GPU compute demand of a training job in GFLOPs ------ */

double pred_flops_per_sample(const char *arch, double params_m, int num_layers,
                             int input_dim)
{
    int a = find(ARCHS, NARCH, arch);
    if (a < 0 || num_layers < 1)
        return NAN;
    double p = params_m * 1e6, s = input_dim;
    /* Uses of each weight per sample: once for an MLP, once per token for
     * sequence models, once per output position of a CNN, whose feature
     * maps average (input_dim / 16)^2 positions. */
    double reuse = a == ARCH_MLP ? 1 : a == ARCH_CNN ? (s / 16) * (s / 16) : s;
    /* Forward 2 and backward 4 FLOPs per weight use (Kaplan et al. 2020,
     * C = 6N per token). */
    double per_sample = 6 * p * reuse;
    if (a == ARCH_TRANSFORMER) {
        /* Attention scores and their use: 6 * layers * ctx * d per token
         * (Kaplan et al., Table 1), d from params = 12 * layers * d^2. */
        double d = sqrt(p / (12.0 * num_layers));
        per_sample += 6.0 * num_layers * s * d * s;
    }
    return per_sample;
}

double pred_synth_gflops(const struct pred_gflops_job *j)
{
    int opt = find(OPTIMIZERS, 3, j->optimizer);
    int prec = find(PRECISIONS, 3, j->precision);
    double per_sample = pred_flops_per_sample(j->model_type, j->params_m,
                                              j->num_layers, j->input_dim);
    if (opt < 0 || prec < 0 || isnan(per_sample))
        return NAN;
    double p = j->params_m * 1e6;
    /* Optimizer update, FLOPs per weight per step: SGD 2, momentum 4,
     * Adam 12; mixed precision adds 4 (unscale, check, cast master). */
    static const double opt_flops[] = {12, 4, 2};
    double update = p * (opt_flops[opt] + (prec == 2 ? 0 : 4));
    return (double)j->iterations *
           ((double)j->batch_size * per_sample + update) / 1e9;
}

int pred_physics(const struct pred_physics_in *in, double *compute_ms,
                 double *memory_ms)
{
    double f = pred_flops_per_sample(in->arch, in->params_m, in->num_layers,
                                     in->input_dim);
    if (isnan(f) || !(in->tflops > 0) || !(in->bandwidth_gbs > 0) ||
        in->batch_size < 1)
        return -1;
    /* FLOPs of one step on one GPU over its peak rate; 16 bytes a weight
     * (weights, gradients, two Adam moments: ZeRO, section 3.1) moved once
     * a step over its memory bandwidth. */
    *compute_ms = f * in->batch_size / (in->tflops * 1e12) * 1e3;
    *memory_ms = 16 * in->params_m * 1e6 / (in->bandwidth_gbs * 1e9) * 1e3;
    return 0;
}

/* ---- Wang et al.'s schema: peak GPU memory of a training job in MiB --- */

double pred_synth_memory_mb(const struct pred_memory_job *j)
{
    int a = find(ARCHS, NARCH, j->model_arch);
    int prec = find(PRECISIONS, 3, j->precision);
    if (a < 0 || prec < 0 || j->num_layers < 1)
        return NAN;
    double p = j->num_params, ppl = p / j->num_layers, s = j->input_dim;
    /* Weights, gradients and Adam's two moments: 16 bytes per parameter in
     * fp32 (4 + 4 + 8) and in mixed precision (2 + 2 + 4 master + 8;
     * Rajbhandari et al., ZeRO, SC'20, section 3.1). */
    double states = 16 * p;
    /* Layer width from parameters per layer (MLP d^2, 3x3 conv 9c^2,
     * LSTM 8d^2, Transformer 12d^2), positions per sample, and values
     * stored per position per layer for the backward pass. */
    double d, positions, values;
    switch (a) {
    case ARCH_MLP: d = sqrt(ppl), positions = 1, values = 2 * d; break;
    case ARCH_CNN: /* conv, batch norm and ReLU outputs */
        d = sqrt(ppl / 9), positions = (s / 8) * (s / 8), values = 3 * d;
        break;
    case ARCH_RNN: /* four gates, cell and hidden state per step */
        d = sqrt(ppl / 8), positions = s, values = 6 * d;
        break;
    default: /* 34sbh + 5as^2b bytes at 2 bytes a value, heads a = d/64
                (Korthikanti et al., MLSys'23, section 4.1) */
        d = sqrt(ppl / 12), positions = s;
        values = 17 * d + 2.5 * (d / 64) * s;
        break;
    }
    double bytes = prec == 2 ? 4 : 2;
    double act =
        PRED_SYNTH_MEM_BATCH * positions * values * j->num_layers * bytes;
    /* 512 MiB for the CUDA context and cuDNN/cuBLAS workspaces. */
    return (states + act) / (1024.0 * 1024.0) + 512;
}

/* ---- Drawing jobs ----------------------------------------------------- */

static double log_uniform(gsl_rng *r, double lo, double hi)
{
    return exp(gsl_ran_flat(r, log(lo), log(hi)));
}

static int uniform_int(gsl_rng *r, int lo, int hi)
{
    return lo + (int)gsl_rng_uniform_int(r, (unsigned long)(hi - lo + 1));
}

/* X rounded as printf's FMT writes it, so that the CSV text and the value
 * the target was computed from are the same number: DIGITS after the
 * point, or SIGNIFICANT digits. */
static double rounded(double x, int digits, int significant)
{
    char buf[64];
    if (significant)
        snprintf(buf, sizeof buf, "%.*g", digits, x);
    else
        snprintf(buf, sizeof buf, "%.*f", digits, x);
    return strtod(buf, NULL);
}

static const struct pred_feature GFLOPS_FEAT[] = {
    {"model_type", 4, ARCHS},     {"params_m", 0, NULL},
    {"batch_size", 0, NULL},      {"input_dim", 0, NULL},
    {"num_layers", 0, NULL},      {"iterations", 0, NULL},
    {"precision", 3, PRECISIONS}, {"optimizer", 3, OPTIMIZERS},
    {"learning_rate", 0, NULL},
};
static const struct pred_feature MEMORY_FEAT[] = {
    {"input_dim", 0, NULL},       {"model_arch", 4, ARCHS},
    {"num_layers", 0, NULL},      {"num_params", 0, NULL},
    {"precision", 3, PRECISIONS}, {"params_per_layer", 0, NULL},
};

static double draw_gflops(gsl_rng *r, double *x)
{
    static const int lo_layers[] = {8, 2, 1, 2}, hi_layers[] = {101, 8, 8, 48};
    static const double lo_p[] = {1, 0.1, 1, 5}, hi_p[] = {150, 50, 100, 1500};
    static const int images[] = {32, 64, 128, 224, 256, 384};
    static const int contexts[] = {128, 256, 512, 1024, 2048};
    int a = uniform_int(r, 0, NARCH - 1);
    struct pred_gflops_job j = {.model_type = ARCHS[a]};
    j.params_m = rounded(log_uniform(r, lo_p[a], hi_p[a]), 2, 0);
    j.batch_size = 1 << uniform_int(r, 3, 9);
    j.input_dim = a == ARCH_CNN           ? images[uniform_int(r, 0, 5)]
                  : a == ARCH_TRANSFORMER ? contexts[uniform_int(r, 0, 4)]
                  : a == ARCH_MLP         ? (int)log_uniform(r, 32, 4096)
                                          : uniform_int(r, 16, 512);
    j.num_layers = uniform_int(r, lo_layers[a], hi_layers[a]);
    j.iterations = (int)rounded(log_uniform(r, 100, 10000), 0, 0);
    int prec = uniform_int(r, 0, 2), opt = uniform_int(r, 0, 2);
    j.precision = PRECISIONS[prec];
    j.optimizer = OPTIMIZERS[opt];
    j.learning_rate = rounded(log_uniform(r, 1e-5, 1e-1), 3, 1);
    double v[] = {a,           j.params_m,   j.batch_size,
                  j.input_dim, j.num_layers, j.iterations,
                  prec,        opt,          j.learning_rate};
    memcpy(x, v, sizeof v);
    return pred_synth_gflops(&j);
}

static double draw_memory(gsl_rng *r, double *x)
{
    static const int lo_layers[] = {8, 2, 1, 2}, hi_layers[] = {100, 12, 6, 32};
    static const double lo_ppl[] = {1e4, 1e4, 1e4, 1e5};
    static const double hi_ppl[] = {2.5e6, 1e7, 1.6e7, 3e7};
    static const int images[] = {32, 64, 128, 224, 256};
    static const int contexts[] = {64, 128, 256, 512};
    int a = uniform_int(r, 0, NARCH - 1);
    struct pred_memory_job j = {.model_arch = ARCHS[a]};
    j.input_dim = a == ARCH_CNN           ? images[uniform_int(r, 0, 4)]
                  : a == ARCH_TRANSFORMER ? contexts[uniform_int(r, 0, 3)]
                  : a == ARCH_MLP         ? (int)log_uniform(r, 16, 4096)
                                          : uniform_int(r, 16, 512);
    j.num_layers = uniform_int(r, lo_layers[a], hi_layers[a]);
    double ppl = rounded(log_uniform(r, lo_ppl[a], hi_ppl[a]), 0, 0);
    j.num_params = ppl * j.num_layers;
    int prec = uniform_int(r, 0, 2);
    j.precision = PRECISIONS[prec];
    double v[] = {j.input_dim, a, j.num_layers, j.num_params, prec, ppl};
    memcpy(x, v, sizeof v);
    return pred_synth_memory_mb(&j);
}

struct pred_table *pred_synth(enum pred_synth_schema s, size_t rows,
                              unsigned long seed, double noise)
{
    int gf = s == PRED_SYNTH_GFLOPS;
    struct pred_schema sc = {gf ? 9 : 6, gf ? GFLOPS_FEAT : MEMORY_FEAT};
    struct pred_table *t =
        pred_table_new(rows, &sc, gf ? "gpu_demand_gflops" : "memory_mb");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!t || !r) {
        pred_table_destroy(t);
        gsl_rng_free(r);
        return NULL;
    }
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < rows; i++) {
        double *x = t->x + i * (size_t)sc.nfeat;
        double y = gf ? draw_gflops(r, x) : draw_memory(r, x);
        t->y[i] = y * exp(gsl_ran_gaussian(r, noise));
    }
    gsl_rng_free(r);
    return t;
}
