/* test_newcomer2.c -- issue 17's second part: "did you mean" for the
 * options of every subcommand, unknown columns of the other trace formats,
 * --json on sweep, check, pack, share and reproduce (parsed with cJSON),
 * what the walkthrough found (compare's table width, the report's commit,
 * gnuplot's warnings), sweep taking run's options and refusing cells that
 * would fail, and - for standard input and output. Runs the built binary.
 * Every expected figure is counted by hand from the small inputs written
 * here, or comes from Gavel's simulator (the fixture traces). */
#include <criterion/criterion.h>

#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "run_helpers.h"

static char out[1 << 17], err[1 << 16];
static char dir[64];

static void setup(void)
{
    clitest_make_dir(dir, "hetsim-newcomer2");
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

/* The number at KEY of object O (NaN when absent or not a number). */
static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Two 5 s one-GPU jobs, at 0 and 100 s, on an empty cluster: each JCT is
 * 5 s, the makespan 105 s, both complete. */
#define TWO_JOBS "job_id,submit_time,num_gpus,duration\na,0,1,5\nb,100,1,5\n"

/* ---- did you mean, for every subcommand's options ------------------------ */

TestSuite(suggest_options, .init = setup, .fini = teardown);

static void assert_suggests(const char *args, const char *cmd, const char *typo,
                            const char *right)
{
    char want[256];
    cr_assert_eq(hetsim("%s", args), 2, "%s: %s", args, err);
    snprintf(want, sizeof want, "%s: unknown option '%s' (did you mean '%s'?)",
             cmd, typo, right);
    cr_assert(strstr(err, want), "%s: %s", args, err);
}

Test(suggest_options, trace_convert_generate_stats_and_like_gavel)
{
    assert_suggests("trace convert --ot x.csv t.csv", "hetsim trace convert",
                    "--ot", "--out");
    assert_suggests("trace generate --seeed 3", "hetsim trace generate",
                    "--seeed", "--seed");
    assert_suggests("trace stats --jsn t.csv", "hetsim trace stats", "--jsn",
                    "--json");
    assert_suggests("trace generate --like gavel --rate-per-hr 3 -o x",
                    "hetsim trace generate --like gavel", "--rate-per-hr",
                    "--rate-per-hour");
}

Test(suggest_options, predictor_dataset_reproduce)
{
    assert_suggests("predictor train --dta x.csv", "hetsim predictor train",
                    "--dta", "--data");
    assert_suggests("predictor compare --modls rf", "hetsim predictor compare",
                    "--modls", "--models");
    assert_suggests("dataset synth --rws 5", "hetsim dataset synth", "--rws",
                    "--rows");
    assert_suggests("dataset gavel --trget util", "hetsim dataset gavel",
                    "--trget", "--target");
    assert_suggests("reproduce --lst", "hetsim reproduce", "--lst", "--list");
}

Test(suggest_options, check_pack_sweep_and_the_value_form)
{
    assert_suggests("check --jsn", "hetsim check", "--jsn", "--json");
    assert_suggests("pack --jsn", "hetsim pack", "--jsn", "--json");
    assert_suggests("sweep --plcement fgd s.json", "hetsim sweep", "--plcement",
                    "--placement");
    /* --name=value names only the option */
    assert_suggests("trace stats --clustr=gavel-108 t.csv",
                    "hetsim trace stats", "--clustr", "--cluster");
    /* and pack no longer lets getopt print its own line first */
    cr_assert(!strstr(err, "unrecognized"), "%s", err);
}

/* The subcommands of trace, predictor and dataset, and policies' option. */
Test(suggest_options, subcommands_and_policies_verbose)
{
    static const char *const cases[][3] = {
        {"trace stat x.csv", "hetsim trace: unknown command 'stat'", "stats"},
        {"predictor trian", "hetsim predictor: unknown command 'trian'",
         "train"},
        {"dataset synht", "hetsim dataset: unknown command 'synht'", "synth"},
        {"policies --verbos", "hetsim policies: unexpected argument '--verbos'",
         "--verbose"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[256];
        cr_assert_eq(hetsim("%s", cases[i][0]), 2, "%s", cases[i][0]);
        snprintf(want, sizeof want, "%s (did you mean '%s'?)", cases[i][1],
                 cases[i][2]);
        cr_assert(strstr(err, want), "%s: %s", cases[i][0], err);
    }
}

/* ---- unknown columns of the other formats ------------------------------- */

TestSuite(format_columns, .init = setup, .fini = teardown);

Test(format_columns, tiresias_warns_and_strict_exits_3)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,num_gpu,submit_time,duration,modle_name\n"
                       "1,1,0,100,resnet50\n");
    cr_assert_eq(hetsim("trace stats -f tiresias t.csv"), 0, "%s", err);
    cr_assert(strstr(err, "t.csv:1:5: unknown column \"modle_name\" (did you "
                          "mean \"model_name\"?); ignored"),
              "%s", err);
    cr_assert_eq(hetsim("run -f tiresias --strict --trace t.csv --cluster "
                        "gavel-108 -q --out r"),
                 3);
    cr_assert(strstr(err, "t.csv:1:5: unknown column \"modle_name\""), "%s",
              err);
    cr_assert(!exists("r/summary.json"));
}

