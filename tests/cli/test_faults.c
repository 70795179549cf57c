/* test_faults.c -- results on disk survive failures, in the manner of
 * SQLite's I/O-error tests: every system call of the write path (open,
 * write, fsync, rename, close, link, mkdir) is made to fail at its k-th
 * call (HETSIM_FAULT, experiment/fsio.c), for every k until the command no
 * longer reaches a k-th call, for a run, a sweep cell, a model save and a
 * chart write. Each time the target must hold the old complete set or the
 * new one, and no temporary may be left. Then SIGKILL at 50 random
 * moments of a run (seeded), SIGTERM, and concurrent writers. */
#include <criterion/criterion.h>

#include <signal.h>
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
#define RUN_ARGS "run -q --trace " SMALL ".csv --cluster " SMALL ".json "

static const char *const ops[] = {"open",  "write", "fsync", "rename",
                                  "close", "link",  "mkdir"};
#define NOPS (sizeof ops / sizeof ops[0])

static char dir[64];
static char err[1 << 16];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-faults");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

TestSuite(faults, .init = setup, .fini = teardown, .timeout = 1200);

/* Runs ARGS without a fault; it must succeed. */
static void run_ok(const char *args)
{
    int rc = settest_run(NULL, args, err);
    cr_assert_eq(rc, 0, "%s: %s", args, err);
}

static void assert_no_temps(const char *where, const char *after)
{
    char first[256];
    int n = settest_temps(where, NULL, 0, NULL, first);
    cr_assert_eq(n, 0, "after %s: %d temporaries left, such as %s", after, n,
                 first);
}

/* The loop of every test below: OLD_CMD writes the old set into TARGET,
 * NEW_CMD the new one; NEW_CMD is then run with each op failing at each
 * k. Returns how many faults were injected. */
static int every_fault_in(const char *old_cmd, const char *new_cmd,
                          const char *target, int drops)
{
    run_ok(new_cmd);
    char *new_fp = settest_fingerprint(target);
    run_ok(old_cmd);
    char *old_fp = settest_fingerprint(target);
    cr_assert(strcmp(old_fp, new_fp) != 0, "the two sets must differ");
    int injected = 0;
    for (size_t op = 0; op < NOPS; op++) {
        for (int k = 1;; k++) {
            cr_assert_lt(k, 400, "%s never stops failing", ops[op]);
            char fault[32], what[64];
            snprintf(fault, sizeof fault, "%s:%d", ops[op], k);
            snprintf(what, sizeof what, "HETSIM_FAULT=%s", fault);
            int rc = settest_run(fault, new_cmd, err);
            char *fp = settest_fingerprint(target);
            assert_no_temps(dir, what);
            if (!strstr(err, "fault injected")) { /* no k-th call: done */
                cr_assert_eq(rc, 0, "%s: %s", what, err);
                cr_assert_str_eq(fp, new_fp, "%s", what);
                free(fp);
                run_ok(old_cmd);
                break;
            }
            injected++;
            if (drops && rc == 0) { /* on a file the run then dropped */
                cr_assert_str_eq(fp, new_fp, "%s", what);
                free(fp);
                run_ok(old_cmd);
                continue;
            }
            cr_assert_eq(rc, 1, "%s: exit %d: %s", what, rc, err);
            cr_assert(strstr(err, "hetsim: error: ") != NULL, "%s: %s", what,
                      err);
            int is_old = strcmp(fp, old_fp) == 0;
            int is_new = strcmp(fp, new_fp) == 0;
            cr_assert(is_old || is_new,
                      "%s: a mixed set:\n%s\nold:\n%s\nnew:\n%s", what, fp,
                      old_fp, new_fp);
            free(fp);
            if (is_new)
                run_ok(old_cmd);
        }
    }
    free(old_fp);
    free(new_fp);
    return injected;
}

