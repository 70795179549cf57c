/* stub.c -- placeholders so callers link against predictor.h while the
 * model is being written; replaced file by file. */
#include <stdio.h>
#include <string.h>

#include "predictor.h"

static void not_yet(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "predictor model not implemented yet");
}

int pred_schema_level(const struct pred_schema *s, int feature,
                      const char *level)
{
    if (feature < 0 || feature >= s->nfeat)
        return -1;
    const struct pred_feature *f = &s->feat[feature];
    for (int k = 0; k < f->nlevels; k++)
        if (strcmp(f->levels[k], level) == 0)
            return k;
    return -1;
}

int pred_arch_preset(struct pred_arch *a, const char *name)
{
    (void)a;
    (void)name;
    return -1;
}

const char *pred_arch_names(void) { return "seed000, seed002, transformer, bigru"; }

int pred_order_parse(enum pred_order *o, const char *s)
{
    if (strcmp(s, "gru-first") == 0)
        *o = PRED_GRU_FIRST;
    else if (strcmp(s, "attention-first") == 0)
        *o = PRED_ATTENTION_FIRST;
    else
        return -1;
    return 0;
}

void pred_train_defaults(struct pred_train_opts *o)
{
    memset(o, 0, sizeof *o);
}

struct pred_model *pred_create(const struct pred_arch *arch,
                               const struct pred_schema *schema,
                               unsigned long seed, char *err, size_t errlen)
{
    (void)arch, (void)schema, (void)seed;
    not_yet(err, errlen);
    return NULL;
}

void pred_destroy(struct pred_model *m) { (void)m; }

int pred_fit(struct pred_model *m, const double *x, const double *y,
             size_t n, const struct pred_train_opts *o, char *err,
             size_t errlen)
{
    (void)m, (void)x, (void)y, (void)n, (void)o;
    not_yet(err, errlen);
    return -1;
}

int pred_predict(struct pred_model *m, const double *x, size_t n,
                 double *out, char *err, size_t errlen)
{
    (void)m, (void)x, (void)n, (void)out;
    not_yet(err, errlen);
    return -1;
}

int pred_save(const struct pred_model *m, const char *path, char *err,
              size_t errlen)
{
    (void)m, (void)path;
    not_yet(err, errlen);
    return -1;
}

struct pred_model *pred_load(const char *path, char *err, size_t errlen)
{
    (void)path;
    not_yet(err, errlen);
    return NULL;
}

const struct pred_schema *pred_model_schema(const struct pred_model *m)
{
    (void)m;
    return NULL;
}

const struct pred_arch *pred_model_arch(const struct pred_model *m)
{
    (void)m;
    return NULL;
}

size_t pred_param_count(const struct pred_model *m)
{
    (void)m;
    return 0;
}
