/* est_quality.c -- how good the estimates policies acted on were, over the
 * jobs actually simulated: estimate_runtime_mape, estimate_runtime_r2 and
 * estimate_memory_mape of summary.json.
 *
 * Run time: a completed job's truth is its work at the one-node speed of
 * the GPU type it last ran on (what it would take alone there, without
 * restart overheads), compared with the estimate for that type. Memory:
 * the job's true need (the trace's gpu_mem_mb, or what the throughput
 * matrix implies: README, "Memory") against the estimate. Jobs lacking
 * either figure are left out, and the counts say how many were compared.
 * Also the lines these figures add to summary.json and to the table of
 * `hetsim run`. */
#include <math.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "estimators.h"

void cli_mape_r2(const double *truth, const double *est, size_t n,
                 double *mape, double *r2)
{
    *mape = *r2 = NAN;
    if (n == 0)
        return;
    double ape = 0, mean = 0;
    for (size_t i = 0; i < n; i++) {
        ape += fabs(est[i] - truth[i]) / truth[i];
        mean += truth[i];
    }
    mean /= (double)n;
    double ss_res = 0, ss_tot = 0;
    for (size_t i = 0; i < n; i++) {
        ss_res += (truth[i] - est[i]) * (truth[i] - est[i]);
        ss_tot += (truth[i] - mean) * (truth[i] - mean);
    }
    *mape = 100 * ape / (double)n;
    if (ss_tot > 0)
        *r2 = 1 - ss_res / ss_tot;
}

int cli_estimate_quality(const struct sim *s, struct cli_est_quality *q)
{
    size_t n = sim_njobs(s);
    double *buf = malloc(4 * (n ? n : 1) * sizeof *buf);
    if (!buf)
        return -1;
    double *rt = buf, *re = buf + n, *mt = buf + 2 * n, *me = buf + 3 * n;
    size_t nr = 0, nm = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct sim_job *j = sim_job(s, i);
        if (j->state == JOB_COMPLETED) {
            double unit = sim_class(s, j->job_class)->unit_s[j->gpu_type];
            double est = sim_est_runtime_s(s, i, j->gpu_type);
            if (unit > 0 && est > 0) {
                rt[nr] = j->work * unit;
                re[nr++] = est;
            }
        }
        double mem = j->gpu_mem_mb;
        double est_mem = sim_est_mem_mb(s, i);
        if (mem > 0 && est_mem > 0) {
            mt[nm] = mem;
            me[nm++] = est_mem;
        }
    }
    double r2_unused;
    cli_mape_r2(rt, re, nr, &q->runtime_mape, &q->runtime_r2);
    cli_mape_r2(mt, me, nm, &q->memory_mape, &r2_unused);
    q->runtime_jobs = nr;
    q->memory_jobs = nm;
    free(buf);
    return 0;
}

/* How good the estimates were, and how often the predictor was asked
 * (README, "Predictor in the loop"). */
void cli_add_estimate_quality(cJSON *o, const struct workload *w)
{
    struct cli_est_quality q = {NAN, NAN, NAN, 0, 0};
    /* a streaming run has no estimates (stream_run.c): nothing compared */
    if (!w->streamed && cli_estimate_quality(w->sim, &q) != 0)
        q.runtime_mape = q.runtime_r2 = q.memory_mape = NAN;
    cli_json_number(o, "estimate_runtime_mape", q.runtime_mape);
    cli_json_number(o, "estimate_runtime_r2", q.runtime_r2);
    cli_json_number(o, "estimate_runtime_jobs", (double)q.runtime_jobs);
    cli_json_number(o, "estimate_memory_mape", q.memory_mape);
    cli_json_number(o, "estimate_memory_jobs", (double)q.memory_jobs);
    const struct cli_estimator *e = w->est;
    cli_json_number(o, "predict_calls", e ? (double)e->calls : 0);
    cli_json_number(o, "predict_cache_hit_rate",
                    e && e->memo.cap && e->calls
                        ? (double)e->hits / (double)e->calls
                        : NAN);
}

/* The estimates' quality and the predictor's work, when there were any. */
void cli_print_estimates(const struct workload *w)
{
    struct cli_est_quality q;
    if (w->streamed || cli_estimate_quality(w->sim, &q) != 0)
        return;
    if (q.runtime_jobs > 0) {
        printf("  %-18s %12.1f %%  (MAPE over %zu jobs", "run-time estimates",
               q.runtime_mape, q.runtime_jobs);
        if (!isnan(q.runtime_r2))
            printf(", R2 %.3f", q.runtime_r2);
        printf(")\n");
    }
    if (q.memory_jobs > 0)
        printf("  %-18s %12.1f %%  (MAPE over %zu jobs)\n",
               "memory estimates", q.memory_mape, q.memory_jobs);
    const struct cli_estimator *e = w->est;
    if (e && e->calls > 0) {
        printf("  %-18s %12llu", "predictor calls",
               (unsigned long long)e->calls);
        if (e->memo.cap)
            printf("  (%.1f %% from the cache)",
                   100 * (double)e->hits / (double)e->calls);
        printf("\n");
    }
}
