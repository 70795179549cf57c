/* test_streaming.c -- the streaming run of `hetsim run` (docs/streaming.md)
 * against the whole-trace run (HETSIM_STREAM=0), which the golden suite
 * pins independently: byte-identical summary.json on the shipped traces
 * (as native CSV) and on a generated trace of 100,000 jobs, from a file and
 * from a pipe, and with --outputs jobs byte-identical jobs.csv; perf.json
 * says which path ran; an unsorted pipe is an error with the line, an
 * unsorted file falls back to the whole-trace run. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_helpers.h"

#define BIG (1 << 16)

static char out[BIG], err[BIG];

/* Runs fifo on TRACE (a file, or "| CMD": CMD's output piped) and CLUSTER
 * into DIR/NAME with --outputs OUTPUTS, streamed, or (WHOLE 1) not, or
 * (WHOLE 2) streamed with the trace's rows read and jobs.csv's rows
 * formatted by the run's own thread (stream_read.c, rows_writer.c);
 * returns the exit code.
 * clitest_run runs `hetsim ARGS`: a harmless --version comes first, then
 * the command line proper. */
static int run_fifo(const char *dir, const char *name, const char *trace,
                    const char *cluster, int whole, const char *outputs)
{
    char cmd[8192];
    int pipe = trace[0] == '|';
    snprintf(cmd, sizeof cmd,
             "--version >/dev/null; %s %s %s%s run -q --trace %s --format "
             "native --cluster %s --policy fifo --outputs %s --out %s/%s",
             pipe ? trace + 1 : "", pipe ? "|" : "",
             whole == 1   ? "HETSIM_STREAM=0 "
             : whole == 2 ? "HETSIM_WRITER_THREAD=0 HETSIM_READER_THREAD=0 "
                          : "",
             HETSIM_BIN, pipe ? "/dev/stdin" : trace, cluster, outputs, dir,
             name);
    return clitest_run(NULL, cmd, out, sizeof out, err, sizeof err);
}

static char *slurp(const char *dir, const char *name, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", dir, name, file);
    char *buf = malloc(BIG);
    clitest_read_file(path, buf, BIG);
    return buf;
}

/* Whether DIR/s/FILE and DIR/w/FILE hold the same bytes (both there). */
static int same_file(const char *dir, const char *file)
{
    char a[512], b[512], ba[4096], bb[4096];
    snprintf(a, sizeof a, "%s/s/%s", dir, file);
    snprintf(b, sizeof b, "%s/w/%s", dir, file);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        size_t na = fread(ba, 1, sizeof ba, fa),
               nb = fread(bb, 1, sizeof bb, fb);
        same = na == nb && memcmp(ba, bb, na) == 0;
        if (na == 0)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Streams TRACE on CLUSTER and runs it whole, with --outputs OUTPUTS
 * (summary, jobs or all); the summaries match, with jobs and all the
 * jobs.csv, and with all the timeline.csv (its frag_gpus column replayed
 * after the streamed run against the whole trace's job mix). */
static void same_both_ways(const char *dir, const char *trace,
                           const char *cluster, const char *outputs)
{
    cr_assert_eq(run_fifo(dir, "s", trace, cluster, 0, outputs), 0, "%s", err);
    cr_assert_eq(run_fifo(dir, "w", trace, cluster, 1, outputs), 0, "%s", err);
    char path[256];
    int all = strcmp(outputs, "all") == 0;
    int jobs = all || strcmp(outputs, "jobs") == 0;
    /* summary.json, perf.json, with jobs jobs.csv, with all timeline.csv */
    snprintf(path, sizeof path, "%s/s/jobs.csv", dir);
    cr_assert_eq(access(path, F_OK) == 0, jobs, "%s", path);
    snprintf(path, sizeof path, "%s/s/timeline.csv", dir);
    cr_assert_eq(access(path, F_OK) == 0, all, "%s", path);
    if (jobs)
        cr_assert(same_file(dir, "jobs.csv"), "jobs.csv of %s", trace);
    if (all)
        cr_assert(same_file(dir, "timeline.csv"), "timeline.csv of %s", trace);
    char *s = slurp(dir, "s", "summary.json"),
         *w = slurp(dir, "w", "summary.json");
    char *ps = slurp(dir, "s", "perf.json"), *pw = slurp(dir, "w", "perf.json");
    cr_assert(strstr(s, "\"makespan_s\""), "%s", s);
    cr_assert_str_eq(s, w, "%s on %s", trace, cluster);
    cr_assert(strstr(ps, "\"run_path\":\t\"streaming\""), "%s", ps);
    cr_assert(strstr(pw, "\"run_path\":\t\"whole-trace\""), "%s", pw);
    free(s);
    free(w);
    free(ps);
    free(pw);
}

/* The rows of DIR/s/timeline.csv whose frag_gpus is above 0, among its
 * first *ROWS lines (the header one of them), *ROWS then the lines read. */
static size_t fragmented_rows(const char *dir, size_t *rows)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/s/timeline.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f != NULL, "%s", path);
    size_t n = 0, fragmented = 0;
    while (n < *rows && fgets(line, sizeof line, f)) {
        const char *comma = strrchr(line, ',');
        n++;
        fragmented += n > 1 && comma && strtod(comma + 1, NULL) > 0;
    }
    fclose(f);
    *rows = n;
    return fragmented;
}