Test(format_columns, philly_warns_and_strict_exits_3)
{
    clitest_write_file(dir, "p.csv",
                       "timestamp,duration,num_gpus,gpu_time,cluster,"
                       "gpu_times\n"
                       "2017-10-03 10:00:00,100,1,100,c1,9\n");
    cr_assert_eq(hetsim("trace stats -f philly p.csv"), 0, "%s", err);
    cr_assert(strstr(err, "p.csv:1:6: unknown column \"gpu_times\" (did you "
                          "mean \"gpu_time\"?); ignored"),
              "%s", err);
    cr_assert_eq(hetsim("trace stats -f philly --strict p.csv"), 3);
    cr_assert(strstr(err, "known columns: docs/formats.md"), "%s", err);
}

Test(format_columns, alibaba2023_warns_and_strict_exits_3)
{
    clitest_write_file(dir, "pods.csv",
                       "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,"
                       "qos,pod_phase,creation_time,deletion_time,"
                       "scheduled_time,gpu_specs\n"
                       "p1,1000,1024,1,1000,,LS,Succeeded,0,100,0,x\n");
    cr_assert_eq(hetsim("trace stats -f alibaba2023 pods.csv"), 0, "%s", err);
    cr_assert(strstr(err, "pods.csv:1:12: unknown column \"gpu_specs\" (did "
                          "you mean \"gpu_spec\"?); ignored"),
              "%s", err);
    cr_assert_eq(hetsim("trace stats -f alibaba2023 --strict pods.csv"), 3);
}

/* A cluster's node list (--cluster alibaba2023:FILE) as the trace readers:
 * an unknown column warned of with the nearest known name, an error under
 * --strict before anything is written. */
Test(format_columns, alibaba2023_node_list_warns_and_strict_exits_3)
{
    clitest_write_file(dir, "nodes.csv",
                       "sn,cpu_milli,memory_mib,gpu,model,memory_mb\n"
                       "n1,64000,262144,8,V100M16,1\n");
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("run --trace t.csv --cluster alibaba2023:nodes.csv "
                        "-q --out r"),
                 0, "%s", err);
    cr_assert(strstr(err, "nodes.csv:1:6: unknown column \"memory_mb\" (did "
                          "you mean \"memory_mib\"?); ignored"),
              "%s", err);
    cr_assert(exists("r/summary.json"));
    cr_assert_eq(hetsim("run --strict --trace t.csv --cluster "
                        "alibaba2023:nodes.csv -q --out s"),
                 3);
    cr_assert(strstr(err, "nodes.csv:1:6: unknown column \"memory_mb\""),
              "%s", err);
    cr_assert(strstr(err, "known columns: docs/formats.md"), "%s", err);
    cr_assert(!exists("s/summary.json"));
}

/* Gavel's .trace and SWF have no header: a row of another width is an
 * error, not a column to ignore. */
Test(format_columns, headerless_formats_refuse_a_wrong_width)
{
    clitest_write_file(dir, "g.trace",
                       "ResNet-18 (batch size 16)\tcmd\t--num_steps\t1000\t1"
                       "\t0\t1\textra\n");
    cr_assert_eq(hetsim("trace stats -f gavel g.trace"), 3);
    cr_assert(strstr(err, "g.trace:1"), "%s", err);
}

