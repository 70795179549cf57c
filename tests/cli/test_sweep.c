/* test_sweep.c -- `hetsim sweep`: statistics over seeds against hand
 * computation, the FIFO schedule drawn by hand in tests/test_policies.c
 * (fifo/follows_the_schedule_drawn_by_hand: average JCT 77.5 s, makespan
 * 170 s) seen through a sweep, resuming after a kill, the same sweep.csv
 * under mpirun as on one machine, and a strict SPEC. */
#include <criterion/criterion.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_helpers.h"
#include "sweep_internal.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"

static char sw_out[1 << 16], sw_err[1 << 16];
static char sw_dir[64];

static void setup(void) { clitest_make_dir(sw_dir, "hetsim-sweep"); }
static void teardown(void) { clitest_remove_dir(sw_dir); }

TestSuite(sweep, .init = setup, .fini = teardown);

/* ---- Statistics over seeds, by hand ------------------------------------ */

Test(sweep, statistics_of_three_seeds_match_the_hand_computation)
{
    /* x = 10, 12, 17: mean 39 / 3 = 13; squared deviations 9 + 1 + 16 =
     * 26, variance 26 / (3 - 1) = 13, sd = sqrt(13) = 3.605551...; the
     * 97.5% quantile of Student's t with 2 degrees of freedom is 4.302653
     * (any t table; R: qt(0.975, 2) = 4.302653), so the half-width is
     * 4.302653 * sqrt(13) / sqrt(3) = 4.302653 * 2.081666 = 8.956686. */
    const double x[] = {10, 12, 17};
    struct sweep_stat st = sweep_stat_of(x, 3);
    cr_expect_float_eq(st.mean, 13.0, 1e-12);
    cr_expect_float_eq(st.sd, 3.605551275463989, 1e-12);
    cr_expect_float_eq(st.ci95, 8.956686, 1e-6);
}

Test(sweep, one_seed_has_a_mean_but_no_spread)
{
    const double x[] = {42};
    struct sweep_stat st = sweep_stat_of(x, 1);
    cr_expect_eq(st.mean, 42.0);
    cr_expect(isnan(st.sd) && isnan(st.ci95));
    const double y[] = {1, NAN, 3}; /* a seed without the figure */
    cr_expect(isnan(sweep_stat_of(y, 3).mean));
}

/* ---- Running sweeps ----------------------------------------------------- */

/* Writes SPEC text into sw_dir/NAME. */
static void write_spec(const char *name, const char *text)
{
    clitest_write_file(sw_dir, name, text);
}

static int sweep(const char *spec, const char *extra)
{
    char args[1024];
    snprintf(args, sizeof args, "sweep %s/%s %s", sw_dir, spec, extra);
    return clitest_run(NULL, args, sw_out, sizeof sw_out, sw_err,
                       sizeof sw_err);
}

static void read_in(const char *sub, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", sw_dir, sub);
    clitest_read_file(path, buf, cap);
}

/* Field K (from 0) of row ROW (from 0, after the header) of CSV. */
static double csv_field(const char *csv, int row, int k)
{
    const char *p = strchr(csv, '\n');
    for (int r = 0; p && r < row; r++)
        p = strchr(p + 1, '\n');
    cr_assert_not_null(p, "no row %d", row);
    p++;
    for (int i = 0; i < k; i++) {
        p = strpbrk(p, ",\n");
        cr_assert(p && *p == ',', "row %d has no field %d", row, k);
        p++;
    }
    return *p == ',' ? NAN : strtod(p, NULL);
}

static const char small_spec[] =
    "{\"traces\": [\"" SMALL ".csv\"], \"clusters\": [\"" SMALL ".json\"],\n"
    " \"policies\": [\"fifo\"], \"estimates\": [\"oracle\"], \"seeds\": 3}\n";

