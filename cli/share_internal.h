/* share_internal.h -- shared by the files of `hetsim share` (share_cmd.c,
 * share_io.c). */
#ifndef HETSIM_SHARE_INTERNAL_H
#define HETSIM_SHARE_INTERNAL_H

#include "pack_internal.h"

struct share_options {
    const char *trace, *cluster, *out, *throughputs;
    enum trace_format format;
    struct trace_options trace_opt;
    enum pol_share_rule rule;
    double interference; /* speed of an unmeasured pair, (0, 1] */
    double util_bound;   /* --util-pack; 0 = off */
    uint64_t seed;
    int quiet, plots;
};

struct share_step {
    double time;
    int64_t used_milli;
    double frag;
};

/* Everything one replay reads and what it records. */
struct share_ctx {
    struct cluster *cluster;
    struct trace *trace;
    struct trace_throughputs *matrix; /* NULL without --throughputs */
    int64_t *host_cpu;                /* (nnodes) or NULL */
    double *host_mem;
    struct share_job *jobs; /* (njobs) in trace order */
    size_t njobs, packed;   /* packed: jobs util-pack shares */
    struct share_workload *w;
    struct pol_sharer *sharer;
    double interference;
    struct share_step *steps; /* the timeline */
    size_t nsteps, steps_cap;
    int oom;
};

/* Reads the inputs and builds the jobs (share_io.c); exit code. */
int share_load(const struct share_options *o, struct share_ctx *x);
/* Writes summary.json, timeline.csv, jobs.csv into o->out and prints the
 * summary unless quiet; exit code. */
int share_write(const struct share_options *o, const struct share_ctx *x,
                const struct share_run_summary *m);
void share_ctx_free(struct share_ctx *x);

#endif
