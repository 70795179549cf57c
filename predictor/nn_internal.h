/* nn_internal.h -- layers, parameter and activation layout of the
 * predictor, shared by its files and its tests (not part of the API).
 * The library is built twice: float (production) and, with PRED_F64,
 * double (tests: gradient checks and PyTorch fixtures). */
#ifndef HETSIM_NN_INTERNAL_H
#define HETSIM_NN_INTERNAL_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "nn_math.h"
#include "predictor.h"

#ifdef PRED_F64
typedef double pfloat;
#define pred_exp exp
#define pred_tanh tanh
#else
typedef float pfloat;
#define pred_exp pred_expf_poly /* tanh from it too: tanhf costs 3 expf */
#define pred_tanh(x) (1 - 2 / (pred_expf_poly(2 * (x)) + 1))
#endif

#define PRED_CKPT_VERSION                                                      \
    4u /* 2: weights input-major (see linear);                                 \
          3: + the training record; 4: + linear_skip */
/* Rows run through at once (pred_model.chunk): few for a small model, whose
 * activations then stay in cache; more for one of over 1 MiB of weights. */
#define PRED_CHUNK_SMALL 8
#define PRED_CHUNK_LARGE 32

/* C = alpha op(A) op(B) + beta C, row-major, through CBLAS unless
 * pred_naive_kernels is set (tests). */
extern int pred_naive_kernels;
void pred_gemm(int trans_a, int trans_b, int m, int n, int k, pfloat alpha,
               const pfloat *a, int lda, const pfloat *b, int ldb, pfloat beta,
               pfloat *c, int ldc);
/* The reference: three loops, sums in double. */
void pred_gemm_naive(int trans_a, int trans_b, int m, int n, int k,
                     pfloat alpha, const pfloat *a, int lda, const pfloat *b,
                     int ldb, pfloat beta, pfloat *c, int ldc);

/* ---- layers: outputs first, then inputs, then weights, then sizes;
 * backward functions add into gradients ---- */

/* out (N, OC) = inp (N, IC) w + b; w (IC, OC): input-major, the transpose
 * of torch's, so that OpenBLAS's small kernels apply (4x at batch 1). */
void pred_linear_forward(pfloat *out, const pfloat *inp, const pfloat *w,
                         const pfloat *b, int n, int ic, int oc);
void pred_linear_backward(pfloat *dinp, pfloat *dw, pfloat *db,
                          const pfloat *dout, const pfloat *inp,
                          const pfloat *w, int n, int ic, int oc);

/* Layer normalization over the last axis (eps 1e-5), N rows of C. */
void pred_layernorm_forward(pfloat *out, pfloat *mean, pfloat *rstd,
                            const pfloat *inp, const pfloat *g, const pfloat *b,
                            int n, int c);
void pred_layernorm_backward(pfloat *dinp, pfloat *dg, pfloat *db,
                             const pfloat *dout, const pfloat *inp,
                             const pfloat *g, const pfloat *mean,
                             const pfloat *rstd, int n, int c);

void pred_relu_forward(pfloat *out, const pfloat *inp, size_t n);
void pred_relu_backward(pfloat *dinp, const pfloat *dout, const pfloat *out,
                        size_t n);

/* out = inp * mask; the mask holds 0 or 1/(1-p). */
void pred_dropout_forward(pfloat *out, pfloat *mask, const pfloat *inp,
                          size_t n, double p, gsl_rng *rng);
void pred_dropout_backward(pfloat *dinp, const pfloat *dout, const pfloat *mask,
                           size_t n);

/* Tokens (B, T, C) of rows X (B, T): feature t numeric (kind[t] = index
 * into w/b) gives x * w + b, categorical (kind[t] = -1 - level offset)
 * gives the embedding row of code x; plus pos (T, C). */
void pred_embed_forward(pfloat *out, const pfloat *x, const int *kind,
                        const int *nlevels, const pfloat *w, const pfloat *b,
                        const pfloat *emb, const pfloat *pos, int bsz, int t,
                        int c);
