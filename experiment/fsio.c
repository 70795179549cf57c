/* fsio.c -- the system calls that write results, one place for all of them:
 * each goes through a wrapper that a test can make fail at its k-th call
 * (HETSIM_FAULT, in the manner of SQLite's I/O-error tests), a registry of
 * the temporary paths this process owns, and the SIGINT/SIGTERM/SIGHUP
 * handler that removes them before the process dies. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "experiment.h"
#include "experiment_internal.h"

/* ---- Fault injection -------------------------------------------------- */

static const char *const op_names[EXP_IO_NOPS] = {
    "open", "write", "fsync", "rename", "close", "link", "mkdir", "writeback"};
static long fault_at[EXP_IO_NOPS]; /* fail the k-th call; 0 never */
/* atomic: the rows' threads of a streamed run write too (rows_writer.c) */
static _Atomic long op_calls[EXP_IO_NOPS];
static int fault_parsed;

/* HETSIM_FAULT="OP:K[,OP:K...]": the K-th call of OP fails (ENOSPC for
 * write, fsync and close, EIO for the others) and says so on stderr. */
static void parse_faults(void)
{
    fault_parsed = 1;
    const char *spec = getenv("HETSIM_FAULT");
    while (spec && *spec) {
        for (int op = 0; op < EXP_IO_NOPS; op++) {
            size_t n = strlen(op_names[op]);
            if (strncmp(spec, op_names[op], n) == 0 && spec[n] == ':')
                fault_at[op] = strtol(spec + n + 1, NULL, 10);
        }
        spec = strchr(spec, ',');
        spec = spec ? spec + 1 : NULL;
    }
}

int exp_io_fault(enum exp_io_op op)
{
    if (!fault_parsed)
        parse_faults();
    if (atomic_fetch_add_explicit(&op_calls[op], 1, memory_order_relaxed) + 1 !=
            fault_at[op] ||
        fault_at[op] <= 0)
        return 0;
    static const char msg[] = "hetsim: fault injected: ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, op_names[op], strlen(op_names[op]));
    (void)!write(2, "\n", 1);
    errno = op == EXP_IO_WRITE || op == EXP_IO_FSYNC || op == EXP_IO_CLOSE
                ? ENOSPC
                : EIO;
    return -1;
}

long exp_io_calls(enum exp_io_op op)
{
    return op_calls[op];
}

int exp_io_open(const char *path, int flags, int mode)
{
    if (exp_io_fault(EXP_IO_OPEN))
        return -1;
    return open(path, flags | O_CLOEXEC, mode);
}

ssize_t exp_io_write(int fd, const void *buf, size_t n)
{
    if (exp_io_fault(EXP_IO_WRITE))
        return -1;
    return write(fd, buf, n);
}

int exp_io_fsync(int fd)
{
    if (exp_io_fault(EXP_IO_FSYNC))
        return -1;
    /* A pipe, terminal or device may not take fsync: nothing to persist. */
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
        return -1;
    return 0;
}

int exp_io_writeback(int fd, off_t off, off_t len)
{
    if (exp_io_fault(EXP_IO_WRITEBACK))
        return -1;
#ifdef SYNC_FILE_RANGE_WRITE
    return sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd, (void)off, (void)len;
    return 0;
#endif
}

int exp_io_close(int fd)
{
    if (exp_io_fault(EXP_IO_CLOSE)) {
        close(fd);
        errno = ENOSPC;
        return -1;
    }
    return close(fd);
}

int exp_io_rename(const char *from, const char *to, int exchange)
{
    if (exp_io_fault(EXP_IO_RENAME))
        return -1;
    if (exchange)
        return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
    return rename(from, to);
}

int exp_io_link(const char *from, const char *to)
{
    if (exp_io_fault(EXP_IO_LINK))
        return -1;
    return link(from, to);
}

int exp_io_mkdir(const char *path)
{
    if (exp_io_fault(EXP_IO_MKDIR))
        return -1;
    return mkdir(path, 0777);
}

