/* reader_cases.c -- the runner of reader cases as data (reader_cases.h). */
#include <criterion/criterion.h>

#include "reader_cases.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TCASE_MAX 256

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t tcase_list(const char *dir, const char *ext, char **names, size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    size_t n = 0, k = strlen(ext);
    cr_assert_not_null(d, "cannot open %s: %s", dir, strerror(errno));
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len > k + 1 && ent->d_name[len - k - 1] == '.' &&
            strcmp(ent->d_name + len - k, ext) == 0) {
            cr_assert_lt(n, max);
            names[n] = strdup(ent->d_name);
            names[n++][len - k - 1] = '\0';
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    return n;
}

void tcase_expect_error(const struct trace_error *e, const char *spec,
                        const char *where)
{
    long line, column;
    int used = 0;
    cr_assert_eq(sscanf(spec, "%ld:%ld:%n", &line, &column, &used), 2,
                 "%s: bad expectation \"%s\"", where, spec);
    const char *text = spec + used + (spec[used] == ' ');
    cr_expect(e->line == line && e->column == column && strstr(e->text, text),
              "%s: got %ld:%ld: %s, expected %s", where, e->line, e->column,
              e->text, spec);
}

int tcase_read_invalid(const char *expect_path, char *spec, size_t size)
{
    FILE *f = fopen(expect_path, "r");
    int flags = 0;
    cr_assert_not_null(f, "%s: cannot open", expect_path);
    spec[0] = '\0';
    while (fgets(spec, (int)size, f)) {
        if (strncmp(spec, "flags skip", 10) == 0)
            flags = TRACE_SKIP_BAD_ROWS;
        else if (spec[0] != '#')
            break;
    }
    fclose(f);
    spec[strcspn(spec, "\r\n")] = '\0';
    return flags;
}

/* Strips the line end and turns \n \r \t \\ escapes into their bytes. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r && *r != '\n' && *r != '\r'; r++) {
        if (*r == '\\' && r[1] && *++r != '\\')
            *w++ = *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r == 't' ? '\t' : *r;
        else
            *w++ = *r;
    }
    *w = '\0';
}

struct job_field {
    const char *name;
    int kind; /* 'f' double, 'i' integer, 's' pool index */
    double d;
    int64_t i;
};

/* A field of a job by name: 'f' with *d, 'i' with *i, or 's' with *i (a
 * pool index). */
static int job_field(const struct trace_job *j, const char *name, double *d,
                     int64_t *i)
{
    /* clang-format off */
#define DBL(m) {#m, 'f', j->m, 0}
#define INT(m) {#m, 'i', 0, j->m}
#define STR(name, m) {name, 's', 0, j->m}
    const struct job_field f[] = {
        DBL(submit_time), DBL(duration), DBL(gpu_mem_mb), DBL(params_m),
        DBL(learning_rate), DBL(est_duration), DBL(deadline), DBL(weight),
        DBL(slo), DBL(host_mem_mb), INT(iterations), INT(num_gpus),
        INT(gpu_milli), INT(priority), INT(batch_size), INT(layers),
        INT(input_dim), INT(cpu_milli), INT(line), STR("job_id", id),
        STR("job_type", job_type), STR("user", user),
        STR("gpu_type", gpu_types), STR("vc", vc), STR("model", model),
        STR("precision", precision), STR("optimizer", optimizer),
        STR("qos", qos), STR("status", status),
    };
#undef DBL
#undef INT
#undef STR
    /* clang-format on */
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        if (strcmp(f[k].name, name) == 0) {
            *d = f[k].d;
            *i = f[k].i;
            return f[k].kind;
        }
    }
    cr_assert_fail("unknown field %s", name);
    return 0;
}

static void expect_field(const struct trace *t, char *args, const char *where)
{
    char *idx = strtok(args, " "), *name = strtok(NULL, " ");
    char *value = strtok(NULL, ""), empty[1] = "";
    double d, want;
    int64_t i;
    cr_assert(idx && name, "%s: bad line", where);
    long k = strtol(idx, NULL, 10);
    k = k < 0 ? (long)t->njobs + k : k;
    cr_assert(k >= 0 && (size_t)k < t->njobs, "%s: job %ld of %zu", where, k,
              t->njobs);
    value = value ? value : empty;
    switch (job_field(&t->jobs[k], name, &d, &i)) {
    case 'f':
        want = strcmp(value, "nan") == 0 ? NAN : strtod(value, NULL);
        cr_expect(isnan(want) ? isnan(d) : memcmp(&d, &want, sizeof d) == 0,
                  "%s: %s is %.17g, expected %s", where, name, d, value);
        break;
    case 'i':
        cr_expect_eq(i, strtoll(value, NULL, 10), "%s: %s is %lld", where, name,
                     (long long)i);
        break;
    default:
        unescape(value);
        cr_expect_str_eq(trace_str(t, (uint32_t)i), value, "%s: %s is \"%s\"",
                         where, name, trace_str(t, (uint32_t)i));
    }
}

static void expect_ids(const struct trace *t, char *args, const char *where)
{
    size_t n = 0;
    for (char *id = strtok(args, " "); id; id = strtok(NULL, " "), n++) {
        cr_assert_lt(n, t->njobs, "%s: fewer jobs than ids", where);
        cr_expect_str_eq(trace_str(t, t->jobs[n].id), id, "%s: job %zu is %s",
                         where, n, trace_str(t, t->jobs[n].id));
    }
    cr_expect_eq(n, t->njobs, "%s: %zu jobs, %zu ids", where, t->njobs, n);
}

