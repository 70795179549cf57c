/* infer.c -- the forward at inference (dropout off), one row at a time,
 * in hand loops that the compiler vectorizes, with no call into BLAS and
 * no allocation per call (pred_predict uses it; training keeps
 * forward.c's batched path).
 *
 * Attention's four projections are folded into two products per head,
 * precomputed once per set of weights (pred_params_changed drops them):
 *   score(i, j) = s (x_i Wq + bq) . (x_j Wk + bk)
 *              = x_j . (x_i QK + cq) + (terms without j, which softmax
 *                                        ignores)
 *     with QK = s Wq Wk^T (W x W) and cq = s Wk bq;
 *   out_i = bo + sum_h (sum_j p_ij (x_j Wv + bv)) Wo
 *         = bo' + sum_h sum_j p_ij (x_j VO),
 *     with VO = Wv Wo (W x W) and bo' = bo + sum_h bv Wo (the p_ij of a
 *     row sum to 1).
 * Per token and head that is 2 W^2 multiply-adds against 4 W HD, so the
 * fast path is taken when W <= 2 HD (tbigru, hu2025: W = 16, HD = 32);
 * wider models (wang2025) keep the batched path. The results agree with
 * forward.c's to rounding (tests/predictor/infer.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

/* On x86-64 with GCC, the row function is built twice, for x86-64-v3
 * (AVX2 and FMA) and the baseline, and the loader picks one for the CPU. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__SANITIZE_ADDRESS__)
#define PRED_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PRED_CLONES
#endif
#define INL static inline __attribute__((always_inline))

struct pred_fast {
    unsigned long gen; /* m->wgen when built */
    pfloat *mem;
    pfloat *qk[64], *cq[64], *vo[64], *bo[64]; /* per block */
    /* one row's activations */
    pfloat *tok, *gi, *gh, *hf, *hb, *gru, *x, *q, *u, *s, *o, *x1, *f, *pool;
};

void pred_params_changed(struct pred_model *m)
{
    m->wgen++;
}

void pred_fast_free(struct pred_model *m)
{
    if (m->fast)
        free(m->fast->mem);
    free(m->fast);
    m->fast = NULL;
}

static int fast_applies(const struct pred_model *m)
{
    return m->arch.n_attn == 0 || m->w_att <= 2 * m->arch.head_dim;
}

/* Lays out (BASE null: counts) the fused weights and the activations. */
static size_t fast_layout(const struct pred_model *m, struct pred_fast *f,
                          pfloat *base)
{
    size_t off = 0, t = (size_t)m->t, w = (size_t)m->w_att;
    size_t nh = (size_t)m->arch.n_heads, hm = (size_t)m->arch.gru_fwd;
    if ((size_t)m->arch.gru_bwd > hm)
        hm = (size_t)m->arch.gru_bwd;
#define TAKE(p, n)                                                             \
    do {                                                                       \
        (p) = base ? base + off : NULL;                                        \
        off += (n);                                                            \
    } while (0)
    for (int l = 0; l < m->arch.n_attn; l++) {
        TAKE(f->qk[l], nh * w * w);
        TAKE(f->cq[l], nh * w);
        TAKE(f->vo[l], nh * w * w);
        TAKE(f->bo[l], w);
    }
    TAKE(f->tok, t * (size_t)m->c);
    TAKE(f->gi, 2 * t * 3 * hm);
    TAKE(f->gh, 2 * 6 * hm);
    TAKE(f->hf, t * hm);
    TAKE(f->hb, t * hm);
    TAKE(f->gru, t * (size_t)(m->g > 0 ? m->g : 1));
    TAKE(f->x, t * w);
    TAKE(f->q, t * nh * w);
    TAKE(f->u, t * nh * w);
    TAKE(f->s, 2 * t * nh);
    TAKE(f->o, t * w);
    TAKE(f->x1, t * w);
    TAKE(f->f, (size_t)(m->arch.d_ff > 0 ? m->arch.d_ff : 1));
    TAKE(f->pool, (size_t)m->p);
#undef TAKE
    return off;
}