Test(sweep, shows_the_hand_drawn_fifo_schedule_with_no_spread)
{
    write_spec("small.json", small_spec);
    cr_assert_eq(sweep("small.json", "-q -j 2 --out " "/dev/null/x"), 1);
    char out[128];
    snprintf(out, sizeof out, "-q -j 2 --out %s/out", sw_dir);
    cr_assert_eq(sweep("small.json", out), 0, "%s", sw_err);
    static char csv[1 << 14];
    read_in("out/sweep.csv", csv, sizeof csv);
    cr_expect(strncmp(csv, "trace,load,cluster,policy,estimates,seeds,"
                      "jobs_completed_mean,jobs_completed_sd,"
                      "jobs_completed_ci95,makespan_s_mean,", 96) == 0,
              "%s", csv);
    /* A trace file and FIFO: every seed gives the same schedule. */
    cr_expect_eq(csv_field(csv, 0, 5), 3);    /* seeds */
    cr_expect_eq(csv_field(csv, 0, 6), 6);    /* jobs completed: j5 never */
    cr_expect_eq(csv_field(csv, 0, 9), 170);  /* makespan: j6 ends at 170 */
    cr_expect_eq(csv_field(csv, 0, 10), 0);   /* its sd */
    cr_expect_eq(csv_field(csv, 0, 12), 77.5); /* avg JCT 465 / 6 */
    cr_expect_eq(clitest_count_entries(sw_dir), 2); /* spec, out */

    /* Run again: every cell is done, none runs; progress says so. */
    snprintf(out, sizeof out, "--progress -j 2 --out %s/out", sw_dir);
    cr_assert_eq(sweep("small.json", out), 0, "%s", sw_err);
    cr_expect(strstr(sw_err, "3/3 cells done (3 before)") != NULL, "%s",
              sw_err);
    cr_expect(strstr(sw_err, "3 cells; statistics over 3 seeds") != NULL,
              "%s", sw_out);
    static char again[1 << 14];
    read_in("out/sweep.csv", again, sizeof again);
    cr_expect_str_eq(again, csv);
}

static const char gen_spec[] =
    "{\"generator\": {\"jobs\": 40, \"gpus\": \"1:0.5,2:0.5\",\n"
    "                 \"load\": [0.6, 0.9]},\n"
    " \"clusters\": [\"" SMALL ".json\"],\n"
    " \"policies\": [\"fifo\", {\"name\": \"las\", \"options\": "
    "{\"quantum\": 30}}],\n"
    " \"seeds\": [1, 2, 3]}\n";

/* Figure KEY of a cell's summary.json, found by its canonical text. */
static double cell_figure(const char *out, const char *policy,
                          const char *load, unsigned seed, const char *key)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -l -x 'policy=%s' %s/%s/cells/*/cell.txt"
             " | xargs grep -l -x 'load=%s' | xargs grep -l -x 'seed=%u'",
             policy, sw_dir, out, load, seed);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char path[512] = "";
    cr_assert_not_null(fgets(path, sizeof path, p), "no cell for %s", cmd);
    pclose(p);
    *strrchr(path, '/') = '\0';
    static char json[1 << 14];
    char file[600];
    snprintf(file, sizeof file, "%s/summary.json", path);
    clitest_read_file(file, json, sizeof json);
    char *at = strstr(json, key);
    cr_assert_not_null(at, "%s lacks %s", file, key);
    return strtod(strchr(at, ':') + 1, NULL);
}

Test(sweep, confidence_intervals_agree_with_three_seeds_by_hand)
{
    write_spec("gen.json", gen_spec);
    char out[128];
    snprintf(out, sizeof out, "-q -j 2 --out %s/gen", sw_dir);
    cr_assert_eq(sweep("gen.json", out), 0, "%s", sw_err);
    static char csv[1 << 14];
    read_in("gen/sweep.csv", csv, sizeof csv);
    /* Row 2: load 0.9, fifo. Its three cells' avg JCT, and the statistics
     * written out as in the hand computation above. */
    double x[3], t = 4.302652729911275; /* qt(0.975, 2) */
    for (unsigned s = 0; s < 3; s++)
        x[s] = cell_figure("gen", "fifo", "0.9", s + 1, "\"avg_jct_s\"");
    double mean = (x[0] + x[1] + x[2]) / 3;
    double ss = (x[0] - mean) * (x[0] - mean) + (x[1] - mean) * (x[1] - mean)
                + (x[2] - mean) * (x[2] - mean);
    double sd = sqrt(ss / 2);
    cr_assert(sd > 0, "the seeds should differ");
    cr_expect_float_eq(csv_field(csv, 2, 1), 0.9, 0);
    cr_expect_float_eq(csv_field(csv, 2, 12), mean, 1e-9 * mean);
    cr_expect_float_eq(csv_field(csv, 2, 13), sd, 1e-9 * sd);
    cr_expect_float_eq(csv_field(csv, 2, 14), t * sd / sqrt(3), 1e-9 * sd);
    struct stat st;
    char chart[128];
    snprintf(chart, sizeof chart, "%s/gen/jct_vs_load.gp", sw_dir);
    cr_expect_eq(stat(chart, &st), 0, "no jct_vs_load chart");
}

/* ---- Resuming ----------------------------------------------------------- */

