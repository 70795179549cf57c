/* predictor_models.c -- the models of `hetsim predictor` behind one face:
 * the Transformer-BiGRU family and the baselines (both in
 * predictor.h), fitted, used, saved and loaded the same way. */
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "predictor_cmd.h"

/* tbigru takes --arch; the others name their preset. */
static const char *const NN_NAMES[] = {"tbigru", "transformer", "bigru",
                                       "hu2025", "wang2025",    "seed000",
                                       "seed002"};
#define NN_COUNT (sizeof NN_NAMES / sizeof *NN_NAMES)

int pmodel_parse(struct pmodel_spec *s, const char *name, const char *arch)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    for (size_t i = 0; i < NN_COUNT; i++)
        if (strcmp(name, NN_NAMES[i]) == 0) {
            s->nn = 1;
            snprintf(s->arch, sizeof s->arch, "%s", i ? name : arch);
            return 0;
        }
    return pred_base_parse(&s->kind, name);
}

void pmodel_free(struct pmodel *m)
{
    if (m->nens == 0)
        pred_destroy(m->nn);
    for (int k = 0; k < m->nens; k++)
        pred_destroy(m->ens[k]);
    m->nens = 0;
    pred_base_destroy(m->base);
    m->nn = NULL;
    m->base = NULL;
}

int pmodel_fit(struct pmodel *m, const struct pmodel_spec *s,
               const struct pmodel_fit *f, const struct pred_schema *sc,
               const double *x, const double *y, size_t n, char *err,
               size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (s->nn)
        return pmodel_nn_fit(m, s, f, sc, x, y, n, err, errlen);
    struct pred_base_params p = s->params;
    if (!s->params_set)
        pred_base_defaults(s->kind, &p);
    p.log_target = f->log_target;
    p.seed = f->seed;
    p.loss_out = s->kind == PRED_BASE_XGBOOST ? f->loss_out : NULL;
    if (p.loss_out && f->nloss)
        *f->nloss = (size_t)p.rounds;
    m->base = pred_base_fit(s->kind, &p, sc, x, y, n, err, errlen);
    return m->base ? 0 : -1;
}

int pmodel_predict(struct pmodel *m, const double *x, size_t n, double *out,
                   char *err, size_t errlen)
{
    if (m->nn && m->nens <= 1)
        return pred_predict(m->nn, x, n, out, err, errlen);
    if (m->nn) { /* the ensemble's mean, in the target's units */
        double *tmp = malloc(n * sizeof *tmp);
        if (!tmp) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memset(out, 0, n * sizeof *out);
        for (int k = 0; k < m->nens; k++) {
            if (pred_predict(m->ens[k], x, n, tmp, err, errlen) < 0) {
                free(tmp);
                return -1;
            }
            for (size_t i = 0; i < n; i++)
                out[i] += tmp[i] / m->nens;
        }
        free(tmp);
        return 0;
    }
    return pred_base_predict(m->base, x, n, out, err, errlen);
}

const struct pred_schema *pmodel_schema(const struct pmodel *m)
{
    return m->nn ? pred_model_schema(m->nn) : pred_base_schema(m->base);
}

int pmodel_save(const struct pmodel *m, const char *target, const char *path,
                char *err, size_t errlen)
{
    if (m->nens > 1) {
        snprintf(err, errlen,
                 "%s: an ensemble cannot be saved to one model "
                 "file (use --ensemble with compare)",
                 path);
        return -1;
    }
    /* Whole or not at all: the old model stays on any failure. */
    struct exp_file x;
    if (exp_file_open(&x, path, err, errlen) != 0)
        return -1;
    int rc = m->nn ? pred_write(m->nn, x.f, err, errlen)
                   : pred_base_write(m->base, target, x.f, err, errlen);
    if (rc != 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s: %s", path, why);
        exp_file_abort(&x);
        return -1;
    }
    return exp_file_commit(&x, err, errlen);
}

int pmodel_load(struct pmodel *m, const char *path, char **target, char *err,
                size_t errlen)
{
    memset(m, 0, sizeof *m);
    *target = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open model file", path);
        return -1;
    }
    char magic[7] = {0};
    size_t got = fread(magic, 1, 6, f);
    fclose(f);
    if (got == 6 && strcmp(magic, "HSBASE") == 0) {
        m->base = pred_base_load(path, target, err, errlen);
        return m->base ? 0 : -1;
    }
    m->nn = pred_load(path, err, errlen);
    return m->nn ? 0 : -1;
}
