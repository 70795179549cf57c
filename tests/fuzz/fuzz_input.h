/* fuzz_input.h -- what the libFuzzer harnesses and the replay tests share
 * whatever the module: the file a reader is given, and how a broken
 * invariant is told.
 *
 * A harness and a replay test do the same thing with one input: both call a
 * fuzz_<target> function (fuzz_targets.h, fuzz_cluster.h) that returns 0, or
 * -1 with the invariant that broke in WHY. The harness then aborts, so that
 * libFuzzer keeps the input; the replay test fails naming the file. */
#ifndef HETSIM_FUZZ_INPUT_H
#define HETSIM_FUZZ_INPUT_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define FUZZ_WHY_SIZE 512
#define FUZZ_MAX_EXT 16

/* Formats the broken invariant into why (FUZZ_WHY_SIZE bytes); returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline int
fuzz_fail(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, FUZZ_WHY_SIZE, fmt, ap);
    va_end(ap);
    return -1;
}

static inline void fuzz_input_remove(void);

/* The path of this process's input file with extension EXT (".csv", ...):
 * in /dev/shm when it can be written, else in /tmp. One path per extension
 * and process, rewritten for every input, removed at exit. The text lives
 * in a static buffer, valid until the next call. */
static inline const char *fuzz_input_path(const char *ext)
{
    static char path[96];
    static const char *dir;
    if (!dir) {
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        atexit(fuzz_input_remove); /* libFuzzer ends a run with exit() */
    }
    snprintf(path, sizeof path, "%s/hetsim-fuzz-%ld%.*s", dir, (long)getpid(),
             FUZZ_MAX_EXT, ext);
    return path;
}

/* Writes data[0..size) to PATH (created or truncated). 0 or -1. */
static inline int fuzz_write_file(const char *path, const uint8_t *data,
                                  size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return close(fd);
}

/* Removes this process's input files (the replay tests' clean-up). */
static inline void fuzz_input_remove(void)
{
    static const char *const exts[] = {"",     ".csv",  ".trace",
                                       ".swf", ".json", ".txt"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        unlink(fuzz_input_path(exts[i]));
}

/* Whether an error text of SIZE bytes is NUL-terminated and not empty. */
static inline int fuzz_text_ok(const char *text, size_t size)
{
    return memchr(text, '\0', size) != NULL && text[0] != '\0';
}

/* In a harness: aborts with the broken invariant when rc is not 0. */
static inline void fuzz_harness_check(int rc, const char *why)
{
    if (rc == 0)
        return;
    fprintf(stderr, "hetsim fuzz: invariant broken: %s\n", why);
    abort();
}

#endif
