/* test_newcomer.c -- issue 17 as a new user meets hetsim: no silent misread
 * (unknown columns, unusable GPU types, required-column typos, JSON
 * trailing commas), one command line (did you mean, help CMD, --version,
 * compare's options, checks before running, reruns into the same --out,
 * --trace -), and jobs.csv's reason. Runs the built binary. Every expected
 * figure is counted by hand from the small inputs written here. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run_helpers.h"

#define SMALL HETSIM_TEST_DATA "/cli/small"
#define GAVEL_TRACE HETSIM_SOURCE_DIR "/traces/gavel/msr/seed=0/6214e9.trace"
#define GAVEL_MATRIX                                                           \
    HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"

static char out[1 << 16], err[1 << 16];
static char dir[64];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-newcomer");
}
static void teardown(void)
{
    clitest_remove_dir(dir);
}

static int hetsim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int hetsim(const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return clitest_run(dir, args, out, sizeof out, err, sizeof err);
}

static int exists(const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

TestSuite(misread, .init = setup, .fini = teardown);

/* Three jobs; job c may use only K80, which gavel-108 has 36 of, but it
 * asks for 4 GPUs: fits. A misspelt gpu_types column would free job c. */
Test(misread, unknown_column_warns_naming_the_nearest_known_one)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration,gpu_types\n"
                       "a,0,1,100,V100\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --out r"), 0,
                 "%s", err);
    cr_assert(strstr(err, "t.csv:1:5: unknown column \"gpu_types\" (did you "
                          "mean \"gpu_type\"?)"),
              "%s", err);
}

Test(misread, strict_makes_an_unknown_column_an_error)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration,gpu_memory_mb\n"
                       "a,0,1,100,1000\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --strict "
                        "--out r"),
                 3);
    cr_assert(strstr(err, "unknown column \"gpu_memory_mb\" (did you mean "
                          "\"gpu_mem_mb\"?)"),
              "%s", err);
    cr_assert(!exists("r/summary.json"));
}

Test(misread, a_typo_in_a_required_column_names_it_without_format)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_tme,num_gpus,duration\na,0,1,100\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --out r"), 3);
    cr_assert(strstr(err, "t.csv:1:2: missing required column "
                          "\"submit_time\" (is \"submit_tme\" a typo of it?)"),
              "%s", err);
}

/* mixed-modern: 64 V100 + 48 A100 + 32 H100; Gavel's matrix measures only
 * K80, P100, V100, so 48 + 32 = 80 of 144 GPUs can run nothing. */
Test(misread, gpu_types_no_job_can_use_are_reported_before_the_run)
{
    cr_assert_eq(hetsim("run --trace '" GAVEL_TRACE "' --cluster "
                        "mixed-modern --throughputs " GAVEL_MATRIX
                        " --dry-run"),
                 0, "%s", err);
    cr_assert(strstr(err, "80 of 144 GPUs of cluster mixed-modern (A100, "
                          "H100) can run no job"),
              "%s", err);
}

/* gavel-108's largest type has 36 GPUs: a 64-GPU job fits nowhere. */
Test(misread, jobs_no_type_can_run_are_reported_and_given_a_reason)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "a,0,1,100\nb,0,64,100\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --out r"), 0,
                 "%s", err);
    cr_assert(strstr(err, "1 of 2 jobs of t.csv can run on no GPU type"), "%s",
              err);
    static char jobs[4096];
    char path[128];
    snprintf(path, sizeof path, "%s/r/jobs.csv", dir);
    clitest_read_file(path, jobs, sizeof jobs);
    cr_assert(strstr(jobs, ",status,reason\n"), "%s", jobs);
    cr_assert(strstr(jobs, "a,0,0,100,100,0,1,V100,0,completed,\n"), "%s",
              jobs);
    cr_assert(strstr(jobs, ",64,,0,unschedulable,needs 64 GPUs; the GPU "
                           "types it may use have at most 36\n"),
              "%s", jobs);
}

