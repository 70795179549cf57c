/* set_helpers.c -- see set_helpers.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "run_helpers.h"
#include "set_helpers.h"

struct lines {
    char **v;
    size_t n, cap;
};

static unsigned long long fnv_file(const char *path, long long *size)
{
    unsigned long long h = 14695981039346656037ull;
    FILE *f = fopen(path, "rb");
    *size = 0;
    int c;
    while (f && (c = getc(f)) != EOF) {
        h = (h ^ (unsigned char)c) * 1099511628211ull;
        (*size)++;
    }
    if (f)
        fclose(f);
    return h;
}

static void walk(const char *root, const char *rel, struct lines *l)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[1024], full[2048];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(root, sub, l);
            continue;
        }
        long long size = 0;
        unsigned long long h = 0;
        if (strcmp(e->d_name, "perf.json") != 0 &&
            strcmp(e->d_name, "report.html") != 0)
            h = fnv_file(full, &size);
        char line[1200];
        snprintf(line, sizeof line, "%s %lld %016llx\n", sub, size, h);
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->v = realloc(l->v, l->cap * sizeof *l->v);
            cr_assert_not_null(l->v);
        }
        l->v[l->n++] = strdup(line);
    }
    closedir(d);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *settest_fingerprint(const char *dir)
{
    struct lines l = {0};
    walk(dir, "", &l);
    qsort(l.v, l.n, sizeof *l.v, by_text);
    size_t len = 1;
    for (size_t i = 0; i < l.n; i++)
        len += strlen(l.v[i]);
    char *text = calloc(1, len);
    cr_assert_not_null(text);
    for (size_t i = 0; i < l.n; i++) {
        strcat(text, l.v[i]);
        free(l.v[i]);
    }
    free(l.v);
    return text;
}

/* The pid in ".NAME.tmp.PID" / ".NAME.old.PID", 0 for a lock, -1 when
 * NAME is no temporary. */
static long temp_pid(const char *name)
{
    if (name[0] != '.')
        return -1;
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".lock") == 0)
        return 0;
    const char *p = strstr(name, ".tmp");
    if (!p)
        p = strstr(name, ".old.");
    if (!p)
        return -1;
    p += 4;
    if (*p == '.')
        p++;
    return strtol(p, NULL, 10);
}

static void count_temps(const char *dir, const int *keep, int nkeep, int *kept,
                        char *first, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        long pid = temp_pid(e->d_name);
        int mine = 0;
        for (int i = 0; pid >= 0 && i < nkeep; i++)
            mine |= keep[i] == pid; /* 0 in KEEP: lock files */
        if (mine) {
            (*kept)++;
            continue; /* a killed process's: its insides do not matter */
        }
        if (pid >= 0) {
            if (!*n)
                snprintf(first, 256, "%.255s", path);
            (*n)++;
        }
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            count_temps(path, keep, nkeep, kept, first, n);
    }
    closedir(d);
}

int settest_temps(const char *dir, const int *keep, int nkeep, int *kept,
                  char *first)
{
    int n = 0, k = 0;
    first[0] = '\0';
    count_temps(dir, keep, nkeep, &k, first, &n);
    if (kept)
        *kept = k;
    return n;
}

int settest_run(const char *fault, const char *args, char *err)
{
    static char out[1 << 16];
    if (fault)
        setenv("HETSIM_FAULT", fault, 1);
    int rc = clitest_run(NULL, args, out, sizeof out, err, 1 << 16);
    unsetenv("HETSIM_FAULT");
    return rc;
}
