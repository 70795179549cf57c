/* test_gavel_sim.c -- gavel:* against Gavel's own simulator: every (trace,
 * policy) row of tests/data/gavel-reference/summary.csv, run by the built
 * hetsim binary on the same trace, cluster (gavel-108: 36 V100 + 36 P100 +
 * 36 K80 in 4-GPU servers) and throughputs.
 *
 * Average JCT and makespan must agree within 1e-6 (relative) for fifo and
 * fifo_perf, which Gavel computes without an LP (deterministic; fifo with
 * Python's random stream), and every job's JCT and the set of dropped jobs
 * too; within 1 % for the LP policies, whose optimum the solver picks
 * among several (MANIFEST.md "Checks": per-job JCTs move by a few % with
 * the solver, so they are only reported). hetsim solves them with the
 * reference's own algorithm (policies/ipm.h: scipy's legacy interior
 * point), and min_total_duration_perf lands on its points: its per-job
 * JCTs are checked like fifo's. Each row logs the median per-job relative
 * difference and hetsim's wall time.
 *
 * Runs only when HETSIM_GAVEL_ROWS is set (the CTest entry
 * gavel_reference sets it): "all" = every row (the release build, about 3
 * minutes on a 2-core machine), "quick" = the rows marked quick (the ASan
 * build). The figures:
 * docs/fidelity-data.md. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REF HETSIM_TEST_DATA "/gavel-reference"
#define MSR HETSIM_SOURCE_DIR "/traces/gavel/msr/seed=0"
#define MAX_JOBS 7000

/* Rows fast enough under ASan (a few seconds each in release). */
static const char *const quick[][2] = {
    {"103959", "fifo"},
    {"103959", "fifo_perf"},
    {"103959", "max_min_fairness_perf"},
    {"103959", "max_min_fairness"},
    {"ed69ec", "fifo_perf"},
    {"ed69ec", "fifo"},
};

struct row {
    char trace[64], policy[64];
    double avg_jct, makespan;
    int window; /* jobs 4000-4999 only */
};

static int is_quick(const struct row *r)
{
    for (size_t i = 0; i < sizeof quick / sizeof *quick; i++)
        if (strcmp(r->trace, quick[i][0]) == 0 &&
            strcmp(r->policy, quick[i][1]) == 0)
            return 1;
    return 0;
}

/* The rows of summary.csv; returns how many. */
static size_t read_summary(struct row *rows, size_t cap)
{
    FILE *f = fopen(REF "/summary.csv", "r");
    cr_assert(f, "cannot open %s/summary.csv", REF);
    char line[4096];
    size_t n = 0;
    cr_assert(fgets(line, sizeof line, f));
    while (n < cap && fgets(line, sizeof line, f)) {
        struct row *r = &rows[n];
        char *save, *field[5];
        field[0] = strtok_r(line, ",", &save);
        for (int k = 1; k < 5; k++)
            field[k] = strtok_r(NULL, ",", &save);
        cr_assert(field[4], "summary.csv row %zu is short", n + 2);
        snprintf(r->trace, sizeof r->trace, "%s", field[0]);
        snprintf(r->policy, sizeof r->policy, "%s", field[2]);
        char *at = strchr(r->policy, '@');
        r->window = at != NULL;
        if (at)
            *at = '\0';
        r->avg_jct = strtod(field[3], NULL);
        r->makespan = strtod(field[4], NULL);
        n++;
    }
    fclose(f);
    return n;
}

/* JCT of job i into jct[i] (NAN: none); returns the number of rows. */
static size_t read_column(const char *path, int col, double *jct, int *present)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    char line[1024];
    size_t n = 0;
    cr_assert(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        for (int k = 0; k < col && p; k++)
            p = (p = strchr(p, ',')) ? p + 1 : NULL;
        cr_assert(p, "%s: a row lacks column %d", path, col);
        size_t id = n;
        if (col == 1) /* job_id,jct_s */
            id = strtoul(line, NULL, 10);
        cr_assert(id < MAX_JOBS);
        jct[id] = *p == ',' || *p == '\n' || *p == '\0' ? NAN : strtod(p, NULL);
        if (present)
            present[id] = 1;
        n++;
    }
    fclose(f);
    return n;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs hetsim on ROW's trace into DIR; returns its wall time. */
