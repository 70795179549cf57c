/* test_throughputs.c -- Gavel's throughput table (throughputs.c).
 *
 * Expected numbers of the shipped file were looked up by hand with python3's
 * json module, e.g.
 *   d = json.load(open('traces/gavel/simulation_throughputs.json'))
 *   d['v100']["('Transformer (batch size 128)', 8)"]['null'] * 16 / 8
 * and written here with repr() (17 significant digits). Malformed files are
 * cases as data (cases.h): tests/data/throughputs/invalid/<case>.json with
 * <case>.expect beside it. */
#include <criterion/criterion.h>

#include "cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIPPED HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"
#define SMALL HETSIM_TEST_DATA "/throughputs/valid/small.json"

static struct trace_throughputs *load(const char *path)
{
    struct trace_throughputs *m = NULL;
    struct trace_error e;
    int rc = trace_throughputs_load(path, &m, &e);
    cr_assert_eq(rc, 0, "%s:%ld:%ld: %s", e.source, e.line, e.column, e.text);
    cr_assert_not_null(m);
    return m;
}

/* Expects trace_throughput to return rc and, unless rc < 0, want exactly. */
static void expect_tp(const struct trace_throughputs *m, const char *worker,
                      const char *type, int32_t n, int spread, int rc,
                      double want)
{
    double got = -42;
    int r = trace_throughput(m, worker, type, n, spread, &got);
    cr_expect_eq(r, rc, "%s %s x%d%s: rc %d, expected %d", worker, type, n,
                 spread ? " spread" : "", r, rc);
    if (rc >= 0)
        cr_expect(got == want, "%s %s x%d%s: %.17g, expected %.17g", worker,
                  type, n, spread ? " spread" : "", got, want);
    else
        cr_expect(got == -42, "%s %s: *out written on failure", worker, type);
}

/* ---- the shipped file --------------------------------------------------- */

Test(throughputs, lists_the_worker_types_of_the_shipped_file_in_order)
{
    struct trace_throughputs *m = load(SHIPPED);
    cr_expect_str_eq(trace_throughputs_worker(m, 0), "k80");
    cr_expect_str_eq(trace_throughputs_worker(m, 1), "p100");
    cr_expect_str_eq(trace_throughputs_worker(m, 2), "v100");
    cr_expect_null(trace_throughputs_worker(m, 3));
    cr_expect_null(trace_throughputs_worker(NULL, 0));
    trace_throughputs_destroy(m);
}

Test(throughputs, finds_measured_values_of_the_shipped_file)
{
    struct trace_throughputs *m = load(SHIPPED);
    const char *t128 = "Transformer (batch size 128)";
    expect_tp(m, "k80", t128, 1, 0, 0, 0.9815827061299781);
    expect_tp(m, "p100", t128, 1, 0, 0, 3.0735350560514787);
    expect_tp(m, "v100", t128, 1, 0, 0, 5.44610521981264);
    expect_tp(m, "v100", t128, 8, 0, 0, 30.88352104398441);
    expect_tp(m, "k80", "ResNet-18 (batch size 16)", 1, 0, 0,
              4.795294551566172);
    /* worker names are matched without regard to case */
    expect_tp(m, "V100", t128, 1, 0, 0, 5.44610521981264);
    /* spread over servers: the *_unconsolidated entries */
    expect_tp(m, "v100", t128, 4, 1, 0, 7.783568157137881);
    expect_tp(m, "v100", t128, 4, 0, 0, 14.17451716526748);
    trace_throughputs_destroy(m);
}

