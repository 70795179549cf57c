/* metrics.c -- the figures of a finished run (definitions in README).
 *
 * Quantiles use GSL's gsl_stats_quantile_from_sorted_data, the same
 * interpolation a user would get from GSL or from R's type 7. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "sim_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the N doubles of X ascending, as qsort with cmp_double would: when
 * all are >= 0 (JCTs), by a least-significant-digit radix sort of their bit
 * patterns, which order like the numbers (4 passes of 16 bits, O(n), one
 * buffer of n doubles); otherwise, or without memory for the buffer, by
 * qsort. The sorted array is the same either way. */
static void sort_doubles(double *x, size_t n)
{
    uint64_t *a = NULL, *b = NULL;
    size_t *count = NULL;
    int ok = n >= 1024; /* below, qsort is as fast */
    for (size_t i = 0; ok && i < n; i++)
        ok = x[i] >= 0 && !signbit(x[i]);
    if (ok) {
        b = malloc(n * sizeof *b);
        count = malloc(65536 * sizeof *count);
    }
    if (!ok || !b || !count) {
        free(b);
        free(count);
        qsort(x, n, sizeof *x, cmp_double);
        return;
    }
    _Static_assert(sizeof(double) == sizeof(uint64_t), "64-bit doubles");
    a = (uint64_t *)(void *)x; /* x is malloc'd: its bits as keys, in place */
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &x[i], sizeof u);
        a[i] = u;
    }
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            b[count[(a[i] >> shift) & 0xffff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    /* 4 passes: the sorted keys are back in x's storage (a). */
    for (size_t i = 0; i < n; i++) {
        double d;
        memcpy(&d, &a[i], sizeof d);
        x[i] = d;
    }
    free(b);
    free(count);
}

/* Bounded slowdown (Feitelson, Rudolph, Schwiegelshohn, Sevcik and Wong,
 * "Theory and practice in parallel job scheduling", 1997): max(1, JCT /
 * max(run time alone, this)), so that very short jobs do not dominate the
 * mean and a job that ran faster than alone on its last type (it ran part
 * of its work on a faster one) does not count below 1. */
#define SLOWDOWN_MIN_RUNTIME_S 10.0

int sim_fold_init(struct sim_fold *f, const double *busy0, size_t cap)
{
    memset(f, 0, sizeof *f);
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++) {
        f->busy_by_type[t] = busy0 ? busy0[t] : 0; /* runs out of memory */
        f->last_by_type[t] = -INFINITY;
    }
    f->first = INFINITY;
    f->last = -INFINITY;
    f->cap = cap ? cap : 1;
    f->jct = sim_huge_realloc(NULL, 0, f->cap * sizeof *f->jct);
    return f->jct ? 0 : SIM_ENOMEM;
}

void sim_fold_free(struct sim_fold *f)
{
    sim_huge_free(f->jct, f->cap * sizeof *f->jct);
    f->jct = NULL;
}

/* Adds job I to the fold; jobs come in id order. */
void sim_fold_job(struct sim_fold *f, const struct sim *s, uint32_t i)
{
    const struct sim_job *j = sim_job_at(s, i);
    if (j->submit_time < f->first)
        f->first = j->submit_time;
    if (j->gpu_type >= 0) /* wasted runs counted on their own types */
        f->busy_by_type[j->gpu_type] += (j->run_s - j->wasted_s) * j->num_gpus;
    if (j->state == JOB_FAILED) {
        if (j->failure == JOB_FAIL_UNSCHEDULABLE)
            f->unschedulable++;
        else
            f->failed++;
        return;
    }
    if (j->state != JOB_COMPLETED)
        return;
    double t = j->finish_time - j->submit_time;
    double alone = sim_runtime_on(s, i, j->gpu_type, 0);
    if (alone <= 0) /* a class that only runs spread */
        alone = sim_runtime_on(s, i, j->gpu_type, 1);
    if (f->n == f->cap) { /* a streaming run: grow by half */
        size_t cap = f->cap + f->cap / 2 + 1024;
        double *jct =
            sim_huge_realloc(f->jct, f->cap * sizeof *jct, cap * sizeof *jct);
        if (!jct) {
            f->oom = 1;
            return;
        }
        f->jct = jct;
        f->cap = cap;
    }
    f->jct[f->n++] = t;
    f->sum_jct += t;
    f->sum_wait += t - j->run_s;
    /* fmax without the libm call: the same value for every input, NaN
     * included (a comparison with NaN is false: the other operand). */
    double floor_s =
        alone > SLOWDOWN_MIN_RUNTIME_S ? alone : SLOWDOWN_MIN_RUNTIME_S;
    double slow = t / floor_s;
    f->sum_slow += slow > 1.0 ? slow : 1.0;
    if (j->finish_time > f->last)
        f->last = j->finish_time;
    if (j->finish_time > f->last_by_type[j->gpu_type])
        f->last_by_type[j->gpu_type] = j->finish_time;
}

/* GSL's gsl_stats_quantile_from_sorted_data (R's type 7) at P of N
 * values: the rank it reads first, and the weight *DELTA of the next. */
