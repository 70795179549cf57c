/* io.c -- files of a reproduction: generated traces, whole result sets. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment_internal.h"

int exp_write_gavel_trace(const char *path, const struct trace_throughputs *m,
                          const struct exp_gavel_gen *g, char *err,
                          size_t errlen)
{
    struct exp_gavel_job *jobs =
        malloc((g->njobs ? g->njobs : 1) * sizeof *jobs);
    if (!jobs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (exp_gavel_generate(m, g, jobs, err, errlen) != 0) {
        free(jobs);
        return -1;
    }
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int rc = f ? exp_gavel_write(f, jobs, g->njobs) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(jobs);
    return rc;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int exp_remove_tree(const char *dir)
{
    if (access(dir, F_OK) != 0)
        return 0;
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int exp_dir_swap(const char *tmp, const char *dir)
{
    char old[4300];
    snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
    int had_old = access(dir, F_OK) == 0;
    if (had_old && rename(dir, old) != 0)
        return -1;
    if (rename(tmp, dir) != 0) {
        int e = errno;
        if (had_old)
            rename(old, dir);
        errno = e;
        return -1;
    }
    if (had_old)
        exp_remove_tree(old);
    return 0;
}
