/* predictor_compare.c -- `hetsim predictor compare`: every model on the
 * same splits, as in the papers' tables (Hu, Table 3; Wang et al., Table
 * II). A split is a seeded 70/30 shuffle, or (--leave-out COL) all rows
 * of one value of COL held out. Baselines choose their hyper-parameters
 * on 20% of the training part (a small grid, smallest validation MSE),
 * then refit on the whole training part; test rows are used only for the
 * metrics. Networks keep their preset and recipe; with --leave-out their
 * step budget is chosen on inner leave-group-out folds, and hetsim's own
 * presets add the linear skip path (tune_nn_steps, run_one). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predictor_charts.h"

#define VALID_SEED_OFFSET 7919 /* inner split's seed, apart from outer */

/* Point I of KIND's grid into P (from the defaults); 0, or -1 past the
 * end. */
static int grid_point(enum pred_base_kind kind, size_t i,
                      struct pred_base_params *p)
{
    static const int xgb_depth[] = {3, 6}, rf_depth[] = {6, 10, 16};
    static const int tree_depth[] = {3, 5, 8, 12};
    static const double xgb_eta[] = {0.05, 0.1, 0.3};
    static const double ridge_lambda[] = {0.01, 0.1, 1, 10, 100};
    pred_base_defaults(kind, p);
    switch (kind) {
    case PRED_BASE_XGBOOST:
        if (i >= 6)
            return -1;
        p->max_depth = xgb_depth[i / 3], p->eta = xgb_eta[i % 3];
        return 0;
    case PRED_BASE_RF: return i < 3 ? (p->max_depth = rf_depth[i], 0) : -1;
    case PRED_BASE_TREE: return i < 4 ? (p->max_depth = tree_depth[i], 0) : -1;
    default: return i < 5 ? (p->lambda = ridge_lambda[i], 0) : -1;
    }
}

/* Rows IDX[0..n) of T into X and Y. */
static void gather(const struct pred_table *t, const size_t *idx, size_t n,
                   double *x, double *y)
{
    size_t nf = (size_t)t->nfeat;
    for (size_t i = 0; i < n; i++) {
        memcpy(x + i * nf, t->x + idx[i] * nf, nf * sizeof *x);
        y[i] = t->y[idx[i]];
    }
}

/* Fits S on rows X, Y (N) and returns the MSE on rows VX, VY (NV). */
static double try_fit(const struct pmodel_spec *s, const struct pmodel_fit *f,
                      const struct pred_schema *sc, const double *x,
                      const double *y, size_t n, const double *vx,
                      const double *vy, size_t nv, double *scratch, char *err,
                      size_t errlen)
{
    struct pmodel m;
    int rc = pmodel_fit(&m, s, f, sc, x, y, n, err, errlen);
    if (rc == 0)
        rc = pmodel_predict(&m, vx, nv, scratch, err, errlen);
    pmodel_free(&m);
    if (rc < 0)
        return NAN;
    struct pred_metrics mt;
    pred_metrics_compute(vy, scratch, nv, &mt);
    return mt.mse;
}

/* Inner fold K of the training rows TX, TY (NT): a seeded 80/20 split
 * (one fold), or with groups TG (--leave-out) the rows of the K-th group
 * present (up to CMP_INNER_FOLDS). Writes the rows, fitted ones first,
 * to X, Y and returns how many are fitted; 0 past the last fold. */
