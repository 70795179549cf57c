/* compare_prep.c -- what `hetsim compare` does before its runs: every
 * run checked (`hetsim run --dry-run`) so that nothing runs unless all
 * would start, and what an earlier compare left in --out removed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "compare_internal.h"
#include "procpool.h"

/* The exit code of a failed child: its own, or CLI_FAILURE. */
static int child_code(const struct cli_pool_done *d)
{
    if (WIFEXITED(d->status) && WEXITSTATUS(d->status) != 0)
        return WEXITSTATUS(d->status);
    return CLI_FAILURE;
}

int cmp_check_all(const struct cmp_options *o)
{
    struct cli_pool *pool = cli_pool_create((size_t)o->jobs);
    if (!pool) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    static char shown[2048]; /* the warnings shown last: said once */
    shown[0] = '\0';
    size_t next = 0;
    int rc = CLI_OK;
    while (next < o->npolicies || cli_pool_running(pool) > 0) {
        if (next < o->npolicies && !cli_pool_full(pool)) {
            char out[4096];
            const char *args[CMP_MAX_PASS + 16];
            cmp_run_args(o, next, 1, out, sizeof out, args);
            if (cli_pool_spawn(pool, args, next) != 0) {
                cli_error("policy %s: cannot start `hetsim run`: %s",
                          o->label[next], strerror(errno));
                rc = CLI_FAILURE;
            }
            next++;
            continue;
        }
        struct cli_pool_done d;
        if (cli_pool_wait(pool, &d) != 0) {
            cli_error("waitpid: %s", strerror(errno));
            rc = CLI_FAILURE;
            break;
        }
        if (!cli_pool_ok(&d)) {
            char what[256];
            snprintf(what, sizeof what, "policy %s", o->label[d.tag]);
            cli_pool_report(what, "run --dry-run", &d);
            if (rc == CLI_OK)
                rc = child_code(&d);
        } else if (d.text[0] && strcmp(d.text, shown) != 0) {
            fprintf(stderr, "%s\n", d.text); /* its warnings, once */
            snprintf(shown, sizeof shown, "%s", d.text);
        }
    }
    cli_pool_destroy(pool);
    return rc;
}

/* Whether NAME is a file an earlier compare wrote into its folder. */
static int compare_file(const char *name)
{
    static const char *const charts[] = {"jct_cdf", "jct_bars", "makespan",
                                         "utilization"};
    static const char *const exts[] = {".gp", ".png", ".svg"};
    if (strcmp(name, "compare.csv") == 0 || strcmp(name, "report.html") == 0)
        return 1;
    for (size_t i = 0; i < sizeof charts / sizeof charts[0]; i++) {
        size_t n = strlen(charts[i]);
        if (strncmp(name, charts[i], n) != 0)
            continue;
        for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++)
            if (strcmp(name + n, exts[e]) == 0)
                return 1;
    }
    return 0;
}

/* Removes the run folder PATH: its plain files, then itself (a folder
 * holding anything else is left, with a warning). */
static int remove_run(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char file[8192 + 512];
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (lstat(file, &st) == 0 && S_ISREG(st.st_mode))
            rc |= unlink(file);
    }
    closedir(d);
    if (rc || rmdir(path) != 0) {
        cli_warn("%s: left in place: it holds more than an earlier run's "
                 "files",
                 path);
        return -1;
    }
    return 0;
}

int cmp_clean_out(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        cli_error("%s: cannot read: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096 + 512], summary[4096 + 600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0)
            continue;
        snprintf(summary, sizeof summary, "%s/summary.json", path);
        if (S_ISREG(st.st_mode) && compare_file(e->d_name)) {
            if (unlink(path) != 0) {
                cli_error("%s: cannot remove: %s", path, strerror(errno));
                rc = -1;
            }
        } else if (S_ISDIR(st.st_mode) && access(summary, F_OK) == 0)
            (void)remove_run(path);
    }
    closedir(d);
    return rc;
}