/* The fused products of block L (see the head of the file), in double. */
static void fuse_block(struct pred_model *m, struct pred_fast *f, int l)
{
    const struct pred_block_w *b = &m->w.blk[l];
    int w = m->w_att, nh = m->arch.n_heads, hd = m->arch.head_dim;
    int a = nh * hd, a3 = 3 * a;
    double sc = 1.0 / sqrt((double)hd);
    for (int j = 0; j < w; j++) {
        double s = b->bo[j];
        for (int k = 0; k < a; k++)
            s += (double)b->bqkv[2 * a + k] *
                 b->wo[(size_t)k * (size_t)w + (size_t)j];
        f->bo[l][j] = (pfloat)s;
    }
    for (int h = 0; h < nh; h++) {
        /* QK, VO (W, NH W): head H in columns H W ..; cq (NH W) */
        size_t hw = (size_t)nh * (size_t)w;
        pfloat *qk = f->qk[l] + (size_t)h * (size_t)w;
        pfloat *vo = f->vo[l] + (size_t)h * (size_t)w;
        pfloat *cq = f->cq[l] + (size_t)h * (size_t)w;
        int q0 = h * hd, k0 = a + h * hd, v0 = 2 * a + h * hd;
        for (int i = 0; i < w; i++) {
            const pfloat *wi = b->wqkv + (size_t)i * (size_t)a3;
            double c = 0;
            for (int d = 0; d < hd; d++)
                c += (double)wi[k0 + d] * b->bqkv[q0 + d];
            cq[i] = (pfloat)(sc * c);
            for (int j = 0; j < w; j++) {
                const pfloat *wj = b->wqkv + (size_t)j * (size_t)a3;
                double s = 0, v = 0;
                for (int d = 0; d < hd; d++) {
                    s += (double)wi[q0 + d] * wj[k0 + d];
                    v += (double)wi[v0 + d] *
                         b->wo[(size_t)(h * hd + d) * (size_t)w + (size_t)j];
                }
                qk[(size_t)i * hw + (size_t)j] = (pfloat)(sc * s);
                vo[(size_t)i * hw + (size_t)j] = (pfloat)v;
            }
        }
    }
}

/* The cache for the current weights, or NULL (out of memory, or the fast
 * path does not apply). */
static struct pred_fast *fast_get(struct pred_model *m)
{
    if (!fast_applies(m))
        return NULL;
    struct pred_fast *f = m->fast;
    if (!f) {
        f = calloc(1, sizeof *f);
        if (!f)
            return NULL;
        size_t n = fast_layout(m, f, NULL);
        f->mem = calloc(n, sizeof *f->mem);
        if (!f->mem) {
            free(f);
            return NULL;
        }
        fast_layout(m, f, f->mem);
        f->gen = m->wgen - 1;
        m->fast = f;
    }
    if (f->gen != m->wgen) {
        for (int l = 0; l < m->arch.n_attn; l++)
            fuse_block(m, f, l);
        f->gen = m->wgen;
    }
    return f;
}

/* Fixed-width vectors (GCC's vector extension): 8 floats or 4 doubles,
 * one AVX register in the x86-64-v3 clone, two SSE ones otherwise. */
typedef pfloat pvec __attribute__((vector_size(32)));
/* The helpers taking and returning pvec are always inlined: no call passes
 * one, so GCC's ABI note for them (-Wpsabi, off for this file in
 * CMakeLists.txt) does not apply. */
#define VL ((int)(sizeof(pvec) / sizeof(pfloat)))

INL pvec vld(const pfloat *p)
{
    pvec v;
    memcpy(&v, p, sizeof v);
    return v;
}

INL void vst(pfloat *p, pvec v)
{
    memcpy(p, &v, sizeof v);
}

INL pfloat hsum(pvec v)
{
    pfloat r[VL];
    memcpy(r, &v, sizeof r);
    for (int h = VL / 2; h > 0; h /= 2) /* a tree: short chains */
        for (int k = 0; k < h; k++)
            r[k] += r[k + h];
    return r[0];
}

/* out (OC) = b + in (IC) W, W (IC, OC) input-major. Vectors of outputs
 * stay in registers while the inputs go by; four independent chains of
 * additions at least (4 vectors, or 2 or 1 with the inputs split between
 * 2 or 4 partial sums), so that the adder's latency is hidden. */
