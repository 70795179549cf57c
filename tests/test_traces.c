/* test_traces.c -- the native CSV trace reader.
 *
 * Reader cases are data: tests/data/native/{valid,invalid}/<case>.csv with
 * <case>.expect beside it; adding a case is adding two files. Either kind of
 * .expect may start with "flags skip" (read with TRACE_SKIP_BAD_ROWS).
 * invalid: one line "L:C: TEXT" -- err.line, err.column, and TEXT is a
 * substring of err.text. valid: one statement a line, '#' for comments:
 *   jobs N | skipped N | ids A B C...  (every job id, in order)
 *   num I FIELD VALUE     job I (0-based) equals strtod(VALUE) bit for bit,
 *                         strtoll(VALUE) for integer fields; "nan" for NAN
 *   str I FIELD TEXT      TEXT = rest of line, with \n \r \t \\ escapes
 *   total_gpu_seconds X   sum of num_gpus * duration
 *   first_skipped L:C: TEXT   *err after a successful read
 * Large inputs (10 MB lines, 100,000 rows, block boundaries) are generated
 * into temporary files by the tests. */
#include <criterion/criterion.h>
#include "traces.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HETSIM_TEST_DATA
#define HETSIM_TEST_DATA "tests/data"
#endif
#define NATIVE_DIR HETSIM_TEST_DATA "/native"
#define MAX_CASES 512
#define CSV_BLOCK (1 << 20) /* the reader's block size; see csv.c */

