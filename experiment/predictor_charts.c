/* predictor_charts.c -- what `hetsim predictor compare` writes: the
 * tables (compare.csv, loo.csv, hyper.csv, predictions.csv), the table on
 * stdout, and the charts of Hu's Figures 3 and 4 plus training loss. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plots.h"
#include "predictor_charts.h"

enum { MSE, RMSE, MAE, MAPE, R2, NMETRICS };

static double metric(const struct pred_metrics *m, int k)
{
    switch (k) {
    case MSE: return m->mse;
    case RMSE: return m->rmse;
    case MAE: return m->mae;
    case MAPE: return m->mape;
    default: return m->r2;
    }
}

/* Mean over the splits, and sample standard deviation (0 for one). */
static double mean_of(const struct cmp *c, const struct cmp_model *cm, int k,
                      double *sd)
{
    double s = 0, ss = 0, n = (double)c->nsplits;
    for (size_t i = 0; i < c->nsplits; i++)
        s += metric(&cm->m[i], k);
    double mean = s / n;
    for (size_t i = 0; i < c->nsplits; i++) {
        double d = metric(&cm->m[i], k) - mean;
        ss += d * d;
    }
    if (sd)
        *sd = c->nsplits > 1 ? sqrt(ss / (n - 1)) : 0;
    return mean;
}

static void put(FILE *f, double v, const char *sep)
{
    char b[32];
    fprintf(f, "%s%s", pred_fmt_double(b, v), sep);
}

static int commit(struct cli_atomic *a, const char *name)
{
    if (cli_atomic_commit(a) != 0) {
        cli_error("%s: cannot write: %s", name, strerror(errno));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

static int write_compare(const struct cmp *c)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, c->out, "compare.csv") != 0) {
        cli_error("%s/compare.csv: %s", c->out, strerror(errno));
        return CLI_FAILURE;
    }
    fprintf(a.f, "model,repeats,mse,rmse,mae,mape,r2,mse_sd,r2_sd,train_s,"
                 "infer_us_per_row\n");
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        const struct cmp_model *cm = &c->models[mi];
        double mse_sd, r2_sd, n = (double)c->nsplits;
        fprintf(a.f, "%s,%zu,", cm->spec.name, c->nsplits);
        put(a.f, mean_of(c, cm, MSE, &mse_sd), ",");
        put(a.f, mean_of(c, cm, RMSE, NULL), ",");
        put(a.f, mean_of(c, cm, MAE, NULL), ",");
        put(a.f, mean_of(c, cm, MAPE, NULL), ",");
        put(a.f, mean_of(c, cm, R2, &r2_sd), ",");
        put(a.f, mse_sd, ",");
        put(a.f, r2_sd, ",");
        fprintf(a.f, "%.4f,%.3f\n", cm->train_s / n, cm->infer_us / n);
    }
    return commit(&a, "compare.csv");
}

/* loo.csv (leave-one-out) or hyper.csv: one row per model and split. */
static int write_splits(const struct cmp *c)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, c->out, "splits.csv") != 0) {
        cli_error("%s/splits.csv: %s", c->out, strerror(errno));
        return CLI_FAILURE;
    }
    fprintf(a.f, "model,split,held_out,n_test,mse,rmse,mae,mape,r2,"
                 "hyper_parameters\n");
    for (size_t mi = 0; mi < c->nmodels; mi++)
        for (size_t k = 0; k < c->nsplits; k++) {
            const struct pred_metrics *m = &c->models[mi].m[k];
            fprintf(a.f, "%s,%zu,\"%s\",%zu,", c->models[mi].spec.name, k,
                    c->loo ? c->t->group_names[k] : "random 30%", c->ntest[k]);
            for (int j = 0; j < NMETRICS; j++)
                put(a.f, metric(m, j), ",");
            fprintf(a.f, "%s\n", c->models[mi].choice[k]);
        }
    for (size_t mi = 0; c->loo && mi < c->nmodels; mi++) {
        struct pred_metrics m;
        pred_metrics_compute(c->t->y, c->models[mi].pooled, c->t->n, &m);
        fprintf(a.f, "%s,pooled,\"every row held out once\",%zu,",
                c->models[mi].spec.name, c->t->n);
        for (int j = 0; j < NMETRICS; j++)
            put(a.f, metric(&m, j), ",");
        fprintf(a.f, "\n");
    }
    return commit(&a, "splits.csv");
}

