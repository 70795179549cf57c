/* test_python.c -- policies in Python (python/, docs/python.md), run
 * through the hetsim binary: the example fifo.py and sjf.py against the
 * built-in fifo and sjf on the shipped traces (jobs.csv byte for byte), a
 * Python SRTF written from the textbook rule against the built-in srtf,
 * and the exit codes and messages of a raising policy, an illegal
 * decision, wrong --policy-opt and broken files. The built-ins are the
 * independent reference: the Python files share no code with them.
 * Start-up: CPython is opened only for a Python policy, and a program
 * without its embedding (hetsim_embed.so) says so.
 * `import hetsim` is checked by tests/python/module_test.py (CTest
 * python_module). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/run_helpers.h"

#define SRC HETSIM_SOURCE_DIR
#define EX SRC "/policies/examples/"
#define FIX SRC "/tests/python/"

static char out[1 << 14], err[1 << 14];

/* Runs `hetsim run -q ARGS --policy POLICY --out DIR/NAME`; exit code. */
static int run(const char *dir, const char *name, const char *policy,
               const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "run -q %s --policy '%s' --out '%s/%s'", args,
             policy, dir, name);
    return clitest_run(NULL, cmd, out, sizeof out, err, sizeof err);
}

/* Whether DIR/A/jobs.csv and DIR/B/jobs.csv are the same bytes. */
static void assert_same_jobs(const char *dir, const char *a, const char *b)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cmp -s '%s/%s/jobs.csv' '%s/%s/jobs.csv'", dir,
             a, dir, b);
    cr_assert_eq(system(cmd), 0, "%s/jobs.csv differs from %s/jobs.csv", b, a);
}

/* The built-in and the Python file give the same jobs.csv on ARGS. */
static void same_as_builtin(const char *builtin, const char *file,
                            const char *args)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    cr_assert_eq(run(dir, "c", builtin, args), 0, "%s: %s", builtin, err);
    cr_assert_eq(run(dir, "py", file, args), 0, "%s: %s", file, err);
    char path[128];
    snprintf(path, sizeof path, "%s/c/jobs.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int lines = 0;
    for (int c; (c = fgetc(f)) != EOF;)
        lines += c == '\n';
    fclose(f);
    cr_assert_gt(lines, 50, "too few jobs to compare");
    assert_same_jobs(dir, "c", "py");
    clitest_remove_dir(dir);
}

#define MSR                                                                    \
    "--trace " SRC "/traces/gavel/msr-seed0-6214e9.csv --cluster gavel-108"
#define GAVEL                                                                  \
    "--trace " SRC "/traces/gavel/msr/seed=0/6214e9.trace --throughputs " SRC  \
    "/traces/gavel/simulation_throughputs.json --cluster gavel-108"
#define TIRESIAS                                                               \
    "--trace " SRC "/traces/tiresias/60_job.csv --cluster philly-like"
#define SWF                                                                    \
    "--trace " SRC                                                             \
    "/traces/swf/NASA-iPSC-1993-3.1-cln.swf --cluster philly-like"
#define ORACLE " --estimates oracle"

Test(python_fifo, equals_builtin_fifo_on_the_msr_trace)
{
    same_as_builtin("fifo", EX "fifo.py", MSR);
}
Test(python_fifo, equals_builtin_fifo_on_the_gavel_trace)
{
    same_as_builtin("fifo", EX "fifo.py", GAVEL);
}
Test(python_fifo, equals_builtin_fifo_on_the_tiresias_trace)
{
    same_as_builtin("fifo", EX "fifo.py", TIRESIAS);
}
Test(python_fifo, equals_builtin_fifo_on_the_nasa_swf_trace)
{
    same_as_builtin("fifo", EX "fifo.py", SWF);
}
Test(python_sjf, equals_builtin_sjf_on_the_msr_trace)
{
    same_as_builtin("sjf", EX "sjf.py", MSR ORACLE);
}
Test(python_sjf, equals_builtin_sjf_on_the_gavel_trace)
{
    same_as_builtin("sjf", EX "sjf.py", GAVEL ORACLE);
}
Test(python_sjf, equals_builtin_sjf_on_the_tiresias_trace)
{
    same_as_builtin("sjf", EX "sjf.py", TIRESIAS ORACLE);
}
Test(python_sjf, equals_builtin_sjf_on_the_nasa_swf_trace)
{
    same_as_builtin("sjf", EX "sjf.py", SWF ORACLE);
}