/* ---- --json: figures on stdout, status on stderr ------------------------ */

TestSuite(json_out, .init = setup, .fini = teardown);

Test(json_out, sweep_prints_its_rows)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json",
                       "{\"traces\": [\"t.csv\"], \"clusters\": "
                       "[\"gavel-108\"], \"policies\": [\"fifo\", \"sjf\"], "
                       "\"estimates\": [\"oracle\"], \"seeds\": 2}\n");
    cr_assert_eq(hetsim("sweep s.json --json --out sw"), 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(num(root, "cells"), 4); /* 2 policies x 2 seeds */
    cr_assert_eq(num(root, "seeds"), 2);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    cr_assert_eq(cJSON_GetArraySize(rows), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        cr_assert_eq(num(r, "jobs_completed_mean"), 2);
        cr_assert_eq(num(r, "avg_jct_s_mean"), 5);
        cr_assert_eq(num(r, "makespan_s_mean"), 105);
        cr_assert_eq(num(r, "makespan_s_sd"), 0);
    }
    cr_assert_str_eq(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 1), "policy")
            ->valuestring,
        "sjf");
    cJSON_Delete(root);
    cr_assert(strstr(err, "hetsim sweep: 4 cells"), "%s", err);
}

Test(json_out, check_prints_each_figure_and_exits_1_when_one_moved)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --out r"), 0,
                 "%s", err);
    /* makespan is 105: 100 is 5 % off, beyond 0.1 % */
    clitest_write_file(dir, "golden.json",
                       "{\"hetsim_baseline\": 1, \"figures\": "
                       "{\"avg_jct_s\": 5, \"makespan_s\": 100}}\n");
    cr_assert_eq(hetsim("check --json --baseline golden.json --result "
                        "r/summary.json"),
                 1, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(num(root, "moved"), 1);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "ok")));
    const cJSON *figs = cJSON_GetObjectItemCaseSensitive(root, "figures");
    cr_assert_eq(cJSON_GetArraySize(figs), 2);
    const cJSON *jct = cJSON_GetArrayItem(figs, 0),
                *mk = cJSON_GetArrayItem(figs, 1);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(jct, "within")));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mk, "within")));
    cr_assert_eq(num(mk, "golden"), 100);
    cr_assert_eq(num(mk, "result"), 105);
    cJSON_Delete(root);
    cr_assert(strstr(err, "1 of 2 figures moved"), "%s", err);
    /* --write-baseline --json: the figures written */
    cr_assert_eq(hetsim("check --json --write-baseline g2.json --keys "
                        "makespan_s --result r/summary.json"),
                 0, "%s", err);
    root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(
        num(cJSON_GetObjectItemCaseSensitive(root, "figures"), "makespan_s"),
        105);
    cJSON_Delete(root);
}

/* Two one-GPU pods on gavel-108's 108 GPUs: both placed, 2/108 allocated. */
Test(json_out, pack_prints_its_summary)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("pack --trace t.csv --cluster gavel-108 --no-plots "
                        "--json --out pk"),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(num(root, "pods"), 2);
    cr_assert_eq(num(root, "cluster_gpus"), 108);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "placements");
    const cJSON *fgd = cJSON_GetObjectItemCaseSensitive(p, "fgd");
    cr_assert_eq(num(fgd, "placed"), 2);
    cr_assert_float_eq(num(fgd, "gpu_utilization"), 2.0 / 108, 1e-15);
    cJSON_Delete(root);
    cr_assert(!strstr(out, "placement "), "the table went to stdout too");
    cr_assert(strstr(err, "fgd: 2 pods"), "%s", err);
}

Test(json_out, share_prints_the_runs_summary)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("share --trace t.csv --cluster gavel-108 --no-plots "
                        "--json --out sh"),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(num(root, "jobs_completed"), 2);
    cr_assert_eq(num(root, "makespan_s"), 105);
    cJSON_Delete(root);
}

