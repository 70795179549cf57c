/* train.c -- training (mini-batch Adam on the mean squared error of the
 * standardized target, Hu's Table 2 settings by default) and prediction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "nn_internal.h"

/* Clipping, L2 and Adam, in the order of torch: clip_grad_norm_ on the
 * loss gradient (coefficient clip / (norm + 1e-6) when below 1), then
 * Adam with weight_decay, which adds l2 * w to the clipped gradient;
 * AdamW's decoupled decay (w -= lr * wd * w, before the Adam update, as
 * torch.optim.AdamW) on the weight matrices of m->decay. */
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
    double wd = m->decay ? lr * o->weight_decay : 0;
    for (size_t i = 0; i < n; i++) {
        double p = m->params[i];
        double g = m->grads[i] * coef + o->l2 * p;
        if (wd > 0 && m->decay[i])
            p -= wd * p;
        double mm = o->beta1 * m->m1[i] + (1 - o->beta1) * g;
        double vv = o->beta2 * m->v1[i] + (1 - o->beta2) * g * g;
        m->m1[i] = (pfloat)mm;
        m->v1[i] = (pfloat)vv;
        m->params[i] =
            (pfloat)(p - lr / bc1 * mm / (sqrt(vv) / sqrt(bc2) + o->eps));
    }
    pred_params_changed(m);
}

double pred_train_step(struct pred_model *m, const pfloat *x, const pfloat *y,
                       int bsz, double lr, const struct pred_train_opts *o)
{
    /* The batch goes through in chunks whose activations stay in cache;
     * their parameter gradients add up to the batch's. */
    size_t t = (size_t)m->nx;
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
    size_t t = (size_t)m->nx;
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
    if ((o->steps <= 0 && o->epochs < 1) || o->batch < 1 || o->steps < 0)
        return "epochs (or steps) and batch must be positive";
    if (!(o->lr > 0) || !(o->lr_after > 0) || !(o->l2 >= 0) ||
        !(o->weight_decay >= 0))
        return "learning rates must be positive, l2 and weight decay "
               "non-negative";
    if (o->schedule == PRED_SCHED_COSINE &&
        (o->warmup < 0 || !(o->lr_min >= 0 && o->lr_min <= 1)))
        return "warm-up must be non-negative and lr_min in [0, 1]";
    if (!(o->val_frac >= 0 && o->val_frac < 1) || o->patience < 0)
        return "the validation fraction must be in [0, 1), patience >= 0";
    if (!(o->beta1 >= 0 && o->beta1 < 1 && o->beta2 >= 0 && o->beta2 < 1 &&
          o->eps > 0))
        return "Adam needs beta1, beta2 in [0, 1) and eps > 0";
    return NULL;
}

/* MSE of the model on NV standardized rows (fitted units), dropout off. */
static double val_mse(struct pred_model *m, const pfloat *xs, const pfloat *ys,
                      size_t nv)
{
    size_t t = (size_t)m->nx, cap = (size_t)m->chunk;
    double sum = 0;
    for (size_t s = 0; s < nv; s += cap) {
        size_t nb = nv - s < cap ? nv - s : cap;
        memcpy(m->a.x, xs + s * t, nb * t * sizeof *xs);
        pred_forward(m, (int)nb, 0);
        for (size_t i = 0; i < nb; i++) {
            double d = (double)m->a.y[i] - ys[s + i];
            sum += d * d;
        }
    }
    return sum / (double)nv;
}

/* The state of one fit: standardized rows (the NF fitted first, then the
 * NV validation rows), batch buffers and the best weights so far. */
struct fit_state {
    pfloat *xs, *ys, *xb, *yb, *best;
    size_t *perm, nf, nv;
};

static void fit_state_free(struct fit_state *f)
{
    free(f->xs);
    free(f->ys);
    free(f->xb);
    free(f->yb);
    free(f->best);
    free(f->perm);
}

/* Orders the rows (validation rows drawn with O->seed last), allocates
 * and standardizes. 0, or -1 with a message. */
