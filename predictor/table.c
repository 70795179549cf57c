/* table.c -- datasets from CSV files: a header row, then one example per
 * record. The file is read whole, split into cells in place, then each
 * column is given its role (feature, target, dropped, group). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "predictor.h"
#include "tabular_internal.h"

#define MAX_FILE ((size_t)1 << 30)

struct csv {
    char *buf;
    char **cell; /* (nrec, ncols) record 0 is the header */
    long *line;  /* (nrec) line where each record starts */
    size_t nrec, ncols, cap;
};

static int fail(struct pred_error *e, const char *src, long line,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct pred_error *e, const char *src, long line,
                const char *fmt, ...)
{
    if (!e)
        return -1;
    snprintf(e->source, sizeof e->source, "%s", src);
    e->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    return -1;
}

static char *slurp(const char *path, struct pred_error *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(e, path, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1)
            break;
        char *nb = cap < MAX_FILE ? realloc(buf, cap * 2) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        fail(e, path, 0, bad ? "read error" : "too large or out of memory");
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        fail(e, path, 0, "contains a NUL byte: not a CSV text file");
        return NULL;
    }
    return buf;
}

/* Splits one record starting at *pp into cells (unquoted in place); sets
 * *pp past its end and *lines to the newlines it spanned. Returns the cell
 * count, or -1 for an unterminated quote. */
static long split_record(char **pp, char ***cells, size_t *cap, long *lines)
{
    char *p = *pp, *w;
    size_t n = 0;
    *lines = 0;
    for (;;) {
        if (n == *cap) {
            size_t nc = *cap ? *cap * 2 : 16;
            char **c = realloc(*cells, nc * sizeof *c);
            if (!c)
                return -2;
            *cells = c;
            *cap = nc;
        }
        (*cells)[n++] = w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *lines += *p == '\n';
                    *w++ = *p++;
                }
            }
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r')
            *w++ = *p++;
        char c = *p; /* *w = '\0' may overwrite it when w == p */
        *w = '\0';
        if (c == ',') {
            p++;
            continue;
        }
        if (c == '\r' && p[1] == '\n')
            p++;
        if (c == '\r' || c == '\n') {
            p++;
            (*lines)++;
        }
        *pp = p;
        return (long)n;
    }
}

static void csv_free(struct csv *c)
{
    free(c->buf);
    free(c->cell);
    free(c->line);
}

static int csv_read(const char *path, struct csv *c, struct pred_error *e)
{
    memset(c, 0, sizeof *c);
    if (!(c->buf = slurp(path, e)))
        return -1;
    char *p = c->buf, **cells = NULL;
    size_t ccap = 0;
    long line = 1, span;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    while (*p) {
        if (*p == '\n' || (*p == '\r' && p[1] == '\n')) { /* blank line */
            p += *p == '\r' ? 2 : 1;
            line++;
            continue;
        }
        long n = split_record(&p, &cells, &ccap, &span);
        if (n == -1) {
            free(cells);
            return fail(e, path, line, "a quoted field has no closing quote");
        }
        if (n < 0 || (c->nrec == 0 && !(c->ncols = (size_t)n)))
            goto nomem;
        if ((size_t)n != c->ncols) {
            free(cells);
            return fail(e, path, line,
                        "expected %zu fields as in the "
                        "header, found %ld",
                        c->ncols, n);
        }
        if (c->nrec == c->cap) {
            size_t nc = c->cap ? c->cap * 2 : 256;
            char **cl = realloc(c->cell, nc * c->ncols * sizeof *cl);
            if (cl)
                c->cell = cl;
            long *ln = cl ? realloc(c->line, nc * sizeof *ln) : NULL;
            if (!ln)
                goto nomem;
            c->line = ln;
            c->cap = nc;
        }
        memcpy(c->cell + c->nrec * c->ncols, cells, c->ncols * sizeof *cells);
        c->line[c->nrec++] = line;
        line += span;
    }
    free(cells);
    if (c->nrec == 0)
        return fail(e, path, 1, "empty file: expected a header row");
    return 0;
nomem:
    free(cells);
    return fail(e, path, 0, "out of memory");
}

/* Strict decimal: blanks around, no hex, nan or inf. */
int pred_parse_number(const char *s, double *out)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s || strpbrk(s, "xXnNiI"))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Whether NAME is in the comma list LIST. */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *q = strchr(p, ',');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p = q ? q + 1 : NULL;
    }
    return 0;
}

/* The first name of LIST that is not a header column, or NULL. */
static const char *unknown_name(const struct csv *c, const char *list,
                                char *buf, size_t size)
{
    for (const char *p = list; p && *p;) {
        const char *q = strchr(p, ',');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        snprintf(buf, size, "%.*s", (int)n, p);
        size_t j = 0;
        while (j < c->ncols && strcmp(c->cell[j], buf) != 0)
            j++;
        if (j == c->ncols)
            return buf;
        p = q ? q + 1 : NULL;
    }
    return NULL;
}