Test(throughputs, keeps_zero_where_a_job_does_not_fit)
{
    struct trace_throughputs *m = load(SHIPPED);
    const char *r50 = "ResNet-50 (batch size 128)";
    expect_tp(m, "k80", r50, 1, 0, 0, 0.3472236920519382);
    expect_tp(m, "k80", r50, 2, 0, 0, 0.0);
    expect_tp(m, "k80", r50, 4, 0, 0, 0.0);
    expect_tp(m, "k80", r50, 8, 0, 0, 0.0);
    /* the fallback scales the 0.0 at 8 GPUs: still 0.0 */
    expect_tp(m, "k80", r50, 16, 0, 1, 0.0);
    /* k80_unconsolidated has no entry at 2: capped by the consolidated 0.0 */
    expect_tp(m, "k80", r50, 2, 1, 1, 0.0);
    trace_throughputs_destroy(m);
}

Test(throughputs, scales_the_largest_measured_count_for_other_counts)
{
    struct trace_throughputs *m = load(SHIPPED);
    const char *t128 = "Transformer (batch size 128)";
    /* d['v100'][T128, 8] * 16 / 8 */
    expect_tp(m, "v100", t128, 16, 0, 1, 61.76704208796882);
    /* A3C is measured on one GPU only: d['v100'][A3C, 1] * 3 */
    expect_tp(m, "v100", "A3C", 3, 0, 1, 21.527301539003965);
    /* spread: d['v100_unconsolidated'][T128, 8] * 16 / 8, below the
     * consolidated 61.77 */
    expect_tp(m, "v100", t128, 16, 1, 1, 26.059417079385383);
    /* k80_unconsolidated lacks ResNet-50 (bs 64) at 2..8 GPUs: its value at
     * 1 GPU scaled (0.619 * 2 = 1.238) is below the consolidated 1.264 ... */
    expect_tp(m, "k80", "ResNet-50 (batch size 64)", 2, 1, 1,
              1.2380564404493146);
    /* ... but at 8 GPUs (4.952) it is capped by the consolidated 4.569 */
    expect_tp(m, "k80", "ResNet-50 (batch size 64)", 8, 1, 1,
              4.568730189823378);
    trace_throughputs_destroy(m);
}

Test(throughputs, finds_pair_throughputs_in_either_order)
{
    struct trace_throughputs *m = load(SHIPPED);
    const char *r16 = "ResNet-18 (batch size 16)";
    const char *r32 = "ResNet-18 (batch size 32)";
    double a = -1, b = -1;
    /* d['k80'][R16, 1][R32, 1] == [2.539979567443098, 3.1201925448827033] */
    cr_expect_eq(trace_pair_throughput(m, "k80", r16, 1, r32, 1, &a, &b), 0);
    cr_expect(a == 2.539979567443098 && b == 3.1201925448827033, "%.17g %.17g",
              a, b);
    cr_expect_eq(trace_pair_throughput(m, "k80", r32, 1, r16, 1, &a, &b), 0);
    cr_expect(a == 3.1201925448827033 && b == 2.539979567443098, "%.17g %.17g",
              a, b);
    /* d['v100'][R32, 1][R16, 1] == [29.947157347732464, 32.353384328946916] */
    cr_expect_eq(trace_pair_throughput(m, "v100", r32, 1, r16, 1, &a, &b), 0);
    cr_expect(a == 29.947157347732464 && b == 32.353384328946916);
    /* multi-GPU pairs are all [0.0, 0.0] in the file */
    cr_expect_eq(trace_pair_throughput(m, "p100",
                                       "Transformer (batch size 128)", 2, r16,
                                       2, &a, &b),
                 0);
    cr_expect(a == 0.0 && b == 0.0);
    /* the file pairs equal GPU counts only */
    cr_expect_eq(trace_pair_throughput(m, "p100", r16, 1, r32, 2, &a, &b), -1);
    cr_expect_eq(trace_pair_throughput(m, "tpu", r16, 1, r32, 1, &a, &b), -1);
    cr_expect_eq(trace_pair_throughput(m, "k80", r16, 1, r32, 1, NULL, NULL),
                 0);
    trace_throughputs_destroy(m);
}

/* ---- the rules, on a small file ---------------------------------------- */

