/* checkpoint.c -- a trained model in one file, little-endian:
 *   "HSPREDNN" magic (8 bytes), u32 version,
 *   arch: str name, i32 d_model gru_fwd gru_bwd n_attn n_heads head_dim
 *         d_ff, f64 dropout, i32 order pool, (version 3) i32 tokens
 *         head_relu, (version 4) i32 linear_skip,
 *   schema: i32 nfeat, per feature str name, i32 nlevels, nlevels str,
 *   standardization: per feature f64 mean sd, target f64 mean sd,
 *         i32 log_target fitted,
 *   (version 3) the training record: i32 steps epochs batch schedule
 *         lr_drop_epoch warmup patience log_target, f64 lr lr_after
 *         lr_min l2 weight_decay clip beta1 beta2 eps val_frac, u64 seed
 *         n_fit n_val, i32 steps_run epochs_run best_step, f64 val_mse,
 *   u64 nparams, nparams f64 (float models widen; both builds read both),
 *   u64 FNV-1a hash of every byte before it.
 * str is u32 length + bytes. Parameters only: Adam state is not kept, so a
 * loaded model predicts (and may be trained again from the start). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

static const char magic[8] = {'H', 'S', 'P', 'R', 'E', 'D', 'N', 'N'};

struct buf {
    unsigned char *p;
    size_t n, cap, off;
    int bad; /* writer: out of memory; reader: ran past the end */
};

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void put(struct buf *b, const void *src, size_t n)
{
    if (b->bad)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put_u64(struct buf *b, uint64_t v)
{
    unsigned char c[8];
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    put(b, c, 8);
}

static void put_u32(struct buf *b, uint32_t v)
{
    unsigned char c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    put(b, c, 4);
}

static void put_i32(struct buf *b, int v)
{
    put_u32(b, (uint32_t)v);
}

static void put_f64(struct buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(b, u);
}

static void put_str(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    put_u32(b, (uint32_t)n);
    put(b, s, n);
}

static const unsigned char *get(struct buf *b, size_t n)
{
    if (b->bad || b->n - b->off < n) {
        b->bad = 1;
        return NULL;
    }
    b->off += n;
    return b->p + b->off - n;
}

static uint64_t get_u64(struct buf *b)
{
    const unsigned char *c = get(b, 8);
    uint64_t v = 0;
    for (int i = 0; c && i < 8; i++)
        v |= (uint64_t)c[i] << (8 * i);
    return v;
}

static uint32_t get_u32(struct buf *b)
{
    const unsigned char *c = get(b, 4);
    uint32_t v = 0;
    for (int i = 0; c && i < 4; i++)
        v |= (uint32_t)c[i] << (8 * i);
    return v;
}

static int get_i32(struct buf *b)
{
    return (int)get_u32(b);
}

static double get_f64(struct buf *b)
{
    uint64_t u = get_u64(b);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* A new string, or NULL (B marked bad) when past the end or too long. */
static char *get_str(struct buf *b)
{
    uint32_t n = get_u32(b);
    const unsigned char *c = n <= 65536 ? get(b, n) : NULL;
    char *s = c ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        b->bad = 1;
        return NULL;
    }
    memcpy(s, c, n);
    s[n] = '\0';
    return s;
}

static void put_record(struct buf *b, const struct pred_train_record *r)
{
    const struct pred_train_opts *o = &r->opts;
    int ints[] = {o->steps,         o->epochs, o->batch,    (int)o->schedule,
                  o->lr_drop_epoch, o->warmup, o->patience, o->log_target};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        put_i32(b, ints[i]);
    double dbl[] = {o->lr,   o->lr_after, o->lr_min, o->l2,  o->weight_decay,
                    o->clip, o->beta1,    o->beta2,  o->eps, o->val_frac};
    for (size_t i = 0; i < sizeof dbl / sizeof *dbl; i++)
        put_f64(b, dbl[i]);
    put_u64(b, o->seed);
    put_u64(b, r->n_fit);
    put_u64(b, r->n_val);
    put_i32(b, r->steps_run);
    put_i32(b, r->epochs_run);
    put_i32(b, r->best_step);
    put_f64(b, r->val_mse);
}

static void get_record(struct buf *b, struct pred_train_record *r)
{
    struct pred_train_opts *o = &r->opts;
    memset(r, 0, sizeof *r);
    o->steps = get_i32(b);
    o->epochs = get_i32(b);
    o->batch = get_i32(b);
    o->schedule = get_i32(b) == 1 ? PRED_SCHED_COSINE : PRED_SCHED_STEP;
    o->lr_drop_epoch = get_i32(b);
    o->warmup = get_i32(b);
    o->patience = get_i32(b);
    o->log_target = get_i32(b);
    double *dbl[] = {&o->lr,           &o->lr_after, &o->lr_min, &o->l2,
                     &o->weight_decay, &o->clip,     &o->beta1,  &o->beta2,
                     &o->eps,          &o->val_frac};
    for (size_t i = 0; i < sizeof dbl / sizeof *dbl; i++)
        *dbl[i] = get_f64(b);
    o->seed = (unsigned long)get_u64(b);
    r->n_fit = (size_t)get_u64(b);
    r->n_val = (size_t)get_u64(b);
    r->steps_run = get_i32(b);
    r->epochs_run = get_i32(b);
    r->best_step = get_i32(b);
    r->val_mse = get_f64(b);
}

static void put_model(struct buf *b, const struct pred_model *m)
{
    const struct pred_arch *a = &m->arch;
    put(b, magic, 8);
    put_u32(b, PRED_CKPT_VERSION);
    put_str(b, a->name);
    int ints[] = {a->d_model, a->gru_fwd,  a->gru_bwd, a->n_attn,
                  a->n_heads, a->head_dim, a->d_ff};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        put_i32(b, ints[i]);
    put_f64(b, a->dropout);
    put_i32(b, (int)a->order);
    put_i32(b, (int)a->pool);
    put_i32(b, (int)a->tokens);
    put_i32(b, a->head_relu);
    put_i32(b, a->linear_skip);
    put_i32(b, m->schema.nfeat);
    for (int i = 0; i < m->schema.nfeat; i++) {
        const struct pred_feature *f = &m->schema.feat[i];
        put_str(b, f->name);
        put_i32(b, f->nlevels);
        for (int k = 0; k < f->nlevels; k++)
            put_str(b, f->levels[k]);
    }
    for (int i = 0; i < m->schema.nfeat; i++) {
        put_f64(b, m->xs[i].mean);
        put_f64(b, m->xs[i].sd);
    }
    put_f64(b, m->ys.mean);
    put_f64(b, m->ys.sd);
    put_i32(b, m->log_target);
    put_i32(b, m->fitted);
    put_record(b, &m->rec);
    put_u64(b, m->nparams);
    for (size_t i = 0; i < m->nparams; i++)
        put_f64(b, (double)m->params[i]);
    if (!b->bad)
        put_u64(b, fnv1a(b->p, b->n));
}

int pred_write(const struct pred_model *m, FILE *f, char *err, size_t errlen)
{
    struct buf b = {0};
    put_model(&b, m);
    int rc = 0;
    if (b.bad)
        rc = -1, snprintf(err, errlen, "out of memory");
    else if (fwrite(b.p, 1, b.n, f) != b.n || ferror(f))
        rc = -1, snprintf(err, errlen, "write error: %s", strerror(errno));
    free(b.p);
    return rc;
}

int pred_save(const struct pred_model *m, const char *path, char *err,
              size_t errlen)
{
    struct buf b = {0};
    put_model(&b, m);
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    FILE *f = NULL;
    int rc = -1;
    if (b.bad || !tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto done;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        goto done;
    }
    size_t wrote = fwrite(b.p, 1, b.n, f);
    if (fclose(f) != 0 || wrote != b.n) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        remove(tmp);
        goto done;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        remove(tmp);
        goto done;
    }
    rc = 0;
done:
    free(b.p);
    free(tmp);
    return rc;
}