/* The files DIR/PATTERN, one after the other, into out. */
static void read_all(const char *pattern)
{
    char pat[256];
    glob_t g;
    size_t used = 0;
    snprintf(pat, sizeof pat, "%s/%s", dir, pattern);
    out[0] = '\0';
    cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no %s", pat);
    for (size_t i = 0; i < g.gl_pathc && used + 1 < sizeof out; i++) {
        clitest_read_file(g.gl_pathv[i], out + used, sizeof out - used);
        used += strlen(out + used);
    }
    globfree(&g);
}

/* The report names the commit that --version names. */
Test(json_out, report_names_the_commit_of_version)
{
    cr_assert_eq(hetsim("--version"), 0);
    const char *c = strstr(out, "(commit ");
    cr_assert(c, "%s", out);
    char commit[64];
    snprintf(commit, sizeof commit, "%.*s", (int)strcspn(c, "\n"), c);
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --report "
                        "--out r"),
                 0, "%s", err);
    char path[128];
    snprintf(path, sizeof path, "%s/r/report.html", dir);
    clitest_read_file(path, out, sizeof out);
    cr_assert(strstr(out, commit), "no '%s' in the report", commit);
}

/* Both JCTs are 5 s: the CDF's x range is set around it (5/2 to 5*2 on
 * its log axis) instead of gnuplot warning of an empty range on stderr. */
Test(json_out, a_cdf_of_equal_values_draws_without_gnuplot_warnings)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --plots "
                        "--out r"),
                 0, "%s", err);
    cr_assert(!strstr(err, "Warning"), "%s", err);
    char path[128];
    snprintf(path, sizeof path, "%s/r/jct_cdf.gp", dir);
    clitest_read_file(path, out, sizeof out);
    cr_assert(strstr(out, "set xrange [2.5:10]\n"), "%s", out);
}

/* Two of Gavel's own fixture traces under gavel:fifo: table.csv's rows as
 * JSON, each beside Gavel's simulator's figure (within 1 %, as the
 * experiment suite checks from table.csv). */
Test(json_out, reproduce_prints_its_rows, .timeout = 300)
{
    cr_assert_eq(hetsim("reproduce gavel-continuous --fixture=%s/tests/data/"
                        "gavel-reference --throughputs %s/traces/gavel/"
                        "simulation_throughputs.json --policies gavel:fifo "
                        "-o rep --json",
                        HETSIM_SOURCE_DIR, HETSIM_SOURCE_DIR),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    cr_assert_eq(cJSON_GetArraySize(rows), 2); /* rates 0.4 and 2.8 */
    cr_assert_eq(num(cJSON_GetArrayItem(rows, 0), "x"), 0.4);
    cr_assert_eq(num(cJSON_GetArrayItem(rows, 1), "x"), 2.8);
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        double h = num(r, "hetsim_mean"), g = num(r, "gavel_sim");
        cr_assert(fabs(h - g) <= 0.01 * g, "%g vs Gavel's %g", h, g);
    }
    cJSON_Delete(root);
    cr_assert(strstr(err, "hetsim reproduce: results in rep"), "%s", err);
}

/* Gavel's trace: FIFO's makespan is 55,387,435 s. Each time as "15385.4 h
 * (55387435 s)" made a 141-column table; in hours it fits 90 columns,
 * and the report keeps the seconds under the hours. */
Test(json_out, compares_table_fits_a_terminal_and_the_report_has_both_units)
{
    cr_assert_eq(hetsim("compare --trace '%s/traces/gavel/msr/seed=0/"
                        "6214e9.trace' --throughputs %s/traces/gavel/"
                        "simulation_throughputs.json --cluster gavel-108 "
                        "--policies fifo,sjf --estimates oracle -j 2 --out c",
                        HETSIM_SOURCE_DIR, HETSIM_SOURCE_DIR),
                 0, "%s", err);
    size_t widest = 0, lines = 0;
    for (const char *p = out; *p; lines++) {
        size_t len = strcspn(p, "\n");
        widest = len > widest ? len : widest;
        p += len + (p[len] == '\n');
    }
    cr_assert_geq(lines, 4, "%s", out);
    cr_assert_leq(widest, 90, "%zu columns:\n%s", widest, out);
    cr_assert(strstr(out, "15385.4"), "%s", out);
    char path[128];
    snprintf(path, sizeof path, "%s/c/report.html", dir);
    clitest_read_file(path, out, sizeof out);
    cr_assert(strstr(out, "15385.40 h<br><small>55387434.8 s</small>"),
              "the report's makespan cell");
}

