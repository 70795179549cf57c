/* xgb.c -- gradient boosting, random forest and a single tree through
 * XGBoost's C API (Debian libxgboost-dev). One thread, a fixed seed and
 * the exact split finder, so a fit is the same on every run; XGBoost's
 * own logging is silenced. XGBoost works in float32: rows are converted.
 *
 * libxgboost is opened (dlopen) at the first fit or load, not linked:
 * with libdmlc, libstdc++ and libgomp it costs every hetsim command about
 * 9 ms of start-up (docs/performance.md, "Start-up"), and only the
 * baselines use it. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xgboost/c_api.h>

#include "tabular_internal.h"

/* Debian's libxgboost0 (the runtime package of libxgboost-dev). */
#define XGB_LIBRARY "libxgboost.so.0"

/* The C API functions used here, typed from <xgboost/c_api.h>. */
#define XGB_FUNCTIONS(X)                                                       \
    X(XGBGetLastError)                                                         \
    X(XGBSetGlobalConfig)                                                      \
    X(XGBoosterCreate)                                                         \
    X(XGBoosterEvalOneIter)                                                    \
    X(XGBoosterFree)                                                           \
    X(XGBoosterLoadModelFromBuffer)                                            \
    X(XGBoosterPredict)                                                        \
    X(XGBoosterSaveModelToBuffer)                                              \
    X(XGBoosterSetParam)                                                       \
    X(XGBoosterUpdateOneIter)                                                  \
    X(XGDMatrixCreateFromMat)                                                  \
    X(XGDMatrixFree)                                                           \
    X(XGDMatrixSetFloatInfo)

#define XGB_FIELD(f) __typeof__(&f) f;
static struct {
    XGB_FUNCTIONS(XGB_FIELD)
} xg;

static pthread_once_t xg_once = PTHREAD_ONCE_INIT;
static char xg_why[400]; /* why the library is unusable; "" when loaded */