#define CMP_INNER_FOLDS 5
static size_t inner_fold(const struct pmodel_fit *f, const size_t *tg,
                         const double *tx, const double *ty, size_t nt,
                         size_t nf, size_t k, double *x, double *y, size_t *idx)
{
    size_t nfit = 0;
    if (!tg) {
        if (k > 0)
            return 0;
        nfit = pred_split(nt, 0.8, f->seed + VALID_SEED_OFFSET, idx);
    } else {
        /* The K-th smallest group code among the training rows. */
        size_t g = (size_t)-1, seen = 0, prev = 0;
        for (size_t j = 0; j <= k && j < CMP_INNER_FOLDS; j++, seen++) {
            size_t next = (size_t)-1;
            for (size_t i = 0; i < nt; i++)
                if ((j == 0 || tg[i] > prev) && tg[i] < next)
                    next = tg[i];
            if (next == (size_t)-1)
                break;
            g = prev = next;
        }
        if (seen != k + 1 || g == (size_t)-1)
            return 0;
        size_t a = 0, b = nt;
        for (size_t i = 0; i < nt; i++)
            idx[tg[i] == g ? --b : a++] = i;
        if (a == 0)
            return 0;
        nfit = a;
    }
    for (size_t i = 0; i < nt; i++) {
        memcpy(x + i * nf, tx + idx[i] * nf, nf * sizeof *x);
        y[i] = ty[idx[i]];
    }
    return nfit;
}

/* Chooses S->params on inner folds of the training rows (TX, TY, NT;
 * groups TG or NULL): the grid point of least validation MSE summed over
 * the folds; records the choice in CHOICE. 0, or -1 with a message. */
static int tune(struct pmodel_spec *s, const struct pmodel_fit *f,
                const struct pred_schema *sc, const double *tx,
                const double *ty, const size_t *tg, size_t nt, char *choice,
                size_t clen, char *err, size_t errlen)
{
    size_t nf = (size_t)sc->nfeat, *idx = malloc(nt * sizeof *idx);
    double *x = malloc(nt * nf * sizeof *x), *y = malloc(nt * sizeof *y);
    double *scratch = malloc(nt * sizeof *scratch);
    int rc = -1;
    if (!idx || !x || !y || !scratch) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    double best = INFINITY;
    struct pred_base_params p;
    s->params_set = 1;
    for (size_t g = 0; grid_point(s->kind, g, &p) == 0; g++) {
        struct pmodel_spec trial = *s;
        trial.params = p;
        double mse = 0;
        size_t nfit;
        for (size_t k = 0;
             (nfit = inner_fold(f, tg, tx, ty, nt, nf, k, x, y, idx)) > 0;
             k++) {
            mse += try_fit(&trial, f, sc, x, y, nfit, x + nfit * nf, y + nfit,
                           nt - nfit, scratch, err, errlen);
            if (isnan(mse))
                goto done;
        }
        if (mse < best) {
            best = mse;
            s->params = p;
        }
    }
    if (s->kind == PRED_BASE_LINEAR)
        snprintf(choice, clen, "lambda=%g", s->params.lambda);
    else if (s->kind == PRED_BASE_XGBOOST)
        snprintf(choice, clen, "max_depth=%d eta=%g", s->params.max_depth,
                 s->params.eta);
    else
        snprintf(choice, clen, "max_depth=%d", s->params.max_depth);
    rc = 0;
done:
    free(idx);
    free(x);
    free(y);
    free(scratch);
    return rc;
}

/* --leave-out, networks: the step budget, chosen like a baseline's grid
 * point on the same inner folds (each training group held out in turn,
 * up to CMP_INNER_FOLDS). Each candidate (the recipe's budget B times
 * 1/16, 1/4 and 1) is a whole run, warm-up and cosine decay over its own
 * steps, fitted on the inner fold's training groups and scored (MSE) on
 * the group held out; the least summed MSE wins and goes to F->nn.steps.
 * Not when --steps or --epochs gives the budget. Until issue 18's third
 * round the budget was the mean step of least held-out MSE within one
 * run of B steps: a step taken while the learning rate was still high
 * and the skip path's weights (which start at 0) unlearnt. */
