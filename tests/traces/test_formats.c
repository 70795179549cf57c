/* test_formats.c -- format names, detection (one fixture a format in
 * tests/data/formats/), the trace_read dispatcher, the columns the native
 * reader gained with it, and the notes and job defaults the readers share. */
#include <criterion/criterion.h>
#include "cases.h"
#include "traces_internal.h" /* trace_note, trace_job_defaults */

#include <errno.h>
#include <math.h>
#include <string.h>

#define FORMATS_DIR HETSIM_TEST_DATA "/formats"

Test(trace_formats, names_and_parses_every_format)
{
    static const char *const names[TRACE_FMT_COUNT] = {
        "auto", "native", "gavel", "philly", "alibaba2023", "swf", "tiresias"};
    for (int f = 0; f < TRACE_FMT_COUNT; f++) {
        cr_expect_str_eq(trace_format_name((enum trace_format)f), names[f]);
        cr_expect_eq(trace_format_parse(names[f]), f);
    }
    cr_expect_eq(trace_format_parse("Philly"), -1);
    cr_expect_eq(trace_format_parse(""), -1);
    cr_expect_eq(trace_format_parse(NULL), -1);
    cr_expect_str_eq(trace_format_name(TRACE_FMT_COUNT), "unknown");
    cr_expect_str_eq(trace_format_name((enum trace_format) - 1), "unknown");
}

static void expect_detected(const char *path, enum trace_format want)
{
    enum trace_format got = TRACE_FMT_AUTO;
    struct trace_error e;
    int rc = trace_detect_format(path, &got, &e);
    cr_expect_eq(rc, 0, "%s: rc %d, %s", path, rc, e.text);
    cr_expect_eq(got, want, "%s: detected %s, expected %s", path,
                 trace_format_name(got), trace_format_name(want));
}

Test(trace_formats, detects_native_from_its_required_columns)
{
    expect_detected(FORMATS_DIR "/native.csv", TRACE_FMT_NATIVE);
    expect_detected(FORMATS_DIR "/native_bom_blank_lines.csv",
                    TRACE_FMT_NATIVE);
    expect_detected(HETSIM_SOURCE_DIR "/traces/gavel/msr-seed0-6214e9.csv",
                    TRACE_FMT_NATIVE);
}

Test(trace_formats, detects_gavel_from_7_or_10_tabbed_fields_or_dot_trace)
{
    expect_detected(FORMATS_DIR "/gavel_msr.txt", TRACE_FMT_GAVEL);
    expect_detected(FORMATS_DIR "/gavel_physical.txt", TRACE_FMT_GAVEL);
    expect_detected(FORMATS_DIR "/by_extension.trace", TRACE_FMT_GAVEL);
    expect_detected(HETSIM_SOURCE_DIR "/traces/gavel/msr/seed=0/6214e9.trace",
                    TRACE_FMT_GAVEL);
}

Test(trace_formats, detects_philly_from_its_header_as_published)
{
    enum trace_format got;
    expect_detected(FORMATS_DIR "/philly.csv", TRACE_FMT_PHILLY);
    /* The same columns in another order are not the published header. */
    cr_expect_eq(
        trace_detect_format(FORMATS_DIR "/philly_reordered.csv", &got, NULL),
        TRACE_EFORMAT);
}

Test(trace_formats, detects_alibaba2023_from_the_start_of_its_header)
{
    expect_detected(FORMATS_DIR "/alibaba.csv", TRACE_FMT_ALIBABA2023);
}

Test(trace_formats, detects_swf_from_comments_numbers_or_dot_swf)
{
    expect_detected(FORMATS_DIR "/swf_header.txt", TRACE_FMT_SWF);
    expect_detected(FORMATS_DIR "/swf_no_header.txt", TRACE_FMT_SWF);
    expect_detected(FORMATS_DIR "/by_extension.swf", TRACE_FMT_SWF);
    expect_detected(HETSIM_SOURCE_DIR "/traces/swf/NASA-iPSC-1993-3.1-cln.swf",
                    TRACE_FMT_SWF);
}

