/* test_tiresias.c -- the reader of the Tiresias simulator's job CSV: the
 * cases of tests/data/tiresias/ and the shipped 60_job.csv, whose figures
 * below were counted with awk:
 *   awk -F, 'NR > 1 {n++; g += $2; d += $6; gs += $2 * $6; it += $4;
 *            s += $3} END {print n, g, d, gs, it, s}' 60_job.csv
 *   -> 60 170 10705 26624 43825 52710 */
#include <criterion/criterion.h>
#include "cases.h"

#include <string.h>

#define SIXTY_JOBS HETSIM_SOURCE_DIR "/traces/tiresias/60_job.csv"

Test(tiresias_reader, reads_every_valid_case_and_rejects_every_invalid_one)
{
    case_run_all("tiresias", "csv", TRACE_FMT_TIRESIAS, NULL, 4, 15);
}

Test(tiresias_reader, reads_the_shipped_60_job_csv_with_the_counts_of_awk)
{
    struct trace *t = case_read_ok(SIXTY_JOBS, TRACE_FMT_AUTO, NULL);
    double gpus = 0, duration = 0, submit = 0, iterations = 0;
    cr_assert_eq(t->format, TRACE_FMT_TIRESIAS);
    cr_assert_eq(t->njobs, 60);
    cr_expect_eq(t->rows_skipped, 0);
    cr_expect_eq(t->nnotes, 0);
    for (size_t i = 0; i < t->njobs; i++) {
        gpus += t->jobs[i].num_gpus;
        duration += t->jobs[i].duration;
        submit += t->jobs[i].submit_time;
        iterations += (double)t->jobs[i].iterations;
    }
    cr_expect_eq(gpus, 170.0);
    cr_expect_eq(duration, 10705.0);
    cr_expect_eq(submit, 52710.0);
    cr_expect_eq(iterations, 43825.0);
    cr_expect_eq(case_total_gpu_seconds(t), 26624.0);
    /* first row 0,1,0,606,vgg19,164,30; last 59,1,1779,525,inception3,122,33 */
    const struct trace_job *a = &t->jobs[0], *z = &t->jobs[59];
    cr_expect_str_eq(trace_str(t, a->id), "0");
    cr_expect(a->num_gpus == 1 && a->submit_time == 0 && a->iterations == 606 &&
              a->duration == 164 && a->line == 2);
    cr_expect_str_eq(trace_str(t, a->model), "vgg19");
    cr_expect_eq(a->job_type, a->model);
    cr_expect_str_eq(trace_str(t, z->id), "59");
    cr_expect(z->num_gpus == 1 && z->submit_time == 1779 &&
              z->iterations == 525 && z->duration == 122 && z->line == 61);
    cr_expect_str_eq(trace_str(t, z->model), "inception3");
    /* 10 models, 6 jobs each: pooled once, so equal names share an index */
    size_t distinct = 0;
    for (size_t i = 0; i < t->njobs; i++) {
        size_t k = 0;
        while (k < i && t->jobs[k].model != t->jobs[i].model)
            k++;
        distinct += k == i;
    }
    cr_expect_eq(distinct, 10);
    trace_destroy(t);
}

Test(tiresias_reader, reports_unreadable_paths_as_io_errors_at_line_0)
{
    struct trace *t = NULL;
    struct trace_error e;
    cr_expect_eq(trace_read_tiresias(HETSIM_TEST_DATA "/tiresias/none.csv",
                                     NULL, &t, &e),
                 TRACE_EIO);
    cr_expect_null(t);
    cr_expect_eq(e.line, 0);
    cr_expect_eq(e.column, 0);
}
