/* test_safety.c -- the failures of issue 16, items 3 to 9, each reproduced
 * as it was reported, now refused or contained: models on a full disk,
 * devices and links as outputs, hanging generators, hostile plugins,
 * 64-bit seeds, absurd times, null figures, progress in a log, stale
 * temporaries and a killed sweep's children. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_helpers.h"
#include "set_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"
#define RUN "run -q --trace " SMALL ".csv --cluster " SMALL ".json "

static char dir[64];
static char out[1 << 16], err[1 << 16];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-safety");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

TestSuite(safety, .init = setup, .fini = teardown, .timeout = 300);

static int hetsim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int hetsim(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return clitest_run(dir, args, out, sizeof out, err, sizeof err);
}

static void read_in(const char *name, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    clitest_read_file(path, buf, cap);
}

/* ---- 3. Models on a full disk ------------------------------------------ */

Test(safety, rf_and_xgboost_on_a_full_disk_keep_the_old_model_and_exit_1)
{
    cr_assert_eq(hetsim("dataset synth --schema memory --rows 60 -o mem.csv"),
                 0, "%s", err);
    const char *models[] = {"rf", "xgboost"};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(hetsim("predictor train -q --data mem.csv --target "
                            "memory_mb --model linear -o m.model"),
                     0, "%s", err);
        static char before[1 << 20], after[1 << 20];
        read_in("m.model", before, sizeof before);
        /* The device that is always full: written to, never replaced. */
        cr_assert_eq(hetsim("predictor train -q --data mem.csv --target "
                            "memory_mb --model %s -o /dev/full",
                            models[i]),
                     1, "%s", err);
        cr_assert(strstr(err, "/dev/full") && strstr(err, "No space left"),
                  "%s", err);
        /* A disk that fills up while the model is written. */
        setenv("HETSIM_FAULT", "write:1", 1);
        int rc = hetsim("predictor train -q --data mem.csv --target "
                        "memory_mb --model %s -o m.model",
                        models[i]);
        unsetenv("HETSIM_FAULT");
        cr_assert_eq(rc, 1, "%s: %s", models[i], err);
        read_in("m.model", after, sizeof after);
        cr_assert_str_eq(after, before, "%s replaced the old model", models[i]);
        cr_assert_eq(clitest_count_entries(dir), 2); /* mem.csv, m.model */
    }
}

/* libxgboost is opened at the first fit (predictor/xgb.c), not linked: a
 * library that does not load (here an empty file found first through
 * LD_LIBRARY_PATH) fails that fit with the package to install, writes no
 * model, and leaves every other model working. */
Test(safety, xgboost_without_its_library_names_the_package_and_linear_trains)
{
    cr_assert_eq(hetsim("dataset synth --schema memory --rows 60 -o mem.csv"),
                 0, "%s", err);
    clitest_write_file(dir, "libxgboost.so.0", "");
    setenv("LD_LIBRARY_PATH", dir, 1);
    int rc = hetsim("predictor train -q --data mem.csv --target memory_mb "
                    "--model xgboost -o x.model");
    static char xgb_err[sizeof err];
    memcpy(xgb_err, err, sizeof err);
    int linear = hetsim("predictor train -q --data mem.csv --target "
                        "memory_mb --model linear -o l.model");
    unsetenv("LD_LIBRARY_PATH");
    cr_assert_eq(rc, 1, "%s", xgb_err);
    cr_assert(strstr(xgb_err, "hetsim: error: xgboost: cannot load "
                              "libxgboost.so.0") &&
                  strstr(xgb_err, "install the Debian package libxgboost0"),
              "%s", xgb_err);
    cr_assert_eq(linear, 0, "%s", err);
    /* mem.csv, libxgboost.so.0, l.model: no x.model */
    cr_assert_eq(clitest_count_entries(dir), 3);
}

/* ---- 4. Devices, FIFOs and links as outputs ----------------------------- */

