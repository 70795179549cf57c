/* waterfill.c -- the water level of max-min fair shares, in O(log C).
 *
 * With C units and demands d_i, f(v) = (sum of the demands <= v) + v *
 * (the number of demands above v) grows with v, and the level L solves
 * f(L) = C. Demands are kept in two Fenwick trees indexed by the demand
 * capped at C (a demand above C gets min(d, L) = L, as one of exactly C
 * would): the count and the sum of the demands up to an index. Descending
 * them finds the largest whole v with f(v) <= C; then L = v + (C - f(v)) /
 * (demands above v), which is below v + 1. */
#include <math.h>
#include <stdlib.h>

#include "waterfill_internal.h"

struct pol_waterfill {
    int32_t capacity;
    int32_t count;      /* demands in all */
    int64_t total;      /* their sum, not capped */
    int64_t *sum;       /* (capacity + 1) Fenwick tree of capped demands */
    int32_t *below;     /* (capacity + 1) Fenwick tree of their count */
};

struct pol_waterfill *pol_waterfill_create(int32_t capacity)
{
    size_t n = (size_t)capacity + 1;
    struct pol_waterfill *w =
        calloc(1, sizeof *w + n * (sizeof *w->sum + sizeof *w->below));
    if (!w)
        return NULL;
    w->capacity = capacity;
    w->sum = (int64_t *)(w + 1); /* in w's block, and so is below */
    w->below = (int32_t *)(w->sum + n);
    return w;
}

void pol_waterfill_destroy(struct pol_waterfill *w)
{
    free(w);
}

void pol_waterfill_add(struct pol_waterfill *w, int64_t d, int32_t n)
{
    int64_t capped = d < w->capacity ? d : w->capacity;
    w->count += n;
    w->total += n * d;
    for (int64_t i = capped; i <= w->capacity; i += i & -i) {
        w->sum[i] += n * capped;
        w->below[i] += n;
    }
}

double pol_waterfill_level(const struct pol_waterfill *w)
{
    if (w->total <= w->capacity)
        return INFINITY;
    int64_t v = 0, sum = 0, count = 0, step = 1;
    while (2 * step <= w->capacity)
        step *= 2;
    for (; step > 0; step /= 2) {
        int64_t at = v + step;
        if (at > w->capacity)
            continue;
        int64_t s = sum + w->sum[at], c = count + w->below[at];
        if (s + at * (w->count - c) <= w->capacity) {
            v = at;
            sum = s;
            count = c;
        }
    }
    int64_t above = w->count - count; /* 0: v = C, a demand capped at C */
    if (above == 0)
        return (double)v;
    return (double)v + (double)(w->capacity - sum - v * above) / (double)above;
}