/* 400 one-GPU jobs at load 0.97 on one 16-GPU node (bench/gen_trace 400
 * 16 0.97 3600 3): 56 of them are preempted by the built-in srtf. */
Test(python_srtf, textbook_srpt_equals_builtin_srtf_with_preemptions)
{
    const char *args =
        "--trace " FIX "srtf-400.csv --cluster " FIX "cluster-16.json" ORACLE;
    same_as_builtin("srtf", FIX "srtf.py", args);
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    cr_assert_eq(run(dir, "c", "srtf", args), 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "test \"$(awk -F, 'NR > 1 && $9 > 0' "
             "'%s/c/jobs.csv' | wc -l)\" -gt 10",
             dir);
    cr_assert_eq(system(cmd), 0, "the SRTF case preempts too little");
    clitest_remove_dir(dir);
}

/* A failed run leaves no result file in its folder. */
static void assert_no_results(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_null(f, "a failed run wrote %s", path);
    snprintf(path, sizeof path, "%s/%s/jobs.csv", dir, name);
    f = fopen(path, "r");
    cr_assert_null(f, "a failed run wrote %s", path);
}

Test(python_errors, an_exception_exits_1_with_file_line_first_then_traceback)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    cr_assert_eq(run(dir, "r", FIX "raises.py", TIRESIAS), 1);
    const char *head = "hetsim: error: " FIX "raises.py:5: ZeroDivisionError: "
                       "division by zero\nTraceback (most recent call last):";
    cr_assert_eq(strncmp(err, head, strlen(head)), 0, "stderr: %s", err);
    cr_assert_not_null(strstr(err, "line 5, in schedule"), "%s", err);
    assert_no_results(dir, "r");
    clitest_remove_dir(dir);
}

Test(python_errors, an_uncaught_illegal_decision_exits_1_naming_it)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    cr_assert_eq(run(dir, "i", FIX "illegal.py", TIRESIAS), 1);
    const char *head = "hetsim: error: " FIX "illegal.py:9: IllegalDecision: "
                       "start: job 0 is not waiting (it is running)\n";
    cr_assert_eq(strncmp(err, head, strlen(head)), 0, "stderr: %s", err);
    assert_no_results(dir, "i");
    clitest_remove_dir(dir);
}

Test(python_errors, a_caught_illegal_decision_lets_the_run_finish_like_fifo)
{
    same_as_builtin("fifo", FIX "catches.py", TIRESIAS);
}

Test(python_errors, an_unknown_policy_opt_exits_2_naming_it)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    cr_assert_eq(run(dir, "p", FIX "params.py",
                     TIRESIAS " --policy-opt alpha=1 --policy-opt beta=2"),
                 2);
    cr_assert_not_null(strstr(err, "policy params has no option 'beta' (its "
                                   "options: alpha, greedy, label)"),
                       "%s", err);
    cr_assert_eq(
        run(dir, "p", FIX "params.py", TIRESIAS " --policy-opt alpha=high"), 2);
    cr_assert_not_null(strstr(err, "--policy-opt alpha wants float like 0.5, "
                                   "got 'high'"),
                       "%s", err);
    assert_no_results(dir, "p");
    cr_assert_eq(run(dir, "p", FIX "params.py",
                     TIRESIAS " --policy-opt alpha=2 --policy-opt greedy=yes"),
                 0, "%s", err);
    clitest_remove_dir(dir);
}