static int every_fault(const char *old_cmd, const char *new_cmd,
                       const char *target)
{
    return every_fault_in(old_cmd, new_cmd, target, 0);
}

Test(faults, a_run_holds_the_old_or_the_new_set_at_every_failed_call)
{
    char old_cmd[512], new_cmd[512], target[128];
    snprintf(target, sizeof target, "%s/out", dir);
    snprintf(old_cmd, sizeof old_cmd, RUN_ARGS "--policy fifo --out %s",
             target);
    snprintf(new_cmd, sizeof new_cmd, RUN_ARGS "--policy las --out %s", target);
    int n = every_fault(old_cmd, new_cmd, target);
    cr_expect_gt(n, 30, "only %d faults injected", n);
    fprintf(stderr, "faults: run: %d faults injected\n", n);
}

/* every_fault_in for the streamed run `hetsim NEW_ARGS--out DIR/out`
 * over the set OLD_CMD (its --out DIR/out) leaves, with the pipes'
 * threads and without (HETSIM_WRITER_THREAD), faults of drops; then that
 * the run streamed and wrote timeline.csv after the run (perf.json). */
static void streamed_faults(const char *old_cmd, const char *new_args,
                            const char *label)
{
    char new_cmd[1024], target[128], path[256], buf[4096];
    snprintf(target, sizeof target, "%s/out", dir);
    for (int threads = 1; threads >= 0; threads--) {
        snprintf(new_cmd, sizeof new_cmd,
                 "--version >/dev/null; HETSIM_WRITER_THREAD=%d %s %s--out %s",
                 threads, HETSIM_BIN, new_args, target);
        int n = every_fault_in(old_cmd, new_cmd, target, 1);
        cr_expect_gt(n, 30, "only %d faults injected", n);
        fprintf(stderr, "faults: %s (threads %d): %d injected\n", label,
                threads, n);
    }
    run_ok(new_cmd);
    snprintf(path, sizeof path, "%s/perf.json", target);
    clitest_read_file(path, buf, sizeof buf);
    cr_assert(strstr(buf, "\"timeline_written\":\t\"after the run\""), "%s",
              buf);
}

/* The same for a streamed run (fifo on a sorted native CSV), whose rows
 * are written on threads of their own (experiment/rows_writer.c): the
 * calls of the threads and of the run interleave, so the k-th call is not
 * the same from one run to the next, and each run must hold. Its jobs of
 * 2 to 8 GPUs make the run drop the timeline.csv it began before the run
 * and write it again after: a failed write or close on the dropped file
 * may leave the run whole (exit 0, the new set). With the threads and
 * without. */
Test(faults, a_streamed_run_holds_the_old_or_the_new_set_at_every_failed_call)
{
    char old_cmd[512];
    snprintf(old_cmd, sizeof old_cmd, RUN_ARGS "--policy las --out %s/out",
             dir);
    streamed_faults(old_cmd, RUN_ARGS "--policy fifo ", "streamed run");
}

/* The same where the run reads back the rows it wrote into timeline.csv
 * as it went: jobs of one GPU, then one of two, so that the rows are
 * written with frag_gpus 0 and only their notes kept aside, and at the
 * end timeline.csv is written again from both (experiment/
 * stream_timeline.c). A failed write of those rows fails the run: never a
 * timeline.csv with rows missing. Jobs every 5 s for 1 to 59 s: rows of
 * more than one write (so that one may fail after another went through),
 * and rows left out as they repeat the counts of the row before. */
Test(faults, a_streamed_run_that_reads_its_rows_back_holds_either_set)
{
    char old_cmd[512], new_args[512], trace[128];
    snprintf(trace, sizeof trace, "%s/nil.csv", dir);
    FILE *f = fopen(trace, "w");
    cr_assert(f != NULL, "%s", trace);
    fputs("job_id,submit_time,num_gpus,duration\n", f);
    for (int i = 0; i < 8000; i++)
        fprintf(f, "j%d,%d,%d,%d\n", i, 5 * i, i == 6000 ? 2 : 1,
                1 + i * 37 % 59);
    cr_assert(fclose(f) == 0, "%s", trace);
    snprintf(old_cmd, sizeof old_cmd, RUN_ARGS "--policy las --out %s/out",
             dir);
    snprintf(new_args, sizeof new_args,
             "run -q --trace %s --cluster " SMALL ".json --policy fifo ",
             trace);
    streamed_faults(old_cmd, new_args, "rows read back");
}

