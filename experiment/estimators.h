/* estimators.h -- the predictors `hetsim run --estimates` puts in the loop
 * (struct sim_estimator of sim.h): `history` (running means of finished
 * jobs) and `predictor:MODEL.bin` (a trained model of predictor/, asked
 * through a cache keyed by the job's features). Internal to the CLI. */
#ifndef HETSIM_CLI_ESTIMATORS_H
#define HETSIM_CLI_ESTIMATORS_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "traces.h"

/* What identifies a job to a model: the features that do not depend on
 * the GPU type (the cluster's GPU facts are the same for every job). Every
 * model fact follows from the job type (traces/model_facts.c), so the job
 * type's pool id and the GPU count are the whole tuple. */
struct est_key {
    uint32_t job_type;
    int32_t num_gpus;
};

/* Cached answers by key: an open-addressing table. */
struct est_memo {
    struct est_key *keys;       /* (cap) */
    struct sim_estimate *vals;  /* (cap) per type: seconds per step */
    uint8_t *used;              /* (cap) */
    size_t cap, len;
};

/* The slot of KEY: *found says whether it held an answer already; NULL
 * when out of memory. A new slot must be filled by the caller. */
struct sim_estimate *est_memo_slot(struct est_memo *m,
                                   const struct est_key *key, int *found);
void est_memo_free(struct est_memo *m);

/* `history`: groups by user or vc. */
enum est_history_by { EST_BY_USER, EST_BY_VC };

/* A model of predictor/ and how to build its rows (est_predictor.c). */
struct est_model;

struct cli_estimator {
    struct sim_estimator hooks;
    const struct trace *trace;
    const struct cluster *cluster;
    /* history */
    enum est_history_by by;
    double *sum_s;      /* (ngroups) finished jobs' run time by group */
    uint64_t *count;    /* (ngroups) */
    uint32_t *group_of; /* (strings) group of a pool id, or UINT32_MAX */
    size_t ngroups, nstrings;
    double all_sum_s;
    uint64_t all_count;
    double prior_s;     /* estimate while nothing has finished */
    /* predictor */
    struct est_model *runtime, *memory;
    struct est_model *util; /* GPU utilization (0..1), or NULL */
    struct est_memo memo;
    /* figures for summary.json and perf.json */
    uint64_t calls, hits;
    double wall_s;
    char error[256]; /* why a prediction failed, or "" */
};

/* Makes E a `history` estimator over trace T. 0, or -1 out of memory. */
int est_history_init(struct cli_estimator *e, const struct trace *t,
                     const struct cluster *c, enum est_history_by by,
                     double prior_s);

/* Makes E a `predictor` estimator: RUNTIME_PATH predicts throughput
 * (steps/s), MEMORY_PATH (may be NULL) peak GPU memory per GPU (MB).
 * An exit code, having printed why when it is not CLI_OK. */
int est_predictor_init(struct cli_estimator *e, const struct trace *t,
                       const struct cluster *c, const char *runtime_path,
                       const char *memory_path, const char *trace_path);

/* Adds a GPU utilization model (UTIL_PATH, a fraction 0..1 of the GPU
 * a job of a type uses alone, asked on the cluster's reference type) to
 * predictor estimator E; util-pack co-locates by what it says. */
int est_predictor_add_util(struct cli_estimator *e, const char *util_path);

void est_free(struct cli_estimator *e);

/* est_quality.c: the estimate-quality and predictor figures of W's run,
 * into summary.json object O and as lines of hetsim run's table. */
struct cJSON;
struct workload;
void cli_add_estimate_quality(struct cJSON *o, const struct workload *w);
void cli_print_estimates(const struct workload *w);

/* A checkpoint of predictor/ whose every feature hetsim can fill from a
 * trace job (README, "Features per trace format"); NULL with WHY filled. */
struct est_model *est_model_load(const char *path, char *why, size_t cap);
void est_model_destroy(struct est_model *m);

#endif
