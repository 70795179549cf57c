/* workload.c -- from a trace (and maybe a throughput matrix) to the jobs
 * and job classes of the engine.
 *
 * With a matrix, a job whose job_type the matrix knows runs total_steps at
 * the measured steps/s of (job_type, num_gpus) on each GPU type: one class
 * per (job_type, num_gpus). Every other job runs `duration` seconds on the
 * reference type, scaled by the cluster's speeds (class 0).
 *
 * Memory: a job needs its gpu_mem_mb on each GPU. Without that column, a
 * class the matrix measures at 0 steps/s on a type with less memory than
 * every type where it runs is taken to run out of memory there: it needs
 * the smallest memory of the types where it runs, and a scheduler that
 * does not know this believes it would run at the cluster's speed ratio
 * (README, "Memory"). */
#include <strings.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimators.h"

/* What `history` says before any job has finished: a round placeholder of
 * one hour. Any constant ranks those first jobs alike; it matters only
 * against estimates made later from finished jobs. */
#define HISTORY_PRIOR_S 3600.0

/* The matrix's worker type for each GPU type of C (names compared without
 * case: V100 = v100), or NULL when the matrix did not measure it. */
static void map_workers(const struct cluster *c,
                        const struct trace_throughputs *m,
                        const char *worker[SIM_MAX_GPU_TYPES])
{
    for (int32_t t = 0; t < c->ntypes; t++) {
        worker[t] = NULL;
        for (size_t i = 0; trace_throughputs_worker(m, i); i++)
            if (strcasecmp(trace_throughputs_worker(m, i), c->types[t].name) ==
                0)
                worker[t] = trace_throughputs_worker(m, i);
    }
}

static int32_t *class_slot(struct cli_class_map *cm, uint64_t key)
{
    if (2 * (cm->len + 1) > cm->cap) {
        size_t cap = cm->cap ? 2 * cm->cap : 64;
        uint64_t *keys = calloc(cap, sizeof *keys);
        int32_t *ids = malloc(cap * sizeof *ids);
        if (!keys || !ids) {
            free(keys);
            free(ids);
            return NULL;
        }
        for (size_t i = 0; i < cm->cap; i++) {
            if (!cm->keys[i])
                continue;
            size_t h = (size_t)(cm->keys[i] * 0x9E3779B97F4A7C15u) & (cap - 1);
            while (keys[h])
                h = (h + 1) & (cap - 1);
            keys[h] = cm->keys[i];
            ids[h] = cm->ids[i];
        }
        free(cm->keys);
        free(cm->ids);
        cm->keys = keys;
        cm->ids = ids;
        cm->cap = cap;
    }
    size_t h = (size_t)((key + 1) * 0x9E3779B97F4A7C15u) & (cm->cap - 1);
    while (cm->keys[h] && cm->keys[h] != key + 1)
        h = (h + 1) & (cm->cap - 1);
    if (!cm->keys[h]) {
        cm->keys[h] = key + 1;
        cm->ids[h] = -1;
        cm->len++;
    }
    return &cm->ids[h];
}

/* The memory need a class's 0 steps/s entries (ZERO, one node) imply, or
 * 0: the smallest memory of the types where it runs, when every such zero
 * type has less. Those types then get the run time a scheduler would
 * believe from the cluster's speeds, so that one may try them and fail. */
static double memory_from_zeros(const struct cluster *c,
                                struct sim_class_spec *spec,
                                const uint8_t *zero)
{
    double fits = INFINITY, below = 0;
    /* the type the believed speeds scale from: the reference, else the
     * first type where the class runs */
    int32_t base = spec->unit_s[c->reference] > 0 ? c->reference : -1;
    for (int32_t g = 0; g < c->ntypes; g++) {
        if (spec->unit_s[g] > 0 && base < 0)
            base = g;
        if (spec->unit_s[g] > 0 && c->types[g].memory_mb < fits)
            fits = c->types[g].memory_mb;
        if (zero[g] && c->types[g].memory_mb > below)
            below = c->types[g].memory_mb;
    }
    if (base < 0 || below == 0 || !(below < fits))
        return 0; /* no zero, or memory does not explain them */
    for (int32_t g = 0; g < c->ntypes; g++) {
        if (!zero[g])
            continue;
        double ratio = c->types[base].speed / c->types[g].speed;
        spec->unit_s[g] = spec->unit_s[base] * ratio;
        if (spec->spread_unit_s[base] > 0)
            spec->spread_unit_s[g] = spec->spread_unit_s[base] * ratio;
    }
    return fits;
}

/* The class of JOB_TYPE at N GPUs, made on first use. Returns the class,
 * -1 when the matrix does not know the job type, or -2 out of memory. */
