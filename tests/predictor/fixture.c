/* fixture.c -- the C network against PyTorch (the .txt files in
 * tests/data/predictor, written by tests/predictor/torch_fixture.py with
 * torch.nn.GRU, Linear, LayerNorm and autograd in float64): forward outputs,
 * loss, every parameter gradient, and 10 Adam steps with the learning-rate
 * drop, L2 added to the gradient and clipping at a global norm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "nn_internal.h"

#define MAX_KEYS 16

struct fixture {
    char key[MAX_KEYS][32];
    double *val[MAX_KEYS];
    size_t n[MAX_KEYS];
    int nkeys;
};

static void fixture_read(struct fixture *fx, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/predictor/%s", HETSIM_TEST_DATA, name);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    memset(fx, 0, sizeof *fx);
    char key[32];
    size_t n;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') { /* comment line */
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        ungetc(c, f);
        if (fscanf(f, "%31s %zu", key, &n) != 2)
            break;
        cr_assert_lt(fx->nkeys, MAX_KEYS);
        int k = fx->nkeys++;
        snprintf(fx->key[k], sizeof fx->key[k], "%s", key);
        fx->n[k] = n;
        fx->val[k] = malloc((n ? n : 1) * sizeof(double));
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(fscanf(f, "%lf", &fx->val[k][i]), 1);
        fscanf(f, " ");
    }
    fclose(f);
}

static const double *get(const struct fixture *fx, const char *key, size_t *n)
{
    for (int k = 0; k < fx->nkeys; k++)
        if (strcmp(fx->key[k], key) == 0) {
            if (n)
                *n = fx->n[k];
            return fx->val[k];
        }
    cr_assert_fail("fixture lacks %s", key);
    return NULL;
}

static void fixture_free(struct fixture *fx)
{
    for (int k = 0; k < fx->nkeys; k++)
        free(fx->val[k]);
}

/* |a - b| within 1e-9 relative (1e-12 absolute near zero: a gradient
 * that is zero in exact arithmetic, such as the key bias's, is noise). */
static void assert_close(double a, double b, const char *what, size_t i)
{
    double tol = 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12;
    cr_assert(fabs(a - b) <= tol, "%s[%zu]: C %.17g, torch %.17g", what, i, a,
              b);
}

static const char *const lv[] = {"a", "b", "c", "d", "e", "f"};

/* The model of the fixture, its parameters set from "params". */
static struct pred_model *model_of(const struct fixture *fx,
                                   struct pred_feature *feat)
{
    size_t nl, np;
    const double *ar = get(fx, "arch", NULL), *levels = get(fx, "levels", &nl);
    struct pred_arch a = {"fixture",
                          (int)ar[0],
                          (int)ar[1],
                          (int)ar[2],
                          (int)ar[3],
                          (int)ar[4],
                          (int)ar[5],
                          (int)ar[6],
                          0,
                          ar[7] == 1 ? PRED_ATTENTION_FIRST : PRED_GRU_FIRST,
                          ar[8] == 1 ? PRED_POOL_LAST : PRED_POOL_MEAN,
                          PRED_TOKENS_FEATURE,
                          0,
                          0};
    for (size_t i = 0; i < nl; i++)
        feat[i] = (struct pred_feature){lv[i], (int)levels[i], lv};
    struct pred_schema s = {(int)nl, feat};
    char err[200];
    struct pred_model *m = pred_alloc(&a, &s, err, sizeof err);
    cr_assert(m, "%s", err);
    const double *p = get(fx, "params", &np);
    cr_assert_eq(np, m->nparams, "torch has %zu parameters, C %zu", np,
                 m->nparams);
    for (size_t i = 0; i < np; i++)
        m->params[i] = p[i];
    return m;
}

