/* test_experiment.c -- experiment/: Gavel's job generator against traces
 * Gavel's own generator wrote, the registry, the figures read back from
 * runs, and `hetsim reproduce` as a user meets it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "cli/run_helpers.h"
#include "experiment.h"
#include "experiment_internal.h"

#define REF HETSIM_TEST_DATA "/gavel-reference"
#define MATRIX HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"

static char out_text[1 << 16], err_text[1 << 16];
static char tmpdir[64];

static void make_tmpdir(void)
{
    clitest_make_dir(tmpdir, "hetsim-exp");
}
static void remove_tmpdir(void)
{
    clitest_remove_dir(tmpdir);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Our draw of (RATE, seed 0, 6500 jobs) against Gavel's own file. */
static void same_as_gavel(double rate, const char *fixture)
{
    struct trace_throughputs *m = NULL;
    struct trace_error terr = {0};
    cr_assert_eq(trace_throughputs_load(MATRIX, &m, &terr), 0, "%s", terr.text);
    struct exp_gavel_gen g = {.rate_per_h = rate, .seed = 0, .njobs = 6500};
    struct exp_gavel_job *jobs = calloc(g.njobs, sizeof *jobs);
    char err[256] = "";
    cr_assert_eq(exp_gavel_generate(m, &g, jobs, err, sizeof err), 0, "%s",
                 err);
    char *ours = NULL;
    size_t ours_len = 0;
    FILE *f = open_memstream(&ours, &ours_len);
    cr_assert_eq(exp_gavel_write(f, jobs, g.njobs), 0);
    fclose(f);
    size_t ref_len;
    char *ref = slurp(fixture, &ref_len);
    /* Job for job: report the first line that differs. */
    size_t line = 1, i = 0;
    while (i < ours_len && i < ref_len && ours[i] == ref[i])
        line += ours[i++] == '\n';
    cr_assert_eq(ours_len, ref_len, "%s: first difference on line %zu", fixture,
                 line);
    cr_assert_eq(memcmp(ours, ref, ref_len), 0, "%s: line %zu differs", fixture,
                 line);
    free(ours);
    free(ref);
    free(jobs);
    trace_throughputs_destroy(m);
}

Test(gavel_gen, seed0_at_0_4_jobs_per_hour_is_gavels_own_trace)
{
    same_as_gavel(0.4, REF "/continuous_r0.4_s0.trace");
}

Test(gavel_gen, seed0_at_2_8_jobs_per_hour_is_gavels_own_trace)
{
    same_as_gavel(2.8, REF "/continuous_r2.8_s0.trace");
}

Test(gavel_gen, multi_gpu_jobs_are_1_2_4_or_8_gpus_of_distributed_types)
{
    struct trace_throughputs *m = NULL;
    struct trace_error terr = {0};
    cr_assert_eq(trace_throughputs_load(MATRIX, &m, &terr), 0);
    struct exp_gavel_gen g = {.seed = 3, .njobs = 2000, .multi_gpu = 1};
    struct exp_gavel_job *jobs = calloc(g.njobs, sizeof *jobs);
    char err[256];
    cr_assert_eq(exp_gavel_generate(m, &g, jobs, err, sizeof err), 0);
    size_t count[9] = {0};
    for (size_t i = 0; i < g.njobs; i++) {
        int32_t sf = jobs[i].scale_factor;
        cr_assert(sf == 1 || sf == 2 || sf == 4 || sf == 8);
        count[sf]++;
        cr_assert_eq(jobs[i].arrival_s, 0.0, "static: every job at 0");
        const char *type = exp_gavel_job_type((size_t)jobs[i].template_index);
        if (sf > 1) /* Recommendation, A3C, CycleGAN are not distributed */
            cr_assert(strncmp(type, "Recommendation", 14) != 0 &&
                          strcmp(type, "A3C") != 0 &&
                          strcmp(type, "CycleGAN") != 0,
                      "%s on %d GPUs", type, (int)sf);
    }
    /* Gavel's mix: 70 % 1 GPU, 10 % 2, 15 % 4, 5 % 8 (4 sigma bands) */
    cr_assert(fabs((double)count[1] / 2000 - 0.70) < 0.045);
    cr_assert(fabs((double)count[2] / 2000 - 0.10) < 0.03);
    cr_assert(fabs((double)count[4] / 2000 - 0.15) < 0.035);
    cr_assert(fabs((double)count[8] / 2000 - 0.05) < 0.02);
    free(jobs);
    trace_throughputs_destroy(m);
}