Test(misread, json_trailing_comma_is_named_with_line_and_column)
{
    clitest_write_file(dir, "c.json",
                       "{\n  \"name\": \"x\",\n  \"nodes\": [\n"
                       "    {\"gpu_type\": \"V100\", \"gpus\": 4},\n  ]\n}\n");
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,100\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster c.json -q --out r"), 3);
    /* the comma is the 36th character of line 4 */
    cr_assert(strstr(err, "c.json:4:36: invalid JSON: trailing comma before "
                          "']'"),
              "%s", err);
}

Test(misread, generate_says_which_worker_its_durations_are_on)
{
    cr_assert_eq(hetsim("trace generate --jobs 5 --rate 0.01 "
                        "--job-types-from " GAVEL_MATRIX
                        " --cluster mixed-modern -o g.csv"),
                 0, "%s", err);
    /* mixed-modern's reference type is V100, which the matrix has */
    cr_assert(strstr(err, "durations are run times on its worker type 'v100' "
                          "(the reference GPU type of --cluster)"),
              "%s", err);
    clitest_write_file(dir, "k.json",
                       "{\"name\": \"k\", \"reference_gpu\": \"T4\", "
                       "\"gpu_types\": [{\"name\": \"T4\", \"memory_mb\": "
                       "16384, \"speed\": 1}], \"nodes\": [{\"gpu_type\": "
                       "\"T4\", \"gpus_per_node\": 4}]}\n");
    cr_assert_eq(hetsim("trace generate --jobs 5 --rate 0.01 "
                        "--job-types-from " GAVEL_MATRIX
                        " --cluster k.json -o g.csv"),
                 0, "%s", err);
    cr_assert(strstr(err, "has no worker type 'T4' (the reference GPU type "
                          "of cluster k); durations are run times on 'v100' "
                          "instead"),
              "%s", err);
}

TestSuite(command_line, .init = setup, .fini = teardown);

Test(command_line, did_you_mean_for_options_commands_policies_clusters)
{
    cr_assert_eq(hetsim("run --polcy fifo"), 2);
    cr_assert(strstr(err, "unknown option '--polcy' (did you mean "
                          "'--policy'?)"),
              "%s", err);
    cr_assert_eq(hetsim("comapre"), 2);
    cr_assert(strstr(err, "(did you mean 'compare'?)"), "%s", err);
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,100\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 --policy "
                        "fifoo"),
                 2);
    cr_assert(strstr(err, "unknown policy 'fifoo' (did you mean 'fifo'?)"),
              "%s", err);
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel108"), 3);
    cr_assert(strstr(err, "(did you mean 'gavel-108'?)"), "%s", err);
    cr_assert_eq(hetsim("compare --trace t.csv --cluster gavel-108 "
                        "--policies fifo,sjff --out c"),
                 2);
    cr_assert(strstr(err, "(did you mean 'sjf'?)"), "%s", err);
}

Test(command_line, help_cmd_is_cmd_help)
{
    static char help[1 << 16];
    cr_assert_eq(hetsim("run --help"), 0);
    snprintf(help, sizeof help, "%s", out);
    cr_assert_eq(hetsim("help run"), 0);
    cr_assert_str_eq(out, help);
    cr_assert(strstr(out, "Usage: hetsim run"));
    cr_assert_eq(hetsim("help trace stats"), 0);
    cr_assert(strstr(out, "Usage: hetsim trace stats"), "%s", out);
}

Test(command_line, version_names_the_commit)
{
    cr_assert_eq(hetsim("--version"), 0);
    cr_assert(strncmp(out, "hetsim 0.", 9) == 0, "%s", out);
    cr_assert(strstr(out, " (commit "), "%s", out);
}

Test(command_line, trace_dash_reads_standard_input)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,100\n"
                       "b,5,1,abc\n");
    cr_assert_eq(hetsim("run --trace - --cluster gavel-108 -q --out r "
                        "< t.csv"),
                 3);
    cr_assert(strstr(err, "-:3:4: duration must be a number > 0"), "%s", err);
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,100\n");
    cr_assert_eq(hetsim("run --trace - --cluster gavel-108 -q --out r "
                        "< t.csv"),
                 0, "%s", err);
    cr_assert(exists("r/summary.json"));
}