#define CMP_NN_STEP_GRID 3
static int tune_nn_steps(const struct pmodel_spec *s, struct pmodel_fit *f,
                         const struct pred_schema *sc, const double *tx,
                         const double *ty, const size_t *tg, size_t nt,
                         char *err, size_t errlen)
{
    static const int div[CMP_NN_STEP_GRID] = {16, 4, 1};
    size_t nf = (size_t)sc->nfeat, *idx = malloc(nt * sizeof *idx), nfit;
    double *x = malloc(nt * nf * sizeof *x), *y = malloc(nt * sizeof *y);
    double *scratch = malloc(nt * sizeof *scratch);
    int rc = -1;
    if (!idx || !x || !y || !scratch) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    struct pred_train_opts t;
    pmodel_nn_train_opts(&f->nn, nt, &t);
    long budget =
        t.steps > 0 ? t.steps
                    : (long)t.epochs *
                          (long)((nt + (size_t)t.batch - 1) / (size_t)t.batch);
    struct pmodel_fit g = *f;
    g.nn.ensemble = 1;
    g.nn.epochs = -1;
    g.nn.val_frac = 0;
    g.val_last = 0;
    g.loss_out = NULL;
    g.nloss = NULL;
    double best = INFINITY;
    int chosen = 0;
    for (int c = 0; c < CMP_NN_STEP_GRID; c++) {
        g.nn.steps = (int)(budget / div[c] > 1 ? budget / div[c] : 1);
        double mse = 0;
        size_t folds = 0;
        while ((nfit = inner_fold(f, tg, tx, ty, nt, nf, folds, x, y, idx)) >
               0) {
            mse += try_fit(s, &g, sc, x, y, nfit, x + nfit * nf, y + nfit,
                           nt - nfit, scratch, err, errlen);
            folds++;
            if (isnan(mse))
                goto done;
        }
        if (folds == 0)
            break; /* one training group: keep the recipe's budget */
        if (mse < best)
            best = mse, chosen = g.nn.steps;
    }
    if (chosen > 0) {
        f->nn.steps = chosen;
        f->nn.epochs = -1;
        f->nn.val_frac = 0;
    }
    rc = 0;
done:
    free(idx);
    free(x);
    free(y);
    free(scratch);
    return rc;
}

/* One model on one split: tune (baselines), fit, time, predict. */
static int run_one(struct cmp *c, size_t mi, size_t split, const double *tx,
                   const double *ty, const size_t *tg, size_t nt,
                   const double *vx, const double *vy, size_t nv, char *err,
                   size_t errlen)
{
    struct cmp_model *cm = &c->models[mi];
    struct pmodel_spec s = cm->spec;
    struct pmodel_fit f = c->fit;
    f.seed = c->fit.seed + split;
    char choice[256] = "preset";
    if (!s.nn && tune(&s, &f, c->schema, tx, ty, tg, nt, choice, sizeof choice,
                      err, errlen) < 0)
        return -1;
    /* A held-out group asks the network to extrapolate: hetsim's own
     * presets add the linear skip path unless the command line says
     * (docs/predictor.md, "leaving one GPU type out"); inner folds cannot
     * choose it, since with two training groups one is fitted alone and
     * the columns that tell the groups apart are then constant. */
    if (s.nn && tg && f.nn.linear_skip < 0 && pmodel_nn_hetsim_preset(&s))
        f.nn.linear_skip = 1;
    if (s.nn && tg && f.nn.steps <= 0 && f.nn.epochs <= 0 &&
        tune_nn_steps(&s, &f, c->schema, tx, ty, tg, nt, err, errlen) < 0)
        return -1;
    if (split == 0) {
        f.loss_out = cm->loss;
        f.nloss = &cm->nloss;
    }
    struct pmodel m;
    double t0 = cli_clock();
    int rc = pmodel_fit(&m, &s, &f, c->schema, tx, ty, nt, err, errlen);
    double t1 = cli_clock();
    double *yhat = split == 0 ? cm->pred0 : c->scratch;
    if (rc == 0)
        rc = pmodel_predict(&m, vx, nv, yhat, err, errlen);
    double t2 = cli_clock();
    if (rc == 0 && m.nn)
        pmodel_nn_describe(&m, choice, sizeof choice);
    pmodel_free(&m);
    if (rc < 0)
        return -1;
    pred_metrics_compute(vy, yhat, nv, &cm->m[split]);
    cm->train_s += t1 - t0;
    cm->infer_us += (t2 - t1) * 1e6 / (double)nv;
    snprintf(cm->choice[split], sizeof cm->choice[split], "%s", choice);
    return 0;
}

