/* pack_internal.h -- shared by the files of `hetsim pack` (pack.c,
 * pack_out.c). */
#ifndef HETSIM_PACK_INTERNAL_H
#define HETSIM_PACK_INTERNAL_H

#include "cli.h"
#include "policy.h"

/* The pods and the cluster every placement starts from. */
struct pack_input {
    struct cluster *cluster;
    struct trace *trace;
    struct share_demand *pods; /* (npods) in arrival order */
    double *arrived;           /* (npods) GPUs asked by pods 0..i, over the
                                  cluster's GPUs */
    uint8_t *unfit;            /* (npods) 1: no node could host it even
                                  empty */
    size_t npods, nunfit;
    int64_t *host_cpu;        /* (nnodes) or NULL: CPU not modelled */
    double *host_mem;         /* (nnodes) or NULL */
    struct share_workload *w; /* the pods' own distribution */
};

/* What one placement did, pod after pod. */
struct pack_result {
    enum pol_share_rule rule;
    double *alloc; /* (npods) GPU allocated over the cluster's GPUs */
    double *frag;  /* (npods) fragmentation over the cluster's GPUs */
    size_t placed, failed;
    double first_fail; /* arrived share when the first pod that an empty
                          cluster could host failed; NAN if none did */
    double wall_s;
};

/* CPU (milli) and memory (MiB) of each node of the cluster C made from
 * SPEC = alibaba2023:NODES.csv[:TYPES.json], as new arrays; exit code. */
int cli_share_hosts(const char *spec, const struct cluster *c, int64_t **cpu,
                    double **mem);

/* The demand of job J of T (read from SRC) on C; CLI_OK, or CLI_BAD_INPUT
 * after a message. */
int cli_share_demand(const struct cluster *c, const struct trace *t,
                     const char *src, size_t j, struct share_demand *d);

/* Writes pack.csv, pack_summary.csv, summary.json and (PLOTS) the charts
 * into DIR; prints summary.json on stdout when JSON, else the summary table
 * unless QUIET. Returns an exit code. */
int pack_write(const char *dir, const struct pack_input *in,
               const struct pack_result *r, size_t nr, int plots, int quiet,
               int json);

/* The value of SERIES at the last pod whose arrived share is <= AT (NAN
 * when no pod is). */
double pack_at(const struct pack_input *in, const double *series, double at);

#endif
