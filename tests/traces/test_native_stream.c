/* test_native_stream.c -- a native trace streamed row by row
 * (trace_native_next, whose plain rows take the one-pass path of
 * traces/native_fast.c) gives the same numbers, bit for bit, the same texts
 * and lines, and the same errors as the whole-trace reader
 * (trace_read_native), whose values and errors the other suites pin. The
 * rows below mix plain rows with every kind of row the fast path leaves to
 * the general one. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces.h"

#define HEADER                                                                 \
    "job_id,submit_time,num_gpus,duration,est_duration,priority,iterations,"   \
    "gpu_type\n"

/* Writes TEXT, then N generated rows (plain but for gpu_type "A|B" in a
 * third of them), to a temporary file; returns its path (static buffer). */
static const char *write_trace(const char *text, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/hetsim-native-stream-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    for (size_t i = 0; i < n; i++) /* past the reader's 1 MB buffer */
        fprintf(f, "g%zu,%zu.%03zu,%zu,%zu.%zu,,,,%s\n", i, 1000 + i,
                (i * 7919) % 1000, 1 + i % 8, 1 + (i * 31) % 100000,
                (i * 13) % 10, i % 3 ? "" : "A|B");
    cr_assert_eq(fclose(f), 0);
    return path;
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Streams PATH and compares each row with the whole read's job. */
static void expect_same_jobs(const char *path, size_t want)
{
    struct trace *whole = NULL;
    struct trace_error err = {0};
    cr_assert_eq(trace_read_native(path, 0, &whole, &err), 0, "%s:%ld: %s",
                 err.source, err.line, err.text);
    cr_assert_eq(whole->njobs, want);
    struct trace_native *n = NULL;
    cr_assert_eq(trace_native_open(path, 0, &n, &err), 0);
    struct trace_job job;
    size_t i = 0;
    int rc;
    while ((rc = trace_native_next(n, &job, &err)) == 1) {
        const struct trace_job *w = &whole->jobs[i++];
        char types[64];
        cr_assert(same_double(job.submit_time, w->submit_time), "line %u",
                  w->line);
        cr_assert(same_double(job.duration, w->duration), "line %u", w->line);
        cr_assert(same_double(job.est_duration, w->est_duration), "line %u",
                  w->line);
        cr_assert_eq(job.num_gpus, w->num_gpus, "line %u", w->line);
        cr_assert_eq(job.priority, w->priority, "line %u", w->line);
        cr_assert_eq(job.iterations, w->iterations, "line %u", w->line);
        cr_assert_eq(job.line, w->line);
        cr_assert_str_eq(trace_native_text(n, "gpu_type", types, sizeof types),
                         trace_str(whole, w->gpu_types), "line %u", w->line);
    }
    cr_assert_eq(rc, 0, "%s:%ld: %s", err.source, err.line, err.text);
    cr_assert_eq(i, want);
    trace_native_close(n);
    trace_destroy(whole);
    unlink(path);
}

Test(native_stream, plain_and_other_rows_read_as_the_whole_trace_reads_them)
{
    const char *rows =
        HEADER "b0,2.158,1,21141.809,,,,\n"
               "b1,7.255,2,9707.320,100,3,1000,A\n"
               "\"b2\",8,1,5,,,,\n"    /* quoted */
               "b3, 9,1,5,,,,\n"       /* a blank */
               "b4,1e1,1,5,,,,\n"      /* an exponent */
               "b5,10.,1,.5,,,,\n"     /* digits on one side only */
               "b6,11,01,5.000,,,,B\n" /* a leading zero */
               "b7,12,2.0,5,,,,\n"     /* an integer written 2.0 */
               "b8,13,1,1234.56789012345678901,,,,\n"   /* 21 digits */
               "b9,14,1,0.1234567890123456789,,,,\n"    /* 20 digits */
               "b10,15,1,900719925474.0993,,,,\n"       /* digits above 2^53 */
               "b11,16,1,5,,-3,,\n"                     /* a sign */
               "b12,17,1,5,,,,A\r\n"                    /* CRLF */
               "b13,18,1,999999999999999.9,,,,\n"       /* just below 1e15 */
               "b14,19,1,1000000000000000,,,,\n"        /* 1e15 itself */
               "b15,20,1,0.000000000000000000001,,,,\n" /* 21 fraction digits */
               "\n"                                     /* a blank line */
               "b16,21,1,3.25,,+4,007,\"A|B\"\n" /* quotes in the last field */
               "b17,22,1,7,2.5,,,\n";
    expect_same_jobs(write_trace(rows, 60000), 18 + 60000);
}

Test(native_stream, a_last_row_without_a_line_end_reads_the_same)
{
    expect_same_jobs(write_trace(HEADER "b0,1,1,2,,,,\nb1,2,1,3.5,,,,", 0), 2);
}

/* The error of the whole read and of the stream for one bad row. */
static void expect_same_error(const char *bad_row)
{
    char text[512];
    snprintf(text, sizeof text, "%sa0,1,1,5,,,,\n%s\n", HEADER, bad_row);
    const char *path = write_trace(text, 0);
    struct trace *whole = NULL;
    struct trace_error we = {0}, se = {0};
    int wrc = trace_read_native(path, 0, &whole, &we);
    cr_assert_neq(wrc, 0, "%s reads", bad_row);
    struct trace_native *n = NULL;
    cr_assert_eq(trace_native_open(path, 0, &n, &se), 0);
    struct trace_job job;
    int src;
    while ((src = trace_native_next(n, &job, &se)) == 1)
        ;
    cr_expect_eq(src, wrc, "%s", bad_row);
    cr_expect_eq(se.line, we.line, "%s", bad_row);
    cr_expect_eq(se.column, we.column, "%s", bad_row);
    cr_expect_str_eq(se.text, we.text, "%s", bad_row);
    trace_native_close(n);
    unlink(path);
}

Test(native_stream, bad_rows_fail_with_the_whole_readers_errors)
{
    static const char *const bad[] = {
        "a1,5,0,5,,,,",
        "a1,-1,1,5,,,,",
        "a1,5,1,0,,,,",
        "a1,5,1,2e15,,,,",
        "a1,5,1,2000000000000000,,,,",
        ",5,1,5,,,,",
        "a1,5,1,,,,,",
        "a1,,1,5,,,,",
        "a1,5,,5,,,,",
        "a1,5,1",
        "a1,5,1,5,,,,,",
        "a1,5,x,5,,,,",
        "a1,5,1,.,,,,",
        "a1,5,1,5,,,0,",
        "a1,5,3000000000,5,,,,",
        "a1,5,1,5,,1.5,,",
        "a1,5,1,\"5,,,,",
        "a1,5,1,5,-2,,,",
        "a1,5,1,5 x,,,,",
        "a1,5,1,5,,99999999999,,",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_same_error(bad[i]);
}
