/* throughputs_lookup.c -- finding entries of Gavel's throughput tables
 * (loaded by throughputs.c), and the fallback for GPU counts that Gavel did
 * not measure.
 *
 * The fallback: about 10% of the jobs of Gavel's msr traces ask for a GPU
 * count (3, 16, 32, ...) with no entry. Their throughput is that of the
 * largest measured count m of the job type on that worker type, scaled
 * linearly: throughput(N) = throughput(m) * N / m. Linear scaling is the
 * best case of data parallelism, so such jobs come out a little fast; a 0.0
 * (does not fit in memory) stays 0.0. The largest m is used even when N is
 * smaller: N = 3 scales the value at 8 GPUs when 8 is the largest measured.
 * Spread over servers (the *_unconsolidated entries), see spread_value: a
 * one-GPU job is never spread, and a scaled spread value never exceeds the
 * consolidated one. trace_throughput returns 1 whenever the value is not a
 * measurement of the table asked for. */
#include "traces_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- table access ------------------------------------------------------ */

long trace_tp_find_type(const struct trace_throughputs *m, const char *s,
                        size_t len)
{
    uint32_t h = trace_hash(s, len);
    for (size_t i = 0; i < m->types.n; i++)
        if (m->types.hash[i] == h &&
            strcmp(trace_strpool_get(m->pool, m->types.str[i]), s) == 0)
            return (long)i;
    return -1;
}

/* Worker names compare without regard to ASCII case ("V100" = "v100"). */
long trace_tp_find_worker(const struct trace_throughputs *m, const char *s,
                          size_t len)
{
    for (size_t i = 0; i < m->workers.n; i++) {
        const char *w = trace_strpool_get(m->pool, m->workers.str[i]);
        if (strlen(w) == len && strncasecmp(w, s, len) == 0)
            return (long)i;
    }
    return -1;
}

long trace_tp_find_sf(const struct trace_throughputs *m, int32_t sf)
{
    size_t lo = 0, hi = m->nsf;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->sfs[mid] < sf)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nsf && m->sfs[lo] == sf ? (long)lo : -1;
}

double *trace_tp_alone_row(const struct trace_throughputs *m, size_t w,
                           int spread, size_t type)
{
    return m->alone + ((w * 2 + (size_t)spread) * m->types.n + type) * m->nsf;
}

uint64_t trace_tp_pair_key(const struct trace_throughputs *m, size_t w,
                           int spread, size_t a, size_t b)
{
    uint64_t cells = (uint64_t)m->types.n * m->nsf;
    return ((uint64_t)(w * 2 + (size_t)spread) * cells + a) * cells + b;
}

int trace_tp_compare_pairs(const void *x, const void *y)
{
    uint64_t a = ((const struct trace_tp_pair *)x)->key;
    uint64_t b = ((const struct trace_tp_pair *)y)->key;
    return (a > b) - (a < b);
}

static const struct trace_tp_pair *find_pair(const struct trace_throughputs *m,
                                             uint64_t key)
{
    struct trace_tp_pair probe = {key, 0, 0};
    if (!m->npairs)
        return NULL;
    return bsearch(&probe, m->pairs, m->npairs, sizeof probe,
                   trace_tp_compare_pairs);
}

/* ---- queries ----------------------------------------------------------- */

const char *trace_throughputs_worker(const struct trace_throughputs *m,
                                     size_t i)
{
    return m && i < m->workers.n ? trace_strpool_get(m->pool, m->workers.str[i])
                                 : NULL;
}

const char *trace_throughputs_job_type(const struct trace_throughputs *m,
                                       size_t i)
{
    return m && i < m->types.n ? trace_strpool_get(m->pool, m->types.str[i])
                               : NULL;
}

int32_t trace_throughputs_gpu_count(const struct trace_throughputs *m,
                                    size_t i)
{
    return m && i < m->nsf ? m->sfs[i] : 0;
}

/* The measured value at n GPUs, if any. */
static int measured(const struct trace_throughputs *m, size_t w, int spread,
                    size_t type, int32_t n, double *out)
{
    long s = trace_tp_find_sf(m, n);
    double v = s < 0 ? NAN : trace_tp_alone_row(m, w, spread, type)[s];
    if (isnan(v))
        return 0;
    *out = v;
    return 1;
}

/* The value at the largest measured count m, scaled to n GPUs. */
static int scaled(const struct trace_throughputs *m, size_t w, int spread,
                  size_t type, int32_t n, double *out)
{
    const double *row = trace_tp_alone_row(m, w, spread, type);
    for (size_t s = m->nsf; s-- > 0;) {
        if (!isnan(row[s])) {
            *out = row[s] * n / m->sfs[s];
            return 1;
        }
    }
    return 0;
}

/* Spread over servers: measured if the _unconsolidated table has n; else a
 * job on one GPU is never spread (the consolidated value), and otherwise
 * the scaled _unconsolidated value, but never more than the consolidated
 * one: spreading only adds communication, and a 0.0 (the job does not fit
 * in memory) does not depend on where its GPUs are. */
static int spread_value(const struct trace_throughputs *m, size_t w,
                        size_t type, int32_t n, int rc, double c, double *out)
{
    double u;
    if (measured(m, w, 1, type, n, out))
        return 0;
    if (n == 1 || !scaled(m, w, 1, type, n, &u)) {
        if (rc >= 0)
            *out = c;
        return rc < 0 ? -1 : 1;
    }
    *out = rc < 0 || u < c ? u : c;
    return 1;
}

int trace_throughput(const struct trace_throughputs *m, const char *worker,
                     const char *job_type, int32_t n, int spread, double *out)
{
    long w = m && worker ? trace_tp_find_worker(m, worker, strlen(worker)) : -1;
    long t =
        m && job_type ? trace_tp_find_type(m, job_type, strlen(job_type)) : -1;
    double c = NAN;
    int rc;
    if (w < 0 || t < 0 || n < 1)
        return -1;
    if (measured(m, (size_t)w, 0, (size_t)t, n, &c))
        rc = 0;
    else
        rc = scaled(m, (size_t)w, 0, (size_t)t, n, &c) ? 1 : -1;
    if (spread)
        return spread_value(m, (size_t)w, (size_t)t, n, rc, c, out);
    if (rc >= 0)
        *out = c;
    return rc;
}

int trace_pair_throughput(const struct trace_throughputs *m, const char *worker,
                          const char *a, int32_t na, const char *b, int32_t nb,
                          double *a_out, double *b_out)
{
    long w = m && worker ? trace_tp_find_worker(m, worker, strlen(worker)) : -1;
    long ta = m && a ? trace_tp_find_type(m, a, strlen(a)) : -1;
    long tb = m && b ? trace_tp_find_type(m, b, strlen(b)) : -1;
    long sa = m ? trace_tp_find_sf(m, na) : -1,
         sb = m ? trace_tp_find_sf(m, nb) : -1;
    const struct trace_tp_pair *p, *q = NULL;
    size_t ca, cb;
    if (w < 0 || ta < 0 || tb < 0 || sa < 0 || sb < 0)
        return -1;
    ca = (size_t)ta * m->nsf + (size_t)sa;
    cb = (size_t)tb * m->nsf + (size_t)sb;
    /* The file holds both orders; either one will do. */
    if (!(p = find_pair(m, trace_tp_pair_key(m, (size_t)w, 0, ca, cb))) &&
        !(q = find_pair(m, trace_tp_pair_key(m, (size_t)w, 0, cb, ca))))
        return -1;
    if (a_out)
        *a_out = p ? p->a : q->b;
    if (b_out)
        *b_out = p ? p->b : q->a;
    return 0;
}
