/* compare_internal.h -- what compare.c and compare_charts.c share. */
#ifndef HETSIM_CLI_COMPARE_INTERNAL_H
#define HETSIM_CLI_COMPARE_INTERNAL_H

#include <stddef.h>

#define CMP_MAX_POLICIES 32
#define CMP_MAX_PASS 96 /* entries of cmp_options.pass */
#define CMP_GRID 500 /* points of the common time grid of the utilization */

/* The command line of `hetsim compare`. */
struct cmp_options {
    const char *trace, *cluster, *estimates, *throughputs, *format, *seed;
    const char *trace_file; /* what the runs read: NULL, trace; else the copy
                               of standard input (--trace -) */
    const char *out;
    long jobs;
    const char *policy[CMP_MAX_POLICIES]; /* as given to --policy */
    const char *label[CMP_MAX_POLICIES];  /* its folder and name in the
                                             table: a plugin's file name */
    size_t npolicies;
    char list[4096];
    /* `hetsim run` options passed to every run as given: flag, value (NULL
     * for a flag without one), ... (--placement, --policy-opt, ...). */
    const char *pass[CMP_MAX_PASS];
    size_t npass;
    int json; /* --json: the table as JSON on stdout */
    int argc;    /* "compare" and its arguments, for the report */
    char **argv;
};

/* Columns of compare.csv after the policy, in the order of summary.json's
 * keys read into struct cmp_policy.v. */
extern const char *const cmp_keys[]; /* CMP_NKEYS */
#define CMP_NKEYS 9
enum { CMP_AVG = 1, CMP_P99 = 4, CMP_MAKESPAN = 5 };

struct cmp_policy {
    const char *name;
    int ran;                 /* its child exited 0 */
    int read;                /* its files were read */
    double v[CMP_NKEYS];
    double total_gpus;
    double jobs_total, jobs_unschedulable, jobs_failed, avg_slowdown;
    char cluster[64], placement[64];
    double *jct;             /* (njct) completed jobs' JCT */
    size_t njct;
    double *tl_time, *tl_busy; /* (ntl) timeline.csv's time, busy_gpus */
    size_t ntl;
};

/* compare.csv into DIR (atomically), the table on stdout, and the charts
 * jct_cdf, jct_bars, makespan, utilization into DIR; of the N policies of R
 * only those read. cmp_write_csv returns CLI_OK or CLI_FAILURE,
 * cmp_draw_charts 0 or -1, each having said why. */
int cmp_write_csv(const char *dir, const struct cmp_policy *r, size_t n);
void cmp_print_table(const struct cmp_policy *r, size_t n);
/* The table as one JSON object on stdout (--json). */
void cmp_print_json(const struct cmp_options *o, const struct cmp_policy *r);

/* The `hetsim run` command line of policy K into ARGS (room for
 * CMP_MAX_PASS + 16) and its folder into OUT; DRY adds --dry-run. */
void cmp_run_args(const struct cmp_options *o, size_t k, int dry, char *out,
                  size_t out_cap, const char **args);
/* Before anything runs (compare_prep.c): every policy's `hetsim run
 * --dry-run` (inputs, estimates, the policy's needs), their warnings shown
 * once. CLI_OK, or the exit code of the first that failed, having said
 * why. */
int cmp_check_all(const struct cmp_options *o);
/* Runs every policy's `hetsim run` (DRY: --dry-run), at most o->jobs at a
 * time, handing each end to DONE, whose first non-CLI_OK code is returned
 * (else CLI_FAILURE when one could not start, or CLI_OK). */
struct cli_pool_done;
typedef int cmp_done_fn(void *ctx, const struct cli_pool_done *d);
int cmp_run_each(const struct cmp_options *o, int dry, cmp_done_fn *done,
                 void *ctx);
int cmp_draw_charts(const char *dir, const struct cmp_policy *r, size_t n);

/* DIR/report.html (compare_report.c) for the policies of R (o->npolicies
 * of them; only those read), with the charts already drawn into o->out. 0,
 * or -1 after a message. */
int cmp_write_report(const struct cmp_options *o, const struct cmp_policy *r);

#endif
