/* experiment.h -- the layer that turns a trace and a cluster into runs,
 * compares, sweeps, and writes their results (prefix exp_). */
#ifndef HETSIM_EXPERIMENT_H
#define HETSIM_EXPERIMENT_H

#include <stddef.h>
#include <stdio.h>

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
 * temporary and leaves PATH as it was. */
int exp_file_commit(struct exp_file *x, char *err, size_t errlen);
/* Closes and removes the temporary; PATH stays as it was. */
void exp_file_abort(struct exp_file *x);

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

#endif
