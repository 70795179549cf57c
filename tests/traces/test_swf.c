/* test_swf.c -- the reader of the Standard Workload Format (Parallel
 * Workloads Archive): the cases of tests/data/swf/ and the shipped NASA Ames
 * iPSC/860 log, whose figures below were counted with awk, e.g.
 *   awk '!/^[ \t]*;/ && NF && $4 > 0 {n++; d += $4; g += $5 * $4}
 *        END {print n, d, g}' traces/swf/NASA-iPSC-1993-3.1-cln.swf */
#include <criterion/criterion.h>
#include "cases.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define NASA_LOG HETSIM_SOURCE_DIR "/traces/swf/NASA-iPSC-1993-3.1-cln.swf"
#define NOTE_NO_RUN "jobs with no run time (SWF run time -1 or 0): dropped"

Test(swf_reader, reads_every_valid_case_and_rejects_every_invalid_one)
{
    case_run_all("swf", "swf", TRACE_FMT_SWF, NULL, 4, 20);
}

static double sum_of(const struct trace *t, int field)
{
    double sum = 0;
    for (size_t i = 0; i < t->njobs; i++)
        sum += field == 0   ? t->jobs[i].duration
               : field == 1 ? t->jobs[i].submit_time
                            : (double)t->jobs[i].num_gpus;
    return sum;
}

/* 32 comment lines, 18,239 jobs; 173 have run time 0 (none -1), every job
 * has field 5, none lacks a submit time: 18,066 kept. */
Test(swf_reader, reads_the_shipped_nasa_ipsc_log_with_the_counts_of_awk)
{
    struct trace *t = case_read_ok(NASA_LOG, TRACE_FMT_AUTO, NULL);
    cr_assert_eq(t->format, TRACE_FMT_SWF);
    cr_assert_eq(t->njobs, 18066);
    cr_expect_eq(t->rows_skipped, 0);
    cr_expect_eq(t->nnotes, 1);
    cr_expect_eq(case_note_count(t, NOTE_NO_RUN), 173);
    cr_expect_eq(t->njobs + case_note_count(t, NOTE_NO_RUN), 18239);
    cr_expect_eq(sum_of(t, 0), 13950781.0);    /* run times */
    cr_expect_eq(sum_of(t, 1), 71763055463.0); /* submit times, min 0 */
    cr_expect_eq(sum_of(t, 2), 303638.0);      /* processors */
    cr_expect_eq(case_total_gpu_seconds(t), 474238015.0);
    const struct trace_job *first = &t->jobs[0], *last = &t->jobs[t->njobs - 1];
    cr_expect_str_eq(trace_str(t, first->id), "1");
    cr_expect(first->line == 33 && first->submit_time == 0 &&
              first->duration == 1451 && first->num_gpus == 128);
    cr_expect_str_eq(trace_str(t, first->user), "1");
    cr_expect_str_eq(trace_str(t, first->status), ""); /* -1 in this log */
    cr_expect_str_eq(trace_str(t, first->vc), "");
    cr_expect(isnan(first->est_duration));
    cr_expect_str_eq(trace_str(t, last->id), "42264");
    cr_expect(last->line == 18271 && last->submit_time == 7948936 &&
              last->duration == 86 && last->num_gpus == 128);
    cr_expect_str_eq(trace_str(t, last->user), "12");
    trace_destroy(t);
}

Test(swf_reader, turns_processors_into_gpus_with_procs_per_gpu)
{
    /* awk: g = int(($5 + 31) / 32); sum g = 20435, sum g * $4 = 19655454 */
    struct trace_options opt = {0, 32};
    struct trace *t = case_read_ok(NASA_LOG, TRACE_FMT_SWF, &opt);
    cr_assert_eq(t->njobs, 18066);
    cr_expect_eq(sum_of(t, 2), 20435.0);
    cr_expect_eq(case_total_gpu_seconds(t), 19655454.0);
    trace_destroy(t);
}

Test(swf_reader, takes_a_zeroed_procs_per_gpu_as_1_and_rejects_a_negative_one)
{
    struct trace_options zero = {0, 0}, negative = {0, -2};
    struct trace *t = case_read_ok(NASA_LOG, TRACE_FMT_SWF, &zero);
    cr_expect_eq(sum_of(t, 2), 303638.0);
    trace_destroy(t);
    t = NULL;
    struct trace_error e;
    cr_expect_eq(trace_read(NASA_LOG, TRACE_FMT_SWF, &negative, &t, &e),
                 TRACE_EPARSE);
    cr_expect_null(t);
    cr_expect(strstr(e.text, "procs_per_gpu") != NULL, "%s", e.text);
}

Test(swf_reader, reports_unreadable_paths_as_io_errors_at_line_0)
{
    const char *paths[] = {HETSIM_TEST_DATA "/swf/no_such_file.swf",
                           HETSIM_TEST_DATA "/swf"};
    const int errs[] = {ENOENT, EISDIR};
    for (int k = 0; k < 2; k++) {
        struct trace *t = NULL;
        struct trace_error e;
        cr_expect_eq(trace_read_swf(paths[k], NULL, &t, &e), TRACE_EIO);
        cr_expect_null(t);
        cr_expect_eq(e.line, 0);
        cr_expect_str_eq(e.text, strerror(errs[k]));
        cr_expect_str_eq(e.source, paths[k]);
    }
}
