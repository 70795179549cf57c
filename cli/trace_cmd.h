/* trace_cmd.h -- what the files of `hetsim trace` (trace_cmd.c,
 * trace_stats.c, trace_generate.c) share; dataset_cmd.c borrows its -o
 * OUT helpers (cli_trace_out_*). */
#ifndef HETSIM_TRACE_CMD_H
#define HETSIM_TRACE_CMD_H

#include <stdio.h>

#include "cli.h"

/* A trace as the trace commands read it, with what a cluster and a
 * throughput matrix say about its jobs. Fill the first block, call
 * cli_trace_input_load, then cli_trace_input_free. */
struct trace_input {
    const char *cmd;         /* "hetsim trace stats", for messages */
    const char *path;        /* the trace */
    const char *cluster_arg; /* --cluster, or NULL */
    const char *throughputs; /* --throughputs, or NULL */
    enum trace_format format;
    struct trace_options opt;

    struct trace *trace;
    struct cluster *cluster;          /* NULL without --cluster */
    struct trace_throughputs *matrix; /* --throughputs, or the cluster's */
    struct sim *sim;                  /* built when there is a cluster */
    struct workload w;
    /* (njobs) with a cluster: seconds alone on the reference GPU type (see
     * cli_trace_reference_s); without: the trace's durations. NAN when
     * not known. */
    double *ref_s;
    size_t no_runtime; /* jobs whose ref_s is NAN */
};

/* Reads the trace (and the cluster and matrix when named), and fills
 * ref_s. Jobs without a duration (Gavel) need a matrix and a cluster: when
 * NEED_DURATIONS is set and either is missing, a usage error. Returns an
 * exit code, having printed why when it is not CLI_OK. */
int cli_trace_input_load(struct trace_input *in, int need_durations);
void cli_trace_input_free(struct trace_input *in);

/* Seconds job J takes alone on the reference GPU type of S's cluster, on
 * one node (spread over nodes only if its class runs no other way). When
 * the job may not or cannot run there: its fastest allowed type's run time
 * times that type's speed / the reference speed. NAN when it can run on
 * no type. */
double cli_trace_reference_s(const struct sim *s, uint32_t j);

/* Reference-GPU equivalents of C: sum of gpus * speed / reference speed. */
double cli_trace_capacity(const struct cluster *c);

/* Writes T as a native CSV trace (README, "Trace format") to F; DURATION,
 * when not NULL, replaces the duration of each job whose own is missing.
 * Returns 0, or -1 when F reports an error. */
int cli_trace_write_native(FILE *f, const struct trace *t,
                           const double *duration);

/* Where `-o OUT` goes: stdout for "-", else an atomic file (cli_atomic).
 * Each returns an exit code, having printed why when not CLI_OK. */
struct trace_out {
    const char *path;
    FILE *f;
    struct cli_atomic a;
    int atomic;
};
int cli_trace_out_open(struct trace_out *o, const char *path);
int cli_trace_out_commit(struct trace_out *o);
void cli_trace_out_abort(struct trace_out *o);

/* The subcommands. */
int cli_trace_stats(int argc, char **argv);
int cli_trace_convert(int argc, char **argv);
int cli_trace_generate(int argc, char **argv);
/* `trace generate --like gavel` (trace_like_gavel.c): whether ARGV asks
 * for it, and the command. */
int cli_trace_like_wanted(int argc, char **argv);
int cli_trace_generate_like(int argc, char **argv);

#endif