static int fit_prepare(struct pred_model *m, struct fit_state *f,
                       const double *x, const double *y, size_t n,
                       const struct pred_train_opts *o, char *err,
                       size_t errlen)
{
    size_t t = (size_t)m->nx;
    memset(f, 0, sizeof *f);
    f->nf = n;
    if (o->val_last > 0 && o->val_last < n) {
        f->nv = o->val_last;
        f->nf = n - f->nv;
    } else if (o->val_frac > 0 && n >= 2) {
        size_t nv = (size_t)llround(o->val_frac * (double)n);
        f->nv = nv < 1 ? 1 : nv > n - 1 ? n - 1 : nv;
        f->nf = n - f->nv;
    }
    size_t bs = (size_t)o->batch < f->nf ? (size_t)o->batch : f->nf;
    f->xs = malloc(n * t * sizeof *f->xs);
    f->ys = malloc(n * sizeof *f->ys);
    f->xb = malloc(bs * t * sizeof *f->xb);
    f->yb = malloc(bs * sizeof *f->yb);
    f->perm = malloc(n * sizeof *f->perm);
    f->best = f->nv ? malloc(m->nparams * sizeof *f->best) : NULL;
    double *ox = malloc(n * t * sizeof *ox), *oy = malloc(n * sizeof *oy);
    int rc = -1;
    if (!f->xs || !f->ys || !f->xb || !f->yb || !f->perm || !ox || !oy ||
        (f->nv && !f->best) || pred_decay_mask(m) < 0 ||
        pred_acts_reserve(m, bs < (size_t)m->chunk ? (int)bs : m->chunk) < 0) {
        fail(err, errlen, "out of memory", 0);
        goto done;
    }
    if (f->nv && !(o->val_last > 0 && o->val_last < n))
        pred_split(n, (double)f->nf / (double)n, o->seed + 104729, f->perm);
    else
        for (size_t i = 0; i < n; i++)
            f->perm[i] = i;
    for (size_t i = 0; i < n; i++) {
        memcpy(ox + i * t, x + f->perm[i] * t, t * sizeof *ox);
        oy[i] = y[f->perm[i]];
    }
    /* Scalers from the fitted rows only; the validation rows through them
     * (a row failing there is reported by its place in X). */
    if (standardize_train(m, ox, oy, f->nf, o->log_target, f->xs, f->ys, err,
                          errlen) < 0)
        goto done;
    for (size_t r = f->nf; r < n; r++) {
        double v = oy[r];
        if (!isfinite(v) || (o->log_target && !(v > 0))) {
            fail(err, errlen,
                 "target is not finite (or not > 0 with a log "
                 "target)",
                 f->perm[r]);
            goto done;
        }
        v = o->log_target ? log(v) : v;
        f->ys[r] = (pfloat)((v - m->ys.mean) / m->ys.sd);
        for (size_t i = 0; i < t; i++) {
            double xv = ox[r * t + i];
            if (m->kind[i] >= 0 && !isfinite(xv)) {
                fail(err, errlen, "a numeric feature is not finite",
                     f->perm[r]);
                goto done;
            }
            f->xs[r * t + i] =
                (pfloat)(m->kind[i] < 0 ? xv
                                        : (xv - m->xs[i].mean) / m->xs[i].sd);
        }
    }
    rc = 0;
done:
    free(ox);
    free(oy);
    return rc;
}

/* Keeps the weights when the validation MSE is the best so far; returns
 * 1 when training should stop (patience spent). */
static int check_val(struct pred_model *m, struct fit_state *f,
                     const struct pred_train_opts *o, int step, int *stale)
{
    if (!f->nv)
        return 0;
    double v = val_mse(m, f->xs + f->nf * (size_t)m->nx, f->ys + f->nf, f->nv);
    if (!(v >= m->rec.val_mse)) { /* also when val_mse is still NAN */
        m->rec.val_mse = v;
        m->rec.best_step = step;
        memcpy(f->best, m->params, m->nparams * sizeof *f->best);
        *stale = 0;
        return 0;
    }
    return o->patience > 0 && ++*stale >= o->patience;
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
    struct fit_state f;
    if (fit_prepare(m, &f, x, y, n, o, err, errlen) < 0) {
        fit_state_free(&f);
        return -1;
    }
    size_t t = (size_t)m->nx, nf = f.nf, bs = (size_t)o->batch;
    memset(m->m1, 0, m->nparams * sizeof *m->m1);
    memset(m->v1, 0, m->nparams * sizeof *m->v1);
    m->adam_t = 0;
    memset(&m->rec, 0, sizeof m->rec);
    m->rec.opts = *o;
    m->rec.opts.on_epoch = NULL, m->rec.opts.ctx = NULL;
    m->rec.opts.loss_out = NULL;
    m->rec.n_fit = nf, m->rec.n_val = f.nv, m->rec.val_mse = NAN;
    gsl_rng_set(m->rng, o->seed);
    size_t *perm = f.perm;
    for (size_t i = 0; i < nf; i++)
        perm[i] = i;
    int per = (int)((nf + bs - 1) / bs);
    int total = o->steps > 0 ? o->steps : o->epochs * per, step = 0, stale = 0;
    int e = 0, stop = 0;
    for (; step < total && !stop; e++) {
        gsl_ran_shuffle(m->rng, perm, nf, sizeof *perm);
        double sum = 0;
        size_t rows = 0;
        for (size_t s = 0; s < nf && step < total; s += bs, step++) {
            size_t nb = nf - s < bs ? nf - s : bs;
            for (size_t k = 0; k < nb; k++) {
                memcpy(f.xb + k * t, f.xs + perm[s + k] * t, t * sizeof *f.xb);
                f.yb[k] = f.ys[perm[s + k]];
            }
            double lr = pred_lr_at(o, step, total, e);
            sum += pred_train_step(m, f.xb, f.yb, (int)nb, lr, o) * (double)nb;
            rows += nb;
        }
        if (o->loss_out)
            o->loss_out[e] = sum / (double)rows;
        if (o->on_epoch)
            o->on_epoch(e, sum / (double)rows, o->ctx);
        stop = check_val(m, &f, o, step, &stale);
    }
    if (f.nv) {
        memcpy(m->params, f.best, m->nparams * sizeof *f.best);
        pred_params_changed(m);
    } else
        m->rec.best_step = step;
    m->rec.steps_run = step;
    m->rec.epochs_run = e;
    m->fitted = 1;
    fit_state_free(&f);
    return 0;
}

int pred_predict(struct pred_model *m, const double *x, size_t n, double *out,
                 char *err, size_t errlen)
{
    size_t t = (size_t)m->nx;
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
        if (pred_fast_forward(m, (int)nb) < 0)
            pred_forward(m, (int)nb, 0);
        for (size_t r = 0; r < nb; r++) {
            double v = (double)m->a.y[r] * m->ys.sd + m->ys.mean;
            out[s + r] = m->log_target ? exp(v) : v;
        }
    }
    return 0;
}
