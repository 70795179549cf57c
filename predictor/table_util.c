/* table_util.c -- making, copying, writing and freeing tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tabular_internal.h"

int tab_alloc(struct pred_table *t, size_t n, int nfeat, const char *target)
{
    t->n = n;
    t->nfeat = nfeat;
    t->x = calloc(n * (size_t)nfeat + 1, sizeof *t->x);
    t->line = calloc(n + 1, sizeof *t->line);
    t->feat = calloc((size_t)nfeat, sizeof *t->feat);
    t->schema.nfeat = nfeat;
    t->schema.feat = t->feat;
    if (target) {
        t->target = strdup(target);
        t->y = calloc(n + 1, sizeof *t->y);
    }
    if (!t->x || !t->line || !t->feat || (target && (!t->target || !t->y)))
        return -1;
    return 0;
}

int tab_copy_levels(struct pred_feature *f, const char *const *levels,
                    int nlevels)
{
    f->nlevels = 0;
    f->levels = NULL;
    if (nlevels <= 0)
        return 0;
    char **lv = calloc((size_t)nlevels, sizeof *lv);
    if (!lv)
        return -1;
    f->levels = (const char *const *)lv;
    for (int k = 0; k < nlevels; k++) {
        if (!(lv[k] = strdup(levels[k])))
            return -1;
        f->nlevels = k + 1;
    }
    return 0;
}

void tab_free_features(struct pred_feature *feat, int nfeat)
{
    if (!feat)
        return;
    for (int k = 0; k < nfeat; k++) {
        for (int l = 0; l < feat[k].nlevels; l++)
            free((char *)feat[k].levels[l]);
        free((void *)feat[k].levels);
        free((char *)feat[k].name);
    }
    free(feat);
}

int tab_copy_schema(struct pred_feature **feat, const struct pred_schema *s)
{
    struct pred_feature *f = calloc((size_t)s->nfeat, sizeof *f);
    if (!f)
        return -1;
    for (int k = 0; k < s->nfeat; k++)
        if (!(f[k].name = strdup(s->feat[k].name)) ||
            tab_copy_levels(&f[k], s->feat[k].levels, s->feat[k].nlevels)) {
            tab_free_features(f, s->nfeat);
            return -1;
        }
    *feat = f;
    return 0;
}

struct pred_table *pred_table_new(size_t n, const struct pred_schema *s,
                                  const char *target)
{
    struct pred_table *t = calloc(1, sizeof *t);
    if (!t || tab_alloc(t, n, s->nfeat, target) < 0) {
        pred_table_destroy(t);
        return NULL;
    }
    free(t->feat);
    t->feat = NULL;
    if (tab_copy_schema(&t->feat, s) < 0) {
        pred_table_destroy(t);
        return NULL;
    }
    t->schema.feat = t->feat;
    return t;
}

void pred_table_destroy(struct pred_table *t)
{
    if (!t)
        return;
    tab_free_features(t->feat, t->feat ? t->nfeat : 0);
    for (size_t g = 0; g < t->ngroups; g++)
        free(t->group_names[g]);
    free(t->group_names);
    free(t->group);
    free(t->x);
    free(t->y);
    free(t->line);
    free(t->target);
    free(t);
}

char *pred_fmt_double(char *buf, double x)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

/* TEXT as a CSV field: quoted when it holds a comma, quote or newline. */
static void put_field(FILE *f, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

int pred_table_write_csv(const struct pred_table *t, FILE *f,
                         const char *extra_name, const double *extra)
{
    char num[32];
    for (int k = 0; k < t->nfeat; k++) {
        if (k)
            fputc(',', f);
        put_field(f, t->feat[k].name);
    }
    if (t->y) {
        fputc(',', f);
        put_field(f, t->target);
    }
    if (extra) {
        fputc(',', f);
        put_field(f, extra_name);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->n; r++) {
        for (int k = 0; k < t->nfeat; k++) {
            const struct pred_feature *ft = &t->feat[k];
            double v = t->x[r * (size_t)t->nfeat + (size_t)k];
            if (k)
                fputc(',', f);
            if (ft->nlevels > 0 && v >= 0 && v < ft->nlevels)
                put_field(f, ft->levels[(int)v]);
            else
                fputs(pred_fmt_double(num, v), f);
        }
        if (t->y)
            fprintf(f, ",%s", pred_fmt_double(num, t->y[r]));
        if (extra)
            fprintf(f, ",%s", pred_fmt_double(num, extra[r]));
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
