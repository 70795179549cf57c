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
    double *jct = malloc((s->njobs ? s->njobs : 1) * sizeof *jct);
    if (!jct)
        return SIM_ENOMEM;
    double busy_by_type[SIM_MAX_GPU_TYPES] = {0};
    double last_by_type[SIM_MAX_GPU_TYPES];
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++) {
        busy_by_type[t] = s->wasted_by_type[t]; /* runs out of memory */
        last_by_type[t] = -INFINITY;
    }
    double sum_jct = 0, sum_wait = 0, sum_slow = 0;
    double first = INFINITY, last = -INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < s->njobs; i++) {
        const struct sim_job *j = &s->jobs[i];
        if (j->submit_time < first)
            first = j->submit_time;
        if (j->gpu_type >= 0) /* wasted runs counted on their own types */
            busy_by_type[j->gpu_type] += (j->run_s - j->wasted_s) *
                                         j->num_gpus;
        if (j->state == JOB_FAILED) {
            if (j->failure == JOB_FAIL_UNSCHEDULABLE)
                out->jobs_unschedulable++;
            else
                out->jobs_failed++;
            continue;
        }
        if (j->state != JOB_COMPLETED)
            continue;
        double t = j->finish_time - j->submit_time;
        double alone = sim_runtime_on(s, (uint32_t)i, j->gpu_type, 0);
        if (alone <= 0) /* a class that only runs spread */
            alone = sim_runtime_on(s, (uint32_t)i, j->gpu_type, 1);
        jct[n++] = t;
        sum_jct += t;
        sum_wait += t - j->run_s;
        sum_slow += fmax(1.0, t / fmax(alone, SLOWDOWN_MIN_RUNTIME_S));
        if (j->finish_time > last)
            last = j->finish_time;
        if (j->finish_time > last_by_type[j->gpu_type])
            last_by_type[j->gpu_type] = j->finish_time;
    }
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        out->per_type_completion_s[t] = last_by_type[t] > -INFINITY
                                            ? last_by_type[t] - first
                                            : NAN;
    out->jobs_completed = n;
    if (n > 0) {
        sort_doubles(jct, n);
        out->first_submit = first;
        out->last_finish = last;
        out->makespan_s = last - first;
        out->avg_jct_s = sum_jct / (double)n;
        out->median_jct_s = gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.5);
        out->p95_jct_s = gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.95);
        out->p99_jct_s = gsl_stats_quantile_from_sorted_data(jct, 1, n, 0.99);
        out->avg_wait_s = sum_wait / (double)n;
        out->avg_slowdown = sum_slow / (double)n;
    }
    free(jct);
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