/* Reads all of PATH into B. Returns 0, or -1 with a message. */
static int slurp(struct buf *b, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(b, chunk, n);
    int bad = ferror(f) || b->bad;
    fclose(f);
    if (bad)
        snprintf(err, errlen, "%s: cannot read the file", path);
    return bad ? -1 : 0;
}

/* The architecture and schema of a checkpoint; FEAT is allocated. */
static void get_shape(struct buf *b, struct pred_arch *a, struct pred_schema *s,
                      struct pred_feature **feat, uint32_t version)
{
    char *name = get_str(b);
    memset(a, 0, sizeof *a);
    if (name)
        snprintf(a->name, sizeof a->name, "%s", name);
    free(name);
    a->d_model = get_i32(b);
    a->gru_fwd = get_i32(b);
    a->gru_bwd = get_i32(b);
    a->n_attn = get_i32(b);
    a->n_heads = get_i32(b);
    a->head_dim = get_i32(b);
    a->d_ff = get_i32(b);
    a->dropout = get_f64(b);
    a->order = get_i32(b) == 1 ? PRED_ATTENTION_FIRST : PRED_GRU_FIRST;
    a->pool = get_i32(b) == 1 ? PRED_POOL_LAST : PRED_POOL_MEAN;
    if (version >= 3) {
        a->tokens = get_i32(b) == 1 ? PRED_TOKENS_ROW : PRED_TOKENS_FEATURE;
        a->head_relu = get_i32(b) != 0;
    }
    if (version >= 4)
        a->linear_skip = get_i32(b) != 0;
    s->nfeat = get_i32(b);
    if (b->bad || s->nfeat < 1 || s->nfeat > PRED_MAX_FEATURES) {
        b->bad = 1;
        return;
    }
    *feat = calloc((size_t)s->nfeat, sizeof **feat);
    if (!*feat) {
        b->bad = 1;
        return;
    }
    s->feat = *feat;
    for (int i = 0; i < s->nfeat && !b->bad; i++) {
        struct pred_feature *f = &(*feat)[i];
        f->name = get_str(b);
        int nl = get_i32(b);
        if (nl < 0 || (size_t)nl > b->n - b->off) { /* 4 bytes a level */
            b->bad = 1;
            break;
        }
        char **lv = nl ? calloc((size_t)nl, sizeof *lv) : NULL;
        f->levels = (const char *const *)lv;
        f->nlevels = lv ? nl : 0;
        for (int k = 0; lv && k < nl; k++)
            lv[k] = get_str(b);
    }
}