Test(faults, a_run_fsyncs_its_set_folder_once)
{
    /* With --outputs summary the set holds summary.json and perf.json.
     * Worked from the steps (docs/guarantees.md): each file at its own
     * commit (summary.json, then perf.json: the 1st and 2nd fsync), each
     * again in the set's commit (clean by then), the set's folder, the
     * manifest, the folder again, the parent: 8 fsyncs. A file's own
     * commit fsyncing the folder too, as it did, would make 10. */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             RUN_ARGS "--policy fifo --outputs summary --out %s/out", dir);
    const char *names[] = {"summary.json", "perf.json"};
    for (int k = 1; k <= 2; k++) {
        char fault[16];
        snprintf(fault, sizeof fault, "fsync:%d", k);
        int rc = settest_run(fault, cmd, err);
        cr_assert(rc == 1 && strstr(err, names[k - 1]) != NULL,
                  "fsync %d should be %s's: exit %d: %s", k, names[k - 1], rc,
                  err);
    }
    int rc = settest_run("fsync:8", cmd, err);
    cr_assert(strstr(err, "fault injected") != NULL && rc == 1,
              "an 8th fsync: exit %d: %s", rc, err);
    rc = settest_run("fsync:9", cmd, err);
    cr_assert(strstr(err, "fault injected") == NULL && rc == 0,
              "a 9th fsync: exit %d: %s", rc, err);
    assert_no_temps(dir, "the runs");
}

/* A stand-in for gnuplot that writes each file the script names: the
 * charts are then files of the set like any other, drawn fast enough to
 * fail every call of a run with charts (tests/cli/test_charts.c draws
 * real ones). */
static void fake_gnuplot(char *path, size_t cap)
{
    snprintf(path, cap, "%s/gnuplot.sh", dir);
    clitest_write_file(dir, "gnuplot.sh",
                       "#!/bin/sh\n"
                       "sed -n \"s/^set output '\\(.*\\)'.*/\\1/p\" |\n"
                       "while read -r f; do echo chart > \"$f\"; done\n");
    cr_assert_eq(chmod(path, 0755), 0);
}

Test(faults, a_chart_write_holds_the_old_or_the_new_set_at_every_failed_call)
{
    char gp[128], old_cmd[512], new_cmd[512], target[128];
    fake_gnuplot(gp, sizeof gp);
    setenv("HETSIM_GNUPLOT", gp, 1);
    snprintf(target, sizeof target, "%s/charts", dir);
    snprintf(old_cmd, sizeof old_cmd, RUN_ARGS "--policy fifo --out %s",
             target);
    snprintf(new_cmd, sizeof new_cmd, RUN_ARGS "--policy fifo --plots --out %s",
             target);
    int n = every_fault(old_cmd, new_cmd, target);
    unsetenv("HETSIM_GNUPLOT");
    cr_expect_gt(n, 50, "only %d faults injected", n);
    fprintf(stderr, "faults: charts: %d faults injected\n", n);
}