static int32_t class_of(struct workload *w, const struct trace *t,
                        const struct trace_job *tj)
{
    uint64_t key = (uint64_t)tj->job_type << 32 | (uint32_t)tj->num_gpus;
    int32_t *slot = class_slot(&w->classes, key);
    if (!slot)
        return -2;
    if (*slot != -1)
        return *slot;
    const char *jt = trace_str(t, tj->job_type);
    struct sim_class_spec spec;
    memset(&spec, 0, sizeof spec);
    int known = 0;
    uint32_t fill_one = 0, fill_spread = 0;
    const struct cluster *c = w->cluster;
    uint8_t zero[SIM_MAX_GPU_TYPES] = {0};
    double rate[SIM_MAX_GPU_TYPES] = {0}; /* steps/s as measured (gavel:*) */
    for (int32_t g = 0; g < w->cluster->ntypes; g++) {
        double thr;
        for (int spread = 0; spread < 2 && w->worker[g]; spread++) {
            int rc = trace_throughput(w->matrix, w->worker[g], jt, tj->num_gpus,
                                      spread, &thr);
            if (rc < 0)
                continue;
            known = 1;
            /* a filled spread value matters only where the job can be
               spread: more than one GPU, several servers, not 0 */
            if (rc == 1 && !spread)
                fill_one |= 1u << g;
            else if (rc == 1 && tj->num_gpus > 1 && thr > 0 &&
                     c->types[g].gpus > c->types[g].max_per_node)
                fill_spread |= 1u << g;
            zero[g] |= (uint8_t)(!spread && thr == 0);
            (spread ? spec.spread_unit_s : spec.unit_s)[g] =
                thr > 0 ? 1 / thr : 0;
            if (!spread)
                rate[g] = thr > 0 ? thr : 0;
        }
    }
    if (!known) {
        *slot = -3;
        return -1;
    }
    double need = memory_from_zeros(w->cluster, &spec, zero);
    if (sim_add_class(w->sim, &spec, slot) != 0 ||
        sim_set_class_rate(w->sim, *slot, rate) != 0)
        return -2;
    if ((size_t)*slot >= w->fallback_cap) {
        size_t cap = 2 * (size_t)*slot + 16;
        uint8_t *f = realloc(w->fallback, cap);
        if (f)
            w->fallback = f;
        double *m = realloc(w->class_mem, cap * sizeof *m);
        if (m)
            w->class_mem = m;
        int32_t *fi = realloc(w->fill_index, cap * sizeof *fi);
        if (fi)
            w->fill_index = fi;
        if (!f || !m || !fi)
            return -2;
        memset(f + w->fallback_cap, 0, cap - w->fallback_cap);
        for (size_t i = w->fallback_cap; i < cap; i++)
            m[i] = 0;
        w->fallback_cap = cap;
    }
    w->fallback[*slot] = fill_one ? 1 : fill_spread ? 2 : 0;
    w->class_mem[*slot] = need;
    w->fill_index[*slot] = -1;
    if (fill_one || fill_spread) {
        struct cli_fill *fl = realloc(w->fills, (w->nfills + 1) * sizeof *fl);
        if (!fl)
            return -2;
        w->fills = fl;
        fl[w->nfills] = (struct cli_fill){tj->job_type, tj->num_gpus, fill_one,
                                          fill_spread, 0};
        w->fill_index[*slot] = (int32_t)w->nfills++;
    }
    return *slot;
}

/* est_work of a job whose true work is WORK (in its class's units). */
static double estimate(struct workload *w, gsl_rng *r, const struct sim *s,
                       const struct sim_job_spec *spec,
                       const struct trace_job *tj)
{
    switch (w->estimates) {
    case CLI_EST_ORACLE: return spec->work;
    case CLI_EST_NOISY:
        return spec->work * gsl_ran_lognormal(r, 0, w->noise_sigma);
    case CLI_EST_TRACE: {
        /* est_duration is seconds on the reference type, like duration. */
        double unit =
            sim_class(s, spec->job_class)->unit_s[w->cluster->reference];
        return tj->est_duration > 0 && unit > 0 ? tj->est_duration / unit : 0;
    }
    default: return 0;
    }
}

/* est_mem_mb of a job, like its est_work: the truth, the truth times
 * lognormal noise (drawn only for jobs with a memory need, so traces
 * without one draw as before), or the trace's gpu_mem_peak column. */
static double estimate_mem(struct workload *w, gsl_rng *r,
                           const struct sim_job_spec *spec,
                           const struct trace_job *tj)
{
    double peak = tj->use_peak[TRACE_USE_GPU_MEM];
    switch (w->estimates) {
    case CLI_EST_ORACLE: return spec->gpu_mem_mb;
    case CLI_EST_NOISY:
        return spec->gpu_mem_mb > 0
                   ? spec->gpu_mem_mb * gsl_ran_lognormal(r, 0, w->noise_sigma)
                   : 0;
    case CLI_EST_TRACE: return peak > 0 ? peak : 0;
    default: return 0;
    }
}

