/* usability.c -- before a run: GPU types of the cluster that no job of the
 * trace can use, and jobs that no GPU type can run (README's "no silent
 * misread": both change results without an error). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Whether job I of S can run on type G of C: the engine's own test
 * (sim_job_fits_somewhere): allowed there (by the trace and by its class
 * having a run time there) and the type has GPUs enough. */
static int runs_on(const struct sim *s, const struct cluster *c, uint32_t i,
                   int32_t g)
{
    const struct sim_job *j = sim_job(s, i);
    return (j->allowed & (1u << g)) && j->num_gpus <= c->types[g].gpus;
}

const char *cli_job_reason(const struct sim *s, const struct cluster *c,
                           uint32_t i, char *buf, size_t cap)
{
    const struct sim_job *j = sim_job(s, i);
    if (j->state != JOB_FAILED)
        return "";
    if (j->failure != JOB_FAIL_UNSCHEDULABLE)
        return "failed";
    if (j->ooms > 0)
        snprintf(buf, cap,
                 "out of GPU memory on every GPU type it may use "
                 "(%d runs)",
                 j->ooms);
    else if (!j->allowed)
        snprintf(buf, cap,
                 "no GPU type it may use (gpu_type column) has a "
                 "run time for its job type");
    else {
        int32_t most = 0;
        for (int32_t g = 0; g < c->ntypes; g++)
            if (j->allowed & (1u << g) && c->types[g].gpus > most)
                most = c->types[g].gpus;
        snprintf(buf, cap,
                 "needs %d GPUs; the GPU types it may use have at "
                 "most %d",
                 j->num_gpus, most);
    }
    return buf;
}

uint32_t cli_job_usable_types(const struct sim *s, const struct cluster *c,
                              uint32_t i)
{
    uint32_t here = 0;
    for (int32_t g = 0; g < c->ntypes; g++)
        if (runs_on(s, c, i, g))
            here |= 1u << g;
    return here;
}

void cli_warn_usability(const struct cluster *c, uint32_t used,
                        const char *trace, struct cli_usability *u)
{
    char names[256] = "";
    u->gpus_unusable = 0;
    for (int32_t g = 0; g < c->ntypes; g++) {
        if (used & (1u << g) || c->types[g].gpus == 0)
            continue;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                 c->types[g].name);
        u->gpus_unusable += (size_t)c->types[g].gpus;
    }
    if (u->gpus_unusable)
        cli_warn("%zu of %d GPUs of cluster %s (%s) can run no job of %s "
                 "(the jobs' gpu_type or GPU counts rule them out, or their "
                 "job types have no run time there: a throughput matrix "
                 "without them?)",
                 u->gpus_unusable, c->total_gpus, c->name, names, trace);
    if (u->jobs_nowhere)
        cli_warn("%zu of %zu jobs of %s can run on no GPU type of cluster "
                 "%s; they will be unschedulable (jobs.csv, column reason)",
                 u->jobs_nowhere, u->jobs, trace, c->name);
}

void cli_report_usability(const struct sim *s, const struct cluster *c,
                          const char *trace, struct cli_usability *u)
{
    uint32_t used = 0;
    memset(u, 0, sizeof *u);
    u->jobs = sim_njobs(s);
    for (uint32_t i = 0; i < u->jobs; i++) {
        uint32_t here = cli_job_usable_types(s, c, i);
        used |= here;
        u->jobs_nowhere += here == 0;
    }
    cli_warn_usability(c, used, trace, u);
}
