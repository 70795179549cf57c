/* tabular.h -- the tabular side of the predictor module: datasets read from
 * CSV, seeded splits, regression metrics, the synthetic datasets of the
 * papers' schemas, and the baselines (XGBoost through its C API, ridge
 * regression through GSL). Rows are arrays of NFEAT doubles as in
 * predictor.h: numeric values, or level codes for categorical columns.
 *
 * A second public header of the predictor module, kept apart from
 * predictor.h (the network) so that each stays near 200 lines. */
#ifndef HETSIM_PRED_TABULAR_H
#define HETSIM_PRED_TABULAR_H

#include <stddef.h>
#include <stdio.h>

#include "predictor.h"

/* Where reading failed: SOURCE:LINE (line 0: the file as a whole). */
struct pred_error {
    char source[256];
    long line;
    char text[256];
};

/* ---- Tables (table.c) ------------------------------------------------ */

struct pred_table {
    size_t n;     /* rows */
    int nfeat;    /* feature columns, in file order */
    double *x;    /* (n, nfeat) values or level codes (-1: unknown) */
    double *y;    /* (n) target, NULL when the table has none */
    long *line;   /* (n) line of each row in its file, 0 if made */
    char *target; /* target column name, NULL when none */
    struct pred_feature *feat; /* (nfeat) names and levels, owned */
    struct pred_schema schema; /* view of feat */
    size_t *group;      /* (n) code of the group column, NULL when none */
    char **group_names; /* (ngroups) sorted */
    size_t ngroups;
};

struct pred_table_opts {
    const char *target;      /* column to predict; NULL: none */
    int target_optional;     /* a missing target column is no error (the
                                table then has no y) */
    const char *categorical; /* comma list forced categorical; NULL */
    const char *drop;        /* comma list of columns ignored; NULL */
    const char *group;       /* column kept as row groups (may be dropped
                                as a feature); NULL */
    const char *keep;        /* "COL=VALUE": only rows whose cell in COL
                                is VALUE (as text); NULL: every row */
    const struct pred_schema *schema; /* non-NULL: the features and levels
                                of a trained model, found by name; a level
                                it does not know gets code -1 */
};

/* Reads the CSV file PATH (header row; RFC 4180 quotes; CRLF; BOM). Columns
 * that are not the target and not dropped become features: categorical
 * when listed in O->categorical or when any cell is not a number (levels
 * sorted by strcmp), numeric otherwise. Returns 0, or -1 with E filled
 * (missing file, bad record, unknown column, non-numeric target, empty
 * cell). */
int pred_table_read(const char *path, const struct pred_table_opts *o,
                    struct pred_table **out, struct pred_error *e);

/* An empty table of N rows with the given features (copied); Y allocated
 * when TARGET is not NULL. NULL when out of memory. */
struct pred_table *pred_table_new(size_t n, const struct pred_schema *s,
                                  const char *target);

/* Writes T as CSV (features, then the target) with numbers in their
 * shortest round-trip form; EXTRA_NAME/EXTRA (n values) add one column
 * when not NULL. Returns 0, or -1 on a write error. */
int pred_table_write_csv(const struct pred_table *t, FILE *f,
                         const char *extra_name, const double *extra);

/* Frees T; NULL is a no-op. */
void pred_table_destroy(struct pred_table *t);

/* Shortest text of X that strtod reads back exactly; BUF >= 32 bytes. */
char *pred_fmt_double(char *buf, double x);

/* ---- Splits and metrics (metrics.c) ---------------------------------- */

/* Writes a permutation of 0..N-1 drawn with SEED (GSL mt19937) to IDX and
 * returns how many lead it as the training part: round(TRAIN_FRAC * N),
 * at least 1 and at most N - 1 when N >= 2. */
size_t pred_split(size_t n, double train_frac, unsigned long seed, size_t *idx);

struct pred_metrics {
    double mse, rmse, mae;
    double mape; /* percent, over the rows with y != 0 */
    double r2;   /* 1 - SSE / SST; NAN when SST is 0 */
    size_t n, n_mape;
};