Test(python_errors, broken_files_exit_3_with_file_and_line)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    clitest_write_file(dir, "syntax.py", "class Policy:\n    def schedule(\n");
    clitest_write_file(dir, "none.py", "x = 1\n");
    char args[512];
    snprintf(args, sizeof args, "%s", TIRESIAS);
    char path[128];
    snprintf(path, sizeof path, "%s/syntax.py", dir);
    cr_assert_eq(run(dir, "s", path, args), 3);
    char want[256];
    snprintf(want, sizeof want, "hetsim: error: %s:2: SyntaxError: ", path);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    snprintf(path, sizeof path, "%s/none.py", dir);
    cr_assert_eq(run(dir, "n", path, args), 3);
    cr_assert_not_null(strstr(err, "defines no class Policy"), "%s", err);
    cr_assert_eq(run(dir, "m", "/nonexistent/mine.py", args), 3);
    cr_assert_not_null(strstr(err, "/nonexistent/mine.py: cannot open"), "%s",
                       err);
    clitest_remove_dir(dir);
}

/* By hand: "fast" (speed 2) and "slow" (speed 1), one GPU each; three
 * 1-GPU jobs at 0 of 200, 60, 100 s on the fast type. j0 takes fast
 * [0, 200], j1 slow [0, 120]. For j2, fast finishes at 200 + 100 = 300,
 * slow at 120 + 200 = 320: fastest_finish.py waits for fast and ends at
 * 300, where fifo takes slow when it frees at 120 and ends at 320. */
Test(python_examples, fastest_finish_waits_for_the_type_that_ends_a_job_first)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    const char *args =
        "--trace " FIX "three-jobs.csv --cluster " FIX "two-speeds.json";
    cr_assert_eq(run(dir, "ff", EX "fastest_finish.py", args), 0, "%s", err);
    cr_assert_eq(run(dir, "fifo", "fifo", args), 0, "%s", err);
    char path[128], text[1024];
    snprintf(path, sizeof path, "%s/ff/jobs.csv", dir);
    clitest_read_file(path, text, sizeof text);
    cr_assert_not_null(strstr(text, "j0,0,0,200,200,0,1,fast,"), "%s", text);
    cr_assert_not_null(strstr(text, "j1,0,0,120,120,0,1,slow,"), "%s", text);
    cr_assert_not_null(strstr(text, "j2,0,200,300,300,200,1,fast,"), "%s",
                       text);
    snprintf(path, sizeof path, "%s/fifo/jobs.csv", dir);
    clitest_read_file(path, text, sizeof text);
    cr_assert_not_null(strstr(text, "j2,0,120,320,320,120,1,slow,"), "%s",
                       text);
    clitest_remove_dir(dir);
}

/* compare and sweep take Python files like plugins; a sweep SPEC names
 * them relative to itself, like its traces, and their options are
 * checked by the runs. The fifo.py rows equal the fifo rows. */
