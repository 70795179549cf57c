/* attention.c -- the core of multi-head self-attention without a mask:
 * per row and head, softmax(Q K^T / sqrt(HD)) V, every token seeing every
 * other (a row's features have no order worth hiding). The projections
 * around it are linear layers (model.c). */
#include <math.h>

#include "nn_internal.h"

/* Softmax of each row of the (T, T) scores S, in place. The exponentials
 * of the whole block go in one loop, which the compiler vectorizes. */
static void softmax_rows(pfloat *s, int t)
{
    size_t tt = (size_t)t * (size_t)t;
    for (int i = 0; i < t; i++) {
        pfloat *row = s + (size_t)i * (size_t)t, mx = row[0];
        for (int j = 1; j < t; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j < t; j++)
            row[j] -= mx;
    }
    for (size_t e = 0; e < tt; e++)
        s[e] = pred_exp(s[e]);
    for (int i = 0; i < t; i++) {
        pfloat *row = s + (size_t)i * (size_t)t;
        double sum = 0;
        for (int j = 0; j < t; j++)
            sum += row[j];
        pfloat inv = (pfloat)(1 / sum);
        for (int j = 0; j < t; j++)
            row[j] *= inv;
    }
}

void pred_attention_forward(pfloat *out, pfloat *att, const pfloat *qkv,
                            int bsz, int t, int nh, int hd)
{
    int a = nh * hd, a3 = 3 * a;
    pfloat scale = (pfloat)(1.0 / sqrt((double)hd));
    for (int b = 0; b < bsz; b++) {
        for (int h = 0; h < nh; h++) {
            const pfloat *q = qkv + (size_t)b * (size_t)t * (size_t)a3 +
                              (size_t)h * (size_t)hd;
            const pfloat *k = q + a, *v = q + 2 * a;
            pfloat *s = att + ((size_t)b * (size_t)nh + (size_t)h) * (size_t)t *
                                  (size_t)t;
            pred_gemm(0, 1, t, t, hd, scale, q, a3, k, a3, 0, s, t);
            softmax_rows(s, t);
            pfloat *o = out + (size_t)b * (size_t)t * (size_t)a +
                        (size_t)h * (size_t)hd;
            pred_gemm(0, 0, t, hd, t, 1, s, t, v, a3, 0, o, a);
        }
    }
}

void pred_attention_backward(pfloat *dqkv, const pfloat *dout,
                             const pfloat *qkv, const pfloat *att,
                             pfloat *scratch, int bsz, int t, int nh, int hd)
{
    int a = nh * hd, a3 = 3 * a;
    pfloat scale = (pfloat)(1.0 / sqrt((double)hd));
    for (int b = 0; b < bsz; b++) {
        for (int h = 0; h < nh; h++) {
            size_t off =
                (size_t)b * (size_t)t * (size_t)a3 + (size_t)h * (size_t)hd;
            const pfloat *q = qkv + off, *k = q + a, *v = q + 2 * a;
            pfloat *dq = dqkv + off, *dk = dq + a, *dv = dq + 2 * a;
            const pfloat *s = att + ((size_t)b * (size_t)nh + (size_t)h) *
                                        (size_t)t * (size_t)t;
            const pfloat *d = dout + (size_t)b * (size_t)t * (size_t)a +
                              (size_t)h * (size_t)hd;
            pfloat *ds = scratch; /* (T, T): d att, then d scores */
            pred_gemm(0, 1, t, t, hd, 1, d, a, v, a3, 0, ds, t);
            pred_gemm(1, 0, t, hd, t, 1, s, t, d, a, 1, dv, a3);
            for (int i = 0; i < t; i++) {
                const pfloat *sr = s + (size_t)i * (size_t)t;
                pfloat *dr = ds + (size_t)i * (size_t)t;
                double dot = 0;
                for (int j = 0; j < t; j++)
                    dot += (double)dr[j] * sr[j];
                for (int j = 0; j < t; j++)
                    dr[j] = (pfloat)(sr[j] * (dr[j] - dot));
            }
            pred_gemm(0, 0, t, hd, t, scale, ds, t, k, a3, 1, dq, a3);
            pred_gemm(1, 0, t, hd, t, scale, ds, t, q, a3, 1, dk, a3);
        }
    }
}