static const char *const outputs[] = {"summary", "jobs", "all"};

/* With --outputs jobs, jobs.csv too (its rows written as jobs retire); with
 * all (the default), timeline.csv too. */
Test(streaming, shipped_traces_give_the_whole_runs_summary_and_jobs)
{
    char dir[64], trace[512], cmd[2048];
    clitest_make_dir(dir, "hetsim-stream");
    /* the other shipped traces that replay on whole GPUs, as native CSV */
    static const char *const others[][2] = {
        {"tiresias/60_job.csv", "philly-like"},
        {"swf/NASA-iPSC-1993-3.1-cln.swf", "philly-like"},
    };
    for (size_t i = 0; i < 2; i++) {
        snprintf(trace, sizeof trace, "%s/t%zu.csv", dir, i);
        snprintf(cmd, sizeof cmd, "trace convert %s/traces/%s -o %s",
                 HETSIM_SOURCE_DIR, others[i][0], trace);
        cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err),
                     0, "%s", err);
    }
    for (size_t k = 0; k < 3; k++) {
        same_both_ways(dir,
                       HETSIM_SOURCE_DIR "/traces/gavel/msr-seed0-6214e9.csv",
                       "gavel-108", outputs[k]);
        snprintf(cmd, sizeof cmd, "| cat %s",
                 HETSIM_SOURCE_DIR "/traces/gavel/msr-seed0-6214e9.csv");
        same_both_ways(dir, cmd, "gavel-108", outputs[k]);
        for (size_t i = 0; i < 2; i++) {
            snprintf(trace, sizeof trace, "%s/t%zu.csv", dir, i);
            same_both_ways(dir, trace, others[i][1], outputs[k]);
        }
    }
    clitest_remove_dir(dir);
}

/* 100,000 jobs of 1 to 8 GPUs at load 0.9 on three GPU types: the
 * fragmentation, quantiles and sums of summary.json all agree, and so do
 * the rows of jobs.csv and timeline.csv (whose kept rows and the
 * fragmentation's log outgrow their blocks in memory: both spill). */
Test(streaming, a_generated_trace_of_100000_jobs_gives_the_whole_runs_results,
     .timeout = 600)
{
    char dir[64], cmd[2048];
    clitest_make_dir(dir, "hetsim-stream");
    snprintf(cmd, sizeof cmd,
             "trace generate -o %s/g.csv -n 100000 --load 0.9 --cluster "
             "gavel-108 --gpus 1:4,2:2,4:1,8:1 --durations lognormal:8,1.5 "
             "-s 5",
             dir);
    cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    snprintf(cmd, sizeof cmd, "| cat %s/g.csv", dir);
    for (size_t k = 0; k < 3; k++)
        same_both_ways(dir, cmd, "gavel-108", outputs[k]);
    /* the same files when the run formats the rows itself, without the
     * threads of the pipes (the rows of timeline.csv are then formatted as
     * they come, and its last column after the run, all the same) */
    cr_assert_eq(run_fifo(dir, "w", cmd, "gavel-108", 2, "all"), 0, "%s", err);
    cr_assert(same_file(dir, "jobs.csv"));
    cr_assert(same_file(dir, "timeline.csv"));
    /* the replay was put to work: the cluster was fragmented at times
     * (GPUs free on nodes too small for the 4- and 8-GPU jobs) */
    size_t rows = SIZE_MAX, fragmented = fragmented_rows(dir, &rows);
    cr_assert_gt(rows, 100000); /* over 3 MB of records kept aside */
    cr_assert_gt(fragmented, rows / 10, "%zu of %zu rows", fragmented, rows);
    clitest_remove_dir(dir);
}

/* Whether DIR/NAME/perf.json says timeline.csv was written WHEN. */
static int written(const char *dir, const char *name, const char *when)
{
    char *p = slurp(dir, name, "perf.json"), want[64];
    snprintf(want, sizeof want, "\"timeline_written\":\t\"%s\"", when);
    int yes = strstr(p, want) != NULL;
    free(p);
    return yes;
}