static int write_predictions(const struct cmp *c)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, c->out, "predictions.csv") != 0) {
        cli_error("%s/predictions.csv: %s", c->out, strerror(errno));
        return CLI_FAILURE;
    }
    fprintf(a.f, "actual");
    for (size_t mi = 0; mi < c->nmodels; mi++)
        fprintf(a.f, ",%s", c->models[mi].spec.name);
    fputc('\n', a.f);
    for (size_t i = 0; i < c->ntest0; i++) {
        put(a.f, c->actual0[i], "");
        for (size_t mi = 0; mi < c->nmodels; mi++) {
            fputc(',', a.f);
            put(a.f, c->models[mi].pred0[i], "");
        }
        fputc('\n', a.f);
    }
    return commit(&a, "predictions.csv");
}

int pcmp_write_results(const struct cmp *c)
{
    int rc = write_compare(c);
    if (rc == CLI_OK)
        rc = write_splits(c);
    if (rc == CLI_OK)
        rc = write_predictions(c);
    return rc;
}

void pcmp_print_table(const struct cmp *c, const char *target)
{
    if (c->loo)
        printf("hetsim predictor compare: %s -> %s, %zu rows, leaving out "
               "each of %zu groups in turn\n",
               c->data, target, c->t->n, c->nsplits);
    else
        printf("hetsim predictor compare: %s -> %s, %zu rows, %zu seeded "
               "70/30 splits (seed %lu)%s\n",
               c->data, target, c->t->n, c->nsplits, c->fit.seed,
               c->fit.log_target ? ", log target" : "");
    printf("%-12s %24s %11s %11s %8s %17s %9s %9s\n", "model", "MSE (sd)",
           "RMSE", "MAE", "MAPE %", "R2 (sd)", "train s", "us/row");
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        const struct cmp_model *cm = &c->models[mi];
        double mse_sd, r2_sd, n = (double)c->nsplits;
        double mse = mean_of(c, cm, MSE, &mse_sd);
        double r2 = mean_of(c, cm, R2, &r2_sd);
        printf("%-12s %11.4g (%10.3g) %11.4g %11.4g %8.2f %8.4f (%6.4f) "
               "%9.3f %9.2f\n",
               cm->spec.name, mse, mse_sd, mean_of(c, cm, RMSE, NULL),
               mean_of(c, cm, MAE, NULL), mean_of(c, cm, MAPE, NULL), r2, r2_sd,
               cm->train_s / n, cm->infer_us / n);
    }
    if (c->loo) {
        printf("Pooled: every row predicted by the model that did not see "
               "its group\n");
        for (size_t mi = 0; mi < c->nmodels; mi++) {
            struct pred_metrics m;
            pred_metrics_compute(c->t->y, c->models[mi].pooled, c->t->n, &m);
            printf("%-12s %11.4g %12s %11.4g %11.4g %8.2f %8.4f\n",
                   c->models[mi].spec.name, m.mse, "", m.rmse, m.mae, m.mape,
                   m.r2);
        }
    }
    for (size_t mi = 0; mi < c->nmodels; mi++)
        if (c->models[mi].spec.nn)
            printf("%s, split 0: %s\n", c->models[mi].spec.name,
                   c->models[mi].choice[0]);
    printf("Metrics on the test rows in original units, mean over splits. "
           "ExtraTrees,\nCatBoost and LightGBM (in the papers' tables) are "
           "not packaged for Debian:\nnot run. Results in %s/ "
           "(compare.csv, splits.csv, predictions.csv).\n",
           c->out);
}

/* Model CM's figures: each metric's mean and sd, the timings, and under
 * --leave-out the pooled metrics. */
static struct cJSON *model_json(const struct cmp *c, const struct cmp_model *cm)
{
    static const char *const keys[NMETRICS] = {"mse", "rmse", "mae",
                                               "mape_pct", "r2"};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "model", cm->spec.name);
    for (int k = 0; k < NMETRICS; k++) {
        char key[32];
        double sd, mean = mean_of(c, cm, k, &sd);
        cli_json_number(o, keys[k], mean);
        snprintf(key, sizeof key, "%s_sd", keys[k]);
        cli_json_number(o, key, sd);
    }
    cli_json_number(o, "train_s", cm->train_s / (double)c->nsplits);
    cli_json_number(o, "infer_us_per_row", cm->infer_us / (double)c->nsplits);
    cJSON_AddStringToObject(o, "hyper_parameters_split0", cm->choice[0]);
    if (c->loo) {
        struct pred_metrics m;
        cJSON *p = cJSON_AddObjectToObject(o, "pooled");
        pred_metrics_compute(c->t->y, cm->pooled, c->t->n, &m);
        for (int k = 0; p && k < NMETRICS; k++)
            cli_json_number(p, keys[k], metric(&m, k));
    }
    return o;
}

