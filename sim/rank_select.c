/* rank_select.c -- values of given ranks of an array of doubles, exactly,
 * in two sequential passes (docs/streaming.md: the quantiles of a
 * streaming run).
 *
 * Every double's bits map to an unsigned key in the same order (negative
 * numbers flipped whole, the others with the sign bit set; -0 as +0, which
 * compares equal to it). One pass counts the keys by their top 16 bits;
 * the counts say which bucket holds each wanted rank and its rank there.
 * A second pass copies those buckets' values out, and Hoare's selection
 * finds each rank in its bucket. JCTs spread over hundreds of buckets, so
 * the copies are small; when they would not be (most values in one
 * bucket), the caller selects in the whole array instead. NaNs are not
 * expected (they would sort last). */
#include <string.h>

#include "sim_internal.h"

#define BUCKET_BITS 16
#define NBUCKETS ((size_t)1 << BUCKET_BITS)

static uint64_t key_of(double v)
{
    uint64_t b;
    if (v == 0)
        v = 0; /* -0 as +0 */
    memcpy(&b, &v, sizeof b);
    return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

static size_t bucket_of(double v)
{
    return (size_t)(key_of(v) >> (64 - BUCKET_BITS));
}

double sim_select_rank(double *x, size_t from, size_t n, size_t k)
{
    size_t lo = from, hi = n - 1;
    while (hi > lo) {
        double a = x[lo], b = x[lo + (hi - lo) / 2], c = x[hi];
        double pivot = a < b ? (b < c   ? b
                                : a < c ? c
                                        : a)
                             : (a < c   ? a
                                : b < c ? c
                                        : b);
        size_t i = lo, j = hi; /* Hoare: [lo, j] <= pivot <= [j + 1, hi] */
        for (;;) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i >= j)
                break;
            double t = x[i];
            x[i++] = x[j];
            x[j--] = t;
        }
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return x[k];
}

int sim_rank_values(const double *x, size_t n, const size_t *ranks, size_t m,
                    double *out)
{
    enum { MAX_RANKS = 8 };
    uint32_t *count = calloc(NBUCKETS, sizeof *count);
    size_t bucket[MAX_RANKS], within[MAX_RANKS], start[MAX_RANKS + 1];
    size_t nb = 0, slot[MAX_RANKS], total = 0;
    int rc = -1;
    if (!count || m > MAX_RANKS || n > UINT32_MAX)
        goto done;
    for (size_t r = 0; r < m; r++)
        if (ranks[r] >= n)
            goto done;
    for (size_t i = 0; i < n; i++)
        count[bucket_of(x[i])]++;
    for (size_t r = 0; r < m; r++) { /* the bucket of each rank */
        size_t below = 0, b = 0;
        while (below + count[b] <= ranks[r])
            below += count[b++];
        size_t k = 0;
        while (k < nb && bucket[k] != b)
            k++;
        if (k == nb)
            bucket[nb++] = b;
        slot[r] = k;
        within[r] = ranks[r] - below;
    }
    for (size_t k = 0; k < nb; k++) {
        start[k] = total;
        total += count[bucket[k]];
    }
    start[nb] = total;
    /* A copy of at most 1/16 of the JCTs (50 MB for 100M jobs, beside
     * their 800 MB), or the selection in place. */
    if (total > n / 16 + 4096)
        goto done;
    double *copy = malloc((total ? total : 1) * sizeof *copy);
    if (!copy)
        goto done;
    size_t fill[MAX_RANKS];
    memcpy(fill, start, nb * sizeof *fill);
    memset(count, 0, NBUCKETS * sizeof *count); /* now 1 + its slot, or 0 */
    for (size_t k = 0; k < nb; k++)
        count[bucket[k]] = (uint32_t)k + 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = count[bucket_of(x[i])];
        if (k)
            copy[fill[k - 1]++] = x[i];
    }
    for (size_t r = 0; r < m; r++)
        out[r] =
            sim_select_rank(copy + start[slot[r]], 0,
                            start[slot[r] + 1] - start[slot[r]], within[r]);
    free(copy);
    rc = 0;
done:
    free(count);
    return rc;
}
