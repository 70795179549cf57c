/* predictor_charts.h -- the state of `hetsim predictor compare`, shared by
 * predictor_compare.c (the runs) and predictor_charts.c (what is written:
 * compare.csv, loo.csv, the table on stdout and the charts). */
#ifndef HETSIM_PREDICTOR_CHARTS_H
#define HETSIM_PREDICTOR_CHARTS_H

#include "predictor_cmd.h"

#define CMP_MAX_MODELS 16

struct cmp_model {
    struct pmodel_spec spec;
    struct pred_metrics *m; /* (nsplits) test metrics of each split */
    char (*choice)[256];    /* (nsplits) hyper-parameters chosen */
    double train_s;         /* summed over splits */
    double infer_us;        /* per test row, summed over splits */
    double *pred0;          /* (ntest0) predictions of split 0 */
    double *loss;           /* (nloss) training loss of split 0 */
    double *pooled;         /* (n) leave-one-out: each row's prediction
                               from the split that held it out */
    size_t nloss;
};

struct cmp {
    struct pred_table *t;
    const struct pred_schema *schema;
    struct pmodel_fit fit;
    const char *data, *out;
    int loo; /* splits hold out one group each */
    size_t nsplits;
    size_t *ntest; /* (nsplits) */
    struct cmp_model models[CMP_MAX_MODELS];
    size_t nmodels;
    double *actual0; /* (ntest0) test targets of split 0 */
    size_t ntest0;
    double *scratch; /* (n) */
};

/* DIR/compare.csv (and DIR/loo.csv, DIR/hyper.csv); an exit code. */
int pcmp_write_results(const struct cmp *c);
/* The table on stdout in the papers' layout. */
void pcmp_print_table(const struct cmp *c, const char *target);
/* The same figures as JSON on stdout (--json): per model the mean and sd
 * over the splits of each metric, unrounded; an exit code. */
int pcmp_print_json(const struct cmp *c, const char *target);
/* Bar charts of the metrics, predicted vs actual, training loss; warns
 * about a chart that failed. */
void pcmp_draw_charts(const struct cmp *c);

#endif
