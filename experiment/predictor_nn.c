/* predictor_nn.c -- the networks of `hetsim predictor`: their training
 * options on the command line (every hyper-parameter of
 * struct pred_train_opts), the recipe they start from (hetsim's, or
 * Hu's Table 2 with --recipe hu2025), and ensembles averaged over seeds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor_cmd.h"

void pmodel_nn_defaults(struct pmodel_nn_opts *o)
{
    o->hu = 0;
    o->epochs = o->steps = o->batch = o->warmup = o->patience = -1;
    o->schedule = -1;
    o->lr = o->lr_min = o->weight_decay = o->l2 = o->clip = NAN;
    o->val_frac = o->dropout = NAN;
    o->ensemble = 1;
    o->linear_skip = -1;
}

static int num(const char *cmd, const char *name, const char *s, double lo,
               double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return cli_usage_error(cmd, "--%s: expected a number from %g to %g",
                               name, lo, hi);
    *out = v;
    return 0;
}

static int whole(const char *cmd, const char *name, const char *s, double lo,
                 double hi, int *out)
{
    double v = 0;
    int rc = num(cmd, name, s, lo, hi, &v);
    if (rc == 0 && v != floor(v))
        return cli_usage_error(cmd, "--%s: expected a whole number", name);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

int pmodel_nn_option(struct pmodel_nn_opts *o, const char *cmd, int opt,
                     const char *arg)
{
    switch (opt) {
    case 1000:
        if (strcmp(arg, "hu2025") && strcmp(arg, "hetsim"))
            return cli_usage_error(cmd, "--recipe: expected hetsim or hu2025");
        o->hu = strcmp(arg, "hu2025") == 0;
        return 0;
    case 1001: return whole(cmd, "steps", arg, 1, 1e7, &o->steps);
    case 1002: return whole(cmd, "batch", arg, 1, 65536, &o->batch);
    case 1003: return num(cmd, "lr", arg, 1e-9, 10, &o->lr);
    case 1004: return num(cmd, "lr-min", arg, 0, 1, &o->lr_min);
    case 1005: return whole(cmd, "warmup", arg, 0, 1e7, &o->warmup);
    case 1006: {
        enum pred_schedule s;
        if (pred_schedule_parse(&s, arg) < 0)
            return cli_usage_error(cmd, "--schedule: expected cosine or step");
        o->schedule = (int)s;
        return 0;
    }
    case 1007: return num(cmd, "weight-decay", arg, 0, 10, &o->weight_decay);
    case 1008: return num(cmd, "l2", arg, 0, 10, &o->l2);
    case 1009: return num(cmd, "clip", arg, 0, 1e9, &o->clip);
    case 1010: return num(cmd, "val-frac", arg, 0, 0.9, &o->val_frac);
    case 1011: return whole(cmd, "patience", arg, 0, 1e7, &o->patience);
    case 1012: return num(cmd, "dropout", arg, 0, 0.99, &o->dropout);
    case 1013:
        return whole(cmd, "ensemble", arg, 1, PMODEL_MAX_ENSEMBLE,
                     &o->ensemble);
    case 1014: return whole(cmd, "epochs", arg, 1, 100000, &o->epochs);
    case 1015: o->linear_skip = 1; return 0;
    case 1016: o->linear_skip = 0; return 0;
    default: return 1;
    }
}

void pmodel_nn_train_opts(const struct pmodel_nn_opts *o, size_t n,
                          struct pred_train_opts *t)
{
    if (o->hu)
        pred_train_defaults(t);
    else
        pred_train_recipe(t, n);
    if (o->epochs > 0) /* epochs given: counted in epochs */
        t->epochs = o->epochs, t->steps = 0;
    if (o->steps > 0)
        t->steps = o->steps;
    if (o->batch > 0)
        t->batch = o->batch;
    if (o->warmup >= 0)
        t->warmup = o->warmup;
    else if (o->steps > 0) /* the recipe's share: 5 % of the steps */
        t->warmup = t->steps / 20;
    if (o->patience >= 0)
        t->patience = o->patience;
    if (o->schedule >= 0)
        t->schedule = (enum pred_schedule)o->schedule;
    if (!isnan(o->lr))
        t->lr = o->lr;
    if (!isnan(o->lr_min))
        t->lr_min = o->lr_min;
    if (!isnan(o->weight_decay))
        t->weight_decay = o->weight_decay;
    if (!isnan(o->l2))
        t->l2 = o->l2;
    if (!isnan(o->clip))
        t->clip = o->clip;
    if (!isnan(o->val_frac))
        t->val_frac = o->val_frac;
}

