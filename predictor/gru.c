/* gru.c -- one direction of a GRU with the equations of torch.nn.GRU:
 *   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
 *   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
 *   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))   (reset after product)
 *   h' = (1 - z) * n + z * h,   h0 = 0.
 * The input products of all tokens are one matrix product; the recurrent
 * product is one per step over the batch. */
#include <math.h>
#include <string.h>

#include "nn_internal.h"

static pfloat sigmoid(pfloat x)
{
    return 1 / (1 + pred_exp(-x));
}

/* One step for one batch row: gates GT (3H) and state HO (H) from the
 * input and recurrent pre-activations XI, HH (3H) and the previous state
 * HP (H; may be HO itself, zeroed, at the first step). RESTRICT tells the
 * compiler what does not overlap, so that the loop vectorizes. */
static void gru_cell_forward(pfloat *restrict gt, pfloat *ho,
                             const pfloat *restrict xi,
                             const pfloat *restrict hh, const pfloat *hp,
                             int hs)
{
    for (int j = 0; j < hs; j++) {
        pfloat r = sigmoid(xi[j] + hh[j]);
        pfloat z = sigmoid(xi[hs + j] + hh[hs + j]);
        pfloat n = pred_tanh(xi[2 * hs + j] + r * hh[2 * hs + j]);
        gt[j] = r;
        gt[hs + j] = z;
        gt[2 * hs + j] = n;
        ho[j] = (1 - z) * n + z * hp[j];
    }
}

void pred_gru_forward(pfloat *h, pfloat *gi, pfloat *gh, pfloat *gate,
                      const pfloat *inp, const struct pred_gru_w *w, int bsz,
                      int t, int c, int hs, int reverse)
{
    int g3 = 3 * hs;
    pred_linear_forward(gi, inp, w->w_ih, w->b_ih, bsz * t, c, g3);
    for (int s = 0; s < t; s++) {
        int tt = reverse ? t - 1 - s : s, pt = reverse ? tt + 1 : tt - 1;
        pfloat *ghs = gh + (size_t)tt * (size_t)g3;
        for (int b = 0; b < bsz; b++)
            memcpy(ghs + (size_t)b * (size_t)t * (size_t)g3, w->b_hh,
                   (size_t)g3 * sizeof *gh);
        if (s > 0) /* gh[:, tt] += h[:, pt] W_hh; rows T*. apart */
            pred_gemm(0, 0, bsz, g3, hs, 1, h + (size_t)pt * (size_t)hs, t * hs,
                      w->w_hh, g3, 1, ghs, t * g3);
        for (int b = 0; b < bsz; b++) {
            size_t row = (size_t)b * (size_t)t + (size_t)tt;
            const pfloat *xi = gi + row * (size_t)g3,
                         *hh = gh + row * (size_t)g3;
            pfloat *gt = gate + row * (size_t)g3, *ho = h + row * (size_t)hs;
            /* h0 = 0: the first step reads its own zeroed output, so that
             * the loop has no branch and vectorizes. */
            const pfloat *hp = ho;
            if (s > 0)
                hp = h + ((size_t)b * (size_t)t + (size_t)pt) * (size_t)hs;
            else
                memset(ho, 0, (size_t)hs * sizeof *ho);
            gru_cell_forward(gt, ho, xi, hh, hp, hs);
        }
    }
}

/* The gate gradients of one step for batch row B: DGI, DGH (3H each) and
 * the direct part of dh_prev, from DH (H). */
static void gru_cell_backward(pfloat *dgi, pfloat *dgh, pfloat *dhp,
                              const pfloat *dh, const pfloat *gt,
                              const pfloat *hh, const pfloat *hp, int hs)
{
    for (int j = 0; j < hs; j++) {
        pfloat r = gt[j], z = gt[hs + j], n = gt[2 * hs + j];
        pfloat prev = hp ? hp[j] : 0;
        pfloat dn = dh[j] * (1 - z), dz = dh[j] * (prev - n);
        pfloat dnp = dn * (1 - n * n);
        pfloat dr = dnp * hh[2 * hs + j];
        pfloat drp = dr * r * (1 - r), dzp = dz * z * (1 - z);
        dgi[j] = drp;
        dgi[hs + j] = dzp;
        dgi[2 * hs + j] = dnp;
        dgh[j] = drp;
        dgh[hs + j] = dzp;
        dgh[2 * hs + j] = dnp * r;
        dhp[j] = dh[j] * z;
    }
}

void pred_gru_backward(pfloat *dinp, const struct pred_gru_dw *dw,
                       const pfloat *dh_out, const pfloat *h, const pfloat *gh,
                       const pfloat *gate, const pfloat *inp,
                       const struct pred_gru_w *w, pfloat *scratch, int bsz,
                       int t, int c, int hs, int reverse)
{
    int g3 = 3 * hs;
    size_t nb = (size_t)bsz;
    pfloat *dgi = scratch;                           /* (B, T, 3H) */
    pfloat *dgh = dgi + nb * (size_t)t * (size_t)g3; /* (B, 3H) */
    pfloat *dh = dgh + nb * (size_t)g3;              /* (B, H) */
    pfloat *dhp = dh + nb * (size_t)hs;              /* (B, H) */
    memset(dh, 0, nb * (size_t)hs * sizeof *dh);
    for (int s = t - 1; s >= 0; s--) {
        int tt = reverse ? t - 1 - s : s, pt = reverse ? tt + 1 : tt - 1;
        for (int b = 0; b < bsz; b++) {
            size_t row = (size_t)b * (size_t)t + (size_t)tt;
            pfloat *dhb = dh + (size_t)b * (size_t)hs;
            for (int j = 0; j < hs; j++)
                dhb[j] += dh_out[row * (size_t)hs + (size_t)j];
            const pfloat *hp =
                s > 0 ? h + ((size_t)b * (size_t)t + (size_t)pt) * (size_t)hs
                      : NULL;
            gru_cell_backward(
                dgi + row * (size_t)g3, dgh + (size_t)b * (size_t)g3,
                dhp + (size_t)b * (size_t)hs, dhb, gate + row * (size_t)g3,
                gh + row * (size_t)g3, hp, hs);
        }
        for (int b = 0; b < bsz; b++)
            for (int j = 0; j < g3; j++)
                dw->b_hh[j] += dgh[(size_t)b * (size_t)g3 + (size_t)j];
        if (s > 0) {
            const pfloat *hprev = h + (size_t)pt * (size_t)hs;
            pred_gemm(1, 0, hs, g3, bsz, 1, hprev, t * hs, dgh, g3, 1, dw->w_hh,
                      g3);
            pred_gemm(0, 1, bsz, hs, g3, 1, dgh, g3, w->w_hh, g3, 1, dhp, hs);
        }
        memcpy(dh, dhp, nb * (size_t)hs * sizeof *dh);
    }
    pred_linear_backward(dinp, dw->w_ih, dw->b_ih, dgi, inp, w->w_ih, bsz * t,
                         c, g3);
}