Test(registry, finds_names_and_suggests_the_nearest)
{
    cr_assert_not_null(exp_find("gavel-continuous"));
    cr_assert_not_null(exp_find("gavel-makespan"));
    cr_assert_not_null(exp_find("fgd"));
    cr_assert_null(exp_find("gavel"));
    cr_assert_str_eq(exp_suggest("gavel-continous"), "gavel-continuous");
    cr_assert_str_eq(exp_suggest("gavel-make"), "gavel-makespan");
    cr_assert_str_eq(exp_suggest("fdg"), "fgd");
    cr_assert_null(exp_suggest("tiresias-figure-7"));
}

TestSuite(collect, .init = make_tmpdir, .fini = remove_tmpdir);

/* A jobs.csv by hand: jobs 3999..5000 (Gavel ids; lines id+1), JCT of
 * job i = i s, job 4500 dropped. Window 4000-4999 without 4500: the mean
 * of 4000..4999 less 4500 = (4499.5 x 1000 - 4500) / 999 s. */
Test(collect, window_mean_is_over_jobs_4000_to_4999_that_completed)
{
    char path[256];
    snprintf(path, sizeof path, "%s/jobs.csv", tmpdir);
    FILE *f = fopen(path, "w");
    fprintf(f, "job_id,submit_time,start_time,finish_time,jct,wait,"
               "num_gpus,gpu_type,preemptions,status\n");
    for (int id = 3999; id <= 5000; id++)
        fprintf(f, "t-%d,0,0,%d,%d,0,1,V100,0,%s\n", id + 1, id, id,
                id == 4500 ? "dropped" : "completed");
    fclose(f);
    struct exp_plan p = {0};
    struct exp_cell cell = {0};
    p.cfg.info = exp_find("gavel-continuous");
    p.cfg.policies[0] = "gavel:fifo";
    p.cfg.npolicies = 1;
    p.cfg.xs[0] = 0.4;
    p.cfg.nxs = 1;
    p.cfg.nseeds = 1;
    p.cells = &cell;
    p.ncells = 1;
    snprintf(cell.out, sizeof cell.out, "%s", tmpdir);
    char err[256] = "";
    cr_assert_eq(exp_collect(&p, err, sizeof err), 0, "%s", err);
    double want = (4499.5 * 1000 - 4500) / 999 / 3600;
    cr_assert_float_eq(cell.value, want, 1e-12);
    cr_assert_eq(cell.dropped, 1);
    struct exp_row *rows = NULL;
    cr_assert_eq(exp_rows(&p, &rows), 1);
    /* Gavel's notebook publishes 17.58 h for fifo at 0.4 jobs/h. */
    cr_assert_float_eq(rows[0].published, 17.58, 1e-9);
    cr_assert_float_eq(exp_rel_diff(rows[0].mean, 2.0), 100 * (want - 2) / 2,
                       1e-9);
    free(rows);
}

static int hetsim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int hetsim(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return clitest_run(HETSIM_SOURCE_DIR, args, out_text, sizeof out_text,
                       err_text, sizeof err_text);
}

TestSuite(reproduce, .init = make_tmpdir, .fini = remove_tmpdir);

Test(reproduce, list_names_each_experiment_with_its_source)
{
    cr_assert_eq(hetsim("reproduce --list"), 0);
    cr_assert(strstr(out_text, "gavel-continuous"));
    cr_assert(strstr(out_text, "Fig. 8"));
    cr_assert(strstr(out_text, "OSDI'20"));
    cr_assert(strstr(out_text, "gavel-makespan"));
    cr_assert(strstr(out_text, "fgd"));
    cr_assert(strstr(out_text, "ATC'23"));
}

Test(reproduce, a_misspelt_experiment_gets_did_you_mean_and_exit_two)
{
    cr_assert_eq(hetsim("reproduce gavel-continous"), 2);
    cr_assert(strstr(err_text, "did you mean 'gavel-continuous'?"), "%s",
              err_text);
    cr_assert(strstr(err_text, "--help' for more information"));
    cr_assert_eq(hetsim("reproduce"), 2);
    cr_assert_eq(hetsim("reproduce gavel-continuous --bogus"), 2);
}

