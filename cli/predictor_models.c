/* predictor_models.c -- the models of `hetsim predictor` behind one face:
 * the Transformer-BiGRU family and the baselines (both in
 * predictor.h), fitted, used, saved and loaded the same way. */
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "predictor_cmd.h"

static const char *const NN_NAMES[] = {"tbigru", "transformer", "bigru"};

int pmodel_parse(struct pmodel_spec *s, const char *name, const char *arch)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    for (int i = 0; i < 3; i++)
        if (strcmp(name, NN_NAMES[i]) == 0) {
            s->nn = 1;
            snprintf(s->arch, sizeof s->arch, "%s", i ? name : arch);
            return 0;
        }
    return pred_base_parse(&s->kind, name);
}

void pmodel_free(struct pmodel *m)
{
    pred_destroy(m->nn);
    pred_base_destroy(m->base);
    m->nn = NULL;
    m->base = NULL;
}

static int fit_nn(struct pmodel *m, const struct pmodel_spec *s,
                  const struct pmodel_fit *f, const struct pred_schema *sc,
                  const double *x, const double *y, size_t n, char *err,
                  size_t errlen)
{
    struct pred_arch a;
    if (pred_arch_preset(&a, s->arch) < 0) {
        snprintf(err, errlen, "unknown architecture '%s' (choose from: %s)",
                 s->arch, pred_arch_names());
        return -1;
    }
    if (f->order_set)
        a.order = f->order;
    if (!(m->nn = pred_create(&a, sc, f->seed, err, errlen)))
        return -1;
    struct pred_train_opts o;
    pred_train_defaults(&o);
    if (f->epochs > 0)
        o.epochs = f->epochs;
    o.log_target = f->log_target;
    o.seed = f->seed;
    o.loss_out = f->loss_out;
    if (f->loss_out && f->nloss)
        *f->nloss = (size_t)o.epochs;
    return pred_fit(m->nn, x, y, n, &o, err, errlen);
}

int pmodel_fit(struct pmodel *m, const struct pmodel_spec *s,
               const struct pmodel_fit *f, const struct pred_schema *sc,
               const double *x, const double *y, size_t n, char *err,
               size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (s->nn)
        return fit_nn(m, s, f, sc, x, y, n, err, errlen);
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
    if (m->nn)
        return pred_predict(m->nn, x, n, out, err, errlen);
    return pred_base_predict(m->base, x, n, out, err, errlen);
}

const struct pred_schema *pmodel_schema(const struct pmodel *m)
{
    return m->nn ? pred_model_schema(m->nn) : pred_base_schema(m->base);
}

int pmodel_save(const struct pmodel *m, const char *target, const char *path,
                char *err, size_t errlen)
{
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
