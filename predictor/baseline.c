/* baseline.c -- the baselines of the papers' comparisons behind one face:
 * names and defaults, the target transform (optional log, then
 * standardization on the training rows), and model files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tabular_internal.h"

#define BASE_MAGIC "HSBASE"
#define BASE_VERSION 1
#define MAX_NAME 4096

static const char *const NAMES[] = {"xgboost", "rf", "tree", "linear"};

int pred_base_parse(enum pred_base_kind *k, const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, NAMES[i]) == 0) {
            *k = (enum pred_base_kind)i;
            return 0;
        }
    return -1;
}

const char *pred_base_name(enum pred_base_kind k)
{
    return NAMES[k];
}

void pred_base_defaults(enum pred_base_kind k, struct pred_base_params *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    p->max_depth = k == PRED_BASE_RF ? 10 : 6;
    p->eta = 0.1;
    p->rounds = k == PRED_BASE_XGBOOST ? 300 : 1;
    p->trees = k == PRED_BASE_RF ? 100 : 1;
    p->subsample = k == PRED_BASE_RF ? 0.8 : 1.0;
    p->colsample = k == PRED_BASE_RF ? 0.8 : 1.0;
    /* Ridge's penalty; for trees XGBoost's L2 on leaf weights, 0 so that
     * a forest's and a tree's leaves are plain means. */
    p->lambda = k == PRED_BASE_LINEAR ? 1.0 : k == PRED_BASE_XGBOOST ? 1.0 : 0;
}

enum pred_base_kind pred_base_kind_of(const struct pred_base *b)
{
    return b->kind;
}

const struct pred_schema *pred_base_schema(const struct pred_base *b)
{
    return &b->schema;
}

void pred_base_destroy(struct pred_base *b)
{
    if (!b)
        return;
    xgb_free(b);
    free(b->col_mean);
    tab_free_features(b->feat, b->schema.nfeat);
    free(b);
}

static struct pred_base *base_new(enum pred_base_kind k,
                                  const struct pred_base_params *p,
                                  const struct pred_schema *s)
{
    struct pred_base *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->kind = k;
    b->p = *p;
    if (tab_copy_schema(&b->feat, s) < 0) {
        free(b);
        return NULL;
    }
    b->schema.nfeat = s->nfeat;
    b->schema.feat = b->feat;
    return b;
}

struct pred_base *pred_base_fit(enum pred_base_kind k,
                                const struct pred_base_params *p,
                                const struct pred_schema *schema,
                                const double *x, const double *y, size_t n,
                                char *err, size_t errlen)
{
    size_t nf = (size_t)schema->nfeat;
    for (size_t i = 0; i < n * nf; i++)
        if (!isfinite(x[i])) {
            snprintf(err, errlen, "row %zu: a feature is not finite", i / nf);
            return NULL;
        }
    struct pred_base *b = base_new(k, p, schema);
    double *z = malloc((n ? n : 1) * sizeof *z);
    if (!b || !z) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]) || (p->log_target && y[i] <= 0)) {
            snprintf(err, errlen, "row %zu: target %g %s", i, y[i],
                     p->log_target ? "is not > 0 (log target)"
                                   : "is not finite");
            goto fail;
        }
        z[i] = p->log_target ? log(y[i]) : y[i];
    }
    struct pred_scaler sc;
    if (pred_scaler_fit(&sc, z, n, 1) < 0) {
        snprintf(err, errlen, "no training rows");
        goto fail;
    }
    pred_scaler_apply(&sc, z, n, 1);
    b->ymean = sc.mean;
    b->ysd = sc.sd;
    if ((k == PRED_BASE_LINEAR ? ridge_fit(b, x, z, n, err, errlen)
                               : xgb_fit(b, x, z, n, err, errlen)) < 0)
        goto fail;
    b->p.loss_out = NULL;
    free(z);
    return b;
fail:
    free(z);
    pred_base_destroy(b);
    return NULL;
}