static int count_done(const char *out)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s/%s/cells/*/summary.json 2>/dev/null | "
             "wc -l", sw_dir, out);
    FILE *p = popen(cmd, "r");
    int n = 0;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = 0;
        pclose(p);
    }
    return n;
}

/* 2 loads x 3 policies x 8 seeds = 48 cells of 2,000 jobs each: long
 * enough to be killed midway. */
static const char slow_spec[] =
    "{\"generator\": {\"jobs\": 2000, \"gpus\": \"1:0.5,2:0.3,4:0.2\",\n"
    "                 \"load\": [0.8, 0.95]},\n"
    " \"clusters\": [\"" SMALL ".json\"],\n"
    " \"policies\": [\"fifo\", \"las\", \"tiresias\"], \"seeds\": 8}\n";

Test(sweep, a_killed_sweep_resumes_to_the_same_result, .timeout = 300)
{
    write_spec("slow.json", slow_spec);
    char spec[128], out[128];
    snprintf(spec, sizeof spec, "%s/slow.json", sw_dir);
    snprintf(out, sizeof out, "%s/killed", sw_dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0); /* the sweep and its children, killed together */
        freopen("/dev/null", "w", stderr);
        execl(HETSIM_BIN, "hetsim", "sweep", spec, "-q", "-j", "2", "--out",
              out, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    struct timespec tick = {0, 2000000};
    int status;
    while (count_done("killed") < 5) {
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0,
                     "the sweep ended before it was killed");
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert(WIFSIGNALED(status), "the sweep ended before it was killed");
    int before = count_done("killed");
    cr_assert(before < 48, "every cell was done before the kill");

    /* A finished cell is not run again: its summary.json stays as it is. */
    char first[256];
    snprintf(first, sizeof first, "ls %s/killed/cells/*/summary.json | head "
             "-n 1", sw_dir);
    FILE *p = popen(first, "r");
    char path[256] = "";
    cr_assert_not_null(fgets(path, sizeof path, p));
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    struct stat st0, st1;
    cr_assert_eq(stat(path, &st0), 0);

    snprintf(out, sizeof out, "-q -j 2 --out %s/killed", sw_dir);
    cr_assert_eq(sweep("slow.json", out), 0, "%s", sw_err);
    cr_assert_eq(count_done("killed"), 48);
    cr_assert_eq(stat(path, &st1), 0);
    cr_expect_eq(st0.st_ino, st1.st_ino, "a finished cell ran again");

    snprintf(out, sizeof out, "-q -j 2 --out %s/whole", sw_dir);
    cr_assert_eq(sweep("slow.json", out), 0, "%s", sw_err);
    static char a[1 << 16], b[1 << 16];
    read_in("killed/sweep.csv", a, sizeof a);
    read_in("whole/sweep.csv", b, sizeof b);
    cr_assert(strlen(a) > 100);
    cr_expect_str_eq(a, b);
}

/* ---- Under MPI ------------------------------------------------------------ */

Test(sweep, mpirun_with_two_ranks_writes_the_same_sweep_csv, .timeout = 300)
{
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        cr_skip_test("mpirun not found (Debian: openmpi-bin): MPI sweep "
                     "not tested");
    }
    write_spec("gen.json", gen_spec);
    char out[128];
    snprintf(out, sizeof out, "-q -j 2 --out %s/local", sw_dir);
    cr_assert_eq(sweep("gen.json", out), 0, "%s", sw_err);
    char cmd[1024];
    /* OpenMPI never frees what MPI_Init allocates in its plugins, so
     * under the sanitizers leak detection is off in the ranks (the same
     * code runs without MPI, leaks checked, in every other test). */
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}"
             "detect_leaks=0\" mpirun --allow-run-as-root --oversubscribe "
             "-np 2 " HETSIM_BIN " sweep -q -j 2 %s/gen.json --out %s/mpi "
             ">%s/mpi.log 2>&1", sw_dir, sw_dir, sw_dir);
    int rc = system(cmd);
    static char log[1 << 14];
    read_in("mpi.log", log, sizeof log);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "mpirun: %s", log);
    static char a[1 << 16], b[1 << 16];
    read_in("local/sweep.csv", a, sizeof a);
    read_in("mpi/sweep.csv", b, sizeof b);
    cr_assert(strlen(a) > 100);
    cr_expect_str_eq(a, b);
}

/* ---- A strict SPEC -------------------------------------------------------- */