/* ---- sweep takes run's options ------------------------------------------ */

TestSuite(sweep_options, .init = setup, .fini = teardown);

static const char *const SPEC =
    "{\"traces\": [\"t.csv\"], \"clusters\": [\"gavel-108\"], "
    "\"policies\": [\"fifo\"], \"estimates\": [\"oracle\"], \"seeds\": 1}\n";

Test(sweep_options, passes_them_to_every_run_and_into_the_cells_inputs)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json", SPEC);
    char cells[256];
    snprintf(cells, sizeof cells, "%s/sw/cells", dir);
    cr_assert_eq(hetsim("sweep s.json -q --out sw"), 0, "%s", err);
    cr_assert_eq(clitest_count_entries(cells), 1);
    cr_assert_eq(hetsim("sweep s.json -q --out sw --placement consolidate "
                        "--restart-overhead 7 --backfill easy --strict"),
                 0, "%s", err);
    /* other inputs, another cell: the first is not taken as done */
    cr_assert_eq(clitest_count_entries(cells), 2);
    read_all("sw/cells/*/cell.txt");
    cr_assert(strstr(out, "run.placement=consolidate\n"), "%s", out);
    cr_assert(strstr(out, "run.restart-overhead=7\n"), "%s", out);
    cr_assert(strstr(out, "run.strict=\n"), "%s", out);
    read_all("sw/cells/*/summary.json");
    cr_assert(strstr(out, "\"placement\":\t\"consolidate\""), "%s", out);
    cr_assert(strstr(out, "\"backfill\":\t\"easy\""), "%s", out);
    cr_assert(strstr(out, "\"restart_overhead_s\":\t7"), "%s", out);
}

/* stderr is a file here, not a terminal: plain lines, no carriage return */
Test(sweep_options, progress_goes_to_a_log_as_plain_lines)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json", SPEC);
    cr_assert_eq(hetsim("sweep s.json --out sw"), 0, "%s", err);
    cr_assert(strstr(err, "hetsim sweep: 1/1 cells done"), "%s", err);
    cr_assert(!strchr(err, '\r'), "%s", err);
    cr_assert_eq(out[0], '\0', "stdout: %s", out);
    cr_assert_eq(hetsim("sweep s.json -q --out sw"), 0, "%s", err);
    cr_assert_eq(err[0], '\0', "-q: %s", err);
}

Test(sweep_options, a_bad_value_exits_2_before_any_cell_runs)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json", SPEC);
    cr_assert_eq(hetsim("sweep s.json --out sw --backfill sometimes"), 2);
    cr_assert(strstr(err, "hetsim sweep: --backfill wants none, easy, "
                          "conservative or greedy, got 'sometimes'"),
              "%s", err);
    cr_assert_eq(hetsim("sweep s.json --out sw --placement tightest"), 2);
    cr_assert(strstr(err, "hetsim sweep: unknown placement 'tightest'"), "%s",
              err);
    cr_assert(!exists("sw"));
}

/* sjf needs run-time estimates: with "none" its cells would fail after
 * fifo's ran; the sweep refuses before any cell runs. */
Test(sweep_options, cells_that_would_fail_are_refused_before_any_runs)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json",
                       "{\"traces\": [\"t.csv\"], \"clusters\": "
                       "[\"gavel-108\"], \"policies\": [\"fifo\", \"sjf\"], "
                       "\"estimates\": [\"none\"], \"seeds\": 1}\n");
    cr_assert_eq(hetsim("sweep s.json --out sw"), 3);
    cr_assert(strstr(err, "s.json: policy sjf needs run-time estimates, and "
                          "\"estimates\" lists none; no cell ran"),
              "%s", err);
    cr_assert(!exists("sw/cells"));
    /* --backfill easy needs estimates too, even under fifo */
    clitest_write_file(dir, "s.json", SPEC);
    cr_assert_eq(hetsim("sweep s.json --out sw --backfill easy"), 0, "%s",
                 err); /* SPEC has oracle */
    clitest_write_file(dir, "n.json",
                       "{\"traces\": [\"t.csv\"], \"clusters\": "
                       "[\"gavel-108\"], \"policies\": [\"fifo\"], "
                       "\"seeds\": 1}\n");
    cr_assert_eq(hetsim("sweep n.json --out sw2 --backfill easy"), 3);
    cr_assert(strstr(err, "--backfill easy (policy fifo) needs run-time "
                          "estimates"),
              "%s", err);
    cr_assert(!exists("sw2/cells"));
}

