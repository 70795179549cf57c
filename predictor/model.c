/* model.c -- the model's shape: parameters and activations each laid out
 * in one allocation (llm.c's malloc_and_point), creation, initialisation
 * and the accessors of predictor.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "nn_internal.h"

/* Hands out N pfloats at *OFF of BASE (NULL while only counting). */
static pfloat *take(pfloat *base, size_t *off, size_t n)
{
    pfloat *p = base ? base + *off : NULL;
    *off += n;
    return p;
}

static size_t sz(int a)
{
    return (size_t)a;
}

/* Points W at the parameter tensors in BASE, in checkpoint and fixture
 * order. Returns the count. */
static size_t layout_params(const struct pred_model *m, pfloat *base,
                            struct pred_weights *w)
{
    const struct pred_arch *ar = &m->arch;
    size_t off = 0, c = sz(m->c);
#define P(field, count) ((field) = take(base, &off, (count)))
    P(w->emb_w, sz(m->nnum) * c);
    P(w->emb_b, sz(m->nnum) * c);
    P(w->emb_cat, sz(m->nlevels_total) * c);
    P(w->pos, m->arch.tokens == PRED_TOKENS_ROW ? 0 : sz(m->t) * c);
    int hd[2] = {ar->gru_fwd, ar->gru_bwd};
    for (int d = 0; d < 2; d++) {
        pfloat **g = d == 0 ? w->gf : w->gb;
        size_t h = sz(hd[d]);
        if (h == 0)
            continue;
        P(g[0], 3 * h * c);
        P(g[1], 3 * h * h);
        P(g[2], 3 * h);
        P(g[3], 3 * h);
    }
    size_t ww = sz(m->w_att), a = sz(ar->n_heads * ar->head_dim);
    size_t f = sz(ar->d_ff);
    for (int l = 0; l < ar->n_attn; l++) {
        struct pred_block_w *b = &w->blk[l];
        P(b->wqkv, 3 * a * ww);
        P(b->bqkv, 3 * a);
        P(b->wo, ww * a);
        P(b->bo, ww);
        P(b->ln1g, ww);
        P(b->ln1b, ww);
        size_t fw = f ? ww : 0; /* no feed-forward: no second norm */
        P(b->w1, f * ww);
        P(b->b1, f);
        P(b->w2, ww * f);
        P(b->b2, fw);
        P(b->ln2g, fw);
        P(b->ln2b, fw);
    }
    P(w->fc_w, sz(m->p));
    P(w->fc_b, 1);
    P(w->skip, ar->linear_skip ? sz(m->nx) : 0);
#undef P
    return off;
}

/* Points A at the activations of a batch of BSZ in BASE. Returns the
 * count. */
static size_t layout_acts(const struct pred_model *m, pfloat *base,
                          struct pred_acts *a, int bsz)
{
    const struct pred_arch *ar = &m->arch;
    size_t off = 0, bt = sz(bsz) * sz(m->t), c = sz(m->c);
    size_t hf = sz(ar->gru_fwd), hb = sz(ar->gru_bwd);
    a->x = take(base, &off, sz(bsz) * sz(m->nx));
    a->tok = take(base, &off, bt * c);
    a->gfh = take(base, &off, bt * hf);
    a->gfi = take(base, &off, bt * 3 * hf);
    a->gfhh = take(base, &off, bt * 3 * hf);
    a->gfg = take(base, &off, bt * 3 * hf);
    a->gbh = take(base, &off, bt * hb);
    a->gbi = take(base, &off, bt * 3 * hb);
    a->gbhh = take(base, &off, bt * 3 * hb);
    a->gbg = take(base, &off, bt * 3 * hb);
    a->gru = take(base, &off, bt * sz(m->g));
    size_t ww = sz(m->w_att), aa = sz(ar->n_heads * ar->head_dim);
    size_t f = sz(ar->d_ff), tt = sz(m->t) * sz(m->t);
    for (int l = 0; l < ar->n_attn; l++) {
        struct pred_block_act *b = &a->blk[l];
        b->qkv = take(base, &off, bt * 3 * aa);
        b->att = take(base, &off, sz(bsz) * sz(ar->n_heads) * tt);
        b->a = take(base, &off, bt * aa);
        b->o = take(base, &off, bt * ww);
        b->m1 = take(base, &off, bt * ww);
        b->od = take(base, &off, bt * ww);
        b->r1 = take(base, &off, bt * ww);
        b->mean1 = take(base, &off, bt);
        b->rstd1 = take(base, &off, bt);
        b->x1 = take(base, &off, bt * ww);
        b->f = take(base, &off, bt * f);
        b->fr = take(base, &off, bt * f);
        b->f2 = take(base, &off, bt * ww);
        b->m2 = take(base, &off, bt * ww);
        b->f2d = take(base, &off, bt * ww);
        b->r2 = take(base, &off, bt * ww);
        b->mean2 = take(base, &off, bt);
        b->rstd2 = take(base, &off, bt);
        b->x2 = take(base, &off, bt * ww);
    }
    a->pool = take(base, &off, sz(bsz) * sz(m->p));
    a->ph = take(base, &off, ar->head_relu ? sz(bsz) * sz(m->p) : 0);
    a->pm = take(base, &off, sz(bsz) * sz(m->p));
    a->pd = take(base, &off, sz(bsz) * sz(m->p));
    a->y = take(base, &off, sz(bsz));
    size_t h = hf > hb ? hf : hb;
    size_t gru_scr = sz(bsz) * (3 * h * sz(m->t) + 3 * h + 2 * h);
    a->scratch = take(base, &off, gru_scr > tt ? gru_scr : tt);
    return off;
}