Test(trace_formats, detects_tiresias_from_its_seven_columns_in_any_order)
{
    expect_detected(FORMATS_DIR "/tiresias.csv", TRACE_FMT_TIRESIAS);
    expect_detected(HETSIM_SOURCE_DIR "/traces/tiresias/60_job.csv",
                    TRACE_FMT_TIRESIAS);
}

Test(trace_formats, names_the_formats_and_the_flag_when_it_cannot_tell)
{
    enum trace_format got = TRACE_FMT_NATIVE;
    struct trace_error e;
    struct trace *t = (struct trace *)&t;
    const char *path = FORMATS_DIR "/unknown.csv";
    cr_assert_eq(trace_detect_format(path, &got, &e), TRACE_EFORMAT);
    cr_expect_eq(got, TRACE_FMT_AUTO);
    cr_expect_eq(e.line, 1);
    cr_expect_str_eq(e.source, path);
    cr_expect(strstr(e.text, "native, gavel, philly, alibaba2023, swf, "
                             "tiresias") &&
                  strstr(e.text, "--format"),
              "%s", e.text);
    /* trace_read passes the same error on. */
    cr_expect_eq(trace_read(path, TRACE_FMT_AUTO, NULL, &t, &e), TRACE_EFORMAT);
    cr_expect_null(t);
    cr_expect(strstr(e.text, "--format") != NULL);
    /* A file of blank lines has no first line to go by. */
    cr_expect_eq(trace_detect_format(FORMATS_DIR "/blank.csv", &got, &e),
                 TRACE_EFORMAT);
    cr_expect_eq(e.line, 0);
    cr_expect(strstr(e.text, "empty") != NULL, "%s", e.text);
}

Test(trace_formats, reports_unreadable_paths_as_io_errors)
{
    enum trace_format got;
    struct trace_error e;
    struct trace *t = NULL;
    cr_expect_eq(trace_detect_format(FORMATS_DIR "/none.csv", &got, &e),
                 TRACE_EIO);
    cr_expect_str_eq(e.text, strerror(ENOENT));
    cr_expect_eq(trace_detect_format(FORMATS_DIR, &got, &e), TRACE_EIO);
    cr_expect_str_eq(e.text, strerror(EISDIR));
    cr_expect_eq(
        trace_read(FORMATS_DIR "/none.trace", TRACE_FMT_AUTO, NULL, &t, &e),
        TRACE_EIO);
    cr_expect_null(t);
}