void pred_embed_backward(pfloat *dw, pfloat *db, pfloat *demb, pfloat *dpos,
                         const pfloat *dout, const pfloat *x, const int *kind,
                         const int *nlevels, int bsz, int t, int c);

/* One GRU direction over (B, T, C) inputs; REVERSE reads t = T-1 .. 0.
 * gi, gh (B, T, 3H) pre-activations (r, z, n order as torch.nn.GRU),
 * gate (B, T, 3H) r, z, n after activation, h (B, T, H) the state after
 * reading token t, stored at position t. */
struct pred_gru_w {
    const pfloat *w_ih, *w_hh, *b_ih, *b_hh; /* (C,3H) (H,3H) (3H) (3H) */
};
struct pred_gru_dw {
    pfloat *w_ih, *w_hh, *b_ih, *b_hh;
};
void pred_gru_forward(pfloat *h, pfloat *gi, pfloat *gh, pfloat *gate,
                      const pfloat *inp, const struct pred_gru_w *w, int bsz,
                      int t, int c, int hs, int reverse);
/* SCRATCH: (B, 3H + 2H + 3H*T) pfloats. */
void pred_gru_backward(pfloat *dinp, const struct pred_gru_dw *dw,
                       const pfloat *dh_out, const pfloat *h, const pfloat *gh,
                       const pfloat *gate, const pfloat *inp,
                       const struct pred_gru_w *w, pfloat *scratch, int bsz,
                       int t, int c, int hs, int reverse);

/* Multi-head self-attention core, no mask: qkv (B, T, 3A) with A = NH*HD,
 * att (B, NH, T, T) softmax, out (B, T, A); backward's SCRATCH: T*T. */
void pred_attention_forward(pfloat *out, pfloat *att, const pfloat *qkv,
                            int bsz, int t, int nh, int hd);
void pred_attention_backward(pfloat *dqkv, const pfloat *dout,
                             const pfloat *qkv, const pfloat *att,
                             pfloat *scratch, int bsz, int t, int nh, int hd);

/* Mean (or last token) over T: (B, T, C) -> (B, C). */
void pred_pool_forward(pfloat *out, const pfloat *inp, int bsz, int t, int c,
                       enum pred_pool pool);
void pred_pool_backward(pfloat *dinp, const pfloat *dout, int bsz, int t, int c,
                        enum pred_pool pool);

/* ---- the model ---- */

struct pred_block_w {    /* one attention block; W input width, A = NH*HD */
    pfloat *wqkv, *bqkv; /* (W, 3A) (3A) */
    pfloat *wo, *bo;     /* (A, W) (W) */
    pfloat *ln1g, *ln1b; /* (W) (W) */
    pfloat *w1, *b1;     /* (W, F) (F) */
    pfloat *w2, *b2;     /* (F, W) (W) */
    pfloat *ln2g, *ln2b; /* (W) (W) */
};

struct pred_weights {
    pfloat *emb_w, *emb_b; /* (NNUM, C) (NNUM, C) */
    pfloat *emb_cat;       /* (sum of levels, C) */
    pfloat *pos;           /* (T, C) */
    pfloat *gf[4], *gb[4]; /* GRU forward / backward: w_ih w_hh b_ih b_hh */
    struct pred_block_w blk[64];
    pfloat *fc_w, *fc_b; /* (P) (1) */
    pfloat *skip;        /* (NX) arch.linear_skip; 0 on categorical codes */
};

struct pred_block_act {  /* (B, T, .) unless said */
    pfloat *qkv;         /* (B, T, 3A) */
    pfloat *att;         /* (B, NH, T, T) */
    pfloat *a;           /* (B, T, A) */
    pfloat *o, *m1, *od; /* (B, T, W) attention out, dropout mask, dropped */
    pfloat *r1, *mean1, *rstd1, *x1; /* (B,T,W) (B,T) (B,T) (B,T,W) */
    pfloat *f, *fr;                  /* (B, T, F) pre- and post-ReLU */
    pfloat *f2, *m2, *f2d;           /* (B, T, W) */
    pfloat *r2, *mean2, *rstd2, *x2;
};