/* The rows of split K: seeded 70/30, or group K held out. */
static size_t make_split(const struct cmp *c, size_t k, size_t *idx)
{
    const struct pred_table *t = c->t;
    if (!c->loo)
        return pred_split(t->n, 0.7, c->fit.seed + k, idx);
    size_t a = 0, b = t->n;
    for (size_t i = 0; i < t->n; i++) {
        if (t->group[i] == k)
            idx[--b] = i;
        else
            idx[a++] = i;
    }
    /* The held-out rows were filled from the end: restore file order. */
    for (size_t i = a, j = t->n - 1; i < j; i++, j--) {
        size_t tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
    }
    return a;
}

/* How run_all shows its progress on stderr. */
enum { PROGRESS_NONE, PROGRESS_TTY, PROGRESS_LOG };

/* PROGRESS_LOG: a plain line per model fitted on split K, as sweep and
 * reproduce write to a log (no \r). */
static void log_progress(const struct cmp *c, size_t k, size_t mi, double s)
{
    fprintf(stderr,
            "hetsim predictor compare: [%zu/%zu] split %zu/%zu, %s: "
            "%.1f s\n",
            k * c->nmodels + mi + 1, c->nsplits * c->nmodels, k + 1,
            c->nsplits, c->models[mi].spec.name, s);
}

static int run_all(struct cmp *c, int progress)
{
    const struct pred_table *t = c->t;
    size_t nf = (size_t)t->nfeat, n = t->n;
    size_t *idx = malloc(n * sizeof *idx), *tg = malloc(n * sizeof *tg);
    double *x = malloc(n * nf * sizeof *x), *y = malloc(n * sizeof *y);
    char err[512];
    int rc = CLI_OK;
    if (!idx || !tg || !x || !y) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    for (size_t k = 0; rc == CLI_OK && k < c->nsplits; k++) {
        size_t nt = make_split(c, k, idx);
        gather(t, idx, n, x, y);
        for (size_t i = 0; c->loo && i < nt; i++)
            tg[i] = t->group[idx[i]];
        if (k == 0) {
            memcpy(c->actual0, y + nt, (n - nt) * sizeof *y);
            c->ntest0 = n - nt;
        }
        c->ntest[k] = n - nt;
        for (size_t mi = 0; rc == CLI_OK && mi < c->nmodels; mi++) {
            if (progress == PROGRESS_TTY)
                fprintf(stderr, "\rsplit %zu/%zu: %-12s", k + 1, c->nsplits,
                        c->models[mi].spec.name);
            struct cmp_model *cm = &c->models[mi];
            double t0 = cli_clock();
            if (run_one(c, mi, k, x, y, c->loo ? tg : NULL, nt, x + nt * nf,
                        y + nt, n - nt, err, sizeof err) < 0) {
                cli_error("%s: %s", cm->spec.name, err);
                rc = CLI_FAILURE;
                break;
            }
            if (progress == PROGRESS_LOG)
                log_progress(c, k, mi, cli_clock() - t0);
            const double *yhat = k == 0 ? cm->pred0 : c->scratch;
            for (size_t i = nt; c->loo && i < n; i++)
                cm->pooled[idx[i]] = yhat[i - nt];
        }
    }
    if (progress == PROGRESS_TTY)
        fprintf(stderr, "\r%40s\r", "");
    free(idx);
    free(tg);
    free(x);
    free(y);
    return rc;
}

static int parse_models(struct cmp *c, const struct pcli_args *a)
{
    const char *list = a->models
                           ? a->models
                           : "tbigru,transformer,bigru,xgboost,rf,tree,linear";
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (c->nmodels == CMP_MAX_MODELS)
            return cli_usage_error("hetsim predictor compare",
                                   "at most %d "
                                   "models",
                                   CMP_MAX_MODELS);
        if (pmodel_parse(&c->models[c->nmodels].spec, tok, a->arch) < 0)
            return cli_usage_error("hetsim predictor compare",
                                   "unknown "
                                   "model '%s' (choose from: tbigru, "
                                   "transformer, bigru, hu2025, wang2025, "
                                   "seed000, seed002, xgboost, rf, tree, "
                                   "linear)",
                                   tok);
        c->nmodels++;
    }
    if (c->nmodels == 0)
        return cli_usage_error("hetsim predictor compare", "--models: empty");
    return CLI_OK;
}

