/* experiment.h -- the experiment layer: what turns a trace and a cluster
 * into runs and their results (docs/architecture.md). The command line
 * (cli/) parses arguments, prints, and calls these.
 *
 * The declarations moved from cli/ with their code (exp_run.h: workload,
 * estimators, GPU sharing, results, charts, report, sweep and compare
 * runners) keep their cli_ names for now; new functions take exp_.
 *
 * Published experiments, reproduced (below): the workloads they generate
 * (Gavel's job generator), the runs they need, and the table, chart and
 * report that set hetsim's figures beside the published ones. The library
 * plans the runs; the caller executes them (cli/ does, in parallel) and
 * hands the folders back to exp_collect(). */
#ifndef HETSIM_EXPERIMENT_H
#define HETSIM_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces.h"

/* ---- Gavel's job generator (gavel_gen.c) -------------------------------- */

/* Gavel's `Scheduler.simulate()` without a trace (scheduler.py at
 * c4fa400): job i from utils.generate_job with random.Random(seed + 2),
 * the gaps from random.Random(seed + 3), the first arrival at 0. */
struct exp_gavel_gen {
    double rate_per_h; /* jobs per hour; 0: every job arrives at 0 (static) */
    uint64_t seed;     /* Gavel's --seed */
    size_t njobs;      /* jobs to write (>= 1) */
    int multi_gpu;     /* Gavel's --generate-multi-gpu-jobs */
};

/* One generated job. */
struct exp_gavel_job {
    int32_t template_index; /* into Gavel's JobTable (26 templates) */
    int32_t scale_factor;   /* GPUs: 1, or 1/2/4/8 with multi_gpu */
    int64_t total_steps;    /* int(run_time x steps/s on v100) */
    double run_time_s;      /* the drawn duration on one v100 */
    double arrival_s;
};

/* Draws G->njobs jobs into OUT (caller-allocated, G->njobs entries) with
 * the steps/s of matrix M on v100. 0; or -1 when M has no measured
 * (job type, scale factor) entry on v100 that a job needs (Gavel would
 * stop on an assertion), with ERR (ERRLEN bytes) naming it. */
int exp_gavel_generate(const struct trace_throughputs *m,
                       const struct exp_gavel_gen *g, struct exp_gavel_job *out,
                       char *err, size_t errlen);

/* Writes JOBS as Gavel's 7-field .trace lines (job_type, command,
 * num_steps_arg, needs_data_dir, total_steps, arrival "%f", scale_factor)
 * to F. 0, or -1 on a write error (errno set). */
int exp_gavel_write(FILE *f, const struct exp_gavel_job *jobs, size_t n);

/* Gavel's JobTable: template I's job type ("LM (batch size 20)"), NULL
 * past the last. */
const char *exp_gavel_job_type(size_t i);

/* ---- The experiments (registry.c) --------------------------------------- */

struct exp_info {
    const char *name;    /* "gavel-continuous" */
    const char *source;  /* the paper */
    const char *figure;  /* "Fig. 8" */
    const char *measure; /* what is measured, against what */
    const char *metric;  /* the figure's unit, for the table */
};

/* Experiment I from 0, NULL past the last. */
const struct exp_info *exp_info_at(size_t i);
/* The experiment named NAME, or NULL. */
const struct exp_info *exp_find(const char *name);
/* The registered name nearest to NAME (at most 3 edits, or a prefix),
 * NULL when none is near. */
const char *exp_suggest(const char *name);

/* ---- A reproduction: configure, plan, collect, write (plan.c, ...) ------ */

#define EXP_MAX_LIST 32
#define EXP_MAX_ARGS 40

struct exp_config {
    const struct exp_info *info;
    const char *work;        /* existing folder for traces and runs */
    const char *throughputs; /* Gavel's simulation_throughputs.json */
    const char *fixture;     /* folder with Gavel's fixture traces and
                                summary.csv, or NULL for generated traces */
    const char *trace;       /* fgd: pods (Alibaba 2023 pod list) */
    const char *nodes;       /* fgd: node list */
    const char *policies[EXP_MAX_LIST];
    size_t npolicies;
    double xs[EXP_MAX_LIST]; /* rates (jobs/h), job counts, or arrived */
    size_t nxs;
    uint64_t seeds[EXP_MAX_LIST];
    size_t nseeds;
    size_t njobs; /* jobs per generated trace (continuous) */
    int quick;    /* the defaults of a few minutes' run */
};

/* Fills CFG's lists that are empty with the experiment's defaults (quick
 * or full). */
void exp_config_defaults(struct exp_config *cfg);

/* One run of the plan: a hetsim command line and where it writes. */
struct exp_cell {
    size_t policy, x, seed;   /* indexes into the config's lists */
    char out[4096];           /* the run's folder */
    char *argv[EXP_MAX_ARGS]; /* NULL-terminated; argv[0] = "hetsim" */
    double value;             /* the figure, NAN until collected */
    size_t dropped;           /* window jobs that did not complete */
    double wall_s;            /* the run's wall time (set by the caller) */
    int skip_run;             /* another cell's run writes OUT: do not run */
};

struct exp_plan {
    struct exp_config cfg;
    struct exp_cell *cells; /* (ncells), each argv string malloc'd */
    size_t ncells;
};

/* Writes the workloads (generated traces) into cfg->work and makes the
 * runs. 0; or -1 with ERR filled (a file that cannot be read or written,
 * a matrix without a needed entry, a fixture that lacks a rate). */
int exp_plan_create(const struct exp_config *cfg, struct exp_plan **out,
                    char *err, size_t errlen);
void exp_plan_destroy(struct exp_plan *p);

/* Reads the figure of each run from its folder. 0; or -1 with ERR naming
 * the first run whose results are missing or malformed. */