int pred_acts_reserve(struct pred_model *m, int bsz)
{
    if (bsz <= m->bmax)
        return 0;
    struct pred_acts probe;
    size_t n = layout_acts(m, NULL, &probe, bsz);
    pfloat *acts = malloc(n * sizeof *acts), *dacts = malloc(n * sizeof *acts);
    if (!acts || !dacts) {
        free(acts);
        free(dacts);
        return -1;
    }
    free(m->acts);
    free(m->dacts);
    m->acts = acts;
    m->dacts = dacts;
    m->nacts = n;
    m->bmax = bsz;
    layout_acts(m, acts, &m->a, bsz);
    layout_acts(m, dacts, &m->da, bsz);
    return 0;
}

/* Checks ARCH and SCHEMA; a message in ERR when they do not fit. The
 * bounds keep every size product within size_t and int (a checkpoint's
 * numbers are checked here before anything is allocated). */
#define PRED_MAX_WIDTH 65536
#define PRED_MAX_LEVELS 16777216L
static int check_shape(const struct pred_arch *ar, const struct pred_schema *s,
                       char *err, size_t errlen)
{
    const char *why = NULL;
    if (s->nfeat < 1 || s->nfeat > PRED_MAX_FEATURES)
        why = "the schema needs 1 to 512 features";
    else if ((ar->d_model < 1 && ar->tokens != PRED_TOKENS_ROW) ||
             ar->gru_fwd < 0 || ar->gru_bwd < 0 || ar->n_attn < 0 ||
             ar->n_attn > 64)
        why = "d_model must be positive, GRU units and attention layers "
              "non-negative (at most 64 layers)";
    else if (ar->d_model > PRED_MAX_WIDTH || ar->gru_fwd > PRED_MAX_WIDTH ||
             ar->gru_bwd > PRED_MAX_WIDTH || ar->d_ff > PRED_MAX_WIDTH ||
             ar->n_heads < 0 || ar->head_dim < 0 ||
             (long)ar->n_heads * ar->head_dim > PRED_MAX_WIDTH)
        why = "a width (d_model, GRU units, d_ff, heads x key channels) "
              "is above 65536";
    else if (ar->n_attn > 0 &&
             (ar->n_heads < 1 || ar->head_dim < 1 || ar->d_ff < 0))
        why = "attention needs positive heads and key channels, d_ff >= 0";
    else if ((int)ar->tokens < 0 || (int)ar->tokens > 1)
        why = "unknown token layout";
    else if (!(ar->dropout >= 0 && ar->dropout < 1))
        why = "dropout must be in [0, 1)";
    long levels = 0;
    for (int i = 0; !why && i < s->nfeat; i++) {
        if (!s->feat[i].name || s->feat[i].nlevels < 0 ||
            (s->feat[i].nlevels > 0 && !s->feat[i].levels))
            why = "a feature lacks its name or its levels";
        else if ((levels += s->feat[i].nlevels) > PRED_MAX_LEVELS)
            why = "more than 16777216 categorical levels in all";
    }
    if (why && err && errlen)
        snprintf(err, errlen, "predictor: %s", why);
    return why ? -1 : 0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Deep-copies S into M (one malloc per string; freed by free_schema). */
static int copy_schema(struct pred_model *m, const struct pred_schema *s)
{
    m->feat = calloc(sz(s->nfeat), sizeof *m->feat);
    m->kind = calloc(sz(s->nfeat), sizeof *m->kind);
    m->nlev = calloc(sz(s->nfeat), sizeof *m->nlev);
    m->xs = calloc(sz(s->nfeat), sizeof *m->xs);
    if (!m->feat || !m->kind || !m->nlev || !m->xs)
        return -1;
    m->schema.nfeat = s->nfeat;
    m->schema.feat = m->feat;
    for (int i = 0; i < s->nfeat; i++) {
        const struct pred_feature *f = &s->feat[i];
        m->xs[i] = (struct pred_scaler){0, 1};
        if (!(m->feat[i].name = dup_str(f->name)))
            return -1;
        m->nlev[i] = f->nlevels;
        if (f->nlevels == 0) {
            m->kind[i] = m->nnum++;
            continue;
        }
        char **lv = calloc(sz(f->nlevels), sizeof *lv);
        if (!lv)
            return -1;
        m->feat[i].levels = (const char *const *)lv;
        m->feat[i].nlevels = f->nlevels;
        for (int k = 0; k < f->nlevels; k++)
            if (!(lv[k] = dup_str(f->levels[k])))
                return -1;
        m->kind[i] = -1 - m->nlevels_total;
        m->nlevels_total += f->nlevels;
    }
    return 0;
}

static void free_schema(struct pred_model *m)
{
    for (int i = 0; m->feat && i < m->schema.nfeat; i++) {
        char **lv = (char **)(void *)m->feat[i].levels;
        for (int k = 0; lv && k < m->feat[i].nlevels; k++)
            free(lv[k]);
        free(lv);
        free((char *)(void *)m->feat[i].name);
    }
    free(m->feat);
    free(m->kind);
    free(m->nlev);
    free(m->xs);
}

struct pred_model *pred_alloc(const struct pred_arch *arch,
                              const struct pred_schema *schema, char *err,
                              size_t errlen)
{
    if (check_shape(arch, schema, err, errlen) < 0)
        return NULL;
    struct pred_model *m = calloc(1, sizeof *m);
    if (!m || copy_schema(m, schema) < 0)
        goto fail;
    m->arch = *arch;
    m->arch.name[sizeof m->arch.name - 1] = '\0';
    m->t = m->nx = schema->nfeat;
    m->c = arch->d_model;
    if (arch->tokens == PRED_TOKENS_ROW) {
        /* One token, the row's standardized features as its channels:
         * every feature is scaled (categorical codes too), no embedding. */
        m->t = 1;
        m->c = m->arch.d_model = schema->nfeat;
        for (int i = 0; i < schema->nfeat; i++)
            m->kind[i] = i;
        m->nnum = m->nlevels_total = 0;
    }
    m->g = arch->gru_fwd + arch->gru_bwd;
    int gru_first = arch->order == PRED_GRU_FIRST;
    m->w_att = gru_first && m->g > 0 ? m->g : m->c;
    m->p = (!gru_first || arch->n_attn == 0) && m->g > 0 ? m->g : m->w_att;
    m->nparams = layout_params(m, NULL, &m->w);
    m->chunk = m->nparams * sizeof(float) <= (1u << 20) ? PRED_CHUNK_SMALL
                                                        : PRED_CHUNK_LARGE;
    m->params = calloc(m->nparams, sizeof *m->params);
    m->grads = calloc(m->nparams, sizeof *m->grads);
    m->m1 = calloc(m->nparams, sizeof *m->m1);
    m->v1 = calloc(m->nparams, sizeof *m->v1);
    m->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!m->params || !m->grads || !m->m1 || !m->v1 || !m->rng)
        goto fail;
    layout_params(m, m->params, &m->w);
    layout_params(m, m->grads, &m->dw);
    m->ys = (struct pred_scaler){0, 1};
    m->rec.val_mse = NAN;
    return m;
fail:
    if (err && errlen)
        snprintf(err, errlen, "predictor: out of memory");
    pred_destroy(m);
    return NULL;
}