int pmodel_nn_fit(struct pmodel *m, const struct pmodel_spec *s,
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
    if (!isnan(f->nn.dropout))
        a.dropout = f->nn.dropout;
    if (f->nn.linear_skip >= 0)
        a.linear_skip = f->nn.linear_skip;
    struct pred_train_opts o;
    pmodel_nn_train_opts(&f->nn, n, &o);
    o.log_target = f->log_target;
    o.val_last = f->val_last;
    o.loss_out = f->loss_out;
    if (f->loss_out && f->nloss)
        *f->nloss = (size_t)pred_train_epochs(&o, n);
    int k = f->nn.ensemble > 0 ? f->nn.ensemble : 1;
    for (m->nens = 0; m->nens < k; m->nens++) {
        unsigned long seed = f->seed + 1000ul * (unsigned long)m->nens;
        o.seed = seed;
        if (m->nens > 0)
            o.loss_out = NULL;
        struct pred_model *nn = pred_create(&a, sc, seed, err, errlen);
        if (!nn)
            return -1;
        m->ens[m->nens] = nn;
        if (m->nens == 0)
            m->nn = nn;
        if (pred_fit(nn, x, y, n, &o, err, errlen) < 0) {
            m->nens++;
            return -1;
        }
    }
    return 0;
}

int pmodel_nn_hetsim_preset(const struct pmodel_spec *s)
{
    /* hetsim's own presets; the papers' (hu2025, wang2025) and seed000
     * keep their layers as published. */
    return s->nn && (strcmp(s->arch, "tbigru") == 0 ||
                     strcmp(s->arch, "transformer") == 0 ||
                     strcmp(s->arch, "bigru") == 0);
}

void pmodel_nn_describe(const struct pmodel *m, char *buf, size_t len)
{
    const struct pred_train_record *r = pred_model_record(m->nn);
    const struct pred_train_opts *o = &r->opts;
    int n = snprintf(buf, len, "%s ", pred_model_arch(m->nn)->name);
    if (n < 0 || (size_t)n >= len)
        return;
    if (o->steps > 0)
        n += snprintf(buf + n, len - (size_t)n, "steps=%d", o->steps);
    else
        n += snprintf(buf + n, len - (size_t)n, "epochs=%d", o->epochs);
    if (n < 0 || (size_t)n >= len)
        return;
    if (o->schedule == PRED_SCHED_COSINE)
        n += snprintf(buf + n, len - (size_t)n, " cosine warmup=%d lr_min=%g",
                      o->warmup, o->lr_min);
    else
        n += snprintf(buf + n, len - (size_t)n, " step lr_after=%g@%d",
                      o->lr_after, o->lr_drop_epoch);
    if (n < 0 || (size_t)n >= len)
        return;
    snprintf(buf + n, len - (size_t)n,
             " batch=%d lr=%g wd=%g l2=%g clip=%g dropout=%g val=%g "
             "patience=%d best_step=%d/%d ensemble=%d%s",
             o->batch, o->lr, o->weight_decay, o->l2, o->clip,
             pred_model_arch(m->nn)->dropout, o->val_frac, o->patience,
             r->best_step, r->steps_run, m->nens,
             pred_model_arch(m->nn)->linear_skip ? " linear_skip" : "");
}