INL void lin(pfloat *restrict out, const pfloat *restrict in,
             const pfloat *restrict w, const pfloat *restrict b, int ic, int oc)
{
    const pvec zero = {0};
    size_t so = (size_t)oc;
    int o = 0, i4 = ic - ic % 4;
    for (; o + 4 * VL <= oc; o += 4 * VL) {
        pvec a0 = b ? vld(b + o) : zero, a1 = b ? vld(b + o + VL) : zero;
        pvec a2 = b ? vld(b + o + 2 * VL) : zero;
        pvec a3 = b ? vld(b + o + 3 * VL) : zero;
        for (int i = 0; i < ic; i++) {
            const pfloat *wr = w + (size_t)i * so + (size_t)o;
            pvec v = zero + in[i];
            a0 += v * vld(wr);
            a1 += v * vld(wr + VL);
            a2 += v * vld(wr + 2 * VL);
            a3 += v * vld(wr + 3 * VL);
        }
        vst(out + o, a0);
        vst(out + o + VL, a1);
        vst(out + o + 2 * VL, a2);
        vst(out + o + 3 * VL, a3);
    }
    for (; o + 2 * VL <= oc; o += 2 * VL) {
        pvec a0 = b ? vld(b + o) : zero, a1 = b ? vld(b + o + VL) : zero;
        pvec c0 = zero, c1 = zero;
        int i = 0;
        for (; i + 1 < ic; i += 2) {
            const pfloat *wr = w + (size_t)i * so + (size_t)o;
            pvec v = zero + in[i], u = zero + in[i + 1];
            a0 += v * vld(wr);
            a1 += v * vld(wr + VL);
            c0 += u * vld(wr + so);
            c1 += u * vld(wr + so + VL);
        }
        for (; i < ic; i++) {
            const pfloat *wr = w + (size_t)i * so + (size_t)o;
            a0 += (zero + in[i]) * vld(wr);
            a1 += (zero + in[i]) * vld(wr + VL);
        }
        vst(out + o, a0 + c0);
        vst(out + o + VL, a1 + c1);
    }
    for (; o + VL <= oc; o += VL) {
        pvec a[4] = {b ? vld(b + o) : zero, zero, zero, zero};
        for (int i = 0; i < i4; i += 4)
            for (int k = 0; k < 4; k++)
                a[k] += (zero + in[i + k]) *
                        vld(w + (size_t)(i + k) * so + (size_t)o);
        for (int i = i4; i < ic; i++)
            a[0] += (zero + in[i]) * vld(w + (size_t)i * so + (size_t)o);
        vst(out + o, (a[0] + a[1]) + (a[2] + a[3]));
    }
    for (; o < oc; o++) {
        pfloat s4[4] = {b ? b[o] : 0, 0, 0, 0};
        for (int i = 0; i < i4; i += 4)
            for (int k = 0; k < 4; k++)
                s4[k] += in[i + k] * w[(size_t)(i + k) * so + (size_t)o];
        for (int i = i4; i < ic; i++)
            s4[0] += in[i] * w[(size_t)i * so + (size_t)o];
        out[o] = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    }
}

INL pfloat dot(const pfloat *restrict a, const pfloat *restrict b, int n)
{
    pvec acc = {0};
    int c = 0;
    for (; c + VL <= n; c += VL)
        acc += vld(a + c) * vld(b + c);
    pfloat s = hsum(acc);
    for (; c < n; c++)
        s += a[c] * b[c];
    return s;
}

INL pfloat sum(const pfloat *restrict a, int n)
{
    pvec acc = {0};
    int c = 0;
    for (; c + VL <= n; c += VL)
        acc += vld(a + c);
    pfloat s = hsum(acc);
    for (; c < n; c++)
        s += a[c];
    return s;
}

/* y += a x */
INL void axpy(pfloat *restrict y, pfloat a, const pfloat *restrict x, int n)
{
    const pvec zero = {0};
    int c = 0;
    for (; c + VL <= n; c += VL)
        vst(y + c, vld(y + c) + (zero + a) * vld(x + c));
    for (; c < n; c++)
        y[c] += a * x[c];
}

INL pfloat sigm(pfloat x)
{
    return 1 / (1 + pred_exp(-x));
}

/* One step of a GRU direction: state HO from the input and recurrent
 * pre-activations XI, GH (3H) and the previous state HP (NULL: zero). The
 * gates go through exp in whole-array loops, which vectorize. */