Test(faults, a_model_save_keeps_the_old_model_at_every_failed_call)
{
    char old_cmd[512], new_cmd[512], target[128];
    snprintf(target, sizeof target, "%s/model", dir);
    cr_assert_eq(mkdir(target, 0777), 0);
    char data[128], synth[256];
    snprintf(data, sizeof data, "%s/mem.csv", dir);
    snprintf(synth, sizeof synth,
             "dataset synth --schema memory --rows 60 -o %s", data);
    run_ok(synth);
    snprintf(old_cmd, sizeof old_cmd,
             "predictor train -q --data %s --target memory_mb --model "
             "linear -o %s/m.model",
             data, target);
    snprintf(new_cmd, sizeof new_cmd,
             "predictor train -q --data %s --target memory_mb --model "
             "xgboost -o %s/m.model",
             data, target);
    int n = every_fault(old_cmd, new_cmd, target);
    cr_expect_gt(n, 5, "only %d faults injected", n);
    fprintf(stderr, "faults: model: %d faults injected\n", n);
}

/* ---- A sweep cell ------------------------------------------------------- */

static const char cell_spec[] =
    "{\"traces\": [\"" SMALL ".csv\"], \"clusters\": [\"" SMALL ".json\"],\n"
    " \"policies\": [\"fifo\"], \"estimates\": [\"oracle\"], \"seeds\": 1}\n";

/* The one cell folder under OUT/cells, or "" when none. */
static void cell_dir(const char *out, char *path, size_t cap)
{
    char cells[200];
    snprintf(cells, sizeof cells, "%.150s/cells", out);
    path[0] = '\0';
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s 2>/dev/null", cells);
    FILE *p = popen(cmd, "r");
    char name[128];
    if (p && fgets(name, sizeof name, p)) {
        name[strcspn(name, "\n")] = '\0';
        snprintf(path, cap, "%s/%.127s", cells, name);
    }
    if (p)
        pclose(p);
}

Test(faults, a_sweep_cell_is_done_only_when_whole_at_every_failed_call)
{
    clitest_write_file(dir, "spec.json", cell_spec);
    char args[512], ref[128], out[128], cell[400];
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(args, sizeof args, "sweep -q %s/spec.json --out %s", dir, ref);
    run_ok(args);
    cell_dir(ref, cell, sizeof cell);
    char *cell_fp = settest_fingerprint(cell);
    static char ref_csv[1 << 14], csv[1 << 14];
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", ref);
    clitest_read_file(path, ref_csv, sizeof ref_csv);
    snprintf(args, sizeof args, "sweep -q %s/spec.json --out %s", dir, out);
    int injected = 0;
    for (size_t op = 0; op < NOPS; op++) {
        for (int k = 1;; k++) {
            cr_assert_lt(k, 400);
            char fault[32];
            snprintf(fault, sizeof fault, "%s:%d", ops[op], k);
            clitest_remove_dir(out);
            int rc = settest_run(fault, args, err);
            int fired = strstr(err, "fault injected") != NULL;
            assert_no_temps(dir, fault);
            cr_assert_eq(rc, fired ? 1 : 0, "%s: %s", fault, err);
            injected += fired;
            /* The cell is the complete new set, or not done: then it
             * holds none of the run's files. */
            cell_dir(out, cell, sizeof cell);
            snprintf(path, sizeof path, "%s/.hetsim-set", cell);
            struct stat st;
            if (cell[0] && stat(path, &st) == 0) {
                char *fp = settest_fingerprint(cell);
                cr_assert_str_eq(fp, cell_fp, "%s", fault);
                free(fp);
            } else if (cell[0]) {
                snprintf(path, sizeof path, "%s/summary.json", cell);
                cr_assert_neq(stat(path, &st), 0, "%s: half a cell", fault);
            }
            /* Resumed, it ends with the reference's sweep.csv. */
            run_ok(args);
            assert_no_temps(dir, "the resumed sweep");
            snprintf(path, sizeof path, "%s/sweep.csv", out);
            clitest_read_file(path, csv, sizeof csv);
            cr_assert_str_eq(csv, ref_csv, "%s", fault);
            if (!fired)
                break;
        }
    }
    free(cell_fp);
    cr_expect_gt(injected, 30, "only %d faults injected", injected);
    fprintf(stderr, "faults: sweep cell: %d faults injected\n", injected);
}