int pred_base_predict(struct pred_base *b, const double *x, size_t n,
                      double *out, char *err, size_t errlen)
{
    if (b->kind == PRED_BASE_LINEAR)
        ridge_predict(b, x, n, out);
    else if (xgb_predict(b, x, n, out, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        double z = out[i] * b->ysd + b->ymean;
        out[i] = b->p.log_target ? exp(z) : z;
    }
    return 0;
}

/* ---- Model files ------------------------------------------------------ */

/* A name as "<length> <bytes>\n", so any byte may appear in it. */
static void put_name(FILE *f, const char *key, const char *s)
{
    fprintf(f, "%s %zu %s\n", key, strlen(s), s);
}

int pred_base_write(const struct pred_base *b, const char *target, FILE *f,
                    char *err, size_t errlen)
{
    fprintf(f, "%s %d\nkind %s\nlog_target %d\nymean %.17g\nysd %.17g\n",
            BASE_MAGIC, BASE_VERSION, NAMES[b->kind], b->p.log_target, b->ymean,
            b->ysd);
    put_name(f, "target", target ? target : "");
    fprintf(f, "features %d\n", b->schema.nfeat);
    for (int k = 0; k < b->schema.nfeat; k++) {
        const struct pred_feature *ft = &b->schema.feat[k];
        put_name(f, "feature", ft->name);
        fprintf(f, "levels %d\n", ft->nlevels);
        for (int l = 0; l < ft->nlevels; l++)
            put_name(f, "level", ft->levels[l]);
    }
    int rc = 0;
    if (b->kind == PRED_BASE_LINEAR) {
        fprintf(f, "ridge %zu\n", b->ncols);
        for (size_t c = 0; c < b->ncols; c++)
            fprintf(f, "%.17g %.17g %.17g\n", b->col_mean[c], b->col_sd[c],
                    b->coef[c]);
    } else {
        const char *buf;
        size_t len;
        rc = xgb_dump(b, &buf, &len, err, errlen);
        if (rc == 0) {
            fprintf(f, "xgboost %zu\n", len);
            fwrite(buf, 1, len, f);
        }
    }
    if (rc == 0 && ferror(f))
        rc = -1, snprintf(err, errlen, "write error: %s", strerror(errno));
    return rc;
}

int pred_base_save(const struct pred_base *b, const char *target,
                   const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    int rc = pred_base_write(b, target, f, err, errlen);
    if (fclose(f) != 0 && rc == 0)
        rc = -1, snprintf(err, errlen, "%s: write error", tmp);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1, snprintf(err, errlen, "%s: %s", path, strerror(errno));
    if (rc < 0)
        remove(tmp);
    return rc;
}

/* Reads "KEY <len> <bytes>\n" into a new string. */
static char *get_name(FILE *f, const char *key)
{
    char k[32];
    size_t len;
    if (fscanf(f, " %31s %zu", k, &len) != 2 || strcmp(k, key) != 0 ||
        len > MAX_NAME || fgetc(f) != ' ')
        return NULL;
    char *s = malloc(len + 1);
    if (s && (fread(s, 1, len, f) != len || fgetc(f) != '\n')) {
        free(s);
        return NULL;
    }
    if (s)
        s[len] = '\0';
    return s;
}

static int read_schema(FILE *f, struct pred_base *b)
{
    int nf;
    if (fscanf(f, " features %d", &nf) != 1 || nf < 1 ||
        nf > PRED_MAX_FEATURES ||
        !(b->feat = calloc((size_t)nf, sizeof *b->feat)))
        return -1;
    b->schema.nfeat = nf;
    b->schema.feat = b->feat;
    for (int k = 0; k < nf; k++) {
        struct pred_feature *ft = &b->feat[k];
        int nl;
        if (!(ft->name = get_name(f, "feature")) ||
            fscanf(f, "levels %d", &nl) != 1 || nl < 0 || nl > 1 << 20)
            return -1;
        char **lv = nl ? calloc((size_t)nl, sizeof *lv) : NULL;
        if (nl && !lv)
            return -1;
        ft->levels = (const char *const *)lv;
        for (int l = 0; l < nl; l++) {
            if (!(lv[l] = get_name(f, "level")))
                return -1;
            ft->nlevels = l + 1;
        }
    }
    return 0;
}

static int read_model(FILE *f, struct pred_base *b, char *err, size_t errlen)
{
    size_t len;
    if (b->kind == PRED_BASE_LINEAR) {
        if (fscanf(f, " ridge %zu", &len) != 1 ||
            len != ridge_width(&b->schema) ||
            !(b->col_mean = calloc(3 * len + 1, sizeof *b->col_mean)))
            return -1;
        b->ncols = len;
        b->col_sd = b->col_mean + len;
        b->coef = b->col_mean + 2 * len;
        for (size_t c = 0; c < len; c++)
            if (fscanf(f, "%lf %lf %lf", &b->col_mean[c], &b->col_sd[c],
                       &b->coef[c]) != 3 ||
                !(b->col_sd[c] > 0))
                return -1;
        return 0;
    }
    if (fscanf(f, " xgboost %zu", &len) != 1 || fgetc(f) != '\n' ||
        len > ((size_t)1 << 30))
        return -1;
    char *buf = malloc(len + 1);
    int rc = buf && fread(buf, 1, len, f) == len
                 ? xgb_restore(b, buf, len, err, errlen)
                 : -1;
    free(buf);
    return rc;
}

struct pred_base *pred_base_load(const char *path, char **target, char *err,
                                 size_t errlen)
{
    *target = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char magic[16], kind[16];
    int version, logt;
    struct pred_base *b = calloc(1, sizeof *b);
    err[0] = '\0';
    if (!b || fscanf(f, "%15s %d", magic, &version) != 2 ||
        strcmp(magic, BASE_MAGIC) != 0) {
        snprintf(err, errlen, "%s: not a hetsim baseline model file", path);
        goto fail;
    }
    if (version != BASE_VERSION) {
        snprintf(err, errlen,
                 "%s: model file version %d, this hetsim "
                 "reads version %d",
                 path, version, BASE_VERSION);
        goto fail;
    }
    if (fscanf(f, " kind %15s log_target %d ymean %lf ysd %lf", kind, &logt,
               &b->ymean, &b->ysd) != 4 ||
        pred_base_parse(&b->kind, kind) || !(*target = get_name(f, "target")) ||
        read_schema(f, b) < 0 || read_model(f, b, err, errlen) < 0) {
        if (!err[0])
            snprintf(err, errlen, "%s: truncated or corrupt model file", path);
        goto fail;
    }
    b->p.log_target = logt != 0;
    fclose(f);
    return b;
fail:
    fclose(f);
    free(*target);
    *target = NULL;
    pred_base_destroy(b);
    return NULL;
}
