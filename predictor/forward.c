/* forward.c -- the whole network forward and backward, stage by stage:
 * tokens -> [BiGRU] and [attention blocks] in the chosen order -> pooling
 * over tokens -> [ReLU] -> dropout -> one linear output. An attention
 * block (with d_ff = 0, Hu's: only its first half, x2 = x1) is
 * post-norm, as torch.nn.TransformerEncoderLayer (norm_first=False):
 *   x1 = LN(x + drop(W_o attn(W_qkv x)))
 *   x2 = LN(x1 + drop(W_2 relu(W_1 x1))). */
#include <string.h>

#include "nn_internal.h"

static int has_gru(const struct pred_model *m)
{
    return m->g > 0;
}

/* The input of the GRU stage, in A (activations or their gradients). */
static pfloat *gru_input(const struct pred_model *m, const struct pred_acts *a)
{
    int n = m->arch.n_attn;
    if (m->arch.order == PRED_ATTENTION_FIRST && n > 0)
        return a->blk[n - 1].x2;
    return a->tok;
}

static pfloat *block_input(const struct pred_model *m,
                           const struct pred_acts *a, int l)
{
    if (l > 0)
        return a->blk[l - 1].x2;
    if (m->arch.order == PRED_GRU_FIRST && has_gru(m))
        return a->gru;
    return a->tok;
}

/* The last stage's output, which is pooled. */
static pfloat *final_output(const struct pred_model *m,
                            const struct pred_acts *a)
{
    int n = m->arch.n_attn;
    if (has_gru(m) && (m->arch.order == PRED_ATTENTION_FIRST || n == 0))
        return a->gru;
    return n > 0 ? a->blk[n - 1].x2 : a->tok;
}

static struct pred_gru_w gru_w(pfloat *const *g)
{
    return (struct pred_gru_w){g[0], g[1], g[2], g[3]};
}

static void gru_stage_forward(struct pred_model *m, int bsz)
{
    struct pred_acts *a = &m->a;
    const pfloat *in = gru_input(m, a);
    int hf = m->arch.gru_fwd, hb = m->arch.gru_bwd, t = m->t;
    struct pred_gru_w wf = gru_w(m->w.gf), wb = gru_w(m->w.gb);
    if (hf)
        pred_gru_forward(a->gfh, a->gfi, a->gfhh, a->gfg, in, &wf, bsz, t, m->c,
                         hf, 0);
    if (hb)
        pred_gru_forward(a->gbh, a->gbi, a->gbhh, a->gbg, in, &wb, bsz, t, m->c,
                         hb, 1);
    for (size_t r = 0; r < (size_t)bsz * (size_t)t; r++) {
        pfloat *o = a->gru + r * (size_t)m->g;
        memcpy(o, a->gfh + r * (size_t)hf, (size_t)hf * sizeof *o);
        memcpy(o + hf, a->gbh + r * (size_t)hb, (size_t)hb * sizeof *o);
    }
}

static void gru_stage_backward(struct pred_model *m, int bsz)
{
    struct pred_acts *a = &m->a, *da = &m->da;
    int hf = m->arch.gru_fwd, hb = m->arch.gru_bwd, t = m->t;
    for (size_t r = 0; r < (size_t)bsz * (size_t)t; r++) {
        const pfloat *d = da->gru + r * (size_t)m->g;
        memcpy(da->gfh + r * (size_t)hf, d, (size_t)hf * sizeof *d);
        memcpy(da->gbh + r * (size_t)hb, d + hf, (size_t)hb * sizeof *d);
    }
    const pfloat *in = gru_input(m, a);
    pfloat *din = gru_input(m, da);
    struct pred_gru_w wf = gru_w(m->w.gf), wb = gru_w(m->w.gb);
    struct pred_gru_dw df = {m->dw.gf[0], m->dw.gf[1], m->dw.gf[2],
                             m->dw.gf[3]};
    struct pred_gru_dw db = {m->dw.gb[0], m->dw.gb[1], m->dw.gb[2],
                             m->dw.gb[3]};
    if (hf)
        pred_gru_backward(din, &df, da->gfh, a->gfh, a->gfhh, a->gfg, in, &wf,
                          a->scratch, bsz, t, m->c, hf, 0);
    if (hb)
        pred_gru_backward(din, &db, da->gbh, a->gbh, a->gbhh, a->gbg, in, &wb,
                          a->scratch, bsz, t, m->c, hb, 1);
}