static long find_col(const struct csv *c, const char *name)
{
    for (size_t j = 0; j < c->ncols; j++)
        if (strcmp(c->cell[j], name) == 0)
            return (long)j;
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct values of column J, sorted, as new strings in *OUT. */
static int distinct(const struct csv *c, size_t j, char ***out, size_t *n)
{
    size_t m = c->nrec - 1, k = 0;
    char **v = malloc((m ? m : 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t r = 0; r < m; r++)
        v[r] = c->cell[(r + 1) * c->ncols + j];
    qsort(v, m, sizeof *v, cmp_str);
    for (size_t r = 0; r < m; r++)
        if (k == 0 || strcmp(v[k - 1], v[r]) != 0)
            v[k++] = v[r];
    for (size_t r = 0; r < k; r++)
        if (!(v[r] = strdup(v[r]))) {
            while (r)
                free(v[--r]);
            free(v);
            return -1;
        }
    *out = v;
    *n = k;
    return 0;
}

/* Linear: a model's levels need not be sorted, and there are few. */
static long find_level(char *const *levels, size_t n, const char *s)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(levels[k], s) == 0)
            return (long)k;
    return -1;
}

static int column_numeric(const struct csv *c, size_t j)
{
    double v;
    for (size_t r = 1; r < c->nrec; r++)
        if (pred_parse_number(c->cell[r * c->ncols + j], &v) < 0)
            return 0;
    return 1;
}

/* Fills feature column K of T from CSV column J. */
static int fill_feature(struct pred_table *t, const struct csv *c, size_t j,
                        int k, const char *path, struct pred_error *e)
{
    struct pred_feature *f = &t->feat[k];
    for (size_t r = 1; r < c->nrec; r++) {
        const char *s = c->cell[r * c->ncols + j];
        double *x = &t->x[(r - 1) * (size_t)t->nfeat + (size_t)k];
        if (!*s)
            return fail(e, path, c->line[r], "column '%s' is empty", f->name);
        if (f->nlevels > 0) {
            *x = (double)find_level((char *const *)f->levels,
                                    (size_t)f->nlevels, s);
        } else if (pred_parse_number(s, x) < 0) {
            return fail(e, path, c->line[r],
                        "column '%s': '%s' is not a "
                        "number",
                        f->name, s);
        }
    }
    return 0;
}

/* Checks the header against O; the target's and group's columns (or -1)
 * into *TJ and *GJ. */
static int check_header(const struct csv *c, const struct pred_table_opts *o,
                        long *tj, long *gj, const char *path,
                        struct pred_error *e)
{
    char nb[256];
    const char *bad = unknown_name(c, o->categorical, nb, sizeof nb);
    if (!bad)
        bad = unknown_name(c, o->drop, nb, sizeof nb);
    if (bad)
        return fail(e, path, 1, "no column '%s' in the header", bad);
    for (size_t j = 0; j < c->ncols; j++)
        if (find_col(c, c->cell[j]) != (long)j)
            return fail(e, path, 1, "column '%s' appears twice", c->cell[j]);
    *tj = *gj = -1;
    if (o->target && (*tj = find_col(c, o->target)) < 0 && !o->target_optional)
        return fail(e, path, 1, "no target column '%s'", o->target);
    if (o->group && (*gj = find_col(c, o->group)) < 0)
        return fail(e, path, 1, "no group column '%s'", o->group);
    return 0;
}

/* The CSV columns of the features, in order, into SRC (ncols entries). */
static int pick_features(const struct csv *c, const struct pred_table_opts *o,
                         long tj, long *src, size_t *nf, const char *path,
                         struct pred_error *e)
{
    *nf = 0;
    if (o->schema) {
        for (int k = 0; k < o->schema->nfeat; k++) {
            long j = find_col(c, o->schema->feat[k].name);
            if (j < 0)
                return fail(e, path, 1,
                            "no column '%s', a feature of the "
                            "model",
                            o->schema->feat[k].name);
            src[(*nf)++] = j;
        }
    } else {
        for (size_t j = 0; j < c->ncols; j++)
            if ((long)j != tj && !in_list(o->drop, c->cell[j]))
                src[(*nf)++] = (long)j;
    }
    if (*nf == 0 || *nf > PRED_MAX_FEATURES)
        return fail(e, path, 1, "%zu feature columns (1 to %d allowed)", *nf,
                    PRED_MAX_FEATURES);
    return 0;
}

