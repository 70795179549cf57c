/* test_gavel.c -- the reader of Gavel's .trace files (gavel.c).
 *
 * Cases as data: tests/data/gavel/{valid,invalid}/<case>.trace (see
 * cases.h). Expected figures of the shipped traces were computed from
 * the files with awk, e.g.
 *   awk -F'\t' '{n++; s+=$5} END{printf "%d %.0f\n", n, s}' 6214e9.trace
 * and run times with python3's json module on simulation_throughputs.json
 * (total_steps / d[worker]["('<job type>', <gpus>)"]['null']). */
#include <criterion/criterion.h>

#include "cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAVEL_DIR HETSIM_SOURCE_DIR "/traces/gavel"
#define TRACE_6214E9 GAVEL_DIR "/msr/seed=0/6214e9.trace"
#define TRACE_11CB48 GAVEL_DIR "/msr/seed=0/11cb48.trace"

/* Reads a Gavel trace that must be valid. */
static struct trace *read_ok(const char *path)
{
    return case_read_ok(path, TRACE_FMT_GAVEL, NULL);
}

static double sum_iterations(const struct trace *t)
{
    double s = 0;
    for (size_t i = 0; i < t->njobs; i++)
        s += (double)t->jobs[i].iterations;
    return s;
}

Test(gavel_reader, reads_every_case_as_expected)
{
    case_run_all("gavel", "trace", TRACE_FMT_GAVEL, trace_read_gavel, 5, 18);
}

Test(gavel_reader, reads_the_shipped_trace_6214e9)
{
    struct trace *t = read_ok(TRACE_6214E9);
    double gpus = 0, submit = 0;
    cr_expect_eq(t->njobs, 2000);
    cr_expect_eq(t->format, TRACE_FMT_GAVEL);
    cr_expect(sum_iterations(t) == 17063947829.0, "%.17g", sum_iterations(t));
    for (size_t i = 0; i < t->njobs; i++) {
        gpus += t->jobs[i].num_gpus;
        submit += t->jobs[i].submit_time;
        cr_assert(isnan(t->jobs[i].duration));
    }
    cr_expect(gpus == 2214 && submit == 7842418857.0, "%g %.17g", gpus, submit);
    cr_expect_str_eq(trace_str(t, t->jobs[0].id), "6214e9-1");
    cr_expect_str_eq(trace_str(t, t->jobs[0].job_type),
                     "Transformer (batch size 128)");
    cr_expect_eq(t->jobs[0].iterations, 20851471);
    cr_expect_str_eq(trace_str(t, t->jobs[1999].id), "6214e9-2000");
    cr_expect_str_eq(trace_str(t, t->jobs[1999].job_type),
                     "ResNet-50 (batch size 16)");
    cr_expect_eq(t->jobs[1999].iterations, 62738);
    cr_expect(t->jobs[1999].submit_time == 4184082.0);
    trace_destroy(t);
}

Test(gavel_reader, reads_every_shipped_trace)
{
    /* wc -l of each file: one job a line, no empty lines */
    static const struct {
        const char *name;
        size_t jobs;
    } files[] = {
        {"msr/seed=0/0e4a51", 1181},
        {"msr/seed=0/103959", 986},
        {"msr/seed=0/11cb48", 2000},
        {"msr/seed=0/23dbec", 9},
        {"msr/seed=0/2869ce", 533},
        {"msr/seed=0/51b7ef", 18},
        {"msr/seed=0/6214e9", 2000},
        {"msr/seed=0/6c71a0", 2000},
        {"msr/seed=0/795a4c", 3},
        {"msr/seed=0/7f04ca", 972},
        {"msr/seed=0/925e2b", 4},
        {"msr/seed=0/b436b2", 2000},
        {"msr/seed=0/e13805", 607},
        {"msr/seed=0/ed69ec", 951},
        {"msr/seed=0/ee9e8c", 2000},
        {"physical_cluster/artifact_evaluation", 15},
        {"physical_cluster/debug", 14},
        {"physical_cluster/debug_v2", 14},
        {"physical_cluster/highmem_test", 8},
        {"physical_cluster/max_min_fairness", 96},
        {"physical_cluster/medium_test", 20},
        {"physical_cluster/minimize_makespan", 100},
        {"physical_cluster/small_test", 20},
    };
    size_t msr = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.trace", GAVEL_DIR, files[i].name);
        struct trace *t = read_ok(path);
        cr_expect_eq(t->njobs, files[i].jobs, "%s: %zu jobs", files[i].name,
                     t->njobs);
        msr += strncmp(files[i].name, "msr", 3) == 0 ? t->njobs : 0;
        trace_destroy(t);
    }
    cr_expect_eq(msr, 15264); /* as traces/README.md and SOURCES.md say */
}

Test(gavel_reader, reads_the_physical_cluster_layout)
{
    struct trace *t =
        read_ok(GAVEL_DIR "/physical_cluster/max_min_fairness.trace");
    /* awk -F'\t' '{s+=$6; g+=$7} END{printf "%.0f %d", s, g}' */
    double gpus = 0;
    for (size_t i = 0; i < t->njobs; i++) {
        gpus += t->jobs[i].num_gpus;
        cr_expect(t->jobs[i].weight == 1.0 && isnan(t->jobs[i].slo));
    }
    cr_expect_eq(t->njobs, 96);
    cr_expect(sum_iterations(t) == 18166806.0);
    cr_expect(gpus == 169);
    cr_expect_eq(t->jobs[0].num_gpus, 4);
    cr_expect_eq(t->jobs[0].iterations, 925982);
    cr_expect(t->jobs[95].submit_time == 46317.0);
    trace_destroy(t);
}