static void free_shape(struct pred_schema *s, struct pred_feature *feat)
{
    for (int i = 0; feat && i < s->nfeat; i++) {
        char **lv = (char **)(void *)feat[i].levels;
        for (int k = 0; k < feat[i].nlevels; k++)
            free(lv[k]);
        free(lv);
        free((char *)(void *)feat[i].name);
    }
    free(feat);
}

/* Standardization, training record (VERSION 3) and parameters into M. */
static void get_state(struct buf *b, struct pred_model *m, uint32_t version)
{
    for (int i = 0; i < m->schema.nfeat; i++) {
        m->xs[i].mean = get_f64(b);
        m->xs[i].sd = get_f64(b);
    }
    m->ys.mean = get_f64(b);
    m->ys.sd = get_f64(b);
    m->log_target = get_i32(b) != 0;
    m->fitted = get_i32(b) != 0;
    if (version >= 3)
        get_record(b, &m->rec);
    uint64_t n = get_u64(b);
    if (b->bad)
        return;
    if (n != m->nparams) {
        b->bad = 2;
        return;
    }
    for (size_t i = 0; i < m->nparams && !b->bad; i++)
        m->params[i] = (pfloat)get_f64(b);
    pred_params_changed(m);
}

struct pred_model *pred_load(const char *path, char *err, size_t errlen)
{
    struct buf b = {0};
    struct pred_model *m = NULL;
    struct pred_feature *feat = NULL;
    struct pred_schema s = {0};
    struct pred_arch a;
    char why[200];
    if (slurp(&b, path, err, errlen) < 0)
        goto fail;
    const unsigned char *mg = get(&b, 8);
    if (!mg || memcmp(mg, magic, 8) != 0) {
        snprintf(err, errlen, "%s: not a hetsim predictor checkpoint", path);
        goto fail;
    }
    uint32_t version = get_u32(&b);
    if (b.bad || version < 2 || version > PRED_CKPT_VERSION) {
        snprintf(err, errlen,
                 "%s: checkpoint version %u; this hetsim reads "
                 "versions 2 to %u",
                 path, version, PRED_CKPT_VERSION);
        goto fail;
    }
    get_shape(&b, &a, &s, &feat, version);
    if (!b.bad && !(m = pred_alloc(&a, &s, why, sizeof why))) {
        snprintf(err, errlen, "%s: bad architecture or schema (%s)", path, why);
        goto fail;
    }
    if (m)
        get_state(&b, m, version);
    size_t body = b.off;
    uint64_t sum = get_u64(&b);
    if (b.bad == 2)
        snprintf(err, errlen,
                 "%s: parameter count does not match the "
                 "architecture (corrupt)",
                 path);
    else if (b.bad)
        snprintf(err, errlen, "%s: truncated checkpoint", path);
    else if (sum != fnv1a(b.p, body) || b.off != b.n)
        snprintf(err, errlen,
                 "%s: corrupt checkpoint (checksum mismatch or "
                 "trailing bytes)",
                 path);
    else
        goto done;
fail:
    pred_destroy(m);
    m = NULL;
done:
    free_shape(&s, feat);
    free(b.p);
    return m;
}