static void block_forward(struct pred_model *m, int l, int bsz, double p,
                          gsl_rng *rng)
{
    const struct pred_block_w *w = &m->w.blk[l];
    struct pred_block_act *b = &m->a.blk[l];
    const pfloat *in = block_input(m, &m->a, l);
    int n = bsz * m->t, ww = m->w_att, f = m->arch.d_ff;
    int nh = m->arch.n_heads, hd = m->arch.head_dim, aa = nh * hd;
    size_t nw = (size_t)n * (size_t)ww;
    pred_linear_forward(b->qkv, in, w->wqkv, w->bqkv, n, ww, 3 * aa);
    pred_attention_forward(b->a, b->att, b->qkv, bsz, m->t, nh, hd);
    pred_linear_forward(b->o, b->a, w->wo, w->bo, n, aa, ww);
    pred_dropout_forward(b->od, b->m1, b->o, nw, p, rng);
    for (size_t i = 0; i < nw; i++)
        b->r1[i] = in[i] + b->od[i];
    pred_layernorm_forward(b->x1, b->mean1, b->rstd1, b->r1, w->ln1g, w->ln1b,
                           n, ww);
    if (f == 0) { /* no feed-forward sublayer (Hu): the block ends here */
        memcpy(b->x2, b->x1, nw * sizeof *b->x2);
        return;
    }
    pred_linear_forward(b->f, b->x1, w->w1, w->b1, n, ww, f);
    pred_relu_forward(b->fr, b->f, (size_t)n * (size_t)f);
    pred_linear_forward(b->f2, b->fr, w->w2, w->b2, n, f, ww);
    pred_dropout_forward(b->f2d, b->m2, b->f2, nw, p, rng);
    for (size_t i = 0; i < nw; i++)
        b->r2[i] = b->x1[i] + b->f2d[i];
    pred_layernorm_forward(b->x2, b->mean2, b->rstd2, b->r2, w->ln2g, w->ln2b,
                           n, ww);
}

static void block_backward(struct pred_model *m, int l, int bsz)
{
    const struct pred_block_w *w = &m->w.blk[l];
    struct pred_block_w *dw = &m->dw.blk[l];
    struct pred_block_act *b = &m->a.blk[l], *db = &m->da.blk[l];
    const pfloat *in = block_input(m, &m->a, l);
    pfloat *din = block_input(m, &m->da, l);
    int n = bsz * m->t, ww = m->w_att, f = m->arch.d_ff;
    int nh = m->arch.n_heads, hd = m->arch.head_dim, aa = nh * hd;
    size_t nw = (size_t)n * (size_t)ww;
    if (f == 0) {
        for (size_t i = 0; i < nw; i++)
            db->x1[i] += db->x2[i];
    } else {
        pred_layernorm_backward(db->r2, dw->ln2g, dw->ln2b, db->x2, b->r2,
                                w->ln2g, b->mean2, b->rstd2, n, ww);
        for (size_t i = 0; i < nw; i++)
            db->x1[i] += db->r2[i];
        pred_dropout_backward(db->f2, db->r2, b->m2, nw);
        pred_linear_backward(db->fr, dw->w2, dw->b2, db->f2, b->fr, w->w2, n, f,
                             ww);
        pred_relu_backward(db->f, db->fr, b->fr, (size_t)n * (size_t)f);
        pred_linear_backward(db->x1, dw->w1, dw->b1, db->f, b->x1, w->w1, n, ww,
                             f);
    }
    pred_layernorm_backward(db->r1, dw->ln1g, dw->ln1b, db->x1, b->r1, w->ln1g,
                            b->mean1, b->rstd1, n, ww);
    for (size_t i = 0; i < nw; i++)
        din[i] += db->r1[i];
    pred_dropout_backward(db->o, db->r1, b->m1, nw);
    pred_linear_backward(db->a, dw->wo, dw->bo, db->o, b->a, w->wo, n, aa, ww);
    pred_attention_backward(db->qkv, db->a, b->qkv, b->att, m->a.scratch, bsz,
                            m->t, nh, hd);
    pred_linear_backward(din, dw->wqkv, dw->bqkv, db->qkv, in, w->wqkv, n, ww,
                         3 * aa);
}

int pred_skip_uses(const struct pred_model *m, int i)
{
    return m->arch.tokens == PRED_TOKENS_ROW || m->nlev[i] == 0;
}

/* arch.linear_skip: y += v . x over the features pred_skip_uses. */
static void skip_forward(struct pred_model *m, int bsz)
{
    for (int r = 0; r < bsz; r++) {
        const pfloat *x = m->a.x + (size_t)r * (size_t)m->nx;
        double s = 0;
        for (int i = 0; i < m->nx; i++)
            if (pred_skip_uses(m, i))
                s += (double)m->w.skip[i] * (double)x[i];
        m->a.y[r] += (pfloat)s;
    }
}