/* total_steps / throughput of job I of T on each of Gavel's GPU types must
 * equal want[] (seconds) to the last bit or nearly. */
static void expect_run_times(const struct trace_throughputs *m,
                             const struct trace *t, size_t i, int rc_want,
                             const double want[3])
{
    static const char *const workers[] = {"k80", "p100", "v100"};
    const struct trace_job *j = &t->jobs[i];
    for (int w = 0; w < 3; w++) {
        double tp = 0;
        int rc = trace_throughput(m, workers[w], trace_str(t, j->job_type),
                                  j->num_gpus, 0, &tp);
        double run = (double)j->iterations / tp;
        cr_expect_eq(rc, rc_want, "job %zu on %s: rc %d", i, workers[w], rc);
        cr_expect(fabs(run - want[w]) <= 1e-15 * want[w],
                  "job %zu on %s: %.17g s, expected %.17g", i, workers[w], run,
                  want[w]);
    }
}

Test(gavel_reader, run_times_come_from_the_throughput_table)
{
    struct trace_throughputs *m = NULL;
    struct trace_error e;
    cr_assert_eq(trace_throughputs_load(
                     GAVEL_DIR "/simulation_throughputs.json", &m, &e),
                 0, "%s", e.text);
    struct trace *t = read_ok(TRACE_6214E9);
    /* line 1: Transformer (batch size 128), 1 GPU, 20851471 steps */
    expect_run_times(m, t, 0, 0,
                     (const double[]){21242704.124453995, 6784198.201658891,
                                      3828694.114124615});
    /* line 275: ResNet-50 (batch size 64), 8 GPUs, 7738 steps */
    cr_assert_eq(t->jobs[274].num_gpus, 8);
    expect_run_times(m, t, 274, 0,
                     (const double[]){1693.6872344171286, 424.6700932529199,
                                      447.201221921443});
    trace_destroy(t);
    /* 11cb48 asks for 16 GPUs on line 1014 (Transformer (batch size 128),
     * 7398 steps): 7398 / (d[w][T128, 8] * 16 / 8); on line 1017 (CycleGAN,
     * measured on 1 GPU only, 38959 steps): 38959 / (d[w][CycleGAN, 1] * 16) */
    t = read_ok(TRACE_11CB48);
    cr_assert_eq(t->jobs[1013].num_gpus, 16);
    expect_run_times(m, t, 1013, 1,
                     (const double[]){703.6314244655888, 270.31623246398834,
                                      119.77261254414198});
    cr_assert_str_eq(trace_str(t, t->jobs[1016].job_type), "CycleGAN");
    expect_run_times(m, t, 1016, 1,
                     (const double[]){4823.849981896402, 1013.430622708589,
                                      550.1330644833217});
    trace_destroy(t);
    trace_throughputs_destroy(m);
}

Test(gavel_reader, is_what_trace_read_detects_for_a_dot_trace_file)
{
    struct trace *t = case_read_ok(TRACE_6214E9, TRACE_FMT_AUTO, NULL);
    cr_expect_eq(t->format, TRACE_FMT_GAVEL);
    cr_expect_eq(t->njobs, 2000);
    trace_destroy(t);
}

Test(gavel_reader, reports_a_missing_file)
{
    struct trace *t = (struct trace *)&t;
    struct trace_error e;
    int rc =
        trace_read_gavel(HETSIM_TEST_DATA "/gavel/none.trace", NULL, &t, &e);
    cr_expect_eq(rc, TRACE_EIO);
    cr_expect_null(t);
    cr_expect_eq(e.line, 0);
}

/* Writes n jobs whose command is cmd_len bytes into a new temporary file;
 * its name goes to path. */
static void write_jobs(char *path, size_t size, size_t n, size_t cmd_len)
{
    FILE *f = case_temp_file(path, size);
    char *cmd = malloc(cmd_len + 1);
    cr_assert_not_null(cmd);
    memset(cmd, 'x', cmd_len);
    cmd[cmd_len] = '\0';
    for (size_t i = 0; i < n; i++)
        fprintf(f, "LM (batch size 20)\t%s\t--steps\t1\t%zu\t%zu\t%zu\n", cmd,
                i + 1, i, 1 + i % 8);
    fclose(f);
    free(cmd);
}

Test(gavel_reader, reads_lines_longer_than_its_blocks)
{
    char path[4096];
    write_jobs(path, sizeof path, 3, (size_t)3 << 20); /* 3 MiB commands */
    struct trace *t = case_read_temp(path, TRACE_FMT_GAVEL);
    cr_expect_eq(t->njobs, 3);
    cr_expect_eq(t->jobs[2].iterations, 3);
    cr_expect_eq(t->jobs[2].num_gpus, 3);
    cr_expect_eq(t->jobs[2].line, 3);
    trace_destroy(t);
    /* lines across many block boundaries */
    write_jobs(path, sizeof path, 100000, 37);
    t = case_read_temp(path, TRACE_FMT_GAVEL);
    cr_expect_eq(t->njobs, 100000);
    cr_expect(sum_iterations(t) == 100000.0 * 100001.0 / 2);
    cr_expect(t->jobs[99999].submit_time == 99999.0);
    cr_expect_eq(t->jobs[99999].num_gpus, 8);
    trace_destroy(t);
}