#define XGB_RESOLVE(f)                                                         \
    if (!(sym = dlsym(lib, #f)))                                               \
        goto missing;                                                          \
    memcpy(&xg.f, &sym, sizeof sym);

/* Opens the library and fills xg, once; the library stays open (its
 * boosters may live until exit). */
static void xg_open(void)
{
    void *lib = dlopen(XGB_LIBRARY, RTLD_NOW | RTLD_LOCAL), *sym;
    if (!lib) {
        const char *e = dlerror();
        snprintf(xg_why, sizeof xg_why,
                 "xgboost: cannot load %s (%s): install the Debian package "
                 "libxgboost0 (or run 'make deps')",
                 XGB_LIBRARY, e ? e : "not found");
        return;
    }
    XGB_FUNCTIONS(XGB_RESOLVE)
    xg.XGBSetGlobalConfig("{\"verbosity\":0}");
    return;
missing:; /* an older XGBoost than libxgboost-dev's headers */
    const char *e = dlerror();
    snprintf(xg_why, sizeof xg_why, "xgboost: %s: %s", XGB_LIBRARY,
             e ? e : "a function is missing");
    memset(&xg, 0, sizeof xg);
    dlclose(lib);
}

/* 0 once the library is usable, else -1 with ERR saying why. */
static int xg_ready(char *err, size_t errlen)
{
    pthread_once(&xg_once, xg_open);
    if (!xg_why[0])
        return 0;
    snprintf(err, errlen, "%s", xg_why);
    return -1;
}

static int xgb_error(const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "xgboost: %s: %s", what, xg.XGBGetLastError());
    return -1;
}

/* A DMatrix of N rows of NF features (float32); labels Z when not NULL. */
static int make_matrix(const double *x, const double *z, size_t n, size_t nf,
                       DMatrixHandle *out, char *err, size_t errlen)
{
    float *fx = malloc(n * nf * sizeof *fx + 1);
    float *fz = malloc(n * sizeof *fz + 1);
    int rc = -1;
    if (!fx || !fz) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n * nf; i++)
        fx[i] = (float)x[i];
    if (xg.XGDMatrixCreateFromMat(fx, (bst_ulong)n, (bst_ulong)nf, NAN, out)) {
        xgb_error("matrix", err, errlen);
        goto done;
    }
    rc = 0;
    if (z) {
        for (size_t i = 0; i < n; i++)
            fz[i] = (float)z[i];
        if (xg.XGDMatrixSetFloatInfo(*out, "label", fz, (bst_ulong)n)) {
            rc = xgb_error("labels", err, errlen);
            xg.XGDMatrixFree(*out);
        }
    }
done:
    free(fx);
    free(fz);
    return rc;
}

static int set(BoosterHandle h, const char *key, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    return xg.XGBoosterSetParam(h, key, buf);
}

static int configure(BoosterHandle h, const struct pred_base *b)
{
    const struct pred_base_params *p = &b->p;
    int rf = b->kind == PRED_BASE_RF, boost = b->kind == PRED_BASE_XGBOOST;
    int rc = xg.XGBoosterSetParam(h, "objective", "reg:squarederror") |
             xg.XGBoosterSetParam(h, "tree_method", "exact") |
             set(h, "nthread", 1) |
             set(h, "seed", (double)(p->seed % 2147483647UL)) |
             set(h, "base_score", 0) | /* targets are standardized */
             set(h, "max_depth", p->max_depth) | set(h, "lambda", p->lambda) |
             set(h, "eta", boost ? p->eta : 1.0);
    if (rf)
        rc |= set(h, "num_parallel_tree", p->trees) |
              set(h, "subsample", p->subsample) |
              set(h, "colsample_bynode", p->colsample);
    return rc;
}

/* The training RMSE from "[i]\ttrain-rmse:V". */
static double parse_rmse(const char *s)
{
    const char *p = strstr(s, "rmse:");
    return p ? strtod(p + 5, NULL) : NAN;
}

int xgb_fit(struct pred_base *b, const double *x, const double *z, size_t n,
            char *err, size_t errlen)
{
    DMatrixHandle d;
    BoosterHandle h;
    if (xg_ready(err, errlen) < 0 ||
        make_matrix(x, z, n, (size_t)b->schema.nfeat, &d, err, errlen) < 0)
        return -1;
    if (xg.XGBoosterCreate(&d, 1, &h)) {
        xg.XGDMatrixFree(d);
        return xgb_error("booster", err, errlen);
    }
    b->booster = h;
    int rounds = b->kind == PRED_BASE_XGBOOST ? b->p.rounds : 1, rc = 0;
    if (configure(h, b))
        rc = xgb_error("parameters", err, errlen);
    for (int r = 0; rc == 0 && r < rounds; r++) {
        if (xg.XGBoosterUpdateOneIter(h, r, d)) {
            rc = xgb_error("training", err, errlen);
            break;
        }
        const char *names[] = {"train"}, *out;
        if (b->p.loss_out && !xg.XGBoosterEvalOneIter(h, r, &d, names, 1, &out))
            b->p.loss_out[r] = parse_rmse(out);
    }
    b->p.loss_out = NULL; /* borrowed for the fit only */
    xg.XGDMatrixFree(d);
    return rc;
}

int xgb_predict(struct pred_base *b, const double *x, size_t n, double *out,
                char *err, size_t errlen)
{
    DMatrixHandle d;
    bst_ulong len;
    const float *res;
    if (make_matrix(x, NULL, n, (size_t)b->schema.nfeat, &d, err, errlen) < 0)
        return -1;
    /* option 0: plain values; ntree_limit 0: all trees; training 0 */
    if (xg.XGBoosterPredict(b->booster, d, 0, 0, 0, &len, &res) ||
        len != (bst_ulong)n) {
        xg.XGDMatrixFree(d);
        return xgb_error("prediction", err, errlen);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = res[i];
    xg.XGDMatrixFree(d);
    return 0;
}

int xgb_dump(const struct pred_base *b, const char **buf, size_t *len,
             char *err, size_t errlen)
{
    bst_ulong n;
    if (xg.XGBoosterSaveModelToBuffer(b->booster, "{\"format\":\"json\"}", &n,
                                      buf))
        return xgb_error("save", err, errlen);
    *len = (size_t)n;
    return 0;
}

int xgb_restore(struct pred_base *b, const char *buf, size_t len, char *err,
                size_t errlen)
{
    BoosterHandle h;
    if (xg_ready(err, errlen) < 0)
        return -1;
    if (xg.XGBoosterCreate(NULL, 0, &h))
        return xgb_error("booster", err, errlen);
    b->booster = h;
    if (xg.XGBoosterLoadModelFromBuffer(h, buf, (bst_ulong)len) ||
        xg.XGBoosterSetParam(h, "nthread", "1"))
        return xgb_error("load", err, errlen);
    return 0;
}

void xgb_free(struct pred_base *b)
{
    if (b->booster)
        xg.XGBoosterFree(b->booster);
    b->booster = NULL;
}