/* ---- - for standard input ---------------------------------------------- */

TestSuite(stdin_dash, .init = setup, .fini = teardown);

Test(stdin_dash, compare_reads_the_trace_from_standard_input)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("compare --trace - --cluster gavel-108 --policies "
                        "fifo,sjf --estimates oracle --json --out c < t.csv"),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "trace");
    cr_assert(cJSON_IsString(t) && strcmp(t->valuestring, "-") == 0);
    const cJSON *pols = cJSON_GetObjectItemCaseSensitive(root, "policies");
    cr_assert_eq(cJSON_GetArraySize(pols), 2);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(num(cJSON_GetArrayItem(pols, i), "jobs_completed"), 2);
    cJSON_Delete(root);
    cr_assert(exists("c/report.html"));
}

Test(stdin_dash, a_bad_row_on_standard_input_is_named_before_any_run)
{
    clitest_write_file(dir, "t.csv",
                       "job_id,submit_time,num_gpus,duration\na,0,1,abc\n");
    cr_assert_eq(hetsim("compare --trace - --cluster gavel-108 --policies "
                        "fifo --out c < t.csv"),
                 3);
    cr_assert(strstr(err, "duration must be a number > 0"), "%s", err);
    cr_assert(!exists("c/fifo"));
}

Test(stdin_dash, generate_and_convert_write_to_standard_output)
{
    cr_assert_eq(hetsim("trace generate -n 3 --seed 1 --rate 0.01 -o -"), 0,
                 "%s", err);
    cr_assert(strncmp(out, "job_id,submit_time,num_gpus,duration\n", 37) == 0,
              "%s", out);
    size_t lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 4); /* header + 3 jobs */
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("trace convert -o - t.csv < /dev/null"), 0, "%s", err);
    cr_assert(strstr(out, "a,0,1,5"), "%s", out);
}

Test(stdin_dash, check_reads_a_summary_from_standard_input)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    cr_assert_eq(hetsim("run --trace t.csv --cluster gavel-108 -q --out r"), 0,
                 "%s", err);
    clitest_write_file(dir, "golden.json",
                       "{\"hetsim_baseline\": 1, \"figures\": "
                       "{\"makespan_s\": 105}}\n");
    cr_assert_eq(hetsim("check --baseline golden.json --result - "
                        "< r/summary.json"),
                 0, "%s", err);
    cr_assert(strstr(out, "1 figures within tolerance"), "%s", out);
    cr_assert_eq(hetsim("check --baseline - --result r/summary.json "
                        "< golden.json"),
                 0, "%s", err);
}

/* SPEC on standard input: its paths start from the current folder. */
Test(stdin_dash, sweep_reads_its_spec_from_standard_input)
{
    clitest_write_file(dir, "t.csv", TWO_JOBS);
    clitest_write_file(dir, "s.json", SPEC);
    cr_assert_eq(hetsim("sweep - --json -q --out sw < s.json"), 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    const cJSON *row =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "rows"), 0);
    cr_assert_eq(num(row, "makespan_s_mean"), 105);
    cJSON_Delete(root);
}

