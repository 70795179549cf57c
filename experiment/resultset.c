/* resultset.c -- a run's outputs as one set: written into a temporary
 * folder beside the target, every file and folder fsync'ed, the manifest
 * written last, then swapped with the target in one rename.
 *
 * Crash points, with TARGET = T and the temporary folder N = .T.tmp.PID:
 *   before the swap     T is the old set; N is stale, removed by the next
 *                       writer of T (its PID is dead).
 *   the swap            renameat2(RENAME_EXCHANGE) is one step. Where the
 *                       file system lacks it: T -> .T.old.PID, N -> T; cut
 *                       between the two, T is missing and the next writer
 *                       renames .T.old.PID back (the old set).
 *   after the swap      T is the new set; N (or .T.old.PID) holds the old
 *                       one until removed, here or by the next writer. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "experiment_internal.h"

#define MANIFEST ".hetsim-set"
#define MANIFEST_HEAD "hetsim-set 1\n"

struct exp_set {
    char target[EXP_PATH_MAX];
    char parent[EXP_PATH_MAX];
    char base[EXP_PATH_MAX];
    char tmp[2 * EXP_PATH_MAX + 64];
    char lock[2 * EXP_PATH_MAX + 64];
    int lock_fd, lock_slot, tmp_slot;
    struct exp_set *next; /* in open_sets */
};

/* The sets begun whose commit has not yet fsynced their folders, nor been
 * aborted (one thread begins and ends them): exp_file_commit asks whether
 * a file is in one of them (exp_set_holds). */
static struct exp_set *open_sets;

static void forget_set(struct exp_set *s)
{
    for (struct exp_set **p = &open_sets; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

int exp_set_holds(const char *dir)
{
    for (const struct exp_set *s = open_sets; s; s = s->next)
        if (strcmp(s->tmp, dir) == 0)
            return 1;
    return 0;
}

static void fail(char *err, size_t errlen, const char *path, int e)
{
    snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
}

/* mkdir -p PATH. */
static int make_dirs(const char *path)
{
    char p[EXP_PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *c = p + 1;; c++) {
        if (*c != '/' && *c != '\0')
            continue;
        char saved = *c;
        *c = '\0';
        struct stat st;
        if (stat(p, &st) != 0 && exp_io_mkdir(p) != 0 && errno != EEXIST)
            return -1;
        *c = saved;
        if (!saved)
            return 0;
    }
}

/* The manifest of DIR (its lines after the head), or NULL. */
static char *read_manifest(const char *dir)
{
    char path[EXP_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/" MANIFEST, dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 16);
    size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    size_t head = strlen(MANIFEST_HEAD);
    if (!text || n < head || memcmp(text, MANIFEST_HEAD, head) != 0) {
        free(text);
        return NULL;
    }
    memmove(text, text + head, n - head + 1);
    return text;
}

static int listed(const char *manifest, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = manifest; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

int exp_set_complete(const char *dir)
{
    char *m = read_manifest(dir);
    if (!m)
        return 0;
    int ok = 1;
    for (char *p = m; *p && ok;) {
        char *end = strchr(p, '\n');
        if (!end)
            break;
        *end = '\0';
        char path[EXP_PATH_MAX * 2];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, p);
        ok = lstat(path, &st) == 0;
        p = end + 1;
    }
    free(m);
    return ok;
}

/* ---- The lock --------------------------------------------------------- */

/* flock on .BASE.lock beside the target; the file is removed on release,
 * so a holder checks that the file it locked is still the one at the path
 * (a waiter may wake holding a removed one). */
static int take_lock(struct exp_set *s, char *err, size_t errlen)
{
    snprintf(s->lock, sizeof s->lock, "%s/.%s.lock", s->parent, s->base);
    sigset_t all, old;
    sigfillset(&all);
    for (int tries = 0; tries < 1000; tries++) {
        /* Signals wait while the lock file is ours but not yet in the
         * handler's list. */
        sigprocmask(SIG_BLOCK, &all, &old);
        int fd = exp_io_open(s->lock, O_RDWR | O_CREAT, 0666);
        if (fd < 0) {
            fail(err, errlen, s->lock, errno);
            sigprocmask(SIG_SETMASK, &old, NULL);
            return -1;
        }
        struct stat a, b;
        int busy = flock(fd, LOCK_EX | LOCK_NB) != 0;
        if (!busy && fstat(fd, &a) == 0 && stat(s->lock, &b) == 0 &&
            a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
            s->lock_fd = fd;
            s->lock_slot = exp_temp_add(s->lock, EXP_TEMP_LOCK);
            sigprocmask(SIG_SETMASK, &old, NULL);
            return 0;
        }
        close(fd);
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (!busy)
            continue; /* locked a file its holder had just removed */
        /* Another writer of this target: wait for it, then try again. */
        fd = open(s->lock, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
                ;
            close(fd);
        }
    }
    fail(err, errlen, s->lock, EDEADLK);
    return -1;
}

static void drop_lock(struct exp_set *s)
{
    if (s->lock_fd < 0)
        return;
    exp_temp_forget(s->lock_slot);
    unlink(s->lock);
    close(s->lock_fd);
    s->lock_fd = -1;
}

/* ---- Beginning --------------------------------------------------------- */

/* A folder inside the target that no set of ours made would be lost in
 * the swap: refused. */
static int check_target(const struct exp_set *s, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(s->target, &st) != 0)
        return errno == ENOENT ? 0 : (fail(err, errlen, s->target, errno), -1);
    if (!S_ISDIR(st.st_mode)) {
        fail(err, errlen, s->target, ENOTDIR);
        return -1;
    }
    DIR *d = opendir(s->target);
    if (!d) {
        fail(err, errlen, s->target, errno);
        return -1;
    }
    char *m = read_manifest(s->target);
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            listed(m, e->d_name))
            continue;
        char path[EXP_PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", s->target, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, errlen,
                     "%s: a folder that is not part of the results in %s, "
                     "which are replaced as a whole: give the results a "
                     "folder of their own (such as %s/run)",
                     path, s->target, s->target);
            rc = -1;
        }
    }
    closedir(d);
    free(m);
    return rc;
}

