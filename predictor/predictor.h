/* predictor.h -- the resource predictor: a Transformer-BiGRU regressor over
 * one tabular row (Hu; Wang et al., arXiv 2510.20985), trained in C, saved
 * to and loaded from checkpoints, plus the feature scaler it uses. Depends
 * on nothing else of hetsim. Rows are arrays of NFEAT doubles: numeric
 * features as values, categorical ones as integer level codes. */
#ifndef HETSIM_PREDICTOR_H
#define HETSIM_PREDICTOR_H

#include <stddef.h>

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

/* ---- Architecture ----------------------------------------------------- */

enum pred_order { PRED_GRU_FIRST, PRED_ATTENTION_FIRST };
enum pred_pool { PRED_POOL_MEAN, PRED_POOL_LAST };

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
    int d_ff;     /* hidden width of the ReLU feed-forward of a block */
    double dropout;
    enum pred_order order;
    enum pred_pool pool;
};

/* Fills A with the preset NAME: "seed000" (Hu, Table 2), "seed002" (Wang
 * et al., section IV), "transformer" (seed000 without GRU), "bigru"
 * (seed000 without attention). Returns 0, or -1 for an unknown name. */
int pred_arch_preset(struct pred_arch *a, const char *name);

/* The preset names, comma separated, for help and error messages. */
const char *pred_arch_names(void);

/* Parses "gru-first" / "attention-first". Returns 0, or -1. */
int pred_order_parse(enum pred_order *o, const char *s);

/* ---- Training options ------------------------------------------------- */

/* Called after every epoch with the mean training loss (MSE of the
 * standardized, optionally log, target over the epoch's batches). */
typedef void (*pred_epoch_fn)(int epoch, double loss, void *ctx);

struct pred_train_opts {
    int epochs;               /* 200 */
    int batch;                /* 256 */
    double lr;                /* 0.01 for epochs [0, lr_drop_epoch) */
    double lr_after;          /* 0.001 from epoch lr_drop_epoch on */
    int lr_drop_epoch;        /* 80 */
    double l2;                /* 0.001: l2 * w added to every gradient */
    double clip;              /* 10: global gradient norm cap; <= 0: none */
    double beta1, beta2, eps; /* Adam: 0.9, 0.999, 1e-8 */
    int log_target;           /* 1: fit log(y) (y > 0), predict exp */
    unsigned long seed;       /* shuffling and dropout */
    pred_epoch_fn on_epoch;   /* optional */
    void *ctx;
    double *loss_out; /* optional, EPOCHS entries: loss per epoch */
};

/* Fills O with the values above (Hu, Table 2). */
void pred_train_defaults(struct pred_train_opts *o);

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

/* Reads a checkpoint. NULL with a message in ERR when the file is
 * missing, not a checkpoint, of another version, truncated or corrupt. */
struct pred_model *pred_load(const char *path, char *err, size_t errlen);

/* The model's own copies (valid until pred_destroy). */
const struct pred_schema *pred_model_schema(const struct pred_model *m);
const struct pred_arch *pred_model_arch(const struct pred_model *m);

/* The number of trainable parameters. */
size_t pred_param_count(const struct pred_model *m);

#endif