static void skip_backward(struct pred_model *m, int bsz)
{
    for (int r = 0; r < bsz; r++) {
        const pfloat *x = m->a.x + (size_t)r * (size_t)m->nx;
        for (int i = 0; i < m->nx; i++)
            if (pred_skip_uses(m, i))
                m->dw.skip[i] += m->da.y[r] * x[i];
    }
}

void pred_forward(struct pred_model *m, int bsz, int train)
{
    struct pred_acts *a = &m->a;
    double p = train ? m->arch.dropout : 0;
    gsl_rng *rng = train ? m->rng : NULL;
    if (m->arch.tokens == PRED_TOKENS_ROW) /* the row is the token */
        memcpy(a->tok, a->x, (size_t)bsz * (size_t)m->nx * sizeof *a->tok);
    else
        pred_embed_forward(a->tok, a->x, m->kind, m->nlev, m->w.emb_w,
                           m->w.emb_b, m->w.emb_cat, m->w.pos, bsz, m->t, m->c);
    int gru_first = m->arch.order == PRED_GRU_FIRST;
    if (has_gru(m) && gru_first)
        gru_stage_forward(m, bsz);
    for (int l = 0; l < m->arch.n_attn; l++)
        block_forward(m, l, bsz, p, rng);
    if (has_gru(m) && !gru_first)
        gru_stage_forward(m, bsz);
    pred_pool_forward(a->pool, final_output(m, a), bsz, m->t, m->p,
                      m->arch.pool);
    size_t np = (size_t)bsz * (size_t)m->p;
    const pfloat *head = a->pool;
    if (m->arch.head_relu) { /* Hu: ReLU before dropout and the output */
        pred_relu_forward(a->ph, a->pool, np);
        head = a->ph;
    }
    pred_dropout_forward(a->pd, a->pm, head, np, p, rng);
    pred_linear_forward(a->y, a->pd, m->w.fc_w, m->w.fc_b, bsz, m->p, 1);
    if (m->arch.linear_skip)
        skip_forward(m, bsz);
}

/* Zeroes the first BSZ rows of the activation gradients that backward
 * functions add into (not the masks, statistics and GRU gates, which have
 * no gradient of their own). */
static void zero_accumulated(struct pred_model *m, int bsz)
{
    struct pred_acts *da = &m->da;
    size_t t = (size_t)m->t, ww = (size_t)m->w_att, f = (size_t)m->arch.d_ff;
    size_t aa = (size_t)(m->arch.n_heads * m->arch.head_dim);
#define Z(p, per_row) memset((p), 0, (size_t)bsz *(per_row) * sizeof *(p))
    Z(da->tok, t * (size_t)m->c);
    Z(da->gru, t * (size_t)m->g);
    for (int l = 0; l < m->arch.n_attn; l++) {
        struct pred_block_act *b = &da->blk[l];
        Z(b->qkv, t * 3 * aa);
        Z(b->a, t * aa);
        Z(b->o, t * ww);
        Z(b->r1, t * ww);
        Z(b->x1, t * ww);
        Z(b->f, t * f);
        Z(b->fr, t * f);
        Z(b->f2, t * ww);
        Z(b->r2, t * ww);
        Z(b->x2, t * ww);
    }
    Z(da->pool, (size_t)m->p);
    Z(da->pd, (size_t)m->p);
    if (m->arch.head_relu)
        Z(da->ph, (size_t)m->p);
#undef Z
}

void pred_backward(struct pred_model *m, int bsz)
{
    struct pred_acts *a = &m->a, *da = &m->da;
    zero_accumulated(m, bsz);
    if (m->arch.linear_skip)
        skip_backward(m, bsz);
    pred_linear_backward(da->pd, m->dw.fc_w, m->dw.fc_b, da->y, a->pd,
                         m->w.fc_w, bsz, m->p, 1);
    size_t np = (size_t)bsz * (size_t)m->p;
    if (m->arch.head_relu) {
        pred_dropout_backward(da->ph, da->pd, a->pm, np);
        pred_relu_backward(da->pool, da->ph, a->ph, np);
    } else {
        pred_dropout_backward(da->pool, da->pd, a->pm, np);
    }
    pred_pool_backward(final_output(m, da), da->pool, bsz, m->t, m->p,
                       m->arch.pool);
    int gru_first = m->arch.order == PRED_GRU_FIRST;
    if (has_gru(m) && !gru_first)
        gru_stage_backward(m, bsz);
    for (int l = m->arch.n_attn - 1; l >= 0; l--)
        block_backward(m, l, bsz);
    if (has_gru(m) && gru_first)
        gru_stage_backward(m, bsz);
    if (m->arch.tokens != PRED_TOKENS_ROW)
        pred_embed_backward(m->dw.emb_w, m->dw.emb_b, m->dw.emb_cat, m->dw.pos,
                            da->tok, a->x, m->kind, m->nlev, bsz, m->t, m->c);
}
