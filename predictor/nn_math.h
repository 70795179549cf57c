/* nn_math.h -- exp for the float build in a form the compiler vectorizes
 * (a loop calling glibc's expf makes one call per element): internal to
 * the predictor, included by nn_internal.h. */
#ifndef HETSIM_NN_MATH_H
#define HETSIM_NN_MATH_H

#include <stdint.h>
#include <string.h>

/* e^x = 2^k e^r with k = round(x / ln 2) and |r| <= ln(2)/2; e^r from its
 * Taylor polynomial of degree 7 (truncation below 6e-9 relative), r from x
 * with ln 2 split in a high part exact in float and a low part (Cody and
 * Waite), 2^k written into the exponent bits. Relative error about 1e-7
 * (tests/predictor/nn_math.c: under 3e-7 against exp in double). Below
 * -87 it returns e^-87 (about 1.6e-38, not a subnormal) and above 88 it
 * returns e^88; NaN stays NaN. */
static inline float pred_expf_poly(float x)
{
    float xc = x > -87.0f ? x : -87.0f;
    xc = xc < 88.0f ? xc : 88.0f;
    /* Adding and taking away 1.5 * 2^23 rounds to an integer. */
    float kf = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = (xc - kf * 0.693359375f) + kf * 2.12194440e-4f;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits = ((int32_t)kf + 127) * (1 << 23);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return x == x ? p * scale : x;
}

#endif