static void expect_sum(const struct trace *t, char *args, const char *where)
{
    char *name = strtok(args, " "), *value = strtok(NULL, " ");
    double sum = 0, d, want;
    int64_t i;
    cr_assert(name && value, "%s: bad line", where);
    for (size_t k = 0; k < t->njobs; k++)
        sum += job_field(&t->jobs[k], name, &d, &i) == 'f' ? d : (double)i;
    want = strtod(value, NULL);
    cr_expect(fabs(sum - want) <= 1e-12 * fabs(want), "%s: sum of %s is %.17g",
              where, name, sum);
}

static void expect_note(const struct trace *t, char *args, const char *where)
{
    char *end;
    size_t count = strtoul(args, &end, 10), k = 0;
    const char *text = end + (*end == ' ');
    while (k < t->nnotes && !strstr(t->notes[k].what, text))
        k++;
    cr_expect_lt(k, t->nnotes, "%s: no note \"%s\"", where, text);
    if (k < t->nnotes)
        cr_expect_eq(t->notes[k].count, count, "%s: note \"%s\" counts %zu",
                     where, t->notes[k].what, t->notes[k].count);
}

/* Runs one statement of a valid case's .expect. */
static void expect_line(const struct trace *t, const struct trace_error *e,
                        char *line, const char *where)
{
    char *rest = strchr(line, ' '), empty[1] = "";
    rest = rest ? (*rest = '\0', rest + 1) : empty;
    if (strcmp(line, "jobs") == 0)
        cr_expect_eq(t->njobs, strtoul(rest, NULL, 10), "%s: %zu", where,
                     t->njobs);
    else if (strcmp(line, "skipped") == 0)
        cr_expect_eq(t->rows_skipped, strtoul(rest, NULL, 10), "%s: %zu", where,
                     t->rows_skipped);
    else if (strcmp(line, "notes") == 0)
        cr_expect_eq(t->nnotes, strtoul(rest, NULL, 10), "%s: %zu", where,
                     t->nnotes);
    else if (strcmp(line, "first_skipped") == 0)
        tcase_expect_error(e, rest, where);
    else if (strcmp(line, "ids") == 0)
        expect_ids(t, rest, where);
    else if (strcmp(line, "num") == 0 || strcmp(line, "str") == 0)
        expect_field(t, rest, where);
    else if (strcmp(line, "sum") == 0)
        expect_sum(t, rest, where);
    else if (strcmp(line, "note") == 0)
        expect_note(t, rest, where);
    else if (strcmp(line, "flags") != 0)
        cr_assert_fail("%s: unknown statement %s", where, line);
}

static void check_valid(const char *dir, const char *name, const char *ext,
                        tcase_reader read)
{
    char path[2048], line[4096], where[600];
    struct trace *t = NULL;
    struct trace_error e;
    struct trace_options opt = {0, 0};
    snprintf(path, sizeof path, "%s/%s.expect", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: no .expect file", name);
    if (fgets(line, sizeof line, f) && strncmp(line, "flags skip", 10) == 0)
        opt.flags = TRACE_SKIP_BAD_ROWS;
    rewind(f);
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    int rc = read(path, &opt, &t, &e);
    cr_assert_eq(rc, 0, "%s: rc %d, %ld:%ld: %s", name, rc, e.line, e.column,
                 e.text);
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(where, sizeof where, "%s.expect:%d", name, n);
        if (line[0] != '#' && line[0] != '\0')
            expect_line(t, &e, line, where);
    }
    fclose(f);
    trace_destroy(t);
}

static void check_invalid(const char *dir, const char *name, const char *ext,
                          tcase_reader read)
{
    char path[2048], spec[4096];
    struct trace *t = (struct trace *)&t; /* must come back NULL */
    struct trace_error e;
    struct trace_options opt = {0, 0};
    snprintf(path, sizeof path, "%s/%s.expect", dir, name);
    opt.flags = tcase_read_invalid(path, spec, sizeof spec);
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    int rc = read(path, &opt, &t, &e);
    cr_expect_eq(rc, TRACE_EPARSE, "%s: rc %d", name, rc);
    cr_expect_null(t, "%s: *out not NULL", name);
    cr_expect_str_eq(e.source, path, "%s: source %s", name, e.source);
    tcase_expect_error(&e, spec, name);
}

void tcase_run(const char *format, const char *ext, tcase_reader read,
               size_t min_valid, size_t min_invalid)
{
    static const char *const kinds[] = {"valid", "invalid"};
    for (int k = 0; k < 2; k++) {
        char dir[1024], *names[TCASE_MAX];
        snprintf(dir, sizeof dir, "%s/%s/%s", HETSIM_TEST_DATA, format,
                 kinds[k]);
        size_t n = tcase_list(dir, ext, names, TCASE_MAX);
        size_t min = k ? min_invalid : min_valid;
        cr_expect_geq(n, min, "only %zu cases in %s", n, dir);
        for (size_t i = 0; i < n; i++) {
            if (k)
                check_invalid(dir, names[i], ext, read);
            else
                check_valid(dir, names[i], ext, read);
            free(names[i]);
        }
    }
}
