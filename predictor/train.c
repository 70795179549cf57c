/* train.c -- training (mini-batch Adam on the mean squared error of the
 * standardized target, Hu's Table 2 settings by default) and prediction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "nn_internal.h"

void pred_train_defaults(struct pred_train_opts *o)
{
    memset(o, 0, sizeof *o);
    o->epochs = 200;
    o->batch = 256;
    o->lr = 0.01;
    o->lr_after = 0.001;
    o->lr_drop_epoch = 80;
    o->l2 = 0.001;
    o->clip = 10;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->seed = 1;
}

/* Clipping, L2 and Adam, in the order of torch: clip_grad_norm_ on the
 * loss gradient (coefficient clip / (norm + 1e-6) when below 1), then
 * Adam with weight_decay, which adds l2 * w to the clipped gradient. */
static void adam_step(struct pred_model *m, double lr,
                      const struct pred_train_opts *o)
{
    size_t n = m->nparams;
    double norm = 0;
    for (size_t i = 0; i < n; i++)
        norm += (double)m->grads[i] * m->grads[i];
    norm = sqrt(norm);
    double coef = 1;
    if (o->clip > 0 && o->clip / (norm + 1e-6) < 1)
        coef = o->clip / (norm + 1e-6);
    m->adam_t++;
    double bc1 = 1 - pow(o->beta1, (double)m->adam_t);
    double bc2 = 1 - pow(o->beta2, (double)m->adam_t);
    for (size_t i = 0; i < n; i++) {
        double p = m->params[i];
        double g = m->grads[i] * coef + o->l2 * p;
        double mm = o->beta1 * m->m1[i] + (1 - o->beta1) * g;
        double vv = o->beta2 * m->v1[i] + (1 - o->beta2) * g * g;
        m->m1[i] = (pfloat)mm;
        m->v1[i] = (pfloat)vv;
        m->params[i] =
            (pfloat)(p - lr / bc1 * mm / (sqrt(vv) / sqrt(bc2) + o->eps));
    }
}

double pred_train_step(struct pred_model *m, const pfloat *x, const pfloat *y,
                       int bsz, double lr, const struct pred_train_opts *o)
{
    /* The batch goes through in chunks whose activations stay in cache;
     * their parameter gradients add up to the batch's. */
    size_t t = (size_t)m->t;
    double loss = 0;
    memset(m->grads, 0, m->nparams * sizeof *m->grads);
    for (int s = 0; s < bsz; s += m->chunk) {
        int nb = bsz - s < m->chunk ? bsz - s : m->chunk;
        memcpy(m->a.x, x + (size_t)s * t, (size_t)nb * t * sizeof *x);
        pred_forward(m, nb, 1);
        for (int i = 0; i < nb; i++) {
            double d = (double)m->a.y[i] - y[s + i];
            loss += d * d;
            m->da.y[i] = (pfloat)(2 * d / bsz);
        }
        pred_backward(m, nb);
    }
    adam_step(m, lr, o);
    return loss / bsz;
}

static int fail(char *err, size_t errlen, const char *why, size_t row)
{
    if (err && errlen)
        snprintf(err, errlen, "predictor: row %zu: %s", row + 1, why);
    return -1;
}

/* Fits the scalers on X, Y and writes the standardized rows to XS, YS. */
static int standardize_train(struct pred_model *m, const double *x,
                             const double *y, size_t n, int log_target,
                             pfloat *xs, pfloat *ys, char *err, size_t errlen)
{
    size_t t = (size_t)m->t;
    double *ty = malloc(n * sizeof *ty);
    if (!ty)
        return fail(err, errlen, "out of memory", 0);
    for (size_t r = 0; r < n; r++) {
        if (!isfinite(y[r]) || (log_target && !(y[r] > 0))) {
            free(ty);
            return fail(err, errlen,
                        log_target
                            ? "target must be finite and positive (log target)"
                            : "target is not finite",
                        r);
        }
        ty[r] = log_target ? log(y[r]) : y[r];
    }
    pred_scaler_fit(&m->ys, ty, n, 1);
    for (size_t r = 0; r < n; r++)
        ys[r] = (pfloat)((ty[r] - m->ys.mean) / m->ys.sd);
    free(ty);
    for (size_t i = 0; i < t; i++) {
        if (m->kind[i] < 0)
            continue;
        if (pred_scaler_fit(&m->xs[i], x + i, n, t) < 0) {
            for (size_t r = 0; r < n; r++)
                if (!isfinite(x[r * t + i]))
                    return fail(err, errlen,
                                "a numeric feature is not "
                                "finite",
                                r);
        }
    }
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < t; i++)
            xs[r * t + i] =
                (pfloat)(m->kind[i] < 0
                             ? x[r * t + i]
                             : (x[r * t + i] - m->xs[i].mean) / m->xs[i].sd);
    m->log_target = log_target;
    return 0;
}

