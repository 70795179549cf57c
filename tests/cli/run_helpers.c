/* run_helpers.c -- see run_helpers.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "run_helpers.h"

void clitest_read_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
}

int clitest_run(const char *cwd, const char *args, char *out, size_t out_cap,
                char *err, size_t err_cap)
{
    char cmd[8192], out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "/tmp/hetsim-test-out.%d",
             (int)getpid());
    snprintf(err_path, sizeof err_path, "/tmp/hetsim-test-err.%d",
             (int)getpid());
    snprintf(cmd, sizeof cmd, "%s%s%s%s %s >%s 2>%s", cwd ? "cd " : "",
             cwd ? cwd : "", cwd ? " && " : "", HETSIM_BIN, args, out_path,
             err_path);
    int status = system(cmd);
    clitest_read_file(out_path, out, out_cap);
    clitest_read_file(err_path, err, err_cap);
    remove(out_path);
    remove(err_path);
    cr_assert(WIFEXITED(status), "hetsim did not exit: %s", args);
    return WEXITSTATUS(status);
}

void clitest_make_dir(char *dir, const char *prefix)
{
    snprintf(dir, 64, "/tmp/%s-XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(dir));
}

void clitest_remove_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

int clitest_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

void clitest_write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}
