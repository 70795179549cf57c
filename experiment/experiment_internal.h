/* experiment_internal.h -- shared between the files of experiment/. */
#ifndef HETSIM_EXPERIMENT_INTERNAL_H
#define HETSIM_EXPERIMENT_INTERNAL_H

#include "experiment.h"

/* Jobs of a generated continuous trace: as many as Gavel's fixtures hold,
 * well past the window 4000-4999 (MANIFEST.md: every window job finished
 * before the last of them arrived). */
#define EXP_GAVEL_TRACE_JOBS 6500
#define EXP_WINDOW_FIRST 4000
#define EXP_WINDOW_LAST 4999

enum exp_kind { EXP_CONTINUOUS, EXP_MAKESPAN, EXP_FGD };
enum exp_kind exp_kind(const struct exp_info *info);

/* Generates G's jobs and writes them to PATH (whole or not at all). */
int exp_write_gavel_trace(const char *path, const struct trace_throughputs *m,
                          const struct exp_gavel_gen *g, char *err,
                          size_t errlen);

/* What Gavel's own simulator (c4fa400, the fixtures' summary.csv) and the
 * paper's notebook give for Gavel policy NAME at RATE jobs/h, seed 0, in
 * hours; NAN where there is none. */
struct exp_reference {
    double published_h, gavel_h, gavel_wall_s;
};
void exp_gavel_reference(const char *gavel_name, double rate,
                         struct exp_reference *out);

/* The Gavel name of a hetsim policy ("gavel:fifo" -> "fifo"), or NULL. */
const char *exp_gavel_name(const char *policy);

/* FGD's published figure: fewer unallocated GPUs than the packing
 * baselines, up to this share in percent (abstract and Sec. 6). */
#define EXP_FGD_PUBLISHED_CUT_PCT 49.0

/* Mean and sample standard deviation of X[0..N-1]. */
void exp_mean_sd(const double *x, size_t n, double *mean, double *sd);

/* fgd's cut of unallocated GPU against its best baseline at arrived X, in
 * percent (write.c); NAN without fgd or a baseline. */
double exp_fgd_cut(const struct exp_row *rows, size_t n, double x);

/* DIR/report.html: the experiment, the command, the table and, when
 * HAVE_CHART, DIR/figure.svg inlined (report.c). 0 or -1 (errno). */
int exp_write_report(const char *dir, const struct exp_plan *p,
                     const struct exp_row *rows, size_t n, const char *command,
                     int have_chart);

#endif