static const char *check_opts(const struct pred_train_opts *o, size_t n)
{
    if (n == 0)
        return "no training rows";
    if (o->epochs < 1 || o->batch < 1)
        return "epochs and batch must be positive";
    if (!(o->lr > 0) || !(o->lr_after > 0) || !(o->l2 >= 0))
        return "learning rates must be positive and l2 non-negative";
    if (!(o->beta1 >= 0 && o->beta1 < 1 && o->beta2 >= 0 && o->beta2 < 1 &&
          o->eps > 0))
        return "Adam needs beta1, beta2 in [0, 1) and eps > 0";
    return NULL;
}

/* One epoch over the rows in the order of PERM. Returns the mean loss. */
static double run_epoch(struct pred_model *m, const pfloat *xs,
                        const pfloat *ys, const size_t *perm, size_t n,
                        pfloat *xb, pfloat *yb, double lr,
                        const struct pred_train_opts *o)
{
    size_t t = (size_t)m->t, bs = (size_t)o->batch;
    double sum = 0;
    for (size_t s = 0; s < n; s += bs) {
        size_t nb = n - s < bs ? n - s : bs;
        for (size_t k = 0; k < nb; k++) {
            memcpy(xb + k * t, xs + perm[s + k] * t, t * sizeof *xb);
            yb[k] = ys[perm[s + k]];
        }
        sum += pred_train_step(m, xb, yb, (int)nb, lr, o) * (double)nb;
    }
    return sum / (double)n;
}

int pred_fit(struct pred_model *m, const double *x, const double *y, size_t n,
             const struct pred_train_opts *o, char *err, size_t errlen)
{
    const char *why = check_opts(o, n);
    if (why) {
        if (err && errlen)
            snprintf(err, errlen, "predictor: %s", why);
        return -1;
    }
    size_t t = (size_t)m->t, bs = (size_t)o->batch < n ? (size_t)o->batch : n;
    pfloat *xs = malloc(n * t * sizeof *xs), *ys = malloc(n * sizeof *ys);
    pfloat *xb = malloc(bs * t * sizeof *xb), *yb = malloc(bs * sizeof *yb);
    size_t *perm = malloc(n * sizeof *perm);
    int rc = -1;
    if (!xs || !ys || !xb || !yb || !perm ||
        pred_acts_reserve(m, bs < (size_t)m->chunk ? (int)bs : m->chunk) < 0) {
        fail(err, errlen, "out of memory", 0);
        goto done;
    }
    if (standardize_train(m, x, y, n, o->log_target, xs, ys, err, errlen) < 0)
        goto done;
    memset(m->m1, 0, m->nparams * sizeof *m->m1);
    memset(m->v1, 0, m->nparams * sizeof *m->v1);
    m->adam_t = 0;
    gsl_rng_set(m->rng, o->seed);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (int e = 0; e < o->epochs; e++) {
        gsl_ran_shuffle(m->rng, perm, n, sizeof *perm);
        double lr = e < o->lr_drop_epoch ? o->lr : o->lr_after;
        double loss = run_epoch(m, xs, ys, perm, n, xb, yb, lr, o);
        if (o->loss_out)
            o->loss_out[e] = loss;
        if (o->on_epoch)
            o->on_epoch(e, loss, o->ctx);
    }
    m->fitted = 1;
    rc = 0;
done:
    free(xs);
    free(ys);
    free(xb);
    free(yb);
    free(perm);
    return rc;
}

int pred_predict(struct pred_model *m, const double *x, size_t n, double *out,
                 char *err, size_t errlen)
{
    size_t t = (size_t)m->t;
    int cap = m->chunk;
    if (pred_acts_reserve(m, n < (size_t)cap ? (int)n : cap) < 0)
        return fail(err, errlen, "out of memory", 0);
    for (size_t s = 0; s < n; s += (size_t)cap) {
        size_t nb = n - s < (size_t)cap ? n - s : (size_t)cap;
        for (size_t r = 0; r < nb; r++) {
            const double *row = x + (s + r) * t;
            for (size_t i = 0; i < t; i++) {
                if (m->kind[i] < 0) {
                    m->a.x[r * t + i] = (pfloat)row[i];
                    continue;
                }
                if (!isfinite(row[i]))
                    return fail(err, errlen,
                                "a numeric feature is not "
                                "finite",
                                s + r);
                m->a.x[r * t + i] =
                    (pfloat)((row[i] - m->xs[i].mean) / m->xs[i].sd);
            }
        }
        pred_forward(m, (int)nb, 0);
        for (size_t r = 0; r < nb; r++) {
            double v = (double)m->a.y[r] * m->ys.sd + m->ys.mean;
            out[s + r] = m->log_target ? exp(v) : v;
        }
    }
    return 0;
}
