/* est_predictor.c -- `--estimates predictor:MODEL.bin[,memory=MODEL2.bin]`:
 * trained models of predictor/ asked on every arrival.
 *
 * A model's checkpoint names its features; each must be one hetsim can
 * fill from a trace job: its job type's model facts (traces/model_facts.c),
 * its GPU count, and the facts of the cluster's GPU type the row is about
 * (README, "Features per trace format"). A job's answer depends only on
 * its job type and GPU count, which form the cache key; on a miss the
 * run-time model is asked once for all the cluster's GPU types (one batch
 * of rows) and the memory model once. Real traces repeat a few
 * configurations (Gavel's 2,000 jobs: 26 job types at 1 to 8 GPUs), so
 * nearly every arrival is a hit. The run-time model predicts throughput in
 * steps per second, as in `hetsim dataset gavel`; a job's run time on a
 * type is its steps over that. Any model file of `hetsim predictor train`
 * works: the Transformer-BiGRU or a baseline (XGBoost, ...). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimators.h"
#include "predictor.h"
#include "predictor_cmd.h"

/* Where the value of one model feature comes from. */
enum feat_src {
    F_JOB_TYPE, F_FAMILY, F_TASK, F_ARCH, F_PRECISION, F_GPU_TYPE, /* text */
    F_BATCH, F_PARAMS_M, F_NUM_PARAMS, F_LAYERS, F_PARAMS_PER_LAYER,
    F_INPUT_DIM, F_GPU_COUNT, F_GPU_MEMORY_GB, F_GPU_TFLOPS, F_GPU_BW,
    F_RUNNABLE,
};
#define F_FIRST_NUMBER F_BATCH

/* Feature names as `hetsim dataset gavel` and `dataset synth` write them. */
static const struct {
    const char *name;
    enum feat_src src;
} feature_names[] = {
    {"job_type", F_JOB_TYPE},       {"model_family", F_FAMILY},
    {"domain", F_TASK},             {"model_arch", F_ARCH},
    {"model_type", F_ARCH},         {"precision", F_PRECISION},
    {"gpu_type", F_GPU_TYPE},       {"batch_size", F_BATCH},
    {"params_m", F_PARAMS_M},       {"num_params", F_NUM_PARAMS},
    {"layers", F_LAYERS},           {"num_layers", F_LAYERS},
    {"params_per_layer", F_PARAMS_PER_LAYER},
    {"input_dim", F_INPUT_DIM},     {"gpu_count", F_GPU_COUNT},
    {"num_gpus", F_GPU_COUNT},      {"gpu_memory_gb", F_GPU_MEMORY_GB},
    {"gpu_tflops_fp32", F_GPU_TFLOPS}, {"gpu_bandwidth_gbs", F_GPU_BW},
    {"runnable", F_RUNNABLE},
};
#define NFEATURE_NAMES (sizeof feature_names / sizeof feature_names[0])

struct est_model {
    struct pmodel m;
    const struct pred_schema *schema;
    int nfeat;
    enum feat_src src[PRED_MAX_FEATURES];
};

struct est_model *est_model_load(const char *path, char *why, size_t cap)
{
    struct est_model *em = calloc(1, sizeof *em);
    if (!em) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    char *target = NULL;
    int rc = pmodel_load(&em->m, path, &target, why, cap);
    free(target);
    if (rc)
        goto fail;
    em->schema = pmodel_schema(&em->m);
    em->nfeat = em->schema->nfeat;
    for (int i = 0; i < em->nfeat; i++) {
        const struct pred_feature *f = &em->schema->feat[i];
        size_t k = 0;
        while (k < NFEATURE_NAMES && strcmp(feature_names[k].name, f->name))
            k++;
        if (k == NFEATURE_NAMES) {
            snprintf(why, cap, "the model reads feature '%s', which hetsim "
                     "cannot fill from a trace job (docs/predictor.md, \"Features per "
                     "trace format\")", f->name);
            goto fail;
        }
        em->src[i] = feature_names[k].src;
        if ((em->src[i] < F_FIRST_NUMBER) != (f->nlevels > 0)) {
            snprintf(why, cap, "feature '%s' is %s in the model but %s in "
                     "hetsim's trace features", f->name,
                     f->nlevels > 0 ? "categorical" : "numeric",
                     f->nlevels > 0 ? "numeric" : "categorical");
            goto fail;
        }
    }
    return em;
fail:
    est_model_destroy(em);
    return NULL;
}

void est_model_destroy(struct est_model *m)
{
    if (!m)
        return;
    pmodel_free(&m->m);
    free(m);
}

/* What a row says of one job type on one GPU type: the facts of
 * traces/model_facts.c, the table `hetsim dataset gavel` writes its columns
 * from, so that a model sees in the loop what it was trained on; GPU facts
 * of a type that table does not know come from the cluster. */