int exp_set_begin(struct exp_set **out, const char *target, char *err,
                  size_t errlen)
{
    *out = NULL;
    struct exp_set *s = calloc(1, sizeof *s);
    if (!s) {
        fail(err, errlen, target, ENOMEM);
        return -1;
    }
    s->lock_fd = s->lock_slot = s->tmp_slot = -1;
    char real[PATH_MAX];
    struct stat st;
    if (lstat(target, &st) == 0 && S_ISLNK(st.st_mode) &&
        realpath(target, real))
        target = real; /* the link stays; its folder is replaced */
    if (strlen(target) > EXP_PATH_MAX - 64) {
        errno = ENAMETOOLONG;
        fail(err, errlen, target, errno);
        goto fail;
    }
    if (snprintf(s->target, sizeof s->target, "%s", target) >=
            (int)sizeof s->target ||
        exp_split_path(target, s->parent, s->base, sizeof s->base) != 0) {
        fail(err, errlen, target, errno);
        goto fail;
    }
    if (make_dirs(s->parent) != 0) {
        fail(err, errlen, s->parent, errno);
        goto fail;
    }
    if (take_lock(s, err, errlen) != 0)
        goto fail;
    exp_clean_stale(s->parent, s->base, s->target);
    if (check_target(s, err, errlen) != 0)
        goto fail;
    snprintf(s->tmp, sizeof s->tmp, "%s/.%s.tmp.%ld", s->parent, s->base,
             (long)getpid());
    s->tmp_slot = exp_temp_add(s->tmp, EXP_TEMP_TREE); /* before it is */
    if (exp_io_mkdir(s->tmp) != 0) {
        fail(err, errlen, s->tmp, errno);
        exp_temp_forget(s->tmp_slot);
        goto fail;
    }
    s->next = open_sets;
    open_sets = s;
    *out = s;
    return 0;
fail:
    drop_lock(s);
    free(s);
    return -1;
}

const char *exp_set_dir(const struct exp_set *s)
{
    return s->tmp;
}

void exp_set_abort(struct exp_set *s)
{
    if (!s)
        return;
    forget_set(s);
    exp_rmtree(s->tmp);
    exp_temp_forget(s->tmp_slot);
    drop_lock(s);
    free(s);
}

/* ---- Committing --------------------------------------------------------- */

/* fsyncs every file and folder under PATH, PATH last. A file it cannot
 * look at (other than one gone meanwhile) or a folder it cannot read to
 * the end is a failure: the set would hold a file nobody fsynced. */
