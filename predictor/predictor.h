/* predictor.h -- the resource predictor module's one public header.
 *
 * Part 1, the network: a Transformer-BiGRU regressor over one tabular row
 * (Hu; Wang et al., arXiv 2510.20985), trained in C, saved to and loaded
 * from checkpoints, plus the feature scaler it uses.
 * Part 2, the tabular side: datasets read from CSV, seeded splits,
 * regression metrics, the synthetic datasets of the papers' schemas, and
 * the baselines (XGBoost through its C API, ridge regression through GSL).
 *
 * Depends on nothing else of hetsim. Rows are arrays of NFEAT doubles:
 * numeric features as values, categorical ones as integer level codes. */
#ifndef HETSIM_PREDICTOR_H
#define HETSIM_PREDICTOR_H

#include <stddef.h>
#include <stdio.h>

/* Standardization of one numeric feature: z = (x - mean) / sd. Fitted on a
 * training split only, stored in checkpoints, applied to new rows. */
struct pred_scaler {
    double mean;
    double sd; /* population standard deviation; 1 when the feature is
                  constant, so constant features map to 0 */
};

/* Fits a scaler to X[0], X[stride], ... (N values, N >= 1). Returns 0, or
 * -1 when N is 0 or a value is not finite. */
int pred_scaler_fit(struct pred_scaler *sc, const double *x, size_t n,
                    size_t stride);

/* Standardizes X in place (N values, STRIDE apart). */
void pred_scaler_apply(const struct pred_scaler *sc, double *x, size_t n,
                       size_t stride);

/* The inverse: original units from standardized values, in place. */
void pred_scaler_invert(const struct pred_scaler *sc, double *x, size_t n,
                        size_t stride);

/* ---- Feature schema ------------------------------------------------- */

#define PRED_MAX_FEATURES 512 /* one token per feature, 512 positions */

/* One input column. NLEVELS 0: numeric. NLEVELS > 0: categorical, and the
 * value K in a row means LEVELS[K]; a code outside [0, NLEVELS) (e.g. -1
 * for a level the schema does not know) gets an all-zero embedding. */
struct pred_feature {
    const char *name;
    int nlevels;
    const char *const *levels; /* NLEVELS names */
};

struct pred_schema {
    int nfeat; /* 1 .. PRED_MAX_FEATURES */
    const struct pred_feature *feat;
};

/* The code of LEVEL in categorical feature FEATURE of S, or -1 when the
 * level is unknown or the feature is numeric. */
int pred_schema_level(const struct pred_schema *s, int feature,
                      const char *level);

/* ==== Part 1: the network ============================================ */

/* ---- Architecture ----------------------------------------------------- */

enum pred_order { PRED_GRU_FIRST, PRED_ATTENTION_FIRST };
enum pred_pool { PRED_POOL_MEAN, PRED_POOL_LAST };
/* How a row becomes a sequence: one learnt token of width d_model per
 * feature (hetsim's reading), or one token whose channels are the row's
 * standardized features (Hu's "sequence whose channels are the
 * features": categorical codes standardized like numbers; d_model is
 * then the number of features). */
enum pred_tokens { PRED_TOKENS_FEATURE, PRED_TOKENS_ROW };

/* The network: tokens of width D_MODEL -> [BiGRU] and [N_ATTN attention
 * blocks] in ORDER -> pooling over tokens -> one linear output. A GRU
 * with GRU_FWD + GRU_BWD units outputs their concatenation; attention
 * blocks keep the width of their input. */
struct pred_arch {
    char name[32];
    int d_model;  /* token width */
    int gru_fwd;  /* forward GRU units; gru_fwd = gru_bwd = 0: no GRU */
    int gru_bwd;  /* backward GRU units (reads the flipped sequence) */
    int n_attn;   /* attention blocks; 0: none */
    int n_heads;  /* heads per block */
    int head_dim; /* key (and value) channels per head */
    int d_ff;     /* hidden width of the ReLU feed-forward of a block;
                     0: no feed-forward sublayer and no second layer
                     norm (Hu, Table 2) */
    double dropout;
    enum pred_order order;
    enum pred_pool pool;
    enum pred_tokens tokens;
    int head_relu; /* 1: ReLU on the pooled vector before the output
                      dropout and layer (Hu, Table 2) */
    int linear_skip; /* 1: y = network(x) + v . x over the standardized
                        numeric features, v trained with the network
                        (starts at 0): extrapolates as ridge does */
};