Test(safety, trace_generate_to_dev_full_fails_and_leaves_the_device)
{
    cr_assert_eq(hetsim("trace generate -q -o /dev/full --rate 0.01 "
                        "--jobs 5000"),
                 1, "%s", err);
    cr_assert(strstr(err, "/dev/full") != NULL, "%s", err);
    struct stat st;
    cr_assert_eq(stat("/dev/full", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/full is no longer a device");
}

Test(safety, a_symlink_output_stays_a_link_and_its_target_is_replaced)
{
    clitest_write_file(dir, "real.csv", "old\n");
    char link_path[128], real_path[128];
    snprintf(link_path, sizeof link_path, "%s/link.csv", dir);
    snprintf(real_path, sizeof real_path, "%s/real.csv", dir);
    cr_assert_eq(symlink("real.csv", link_path), 0);
    cr_assert_eq(hetsim("trace generate -q -o link.csv --rate 0.01 --jobs 3"),
                 0, "%s", err);
    struct stat st;
    cr_assert_eq(lstat(link_path, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    static char text[4096];
    clitest_read_file(real_path, text, sizeof text);
    cr_assert(strncmp(text, "job_id,", 7) == 0, "%s", text);
    cr_assert_eq(clitest_count_entries(dir), 2);
}

Test(safety, a_fifo_output_is_streamed_to)
{
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* hetsim writes into the FIFO while cat reads it (both bounded). */
    cr_assert_eq(hetsim("trace generate -q -o %s --rate 0.01 --jobs 3 & "
                        "timeout 60 cat %s > %s/got.csv; wait",
                        fifo, fifo, dir),
                 0, "%s", err);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    static char text[4096];
    read_in("got.csv", text, sizeof text);
    cr_assert(strncmp(text, "job_id,", 7) == 0, "%s", text);
}

/* ---- 5. Stale temporaries and a killed sweep ----------------------------- */

Test(safety, a_later_run_removes_temporaries_of_dead_processes)
{
    /* Leftovers as killed runs left them: of a pid that cannot be alive
     * (above the kernel's pid_max), in today's and the old naming. */
    char p[256];
    snprintf(p, sizeof p, "%s/.out.tmp.999999999", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
    clitest_write_file(p, "jobs.csv", "half a file");
    clitest_write_file(dir, ".trace.csv.tmp999999998", "x");
    clitest_write_file(dir, ".trace.csv.tmp.999999997", "x");
    cr_assert_eq(hetsim(RUN "--policy fifo --out out"), 0, "%s", err);
    cr_assert_eq(hetsim("trace generate -q -o trace.csv --rate 1 --jobs 3"), 0,
                 "%s", err);
    char first[256];
    cr_assert_eq(settest_temps(dir, NULL, 0, NULL, first), 0, "%s", first);
}

static int alive(pid_t pid)
{
    return kill(pid, 0) == 0;
}

Test(safety, a_killed_sweep_takes_its_runs_with_it)
{
    /* Cells that each take a while: 20000 jobs. */
    clitest_write_file(dir, "spec.json",
                       "{\"generator\": {\"jobs\": 20000, \"load\": [0.9]},"
                       " \"clusters\": [\"" SMALL ".json\"],"
                       " \"policies\": [\"las\"], \"seeds\": 4}\n");
    char spec[128], outdir[128];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    snprintf(outdir, sizeof outdir, "%s/sw", dir);
    pid_t sweep = fork();
    cr_assert_geq(sweep, 0);
    if (sweep == 0) {
        freopen("/dev/null", "w", stderr);
        execl(HETSIM_BIN, "hetsim", "sweep", "-q", "-j", "2", spec, "--out",
              outdir, (char *)NULL);
        _exit(127);
    }
    /* Wait (bounded) until it has children, then kill it. */
    char path[64], kids[256] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)sweep,
             (int)sweep);
    for (int i = 0; i < 500 && !kids[0]; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        clitest_read_file(path, kids, sizeof kids);
    }
    cr_assert(kids[0], "the sweep started no child");
    kill(sweep, SIGKILL);
    waitpid(sweep, NULL, 0);
    pid_t child = (pid_t)strtol(kids, NULL, 10);
    int gone = 0;
    for (int i = 0; i < 1000 && !gone; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        gone = !alive(child);
    }
    cr_assert(gone, "child %d of the killed sweep still runs", (int)child);
}

/* ---- 6. Hangs ----------------------------------------------------------- */

Test(safety, generators_that_cannot_give_a_workload_are_refused_up_front)
{
    const char *bad[] = {
        "--durations lognormal:1000,5", "--durations lognormal:-1000,1",
        "--durations pareto:1e-300,1", "--arrivals mmpp --burst-mean-s 1e-300",
        "--durations exp:1e300"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(hetsim("trace generate -q -o t.csv --rate 0.01 "
                            "--jobs 10 %s",
                            bad[i]),
                     2, "%s: %s", bad[i], err);
        cr_assert(strstr(err, "cannot give") || strstr(err, "must last"),
                  "%s: %s", bad[i], err);
        cr_assert_eq(hetsim("trace generate -q -o t.csv --load 0.5 "
                            "--cluster " SMALL ".json --jobs 10 %s",
                            bad[i]),
                     2, "%s: %s", bad[i], err);
    }
    cr_assert_eq(clitest_count_entries(dir), 0);
}

Test(safety, a_sweep_spec_with_such_a_generator_is_refused_at_validation)
{
    const char *bad[] = {"\"durations\": \"lognormal:1000,5\"",
                         "\"durations\": \"pareto:1e-300,1\"",
                         "\"arrivals\": \"mmpp\", \"burst-mean-s\": 1e-300",
                         "\"jobs\": 0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char spec[512];
        snprintf(spec, sizeof spec,
                 "{\"generator\": {%s, \"load\": [0.5]},\n"
                 " \"clusters\": [\"" SMALL ".json\"],\n"
                 " \"policies\": [\"fifo\"], \"seeds\": 1}\n",
                 bad[i]);
        clitest_write_file(dir, "spec.json", spec);
        cr_assert_eq(hetsim("sweep -q spec.json --out sw"), 3, "%s: %s", bad[i],
                     err);
        cr_assert(strstr(err, "spec.json:1:") != NULL, "%s", err);
        cr_assert_eq(clitest_count_entries(dir), 1, "%s: a cell ran", bad[i]);
    }
}

/* Runs the hostile plugin (beside the binary, policies/examples/). */
static int plugin_run(const char *mode)
{
    const char *bin = HETSIM_BIN;
    int len = (int)(strrchr(bin, '/') - bin);
    return hetsim(RUN "--policy %.*s/policies/examples/libhostile_plugin.so "
                      "--policy-opt mode=%s --out out",
                  len, bin, mode);
}

Test(safety, a_plugin_that_never_lets_time_move_is_stopped_by_name)
{
    const char *modes[] = {"wake_now", "cycle"};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(plugin_run(modes[i]), 1, "%s: %s", modes[i], err);
        cr_assert(strstr(err, "policy hostile: no progress") != NULL, "%s",
                  err);
    }
    cr_assert_eq(clitest_count_entries(dir), 0); /* no results, no temps */
}

Test(safety, a_run_that_is_not_on_a_terminal_logs_its_progress)
{
    cr_assert_eq(hetsim("trace generate -q -o t.csv --cluster " SMALL
                        ".json --load 0.9 --jobs 20000"),
                 0, "%s", err);
    /* fifo streams the trace (docs/streaming.md): its share read; the
     * whole-trace run: the arrivals' span */
    static const char *const runs[][2] = {
        {"", "(10% of the trace read)"},
        {"HETSIM_STREAM=0 ", "(10% of the arrivals' span)"}};
    setenv("HETSIM_PROGRESS_AFTER_S", "0", 1);
    for (int i = 0; i < 2; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "--version >/dev/null; %s%s run --trace t.csv --cluster " SMALL
                 ".json --policy fifo --out out",
                 runs[i][0], HETSIM_BIN);
        int rc = hetsim("%s", cmd);
        cr_assert_eq(rc, 0, "%s", err);
        int lines = 0;
        for (const char *p = err; (p = strstr(p, "hetsim: run: simulated"));
             p++)
            lines++;
        /* One line per 10%: 9 or 10 of them. */
        cr_assert(lines >= 9 && lines <= 11, "%d lines:\n%s", lines, err);
        cr_assert(strstr(err, runs[i][1]) != NULL, "%s", err);
    }
    unsetenv("HETSIM_PROGRESS_AFTER_S");
}

/* ---- 7. Plugin API arguments -------------------------------------------- */

Test(safety, a_plugin_passing_bad_arguments_stops_the_run_by_name)
{
    const struct {
        const char *mode, *says;
    } cases[] = {
        {"null_seg", "start with nseg > 0 and seg NULL"},
        {"big_job", "start with job 4294967280, out of range (0 to 6)"},
        {"bad_type", "start with GPU type 99, out of range (0 to 1)"},
        {"read_job", "job_num_gpus with job 4294967280, out of range"},
        {"read_type", "gpu_type_name with GPU type 99, out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = plugin_run(cases[i].mode);
        cr_assert_eq(rc, 1, "%s: exit %d (134 abort, 139 crash): %s",
                     cases[i].mode, rc, err);
        cr_assert(strstr(err, "policy hostile: plugin called ") &&
                      strstr(err, cases[i].says),
                  "%s: %s", cases[i].mode, err);
    }
}

/* ---- 8. Seeds ------------------------------------------------------------ */

Test(safety, a_seed_above_32_bits_is_refused_not_folded_to_another)
{
    cr_assert_eq(hetsim(RUN "--policy fifo --seed 4294967296 --out out"), 2,
                 "%s", err);
    cr_assert(strstr(err, "0 to 4294967295") != NULL, "%s", err);
    cr_assert_eq(hetsim(RUN "--policy fifo --seed 4294967295 --out out"), 0,
                 "%s", err);
    cr_assert_eq(hetsim("trace generate -q -o t.csv --rate 1 --jobs 3 "
                        "--seed 4294967296"),
                 2);
    cr_assert_eq(hetsim("dataset synth --seed 4294967296 -o d.csv"), 2);
    clitest_write_file(dir, "spec.json",
                       "{\"traces\": [\"" SMALL
                       ".csv\"], \"clusters\": [\"" SMALL
                       ".json\"],\n \"policies\": [\"fifo\"],\n"
                       " \"seeds\": [4294967296]}\n");
    cr_assert_eq(hetsim("sweep -q spec.json --out sw"), 3, "%s", err);
    cr_assert(strstr(err, "spec.json:3:") && strstr(err, "4294967295"), "%s",
              err);
}

/* ---- 9. Absurd times and null figures ----------------------------------- */

Test(safety, times_beyond_1e15_s_are_refused_at_reading_with_file_and_line)
{
    clitest_write_file(dir, "d.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "j0,0,1,100\nj1,0,1,1e308\n");
    clitest_write_file(dir, "s.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "j0,1e300,1,100\n");
    cr_assert_eq(hetsim("run -q --trace d.csv --cluster " SMALL
                        ".json --policy fifo --out out"),
                 3, "%s", err);
    cr_assert(strstr(err, "d.csv:3: duration 1e+308 s is beyond 1e15 s"), "%s",
              err);
    cr_assert_eq(hetsim("run -q --trace s.csv --cluster " SMALL
                        ".json --policy fifo --out out"),
                 3, "%s", err);
    cr_assert(strstr(err, "s.csv:2: submit_time"), "%s", err);
    cr_assert_eq(hetsim("trace stats d.csv"), 3, "%s", err);
}

Test(safety, check_fails_on_a_null_figure_even_against_null)
{
    clitest_write_file(dir, "golden.json",
                       "{\"hetsim_baseline\": 1, \"result\": \"summary.json\","
                       " \"tolerance\": 0.001,\n"
                       " \"figures\": {\"makespan_s\": null}}\n");
    clitest_write_file(dir, "summary.json", "{\"makespan_s\": null}\n");
    cr_assert_eq(hetsim("check --baseline golden.json --result summary.json"),
                 1, "%s%s", out, err);
    cr_assert(strstr(out, "null") != NULL, "%s", out);
    clitest_write_file(dir, "summary.json", "{\"makespan_s\": 5}\n");
    cr_assert_eq(hetsim("check --baseline golden.json --result summary.json"),
                 1, "%s%s", out, err);
}
