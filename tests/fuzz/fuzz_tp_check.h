/* fuzz_tp_check.h -- the invariants of Gavel's throughput matrix
 * (trace_throughputs_load and its lookups, traces.h), checked by the
 * `throughputs` fuzz target of fuzz_targets.h.
 *
 * On failure the loader keeps the contract of fuzz_check_failure. A matrix
 * it loads names its workers (non-empty, without "_unconsolidated"); every
 * lookup, of the job types the input names and of a few fixed ones, returns
 * a documented code, and a value it returns is >= 0 and finite, also when
 * scaled to INT32_MAX GPUs. */
#ifndef HETSIM_FUZZ_TP_CHECK_H
#define HETSIM_FUZZ_TP_CHECK_H

#include "fuzz_trace_check.h"

static inline struct trace_throughputs *fuzz_throughputs_sentinel(void)
{
    static char sentinel;
    return (struct trace_throughputs *)(void *)&sentinel;
}

/* Up to MAX job-type names written as ('NAME' in the input, to look up. */
static inline size_t fuzz_tp_names(const uint8_t *data, size_t size,
                                   char names[][64], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i + 2 < size && n < max; i++) {
        if (data[i] != '(' || data[i + 1] != '\'')
            continue;
        size_t len = 0;
        while (i + 2 + len < size && data[i + 2 + len] != '\'' && len < 63)
            len++;
        memcpy(names[n], data + i + 2, len);
        names[n++][len] = '\0';
    }
    return n;
}

/* Looks up a loaded matrix: workers named, values finite and >= 0. */
static inline int fuzz_check_throughputs(const struct trace_throughputs *m,
                                         const uint8_t *data, size_t size,
                                         char *why)
{
    static const int32_t counts[] = {1, 2, 3, 8, INT32_MAX};
    char names[8][64] = {"ResNet-18 (batch size 16)",
                         "Transformer (batch size 128)", "", "k80"};
    const char *workers[5] = {"nope", NULL, NULL, NULL, NULL};
    size_t nnames = 4 + fuzz_tp_names(data, size, names + 4, 4), nw = 1;
    for (size_t i = 0; i < 4096; i++) {
        const char *w = trace_throughputs_worker(m, i);
        if (!w)
            break;
        size_t len = strlen(w);
        if (len == 0 ||
            (len >= 15 && strcmp(w + len - 15, "_unconsolidated") == 0))
            return fuzz_fail(why, "worker %zu is \"%.64s\"", i, w);
        if (nw < 5)
            workers[nw++] = w;
    }
    for (size_t w = 0; w < nw; w++)
        for (size_t a = 0; a < nnames; a++) {
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int spread = 0; spread < 2; spread++) {
                    double v = -1;
                    int rc = trace_throughput(m, workers[w], names[a],
                                              counts[c], spread, &v);
                    if (rc < -1 || rc > 1 || (rc >= 0 && !(v >= 0)) ||
                        (rc >= 0 && !isfinite(v)))
                        return fuzz_fail(why,
                                         "throughput(%s, %s, %d, %d) "
                                         "= %d, %g",
                                         workers[w], names[a], (int)counts[c],
                                         spread, rc, v);
                }
            for (size_t b = 0; b < nnames; b++) {
                double va = -1, vb = -1;
                int32_t na = (int32_t)(1 + (a + b) % 2);
                int rc = trace_pair_throughput(m, workers[w], names[a], na,
                                               names[b], 1, &va, &vb);
                if (rc < -1 || rc > 0 ||
                    (rc == 0 &&
                     !(isfinite(va) && va >= 0 && isfinite(vb) && vb >= 0)))
                    return fuzz_fail(why, "pair(%s, %s, %s) = %d, %g, %g",
                                     workers[w], names[a], names[b], rc, va,
                                     vb);
            }
        }
    return 0;
}

#endif