/* TRACE on gavel-108 streamed, with the threads and without, gives the
 * whole run's files, timeline.csv written WHEN (perf.json). */
static void timeline_both_ways(const char *dir, const char *trace,
                               const char *when)
{
    same_both_ways(dir, trace, "gavel-108", "all");
    cr_assert(written(dir, "s", when));
    cr_assert_eq(run_fifo(dir, "w", trace, "gavel-108", 2, "all"), 0, "%s",
                 err);
    cr_assert(written(dir, "w", when));
    cr_assert(same_file(dir, "timeline.csv"));
}

/* The job on line LINE of TRACE (a sed address), job ID, asks for 2 GPUs. */
static void two_gpus_at(const char *trace, const char *line, const char *id)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "--version >/dev/null; sed -i '%s s/,1,\\([^,]*\\)$/,2,\\1/' %s; "
             "sed -n '%sp' %s",
             line, trace, line, trace);
    cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    cr_assert(strstr(out, id) && strstr(out, ",2,"), "%s", out);
}

/* Jobs of one GPU each, on three GPU types: no free GPU is ever a fragment
 * (FGD's F(t, f) = f x P(a job does not fit f GPUs of type t) = 0), so a
 * streamed run writes timeline.csv's rows as it goes, frag_gpus 0, and the
 * file is the whole run's. One job of two GPUs at the very end of the
 * same trace makes every node with one free GPU a fragment, in every row
 * before it too: the file is then written after the run again, from the
 * rows written as the run went (read back), and is the whole run's; and
 * so with one more such job half way, after which the run keeps the rows
 * aside as entries. Both with and without the pipes' threads. */
Test(streaming, a_one_gpu_trace_has_its_timeline_written_during_the_run,
     .timeout = 300)
{
    char dir[64], cmd[2048], trace[512];
    clitest_make_dir(dir, "hetsim-stream");
    snprintf(trace, sizeof trace, "%s/g1.csv", dir);
    /* in whole seconds: events at one instant, whose rows the engine
     * reports apart and the file shows once (a row repeating the one
     * before is left out) */
    snprintf(cmd, sizeof cmd,
             "trace generate -o %s/g.csv -n 20000 --load 0.9 --cluster "
             "gavel-108 --gpus 1:1 --durations lognormal:8,1.5 -s 5 && awk "
             "-F, -v OFS=, 'NR > 1 { $2 = int($2); $4 = int($4) + 1 } "
             "{ print }' %s/g.csv > %s && test -s %s",
             dir, dir, trace, trace);
    cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    timeline_both_ways(dir, trace, "during the run");

    two_gpus_at(trace, "$", "job-20000,"); /* the last job */
    timeline_both_ways(dir, trace, "after the run");
    /* and its rows are not those of the nil mix: fragments early on */
    size_t rows = 1000, fragmented = fragmented_rows(dir, &rows);
    cr_assert_gt(fragmented, 0, "none of the first %zu rows", rows);

    /* a job of 2 GPUs half way too: the rows before it are read back from
     * the file written during the run, those after it from their entries */
    two_gpus_at(trace, "10001", "job-10000,");
    timeline_both_ways(dir, trace, "after the run");
    clitest_remove_dir(dir);
}

static const char unsorted[] = "job_id,submit_time,num_gpus,duration\n"
                               "a,0,1,10\n"
                               "b,5,1,10\n"
                               "c,3,1,10\n";

/* With the rows read on a thread of their own and without. */
Test(streaming, an_unsorted_pipe_is_an_error_naming_the_line)
{
    char dir[64], cmd[512], path[256];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "u.csv", unsorted);
    snprintf(cmd, sizeof cmd, "| cat %s/u.csv", dir);
    for (int whole = 0; whole <= 2; whole += 2) {
        cr_assert_eq(run_fifo(dir, "out", cmd, "gavel-108", whole, "summary"),
                     3);
        cr_assert(strstr(err, "hetsim: error: /dev/stdin:4: submit_time 3 is "
                              "before the previous row's (5)"),
                  "%s", err);
        cr_assert(strstr(err, "sorted by submit_time"), "%s", err);
        snprintf(path, sizeof path, "%s/out", dir);
        cr_assert_eq(clitest_count_entries(path), -1, "nothing written");
    }
    clitest_remove_dir(dir);
}

/* A gpu_type the cluster lacks, on the 3,001st row of a pipe: the error
 * names its line, with the rows read on a thread of their own and
 * without, and nothing is written. */
