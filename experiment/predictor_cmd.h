/* predictor_cmd.h -- what the files of `hetsim predictor` share
 * (predictor_cmd.c, predictor_models.c, predictor_compare.c). */
#ifndef HETSIM_PREDICTOR_CMD_H
#define HETSIM_PREDICTOR_CMD_H

#include "dataset_cmd.h"
#include "predictor.h"

/* A model named on the command line: tbigru (the preset of --arch),
 * transformer, bigru, xgboost, rf, tree, linear. */
struct pmodel_spec {
    char name[32];
    int nn;                   /* a network of predictor.h */
    char arch[32];            /* its preset */
    enum pred_base_kind kind; /* else a baseline */
    struct pred_base_params params;
    int params_set; /* params chosen, else the defaults */
};

/* The networks' training options given on the command line; a value
 * left at -1 (NAN for reals) is the recipe's (predictor_nn.c). */
struct pmodel_nn_opts {
    int hu; /* --recipe hu2025: Hu's Table 2 (epochs), else hetsim's */
    int epochs, steps, batch, warmup, patience, schedule;
    double lr, lr_min, weight_decay, l2, clip, val_frac, dropout;
    int ensemble;    /* models averaged, from seeds seed, seed + 1000, ... */
    int linear_skip; /* pred_arch.linear_skip: 1 --linear-skip, 0
                        --no-linear-skip, -1 the preset's (off; on in
                        compare --leave-out, pmodel_nn_hetsim_preset) */
};
#define PMODEL_MAX_ENSEMBLE 16

/* How to fit: shared by every model. */
struct pmodel_fit {
    unsigned long seed;
    int log_target;
    struct pmodel_nn_opts nn;
    size_t val_last; /* networks: the last rows validate (pred_train_opts) */
    enum pred_order order;
    int order_set;
    double *loss_out; /* optional: loss per epoch (networks) or round
                         (xgboost), up to PMODEL_MAX_LOSS entries */
    size_t *nloss;    /* how many were written */
};
#define PMODEL_MAX_LOSS 100000

struct pmodel {
    struct pred_model *nn; /* = ens[0] */
    struct pred_model *ens[PMODEL_MAX_ENSEMBLE];
    int nens;
    struct pred_base *base;
};

/* predictor_nn.c: the networks' options. */
void pmodel_nn_defaults(struct pmodel_nn_opts *o);
/* Parses network option OPT (a getopt code of PMODEL_NN_LONG_OPTIONS)
 * with ARG into O: 0, 1 when OPT is not one, or an exit code (usage). */
int pmodel_nn_option(struct pmodel_nn_opts *o, const char *cmd, int opt,
                     const char *arg);
/* The training options of N rows: the recipe, then O's overrides. */
void pmodel_nn_train_opts(const struct pmodel_nn_opts *o, size_t n,
                          struct pred_train_opts *t);
/* Trains the network(s) of S on N rows into M. 0, or -1. */
int pmodel_nn_fit(struct pmodel *m, const struct pmodel_spec *s,
                  const struct pmodel_fit *f, const struct pred_schema *sc,
                  const double *x, const double *y, size_t n, char *err,
                  size_t errlen);
/* 1 when S is one of hetsim's own presets (tbigru and its ablations),
 * whose linear skip path compare --leave-out turns on, else 0. */
int pmodel_nn_hetsim_preset(const struct pmodel_spec *s);
/* "steps=4000 batch=32 ..." of model M's first network into BUF. */
void pmodel_nn_describe(const struct pmodel *m, char *buf, size_t len);
#define PMODEL_NN_LONG_OPTIONS                                                 \
    {"recipe", required_argument, NULL, 1000},                                 \
        {"steps", required_argument, NULL, 1001},                              \
        {"batch", required_argument, NULL, 1002},                              \
        {"lr", required_argument, NULL, 1003},                                 \
        {"lr-min", required_argument, NULL, 1004},                             \
        {"warmup", required_argument, NULL, 1005},                             \
        {"schedule", required_argument, NULL, 1006},                           \
        {"weight-decay", required_argument, NULL, 1007},                       \
        {"l2", required_argument, NULL, 1008},                                 \
        {"clip", required_argument, NULL, 1009},                               \
        {"val-frac", required_argument, NULL, 1010},                           \
        {"patience", required_argument, NULL, 1011},                           \
        {"dropout", required_argument, NULL, 1012},                            \
        {"ensemble", required_argument, NULL, 1013},                           \
        {"linear-skip", no_argument, NULL, 1015},                              \
        {"no-linear-skip", no_argument, NULL, 1016},                           \
    {                                                                          \
        "epochs", required_argument, NULL, 1014                                \
    }

/* Parses NAME (ARCH is tbigru's preset). 0, or -1 for an unknown name. */
int pmodel_parse(struct pmodel_spec *s, const char *name, const char *arch);
/* Each returns 0, or -1 with a message in ERR. */
int pmodel_fit(struct pmodel *m, const struct pmodel_spec *s,
               const struct pmodel_fit *f, const struct pred_schema *sc,
               const double *x, const double *y, size_t n, char *err,
               size_t errlen);
int pmodel_predict(struct pmodel *m, const double *x, size_t n, double *out,
                   char *err, size_t errlen);
int pmodel_save(const struct pmodel *m, const char *target, const char *path,
                char *err, size_t errlen);
/* *TARGET: the target column the file names (baselines), else NULL. */
int pmodel_load(struct pmodel *m, const char *path, char **target, char *err,
                size_t errlen);
const struct pred_schema *pmodel_schema(const struct pmodel *m);
void pmodel_free(struct pmodel *m);

/* The command line of every predictor command. */
struct pcli_args {
    const char *data, *target, *categorical, *drop, *model, *models;
    const char *arch, *out, *leave_out, *keep;
    unsigned long repeats;
    struct pmodel_fit fit;
    struct pred_base_params params; /* train: hyper-parameters given */
    int params_set, quiet, plots;
    int json; /* eval: the metrics as JSON */
};

/* CLI_BAD_INPUT after `FILE:LINE: ...` when LOG_TARGET is set and a
 * target of T (read from PATH) is not > 0; else CLI_OK. */
int cli_pred_check_log_target(const struct pred_table *t, const char *path,
                              int log_target);

/* `hetsim predictor compare` (predictor_compare.c). */
int cli_predictor_compare(const struct pcli_args *a);

#endif