INL void gru_cell(pfloat *restrict ho, pfloat *restrict tmp,
                  const pfloat *restrict xi, const pfloat *restrict gh,
                  const pfloat *restrict hp, int hs)
{
    for (int j = 0; j < 2 * hs; j++)
        tmp[j] = 1 / (1 + pred_exp(-(xi[j] + gh[j])));
    for (int j = 0; j < hs; j++)
        tmp[2 * hs + j] = 2 * (xi[2 * hs + j] + tmp[j] * gh[2 * hs + j]);
    for (int j = 0; j < hs; j++)
        tmp[2 * hs + j] = 1 - 2 / (pred_exp(tmp[2 * hs + j]) + 1);
    for (int j = 0; j < hs; j++) {
        pfloat z = tmp[hs + j], n = tmp[2 * hs + j];
        ho[j] = (1 - z) * n + z * (hp ? hp[j] : 0);
    }
}

/* Both directions over T tokens of width C (the independent recurrences
 * side by side), into f->gru (T, HF + HB). */
INL void gru_stage(const struct pred_model *m, struct pred_fast *f,
                   const pfloat *in, int c)
{
    int hs[2] = {m->arch.gru_fwd, m->arch.gru_bwd}, t = m->t, g = m->g;
    pfloat *const *wg[2] = {m->w.gf, m->w.gb};
    pfloat *hh[2] = {f->hf, f->hb};
    size_t hm = (size_t)(hs[0] > hs[1] ? hs[0] : hs[1]);
    for (int d = 0; d < 2; d++)
        for (int k = 0; hs[d] && k < t; k++)
            lin(f->gi + ((size_t)d * (size_t)t + (size_t)k) * 3 * hm,
                in + (size_t)k * (size_t)c, wg[d][0], wg[d][2], c, 3 * hs[d]);
    for (int s = 0; s < t; s++) {
        for (int d = 0; d < 2; d++) {
            if (!hs[d])
                continue;
            int k = d ? t - 1 - s : s, kp = d ? k + 1 : k - 1;
            pfloat *gh = f->gh + (size_t)d * 6 * hm, *tmp = gh + 3 * hm;
            const pfloat *hp = s ? hh[d] + (size_t)kp * (size_t)hs[d] : NULL;
            if (hp)
                lin(gh, hp, wg[d][1], wg[d][3], hs[d], 3 * hs[d]);
            else
                memcpy(gh, wg[d][3], (size_t)(3 * hs[d]) * sizeof *gh);
            gru_cell(hh[d] + (size_t)k * (size_t)hs[d], tmp,
                     f->gi + ((size_t)d * (size_t)t + (size_t)k) * 3 * hm, gh,
                     hp, hs[d]);
        }
    }
    for (int k = 0; k < t; k++) {
        pfloat *o = f->gru + (size_t)k * (size_t)g;
        memcpy(o, f->hf + (size_t)k * (size_t)hs[0], (size_t)hs[0] * sizeof *o);
        memcpy(o + hs[0], f->hb + (size_t)k * (size_t)hs[1],
               (size_t)hs[1] * sizeof *o);
    }
}

/* Layer norm of one row of C, eps 1e-5. */
INL void ln_row(pfloat *restrict out, pfloat *restrict x,
                const pfloat *restrict g, const pfloat *restrict b, int c)
{
    pfloat mu = sum(x, c) / (pfloat)c;
    for (int j = 0; j < c; j++)
        x[j] -= mu;
    pfloat var = dot(x, x, c) / (pfloat)c;
    pfloat rs = (pfloat)(1.0 / sqrt((double)var + 1e-5));
    for (int j = 0; j < c; j++)
        out[j] = x[j] * rs * g[j] + b[j];
}