/* Fills A with the preset NAME (docs/predictor.md, "Presets"):
 * "tbigru" (hetsim's, the default), "hu2025" (Hu, Table 2 exactly),
 * "wang2025" (Wang et al., section IV), "seed000" (hetsim's earlier
 * reading of Hu: one token per feature, feed-forward sublayers),
 * "seed002" (= wang2025), "transformer" (tbigru without GRU), "bigru"
 * (tbigru without attention). Returns 0, or -1 for an unknown name. */
int pred_arch_preset(struct pred_arch *a, const char *name);

/* The preset names, comma separated, for help and error messages. */
const char *pred_arch_names(void);

/* Parses "gru-first" / "attention-first". Returns 0, or -1. */
int pred_order_parse(enum pred_order *o, const char *s);

/* ---- Training options ------------------------------------------------- */

/* Called after every epoch with the mean training loss (MSE of the
 * standardized, optionally log, target over the epoch's batches). */
typedef void (*pred_epoch_fn)(int epoch, double loss, void *ctx);

/* Learning-rate schedules: STEP is Hu's (lr, then lr_after from epoch
 * lr_drop_epoch on); COSINE warms up linearly over WARMUP steps to lr,
 * then decays as a half cosine to lr * lr_min at the last step. */
enum pred_schedule { PRED_SCHED_STEP, PRED_SCHED_COSINE };

struct pred_train_opts {
    int epochs;                  /* 200; used when steps is 0 */
    int steps;                   /* optimizer steps; 0: EPOCHS epochs */
    int batch;                   /* 256 */
    enum pred_schedule schedule; /* PRED_SCHED_STEP */
    double lr;                   /* 0.01 (peak rate of COSINE) */
    double lr_after;             /* STEP: 0.001 from epoch lr_drop_epoch on */
    int lr_drop_epoch;           /* STEP: 80 */
    int warmup;                  /* COSINE: linear warm-up steps */
    double lr_min;               /* COSINE: final rate as a fraction of lr */
    double l2;                   /* 0.001: l2 * w added to every gradient
                                    (biases, norms, embeddings too: Hu) */
    double weight_decay;         /* decoupled (AdamW): w -= lr * wd * w, on
                                    weight matrices only */
    double clip;                 /* 10: global gradient norm cap; <= 0: none */
    double beta1, beta2, eps;    /* Adam: 0.9, 0.999, 1e-8 */
    double val_frac;             /* rows held out of the fit for early
                                    stopping (best validation MSE kept);
                                    0: none, the last step's weights */
    int patience;                /* stop after this many epochs without a
                                    better validation MSE; 0: never */
    size_t val_last;             /* > 0: the last VAL_LAST rows given are the
                                    validation rows (e.g. one group held out),
                                    instead of VAL_FRAC drawn at random */
    int log_target;              /* 1: fit log(y) (y > 0), predict exp */
    unsigned long seed;          /* shuffling, validation rows, dropout */
    pred_epoch_fn on_epoch;      /* optional */
    void *ctx;
    double *loss_out; /* optional, pred_train_epochs() entries: loss per
                         epoch */
};

/* Fills O with Hu's Table 2 settings (counted in epochs, STEP schedule,
 * no validation). */
void pred_train_defaults(struct pred_train_opts *o);

/* Fills O with hetsim's recipe for N training rows: counted in optimizer
 * steps (docs/predictor.md, "The training recipe"): batch N/8 rounded to
 * a power of two within [16, 256], 4000 steps, warm-up then cosine decay,
 * AdamW decay on matrices, every row fitted (no early stopping
 * unless val_frac is set). */
void pred_train_recipe(struct pred_train_opts *o, size_t n);

/* "step" / "cosine". 0, or -1. */
int pred_schedule_parse(enum pred_schedule *s, const char *name);
const char *pred_schedule_name(enum pred_schedule s);

/* The most epochs pred_fit runs for N rows with O (the size of
 * O->loss_out). */
int pred_train_epochs(const struct pred_train_opts *o, size_t n);