Test(streaming, a_gpu_type_the_cluster_lacks_is_an_error_naming_the_line)
{
    char dir[64], cmd[512], path[256];
    clitest_make_dir(dir, "hetsim-stream");
    snprintf(path, sizeof path, "%s/t.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fputs("job_id,submit_time,num_gpus,duration,gpu_type\n", f);
    for (int i = 0; i < 5000; i++)
        fprintf(f, "j%d,%d,1,10,%s\n", i, i, i == 3000 ? "V100|tpu" : "V100");
    cr_assert_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "| cat %s", path);
    for (int whole = 0; whole <= 2; whole += 2) {
        cr_assert_eq(run_fifo(dir, "out", cmd, "gavel-108", whole, "all"), 3);
        cr_assert(strstr(err, "hetsim: error: /dev/stdin:3002: gpu_type "
                              "\"tpu\" is not a GPU type of cluster"),
                  "%s", err);
        snprintf(path, sizeof path, "%s/out", dir);
        cr_assert_eq(clitest_count_entries(path), -1, "nothing written");
    }
    clitest_remove_dir(dir);
}

Test(streaming, an_unsorted_file_falls_back_to_the_whole_trace_run)
{
    char dir[64], path[256];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "u.csv", unsorted);
    snprintf(path, sizeof path, "%s/u.csv", dir);
    cr_assert_eq(run_fifo(dir, "out", path, "gavel-108", 0, "summary"), 0, "%s",
                 err);
    char *p = slurp(dir, "out", "perf.json"),
         *s = slurp(dir, "out", "summary.json");
    cr_assert(strstr(p, "\"run_path\":\t\"whole-trace\""), "%s", p);
    cr_assert(strstr(p, "not sorted by submit_time (line 4)"), "%s", p);
    /* a at 0, c at 3, b at 5 on free GPUs: all done at 15, JCT 10 each */
    cr_assert(strstr(s, "\"makespan_s\":\t15,"), "%s", s);
    free(p);
    free(s);
    clitest_remove_dir(dir);
}

Test(streaming, a_piped_trace_with_per_job_columns_runs_whole)
{
    char dir[64], cmd[512];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "m.csv",
                       "job_id,submit_time,num_gpus,duration,gpu_mem_mb\n"
                       "a,0,1,10,1000\nb,5,1,10,1000\n");
    snprintf(cmd, sizeof cmd, "| cat %s/m.csv", dir);
    cr_assert_eq(run_fifo(dir, "out", cmd, "gavel-108", 0, "summary"), 0, "%s",
                 err);
    char *p = slurp(dir, "out", "perf.json"),
         *s = slurp(dir, "out", "summary.json");
    cr_assert(strstr(p, "the trace has a gpu_mem_mb column"), "%s", p);
    cr_assert(strstr(s, "\"jobs_with_memory_need\":\t2,"), "%s", s);
    free(p);
    free(s);
    clitest_remove_dir(dir);
}

Test(streaming, a_duplicate_id_in_a_pipe_is_an_error)
{
    char dir[64], cmd[512];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "d.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "job-1,0,1,10\nx,1,1,10\njob-1,2,1,10\n"
                       "y,3,1,10\ny,4,1,10\n");
    snprintf(cmd, sizeof cmd, "| cat %s/d.csv", dir);
    for (int whole = 0; whole <= 2; whole += 2) {
        cr_assert_eq(run_fifo(dir, "out", cmd, "gavel-108", whole, "summary"),
                     3);
        cr_assert(strstr(err, "/dev/stdin:4:1: duplicate job_id \"job-1\""),
                  "%s", err);
    }
    clitest_remove_dir(dir);
}

/* Under --on-bad-row skip, a streamed pipe drops the same rows as the
 * whole-trace read, and warns the same about the first one. */
Test(streaming, skipped_bad_rows_are_the_whole_runs)
{
    static char err_stream[BIG];
    char dir[64], cmd[1024];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "b.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "a,0,1,10\nb,1,zero,10\nc,2,1,10\nc,3,1,10\n"
                       "d,4,1,-5\ne,5,2,10\n");
    for (int whole = 0; whole < 2; whole++) {
        snprintf(cmd, sizeof cmd,
                 "--version >/dev/null; cat %s/b.csv | %s%s run -q --trace "
                 "/dev/stdin --format native --on-bad-row skip --cluster "
                 "gavel-108 --policy fifo --outputs summary --out %s/%s",
                 dir, whole ? "HETSIM_STREAM=0 " : "", HETSIM_BIN, dir,
                 whole ? "w" : "s");
        cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err),
                     0, "%s", err);
        if (!whole)
            memcpy(err_stream, err, sizeof err_stream);
    }
    cr_assert(strstr(err, "skipped 3 bad rows; the first: line 3"), "%s", err);
    cr_assert_str_eq(err_stream, err);
    char *s = slurp(dir, "s", "summary.json"),
         *w = slurp(dir, "w", "summary.json");
    cr_assert(strstr(s, "\"jobs_total\":\t3,"), "%s", s);
    cr_assert_str_eq(s, w);
    free(s);
    free(w);
    clitest_remove_dir(dir);
}

