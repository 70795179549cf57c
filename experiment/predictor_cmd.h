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

/* How to fit: shared by every model. */
struct pmodel_fit {
    unsigned long seed;
    int log_target;
    int epochs; /* networks; 0: the preset's */
    enum pred_order order;
    int order_set;
    double *loss_out; /* optional: loss per epoch (networks) or round
                         (xgboost), up to PMODEL_MAX_LOSS entries */
    size_t *nloss;    /* how many were written */
};
#define PMODEL_MAX_LOSS 100000

struct pmodel {
    struct pred_model *nn;
    struct pred_base *base;
};

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
};

/* CLI_BAD_INPUT after `FILE:LINE: ...` when LOG_TARGET is set and a
 * target of T (read from PATH) is not > 0; else CLI_OK. */
int cli_pred_check_log_target(const struct pred_table *t, const char *path,
                              int log_target);

/* `hetsim predictor compare` (predictor_compare.c). */
int cli_predictor_compare(const struct pcli_args *a);

#endif