struct job_feats {
    const char *job_type, *family, *task, *arch;
    double params_m, layers, batch, input_dim;
};

struct gpu_feats {
    char name[32]; /* lower case, as Gavel's workers */
    double memory_gb, tflops, bandwidth_gbs;
};

static int job_feats_of(const char *jt, struct job_feats *out)
{
    struct trace_model_facts f;
    if (trace_model_facts(jt, &f) != 0)
        return -1;
    *out = (struct job_feats){jt, f.family, f.task, f.arch, f.params_m,
                              f.layers, f.batch_size, f.input_dim};
    return 0;
}

static void gpu_feats_of(const struct gpu_type *t, struct gpu_feats *out)
{
    size_t i = 0;
    for (; t->name[i] && i + 1 < sizeof out->name; i++)
        out->name[i] = (char)tolower((unsigned char)t->name[i]);
    out->name[i] = '\0';
    const struct trace_gpu_facts *g = trace_gpu_facts(out->name);
    out->memory_gb = g ? g->memory_gb : t->memory_mb / 1024;
    out->tflops = g ? g->tflops_fp32 : t->tflops_fp32;
    out->bandwidth_gbs = g ? g->bandwidth_gbs : t->mem_bw_gbs;
}

static const char *text_of(enum feat_src src, const struct job_feats *j,
                           const struct gpu_feats *g)
{
    switch (src) {
    case F_JOB_TYPE: return j->job_type;
    case F_FAMILY: return j->family;
    case F_TASK: return j->task;
    case F_ARCH: return j->arch;
    case F_PRECISION: return "fp32"; /* Gavel's workloads train in fp32 */
    default: return g->name;         /* F_GPU_TYPE */
    }
}

static double number_of(enum feat_src src, const struct job_feats *j,
                        int32_t num_gpus, const struct gpu_feats *g)
{
    switch (src) {
    case F_BATCH: return j->batch;
    case F_PARAMS_M: return j->params_m;
    case F_NUM_PARAMS: return j->params_m * 1e6;
    case F_LAYERS: return j->layers;
    case F_PARAMS_PER_LAYER: return j->params_m * 1e6 / j->layers;
    case F_INPUT_DIM: return j->input_dim;
    case F_GPU_COUNT: return num_gpus;
    case F_GPU_MEMORY_GB: return g->memory_gb;
    case F_GPU_TFLOPS: return g->tflops;
    case F_GPU_BW: return g->bandwidth_gbs;
    default: return 1; /* F_RUNNABLE: asked about a type it runs on */
    }
}

/* The row of model EM for job type J on NUM_GPUS GPUs of type G. */
static void fill_row(const struct est_model *em, double *row,
                     const struct job_feats *j, int32_t num_gpus,
                     const struct gpu_feats *g)
{
    for (int i = 0; i < em->nfeat; i++) {
        enum feat_src src = em->src[i];
        row[i] = src < F_FIRST_NUMBER
                     ? pred_schema_level(em->schema, i, text_of(src, j, g))
                     : number_of(src, j, num_gpus, g);
    }
}

/* Asks the models about a job of type JT on NUM_GPUS GPUs: seconds per
 * step on each GPU type (0 where the throughput predicted is not > 0) and
 * memory into *V. 0, or SIM_EINVAL when a model fails. */
static int ask_models(struct cli_estimator *e, const char *jt,
                      int32_t num_gpus, struct sim_estimate *v)
{
    struct job_feats f;
    struct gpu_feats g[SIM_MAX_GPU_TYPES];
    int32_t nt = e->cluster->ntypes;
    double rows[SIM_MAX_GPU_TYPES * 64], out[SIM_MAX_GPU_TYPES];
    double *x = rows;
    memset(v, 0, sizeof *v);
    if (job_feats_of(jt, &f) != 0)
        return SIM_EINVAL; /* checked before the run */
    for (int32_t t = 0; t < nt; t++)
        gpu_feats_of(&e->cluster->types[t], &g[t]);
    if (e->runtime) {
        size_t need = (size_t)nt * (size_t)e->runtime->nfeat;
        if (need > sizeof rows / sizeof rows[0] &&
            !(x = malloc(need * sizeof *x)))
            return SIM_ENOMEM;
        for (int32_t t = 0; t < nt; t++)
            fill_row(e->runtime, x + (size_t)t * (size_t)e->runtime->nfeat,
                     &f, num_gpus, &g[t]);
        int rc = pmodel_predict(&e->runtime->m, x, (size_t)nt, out,
                                e->error, sizeof e->error);
        if (x != rows)
            free(x);
        if (rc)
            return SIM_EINVAL;
        for (int32_t t = 0; t < nt; t++)
            v->runtime_s[t] = out[t] > 0 ? 1 / out[t] : 0;
    }
    if (e->memory) {
        /* Memory needs no GPU facts; rows that ask are given the first
         * type's. */
        double *row = e->memory->nfeat <= 64
                          ? rows
                          : malloc((size_t)e->memory->nfeat * sizeof *row);
        if (!row)
            return SIM_ENOMEM;
        fill_row(e->memory, row, &f, num_gpus, &g[0]);
        int rc = pmodel_predict(&e->memory->m, row, 1, out, e->error,
                                sizeof e->error);
        if (row != rows)
            free(row);
        if (rc)
            return SIM_EINVAL;
        v->mem_mb = out[0] > 0 ? out[0] : 0;
    }
    v->gpu_util = -1;
    if (e->util) {
        double row[64];
        if (e->util->nfeat > 64)
            return SIM_EINVAL; /* checked when loaded */
        fill_row(e->util, row, &f, num_gpus, &g[e->cluster->reference]);
        if (pmodel_predict(&e->util->m, row, 1, out, e->error,
                           sizeof e->error))
            return SIM_EINVAL;
        v->gpu_util = out[0] < 0 ? 0 : out[0] > 1 ? 1 : out[0];
    }
    return 0;
}