int pcmp_print_json(const struct cmp *c, const char *target)
{
    cJSON *o = cJSON_CreateObject(), *models = NULL;
    if (o) {
        cJSON_AddStringToObject(o, "data", c->data);
        cJSON_AddStringToObject(o, "target", target);
        cJSON_AddNumberToObject(o, "rows", (double)c->t->n);
        cJSON_AddNumberToObject(o, "splits", (double)c->nsplits);
        cJSON_AddStringToObject(o, "split",
                                c->loo ? "leave one group out" : "random 70/30");
        cJSON_AddNumberToObject(o, "seed", (double)c->fit.seed);
        cJSON_AddBoolToObject(o, "log_target", c->fit.log_target != 0);
        cJSON_AddStringToObject(o, "out", c->out);
        models = cJSON_AddArrayToObject(o, "models");
    }
    for (size_t mi = 0; models && mi < c->nmodels; mi++) {
        cJSON *m = model_json(c, &c->models[mi]);
        if (!m || !cJSON_AddItemToArray(models, m)) {
            cJSON_Delete(m);
            models = NULL;
        }
    }
    if (!models) {
        cJSON_Delete(o);
        o = NULL;
    }
    if (cli_write_json(stdout, o) != 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* ---- Charts ------------------------------------------------------------ */

static void draw_bars(const struct cmp *c)
{
    static const char *const names[] = {"mse", "rmse", "mae", "mape", "r2"};
    static const char *const labels[] = {"MSE", "RMSE", "MAE", "MAPE (%)",
                                         "R2"};
    const char *cats[CMP_MAX_MODELS];
    double v[CMP_MAX_MODELS];
    for (int k = RMSE; k < NMETRICS; k++) {
        int ok = 1;
        for (size_t mi = 0; mi < c->nmodels; mi++) {
            cats[mi] = c->models[mi].spec.name;
            v[mi] = mean_of(c, &c->models[mi], k, NULL);
            ok = ok && isfinite(v[mi]);
        }
        char name[32], title[64];
        snprintf(name, sizeof name, "metrics_%s", names[k]);
        snprintf(title, sizeof title, "%s on the test rows (mean of %zu)",
                 labels[k], c->nsplits);
        struct plot_chart ch = {
            .dir = c->out, .name = name, .title = title, .ylabel = labels[k]};
        struct plot_series s = {labels[k], v, c->nmodels};
        if (ok)
            (void)cli_chart_check(plot_bars(&ch, cats, c->nmodels, &s, 1),
                                  name);
    }
}

static void draw_scatter(const struct cmp *c)
{
    struct plot_points p[CMP_MAX_MODELS];
    double lo = INFINITY, hi = -INFINITY;
    int ok = 1;
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        p[mi] = (struct plot_points){c->models[mi].spec.name, c->actual0,
                                     c->models[mi].pred0, c->ntest0};
        for (size_t i = 0; i < c->ntest0; i++) {
            double a = c->actual0[i], q = c->models[mi].pred0[i];
            ok = ok && isfinite(q);
            lo = fmin(lo, fmin(a, q));
            hi = fmax(hi, fmax(a, q));
        }
    }
    unsigned flags = lo > 0 && hi / lo > 100 ? PLOT_LOG_X | PLOT_LOG_Y : 0;
    struct plot_chart ch = {.dir = c->out,
                            .name = "pred_vs_actual",
                            .title = "Predicted against actual, test rows of "
                                     "split 0",
                            .xlabel = "actual",
                            .ylabel = "predicted",
                            .flags = flags};
    if (ok)
        (void)cli_chart_check(plot_scatter(&ch, p, c->nmodels, 1),
                              "pred_vs_actual");
}

static void draw_loss(const struct cmp *c)
{
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        const struct cmp_model *cm = &c->models[mi];
        if (cm->nloss == 0)
            continue;
        double *x = malloc(cm->nloss * sizeof *x);
        if (!x)
            return;
        int pos = 1;
        for (size_t i = 0; i < cm->nloss; i++) {
            x[i] = (double)(i + 1);
            pos = pos && cm->loss[i] > 0 && isfinite(cm->loss[i]);
        }
        char name[64], title[128];
        snprintf(name, sizeof name, "loss_%s", cm->spec.name);
        snprintf(title, sizeof title,
                 "Training loss of %s, split 0 "
                 "(standardized target)",
                 cm->spec.name);
        struct plot_chart ch = {.dir = c->out,
                                .name = name,
                                .title = title,
                                .xlabel = cm->spec.nn ? "epoch" : "round",
                                .ylabel = cm->spec.nn ? "MSE" : "RMSE",
                                .flags = pos ? PLOT_LOG_Y : 0};
        struct plot_series s = {cm->spec.name, cm->loss, cm->nloss};
        (void)cli_chart_check(plot_steps(&ch, x, cm->nloss, &s, 1), name);
        free(x);
    }
}

void pcmp_draw_charts(const struct cmp *c)
{
    draw_bars(c);
    draw_scatter(c);
    draw_loss(c);
}
