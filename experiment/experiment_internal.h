/* experiment_internal.h -- shared between the files of experiment/. */
#ifndef HETSIM_EXPERIMENT_INTERNAL_H
#define HETSIM_EXPERIMENT_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

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

/* ---- Result sets (fsio.c) ---------------------------------------------- */

/* The system calls of the write path, each of which a test may fail. */
enum exp_io_op {
    EXP_IO_OPEN,
    EXP_IO_WRITE,
    EXP_IO_FSYNC,
    EXP_IO_RENAME,
    EXP_IO_CLOSE,
    EXP_IO_LINK,
    EXP_IO_MKDIR,
    EXP_IO_WRITEBACK,
    EXP_IO_NOPS
};
/* -1 with errno set when this call of OP is the one HETSIM_FAULT names. */
int exp_io_fault(enum exp_io_op op);
/* How many calls of OP this process has made (tests). */
long exp_io_calls(enum exp_io_op op);
int exp_io_open(const char *path, int flags, int mode);
ssize_t exp_io_write(int fd, const void *buf, size_t n);
/* fsync; EINVAL (pipes, devices) counts as done. */
int exp_io_fsync(int fd);
int exp_io_close(int fd);
/* rename, or with EXCHANGE both names swapped in one step. */
int exp_io_rename(const char *from, const char *to, int exchange);
int exp_io_link(const char *from, const char *to);
int exp_io_mkdir(const char *path);
/* Starts the writeback of LEN bytes of FD from OFF, waiting for nothing
 * (sync_file_range; where there is none, nothing). A hint: its failure
 * is not an error, the fsync that follows reports any. */
int exp_io_writeback(int fd, off_t off, off_t len);
/* Opens PATH (a folder when DIR), fsyncs and closes it. */
int exp_io_fsync_path(const char *path, int dir);

/* Temporary paths removed by the signal handler; a slot or -1. */
enum exp_temp_kind { EXP_TEMP_FILE = 1, EXP_TEMP_TREE, EXP_TEMP_LOCK };
int exp_temp_add(const char *path, enum exp_temp_kind kind);
void exp_temp_forget(int slot);

/* Removes PATH and all under it (async-signal-safe). */
void exp_rmtree(const char *path);
/* Removes PARENT/.BASE.tmp.PID and .BASE.old.PID of dead processes; an
 * old set whose TARGET is missing (a swap cut short) is renamed back to
 * TARGET instead. Returns how many were removed. */
int exp_clean_stale(const char *parent, const char *base, const char *target);
/* 1 when DIR is the folder of a result set (exp_set_dir) whose commit has
 * not yet fsynced its files and the folder. */
int exp_set_holds(const char *dir);

/* Splits PATH into PARENT (or ".") and BASE; -1 (errno) when too long or
 * when BASE is empty, "." or "..". */
int exp_split_path(const char *path, char *parent, char *base, size_t cap);

#endif