/* Feature K of T from CSV column J: its name, kind, levels and values. */
static int make_feature(struct pred_table *t, const struct csv *c,
                        const struct pred_table_opts *o, size_t k, size_t j,
                        const char *path, struct pred_error *e)
{
    struct pred_feature *f = &t->feat[k];
    int rc = (f->name = strdup(c->cell[j])) ? 0 : -1;
    if (rc == 0 && o->schema) {
        const struct pred_feature *sf = &o->schema->feat[k];
        rc = tab_copy_levels(f, sf->levels, sf->nlevels);
    } else if (rc == 0 &&
               (in_list(o->categorical, c->cell[j]) || !column_numeric(c, j))) {
        char **lv = NULL;
        size_t nl = 0;
        rc = distinct(c, j, &lv, &nl);
        f->levels = (const char *const *)lv;
        f->nlevels = (int)nl;
    }
    if (rc < 0)
        return fail(e, path, 0, "out of memory");
    return fill_feature(t, c, j, (int)k, path, e);
}

/* Lines, targets (column TJ) and groups (column GJ) of every row. */
static int fill_rows(struct pred_table *t, const struct csv *c,
                     const struct pred_table_opts *o, long tj, long gj,
                     const char *path, struct pred_error *e)
{
    for (size_t r = 1; r < c->nrec; r++) {
        t->line[r - 1] = c->line[r];
        const char *s = tj >= 0 ? c->cell[r * c->ncols + (size_t)tj] : NULL;
        if (s && pred_parse_number(s, &t->y[r - 1]) < 0)
            return fail(e, path, c->line[r],
                        "target '%s': '%s' is not a "
                        "number",
                        o->target, s);
    }
    if (gj < 0)
        return 0;
    t->group = malloc(t->n * sizeof *t->group);
    if (!t->group || distinct(c, (size_t)gj, &t->group_names, &t->ngroups) < 0)
        return fail(e, path, 0, "out of memory");
    for (size_t r = 1; r < c->nrec; r++)
        t->group[r - 1] = (size_t)find_level(
            t->group_names, t->ngroups, c->cell[r * c->ncols + (size_t)gj]);
    return 0;
}

/* Decides the role of every column and fills T. */
static int build(struct pred_table *t, const struct csv *c,
                 const struct pred_table_opts *o, const char *path,
                 struct pred_error *e)
{
    long tj = -1, gj = -1, *src = malloc((c->ncols + 1) * sizeof *src);
    size_t nf = 0;
    if (!src)
        return fail(e, path, 0, "out of memory");
    int rc = check_header(c, o, &tj, &gj, path, e);
    if (rc == 0)
        rc = pick_features(c, o, tj, src, &nf, path, e);
    if (rc == 0 &&
        tab_alloc(t, c->nrec - 1, (int)nf, tj >= 0 ? o->target : NULL) < 0)
        rc = fail(e, path, 0, "out of memory");
    for (size_t k = 0; rc == 0 && k < nf; k++)
        rc = make_feature(t, c, o, k, (size_t)src[k], path, e);
    free(src);
    return rc == 0 ? fill_rows(t, c, o, tj, gj, path, e) : rc;
}

/* Keeps the header and the records whose cell in column COL equals VALUE,
 * for O->keep = "COL=VALUE". */
static int keep_rows(struct csv *c, const char *keep, const char *path,
                     struct pred_error *e)
{
    const char *eq = keep ? strchr(keep, '=') : NULL;
    if (!keep)
        return 0;
    char col[256];
    snprintf(col, sizeof col, "%.*s", eq ? (int)(eq - keep) : 0, keep);
    long j = eq ? find_col(c, col) : -1;
    if (j < 0)
        return fail(e, path, 1,
                    "keep rows '%s': expected COLUMN=VALUE with "
                    "a column of the header",
                    keep);
    size_t n = 1;
    for (size_t r = 1; r < c->nrec; r++) {
        if (strcmp(c->cell[r * c->ncols + (size_t)j], eq + 1) != 0)
            continue;
        memmove(c->cell + n * c->ncols, c->cell + r * c->ncols,
                c->ncols * sizeof *c->cell);
        c->line[n++] = c->line[r];
    }
    c->nrec = n;
    return 0;
}

int pred_table_read(const char *path, const struct pred_table_opts *o,
                    struct pred_table **out, struct pred_error *e)
{
    struct csv c;
    *out = NULL;
    if (csv_read(path, &c, e) < 0) {
        csv_free(&c);
        return -1;
    }
    if (keep_rows(&c, o->keep, path, e) < 0) {
        csv_free(&c);
        return -1;
    }
    if (c.nrec < 2) {
        csv_free(&c);
        return fail(e, path, 2, "no data rows after the header%s",
                    o->keep ? " (or none kept)" : "");
    }
    struct pred_table *t = calloc(1, sizeof *t);
    int rc = t ? build(t, &c, o, path, e) : fail(e, path, 0, "out of memory");
    csv_free(&c);
    if (rc < 0) {
        pred_table_destroy(t);
        return -1;
    }
    *out = t;
    return 0;
}