/* ---- data-driven cases ------------------------------------------------ */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names (without ".csv") of the cases in dir, sorted; returns the count. */
static size_t list_cases(const char *dir, char **names, size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    size_t n = 0;
    cr_assert_not_null(d, "cannot open %s: %s", dir, strerror(errno));
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len > 4 && strcmp(ent->d_name + len - 4, ".csv") == 0) {
            cr_assert_lt(n, max);
            names[n] = strdup(ent->d_name);
            names[n++][len - 4] = '\0';
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    return n;
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

/* A field of a job by its column name: returns 'f' with *d (a double), 'i'
 * with *i (an integer) or 's' with *i (a pool index). */
static int job_field(const struct trace_job *j, const char *name, double *d,
                     int64_t *i)
{
#define DBL(m) {#m, 'f', j->m, 0}
#define INT(m) {#m, 'i', 0, j->m}
#define STR(name, m) {name, 's', 0, j->m}
    const struct { const char *name; int kind; double d; int64_t i; } f[] = {
        DBL(submit_time), DBL(duration), DBL(gpu_mem_mb), DBL(params_m),
        DBL(learning_rate), INT(iterations), INT(num_gpus), INT(gpu_milli),
        INT(priority), INT(batch_size), INT(layers), INT(input_dim), INT(line),
        STR("job_id", id), STR("job_type", job_type), STR("user", user),
        STR("gpu_type", gpu_types), STR("vc", vc), STR("model", model),
        STR("precision", precision), STR("optimizer", optimizer),
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

/* Checks "L:C: TEXT" against an error record. */
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

/* "I FIELD VALUE": doubles must equal strtod(VALUE) bit for bit (so -0 is
 * not 0), integers strtoll(VALUE), strings the unescaped rest of the line. */
static void expect_field(const struct trace *t, char *args, const char *where)
{
    char *idx = strtok(args, " "), *name = strtok(NULL, " ");
    char *value = strtok(NULL, ""), empty[1] = "";
    double d, want;
    int64_t i;
    cr_assert(idx && name, "%s: bad line", where);
    size_t k = (size_t)strtoul(idx, NULL, 10);
    cr_assert_lt(k, t->njobs, "%s: job %zu of %zu", where, k, t->njobs);
    value = value ? value : empty;
    switch (job_field(&t->jobs[k], name, &d, &i)) {
    case 'f':
        want = strcmp(value, "nan") == 0 ? NAN : strtod(value, NULL);
        cr_expect(isnan(want) ? isnan(d) : memcmp(&d, &want, sizeof d) == 0,
                  "%s: %s is %.17g, expected %s", where, name, d, value);
        break;
    case 'i':
        cr_expect_eq(i, strtoll(value, NULL, 10), "%s: %s is %lld", where,
                     name, (long long)i);
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

static double total_gpu_seconds(const struct trace *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->njobs; i++)
        sum += t->jobs[i].num_gpus * t->jobs[i].duration;
    return sum;
}

/* Runs one statement of a valid case's .expect. */
static void expect_line(const struct trace *t, const struct trace_error *e,
                        char *line, const char *where)
{
    char *rest = strchr(line, ' '), empty[1] = "";
    rest = rest ? (*rest = '\0', rest + 1) : empty;
    if (strcmp(line, "jobs") == 0 || strcmp(line, "skipped") == 0) {
        size_t got = line[0] == 'j' ? t->njobs : t->rows_skipped;
        cr_expect_eq(got, strtoul(rest, NULL, 10), "%s: %zu", where, got);
    } else if (strcmp(line, "total_gpu_seconds") == 0)
        cr_expect(fabs(total_gpu_seconds(t) - strtod(rest, NULL)) <=
                      1e-12 * fabs(strtod(rest, NULL)),
                  "%s: total %.17g", where, total_gpu_seconds(t));
    else if (strcmp(line, "first_skipped") == 0)
        expect_error(e, rest, where);
    else if (strcmp(line, "ids") == 0)
        expect_ids(t, rest, where);
    else if (strcmp(line, "num") == 0 || strcmp(line, "str") == 0)
        expect_field(t, rest, where);
    else if (strcmp(line, "flags") != 0)
        cr_assert_fail("%s: unknown statement %s", where, line);
}

/* Opens the .expect of a case, sets csv to the path of its .csv and *flags
 * from its "flags" line. */
static FILE *open_case(const char *kind, const char *name, char *csv,
                       size_t size, int *flags)
{
    char path[1024], line[64];
    snprintf(csv, size, "%s/%s/%s.csv", NATIVE_DIR, kind, name);
    snprintf(path, sizeof path, "%s/%s/%s.expect", NATIVE_DIR, kind, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: no .expect file", name);
    *flags = fgets(line, sizeof line, f) && strncmp(line, "flags skip", 10) == 0
                 ? TRACE_SKIP_BAD_ROWS
                 : 0;
    rewind(f);
    return f;
}

static void check_valid_case(const char *name)
{
    char csv[1024], line[4096], where[600];
    struct trace *t = NULL;
    struct trace_error e;
    int flags;
    FILE *f = open_case("valid", name, csv, sizeof csv, &flags);
    int rc = trace_read_native(csv, flags, &t, &e);
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

static void check_invalid_case(const char *name)
{
    char csv[1024], line[4096] = "";
    struct trace *t = (struct trace *)&t; /* must come back NULL */
    struct trace_error e;
    int flags;
    FILE *f = open_case("invalid", name, csv, sizeof csv, &flags);
    while (fgets(line, sizeof line, f) && strncmp(line, "flags", 5) == 0)
        ;
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    int rc = trace_read_native(csv, flags, &t, &e);
    cr_expect_eq(rc, TRACE_EPARSE, "%s: rc %d", name, rc);
    cr_expect_null(t, "%s: *out not NULL", name);
    cr_expect_str_eq(e.source, csv, "%s: source %s", name, e.source);
    expect_error(&e, line, name);
}

static void run_cases(const char *kind, size_t at_least,
                      void (*check)(const char *))
{
    char dir[1024], *names[MAX_CASES];
    snprintf(dir, sizeof dir, "%s/%s", NATIVE_DIR, kind);
    size_t n = list_cases(dir, names, MAX_CASES);
    cr_assert_geq(n, at_least, "only %zu cases in %s", n, dir);
    for (size_t i = 0; i < n; i++) {
        check(names[i]);
        free(names[i]);
    }
}

Test(native_reader, reads_every_valid_case_as_expected)
{
    run_cases("valid", 10, check_valid_case);
}

Test(native_reader, rejects_every_invalid_case_at_its_line_and_column)
{
    run_cases("invalid", 30, check_invalid_case);
}

/* A new temporary file; its name goes to path (PATH_MAX-sized). */
static FILE *temp_file(char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/hetsim_traces_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    FILE *f = fdopen(fd, "wb");
    cr_assert_not_null(f);
    return f;
}

/* Reads a file that must be valid; a generated one (remove) is deleted
 * before anything can fail, so that no 10 MB file is left behind. */
static struct trace *read_ok(const char *path, int remove)
{
    struct trace *t = NULL;
    struct trace_error e;
    int rc = trace_read_native(path, 0, &t, &e);
    if (remove)
        unlink(path);
    cr_assert_eq(rc, 0, "rc %d, %ld:%ld: %s", rc, e.line, e.column, e.text);
    return t;
}

Test(native_reader, reports_unreadable_paths_as_io_errors_at_line_0)
{
    const char *paths[] = {NATIVE_DIR "/no_such_file.csv", NATIVE_DIR};
    const int errs[] = {ENOENT, EISDIR};
    for (int k = 0; k < 2; k++) {
        struct trace *t = NULL;
        struct trace_error e;
        cr_expect_eq(trace_read_native(paths[k], 0, &t, &e), TRACE_EIO);
        cr_expect_null(t);
        cr_expect_eq(e.line, 0, "%s: line %ld", paths[k], e.line);
        cr_expect_eq(e.column, 0);
        cr_expect_str_eq(e.text, strerror(errs[k]));
        cr_expect_str_eq(e.source, paths[k]);
    }
}

Test(native_reader, accepts_a_null_error_record)
{
    struct trace *t = NULL;
    const char *bad = NATIVE_DIR "/invalid/header_only.csv";
    const char *good = NATIVE_DIR "/valid/bom.csv";
    cr_expect_eq(trace_read_native(bad, 0, &t, NULL), TRACE_EPARSE);
    cr_expect_null(t);
    cr_expect_eq(trace_read_native(good, 0, &t, NULL), 0);
    trace_destroy(t);
}

/* ---- generated inputs -------------------------------------------------- */

#define TEN_MB (10u << 20)
Test(native_reader, reads_a_10_mb_unquoted_field)
{
    char path[4096];
    FILE *f = temp_file(path, sizeof path);
    fputs("job_id,submit_time,num_gpus,duration,job_type\nbig,0,1,1,", f);
    for (unsigned i = 0; i < TEN_MB; i++)
        fputc('a' + (int)(i % 26), f);
    fputs("\nsmall,1,1,1,x\n", f);
    fclose(f);
    struct trace *t = read_ok(path, 1);
    cr_assert_eq(t->njobs, 2);
    const char *s = trace_str(t, t->jobs[0].job_type);
    cr_expect_eq(strlen(s), TEN_MB);
    cr_expect_eq(s[TEN_MB - 1], 'a' + (int)((TEN_MB - 1) % 26));
    cr_expect_str_eq(trace_str(t, t->jobs[1].id), "small");
    cr_expect_eq(t->jobs[1].line, 3);
    trace_destroy(t);
}

Test(native_reader, reads_a_10_mb_quoted_field_with_newlines_and_escapes)
{
    char path[4096];
    const unsigned n = TEN_MB / 6; /* x""y\n is 6 bytes in the file */
    FILE *f = temp_file(path, sizeof path);
    fputs("job_id,submit_time,num_gpus,duration,user\nbig,0,1,1,\"", f);
    for (unsigned i = 0; i < n; i++)
        fputs("x\"\"y\n", f);
    fputs("\"\r\nafter,1,1,1,u\n", f);
    fclose(f);
    struct trace *t = read_ok(path, 1);
    cr_assert_eq(t->njobs, 2);
    const char *s = trace_str(t, t->jobs[0].user);
    cr_expect_eq(strlen(s), 4 * (size_t)n);
    cr_expect_eq(memcmp(s, "x\"y\nx\"y\n", 8), 0);
    cr_expect_eq(memcmp(s + 4 * (size_t)n - 4, "x\"y\n", 4), 0);
    cr_expect_eq(t->jobs[1].line, 3 + n, "line %u", t->jobs[1].line);
    trace_destroy(t);
}

Test(native_reader, reads_a_header_of_500000_unknown_columns)
{
    char path[4096];
    const int n = 500000;
    FILE *f = temp_file(path, sizeof path);
    for (int i = 0; i < n; i++)
        fprintf(f, "c%d,", i);
    fputs("duration,num_gpus,submit_time,job_id\n", f);
    for (int i = 0; i < n; i++)
        fputs("0,", f);
    fputs("5,2,1,wide\n", f);
    fclose(f);
    struct trace *t = read_ok(path, 1);
    cr_assert_eq(t->njobs, 1);
    cr_expect_str_eq(trace_str(t, t->jobs[0].id), "wide");
    cr_expect_eq(t->jobs[0].duration, 5.0);
    trace_destroy(t);
}

Test(native_reader, reads_100000_generated_rows_with_exact_sums)
{
    char path[4096], id[32];
    const int n = 100000;
    long long quarters = 0, gpus = 0, half_seconds = 0, got_gpus = 0;
    FILE *f = temp_file(path, sizeof path);
    fputs("job_id,submit_time,num_gpus,duration,job_type\n", f);
    for (int i = 0; i < n; i++) {
        int g = 1 + i % 8, d = 10 + i % 100;
        /* Quotes, escapes and CRLF on some rows, so that block boundaries
         * fall inside every kind of token somewhere in the file. */
        if (i % 7 == 0)
            fprintf(f, "\"j%06d\",%d.%d,%d,%d.25,\"t,\"\"%d\"\"\"\r\n", i,
                    i / 2, (i % 2) * 5, g, d, i % 3);
        else
            fprintf(f, "j%06d,%d.%d,%d,%d.25,t%d\n", i, i / 2, (i % 2) * 5, g,
                    d, i % 3);
        quarters += (long long)g * (4 * d + 1); /* duration d.25 = (4d+1)/4 */
        gpus += g;
        half_seconds += i;
    }
    fclose(f);
    struct trace *t = read_ok(path, 1);
    cr_assert_eq(t->njobs, (size_t)n);
    double submit = 0;
    for (int i = 0; i < n; i++) {
        submit += t->jobs[i].submit_time;
        got_gpus += t->jobs[i].num_gpus;
        snprintf(id, sizeof id, "j%06d", i);
        cr_assert_str_eq(trace_str(t, t->jobs[i].id), id);
        cr_assert_eq(t->jobs[i].line, (uint32_t)i + 2);
    }
    cr_expect_eq(got_gpus, gpus);
    cr_expect(submit == (double)half_seconds / 2, "submit %.17g", submit);
    cr_expect(total_gpu_seconds(t) == (double)quarters / 4, "total %.17g",
              total_gpu_seconds(t));
    cr_expect_str_eq(trace_str(t, t->jobs[7].job_type), "t,\"1\"");
    cr_expect_str_eq(trace_str(t, t->jobs[8].job_type), "t2");
    cr_expect_eq(t->jobs[0].job_type, t->jobs[21].job_type); /* pooled once */
    trace_destroy(t);
}

Test(native_reader, reads_a_record_split_at_every_offset_by_a_block_boundary)
{
    static const char head[] = "job_id,submit_time,num_gpus,duration,"
                               "user,job_type\nt1,0,1,1,x,";
    /* A lone \r inside unquoted text, "" escapes, CRLF inside quotes. */
    static const char tricky[] = "\"t2\",1,2,3,u\rv,\"a,\"\"b\"\"\r\nc\"\r\n";
    for (size_t k = 0; k <= strlen(tricky) + 1; k++) {
        char path[4096];
        FILE *f = temp_file(path, sizeof path);
        fputs(head, f); /* padding in job_type puts tricky at CSV_BLOCK - k */
        for (size_t i = strlen(head) + 1 + k; i < CSV_BLOCK; i++)
            fputc('p', f);
        fprintf(f, "\n%s\r\nt3,2,1,1,z,\n", tricky); /* a blank line first */
        fclose(f);
        struct trace *t = read_ok(path, 1);
        cr_assert_eq(t->njobs, 3, "k=%zu", k);
        const struct trace_job *j = &t->jobs[1];
        cr_expect_str_eq(trace_str(t, j->user), "u\rv", "k=%zu", k);
        cr_expect_str_eq(trace_str(t, j->job_type), "a,\"b\"\r\nc", "k=%zu", k);
        cr_expect(j->num_gpus == 2 && j->line == 3 && t->jobs[2].line == 6,
                  "k=%zu", k);
        cr_expect_str_eq(trace_str(t, t->jobs[2].user), "z", "k=%zu", k);
        trace_destroy(t);
    }
}

Test(native_reader, survives_random_bytes_with_a_clean_result_or_error)
{
    static const char alphabet[] = ",\"\n\r\0a1.e- 9x|";
    uint64_t seed = 12345;
    for (int round = 0; round < 300; round++) {
        char path[4096];
        FILE *f = temp_file(path, sizeof path);
        if (round % 2)
            fputs("job_id,submit_time,num_gpus,duration\n", f);
        for (int i = 0; i < 120; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            fputc(alphabet[(seed >> 33) % (sizeof alphabet - 1)], f);
        }
        fclose(f);
        for (int flags = 0; flags <= TRACE_SKIP_BAD_ROWS; flags++) {
            struct trace *t = NULL;
            struct trace_error e;
            int rc = trace_read_native(path, flags, &t, &e);
            cr_expect(rc == 0 ? t && t->njobs >= 1
                              : rc == TRACE_EPARSE && !t && e.text[0],
                      "round %d flags %d: rc %d", round, flags, rc);
            trace_destroy(t);
        }
        unlink(path);
    }
}

/* ---- the trace object -------------------------------------------------- */

Test(trace_api, strerror_names_every_code)
{
    cr_expect_str_eq(trace_strerror(0), "success");
    cr_expect_str_eq(trace_strerror(TRACE_EIO), "cannot read file");
    cr_expect_str_eq(trace_strerror(TRACE_EPARSE), "malformed trace");
    cr_expect_str_eq(trace_strerror(TRACE_ENOMEM), "out of memory");
    cr_expect_str_eq(trace_strerror(TRACE_EFORMAT), "unknown trace format");
    cr_expect_str_eq(trace_strerror(-999), "unknown error");
}

Test(trace_api, destroy_of_null_is_a_no_op)
{
    trace_destroy(NULL);
}

Test(trace_api, nostr_is_the_empty_string)
{
    struct trace *t = read_ok(NATIVE_DIR "/valid/bom.csv", 0);
    cr_expect_str_eq(trace_str(t, TRACE_NOSTR), "");
    cr_expect_str_eq(trace_str(t, t->jobs[0].user), "");
    cr_expect_str_eq(trace_str(NULL, 5), "");
    trace_destroy(t);
}