Test(python_commands, compare_and_sweep_run_python_policies)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp " EX "fifo.py %s/mine.py", dir);
    cr_assert_eq(system(cmd), 0);
    clitest_write_file(dir, "spec.json",
                       "{\"traces\": [\"" SRC "/traces/tiresias/60_job.csv\"],"
                       " \"clusters\": [\"philly-like\"], \"policies\": "
                       "[\"fifo\", \"mine.py\"], \"seeds\": [1]}\n");
    snprintf(cmd, sizeof cmd, "sweep %s/spec.json -q -j 1 --out %s/sweep", dir,
             dir);
    cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    snprintf(cmd, sizeof cmd,
             "test \"$(grep -c ',fifo,' %s/sweep/sweep.csv)"
             "\" = 1 && test \"$(grep ',fifo,' %s/sweep/sweep.csv | cut -d, "
             "-f5-)\" = \"$(grep ',mine.py,' %s/sweep/sweep.csv | cut -d, "
             "-f5-)\"",
             dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "the mine.py row differs from fifo's");
    snprintf(cmd, sizeof cmd,
             "compare " TIRESIAS " --policies fifo,%s/mine.py"
             " --out %s/cmp -j 1",
             dir, dir);
    cr_assert_eq(clitest_run(NULL, cmd, out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    cr_assert_not_null(strstr(out, "mine.py"), "%s", out);
    clitest_remove_dir(dir);
}

/* GPU sharing: the Python view of shares (job_gpu_milli, checked by
 * milli.py against the trace's own gpu_milli column) and placements that
 * carry a share, giving the built-in fifo's jobs.csv on the shipped pods. */
#define PODS                                                                   \
    "--gpu-sharing --placement best-fit --trace " SRC                          \
    "/traces/alibaba2023/pods.csv --cluster alibaba2023:" SRC                  \
    "/traces/alibaba2023/nodes.csv"

Test(python_sharing, shares_read_and_placed_like_builtin_fifo)
{
    same_as_builtin("fifo", FIX "milli.py", PODS);
}

Test(python_sharing, whole_gpu_jobs_ask_1000_milli_without_sharing)
{
    char dir[64];
    clitest_make_dir(dir, "hetsim-python");
    /* Tiresias' jobs ask whole GPUs: job 0 is not the 250-milli pod 0, so
     * milli.py must raise */
    cr_assert_eq(run(dir, "w", FIX "milli.py", TIRESIAS), 1, "%s", err);
    cr_assert(strstr(err, "pod 0: gpu_milli 1000"), "%s", err);
    clitest_remove_dir(dir);
}

/* Start-up (docs/performance.md): the program opens CPython, through its
 * embedding hetsim_embed.so, only for a Python policy. The dynamic
 * loader's own record (LD_DEBUG=files, glibc) says which libraries a run
 * opened: libpython for fifo.py; for fifo neither it, nor libxgboost, nor
 * OpenMPI's libmpi. */
static int opened(const char *policy, const char *library)
{
    char dir[64], cmd[2048];
    clitest_make_dir(dir, "hetsim-python");
    snprintf(cmd, sizeof cmd,
             "LD_DEBUG=files %s run -q %s --policy '%s' --out '%s/o' "
             "2>&1 >/dev/null | grep -q 'file=%s'",
             HETSIM_BIN, TIRESIAS, policy, dir, library);
    int status = system(cmd);
    clitest_remove_dir(dir);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "%s", cmd);
    return WEXITSTATUS(status) == 0;
}

Test(python_startup, only_a_python_policy_opens_libpython)
{
    cr_assert(opened(EX "fifo.py", "libpython3"));
    cr_assert_not(opened("fifo", "libpython3"));
    cr_assert_not(opened("fifo", "libxgboost"));
    cr_assert_not(opened(EX "fifo.py", "libxgboost"));
    cr_assert_not(opened("fifo", "libmpi"));
}

/* A copy of the program without hetsim_embed.so beside it still runs the
 * built-in policies, and says what is missing for a Python one. */
Test(python_startup, a_program_without_its_embedding_names_the_missing_file)
{
    char dir[64], cmd[2048];
    clitest_make_dir(dir, "hetsim-python");
    snprintf(cmd, sizeof cmd,
             "cp %s %s/hetsim && %s/hetsim run -q %s --policy fifo --out "
             "%s/c 2>%s/err",
             HETSIM_BIN, dir, dir, TIRESIAS, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd,
             "%s/hetsim run -q %s --policy " EX "fifo.py --out %s/py "
             "2>%s/err",
             dir, TIRESIAS, dir, dir);
    int status = system(cmd);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "%s", cmd);
    char path[128], text[1024], want[256];
    snprintf(path, sizeof path, "%s/err", dir);
    clitest_read_file(path, text, sizeof text);
    snprintf(want, sizeof want,
             "hetsim: error: " EX "fifo.py: Python policies need "
             "hetsim_embed.so, built with the hetsim program and kept beside "
             "it: not found in %s\n",
             dir);
    cr_assert_str_eq(text, want);
    clitest_remove_dir(dir);
}
