/* tabular_internal.h -- shared by the tabular files of the predictor module
 * (table.c, table_util.c, synth.c, baseline*.c, ridge.c, xgb.c). */
#ifndef HETSIM_PRED_TABULAR_INTERNAL_H
#define HETSIM_PRED_TABULAR_INTERNAL_H

#include "predictor.h"

/* Allocates T's arrays for N rows of NFEAT features (names and levels
 * left empty), y when TARGET is not NULL. 0, or -1 out of memory. */
int tab_alloc(struct pred_table *t, size_t n, int nfeat, const char *target);

/* Copies NLEVELS level names into F. 0, or -1 out of memory. */
int tab_copy_levels(struct pred_feature *f, const char *const *levels,
                    int nlevels);

/* A deep copy of S into FEAT (S->nfeat entries), or frees one. */
int tab_copy_schema(struct pred_feature **feat, const struct pred_schema *s);
void tab_free_features(struct pred_feature *feat, int nfeat);

/* Strict decimal number (blanks around allowed; no hex, nan, inf). */
int pred_parse_number(const char *s, double *out);

/* ---- Baselines -------------------------------------------------------- */

struct pred_base {
    enum pred_base_kind kind;
    struct pred_base_params p;
    struct pred_feature *feat; /* (schema.nfeat) owned copy */
    struct pred_schema schema;
    double ymean, ysd; /* standardization of the fitted target */
    /* ridge: expanded columns (numeric, one per level of categoricals) */
    size_t ncols;
    double *col_mean, *col_sd, *coef; /* (ncols) each, one block */
    void *booster;                    /* xgboost's BoosterHandle */
};

/* Expanded width of SCHEMA's rows for ridge (numeric 1, categorical one
 * per level). */
size_t ridge_width(const struct pred_schema *s);

/* Each fits b->kind on rows X with fitted targets Z (already log-ed and
 * standardized); 0, or -1 with a message in ERR. */
int ridge_fit(struct pred_base *b, const double *x, const double *z, size_t n,
              char *err, size_t errlen);
int xgb_fit(struct pred_base *b, const double *x, const double *z, size_t n,
            char *err, size_t errlen);
/* Standardized predictions of N rows into OUT. */
void ridge_predict(const struct pred_base *b, const double *x, size_t n,
                   double *out);
int xgb_predict(struct pred_base *b, const double *x, size_t n, double *out,
                char *err, size_t errlen);
/* The booster as JSON bytes (borrowed until the next call), and back. */
int xgb_dump(const struct pred_base *b, const char **buf, size_t *len,
             char *err, size_t errlen);
int xgb_restore(struct pred_base *b, const char *buf, size_t len, char *err,
                size_t errlen);
void xgb_free(struct pred_base *b);

#endif