static int fsync_tree(const char *path, int depth, char *err, size_t errlen)
{
    DIR *d = opendir(path);
    if (!d) {
        fail(err, errlen, path, errno);
        return -1;
    }
    int rc = 0;
    while (rc == 0) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno) {
                fail(err, errlen, path, errno);
                rc = -1;
            }
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[EXP_PATH_MAX * 2];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &st) != 0) {
            if (errno == ENOENT)
                continue;
            fail(err, errlen, sub, errno);
            rc = -1;
            break;
        }
        if (S_ISDIR(st.st_mode) && depth < 16)
            rc = fsync_tree(sub, depth + 1, err, errlen);
        else if (S_ISREG(st.st_mode) && exp_io_fsync_path(sub, 0) != 0) {
            fail(err, errlen, sub, errno);
            rc = -1;
        }
    }
    closedir(d);
    if (rc == 0 && exp_io_fsync_path(path, 1) != 0) {
        fail(err, errlen, path, errno);
        rc = -1;
    }
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The manifest: the head, then the entries of the set sorted by name. */
static int write_manifest(const struct exp_set *s, char *err, size_t errlen)
{
    DIR *d = opendir(s->tmp);
    if (!d) {
        fail(err, errlen, s->tmp, errno);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' &&
            (!e->d_name[1] || strcmp(e->d_name, "..") == 0 ||
             strcmp(e->d_name, MANIFEST) == 0 || strchr(e->d_name, '\n')))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **more = realloc(names, cap * sizeof *names);
            rc = more ? 0 : -1;
            names = more ? more : names;
        }
        if (rc == 0 && !(names[n++] = strdup(e->d_name)))
            rc = -1;
    }
    closedir(d);
    if (rc != 0) {
        fail(err, errlen, s->tmp, ENOMEM);
        goto done;
    }
    qsort(names, n, sizeof *names, by_name);
    char path[2 * EXP_PATH_MAX + 96];
    snprintf(path, sizeof path, "%s/" MANIFEST, s->tmp);
    struct exp_file f;
    if ((rc = exp_file_open(&f, path, err, errlen)) != 0)
        goto done;
    fputs(MANIFEST_HEAD, f.f);
    for (size_t i = 0; i < n; i++)
        fprintf(f.f, "%s\n", names[i]);
    rc = exp_file_commit(&f, err, errlen);
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Regular files of the target that belong to no set (written there by
 * something else, like a sweep cell's trace.csv) are linked into the new
 * set, unless it has its own of that name. */
static int carry_foreign(const struct exp_set *s, char *err, size_t errlen)
{
    DIR *d = opendir(s->target);
    if (!d)
        return 0; /* no old set */
    char *m = read_manifest(s->target);
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
            strcmp(name, MANIFEST) == 0 || listed(m, name))
            continue;
        char from[EXP_PATH_MAX * 3], to[EXP_PATH_MAX * 3];
        struct stat st;
        snprintf(from, sizeof from, "%s/%s", s->target, name);
        snprintf(to, sizeof to, "%s/%s", s->tmp, name);
        if (lstat(to, &st) == 0 || lstat(from, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            fail(err, errlen, from, EISDIR);
            rc = -1;
        } else if (exp_io_link(from, to) != 0) {
            fail(err, errlen, to, errno);
            rc = -1;
        }
    }
    closedir(d);
    free(m);
    return rc;
}

/* Puts the new set at the target; the old one ends under *OLD (or
 * nowhere when there was none). */
static int swap_in(struct exp_set *s, char *old, size_t cap, char *err,
                   size_t errlen)
{
    struct stat st;
    old[0] = '\0';
    if (lstat(s->target, &st) != 0) {
        if (exp_io_rename(s->tmp, s->target, 0) != 0) {
            fail(err, errlen, s->target, errno);
            return -1;
        }
        exp_temp_forget(s->tmp_slot);
        return 0;
    }
    if (exp_io_rename(s->tmp, s->target, 1) == 0) {
        snprintf(old, cap, "%s", s->tmp); /* the old set now lives there */
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
        fail(err, errlen, s->target, errno);
        return -1;
    }
    /* No RENAME_EXCHANGE here: two renames (see the top of this file). */
    snprintf(old, cap, "%s/.%s.old.%ld", s->parent, s->base, (long)getpid());
    if (exp_io_rename(s->target, old, 0) != 0) {
        fail(err, errlen, s->target, errno);
        old[0] = '\0';
        return -1;
    }
    if (exp_io_rename(s->tmp, s->target, 0) != 0) {
        fail(err, errlen, s->target, errno);
        (void)rename(old, s->target);
        old[0] = '\0';
        return -1;
    }
    exp_temp_forget(s->tmp_slot);
    s->tmp_slot = exp_temp_add(old, EXP_TEMP_TREE);
    return 0;
}

int exp_set_commit(struct exp_set *s, char *err, size_t errlen)
{
    char old[2 * EXP_PATH_MAX + 64];
    int synced = carry_foreign(s, err, errlen) == 0 &&
                 fsync_tree(s->tmp, 0, err, errlen) == 0;
    forget_set(s); /* the manifest's exp_file fsyncs itself and the folder */
    if (!synced || write_manifest(s, err, errlen) != 0 ||
        swap_in(s, old, sizeof old, err, errlen) != 0) {
        exp_set_abort(s);
        return -1;
    }
    int rc = 0;
    if (exp_io_fsync_path(s->parent, 1) != 0) {
        fail(err, errlen, s->parent, errno); /* the new set is in place */
        rc = -1;
    }
    if (old[0])
        exp_rmtree(old);
    exp_temp_forget(s->tmp_slot);
    drop_lock(s);
    free(s);
    return rc;
}
