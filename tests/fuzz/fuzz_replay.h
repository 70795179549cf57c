/* fuzz_replay.h -- what the replay tests of `make test` share: every file
 * of a corpus folder, in name order, handed to a callback that runs the
 * fuzz target on it (tests/traces/test_fuzz_replay.c,
 * tests/sim/test_cluster_fuzz_replay.c).
 *
 * Under AddressSanitizer a crash report ends with the name of the file
 * being replayed, so that a reproducer that still crashes is named. */
#ifndef HETSIM_FUZZ_REPLAY_H
#define HETSIM_FUZZ_REPLAY_H

#include "fuzz_input.h"

#include <dirent.h>
#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#define FUZZ_REPLAY_MAX_FILES 4096

typedef void (*fuzz_replay_fn)(void *ctx, const char *path, const uint8_t *data,
                               size_t size);

static inline char *fuzz_replaying(void)
{
    static char path[4096];
    return path;
}

static inline void fuzz_replay_died(void)
{
    fprintf(stderr, "fuzz replay: the input was %s\n", fuzz_replaying());
}

/* The whole of PATH in a new buffer (*data, free it; never NULL on success,
 * also for an empty file). 0 or -1. */
static inline int fuzz_read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (f && buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *more = realloc(buf, 2 * cap);
        if (!more) {
            free(buf);
            buf = NULL;
        } else {
            buf = more;
            cap *= 2;
        }
    }
    int bad = !f || !buf || ferror(f);
    if (f)
        fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

static inline int fuzz_compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Calls fn on each regular file of DIR whose name does not start with '.'.
 * Returns the number of files, or -1 when DIR cannot be opened or a file
 * cannot be read (as fn with data NULL, so that the test fails naming it). */
static inline long fuzz_replay_dir(const char *dir, fuzz_replay_fn fn,
                                   void *ctx)
{
    char *names[FUZZ_REPLAY_MAX_FILES];
    size_t n = 0;
    long done = 0;
    struct dirent *ent;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(fuzz_replay_died);
#endif
    while ((ent = readdir(d)) != NULL && n < FUZZ_REPLAY_MAX_FILES)
        if (ent->d_name[0] != '.' && (names[n] = strdup(ent->d_name)))
            n++;
    closedir(d);
    qsort(names, n, sizeof *names, fuzz_compare_names);
    for (size_t i = 0; i < n; i++) {
        char *path = fuzz_replaying();
        struct stat st;
        uint8_t *data = NULL;
        size_t size = 0;
        int len = snprintf(path, 4096, "%s/%s", dir, names[i]);
        free(names[i]);
        if (len < 0 || len >= 4096 || stat(path, &st) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (fuzz_read_file(path, &data, &size) != 0) {
            fn(ctx, path, NULL, 0);
            done = -1;
            continue;
        }
        fn(ctx, path, data, size);
        free(data);
        if (done >= 0)
            done++;
    }
    return done;
}

#endif