static void expect_bad_spec(const char *text, const char *message)
{
    write_spec("bad.json", text);
    char out[128];
    snprintf(out, sizeof out, "-q --out %s/bad", sw_dir);
    cr_expect_eq(sweep("bad.json", out), 3, "%s", text);
    cr_expect(strstr(sw_err, message) != NULL, "wanted '%s', got: %s",
              message, sw_err);
    struct stat st;
    snprintf(out, sizeof out, "%s/bad", sw_dir);
    cr_expect_neq(stat(out, &st), 0, "a bad SPEC left a results folder");
}

Test(sweep, a_bad_spec_is_named_by_file_and_line)
{
    expect_bad_spec("{\"clusters\": [\"gavel-108\"],\n"
                    " \"policies\": [\"fifo\"],\n"
                    " \"seeds\": 2, \"trace\": [\"x.csv\"]}\n",
                    "bad.json:3: unknown key \"trace\"");
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\"],\n"
                    " \"clusters\": [\"gavel-108\"],\n"
                    " \"policies\": [\"fifo\"],\n"
                    " \"seeds\": \"3\"}\n",
                    "bad.json:4: \"seeds\" must be a count");
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\"], \"clusters\": [\"gavel-108\"],"
                    "\n \"policies\": [\"fifo\",\n  {\"name\": \"lasx\"}],"
                    "\n \"seeds\": 1}\n",
                    "bad.json:3: unknown policy \"lasx\"");
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\"],\n\n  \"clusters\": [1],\n"
                    " \"policies\": [\"fifo\"], \"seeds\": 1}\n",
                    "bad.json:3: \"clusters\": each entry must be");
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\"],\n \"clusters\": [\"gavel-108\"]"
                    ",\n \"policies\": [\"fifo\"], \"seeds\": 1,,}\n",
                    /* the second comma of ",,}" is the 35th character */
                    "bad.json:3:35: invalid JSON: trailing comma before '}'");
    expect_bad_spec("{\"generator\": {\"load\": [0.5, -1]},\n"
                    " \"clusters\": [\"gavel-108\"], \"policies\": [\"fifo\"],"
                    " \"seeds\": 1}\n",
                    "bad.json:1: generator.load: each load must be");
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\",\n  \"nothing.csv\"],\n"
                    " \"clusters\": [\"gavel-108\"], \"policies\": [\"fifo\"],"
                    " \"seeds\": 1}\n",
                    "bad.json:2: ");
    cr_expect(strstr(sw_err, "nothing.csv: No such file") != NULL, "%s",
              sw_err);
    expect_bad_spec("{\"traces\": [\"" SMALL ".csv\"], \"seeds\": 1,\n"
                    " \"policies\": [\"fifo\"]}\n",
                    "bad.json:1: missing \"clusters\"");
}

Test(sweep, misuse_is_a_usage_error)
{
    cr_expect_eq(clitest_run(NULL, "sweep", sw_out, sizeof sw_out, sw_err,
                             sizeof sw_err), 2);
    cr_expect_eq(clitest_run(NULL, "sweep x.json -j 0", sw_out, sizeof sw_out,
                             sw_err, sizeof sw_err), 2);
    cr_expect_eq(clitest_run(NULL, "sweep --help", sw_out, sizeof sw_out,
                             sw_err, sizeof sw_err), 0);
    cr_expect(strstr(sw_out, "mpirun -np N hetsim sweep") != NULL);
}

/* Charts are drawn into OUT/.charts.tmp.PID and renamed into place one by
 * one: after a sweep the charts are there and no temporary folder is, and
 * a leftover of a dead process (pid 999999999 cannot exist: above Linux's
 * pid_max) is removed by the next sweep. */
Test(sweep, charts_land_whole_and_leave_no_temporary_folder)
{
    write_spec("gen.json", gen_spec);
    char out[128], stale[192], path[192], cmd[256];
    snprintf(out, sizeof out, "%s/charts", sw_dir);
    snprintf(cmd, sizeof cmd, "-q --out %s", out);
    cr_assert_eq(sweep("gen.json", cmd), 0, "%s", sw_err);
    snprintf(stale, sizeof stale, "%s/.charts.tmp.999999999", out);
    cr_assert_eq(mkdir(stale, 0755), 0);
    snprintf(cmd, sizeof cmd, "-q --out %s", out);
    cr_assert_eq(sweep("gen.json", cmd), 0, "%s", sw_err);
    snprintf(path, sizeof path, "%s/jct_vs_load.png", out);
    cr_assert_eq(access(path, F_OK), 0, "no %s", path);
    cr_assert_neq(access(stale, F_OK), 0, "%s is still there", stale);
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '^\\.charts\\.tmp'", out);
    cr_assert_neq(system(cmd), 0, "a .charts.tmp folder is left in %s", out);
}
