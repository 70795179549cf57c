/* test_philly.c -- the reader of the Philly-derived CSV
 * (timestamp,duration,num_gpus,gpu_time,cluster).
 *
 * No Philly sample may be shipped, so the cases are our own fixtures in the
 * exact schema (tests/data/philly/); expected times come from `date -u` and
 * from a day-by-day calendar walk written here, apart from the reader's
 * days-from-civil arithmetic. */
#include <criterion/criterion.h>
#include "cases.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PHILLY_DIR HETSIM_TEST_DATA "/philly"

Test(philly_reader, reads_every_valid_case_and_rejects_every_invalid_one)
{
    case_run_all("philly", "csv", TRACE_FMT_PHILLY, NULL, 5, 30);
}

Test(philly_reader, is_chosen_by_detection_and_by_name)
{
    enum trace_format f = TRACE_FMT_AUTO;
    struct trace_error e;
    cr_assert_eq(trace_detect_format(PHILLY_DIR "/valid/basic.csv", &f, &e), 0);
    cr_expect_eq(f, TRACE_FMT_PHILLY);
    struct trace *t =
        case_read_ok(PHILLY_DIR "/valid/basic.csv", TRACE_FMT_AUTO, NULL);
    cr_expect_eq(t->njobs, 5);
    cr_expect_eq(t->format, TRACE_FMT_PHILLY);
    trace_destroy(t);
}

static int is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Every day from 1970-01-01 to 2200-12-31, each at a time of its own, read
 * back as seconds since 1970 (the first row, 1970-01-01 00:00:00, is the
 * earliest, so relative times are absolute ones). The expected values come
 * from walking the calendar one day at a time. */
Test(philly_reader, converts_every_day_of_231_years_like_a_calendar_walk)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
    char path[4096];
    FILE *f = case_temp_file(path, sizeof path);
    int64_t day = 0;
    size_t n = 0;
    fputs("timestamp,duration,num_gpus,gpu_time,cluster\n", f);
    fputs("1970-01-01 00:00:00,1,1,1,c\n", f);
    for (int y = 1970; y <= 2200; y++)
        for (int m = 1; m <= 12; m++)
            for (int d = 1; d <= mdays[m - 1] + (m == 2 && is_leap(y)); d++) {
                int64_t s = (day * 7919) % 86400;
                fprintf(f, "%04d-%02d-%02d %02d:%02d:%02d,1,1,1,c\n", y, m, d,
                        (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
                day++;
            }
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_PHILLY);
    cr_assert_eq(t->njobs, (size_t)day + 1);
    for (n = 1; n < t->njobs; n++) {
        int64_t d = (int64_t)n - 1;
        double want = (double)(d * 86400 + (d * 7919) % 86400);
        cr_assert_eq(t->jobs[n].submit_time, want, "day %lld: %.17g",
                     (long long)d, t->jobs[n].submit_time);
    }
    /* 2200-12-31 is day 84370 (`date -u -d 2200-12-31 +%s` / 86400). */
    cr_expect_eq(day - 1, 84370);
    trace_destroy(t);
}

Test(philly_reader, keeps_absolute_seconds_exact_for_a_known_instant)
{
    char path[4096];
    FILE *f = case_temp_file(path, sizeof path);
    /* `date -u -d '2017-10-03 12:00:00' +%s` = 1507032000 */
    fputs("timestamp,duration,num_gpus,gpu_time,cluster\n"
          "2017-10-03 12:00:00,1,1,1,c\n1970-01-01 00:00:00,1,1,1,c\n",
          f);
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_PHILLY);
    cr_expect_eq(t->jobs[0].submit_time, 1507032000.0);
    cr_expect_eq(t->jobs[1].submit_time, 0.0);
    trace_destroy(t);
}

Test(philly_reader, reports_unreadable_paths_as_io_errors_at_line_0)
{
    struct trace *t = NULL;
    struct trace_error e;
    const char *path = PHILLY_DIR "/no_such_file.csv";
    cr_expect_eq(trace_read_philly(path, NULL, &t, &e), TRACE_EIO);
    cr_expect_null(t);
    cr_expect_eq(e.line, 0);
    cr_expect_str_eq(e.text, strerror(ENOENT));
    cr_expect_eq(trace_read_philly(PHILLY_DIR, NULL, &t, &e), TRACE_EIO);
    cr_expect_str_eq(e.text, strerror(EISDIR));
}

/* 20,000 rows in reverse time order: the earliest is the last row. */
Test(philly_reader, subtracts_the_earliest_time_even_when_it_comes_last)
{
    char path[4096];
    const int n = 20000;
    FILE *f = case_temp_file(path, sizeof path);
    fputs("timestamp,duration,num_gpus,gpu_time,cluster\n", f);
    for (int i = n - 1; i >= 0; i--)
        fprintf(f, "2019-06-%02d 00:%02d:%02d,%d,%d,%d,vc%d\n", 1 + i / 3600,
                (i / 60) % 60, i % 60, 1 + i % 50, 1 + i % 4,
                (1 + i % 50) * (1 + i % 4), i % 3);
    fclose(f);
    struct trace *t = case_read_temp(path, TRACE_FMT_PHILLY);
    cr_assert_eq(t->njobs, (size_t)n);
    for (int k = 0; k < n; k++) {
        int i = n - 1 - k;
        double want =
            (double)((i / 3600) * 86400 + (i / 60 % 60) * 60 + i % 60);
        cr_assert_eq(t->jobs[k].submit_time, want, "row %d", k);
    }
    cr_expect_str_eq(trace_str(t, t->jobs[n - 1].id), "philly-20001");
    cr_expect_eq(t->jobs[0].vc, t->jobs[3].vc); /* pooled once */
    trace_destroy(t);
}