static int alloc_results(struct cmp *c)
{
    size_t n = c->t->n;
    c->actual0 = malloc(n * sizeof *c->actual0);
    c->scratch = malloc(n * sizeof *c->scratch);
    c->ntest = calloc(c->nsplits, sizeof *c->ntest);
    if (!c->actual0 || !c->scratch || !c->ntest)
        return -1;
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        struct cmp_model *cm = &c->models[mi];
        cm->m = calloc(c->nsplits, sizeof *cm->m);
        cm->choice = calloc(c->nsplits, sizeof *cm->choice);
        cm->pred0 = malloc(n * sizeof *cm->pred0);
        cm->loss = malloc(PMODEL_MAX_LOSS * sizeof *cm->loss);
        cm->pooled = malloc(n * sizeof *cm->pooled);
        if (!cm->m || !cm->choice || !cm->pred0 || !cm->loss || !cm->pooled)
            return -1;
    }
    return 0;
}

static void free_results(struct cmp *c)
{
    for (size_t mi = 0; mi < c->nmodels; mi++) {
        free(c->models[mi].m);
        free(c->models[mi].choice);
        free(c->models[mi].pred0);
        free(c->models[mi].loss);
        free(c->models[mi].pooled);
    }
    free(c->actual0);
    free(c->scratch);
    free(c->ntest);
}

int cli_predictor_compare(const struct pcli_args *a)
{
    struct cmp c = {.fit = a->fit,
                    .loo = a->leave_out != NULL,
                    .data = a->data,
                    .out = a->out};
    int rc = parse_models(&c, a);
    if (rc != CLI_OK)
        return rc;
    struct pred_table_opts o = {.target = a->target,
                                .categorical = a->categorical,
                                .drop = a->drop,
                                .group = a->leave_out,
                                .keep = a->keep};
    struct pred_error e;
    if (pred_table_read(a->data, &o, &c.t, &e) < 0)
        return cli_pred_error(&e);
    if (cli_pred_check_log_target(c.t, a->data, a->fit.log_target)) {
        pred_table_destroy(c.t);
        return CLI_BAD_INPUT;
    }
    c.schema = &c.t->schema;
    c.nsplits = c.loo ? c.t->ngroups : a->repeats;
    if (c.t->n < 10 || (c.loo && c.nsplits < 2)) {
        cli_error("%s: %s", a->data,
                  c.loo ? "--leave-out needs a column "
                          "with two values or more"
                        : "fewer than 10 rows");
        pred_table_destroy(c.t);
        return CLI_BAD_INPUT;
    }
    if (alloc_results(&c) < 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    /* One result set: the CSVs and charts replace --out whole. */
    struct exp_set *set = NULL;
    char err[EXP_PATH_MAX + 256];
    if (rc == CLI_OK && exp_set_begin(&set, a->out, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = CLI_FAILURE;
    }
    if (set)
        c.out = exp_set_dir(set);
    if (rc == CLI_OK)
        rc = run_all(&c, a->quiet     ? PROGRESS_NONE
                         : isatty(2) ? PROGRESS_TTY
                                     : PROGRESS_LOG);
    if (rc == CLI_OK)
        rc = pcmp_write_results(&c);
    if (rc == CLI_OK && a->plots)
        pcmp_draw_charts(&c);
    if (rc != CLI_OK)
        exp_set_abort(set);
    else if (exp_set_commit(set, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = CLI_FAILURE;
    }
    c.out = a->out;
    if (rc == CLI_OK && a->json) {
        rc = pcmp_print_json(&c, a->target);
        if (!a->quiet)
            fprintf(stderr, "hetsim predictor compare: results in %s/\n",
                    c.out);
    } else if (rc == CLI_OK)
        pcmp_print_table(&c, a->target);
    free_results(&c);
    pred_table_destroy(c.t);
    return rc;
}