struct pred_acts {
    pfloat *x;                      /* (B, T) standardized values / codes */
    pfloat *tok;                    /* (B, T, C) */
    pfloat *gfh, *gfi, *gfhh, *gfg; /* forward GRU h, gi, gh, gate */
    pfloat *gbh, *gbi, *gbhh, *gbg; /* backward GRU */
    pfloat *gru;                    /* (B, T, G) */
    struct pred_block_act blk[64];
    pfloat *pool, *pm, *pd; /* (B, P) pooled, dropout mask, dropped */
    pfloat *ph;             /* (B, P) ReLU of pool (arch.head_relu) */
    pfloat *y;              /* (B) */
    pfloat *scratch;
};

struct pred_model {
    struct pred_arch arch;
    struct pred_schema schema; /* deep copy, owned */
    struct pred_feature *feat; /* schema.feat, owned */
    int *kind;                 /* (T) see pred_embed_forward */
    int *nlev;                 /* (T) levels per feature, 0 numeric */
    int nnum, nlevels_total;
    struct pred_scaler *xs; /* (T) numeric standardization */
    struct pred_scaler ys;  /* target standardization */
    int log_target;
    int fitted;
    int t, c, g, w_att, p; /* tokens, d_model, GRU out, attn width, pool */
    int nx;                /* values of a row: the features */
    size_t nparams;
    pfloat *params, *grads, *m1, *v1; /* one block each */
    struct pred_weights w, dw;
    long adam_t;
    unsigned char *decay; /* (nparams) 1: a weight matrix (AdamW decay) */
    struct pred_train_record rec;
    int bmax, chunk; /* activations sized for BMAX rows; rows at once */
    size_t nacts;
    pfloat *acts, *dacts; /* one block each */
    struct pred_acts a, da;
    gsl_rng *rng;           /* dropout */
    unsigned long wgen;     /* counts changes of the weights */
    struct pred_fast *fast; /* infer.c's cache, built from them */
};

/* Sizes the activations for BSZ rows (grows only). Returns 0 or -1. */
int pred_acts_reserve(struct pred_model *m, int bsz);
/* Forward over BSZ standardized rows already in m->a.x; TRAIN turns
 * dropout on. Predictions (standardized units) in m->a.y. */
void pred_forward(struct pred_model *m, int bsz, int train);
/* Backward from dloss/dy in m->da.y; adds into m->grads. */
void pred_backward(struct pred_model *m, int bsz);
/* One optimisation step on BSZ rows (x, y standardized): zero grads,
 * forward, MSE, backward (m->chunk rows at a time; needs activations for
 * min(BSZ, chunk) rows), clip, + l2 * w, Adam. Returns the loss before. */
double pred_train_step(struct pred_model *m, const pfloat *x, const pfloat *y,
                       int bsz, double lr, const struct pred_train_opts *o);
/* Builds the model's layout and allocations (no initialisation). */
struct pred_model *pred_alloc(const struct pred_arch *arch,
                              const struct pred_schema *schema, char *err,
                              size_t errlen);
void pred_init_params(struct pred_model *m, unsigned long seed);
/* The learning rate of step S (0-based) of TOTAL, in epoch E. */
double pred_lr_at(const struct pred_train_opts *o, int s, int total, int e);
/* Whoever writes m->params calls this (infer.c's fused products are then
 * rebuilt on the next prediction). */
void pred_params_changed(struct pred_model *m);
/* Inference forward (dropout off) over BSZ rows in m->a.x into m->a.y,
 * equal to pred_forward's to rounding; -1 (nothing done) when the model is
 * too wide for it to pay or out of memory (infer.c). */
int pred_fast_forward(struct pred_model *m, int bsz);
void pred_fast_free(struct pred_model *m);
/* arch.linear_skip: whether feature I enters the linear path (numeric, or
 * any feature of a row token, which are all standardized). */
int pred_skip_uses(const struct pred_model *m, int i);
/* Marks the weight matrices in m->decay (allocates it). 0 or -1. */
int pred_decay_mask(struct pred_model *m);

#endif