TestSuite(compare_cli, .init = setup, .fini = teardown);

/* sjf needs estimates: the check fails before fifo runs, nothing written. */
Test(compare_cli, checks_every_policy_before_running_any)
{
    cr_assert_eq(hetsim("compare --trace " SMALL ".csv --cluster " SMALL
                        ".json --policies fifo,sjf --out c"),
                 2);
    cr_assert(strstr(err, "policy sjf needs run-time estimates"), "%s", err);
    cr_assert(!exists("c/fifo"));
    cr_assert(!exists("c/report.html"));
}

Test(compare_cli, passes_run_options_and_shows_cluster_and_placement)
{
    cr_assert_eq(hetsim("compare --trace " SMALL ".csv --cluster " SMALL
                        ".json --policies fifo,sjf --estimates oracle "
                        "--placement consolidate --backfill easy "
                        "--restart-overhead 5 --out c"),
                 0, "%s", err);
    static char summary[1 << 14];
    char path[128];
    snprintf(path, sizeof path, "%s/c/sjf/summary.json", dir);
    clitest_read_file(path, summary, sizeof summary);
    cr_assert(strstr(summary, "\"placement\":\t\"consolidate\""), "%s",
              summary);
    cr_assert(strstr(summary, "\"backfill\":\t\"easy\""), "%s", summary);
    cr_assert(strstr(summary, "\"restart_overhead_s\":\t5"), "%s", summary);
    cr_assert(strstr(out, "placement consolidate"), "%s", out);
    cr_assert(strstr(out, "unschedulable"), "%s", out);
    cr_assert(strstr(err, "report "), "%s", err);
    cr_assert(strstr(err, "c/report.html (open it in a browser)"), "%s", err);
}

Test(compare_cli, a_rerun_leaves_nothing_of_the_earlier_one)
{
    cr_assert_eq(hetsim("compare --trace " SMALL ".csv --cluster " SMALL
                        ".json --policies fifo,sjf,las --estimates oracle "
                        "--out c"),
                 0, "%s", err);
    cr_assert(exists("c/las/summary.json"));
    clitest_write_file(dir, "c/notes.txt", "mine\n");
    cr_assert_eq(hetsim("compare --trace " SMALL ".csv --cluster " SMALL
                        ".json --policies fifo,sjf --estimates oracle "
                        "--out c"),
                 0, "%s", err);
    cr_assert(!exists("c/las"));
    cr_assert(exists("c/sjf/summary.json"));
    cr_assert(exists("c/report.html"));
    cr_assert(exists("c/notes.txt")); /* not compare's: kept */
}

Test(compare_cli, json_prints_every_policy)
{
    cr_assert_eq(hetsim("compare --trace " SMALL ".csv --cluster " SMALL
                        ".json --policies fifo,sjf --estimates oracle "
                        "--json --out c"),
                 0, "%s", err);
    cr_assert(strstr(out, "\"policy\":\t\"fifo\""), "%s", out);
    cr_assert(strstr(out, "\"policy\":\t\"sjf\""), "%s", out);
    cr_assert(!strstr(out, "hetsim compare:"), "status went to stdout");
}

TestSuite(outputs, .init = setup, .fini = teardown);

/* Two 5 s jobs on an empty cluster: each JCT is 5 s; against the 10 s
 * floor that was 5 / 10 = 0.5, below what a slowdown can mean. Bounded
 * slowdown (Feitelson) is max(1, 5 / max(5, 10)) = 1 for each, mean 1. */
Test(outputs, bounded_slowdown_is_never_below_one)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\n"
                       "a,0,1,5\nb,100,1,5\n");
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 --json "
                        "--out r"),
                 0, "%s", err);
    cr_assert(strstr(out, "\"avg_slowdown\":\t1,"), "%s", out);
    cr_assert(strstr(out, "\"avg_jct_s\":\t5,"), "%s", out);
}