/* --outputs jobs streamed from a pipe (rows formatted on the writer
 * thread and on the run's own) and run whole: jobs.csv's rows as worked
 * by hand (gavel-108: 36 GPUs of each type, so 40 GPUs is unschedulable;
 * an id over 1,024 bytes is shown as too long). */
Test(streaming, jobs_csv_rows_as_worked_by_hand)
{
    char dir[64], cmd[512], rows[BIG];
    char *text = malloc(BIG);
    char id[1101];
    memset(id, 'x', 1100);
    id[1100] = '\0';
    snprintf(text, BIG,
             "job_id,submit_time,num_gpus,duration\n"
             "a,0,1,10\nb,5,2,10\nc,7,40,10\n%s,8,1,1.5\n",
             id);
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "j.csv", text);
    snprintf(cmd, sizeof cmd, "| cat %s/j.csv", dir);
    static const char want[] =
        "job_id,submit_time,start_time,finish_time,jct,wait,num_gpus,"
        "gpu_type,preemptions,status,reason\n"
        "a,0,0,10,10,0,1,V100,0,completed,\n"
        "b,5,5,15,10,0,2,V100,0,completed,\n"
        "c,7,,,,,40,,0,unschedulable,needs 40 GPUs; the GPU types it may "
        "use have at most 36\n"
        "(id too long),8,8,9.5,1.5,0,1,V100,0,completed,\n";
    for (int whole = 0; whole < 3; whole++) {
        const char *name = whole == 1 ? "w" : "s";
        cr_assert_eq(run_fifo(dir, name, cmd, "gavel-108", whole, "jobs"), 0,
                     "%s", err);
        char path[256];
        snprintf(path, sizeof path, "%s/%s/jobs.csv", dir, name);
        clitest_read_file(path, rows, sizeof rows);
        cr_assert_str_eq(rows, want, "%s", whole ? "whole" : "streamed");
        char *p = slurp(dir, name, "perf.json");
        cr_assert(strstr(p, whole == 1 ? "\"whole-trace\"" : "\"streaming\""),
                  "%s", p);
        free(p);
    }
    free(text);
    clitest_remove_dir(dir);
}

/* A streamed run with --outputs jobs or all that fails half-way (an
 * unsorted pipe) leaves the folder's earlier result set as it was: no
 * jobs.csv, no timeline.csv, no temporary entry. */
Test(streaming, a_failed_jobs_run_keeps_the_earlier_results)
{
    char dir[64], cmd[512], path[256], before[BIG], after[BIG];
    clitest_make_dir(dir, "hetsim-stream");
    clitest_write_file(dir, "u.csv", unsorted);
    clitest_write_file(dir, "ok.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    snprintf(path, sizeof path, "%s/ok.csv", dir);
    cr_assert_eq(run_fifo(dir, "out", path, "gavel-108", 0, "summary"), 0, "%s",
                 err);
    snprintf(path, sizeof path, "%s/out/summary.json", dir);
    clitest_read_file(path, before, sizeof before);
    snprintf(cmd, sizeof cmd, "| cat %s/u.csv", dir);
    for (int k = 0; k < 2; k++) { /* jobs; all (timeline.csv kept aside) */
        cr_assert_eq(
            run_fifo(dir, "out", cmd, "gavel-108", 0, k ? "all" : "jobs"), 3);
        cr_assert(strstr(err, "/dev/stdin:4: submit_time 3 is before"), "%s",
                  err);
        snprintf(path, sizeof path, "%s/out/summary.json", dir);
        clitest_read_file(path, after, sizeof after);
        cr_assert_str_eq(after, before);
        snprintf(path, sizeof path, "%s/out/jobs.csv", dir);
        cr_assert_neq(access(path, F_OK), 0, "%s", path);
        snprintf(path, sizeof path, "%s/out/timeline.csv", dir);
        cr_assert_neq(access(path, F_OK), 0, "%s", path);
        cr_assert_eq(clitest_count_entries(dir), 3, "u.csv, ok.csv, out");
    }
    clitest_remove_dir(dir);
}