int exp_collect(struct exp_plan *p, char *err, size_t errlen);

/* One row of the table: a policy at one x, over the seeds. */
struct exp_row {
    const char *policy;
    double x;
    double mean, sd; /* over the seeds (sd 0 with one seed) */
    size_t n;        /* seeds */
    double gavel;    /* Gavel's own simulator (fixture), NAN if none */
    double gavel_wall_s;
    double published; /* the paper's value, NAN if none */
    double wall_s;    /* mean wall time of hetsim's runs */
};

/* The rows of the collected plan P, policy by policy, x ascending; *OUT
 * is malloc'd (free it). Returns the number of rows, or -1 out of
 * memory. */
long exp_rows(const struct exp_plan *p, struct exp_row **out);

/* Relative difference (a - b) / b in percent; NAN when either is. */
double exp_rel_diff(double a, double b);

/* Prints the table of ROWS to F (aligned text). */
void exp_print_table(FILE *f, const struct exp_plan *p,
                     const struct exp_row *rows, size_t n);

/* Writes DIR/table.csv, DIR/runs.csv, the chart DIR/figure (.gp, .png,
 * .svg) and DIR/report.html (COMMAND: the command line shown in it).
 * 0; -1 with ERR filled when a file cannot be written; a chart that
 * gnuplot cannot draw only sets *CHART_RC (a PLOT_E* code). */
int exp_write(const char *dir, const struct exp_plan *p,
              const struct exp_row *rows, size_t n, const char *command,
              int *chart_rc, char *err, size_t errlen);

/* Removes DIR and everything under it (no error when it is missing); 0
 * or -1 with errno set. */
int exp_remove_tree(const char *dir);
/* Puts the finished folder TMP in the place of DIR: the old DIR, if any,
 * is renamed aside, TMP renamed to DIR, then the old one removed; on a
 * failure the old DIR is put back. 0 or -1 with errno set. */
int exp_dir_swap(const char *tmp, const char *dir);

/* ==== Results on disk (resultset.c, safefile.c, fsio.c) ==================
 * docs/guarantees.md says what these promise. Every function that can fail
 * returns 0 or -1, having written "PATH: reason" into ERR (ERRLEN bytes). */

#define EXP_PATH_MAX 4096

/* Installs the SIGINT, SIGTERM and SIGHUP handler that removes this
 * process's temporary files and folders before it dies; call once, early. */
void exp_safety_init(void);

/* One output file, written whole or not at all. A regular (or missing)
 * PATH is written as .NAME.tmp.PID beside it, fsync'ed, renamed over PATH
 * and the folder fsync'ed. A symbolic link is followed to its target;
 * "-" (standard output), a device, FIFO or socket are streamed to instead,
 * never replaced. */
struct exp_file {
    FILE *f; /* write here */
    char path[EXP_PATH_MAX];
    char tmp[EXP_PATH_MAX]; /* "" when streaming */
    int fd;
    void *cookie; /* the write errors of F */
    int slot;     /* in the signal handler's list, or -1 */
    int stream;
};
int exp_file_open(struct exp_file *x, const char *path, char *err,
                  size_t errlen);
/* Flushes, fsyncs, closes and renames into place; on failure removes the
 * temporary and leaves PATH as it was. In the folder of a result set, the
 * fsyncs are left to the set's commit, which does them for every file. */
int exp_file_commit(struct exp_file *x, char *err, size_t errlen);
/* Closes and removes the temporary; PATH stays as it was. */
void exp_file_abort(struct exp_file *x);
/* Flushes X, so that its bytes so far can be read back from X->tmp; 0, or
 * -1 when a write to it has failed (then some of them are not there). */
int exp_file_flush(struct exp_file *x);
/* Flushes X and has its bytes written to disk now, through a descriptor of
 * its own, so that the commit's fsync finds little left to write (another
 * thread may do it while the caller writes other files). Errors are left
 * to the commit: its descriptor's fsync still reports a failed write. */
void exp_file_presync(struct exp_file *x);
/* X is written by a thread that may wait (not the run's): every 16 MB
 * it writes, its bytes are written to disk (fdatasync, through a
 * descriptor of its own, as exp_file_presync), so that the commit's fsync
 * finds little left, where the disk's own cache would keep early writeback
 * (the kernel's, started every 4 MB) from being done by then. */
void exp_file_background(struct exp_file *x);

/* A result set: the folder TARGET written whole. Its files are written
 * into exp_set_dir() (a temporary folder beside TARGET, by any means, also
 * by other programs such as gnuplot); exp_set_commit() fsyncs every file
 * and folder in it, writes the manifest .hetsim-set last, and swaps it with
 * TARGET in one rename, so TARGET holds the complete old set or the
 * complete new one at every moment. Regular files in TARGET that belong to
 * no set (a sweep cell's trace.csv) are carried into the new set by hard
 * links; a foreign folder inside TARGET is refused at exp_set_begin().
 * A lock file beside TARGET makes two writers of one TARGET take turns. */
struct exp_set;
int exp_set_begin(struct exp_set **out, const char *target, char *err,
                  size_t errlen);
/* The temporary folder to write into. */
const char *exp_set_dir(const struct exp_set *s);
/* Commits and frees S (also on failure, after which TARGET is as it was). */
int exp_set_commit(struct exp_set *s, char *err, size_t errlen);
/* Removes the temporary folder, releases the lock, frees S; NULL is a
 * no-op. */
void exp_set_abort(struct exp_set *s);
/* 1 when DIR holds a complete set: its manifest and every entry it
 * names; 0 otherwise. */
int exp_set_complete(const char *dir);

/* The run, workload, estimators, results and runners moved from cli/;
 * they use the result sets above. */
#include "exp_run.h"

#endif