/* Uniform(-b, b) into N values. */
static void uniform(pfloat *p, size_t n, double b, gsl_rng *r)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (pfloat)((2 * gsl_rng_uniform(r) - 1) * b);
}

void pred_init_params(struct pred_model *m, unsigned long seed)
{
    gsl_rng *r = m->rng;
    gsl_rng_set(r, seed);
    const struct pred_arch *ar = &m->arch;
    size_t c = sz(m->c);
    /* Token weights and level embeddings of unit scale (inputs are
     * standardized), small positions, zero token biases. */
    uniform(m->w.emb_w, sz(m->nnum) * c, 1, r);
    memset(m->w.emb_b, 0, sz(m->nnum) * c * sizeof *m->params);
    uniform(m->w.emb_cat, sz(m->nlevels_total) * c, 1, r);
    uniform(m->w.pos, m->arch.tokens == PRED_TOKENS_ROW ? 0 : sz(m->t) * c, 0.1,
            r);
    /* GRU: U(-1/sqrt(H), 1/sqrt(H)) as torch.nn.GRU. */
    int hd[2] = {ar->gru_fwd, ar->gru_bwd};
    for (int d = 0; d < 2; d++) {
        pfloat **g = d == 0 ? m->w.gf : m->w.gb;
        size_t h = sz(hd[d]);
        double b = h ? 1 / sqrt((double)h) : 0;
        if (h == 0)
            continue;
        uniform(g[0], 3 * h * c, b, r);
        uniform(g[1], 3 * h * h, b, r);
        uniform(g[2], 3 * h, b, r);
        uniform(g[3], 3 * h, b, r);
    }
    /* Linear layers: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as torch.nn.Linear;
     * layer norms start at the identity. */
    size_t ww = sz(m->w_att), a = sz(ar->n_heads * ar->head_dim);
    size_t f = sz(ar->d_ff);
    for (int l = 0; l < ar->n_attn; l++) {
        struct pred_block_w *b = &m->w.blk[l];
        uniform(b->wqkv, 3 * a * ww, 1 / sqrt((double)ww), r);
        uniform(b->bqkv, 3 * a, 1 / sqrt((double)ww), r);
        uniform(b->wo, ww * a, 1 / sqrt((double)a), r);
        uniform(b->bo, ww, 1 / sqrt((double)a), r);
        uniform(b->w1, f * ww, 1 / sqrt((double)ww), r);
        uniform(b->b1, f, 1 / sqrt((double)ww), r);
        uniform(b->w2, ww * f, 1 / sqrt((double)f), r);
        uniform(b->b2, ww, 1 / sqrt((double)f), r);
        for (size_t j = 0; j < ww; j++) {
            b->ln1g[j] = 1;
            b->ln1b[j] = 0;
        }
        for (size_t j = 0; f && j < ww; j++) {
            b->ln2g[j] = 1;
            b->ln2b[j] = 0;
        }
    }
    uniform(m->w.fc_w, sz(m->p), 1 / sqrt((double)m->p), r);
    uniform(m->w.fc_b, 1, 1 / sqrt((double)m->p), r);
    if (m->arch.linear_skip) /* the network alone at first */
        memset(m->w.skip, 0, sz(m->nx) * sizeof *m->w.skip);
    memset(m->m1, 0, m->nparams * sizeof *m->m1);
    memset(m->v1, 0, m->nparams * sizeof *m->v1);
    m->adam_t = 0;
    pred_params_changed(m);
}

struct pred_model *pred_create(const struct pred_arch *arch,
                               const struct pred_schema *schema,
                               unsigned long seed, char *err, size_t errlen)
{
    struct pred_model *m = pred_alloc(arch, schema, err, errlen);
    if (m)
        pred_init_params(m, seed);
    return m;
}

void pred_destroy(struct pred_model *m)
{
    if (!m)
        return;
    free_schema(m);
    free(m->params);
    free(m->grads);
    free(m->m1);
    free(m->v1);
    free(m->decay);
    free(m->acts);
    free(m->dacts);
    pred_fast_free(m);
    if (m->rng)
        gsl_rng_free(m->rng);
    free(m);
}

const struct pred_schema *pred_model_schema(const struct pred_model *m)
{
    return &m->schema;
}

const struct pred_arch *pred_model_arch(const struct pred_model *m)
{
    return &m->arch;
}

const struct pred_train_record *pred_model_record(const struct pred_model *m)
{
    return &m->rec;
}

size_t pred_param_count(const struct pred_model *m)
{
    return m->nparams;
}