static size_t type7_rank(double p, size_t n, double *delta)
{
    double index = p * (double)(n - 1);
    size_t lhs = (size_t)(int)index;
    *delta = index - (double)lhs;
    return lhs;
}

/* The quantile from the values A at rank LHS and B at LHS + 1. */
static double type7_blend(size_t lhs, size_t n, double delta, double a,
                          double b)
{
    return lhs == n - 1 ? a : (1 - delta) * a + delta * b;
}

/* That quantile from the two order statistics it reads, found by
 * selection in X[FROM..N), where the ranks of all of X lie when X[0..FROM)
 * holds its FROM least values (a lower quantile's selection leaves them
 * there): *FROM moves up to the rank read, for the next, higher quantile. */
static double quantile_by_selection(double *x, size_t n, double p, size_t *from)
{
    double delta;
    size_t lhs = type7_rank(p, n, &delta);
    double a = sim_select_rank(x, *from, n, lhs);
    *from = lhs;
    if (lhs == n - 1)
        return a;
    /* rank lhs + 1: the least of what selection left above rank lhs */
    double b = x[lhs + 1];
    for (size_t i = lhs + 2; i < n; i++)
        if (x[i] < b)
            b = x[i];
    return type7_blend(lhs, n, delta, a, b);
}

/* The three quantiles of summary.json as quantile_by_selection gives them,
 * from the two ranks each reads (sim_rank_values); 0, or -1 when the
 * caller should select in place. */
static int quantiles_by_rank(const double *x, size_t n, double q[3])
{
    static const double p[3] = {0.5, 0.95, 0.99};
    size_t ranks[6], m = 0, lhs[3];
    double delta[3], v[6];
    for (int i = 0; i < 3; i++) {
        lhs[i] = type7_rank(p[i], n, &delta[i]);
        ranks[m++] = lhs[i];
        ranks[m++] = lhs[i] + 1 < n ? lhs[i] + 1 : lhs[i];
    }
    if (sim_rank_values(x, n, ranks, m, v) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        q[i] = type7_blend(lhs[i], n, delta[i], v[2 * i], v[2 * i + 1]);
    return 0;
}

int sim_summarize(const struct sim *s, struct sim_summary *out)
{
    const struct cluster *c = s->cluster;
    memset(out, 0, sizeof *out);
    out->jobs_total = s->njobs;
    out->events = s->events;
    out->preemptions_total = s->preemptions;
    out->overhead_gpu_s = s->overhead_gpu_s;
    out->oom_events = s->oom_events;
    out->wasted_gpu_s = s->wasted_gpu_s;
    struct sim_fold whole, *f = sim_stream_fold(s);
    if (!f) {
        f = &whole;
        if (sim_fold_init(f, s->wasted_by_type, s->njobs) != 0)
            return SIM_ENOMEM;
        for (size_t i = 0; i < s->njobs; i++)
            sim_fold_job(f, s, (uint32_t)i);
    } else if (f->oom)
        return SIM_ENOMEM;
    double *busy_by_type = f->busy_by_type, *last_by_type = f->last_by_type;
    double first = f->first, last = f->last;
    double *jct = f->jct, q[3];
    size_t n = f->n;
    out->jobs_unschedulable = f->unschedulable;
    out->jobs_failed = f->failed;
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        out->per_type_completion_s[t] = last_by_type[t] > -INFINITY
                                            ? last_by_type[t] - first
                                            : NAN;
    out->jobs_completed = n;
    if (n > 0) {
        out->first_submit = first;
        out->last_finish = last;
        out->makespan_s = last - first;
        out->avg_jct_s = f->sum_jct / (double)n;
        if (f == &whole) {
            sort_doubles(jct, n);
            out->median_jct_s =
                gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.5);
            out->p95_jct_s =
                gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.95);
            out->p99_jct_s =
                gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.99);
        } else if (quantiles_by_rank(jct, n, q) == 0) { /* radix */
            out->median_jct_s = q[0];
            out->p95_jct_s = q[1];
            out->p99_jct_s = q[2];
        } else { /* no buffer of n more doubles: selection in place */
            size_t from = 0;
            out->median_jct_s = quantile_by_selection(jct, n, 0.5, &from);
            out->p95_jct_s = quantile_by_selection(jct, n, 0.95, &from);
            out->p99_jct_s = quantile_by_selection(jct, n, 0.99, &from);
        }
        out->avg_wait_s = f->sum_wait / (double)n;
        out->avg_slowdown = f->sum_slow / (double)n;
    }
    if (f == &whole)
        sim_fold_free(f);
    for (int32_t t = 0; t < c->ntypes; t++) {
        out->busy_gpu_s += busy_by_type[t];
        if (out->makespan_s > 0)
            out->utilization_by_type[t] =
                busy_by_type[t] / (c->types[t].gpus * out->makespan_s);
    }
    if (out->makespan_s > 0)
        out->gpu_utilization = out->busy_gpu_s /
                               (c->total_gpus * out->makespan_s);
    if (out->makespan_s > 0)
        out->frag_rate_mean =
            sim_frag_area(s) / (c->total_gpus * out->makespan_s);
    if (s->share)
        sim_share_summarize(s, out);
    return 0;
}
