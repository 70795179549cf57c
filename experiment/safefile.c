/* safefile.c -- one output file, written whole or not at all: a temporary
 * beside the target, fsync'ed, renamed over it, the folder fsync'ed (by
 * the set's commit when the folder is a result set's); a device, FIFO or
 * "-" streamed to instead of replaced. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "experiment_internal.h"

static void fail(char *err, size_t errlen, const char *path, int e)
{
    snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
}

int exp_split_path(const char *path, char *parent, char *base, size_t cap)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--; /* "results/" is "results" */
    if (len == 0 || len >= cap) {
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    size_t cut = len;
    while (cut > 0 && path[cut - 1] != '/')
        cut--;
    size_t blen = len - cut;
    memcpy(base, path + cut, blen);
    base[blen] = '\0';
    if (cut == 0)
        strcpy(parent, ".");
    else if (cut == 1)
        strcpy(parent, "/");
    else {
        memcpy(parent, path, cut - 1);
        parent[cut - 1] = '\0';
    }
    if (blen == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

/* ---- A stream whose every write goes through exp_io_write ------------- */

/* stdio is never told of a failed write (glibc's fwrite has misread its
 * source after one): the first error is kept here, later data dropped, and
 * exp_file_commit() reports it. */
struct cookie {
    int fd;
    int err;
    int kick;      /* a regular file: start its writeback as it grows */
    off_t written; /* bytes written */
    off_t kicked;  /* bytes whose writeback has been started */
    int sync_fd;   /* exp_file_background's descriptor, or -1 */
    off_t synced;  /* bytes written to disk through it */
    char buf[1 << 16];
};

/* Bytes between two starts of writeback: the commit's fsync then waits
 * only for the last of them. */
#define KICK_BYTES ((off_t)4 << 20)
/* Bytes between two fdatasyncs of exp_file_background. */
#define SYNC_BYTES ((off_t)16 << 20)

/* Starts the writeback of what C wrote since the last start, without
 * waiting for it: the disk works while the run goes on, and the fsync at
 * the commit, which checks it all, has little left to wait for. Only a
 * hint: its failure is not an error (the fsync reports any). */
static void kick(struct cookie *c)
{
    if (c->sync_fd >= 0 && c->written - c->synced >= SYNC_BYTES) {
        (void)fdatasync(c->sync_fd); /* its failure: see exp_file_presync */
        c->synced = c->kicked = c->written;
        return;
    }
    if (c->kick && c->written - c->kicked >= KICK_BYTES) {
        (void)exp_io_writeback(c->fd, c->kicked, c->written - c->kicked);
        c->kicked = c->written;
    }
}

static ssize_t cookie_write(void *v, const char *buf, size_t n)
{
    struct cookie *c = v;
    size_t done = 0;
    while (!c->err && done < n) {
        ssize_t w = exp_io_write(c->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            c->err = w < 0 ? errno : EIO;
        else
            done += (size_t)w;
    }
    c->written += (off_t)done;
    kick(c);
    return (ssize_t)n;
}

static int cookie_close(void *v)
{
    struct cookie *c = v; /* freed by our caller, after fclose */
    if (c->sync_fd >= 0)
        close(c->sync_fd);
    return exp_io_close(c->fd);
}

static FILE *stream_on(struct exp_file *x)
{
    struct cookie *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    c->fd = x->fd;
    c->err = 0;
    c->kick = !x->stream;
    c->written = c->kicked = c->synced = 0;
    c->sync_fd = -1;
    cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
    FILE *f = fopencookie(c, "w", io);
    if (!f) {
        free(c);
        return NULL;
    }
    setvbuf(f, c->buf, _IOFBF, sizeof c->buf);
    x->cookie = c;
    return f;
}

/* ---- Opening ---------------------------------------------------------- */

static int open_stream(struct exp_file *x, char *err, size_t errlen)
{
    x->stream = 1;
    x->tmp[0] = '\0';
    if (strcmp(x->path, "-") == 0) {
        x->f = stdout;
        x->fd = -1;
        return 0;
    }
    x->fd = exp_io_open(x->path, O_WRONLY | O_NOCTTY, 0);
    if (x->fd < 0 || !(x->f = stream_on(x))) {
        fail(err, errlen, x->path, errno);
        if (x->fd >= 0)
            close(x->fd);
        return -1;
    }
    return 0;
}

/* The target behind a symbolic link, so the link stays a link. */
static int follow_link(struct exp_file *x)
{
    char real[PATH_MAX];
    if (!realpath(x->path, real))
        return -1;
    snprintf(x->path, sizeof x->path, "%s", real);
    return 0;
}

static int open_temp(struct exp_file *x, const struct stat *old, char *err,
                     size_t errlen)
{
    char parent[EXP_PATH_MAX], base[EXP_PATH_MAX];
    if (exp_split_path(x->path, parent, base, sizeof base) != 0) {
        fail(err, errlen, x->path, errno);
        return -1;
    }
    exp_clean_stale(parent, base, NULL);
    int n = snprintf(x->tmp, sizeof x->tmp, "%s/.%s.tmp.%ld", parent, base,
                     (long)getpid());
    if (n >= (int)sizeof x->tmp) {
        fail(err, errlen, x->path, ENAMETOOLONG);
        return -1;
    }
    x->slot = exp_temp_add(x->tmp, EXP_TEMP_FILE); /* before it is */
    x->fd = exp_io_open(x->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (x->fd < 0) {
        fail(err, errlen, x->path, errno); /* the name the user gave */
        exp_temp_forget(x->slot);
        x->slot = -1;
        return -1;
    }
    if (old)
        (void)fchmod(x->fd, old->st_mode & 07777); /* keep its mode */
    if (!(x->f = stream_on(x))) {
        fail(err, errlen, x->tmp, errno);
        close(x->fd);
        unlink(x->tmp);
        exp_temp_forget(x->slot);
        return -1;
    }
    return 0;
}

int exp_file_open(struct exp_file *x, const char *path, char *err,
                  size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->fd = -1;
    x->slot = -1;
    if (snprintf(x->path, sizeof x->path, "%s", path) >= (int)sizeof x->path) {
        fail(err, errlen, path, ENAMETOOLONG);
        return -1;
    }
    if (strcmp(path, "-") == 0)
        return open_stream(x, err, errlen);
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        /* A dangling link: written through, as a stream. */
        if (follow_link(x) != 0)
            return open_stream(x, err, errlen);
        exists = lstat(x->path, &st) == 0;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        fail(err, errlen, path, EISDIR);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return open_stream(x, err, errlen);
    return open_temp(x, exists ? &st : NULL, err, errlen);
}

/* ---- Committing -------------------------------------------------------- */

int exp_file_commit(struct exp_file *x, char *err, size_t errlen)
{
    const char *where = x->stream ? x->path : x->tmp;
    char parent[EXP_PATH_MAX], base[EXP_PATH_MAX]; /* WHERE may name it */
    int e = 0;
    int split =
        !x->stream && exp_split_path(x->path, parent, base, sizeof base) == 0;
    /* In a result set's folder the set's commit fsyncs the folder
     * (resultset.c, fsync_tree): here that would be done twice. The file
     * itself is fsync'ed here, on the descriptor that wrote it, so a
     * writeback error cannot be lost before the set's commit looks. */
    int in_set = split && exp_set_holds(parent);
    errno = 0;
    if (ferror(x->f) || fflush(x->f) != 0)
        e = errno ? errno : EIO;
    if (!e && x->cookie)
        e = ((struct cookie *)x->cookie)->err;
    if (!e && x->fd >= 0 && exp_io_fsync(x->fd) != 0)
        e = errno;
    if (x->f != stdout) {
        errno = 0;
        if (fclose(x->f) != 0 && !e)
            e = errno ? errno : EIO;
    }
    x->f = NULL;
    free(x->cookie);
    x->cookie = NULL;
    if (!e && !x->stream && exp_io_rename(x->tmp, x->path, 0) != 0) {
        e = errno;
        where = x->path;
    }
    if (!x->stream) {
        if (e)
            unlink(x->tmp);
        exp_temp_forget(x->slot);
        x->slot = -1;
    }
    if (!e && split && !in_set && exp_io_fsync_path(parent, 1) != 0) {
        e = errno;
        where = parent;
    }
    if (e) {
        fail(err, errlen, where, e);
        errno = e;
        return -1;
    }
    return 0;
}

void exp_file_background(struct exp_file *x)
{
    struct cookie *c = x->cookie;
    if (c && c->kick && c->sync_fd < 0 && !x->stream && x->tmp[0])
        c->sync_fd = open(x->tmp, O_RDONLY | O_CLOEXEC); /* -1: as before */
}

int exp_file_flush(struct exp_file *x)
{
    struct cookie *c = x->cookie;
    if (!x->f || ferror(x->f) || fflush(x->f) != 0 || (c && c->err))
        return -1;
    return 0;
}

void exp_file_presync(struct exp_file *x)
{
    if (!x->f || fflush(x->f) != 0 || x->stream || x->fd < 0)
        return;
    /* Not X->fd: an fsync there that failed would have told its error, and
     * the commit's fsync on it would then say nothing. A descriptor of its
     * own sees the failure too, and leaves X->fd's report for the commit:
     * exp_file_background's, when it has one. */
    struct cookie *c = x->cookie;
    if (c && c->sync_fd >= 0) {
        (void)fsync(c->sync_fd);
        return;
    }
    int fd = open(x->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    (void)fsync(fd);
    close(fd);
}

void exp_file_abort(struct exp_file *x)
{
    if (x->f && x->f != stdout)
        fclose(x->f);
    else if (x->f)
        fflush(x->f);
    x->f = NULL;
    free(x->cookie);
    x->cookie = NULL;
    if (!x->stream && x->tmp[0]) {
        unlink(x->tmp);
        exp_temp_forget(x->slot);
        x->slot = -1;
    }
}