static double run_row(const struct row *r, const char *dir)
{
    char trace[512], cmd[2048];
    if (strncmp(r->trace, "continuous", 10) == 0)
        snprintf(trace, sizeof trace, "%s/%s.trace", REF, r->trace);
    else if (strcmp(r->trace, "6214e9_first500") == 0) {
        snprintf(trace, sizeof trace, "%s/first500.trace", dir);
        snprintf(cmd, sizeof cmd, "head -n 500 '%s/6214e9.trace' > '%s'", MSR,
                 trace);
        cr_assert_eq(system(cmd), 0);
    } else
        snprintf(trace, sizeof trace, "%s/%s.trace", MSR, r->trace);
    snprintf(cmd, sizeof cmd,
             "'%s' run -q -t '%s' -T '%s/traces/gavel/simulation_throughputs"
             ".json' -c gavel-108 -p 'gavel:%s' -o '%s/out'",
             HETSIM_BIN, trace, HETSIM_SOURCE_DIR, r->policy, dir);
    double t0 = wall_now();
    cr_assert_eq(system(cmd), 0, "%s failed", cmd);
    return wall_now() - t0;
}

static void check_row(const struct row *r)
{
    static double ref[MAX_JOBS], got[MAX_JOBS], fin[MAX_JOBS], diff[MAX_JOBS];
    static int in_ref[MAX_JOBS];
    char dir[] = "/tmp/hetsim-gavelref-XXXXXX", path[512];
    cr_assert(mkdtemp(dir));
    double wall = run_row(r, dir);
    memset(in_ref, 0, sizeof in_ref);
    snprintf(path, sizeof path, "%s/jct/%s_%s.csv", REF, r->trace, r->policy);
    read_column(path, 1, ref, in_ref);
    snprintf(path, sizeof path, "%s/out/jobs.csv", dir);
    size_t n = read_column(path, 4, got, NULL); /* jct */
    read_column(path, 3, fin, NULL);            /* finish_time */
    double sum = 0, makespan = 0;
    size_t done = 0, nd = 0, drops_ref = 0, drops_got = 0;
    for (size_t i = 0; i < n; i++) {
        makespan = isnan(fin[i]) ? makespan : fmax(makespan, fin[i]);
        if (!in_ref[i])
            continue;
        drops_ref += isnan(ref[i]) ? 1u : 0u;
        drops_got += isnan(got[i]) ? 1u : 0u;
        if (!isnan(got[i])) {
            sum += got[i];
            done++;
        }
        if (!isnan(ref[i]) && !isnan(got[i]))
            diff[nd++] = fabs(got[i] - ref[i]) / ref[i];
        else
            diff[nd++] = isnan(ref[i]) == isnan(got[i]) ? 0 : INFINITY;
    }
    cr_assert(done > 0 && nd > 0);
    qsort(diff, nd, sizeof *diff, cmp_double);
    double avg = sum / (double)done, median = diff[nd / 2];
    double e_avg = (avg - r->avg_jct) / r->avg_jct;
    double e_mk = (makespan - r->makespan) / r->makespan;
    int exact =
        strcmp(r->policy, "fifo") == 0 || strcmp(r->policy, "fifo_perf") == 0;
    double tol = exact ? 1e-6 : 1e-2;
    cr_log_info("%-17s %-24s avg JCT %+.2e makespan %+.2e per-job median "
                "%.2e max %.2e dropped %zu/%zu hetsim %.2f s",
                r->trace, r->policy, e_avg, e_mk, median, diff[nd - 1],
                drops_got, drops_ref, wall);
    cr_expect(fabs(e_avg) <= tol, "%s %s: avg JCT %.3f s, Gavel %.3f s",
              r->trace, r->policy, avg, r->avg_jct);
    cr_expect(fabs(e_mk) <= tol, "%s %s: makespan %.3f s, Gavel %.3f s",
              r->trace, r->policy, makespan, r->makespan);
    /* min_total_duration_perf: scipy's own interior points (policies/ipm.h),
       so the same schedule, job by job */
    if (exact || strcmp(r->policy, "min_total_duration_perf") == 0)
        cr_expect(diff[nd - 1] <= 1e-6 && drops_got == drops_ref,
                  "%s %s: a job's JCT differs (largest relative "
                  "difference %.2e) or the dropped jobs do",
                  r->trace, r->policy, diff[nd - 1]);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    cr_assert_eq(system(path), 0);
}

Test(gavel_reference, every_row_of_gavels_summary, .timeout = 3000)
{
    const char *which = getenv("HETSIM_GAVEL_ROWS");
    if (!which || !*which)
        cr_skip_test("HETSIM_GAVEL_ROWS unset (ctest -R gavel_reference)");
    static struct row rows[64];
    size_t n = read_summary(rows, 64), ran = 0;
    cr_assert(n >= 33, "summary.csv has %zu rows", n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(which, "quick") != 0 || is_quick(&rows[i])) {
            check_row(&rows[i]);
            ran++;
        }
    cr_assert(ran > 0);
}
