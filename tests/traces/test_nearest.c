/* test_nearest.c -- the nearest known name to a misspelt one (nearest.c),
 * and the native reader's unknown columns. Distances counted by hand. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "traces.h"

Test(nearest, edit_distance_counts_single_character_edits)
{
    cr_assert_eq(trace_edit_distance("gpu_types", 9, "gpu_type"), 1);
    cr_assert_eq(trace_edit_distance("kitten", 6, "sitting"), 3);
    cr_assert_eq(trace_edit_distance("", 0, "abc"), 3);
    cr_assert_eq(trace_edit_distance("same", 4, "same"), 0);
}

Test(nearest, names_a_close_name_and_none_for_a_far_one)
{
    static const char *const names[] = {"fifo", "sjf", "las", "gavel-108"};
    cr_assert_str_eq(trace_nearest_name("fifoo", 5, names, 4), "fifo");
    cr_assert_str_eq(trace_nearest_name("gavel108", 8, names, 4), "gavel-108");
    cr_assert_null(trace_nearest_name("zzzzzz", 6, names, 4));
    cr_assert_null(trace_nearest_name("fifo", 4, names, 4)); /* exact */
}

Test(nearest, native_unknown_column_is_a_warning_or_under_strict_an_error)
{
    char path[] = "/tmp/hetsim-nearest-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("job_id,submit_time,num_gpus,duration,gpu_mem_mbb\na,0,1,5,9\n", f);
    fclose(f);
    struct trace *t = NULL;
    struct trace_error e;
    cr_assert_eq(trace_read_native(path, 0, &t, &e), 0);
    cr_assert_eq(t->nwarnings, 1);
    cr_assert_eq(t->warnings[0].column, 5);
    cr_assert(strstr(t->warnings[0].text, "\"gpu_mem_mbb\" (did you mean "
                                          "\"gpu_mem_mb\"?)"));
    cr_assert_eq(t->njobs, 1);
    trace_destroy(t);
    cr_assert_eq(trace_read_native(path, TRACE_STRICT, &t, &e), TRACE_EPARSE);
    cr_assert_null(t);
    cr_assert_eq(e.line, 1);
    cr_assert_eq(e.column, 5);
    remove(path);
}
