/* memory.c -- GPU memory and what policies believe about a job: the true
 * memory need that makes a run fail, and the estimates of run time and
 * memory that policies read (README, "Memory").
 *
 * The engine (engine.c) starts a run that will not fit as a doomed one: it
 * ends with SIM_EV_OOM after oom_detect_s instead of finishing. Here are
 * the rules it asks, and the accessors. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

void sim_set_oom_detect_s(struct sim *s, double seconds)
{
    SIM_ASSERT(!s->ran && seconds >= 0 && seconds < INFINITY);
    s->oom_detect_s = seconds;
}

int sim_mem_overflows(const struct sim *s, uint32_t job, int32_t gpu_type)
{
    SIM_ASSERT(job < s->njobs && gpu_type >= 0 &&
               gpu_type < s->cluster->ntypes);
    double need = sim_job_at(s, job)->gpu_mem_mb;
    double cap = s->cluster->types[gpu_type].memory_mb;
    if (s->share && s->share->demand[job].gpu_milli < SHARE_MILLI)
        cap = cap * s->share->demand[job].gpu_milli / SHARE_MILLI;
    return need > 0 && need > cap;
}

double sim_est_mem_mb(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    return sim_job_at(s, job)->est_mem_mb;
}

double sim_est_runtime_s(const struct sim *s, uint32_t job, int gpu_type)
{
    SIM_ASSERT(job < s->njobs && gpu_type >= 0 &&
               gpu_type < s->cluster->ntypes);
    if (job < s->est_rows) {
        double v =
            s->est_runtime[job * (size_t)s->cluster->ntypes + (size_t)gpu_type];
        if (v > 0 && v < INFINITY)
            return v;
    }
    const struct sim_job *j = sim_job_at(s, job);
    const struct sim_class_spec *cl = &s->classes[j->job_class];
    double unit = cl->unit_s[gpu_type] > 0 ? cl->unit_s[gpu_type]
                                           : cl->spread_unit_s[gpu_type];
    if (!(j->est_work > 0) || !(unit > 0))
        return -1;
    return j->est_work * unit;
}

void sim_set_est_runtime(struct sim *s, uint32_t job, const double *per_type_s)
{
    SIM_ASSERT(job < s->njobs);
    size_t nt = (size_t)s->cluster->ntypes;
    if (job >= s->est_rows) {
        if (!per_type_s)
            return; /* nothing to clear */
        size_t rows = s->njobs;
        double *e = realloc(s->est_runtime, rows * nt * sizeof *e);
        if (!e) {
            s->oom = 1; /* sim_run stops with SIM_ENOMEM */
            return;
        }
        memset(e + s->est_rows * nt, 0, (rows - s->est_rows) * nt * sizeof *e);
        s->est_runtime = e;
        s->est_rows = rows;
    }
    double *row = s->est_runtime + job * nt;
    for (size_t t = 0; t < nt; t++)
        row[t] = per_type_s ? per_type_s[t] : 0;
}