/* Block L on X (T, W), in place. */
INL void block(const struct pred_model *m, struct pred_fast *f, int l,
               pfloat *restrict x)
{
    const struct pred_block_w *bw = &m->w.blk[l];
    int t = m->t, w = m->w_att, nh = m->arch.n_heads, ff = m->arch.d_ff;
    size_t hw = (size_t)nh * (size_t)w;
    for (int k = 0; k < t; k++) {
        const pfloat *xk = x + (size_t)k * (size_t)w;
        lin(f->q + (size_t)k * hw, xk, f->qk[l], f->cq[l], w, (int)hw);
        lin(f->u + (size_t)k * hw, xk, f->vo[l], NULL, w, (int)hw);
    }
    /* Per query i: scores S (NH, T), their softmax per head written as P
     * (T, NH), then o_i = bo' + P U with U (T NH, W) = f->u. */
    size_t nt = (size_t)nh * (size_t)t;
    pfloat *sc = f->s, *pp = f->s + nt;
    for (int i = 0; i < t; i++) {
        for (int h = 0; h < nh; h++) {
            const pfloat *q = f->q + (size_t)i * hw + (size_t)h * (size_t)w;
            pfloat *sh = sc + (size_t)h * (size_t)t;
            for (int j = 0; j < t; j++)
                sh[j] = dot(q, x + (size_t)j * (size_t)w, w);
            pfloat mx = sh[0];
            for (int j = 1; j < t; j++)
                mx = sh[j] > mx ? sh[j] : mx;
            for (int j = 0; j < t; j++)
                sh[j] -= mx;
        }
        for (size_t e = 0; e < nt; e++)
            sc[e] = pred_exp(sc[e]);
        for (int h = 0; h < nh; h++) {
            const pfloat *sh = sc + (size_t)h * (size_t)t;
            pfloat inv = 1 / sum(sh, t);
            for (int j = 0; j < t; j++)
                pp[(size_t)j * (size_t)nh + (size_t)h] = sh[j] * inv;
        }
        lin(f->o + (size_t)i * (size_t)w, pp, f->u, f->bo[l], (int)nt, w);
    }
    for (int k = 0; k < t; k++) {
        pfloat *xk = x + (size_t)k * (size_t)w,
               *ok = f->o + (size_t)k * (size_t)w;
        for (int c = 0; c < w; c++)
            ok[c] += xk[c];
        if (ff == 0) {
            ln_row(xk, ok, bw->ln1g, bw->ln1b, w);
            continue;
        }
        pfloat *x1 = f->x1;
        ln_row(x1, ok, bw->ln1g, bw->ln1b, w);
        lin(f->f, x1, bw->w1, bw->b1, w, ff);
        for (int j = 0; j < ff; j++)
            f->f[j] = f->f[j] > 0 ? f->f[j] : 0;
        lin(ok, f->f, bw->w2, bw->b2, ff, w);
        for (int c = 0; c < w; c++)
            ok[c] += x1[c];
        ln_row(xk, ok, bw->ln2g, bw->ln2b, w);
    }
}

/* The network on one standardized row X (T values); returns y. */
PRED_CLONES static pfloat fast_row(const struct pred_model *m,
                                   struct pred_fast *f, const pfloat *x)
{
    int t = m->t, w = m->w_att, gru_first = m->arch.order == PRED_GRU_FIRST;
    if (m->arch.tokens == PRED_TOKENS_ROW)
        memcpy(f->tok, x, (size_t)m->nx * sizeof *f->tok);
    else
        pred_embed_forward(f->tok, x, m->kind, m->nlev, m->w.emb_w, m->w.emb_b,
                           m->w.emb_cat, m->w.pos, 1, t, m->c);
    const pfloat *last = f->tok;
    if (m->g > 0 && gru_first) {
        gru_stage(m, f, f->tok, m->c);
        last = f->gru;
    }
    if (m->arch.n_attn > 0) {
        memcpy(f->x, last, (size_t)t * (size_t)w * sizeof *f->x);
        for (int l = 0; l < m->arch.n_attn; l++)
            block(m, f, l, f->x);
        last = f->x;
    }
    if (m->g > 0 && !gru_first) {
        gru_stage(m, f, last, w);
        last = f->gru;
    }
    int p = m->p, k0 = m->arch.pool == PRED_POOL_LAST ? t - 1 : 0;
    double y = m->w.fc_b[0];
    for (int c = 0; c < p; c++) {
        double s = 0;
        for (int k = k0; k < t; k++)
            s += last[(size_t)k * (size_t)p + (size_t)c];
        pfloat v = (pfloat)(s / (t - k0));
        if (m->arch.head_relu && v < 0)
            v = 0;
        y += (double)v * m->w.fc_w[c];
    }
    for (int i = 0; m->arch.linear_skip && i < m->nx; i++)
        if (pred_skip_uses(m, i))
            y += (double)m->w.skip[i] * (double)x[i];
    return (pfloat)y;
}

int pred_fast_forward(struct pred_model *m, int bsz)
{
    struct pred_fast *f = fast_get(m);
    if (!f)
        return -1;
    for (int r = 0; r < bsz; r++)
        m->a.y[r] = fast_row(m, f, m->a.x + (size_t)r * (size_t)m->nx);
    return 0;
}
