/* cases.c -- reader cases as data for the format suites (test_philly.c,
 * test_swf.c, test_tiresias.c, ...), in the language of test_traces.c.
 *
 * tests/data/<format>/{valid,invalid}/<case>.<ext> with <case>.expect beside
 * it, written by hand or with awk. An .expect starts with option lines:
 *   flags skip            read with TRACE_SKIP_BAD_ROWS
 *   procs_per_gpu X       trace_options.procs_per_gpu
 * invalid: then one line "L:C: TEXT" (err.line, err.column, TEXT a substring
 * of err.text); the read must fail with TRACE_EPARSE and *out NULL.
 * valid: one statement a line, '#' for comments:
 *   jobs N | skipped N | notes N | format NAME | ids A B C...
 *   num I FIELD VALUE     job I (0-based; -1 the last) equals strtod(VALUE)
 *                         bit for bit ("nan" for NAN), strtoll(VALUE) for
 *                         integer fields
 *   str I FIELD TEXT      TEXT = rest of line, with \n \r \t \\ escapes
 *   sum FIELD X           sum over the jobs of a numeric field, within 1e-12
 *   total_gpu_seconds X   sum of num_gpus * duration, within 1e-12
 *   note N TEXT           the note TEXT counts N rows
 *   first_skipped L:C: TEXT   *err after a successful read */
#include <criterion/criterion.h>
#include "cases.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 256

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names (without ".ext") of the cases in dir, sorted; returns the count. */
static size_t list_cases(const char *dir, const char *ext, char **names)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    size_t n = 0, k = strlen(ext);
    cr_assert_not_null(d, "cannot open %s: %s", dir, strerror(errno));
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len > k + 1 && ent->d_name[len - k - 1] == '.' &&
            strcmp(ent->d_name + len - k, ext) == 0) {
            cr_assert_lt(n, MAX_CASES);
            names[n] = strdup(ent->d_name);
            names[n++][len - k - 1] = '\0';
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    return n;
}

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

/* A field of a job by name: 'f' with *d, 'i' with *i, or 's' with *i (a
 * pool index). */
static int job_field(const struct trace_job *j, const char *name, double *d,
                     int64_t *i)
{
    /* clang-format off */
#define DBL(m) {#m, 'f', j->m, 0}
#define INT(m) {#m, 'i', 0, j->m}
#define STR(name, m) {name, 's', 0, j->m}
    /* clang-format on */
    const struct {
        const char *name;
        int kind;
        double d;
        int64_t i;
    } f[] = {
        DBL(submit_time),
        DBL(duration),
        DBL(gpu_mem_mb),
        DBL(params_m),
        DBL(learning_rate),
        DBL(est_duration),
        DBL(deadline),
        DBL(weight),
        DBL(slo),
        DBL(host_mem_mb),
        INT(iterations),
        INT(num_gpus),
        INT(gpu_milli),
        INT(priority),
        INT(batch_size),
        INT(layers),
        INT(input_dim),
        INT(cpu_milli),
        INT(line),
        STR("job_id", id),
        STR("job_type", job_type),
        STR("gpu_type", gpu_types),
        STR("user", user),
        STR("vc", vc),
        STR("model", model),
        STR("precision", precision),
        STR("optimizer", optimizer),
        STR("qos", qos),
        STR("status", status),
    };
#undef DBL
#undef INT
#undef STR
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

static void expect_error(const struct trace_error *e, const char *spec,
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

double case_total_gpu_seconds(const struct trace *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->njobs; i++)
        sum += t->jobs[i].num_gpus * t->jobs[i].duration;
    return sum;
}

size_t case_note_count(const struct trace *t, const char *what)
{
    for (size_t i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i].what, what) == 0)
            return t->notes[i].count;
    return 0;
}

static void expect_near(double got, const char *want, const char *where)
{
    double w = strtod(want, NULL);
    cr_expect(fabs(got - w) <= 1e-12 * fabs(w), "%s: got %.17g", where, got);
}

static void expect_sum(const struct trace *t, char *args, const char *where)
{
    char *name = strtok(args, " "), *value = strtok(NULL, "");
    double sum = 0, d;
    int64_t i;
    cr_assert(name && value, "%s: bad line", where);
    for (size_t k = 0; k < t->njobs; k++)
        sum += job_field(&t->jobs[k], name, &d, &i) == 'f' ? d : (double)i;
    expect_near(sum, value, where);
}