Test(trace_formats, reads_each_detected_format_through_trace_read)
{
    static const struct {
        const char *path;
        enum trace_format format;
        size_t njobs;
    } cases[] = {
        {FORMATS_DIR "/native.csv", TRACE_FMT_NATIVE, 1},
        {FORMATS_DIR "/philly.csv", TRACE_FMT_PHILLY, 1},
        {FORMATS_DIR "/swf_header.txt", TRACE_FMT_SWF, 1},
        {FORMATS_DIR "/tiresias.csv", TRACE_FMT_TIRESIAS, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct trace *t = case_read_ok(cases[i].path, TRACE_FMT_AUTO, NULL);
        cr_expect_eq(t->format, cases[i].format, "%s", cases[i].path);
        cr_expect_eq(t->njobs, cases[i].njobs, "%s", cases[i].path);
        trace_destroy(t);
    }
}

Test(trace_formats, rejects_a_format_out_of_range)
{
    struct trace *t = NULL;
    struct trace_error e;
    cr_expect_eq(
        trace_read(FORMATS_DIR "/native.csv", TRACE_FMT_COUNT, NULL, &t, &e),
        TRACE_EFORMAT);
    cr_expect_null(t);
    cr_expect(strstr(e.text, "native, gavel") != NULL, "%s", e.text);
}

/* ---- the native reader through trace_read ------------------------------ */

Test(native_reader, reads_every_case_through_trace_read_too)
{
    case_run_all("native", "csv", TRACE_FMT_NATIVE, NULL, 20, 40);
}

Test(native_reader, reads_the_new_optional_columns)
{
    struct trace *t = case_read_ok(
        HETSIM_TEST_DATA "/native/valid/new_columns.csv", TRACE_FMT_AUTO, NULL);
    const struct trace_job *j = t->jobs;
    cr_assert_eq(t->njobs, 3);
    cr_expect_eq(t->format, TRACE_FMT_NATIVE);
    cr_expect(j[0].est_duration == 120 && j[0].deadline == 500 &&
              j[0].weight == 2 && j[0].cpu_milli == 4000 &&
              j[0].host_mem_mb == 16384.5);
    cr_expect_str_eq(trace_str(t, j[0].qos), "LS");
    cr_expect_str_eq(trace_str(t, j[0].status), "Succeeded");
    /* empty cells: the defaults */
    cr_expect(isnan(j[1].est_duration) && isnan(j[1].deadline) &&
              isnan(j[1].weight) && j[1].cpu_milli == -1 &&
              isnan(j[1].host_mem_mb) && isnan(j[1].slo));
    cr_expect(j[1].qos == TRACE_NOSTR && j[1].status == TRACE_NOSTR);
    /* the smallest values allowed */
    cr_expect(j[2].est_duration == 0.5 && j[2].deadline == 0 &&
              j[2].weight == 0.25 && j[2].cpu_milli == 0 &&
              j[2].host_mem_mb == 1);
    cr_expect_str_eq(trace_str(t, j[2].qos), "BE");
    cr_expect_str_eq(trace_str(t, j[2].status), "Failed");
    cr_expect_eq(t->nnotes, 0);
    trace_destroy(t);
}

/* ---- what the readers share (traces_internal.h) ------------------------ */

Test(trace_build, counts_notes_by_text_and_refuses_a_ninth)
{
    static const char *const what[TRACE_MAX_NOTES + 1] = {
        "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
    struct trace *t = trace_create();
    char again[] = "n3"; /* told apart by text, not by address */
    cr_assert_not_null(t);
    for (int i = 0; i < TRACE_MAX_NOTES; i++)
        cr_expect_eq(trace_note(t, what[i]), 0);
    cr_expect_eq(trace_note(t, again), 0);
    cr_expect_eq(trace_note(t, what[TRACE_MAX_NOTES]), -1);
    cr_expect_eq(t->nnotes, TRACE_MAX_NOTES);
    cr_expect_eq(t->notes[3].count, 2);
    cr_expect_eq(t->notes[3].what, what[3]);
    cr_expect_eq(t->notes[0].count, 1);
    trace_destroy(t);
}

Test(trace_build, job_defaults_mark_every_field_missing)
{
    const struct trace_job *d = &trace_job_defaults;
    cr_expect(isnan(d->submit_time) && isnan(d->duration) &&
              isnan(d->gpu_mem_mb) && isnan(d->params_m) &&
              isnan(d->learning_rate) && isnan(d->est_duration) &&
              isnan(d->deadline) && isnan(d->weight) && isnan(d->slo) &&
              isnan(d->host_mem_mb));
    cr_expect(d->iterations == -1 && d->num_gpus == -1 && d->batch_size == -1 &&
              d->layers == -1 && d->input_dim == -1 && d->cpu_milli == -1);
    cr_expect(d->gpu_milli == 1000 && d->priority == 0);
    cr_expect(d->id == TRACE_NOSTR && d->job_type == TRACE_NOSTR &&
              d->vc == TRACE_NOSTR && d->qos == TRACE_NOSTR &&
              d->status == TRACE_NOSTR && d->line == 0);
}
