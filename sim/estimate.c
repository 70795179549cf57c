/* estimate.c -- a predictor in the loop: the engine asks the estimator
 * about every job when it arrives and stores what it says where policies
 * read estimates (memory.c: sim_est_runtime_s, sim_est_mem_mb), and keeps
 * est_work, the figure the older policies read, consistent with it. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

void sim_set_estimator(struct sim *s, const struct sim_estimator *e)
{
    SIM_ASSERT(!s->ran);
    s->estimator = e;
}

void sim_estimates_free(struct sim *s)
{
    free(s->est_util);
    s->est_util = NULL;
    s->est_util_n = 0;
}

int sim_set_est_mem(struct sim *s, uint32_t job, double mem_mb)
{
    if (job >= s->njobs || !(mem_mb >= 0) || !(mem_mb < INFINITY))
        return SIM_EINVAL;
    sim_job_at(s, job)->est_mem_mb = mem_mb;
    return 0;
}

/* Seconds per unit of JOB's work on the fastest type it may use, as
 * pol_est_remaining_s reads it (one node first, else spread), that type in
 * *type; 0 when it runs nowhere. */
static double fastest_unit(const struct sim *s, const struct sim_job *j,
                           int32_t *type)
{
    const struct sim_class_spec *cl = &s->classes[j->job_class];
    double best = INFINITY;
    for (int spread = 0; spread < 2 && best == INFINITY; spread++) {
        const double *u = spread ? cl->spread_unit_s : cl->unit_s;
        for (int32_t t = 0; t < s->cluster->ntypes; t++)
            if ((j->allowed & (1u << t)) && u[t] > 0 && u[t] < best) {
                best = u[t];
                *type = t;
            }
    }
    return best == INFINITY ? 0 : best;
}

/* The override of sim_set_est_runtime for JOB on type T, or 0. */
static double override_s(const struct sim *s, uint32_t job, int32_t t)
{
    if (job >= s->est_rows)
        return 0;
    double v = s->est_runtime[job * (size_t)s->cluster->ntypes + (size_t)t];
    return v > 0 && v < INFINITY ? v : 0;
}

void sim_est_work_from_runtime(struct sim *s, uint32_t job)
{
    struct sim_job *j = sim_job_at(s, job);
    int32_t best = -1;
    double unit = fastest_unit(s, j, &best);
    const struct sim_class_spec *cl = &s->classes[j->job_class];
    j->est_work = 0;
    if (unit > 0 && override_s(s, job, best) > 0) {
        j->est_work = override_s(s, job, best) / unit;
        return;
    }
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        if (override_s(s, job, t) > 0 && (j->allowed & (1u << t)) &&
            cl->unit_s[t] > 0) {
            j->est_work = override_s(s, job, t) / cl->unit_s[t];
            return;
        }
}

/* Keeps JOB's utilization estimates (created on the first known one). */
static int set_util(struct sim *s, uint32_t job, double gpu, double mem)
{
    if (gpu < 0 && mem < 0 && !s->est_util)
        return 0;
    if (s->est_util_n < s->njobs) {
        double *u = realloc(s->est_util, 2 * s->njobs * sizeof *u);
        if (!u)
            return SIM_ENOMEM;
        for (size_t i = 2 * s->est_util_n; i < 2 * s->njobs; i++)
            u[i] = -1;
        s->est_util = u;
        s->est_util_n = s->njobs;
    }
    s->est_util[2 * (size_t)job] = gpu;
    s->est_util[2 * (size_t)job + 1] = mem;
    return 0;
}

double sim_est_gpu_util(const struct sim *s, uint32_t job)
{
    return job < s->est_util_n ? s->est_util[2 * (size_t)job] : -1;
}

double sim_est_mem_util(const struct sim *s, uint32_t job)
{
    return job < s->est_util_n ? s->est_util[2 * (size_t)job + 1] : -1;
}

void sim_estimate_arrival(struct sim *s, uint32_t j)
{
    const struct sim_estimator *e = s->estimator;
    if (!e || !e->estimate || s->est_rc)
        return;
    struct sim_estimate est;
    memset(&est, 0, sizeof est);
    est.gpu_util = est.mem_util = -1;
    int rc = e->estimate(e->ctx, s, j, &est);
    int any = 0;
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        any |= est.runtime_s[t] > 0;
    if (!rc && any) { /* else est_work stays as the workload set it */
        sim_set_est_runtime(s, j, est.runtime_s);
        sim_est_work_from_runtime(s, j);
    }
    if (!rc) {
        if (est.mem_mb > 0)
            rc = sim_set_est_mem(s, j, est.mem_mb);
    }
    if (!rc)
        rc = set_util(s, j, est.gpu_util, est.mem_util);
    if (rc)
        s->est_rc = rc;
}

void sim_estimate_finish(struct sim *s, uint32_t j)
{
    const struct sim_estimator *e = s->estimator;
    if (e && e->on_finish)
        e->on_finish(e->ctx, s, j);
}
