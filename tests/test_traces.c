/* test_traces.c -- the native CSV trace reader.
 *
 * Reader cases are data: tests/data/native/{valid,invalid}/<case>.csv with
 * <case>.expect beside it (the language is in traces/cases.h); adding a case
 * is adding two files. Large inputs (10 MB lines, 100,000 rows, block
 * boundaries) are generated into temporary files by the tests. */
#include <criterion/criterion.h>
#include "traces/cases.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NATIVE_DIR HETSIM_TEST_DATA "/native"
#define CSV_BLOCK (1 << 20) /* the reader's block size; see csv.c */

/* ---- data-driven cases ------------------------------------------------ */

/* trace_read_native with the options of a case. */
static int read_native(const char *path, const struct trace_options *opt,
                       struct trace **out, struct trace_error *err)
{
    return trace_read_native(path, opt->flags, out, err);
}

static const struct case_target native = {CASE_TRACE, TRACE_FMT_NATIVE,
                                          read_native};

Test(native_reader, reads_every_valid_case_as_expected)
{
    case_run("native", "valid", "csv", &native, 10);
}

Test(native_reader, rejects_every_invalid_case_at_its_line_and_column)
{
    case_run("native", "invalid", "csv", &native, 30);
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
    FILE *f = case_temp_file(path, sizeof path);
    fputs("job_id,submit_time,num_gpus,duration,job_type\nbig,0,1,1,", f);
    for (unsigned i = 0; i < TEN_MB; i++)
        fputc('a' + (int)(i % 26), f);
    fputs("\nsmall,1,1,1,x\n", f);
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_NATIVE);
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
    FILE *f = case_temp_file(path, sizeof path);
    fputs("job_id,submit_time,num_gpus,duration,user\nbig,0,1,1,\"", f);
    for (unsigned i = 0; i < n; i++)
        fputs("x\"\"y\n", f);
    fputs("\"\r\nafter,1,1,1,u\n", f);
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_NATIVE);
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
    FILE *f = case_temp_file(path, sizeof path);
    for (int i = 0; i < n; i++)
        fprintf(f, "c%d,", i);
    fputs("duration,num_gpus,submit_time,job_id\n", f);
    for (int i = 0; i < n; i++)
        fputs("0,", f);
    fputs("5,2,1,wide\n", f);
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_NATIVE);
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
    FILE *f = case_temp_file(path, sizeof path);
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
    struct trace *t = case_read_temp(path, TRACE_FMT_NATIVE);
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
    cr_expect(case_total_gpu_seconds(t) == (double)quarters / 4, "total %.17g",
              case_total_gpu_seconds(t));
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
        FILE *f = case_temp_file(path, sizeof path);
        fputs(head, f); /* padding in job_type puts tricky at CSV_BLOCK - k */
        for (size_t i = strlen(head) + 1 + k; i < CSV_BLOCK; i++)
            fputc('p', f);
        fprintf(f, "\n%s\r\nt3,2,1,1,z,\n", tricky); /* a blank line first */
        fclose(f);
        struct trace *t = case_read_temp(path, TRACE_FMT_NATIVE);
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
        FILE *f = case_temp_file(path, sizeof path);
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
    struct trace *t =
        case_read_ok(NATIVE_DIR "/valid/bom.csv", TRACE_FMT_NATIVE, NULL);
    cr_expect_str_eq(trace_str(t, TRACE_NOSTR), "");
    cr_expect_str_eq(trace_str(t, t->jobs[0].user), "");
    cr_expect_str_eq(trace_str(NULL, 5), "");
    trace_destroy(t);
}
