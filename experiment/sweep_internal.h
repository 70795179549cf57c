/* sweep_internal.h -- what the files of `hetsim sweep` and `hetsim check`
 * share: the SPEC (sweep_spec.c), its cells (sweep_cell.c), running them
 * here or under MPI (sweep.c, sweep_mpi.c), and the statistics over seeds
 * (sweep_stats.c). */
#ifndef HETSIM_CLI_SWEEP_INTERNAL_H
#define HETSIM_CLI_SWEEP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* ---- Lines of a JSON text (json_lines.c) ------------------------------- */

/* The line on which each value of a parsed JSON text starts, so that a
 * checker can say FILE:LINE of a wrong value. */
struct cli_json_lines {
    const struct cJSON **item; /* (n) in document order */
    long *line;                /* (n) */
    size_t n;
};
/* Maps the values of ROOT, parsed from TEXT. 0, or -1 when out of
 * memory. */
int cli_json_lines_build(struct cli_json_lines *m, const char *text,
                         const struct cJSON *root);
/* The line of ITEM, or 0 when unknown. */
long cli_json_line(const struct cli_json_lines *m, const struct cJSON *item);
void cli_json_lines_free(struct cli_json_lines *m);
/* The whole of PATH ("-": standard input), NUL-terminated, at most MAX
 * bytes; NULL with errno set (EFBIG when larger). */
char *cli_read_text(const char *path, size_t max);
/* Splits the CSV record at *P (RFC 4180 quoting) into FIELDS, NUL-
 * terminated in place; advances *P past it. Returns the field count, or
 * -1 on a broken quote (check_read.c). */
int cli_csv_record(char **p, char **fields, int cap);

/* ---- The SPEC (sweep_spec.c) ------------------------------------------- */

#define SWEEP_MAX_ITEMS 64    /* traces, loads, clusters, policies, modes */
#define SWEEP_MAX_SEEDS 10000
#define SWEEP_MAX_OPTS 16     /* options of a policy or of the generator */
#define SWEEP_MAX_CELLS 1000000

struct sweep_policy {
    char *label;             /* its name in sweep.csv: name[k=v,...] */
    char *name;
    char *keys[SWEEP_MAX_OPTS], *values[SWEEP_MAX_OPTS];
    size_t nopts;
    char *placement, *backfill; /* NULL: `hetsim run`'s default */
};

/* A workload: a trace file, or the generator at one load. */
struct sweep_workload {
    char *label;    /* the path as written, or "generated" */
    char *path;     /* the path to open (beside the SPEC), or NULL */
    double load;    /* generated: the offered load; else NaN */
};

struct sweep_spec {
    char *source;   /* the SPEC's path, for messages */
    struct sweep_workload work[SWEEP_MAX_ITEMS];
    size_t nwork;
    char *gen_keys[SWEEP_MAX_OPTS], *gen_values[SWEEP_MAX_OPTS];
    size_t ngen;
    char *clusters[SWEEP_MAX_ITEMS];     /* as written */
    char *cluster_args[SWEEP_MAX_ITEMS]; /* to pass (files beside SPEC) */
    size_t nclusters;
    struct sweep_policy policies[SWEEP_MAX_ITEMS];
    size_t npolicies;
    char *estimates[SWEEP_MAX_ITEMS];
    size_t nestimates;
    uint64_t seeds[SWEEP_MAX_SEEDS];
    size_t nseeds;
    char *throughputs; /* beside SPEC, or NULL */
    char *throughputs_label; /* as written */
    char *format;      /* or NULL: detected */
    /* `hetsim run` options of sweep's command line (flag, value; a flag
     * without value alone), passed to every run before a policy's own;
     * not freed by sweep_spec_free */
    const char *const *pass;
    size_t npass;
};

/* Reads the SPEC at PATH into *S (which the caller frees with
 * sweep_spec_free even on failure). CLI_OK, or CLI_BAD_INPUT /
 * CLI_FAILURE after `hetsim: error: PATH:LINE: what is wrong`. */
int sweep_spec_load(const char *path, struct sweep_spec *s);
void sweep_spec_free(struct sweep_spec *s);

/* Refuses, before any cell runs, a policy that needs run-time estimates
 * under estimates "none", and a backfill its policy or estimates cannot
 * take (sweep_check.c). CLI_OK, or CLI_BAD_INPUT after saying why. */
int sweep_check_cells(const struct sweep_spec *s);

/* ---- Cells (sweep_cell.c) ---------------------------------------------- */

/* One point of the cross product. Cells are ordered workload, cluster,
 * policy, estimates, seed (the last varies fastest), so the seeds of one
 * group are neighbours. */
struct sweep_cell {
    size_t work, cluster, policy, estimates, seed; /* indices into SPEC */
    char id[17]; /* 64-bit FNV-1a of the cell's canonical text, in hex */
};

/* The cells of S, in order (NULL when out of memory), and their count. */
struct sweep_cell *sweep_cells(const struct sweep_spec *s, size_t *n);
/* Canonical text of cell C: one `key=value` line per input; the same text
 * (hence id) whatever the SPEC around it. Returns the length, as snprintf. */