int cli_workload_build(struct workload *w, const struct trace *t,
                       const char *src)
{
    int rc = CLI_OK;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    /* Its own stream, so estimates do not shift other random choices. */
    gsl_rng_set(r, (unsigned long)(w->seed ^ 0x5eedE57u));
    if (w->matrix)
        map_workers(w->cluster, w->matrix, w->worker);
    for (size_t i = 0; i < t->njobs; i++) {
        const struct trace_job *tj = &t->jobs[i];
        int64_t mask = cli_allowed_types(
            w->cluster, trace_str(t, tj->gpu_types), src, (long)tj->line);
        if (mask < 0) {
            rc = CLI_BAD_INPUT;
            break;
        }
        struct sim_job_spec spec = {tj->submit_time,
                                    tj->duration,
                                    tj->num_gpus,
                                    (uint32_t)mask,
                                    (uint32_t)i,
                                    0,
                                    0,
                                    0,
                                    0};
        int32_t cls = -1;
        if (w->matrix && tj->job_type != TRACE_NOSTR && tj->iterations > 0)
            cls = class_of(w, t, tj);
        if (cls == -2) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
            break;
        }
        if (cls >= 0) {
            spec.job_class = cls;
            spec.work = (double)tj->iterations;
            spec.gpu_mem_mb = w->class_mem[cls];
            w->matrix_jobs++;
            if (w->fallback[cls]) {
                w->fallback_jobs++;
                w->fallback_spread_jobs += w->fallback[cls] == 2;
                w->fills[w->fill_index[cls]].jobs++;
            }
        } else if (!(tj->duration > 0)) {
            char text[320];
            snprintf(text, sizeof text, "job \"%s\" has no duration%s",
                     trace_str(t, tj->id),
                     w->matrix ? ", and the throughput matrix does not know "
                                 "its job type"
                               : ": pass --throughputs FILE to take run "
                                 "times from a throughput matrix");
            cli_error_at(src, (long)tj->line, 0, text);
            rc = CLI_BAD_INPUT;
            break;
        }
        if (tj->gpu_mem_mb > 0) /* the trace's figure wins */
            spec.gpu_mem_mb = tj->gpu_mem_mb;
        spec.est_work = estimate(w, r, w->sim, &spec, tj);
        spec.est_mem_mb = estimate_mem(w, r, &spec, tj);
        w->estimated_jobs += spec.est_work > 0;
        w->mem_jobs += spec.gpu_mem_mb > 0;
        if (sim_add_job(w->sim, &spec) != 0) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
            break;
        }
        double ov =
            tj->job_type == TRACE_NOSTR
                ? -1
                : cluster_job_overhead(w->cluster, trace_str(t, tj->job_type));
        if (ov >= 0)
            sim_set_job_restart_overhead(w->sim, (uint32_t)i, ov);
    }
    gsl_rng_free(r);
    return rc;
}

int cli_workload_estimator(struct workload *w, const struct run_config *cfg,
                           const struct trace *t)
{
    if (cfg->estimates != CLI_EST_HISTORY &&
        cfg->estimates != CLI_EST_PREDICTOR)
        return CLI_OK;
    struct cli_estimator *e = calloc(1, sizeof *e);
    if (!e) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    w->est = e;
    int rc = CLI_OK;
    if (cfg->estimates == CLI_EST_HISTORY) {
        if (est_history_init(e, t, w->cluster,
                             cfg->history_by_user ? EST_BY_USER : EST_BY_VC,
                             HISTORY_PRIOR_S) != 0) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
        }
    } else
        rc = est_predictor_init(e, t, w->cluster, cfg->est_model,
                                cfg->est_memory_model[0] ? cfg->est_memory_model
                                                         : NULL,
                                cfg->trace);
    if (rc)
        return rc;
    sim_set_estimator(w->sim, &e->hooks);
    w->estimated_jobs = sim_njobs(w->sim);
    return CLI_OK;
}

void cli_workload_free(struct workload *w)
{
    est_free(w->est);
    free(w->est);
    w->est = NULL;
    free(w->classes.keys);
    free(w->classes.ids);
    free(w->fallback);
    free(w->class_mem);
    free(w->fill_index);
    free(w->fills);
    w->fill_index = NULL;
    w->fills = NULL;
    w->nfills = 0;
    memset(&w->classes, 0, sizeof w->classes);
    w->fallback = NULL;
    w->class_mem = NULL;
    w->fallback_cap = 0;
}