int exp_io_fsync_path(const char *path, int dir)
{
    int fd = exp_io_open(path, O_RDONLY | (dir ? O_DIRECTORY : 0), 0);
    if (fd < 0)
        return -1;
    if (exp_io_fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return exp_io_close(fd);
}

/* ---- Removing a tree, async-signal-safe -------------------------------- */

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Removes NAME under DIRFD and all it holds; only system calls, so the
 * signal handler may call it. Depth is bounded: results are shallow. */
static void rmtree_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return;
    int fd =
        openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (depth < 16) {
        char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct linux_dirent64 *d = (void *)(buf + off);
                off += d->d_reclen;
                if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                    continue;
                rmtree_at(fd, d->d_name, depth + 1);
            }
        }
    }
    close(fd);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

void exp_rmtree(const char *path)
{
    rmtree_at(AT_FDCWD, path, 0);
}

/* ---- Temporary paths of this process ---------------------------------- */

#define NTEMPS 64
static struct {
    volatile sig_atomic_t used; /* 0 free, else enum exp_temp_kind */
    char path[EXP_PATH_MAX];
} temps[NTEMPS];

int exp_temp_add(const char *path, enum exp_temp_kind kind)
{
    for (int i = 0; i < NTEMPS; i++) {
        if (temps[i].used)
            continue;
        snprintf(temps[i].path, sizeof temps[i].path, "%s", path);
        temps[i].used = (sig_atomic_t)kind;
        return i;
    }
    return -1; /* only a process with 64 files open at once gets here */
}

void exp_temp_forget(int slot)
{
    if (slot >= 0 && slot < NTEMPS)
        temps[slot].used = 0;
}

static void remove_temps(void)
{
    for (int i = 0; i < NTEMPS; i++) {
        int kind = temps[i].used;
        temps[i].used = 0;
        if (kind == EXP_TEMP_TREE)
            exp_rmtree(temps[i].path);
        else if (kind == EXP_TEMP_FILE || kind == EXP_TEMP_LOCK)
            unlink(temps[i].path);
    }
}

static void on_signal(int sig)
{
    int e = errno;
    remove_temps();
    signal(sig, SIG_DFL);
    errno = e;
    raise(sig);
}

void exp_safety_init(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof sigs / sizeof sigs[0]; j++)
            sigaddset(&sa.sa_mask, sigs[j]);
        /* A signal the shell told us to ignore stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- Stale temporaries ------------------------------------------------ */

/* The pid at the end of NAME after PREFIX (digits only), or 0. */
static long pid_after(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n])
        return 0;
    char *end;
    long pid = strtol(name + n, &end, 10);
    return *end == '\0' && pid > 0 ? pid : 0;
}

/* Whether process PID is gone (or is us: a temporary of our pid that we
 * did not make is a leftover of a dead process that had the same pid). */
static int pid_dead(long pid)
{
    if (pid == (long)getpid())
        return 1;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int exp_clean_stale(const char *parent, const char *base, const char *target)
{
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    char tmp[EXP_PATH_MAX], old[EXP_PATH_MAX], legacy[EXP_PATH_MAX];
    snprintf(tmp, sizeof tmp, ".%s.tmp.", base);
    snprintf(old, sizeof old, ".%s.old.", base);
    snprintf(legacy, sizeof legacy, ".%s.tmp", base); /* before 0.2 */
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = pid_after(e->d_name, tmp);
        int is_old = 0;
        if (!pid && (pid = pid_after(e->d_name, old)) != 0)
            is_old = 1;
        if (!pid)
            pid = pid_after(e->d_name, legacy);
        if (!pid || !pid_dead(pid))
            continue;
        char path[EXP_PATH_MAX * 2 + 2];
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        struct stat st;
        /* A swap cut between its two renames: the old set goes back. */
        if (is_old && target && lstat(target, &st) != 0 && errno == ENOENT &&
            rename(path, target) == 0)
            continue;
        exp_rmtree(path);
        removed++;
    }
    closedir(d);
    return removed;
}