int sweep_cell_text(const struct sweep_spec *s, const struct sweep_cell *c,
                    char *buf, size_t cap);
/* OUT/cells/ID into BUF. */
void sweep_cell_dir(const char *out, const struct sweep_cell *c, char *buf,
                    size_t cap);
/* Whether the cell's summary.json is there (`hetsim run` renames it into
 * place only once every file of the run is complete, so a cell killed
 * midway has none). */
int sweep_cell_done(const char *out, const struct sweep_cell *c);
/* Writes OUT/cells/ID/cell.txt (its canonical text). 0 or -1, errno. */
int sweep_cell_prepare(const struct sweep_spec *s, const char *out,
                       const struct sweep_cell *c);
/* Command line of STEP (0: generate the trace, 1: run) of cell C into
 * ARGS (room for SWEEP_MAX_ARGS), using BUF (SWEEP_ARGBUF bytes) for the
 * strings. Returns 0, or -1 when the command line does not fit, or when
 * STEP is 0 and the cell's trace is a file (it starts at step 1). */
#define SWEEP_MAX_ARGS 96
#define SWEEP_ARGBUF 16384
int sweep_cell_argv(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *c, int step, const char **args,
                    char *buf);
/* The first step of cell C: 0 when its trace is generated, else 1. */
int sweep_cell_first_step(const struct sweep_spec *s,
                          const struct sweep_cell *c);
/* Where the cells to run come from: NEXT returns the index of the next
 * one, or -1 when there is none; DONE hears how each went. */
struct sweep_source {
    long long (*next)(void *ctx);
    void (*done)(void *ctx, size_t cell, int ok);
    void *ctx;
};
/* Runs the cells SRC gives, at most JOBS at a time, each as its steps
 * (sweep.c). CLI_OK, or CLI_FAILURE when some cell failed (said why). */
int sweep_run_cells(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *cells, long jobs,
                    const struct sweep_source *src);

/* ---- Under MPI (sweep_mpi.c) ------------------------------------------- */

/* Whether this process was started by mpirun (the launcher's environment),
 * and MPI support was built in. A plain `hetsim sweep` never starts MPI. */
int sweep_mpi_launched(void);
/* Runs the cells not yet done across the ranks: rank 0 hands out one cell
 * per request, the others run them, JOBS at a time each; rank 0 shows
 * PROGRESS on stderr when it is set. Sets *IS_ROOT to whether this is rank
 * 0 (which then aggregates). CLI_OK, or CLI_FAILURE when a cell failed
 * (known to rank 0). */
int sweep_mpi_run(const struct sweep_spec *s, const char *out,
                  const struct sweep_cell *cells, size_t n, long jobs,
                  int progress, int *is_root);

/* ---- Progress (sweep.c) ------------------------------------------------ */

struct sweep_progress {
    size_t total, done, skipped, failed;
    double start, last;
    int show; /* stderr is a terminal and not -q */
};
/* One more cell done (FAILED or not); redraws the line now and then. */
void sweep_progress_step(struct sweep_progress *p, int failed);
void sweep_progress_end(struct sweep_progress *p);

/* ---- Statistics (sweep_stats.c) ---------------------------------------- */

/* Mean, sample standard deviation and the half-width of the 95%
 * confidence interval of the mean (Student t with n - 1 degrees of
 * freedom) of X[0..n-1]; sd and ci are NaN when n < 2. */
struct sweep_stat {
    double mean, sd, ci95;
};
struct sweep_stat sweep_stat_of(const double *x, size_t n);

/* The figures of summary.json that sweep.csv aggregates. */
#define SWEEP_NFIGURES 10
extern const char *const sweep_figures[SWEEP_NFIGURES];

enum { SWEEP_FIG_MAKESPAN = 1, SWEEP_FIG_AVG_JCT = 2 };

/* One row of sweep.csv: a trace (or load), cluster, policy and estimate
 * mode, its first cell (the others are its other seeds), and statistics
 * over its seeds. Groups come in cell order: index ((w * nclusters + c) *
 * npolicies + p) * nestimates + e. */
struct sweep_group {
    const struct sweep_cell *first;
    struct sweep_stat st[SWEEP_NFIGURES];
};

/* Draws jct_vs_load (avg JCT against the generated loads, one line per
 * policy, the 95% interval as bars; one chart per cluster and estimate
 * mode) and makespan (mean makespan per policy; one chart per trace or load,
 * makespan_K when there are several) into OUT (sweep_charts.c).
 * 0, or -1 after a warning. */
int sweep_draw_charts(const struct sweep_spec *s, const char *out,
                      const struct sweep_group *g);

/* Prints OUT/sweep.csv on stdout as JSON: {"out", "cells", "seeds",
 * "rows": one object per row, numbers as numbers, empty fields null}
 * (sweep_json.c). CLI_OK, or CLI_FAILURE after saying why. */
int sweep_print_json(const struct sweep_spec *s, const char *out, size_t ncells);

/* Reads every cell's summary.json and writes OUT/sweep.csv (atomically)
 * and the charts jct_vs_load and makespan into OUT. CLI_OK, or
 * CLI_FAILURE after saying why. */
int sweep_aggregate(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *cells, size_t n);

#endif