static void expect_note(const struct trace *t, char *args, const char *where)
{
    char *count = strtok(args, " "), *what = strtok(NULL, "");
    cr_assert(count && what, "%s: bad line", where);
    cr_expect_eq(case_note_count(t, what), strtoul(count, NULL, 10),
                 "%s: note \"%s\" counts %zu", where, what,
                 case_note_count(t, what));
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
    else if (strcmp(line, "format") == 0)
        cr_expect_str_eq(trace_format_name(t->format), rest, "%s", where);
    else if (strcmp(line, "total_gpu_seconds") == 0)
        expect_near(case_total_gpu_seconds(t), rest, where);
    else if (strcmp(line, "sum") == 0)
        expect_sum(t, rest, where);
    else if (strcmp(line, "note") == 0)
        expect_note(t, rest, where);
    else if (strcmp(line, "first_skipped") == 0)
        expect_error(e, rest, where);
    else if (strcmp(line, "ids") == 0)
        expect_ids(t, rest, where);
    else if (strcmp(line, "num") == 0 || strcmp(line, "str") == 0)
        expect_field(t, rest, where);
    else if (strcmp(line, "flags") != 0 && strcmp(line, "procs_per_gpu") != 0)
        cr_assert_fail("%s: unknown statement %s", where, line);
}

/* Opens the .expect of a case, sets path to its input and *opt from its
 * option lines. */
static FILE *open_case(const char *dir, const char *kind, const char *name,
                       const char *ext, char *path, size_t size,
                       struct trace_options *opt)
{
    char expect[1024], line[256];
    snprintf(path, size, "%s/%s/%s/%s.%s", HETSIM_TEST_DATA, dir, kind, name,
             ext);
    snprintf(expect, sizeof expect, "%s/%s/%s/%s.expect", HETSIM_TEST_DATA, dir,
             kind, name);
    FILE *f = fopen(expect, "r");
    cr_assert_not_null(f, "%s: no .expect file", name);
    opt->flags = 0;
    opt->procs_per_gpu = 1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags skip", 10) == 0)
            opt->flags = TRACE_SKIP_BAD_ROWS;
        else if (strncmp(line, "procs_per_gpu ", 14) == 0)
            opt->procs_per_gpu = strtod(line + 14, NULL);
    }
    rewind(f);
    return f;
}

static void check_valid(const char *dir, const char *ext, enum trace_format fmt,
                        const char *name)
{
    char path[1024], line[4096], where[600];
    struct trace_options opt;
    struct trace *t = NULL;
    struct trace_error e;
    FILE *f = open_case(dir, "valid", name, ext, path, sizeof path, &opt);
    int rc = trace_read(path, fmt, &opt, &t, &e);
    cr_assert_eq(rc, 0, "%s: rc %d, %ld:%ld: %s", name, rc, e.line, e.column,
                 e.text);
    cr_expect_eq(t->format, fmt, "%s: format %d", name, (int)t->format);
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(where, sizeof where, "%s/%s.expect:%d", dir, name, n);
        if (line[0] != '#' && line[0] != '\0')
            expect_line(t, &e, line, where);
    }
    fclose(f);
    trace_destroy(t);
}

static void check_invalid(const char *dir, const char *ext,
                          enum trace_format fmt, const char *name)
{
    char path[1024], line[4096] = "", where[600];
    struct trace_options opt;
    struct trace *t = (struct trace *)&t; /* must come back NULL */
    struct trace_error e;
    FILE *f = open_case(dir, "invalid", name, ext, path, sizeof path, &opt);
    while (fgets(line, sizeof line, f) &&
           (strncmp(line, "flags", 5) == 0 ||
            strncmp(line, "procs_per_gpu", 13) == 0))
        ;
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    snprintf(where, sizeof where, "%s/%s", dir, name);
    int rc = trace_read(path, fmt, &opt, &t, &e);
    cr_expect_eq(rc, TRACE_EPARSE, "%s: rc %d", where, rc);
    cr_expect_null(t, "%s: *out not NULL", where);
    cr_expect_str_eq(e.source, path, "%s: source %s", where, e.source);
    expect_error(&e, line, where);
}

void case_run_all(const char *dir, const char *ext, enum trace_format f,
                  size_t min_valid, size_t min_invalid)
{
    char path[1024], *names[MAX_CASES];
    size_t n;
    snprintf(path, sizeof path, "%s/%s/valid", HETSIM_TEST_DATA, dir);
    n = list_cases(path, ext, names);
    cr_assert_geq(n, min_valid, "only %zu cases in %s", n, path);
    for (size_t i = 0; i < n; i++) {
        check_valid(dir, ext, f, names[i]);
        free(names[i]);
    }
    snprintf(path, sizeof path, "%s/%s/invalid", HETSIM_TEST_DATA, dir);
    n = list_cases(path, ext, names);
    cr_assert_geq(n, min_invalid, "only %zu cases in %s", n, path);
    for (size_t i = 0; i < n; i++) {
        check_invalid(dir, ext, f, names[i]);
        free(names[i]);
    }
}

struct trace *case_read_ok(const char *path, enum trace_format f,
                           const struct trace_options *opt)
{
    struct trace *t = NULL;
    struct trace_error e;
    int rc = trace_read(path, f, opt, &t, &e);
    cr_assert_eq(rc, 0, "%s: rc %d, %ld:%ld: %s", path, rc, e.line, e.column,
                 e.text);
    return t;
}