/* Metrics of predictions YHAT against Y (N >= 1 rows). */
void pred_metrics_compute(const double *y, const double *yhat, size_t n,
                          struct pred_metrics *m);

/* ---- Synthetic datasets (synth.c) ------------------------------------ */

enum pred_synth_schema { PRED_SYNTH_GFLOPS, PRED_SYNTH_MEMORY };

/* One job of Hu's schema. */
struct pred_gflops_job {
    const char *model_type; /* mlp, cnn, rnn, transformer */
    double params_m;
    int batch_size, input_dim, num_layers, iterations;
    const char *precision; /* fp32, fp16, bf16 */
    const char *optimizer; /* sgd, momentum, adam */
    double learning_rate;
};

/* One job of Wang et al.'s schema (Adam, batch PRED_SYNTH_MEM_BATCH). */
struct pred_memory_job {
    int input_dim;
    const char *model_arch; /* mlp, cnn, rnn, transformer */
    int num_layers;
    double num_params;
    const char *precision;
};
#define PRED_SYNTH_MEM_BATCH 32

/* The noise-free targets of the analytic models (README, "Synthetic
 * datasets"); NAN for an unknown name. */
double pred_synth_gflops(const struct pred_gflops_job *j);
double pred_synth_memory_mb(const struct pred_memory_job *j);

/* ROWS jobs drawn with SEED, targets times lognormal noise exp(N(0,
 * NOISE^2)). NULL when out of memory. */
struct pred_table *pred_synth(enum pred_synth_schema s, size_t rows,
                              unsigned long seed, double noise);

/* ---- Baselines (baseline.c, ridge.c, xgb.c) -------------------------- */

enum pred_base_kind {
    PRED_BASE_XGBOOST, /* gradient-boosted trees */
    PRED_BASE_RF,      /* XGBoost's random-forest mode */
    PRED_BASE_TREE,    /* one regression tree */
    PRED_BASE_LINEAR,  /* ridge regression, categoricals one-hot */
};

struct pred_base_params {
    int max_depth;    /* trees */
    double eta;       /* xgboost learning rate */
    int rounds;       /* xgboost rounds */
    int trees;        /* rf: trees of the forest */
    double subsample; /* rf: rows per tree */
    double colsample; /* rf: features per split */
    double lambda;    /* ridge penalty; XGBoost's L2 on leaf weights */
    int log_target;   /* fit log(y) (y > 0), predict exp */
    unsigned long seed;
    double *loss_out; /* optional, rounds entries: training RMSE per
                         xgboost round (in fitted units) */
};

/* Parses "xgboost", "rf", "tree", "linear". 0, or -1. */
int pred_base_parse(enum pred_base_kind *k, const char *name);
const char *pred_base_name(enum pred_base_kind k);
/* Defaults of KIND (README, "Baselines"). */
void pred_base_defaults(enum pred_base_kind k, struct pred_base_params *p);

struct pred_base;

/* Fits a baseline on N rows (X as in predictor.h, SCHEMA copied). NULL
 * with a message in ERR on failure. Deterministic for a given seed. */
struct pred_base *pred_base_fit(enum pred_base_kind k,
                                const struct pred_base_params *p,
                                const struct pred_schema *schema,
                                const double *x, const double *y, size_t n,
                                char *err, size_t errlen);
/* Predictions in original units. 0, or -1 with a message. */
int pred_base_predict(struct pred_base *b, const double *x, size_t n,
                      double *out, char *err, size_t errlen);
void pred_base_destroy(struct pred_base *b);
enum pred_base_kind pred_base_kind_of(const struct pred_base *b);
const struct pred_schema *pred_base_schema(const struct pred_base *b);

/* Model files of baselines: magic "HSBASE", version, kind, target name,
 * schema, then the model (XGBoost's JSON, or ridge coefficients). Save
 * writes PATH.tmp then renames. Load: NULL with a message when missing,
 * not such a file, of another version, or corrupt. */
int pred_base_save(const struct pred_base *b, const char *target,
                   const char *path, char *err, size_t errlen);
struct pred_base *pred_base_load(const char *path, char **target, char *err,
                                 size_t errlen);

#endif