/* Six rows in, six rows evaluated; eval --json's figures parse. */
Test(stdin_dash, predictor_reads_its_data_from_standard_input)
{
    clitest_write_file(dir, "d.csv", "x,y\n1,3\n2,5\n3,7\n4,9\n5,11\n6,13\n");
    cr_assert_eq(hetsim("predictor train --data - --target y --model linear "
                        "-o m.bin < d.csv"),
                 0, "%s", err);
    cr_assert(exists("m.bin"));
    cr_assert_eq(hetsim("predictor eval --json --data - --target y --model "
                        "m.bin < d.csv"),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert_eq(num(root, "rows"), 6);
    /* rmse is the root of mse, whatever the fit */
    cr_assert_float_eq(num(root, "rmse"), sqrt(num(root, "mse")), 1e-12);
    cJSON_Delete(root);
}

/* ---- predictor compare: --json, progress in logs ------------------------ */

TestSuite(predictor_compare, .init = setup, .fini = teardown);

/* --json: stdout is one JSON text whose per-model mean and sd are those of
 * the per-split metrics in splits.csv, computed here by hand. */
Test(predictor_compare, json_prints_each_models_mean_and_sd)
{
    cr_assert_eq(hetsim("dataset synth --schema memory --rows 40 -o m.csv"), 0,
                 "%s", err);
    cr_assert_eq(hetsim("predictor compare --data m.csv --target memory_mb "
                        "--models linear,tree --repeats 3 --no-plots --json "
                        "--out c"),
                 0, "%s", err);
    cJSON *root = cJSON_Parse(out);
    cr_assert(root, "not JSON: %s", out);
    cr_assert(strstr(err, "results in c/"), "%s", err);
    cr_assert_eq(num(root, "rows"), 40);
    cr_assert_eq(num(root, "splits"), 3);
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
    cr_assert_eq(cJSON_GetArraySize(models), 2);
    char csv[1 << 14], path[128];
    snprintf(path, sizeof path, "%s/c/splits.csv", dir);
    clitest_read_file(path, csv, sizeof csv);
    for (int mi = 0; mi < 2; mi++) {
        const cJSON *m = cJSON_GetArrayItem(models, mi);
        const char *name = mi ? "tree" : "linear";
        cr_assert_str_eq(
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "model")),
            name);
        double mse[3], r2[3];
        for (int k = 0; k < 3; k++) {
            char key[64];
            snprintf(key, sizeof key, "\n%s,%d,", name, k);
            const char *line = strstr(csv, key);
            cr_assert(line, "%s", csv);
            double rmse, mae, mape;
            cr_assert_eq(sscanf(line + strlen(key),
                                "\"random 30%%\",%*d,%lf,%lf,%lf,%lf,%lf",
                                &mse[k], &rmse, &mae, &mape, &r2[k]),
                         5, "%.100s", line);
        }
        double mm = (mse[0] + mse[1] + mse[2]) / 3;
        double mr = (r2[0] + r2[1] + r2[2]) / 3, ss = 0;
        for (int k = 0; k < 3; k++)
            ss += (mse[k] - mm) * (mse[k] - mm);
        cr_assert_float_eq(num(m, "mse"), mm, 1e-9 * mm);
        cr_assert_float_eq(num(m, "mse_sd"), sqrt(ss / 2), 1e-9 * mm);
        cr_assert_float_eq(num(m, "r2"), mr, 1e-9);
        cr_assert(num(m, "r2_sd") >= 0);
    }
    cJSON_Delete(root);
    cr_assert(!strstr(out, "ExtraTrees"), "the table went to stdout too");
}

/* stderr a pipe (a log): a plain line per model and split, no \r; -q
 * none. */
Test(predictor_compare, progress_goes_to_a_log_as_plain_lines)
{
    cr_assert_eq(hetsim("dataset synth --schema memory --rows 30 -o m.csv"), 0,
                 "%s", err);
    cr_assert_eq(hetsim("predictor compare --data m.csv --target memory_mb "
                        "--models linear,tree --repeats 2 --no-plots --out c"),
                 0, "%s", err);
    cr_assert(!strchr(err, '\r'), "%s", err);
    cr_assert(strstr(err, "hetsim predictor compare: [1/4] split 1/2, linear: "),
              "%s", err);
    cr_assert(strstr(err, "hetsim predictor compare: [4/4] split 2/2, tree: "),
              "%s", err);
    cr_assert(strstr(out, "ExtraTrees"), "the table stays on stdout: %s", out);
    cr_assert_eq(hetsim("predictor compare --data m.csv --target memory_mb "
                        "--models linear --repeats 2 --no-plots -q --out d"),
                 0, "%s", err);
    cr_assert(!strstr(err, "split"), "%s", err);
}
