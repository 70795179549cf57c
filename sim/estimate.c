/* estimate.c -- what policies believe about jobs: run time per GPU type,
 * memory need and utilization, set before the run or asked of an estimator
 * (a predictor in the loop) on every arrival.
 *
 * The arrays are sized lazily, to the jobs added so far, so that a run
 * without estimates pays nothing for them. est_work stays the figure the
 * older policies read; sim_set_est_runtime keeps it consistent with the
 * per-type estimates. */
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
    free(s->est_runtime);
    free(s->est_mem);
    free(s->est_util);
    s->est_runtime = s->est_mem = s->est_util = NULL;
    s->est_n = 0;
}

/* Grows *ARR (WIDTH doubles per job, FILL in new slots) from s->est_n
 * jobs to N. 0 or SIM_ENOMEM. */
static int grow(double **arr, size_t old, size_t n, size_t width, double fill)
{
    double *a = realloc(*arr, n * width * sizeof *a);
    if (!a)
        return SIM_ENOMEM;
    for (size_t i = old * width; i < n * width; i++)
        a[i] = fill;
    *arr = a;
    return 0;
}

/* Makes every array that exists cover all jobs added so far, and the one
 * at WHICH (0 run time, 1 memory, 2 utilization) exist. */
static int reserve(struct sim *s, int which)
{
    size_t n = s->njobs ? s->njobs : 1, nt = (size_t)s->cluster->ntypes;
    if (n > s->est_n) {
        if ((s->est_runtime &&
             grow(&s->est_runtime, s->est_n, n, nt, 0) != 0) ||
            (s->est_mem && grow(&s->est_mem, s->est_n, n, 1, 0) != 0) ||
            (s->est_util && grow(&s->est_util, s->est_n, n, 2, -1) != 0))
            return SIM_ENOMEM;
        s->est_n = n;
    }
    double **arr[] = {&s->est_runtime, &s->est_mem, &s->est_util};
    size_t width[] = {nt, 1, 2};
    double fill[] = {0, 0, -1};
    if (*arr[which])
        return 0;
    return grow(arr[which], 0, s->est_n, width[which], fill[which]);
}

/* Seconds per unit of JOB's work on the fastest type it may use, as
 * pol_est_remaining_s reads it (one node first, else spread), and that
 * type in *type; 0 when it runs nowhere. */
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

int sim_set_est_runtime(struct sim *s, uint32_t job, const double *per_type_s)
{
    int32_t nt = s->cluster->ntypes;
    if (job >= s->njobs)
        return SIM_EINVAL;
    for (int32_t t = 0; t < nt; t++)
        if (!(per_type_s[t] >= 0) || !(per_type_s[t] < INFINITY))
            return SIM_EINVAL;
    if (reserve(s, 0) != 0)
        return SIM_ENOMEM;
    memcpy(&s->est_runtime[(size_t)job * (size_t)nt], per_type_s,
           (size_t)nt * sizeof *per_type_s);
    struct sim_job *j = &s->jobs[job];
    int32_t best = -1;
    double unit = fastest_unit(s, j, &best);
    const struct sim_class_spec *cl = &s->classes[j->job_class];
    j->est_work = 0;
    if (unit > 0 && per_type_s[best] > 0) {
        j->est_work = per_type_s[best] / unit;
        return 0;
    }
    /* No estimate on the fastest type: the first type that has one. */
    for (int32_t t = 0; t < nt; t++)
        if (per_type_s[t] > 0 && (j->allowed & (1u << t)) &&
            cl->unit_s[t] > 0) {
            j->est_work = per_type_s[t] / cl->unit_s[t];
            break;
        }
    return 0;
}

int sim_set_est_mem(struct sim *s, uint32_t job, double mem_mb)
{
    if (job >= s->njobs || !(mem_mb >= 0) || !(mem_mb < INFINITY))
        return SIM_EINVAL;
    if (reserve(s, 1) != 0)
        return SIM_ENOMEM;
    s->est_mem[job] = mem_mb;
    return 0;
}

static int set_util(struct sim *s, uint32_t job, double gpu, double mem)
{
    if (gpu < 0 && mem < 0 && !s->est_util)
        return 0;
    if (reserve(s, 2) != 0)
        return SIM_ENOMEM;
    s->est_util[2 * (size_t)job] = gpu;
    s->est_util[2 * (size_t)job + 1] = mem;
    return 0;
}

double sim_est_runtime_s(const struct sim *s, uint32_t job, int32_t gpu_type)
{
    size_t nt = (size_t)s->cluster->ntypes;
    if (job < s->est_n && s->est_runtime) {
        double v = s->est_runtime[(size_t)job * nt + (size_t)gpu_type];
        if (v > 0)
            return v;
    }
    const struct sim_job *j = &s->jobs[job];
    return j->est_work * s->classes[j->job_class].unit_s[gpu_type];
}

double sim_est_mem_mb(const struct sim *s, uint32_t job)
{
    return job < s->est_n && s->est_mem ? s->est_mem[job] : 0;
}

double sim_est_gpu_util(const struct sim *s, uint32_t job)
{
    return job < s->est_n && s->est_util ? s->est_util[2 * (size_t)job] : -1;
}

double sim_est_mem_util(const struct sim *s, uint32_t job)
{
    return job < s->est_n && s->est_util ? s->est_util[2 * (size_t)job + 1]
                                         : -1;
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
    if (!rc)
        rc = sim_set_est_runtime(s, j, est.runtime_s);
    if (!rc && est.mem_mb > 0)
        rc = sim_set_est_mem(s, j, est.mem_mb);
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
