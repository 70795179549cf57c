/* experiment_internal.h -- shared between the files of experiment/. */
#ifndef HETSIM_EXPERIMENT_INTERNAL_H
#define HETSIM_EXPERIMENT_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

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
    EXP_IO_NOPS
};
/* -1 with errno set when this call of OP is the one HETSIM_FAULT names. */
int exp_io_fault(enum exp_io_op op);
int exp_io_open(const char *path, int flags, int mode);
ssize_t exp_io_write(int fd, const void *buf, size_t n);
/* fsync; EINVAL (pipes, devices) counts as done. */
int exp_io_fsync(int fd);
int exp_io_close(int fd);
/* rename, or with EXCHANGE both names swapped in one step. */
int exp_io_rename(const char *from, const char *to, int exchange);
int exp_io_link(const char *from, const char *to);
int exp_io_mkdir(const char *path);
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

/* Splits PATH into PARENT (or ".") and BASE; -1 (errno) when too long or
 * when BASE is empty, "." or "..". */
int exp_split_path(const char *path, char *parent, char *base, size_t cap);

#endif