static void check_fixture(const char *name)
{
    struct fixture fx;
    struct pred_feature feat[8];
    fixture_read(&fx, name);
    struct pred_model *m = model_of(&fx, feat);
    size_t ny, nx, ng;
    const double *x = get(&fx, "x", &nx), *y = get(&fx, "y", &ny);
    int bsz = (int)ny;
    cr_assert_eq(pred_acts_reserve(m, bsz), 0);

    /* Forward, loss and gradients at the initial parameters. */
    memcpy(m->a.x, x, nx * sizeof *x);
    pred_forward(m, bsz, 0);
    const double *out = get(&fx, "out", NULL);
    double loss = 0;
    for (int i = 0; i < bsz; i++) {
        assert_close(m->a.y[i], out[i], "out", (size_t)i);
        loss += (m->a.y[i] - y[i]) * (m->a.y[i] - y[i]) / bsz;
        m->da.y[i] = 2 * (m->a.y[i] - y[i]) / bsz;
    }
    assert_close(loss, get(&fx, "loss", NULL)[0], "loss", 0);
    memset(m->grads, 0, m->nparams * sizeof *m->grads);
    pred_backward(m, bsz);
    const double *g = get(&fx, "grads", &ng);
    for (size_t i = 0; i < ng; i++)
        assert_close(m->grads[i], g[i], "grad", i);

    /* Ten Adam steps on the same batch. */
    const double *tr = get(&fx, "train", NULL);
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.l2 = tr[3];
    o.clip = tr[4];
    const double *losses = get(&fx, "step_losses", NULL);
    for (int s = 0; s < (int)tr[5]; s++) {
        double lr = s < (int)tr[2] ? tr[0] : tr[1];
        double l = pred_train_step(m, x, y, bsz, lr, &o);
        assert_close(l, losses[s], "step loss", (size_t)s);
    }
    const double *after = get(&fx, "params_after", NULL);
    for (size_t i = 0; i < m->nparams; i++)
        assert_close(m->params[i], after[i], "params after 10 steps", i);
    pred_destroy(m);
    fixture_free(&fx);
}

Test(torch_fixture, gru_first_with_mean_pooling_matches_pytorch)
{
    check_fixture("gru_first_mean.txt");
}

Test(torch_fixture, attention_first_with_last_token_pooling_matches_pytorch)
{
    check_fixture("attention_first_last.txt");
}

Test(torch_fixture, transformer_without_gru_matches_pytorch)
{
    check_fixture("transformer_only.txt");
}

Test(torch_fixture, bigru_without_attention_matches_pytorch)
{
    check_fixture("bigru_only.txt");
}

/* The whole training loop of pred_fit with hetsim's recipe against
 * tests/predictor/torch_train_fixture.py: validation rows drawn with GSL's
 * shuffle (re-implemented there), standardization on the fitted rows, log
 * target, reshuffled mini-batches (the last partial), warm-up and cosine
 * schedule, clipping, AdamW decay of weight matrices only, the best
 * epoch's weights kept, predictions in original units. Dropout is 0. */
Test(torch_fixture, whole_training_loop_matches_pytorch)
{
    struct fixture fx;
    struct pred_feature feat[8];
    fixture_read(&fx, "train_loop.txt");
    struct pred_model *m = model_of(&fx, feat);
    size_t n, nx, np, ne;
    const double *x = get(&fx, "x", &nx), *y = get(&fx, "y", &n);
    const double *op = get(&fx, "opts", NULL);
    struct pred_train_opts o;
    pred_train_recipe(&o, n);
    o.steps = (int)op[0];
    o.batch = (int)op[1];
    o.warmup = (int)op[2];
    o.lr = op[3];
    o.lr_min = op[4];
    o.weight_decay = op[5];
    o.clip = op[6];
    o.val_frac = op[7];
    o.seed = (unsigned long)op[8];
    o.log_target = 1;
    /* The validation permutation: GSL here, its Python re-implementation
     * in the fixture. */
    size_t perm[64];
    const double *vp = get(&fx, "val_perm", &np);
    cr_assert_eq(np, n);
    pred_split(n, 0.75, o.seed + 104729, perm);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq((double)perm[i], vp[i], "val_perm[%zu]", i);
    const double *el = get(&fx, "epoch_losses", &ne);
    double loss[64];
    cr_assert_eq(pred_train_epochs(&o, n), (int)ne);
    o.loss_out = loss;
    char err[200];
    cr_assert_eq(pred_fit(m, x, y, n, &o, err, sizeof err), 0, "%s", err);
    for (size_t e = 0; e < ne; e++)
        assert_close(loss[e], el[e], "epoch loss", e);
    const double *best = get(&fx, "best", NULL);
    const struct pred_train_record *r = pred_model_record(m);
    cr_assert_eq(r->best_step, (int)best[0]);
    assert_close(r->val_mse, best[1], "validation MSE", 0);
    const double *after = get(&fx, "params_after", NULL);
    for (size_t i = 0; i < m->nparams; i++)
        assert_close(m->params[i], after[i], "kept parameters", i);
    size_t nn;
    const double *xn = get(&fx, "x_new", NULL),
                 *pp = get(&fx, "predicted", &nn);
    double pred[8];
    cr_assert_eq(pred_predict(m, xn, nn, pred, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < nn; i++)
        assert_close(pred[i], pp[i], "prediction", i);
    (void)nx;
    pred_destroy(m);
    fixture_free(&fx);
}