Test(throughputs, applies_the_documented_fallbacks)
{
    struct trace_throughputs *m = load(SMALL);
    expect_tp(m, "v100", "Job A", 1, 0, 0, 10.0);
    expect_tp(m, "v100", "Job A", 4, 0, 0, 32.0); /* key "( 'Job A' ,4 )" */
    expect_tp(m, "v100", "Job A", 8, 0, 1, 64.0); /* 32 * 8 / 4 */
    expect_tp(m, "v100", "Job A", 3, 0, 1,
              24.0); /* the largest, not the nearest */
    expect_tp(m, "v100", "Job A", 2, 1, 0, 12.0);
    expect_tp(m, "v100", "Job A", 4, 1, 1, 24.0); /* 12 * 4 / 2, under 32 */
    expect_tp(m, "k80", "Job A", 2, 0, 0, 0.0);
    expect_tp(m, "k80", "Job A", 4, 0, 1, 0.0);
    expect_tp(m, "k80", "Job A", 2, 1, 1, 0.0); /* 4.0 spread, capped by 0 */
    /* no k80_unconsolidated entry for Job B: never spread on one GPU, and
     * the consolidated value (scaled) on more */
    expect_tp(m, "k80", "Job B", 1, 1, 1, 1.5);
    expect_tp(m, "k80", "Job B", 2, 1, 1, 3.0);
    trace_throughputs_destroy(m);
}

Test(throughputs, reads_both_quote_styles_and_escapes_of_tuple_keys)
{
    struct trace_throughputs *m = load(SMALL);
    expect_tp(m, "v100", "Bob's job", 1, 0, 0, 7.5);
    expect_tp(m, "v100", "Bob's job", 2, 0, 0, 14.0);
    trace_throughputs_destroy(m);
}

Test(throughputs, answers_minus_one_for_what_it_does_not_know)
{
    struct trace_throughputs *m = load(SMALL);
    double a, b;
    expect_tp(m, "a100", "Job A", 1, 0, -1, 0);
    expect_tp(m, "v100", "Job C", 1, 0, -1, 0);
    expect_tp(m, "v100", "Job B", 1, 0, -1, 0); /* only in a pair on v100 */
    expect_tp(m, "v100", "Job A", 0, 0, -1, 0);
    expect_tp(m, "v100", "Job A", -2, 1, -1, 0);
    expect_tp(NULL, "v100", "Job A", 1, 0, -1, 0);
    expect_tp(m, "v100_unconsolidated", "Job A", 1, 0, -1, 0);
    cr_expect_eq(
        trace_pair_throughput(m, "v100", "Job A", 1, "Job B", 1, &a, &b), 0);
    cr_expect(a == 6.0 && b == 3.0);
    cr_expect_eq(
        trace_pair_throughput(m, "k80", "Job A", 1, "Job B", 1, &a, &b), 0);
    cr_expect(a == 1.25 && b == 0.5); /* written under Job B */
    cr_expect_eq(
        trace_pair_throughput(m, "v100", "Job A", 2, "Job B", 1, &a, &b), -1);
    cr_expect_eq(
        trace_pair_throughput(NULL, "v100", "Job A", 1, "Job B", 1, &a, &b),
        -1);
    trace_throughputs_destroy(m);
    trace_throughputs_destroy(NULL);
}

/* ---- errors ------------------------------------------------------------- */

Test(throughputs, rejects_every_invalid_case_with_its_error)
{
    const struct case_target table = {CASE_THROUGHPUTS, TRACE_FMT_AUTO, NULL};
    case_run("throughputs", "invalid", "json", &table, 30);
}

Test(throughputs, reports_a_missing_file)
{
    struct trace_throughputs *m = NULL;
    struct trace_error e;
    int rc = trace_throughputs_load(HETSIM_TEST_DATA "/throughputs/none.json",
                                    &m, &e);
    cr_expect_eq(rc, TRACE_EIO);
    cr_expect_null(m);
    cr_expect_eq(e.line, 0);
    cr_expect(strstr(e.text, "No such file") != NULL, "%s", e.text);
}