Test(reproduce, a_failed_run_leaves_no_results_folder)
{
    cr_assert_eq(hetsim("reproduce gavel-continuous --fixture=/nonexistent "
                        "-o %s/out -q",
                        tmpdir),
                 3);
    cr_assert(strstr(err_text, "no fixture trace"), "%s", err_text);
    cr_assert_eq(clitest_count_entries(tmpdir), 0, "left: something");
    cr_assert_eq(hetsim("reproduce gavel-continuous --fixture=" REF
                        " --policies nope -o %s/out -q",
                        tmpdir),
                 1);
    cr_assert_eq(clitest_count_entries(tmpdir), 0);
}

Test(reproduce, trace_generate_like_gavel_writes_gavels_trace)
{
    cr_assert_eq(hetsim("trace generate --like gavel --rate-per-hour 2.8 "
                        "--seed 0 --jobs 6500 -o %s/r.trace -q",
                        tmpdir),
                 0, "%s", err_text);
    char path[256];
    snprintf(path, sizeof path, "%s/r.trace", tmpdir);
    size_t a_len, b_len;
    char *a = slurp(path, &a_len);
    char *b = slurp(REF "/continuous_r2.8_s0.trace", &b_len);
    cr_assert(a_len == b_len && memcmp(a, b, a_len) == 0);
    free(a);
    free(b);
    cr_assert_eq(hetsim("trace generate --like philly -o x"), 2);
}

/* The fixture traces under gavel:NAME against Gavel's own simulator
 * (summary.csv, from Gavel c4fa400): each figure within 1 %. */
Test(reproduce, gavel_continuous_on_fixtures_is_within_1pct_of_gavel,
     .timeout = 900)
{
    cr_assert_eq(hetsim("reproduce gavel-continuous --fixture=" REF
                        " -j 2 -o %s/out -q",
                        tmpdir),
                 0, "%s", err_text);
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/out/table.csv", tmpdir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int rows = 0;
    cr_assert_not_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char policy[64];
        double x, mean, sd, gavel, diff;
        int seeds;
        cr_assert_eq(sscanf(line,
                            "gavel-continuous,%63[^,],%lf,avg JCT (h),%lf,%lf,"
                            "%d,%lf,%lf",
                            policy, &x, &mean, &sd, &seeds, &gavel, &diff),
                     7, "%s", line);
        cr_log_info("%s at %g jobs/h: hetsim %.4f h, Gavel %.4f h, %+.3f %%",
                    policy, x, mean, gavel, diff);
        cr_expect(fabs(mean - gavel) <= 0.01 * gavel,
                  "%s at %g jobs/h: hetsim %.4f h, Gavel's simulator %.4f h",
                  policy, x, mean, gavel);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 8);
    snprintf(path, sizeof path, "%s/out/report.html", tmpdir);
    cr_assert_eq(access(path, R_OK), 0);
}

Test(reproduce, options_of_another_experiment_are_usage_errors)
{
    cr_assert_eq(hetsim("reproduce fgd --rates 1 -o %s/o", tmpdir), 2);
    cr_assert(strstr(err_text, "--rates does not apply to fgd"));
    cr_assert_eq(hetsim("reproduce gavel-makespan --fixture -o %s/o", tmpdir),
                 2);
    cr_assert_eq(hetsim("reproduce fgd --trace x.csv -o %s/o", tmpdir), 2);
    cr_assert(strstr(err_text, "--nodes"), "%s", err_text);
    cr_assert_eq(clitest_count_entries(tmpdir), 0);
}

/* fgd's figures are `hetsim pack`'s: the allocation at arrived 1.0 is its
 * allocation_at_100, read here from a separate run of `hetsim pack`. */