/* What a fit did: its options (pointers cleared) and outcome. Kept in
 * the model and in its checkpoint (zeros for an older checkpoint). */
struct pred_train_record {
    struct pred_train_opts opts;
    size_t n_fit, n_val; /* rows fitted, rows held out for validation */
    int steps_run, epochs_run;
    int best_step;  /* the step whose weights were kept */
    double val_mse; /* validation MSE there (fitted, standardized units);
                       NAN without validation */
};

/* ---- The model ------------------------------------------------------- */

struct pred_model;

/* A new model with parameters drawn from SEED. Copies ARCH and SCHEMA.
 * Returns NULL with a message in ERR (ERRLEN bytes) on bad input. */
struct pred_model *pred_create(const struct pred_arch *arch,
                               const struct pred_schema *schema,
                               unsigned long seed, char *err, size_t errlen);

/* Frees M; NULL is a no-op. */
void pred_destroy(struct pred_model *m);

/* Trains M on N rows X (N x nfeat, row-major) with targets Y. First fits
 * the feature and target standardization on these rows (the training
 * split), then runs Adam. Returns 0, or -1 with a message in ERR
 * (non-finite value, y <= 0 with log_target, bad options). */
int pred_fit(struct pred_model *m, const double *x, const double *y, size_t n,
             const struct pred_train_opts *o, char *err, size_t errlen);

/* Predictions for N rows X into OUT, in the target's original units.
 * Dropout is off. Not thread-safe (M keeps scratch buffers). Returns 0,
 * or -1 with a message in ERR (a non-finite numeric value). */
int pred_predict(struct pred_model *m, const double *x, size_t n, double *out,
                 char *err, size_t errlen);

/* Writes M to PATH (through PATH.tmp and a rename). Returns 0, or -1. */
int pred_save(const struct pred_model *m, const char *path, char *err,
              size_t errlen);
/* The same checkpoint written to F (the caller makes the file whole on
 * disk); 0, or -1 with a message. */
int pred_write(const struct pred_model *m, FILE *f, char *err, size_t errlen);

/* Reads a checkpoint. NULL with a message in ERR when the file is
 * missing, not a checkpoint, of another version, truncated or corrupt. */
struct pred_model *pred_load(const char *path, char *err, size_t errlen);

/* The model's own copies (valid until pred_destroy). */
const struct pred_schema *pred_model_schema(const struct pred_model *m);
const struct pred_arch *pred_model_arch(const struct pred_model *m);

/* The record of the last fit (or of the checkpoint's). */
const struct pred_train_record *pred_model_record(const struct pred_model *m);

/* The number of trainable parameters. */
size_t pred_param_count(const struct pred_model *m);

/* ==== Part 2: the tabular side ======================================= */
/* (table.c, table_util.c, metrics.c, synth.c, baseline.c, ridge.c, xgb.c)
 * Rows are as above; a table carries its schema, so its rows feed the
 * network and the baselines alike. */

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

/* ---- Physics features (synth.c) -------------------------------------- */

/* Training FLOPs of one sample (forward and backward) of a model of
 * architecture ARCH ("cnn", "mlp", "rnn", "transformer"): the analytic
 * model of Hu's schema (docs/predictor.md). NAN for an unknown ARCH. */
double pred_flops_per_sample(const char *arch, double params_m, int num_layers,
                             int input_dim);

struct pred_physics_in {
    const char *arch;
    double params_m;
    int num_layers, input_dim, batch_size;
    double tflops, bandwidth_gbs; /* of one GPU */
};

/* The derived features of docs/predictor.md ("Physics features"): the
 * compute time of one step (FLOPs / peak TFLOPS) and its memory time
 * (16 bytes a weight / bandwidth), in ms on one GPU. 0, or -1 on an
 * unknown architecture or a non-positive rate. */
int pred_physics(const struct pred_physics_in *in, double *compute_ms,
                 double *memory_ms);

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
/* The same model file written to F; 0, or -1 with a message. */
int pred_base_write(const struct pred_base *b, const char *target, FILE *f,
                    char *err, size_t errlen);
struct pred_base *pred_base_load(const char *path, char **target, char *err,
                                 size_t errlen);

#endif
