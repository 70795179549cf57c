/* test_kill.c -- results on disk survive a process's death: SIGKILL at 50
 * moments of a run drawn from a seeded generator, SIGTERM (whose handler
 * removes every temporary), and twelve runs into one folder at once. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_helpers.h"
#include "set_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"

static char dir[64], trace[128], out[128];
static char err[1 << 16];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-kill");
    snprintf(trace, sizeof trace, "%s/trace.csv", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    char args[512];
    snprintf(args, sizeof args,
             "trace generate -q -o %s --cluster " SMALL ".json --load 0.8 "
             "--seed 3 --jobs 3000",
             trace);
    cr_assert_eq(settest_run(NULL, args, err), 0, "%s", err);
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

TestSuite(kills, .init = setup, .fini = teardown, .timeout = 600);

/* Starts `hetsim run` of POLICY into OUT (SEED: --seed); its pid. */
static pid_t start_run(const char *policy, const char *seed)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        execl(HETSIM_BIN, "hetsim", "run", "-q", "--trace", trace, "--cluster",
              SMALL ".json", "--policy", policy, "--estimates", "noisy:0.5",
              "--seed", seed, "--out", out, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_for(pid_t pid)
{
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static char *run_set(const char *policy, const char *seed)
{
    cr_assert(WIFEXITED(wait_for(start_run(policy, seed))));
    return settest_fingerprint(out);
}

/* A 64-bit linear congruential generator (Knuth's MMIX constants): the
 * kill moments are the same on every run of the test. */
static uint64_t lcg = 20261125;
static double uniform(void)
{
    lcg = lcg * 6364136223846793005u + 1442695040888963407u;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

Test(kills, sigkill_at_fifty_moments_leaves_the_old_or_the_new_set)
{
    char *new_fp = run_set("sjf", "2");
    double t0 = now();
    char *old_fp = run_set("sjf", "1");
    /* How long a run takes here only spreads the kills over it; what is
     * checked holds at any moment. */
    double span = 1.5 * (now() - t0);
    cr_assert(strcmp(old_fp, new_fp) != 0);
    int killed[50], saw_old = 0, saw_new = 0, left = 0;
    for (int i = 0; i < 50; i++) {
        pid_t pid = start_run("sjf", "2");
        sleep_s(uniform() * span);
        kill(pid, SIGKILL);
        wait_for(pid);
        killed[i] = (int)pid;
        char *fp = settest_fingerprint(out);
        int is_old = strcmp(fp, old_fp) == 0, is_new = strcmp(fp, new_fp) == 0;
        cr_assert(is_old || is_new, "kill %d: a mixed set:\n%s", i, fp);
        saw_old += is_old;
        saw_new += is_new;
        free(fp);
        /* Temporaries of the killed processes may stay (and lock files,
         * 0 in the list), no others. */
        int keep[51], kept = 0;
        memcpy(keep, killed, sizeof killed[0] * (size_t)(i + 1));
        keep[i + 1] = 0;
        char first[256];
        cr_assert_eq(settest_temps(dir, keep, i + 2, &kept, first), 0,
                     "kill %d: %s", i, first);
        left += kept > 0;
        if (is_new && uniform() < 0.5) { /* back to the old set, sometimes */
            free(run_set("sjf", "1"));
        }
    }
    /* The next run removes what the killed ones left. */
    free(run_set("sjf", "2"));
    char first[256];
    cr_assert_eq(settest_temps(dir, NULL, 0, NULL, first), 0,
                 "left after the next run: %s", first);
    fprintf(stderr,
            "kills: 50 SIGKILLs: old set %d, new set %d, "
            "temporaries left by %d (cleaned by the next run)\n",
            saw_old, saw_new, left);
    cr_expect_gt(left, 0, "no kill landed while a temporary existed");
    free(old_fp);
    free(new_fp);
}

Test(kills, sigterm_removes_every_temporary_at_once)
{
    char *new_fp = run_set("sjf", "2");
    double t0 = now();
    char *old_fp = run_set("sjf", "1");
    double span = 1.5 * (now() - t0);
    for (int i = 0; i < 10; i++) {
        pid_t pid = start_run("sjf", "2");
        sleep_s(uniform() * span);
        kill(pid, i % 2 ? SIGTERM : SIGINT);
        wait_for(pid);
        char *fp = settest_fingerprint(out);
        cr_assert(strcmp(fp, old_fp) == 0 || strcmp(fp, new_fp) == 0,
                  "signal %d: a mixed set:\n%s", i, fp);
        free(fp);
        char first[256];
        cr_assert_eq(settest_temps(dir, NULL, 0, NULL, first), 0,
                     "signal %d left %s", i, first);
    }
    free(old_fp);
    free(new_fp);
}

Test(kills, twelve_runs_into_one_folder_leave_one_whole_set)
{
    char seeds[12][8];
    char *ref[12];
    for (int i = 0; i < 12; i++) {
        snprintf(seeds[i], sizeof seeds[i], "%d", i + 1);
        ref[i] = run_set("sjf", seeds[i]);
    }
    for (int trial = 0; trial < 3; trial++) {
        pid_t pid[12];
        for (int i = 0; i < 12; i++)
            pid[i] = start_run("sjf", seeds[i]);
        for (int i = 0; i < 12; i++) {
            int st = wait_for(pid[i]);
            cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "run %d failed",
                      i);
        }
        char *fp = settest_fingerprint(out);
        int match = 0;
        for (int i = 0; i < 12; i++)
            match += strcmp(fp, ref[i]) == 0;
        cr_assert_eq(match, 1, "trial %d: not one seed's whole set:\n%s", trial,
                     fp);
        free(fp);
        char first[256];
        cr_assert_eq(settest_temps(dir, NULL, 0, NULL, first), 0, "%s", first);
    }
    for (int i = 0; i < 12; i++)
        free(ref[i]);
}