Test(reproduce, fgd_reads_the_allocation_as_hetsim_pack_reports_it)
{
    cr_assert_eq(hetsim("reproduce fgd --arrived 0.5,1 -o %s/rep -q", tmpdir),
                 0, "%s", err_text);
    cr_assert_eq(hetsim("pack -t traces/alibaba2023/pods.csv -c "
                        "alibaba2023:traces/alibaba2023/nodes.csv -P "
                        "fgd,best-fit -o %s/pack -q --no-plots",
                        tmpdir),
                 0, "%s", err_text);
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/pack/pack_summary.csv", tmpdir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    double want[2] = {NAN, NAN};
    while (fgets(line, sizeof line, f)) {
        int k = strncmp(line, "fgd,", 4) == 0        ? 0
                : strncmp(line, "best-fit,", 9) == 0 ? 1
                                                     : -1;
        if (k < 0)
            continue;
        const char *p = line;
        for (int i = 0; i < 6; i++) /* column 7: allocation_at_100 */
            p = strchr(p, ',') + 1;
        want[k] = strtod(p, NULL);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/rep/table.csv", tmpdir);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char policy[64];
        double x, v;
        if (sscanf(line, "fgd,%63[^,],%lf,allocation ratio,%lf", policy, &x,
                   &v) != 3 ||
            x != 1)
            continue;
        int k = strcmp(policy, "fgd") == 0        ? 0
                : strcmp(policy, "best-fit") == 0 ? 1
                                                  : -1;
        if (k < 0)
            continue;
        cr_assert_float_eq(v, want[k], 1e-5, "%s", policy);
        found++;
    }
    fclose(f);
    cr_assert_eq(found, 2);
    /* fgd cuts the unallocated GPU against best-fit at arrived 1.0 */
    cr_assert(want[0] > want[1]);
}

/* gavel-makespan: static traces of N jobs (all at 0, Gavel's multi-GPU
 * mix), the makespan of each run in hours. */
Test(reproduce, gavel_makespan_runs_static_traces_of_n_jobs)
{
    cr_assert_eq(hetsim("reproduce gavel-makespan --num-jobs 20 --seeds 0 "
                        "--policies fifo --keep-runs -o %s/rep -q",
                        tmpdir),
                 0, "%s", err_text);
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/rep/work/traces/static_n20_s0.trace",
             tmpdir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        cr_assert(strstr(line, "\t0.000000\t"), "not at 0: %s", line);
        n++;
    }
    fclose(f);
    cr_assert_eq(n, 20);
    snprintf(path, sizeof path, "%s/rep/work/runs/fifo_x20_s0/summary.json",
             tmpdir);
    char json[1 << 14];
    clitest_read_file(path, json, sizeof json);
    const char *k = strstr(json, "\"makespan_s\":");
    cr_assert_not_null(k);
    double makespan_h = strtod(k + 13, NULL) / 3600;
    snprintf(path, sizeof path, "%s/rep/runs.csv", tmpdir);
    clitest_read_file(path, json, sizeof json);
    double v = NAN;
    cr_assert_eq(sscanf(strchr(json, '\n') + 1, "fifo,20,0,%lf", &v), 1);
    cr_assert_float_eq(v, makespan_h, 1e-5 * makespan_h);
}

/* Byte I of the pattern written below: worked out on its own. */
static char pattern_byte(size_t i)
{
    return (char)('a' + (i * 7919 + i / 4099) % 26);
}

Test(safefile, a_file_past_many_writeback_starts_is_whole_and_alone,
     .init = make_tmpdir, .fini = remove_tmpdir)
{
    /* 20 MiB in writes of 64 KiB (the stream's buffer): the writer starts
     * the disk's writeback each time 4 MiB more have been written
     * (safefile.c), so 20 / 4 = 5 times; the 2nd start is made to fail,
     * which must not matter (a hint). The committed file must be every
     * byte, in order, under its name, with no temporary beside it. */
    cr_assert_eq(setenv("HETSIM_FAULT", "writeback:2", 1), 0);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/big.bin", tmpdir);
    size_t block = (size_t)64 << 10, total = (size_t)20 << 20;
    char *b = malloc(block);
    cr_assert_not_null(b);
    struct exp_file x;
    cr_assert_eq(exp_file_open(&x, path, err, sizeof err), 0, "%s", err);
    for (size_t at = 0; at < total; at += block) {
        for (size_t i = 0; i < block; i++)
            b[i] = pattern_byte(at + i);
        cr_assert_eq(fwrite(b, 1, block, x.f), block);
    }
    free(b);
    cr_assert_eq(exp_file_commit(&x, err, sizeof err), 0, "%s", err);
    cr_assert_eq(exp_io_calls(EXP_IO_WRITEBACK), 5);
    size_t len;
    char *got = slurp(path, &len);
    cr_assert_eq(len, total);
    for (size_t i = 0; i < total; i++)
        if (got[i] != pattern_byte(i))
            cr_assert_fail("byte %zu differs", i);
    free(got);
    cr_assert_eq(clitest_count_entries(tmpdir), 1, "a temporary was left");
}