static int predictor_estimate(void *ctx, const struct sim *s, uint32_t job,
                              struct sim_estimate *out)
{
    struct cli_estimator *e = ctx;
    double t0 = cli_clock();
    const struct trace_job *tj = &e->trace->jobs[sim_job(s, job)->trace_index];
    struct est_key key = {tj->job_type, tj->num_gpus};
    int found;
    struct sim_estimate *v = est_memo_slot(&e->memo, &key, &found);
    if (!v)
        return SIM_ENOMEM;
    e->calls++;
    e->hits += (uint64_t)found;
    if (!found) {
        int rc = ask_models(e, trace_str(e->trace, tj->job_type),
                            tj->num_gpus, v);
        if (rc)
            return rc;
    }
    for (int32_t t = 0; t < e->cluster->ntypes; t++)
        out->runtime_s[t] = v->runtime_s[t] * (double)tj->iterations;
    out->mem_mb = v->mem_mb;
    out->gpu_util = v->gpu_util;
    e->wall_s += cli_clock() - t0;
    return 0;
}

/* Every job must be of a Gavel job type hetsim has facts for, and have
 * steps when run times are predicted. An exit code, having said why. */
static int check_jobs(const struct trace *t, int need_steps, const char *src)
{
    struct trace_model_facts f;
    for (size_t i = 0; i < t->njobs; i++) {
        const struct trace_job *tj = &t->jobs[i];
        const char *jt = trace_str(t, tj->job_type);
        const char *what = NULL;
        if (tj->job_type == TRACE_NOSTR)
            what = "has no job_type, so a model has no features to read";
        else if (trace_model_facts(jt, &f) != 0)
            what = "is of a job type with no model facts in "
                   "traces/model_facts.c";
        else if (need_steps && tj->iterations <= 0)
            what = "has no iterations (training steps) to turn a "
                   "predicted throughput into a run time";
        if (what) {
            char text[512];
            snprintf(text, sizeof text, "job \"%s\" %s (docs/predictor.md, \"Features "
                     "per trace format\"); --estimates history needs no "
                     "features", trace_str(t, tj->id), what);
            cli_error_at(src, (long)tj->line, 0, text);
            return CLI_BAD_INPUT;
        }
    }
    return CLI_OK;
}

int est_predictor_add_util(struct cli_estimator *e, const char *util_path)
{
    char why[512];
    if (!(e->util = est_model_load(util_path, why, sizeof why))) {
        cli_error("%s: %s", util_path, why);
        return CLI_BAD_INPUT;
    }
    if (e->util->nfeat > 64) {
        cli_error("%s: more than 64 features", util_path);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int est_predictor_init(struct cli_estimator *e, const struct trace *t,
                       const struct cluster *c, const char *runtime_path,
                       const char *memory_path, const char *trace_path)
{
    memset(e, 0, sizeof *e);
    e->trace = t;
    e->cluster = c;
    e->hooks = (struct sim_estimator){"predictor", e, predictor_estimate,
                                      NULL};
    char why[512];
    const char *paths[2] = {runtime_path, memory_path};
    struct est_model **models[2] = {&e->runtime, &e->memory};
    for (int i = 0; i < 2; i++) {
        if (paths[i] && !(*models[i] = est_model_load(paths[i], why,
                                                      sizeof why))) {
            cli_error("%s: %s", paths[i], why);
            return CLI_BAD_INPUT;
        }
    }
    return check_jobs(t, runtime_path != NULL, trace_path);
}
