/* compare.c -- `hetsim compare`: runs one `hetsim run` child per policy,
 * then tabulates and charts what they wrote. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "plots.h"
#include "policy.h"
#include "compare_internal.h"
#include "passopt.h"
#include "procpool.h"

#define CMP_CMD "hetsim compare"

static void compare_usage(void)
{
    printf(
        "Usage: hetsim compare --trace FILE --cluster C --policies A,B,... "
        "--out DIR [OPTIONS]\n"
        "Replays one trace under several policies, each as its own "
        "`hetsim run`\ninto DIR/POLICY, then compares them.\n\n"
        "  -t, --trace FILE      jobs to replay (docs/formats.md); - reads "
        "standard input\n"
        "  -c, --cluster C       a cluster JSON file or a built-in name "
        "(`hetsim clusters`)\n"
        "  -p, --policies LIST   comma-separated policies (`hetsim "
        "policies`), at most %d;\n"
        "                        a plugin path (with a '/' or ending in "
        ".so) is named\n"
        "                        by its file name\n"
        "  -o, --out DIR         results folder; created if missing\n"
        "  -E, --estimates E     passed to every run: none, oracle, trace, "
        "noisy:SIGMA,\n"
        "                        history[:vc|:user], "
        "predictor:MODEL.bin[,memory=M2.bin]\n"
        "  -T, --throughputs F   passed to every run: measured throughputs\n"
        "  -f, --format NAME     passed to every run: the trace's format\n"
        "  -s, --seed N          passed to every run (default 1)\n"
        "  -j, --jobs N          runs at a time (default 1)\n"
        CLI_PASS_OPTIONS_HELP
        "                        passed to every run as given (`hetsim run "
        "--help`)\n"
        "      --json            print the table as JSON (figures unrounded)\n"
        "  -h, --help            show this help\n\n"
        "Every run is checked first (`hetsim run --dry-run`): nothing runs "
        "unless all\nwould start. What an earlier compare wrote into DIR "
        "(its runs' folders,\nreport.html, charts) is removed first. Progress "
        "and the report's path go\nto stderr, the table to stdout.\n\n"
        "Writes into DIR:\n"
        "  POLICY/...            each run's results (`hetsim run --help`)\n"
        "  compare.csv           one row per policy: jobs_completed, avg, "
        "median, p95,\n"
        "                        p99 JCT, makespan, avg wait, GPU "
        "utilization, preemptions\n"
        "  report.html           one self-contained page: inputs, the "
        "table, every\n"
        "                        chart with a caption, the command that "
        "redoes it\n"
        "  jct_cdf, jct_bars, makespan, utilization (.gp, .png, .svg): "
        "charts; the\n"
        "                        utilization of each policy is the most "
        "GPUs it had\n"
        "                        busy from each of %d evenly spaced times "
        "over [0, the\n"
        "                        longest makespan] to the next, over its "
        "total GPUs\n"
        "and prints compare.csv as a table. A run that fails is reported "
        "with its\nexit code and messages; the others still run, and the "
        "exit code is 1.\n\n"
        "Example:\n"
        "  hetsim compare --trace traces/gavel/msr-seed0-6214e9.csv "
        "--cluster gavel-108 \\\n"
        "                 --policies fifo,sjf --estimates oracle --out "
        "results/cmp -j 2\n",
        CMP_MAX_POLICIES, CMP_GRID);
}

static int add_policies(struct cmp_options *o, const char *arg)
{
    if (strlen(arg) >= sizeof o->list)
        return cli_usage_error(CMP_CMD, "--policies: list too long");
    snprintf(o->list, sizeof o->list, "%s", arg);
    o->npolicies = 0;
    for (char *p = o->list, *next; p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        /* A plugin is checked by its run, which says what is wrong. */
        int plugin = !pol_find(p) && cli_policy_is_plugin(p);
        const char *label = plugin && strrchr(p, '/') ? strrchr(p, '/') + 1
                                                      : p;
        if (!pol_find(p) && (!plugin || !label[0] || label[0] == '.')) {
            char names[512] = "";
            for (size_t i = 0; pol_at(i); i++) {
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s%s",
                         i ? ", " : "", pol_at(i)->name);
            }
            char hint[128];
            cli_policy_hint(hint, sizeof hint, p);
            return cli_usage_error(CMP_CMD, "unknown policy '%s'%s (choose "
                                   "from: %s)", p, hint, names);
        }
        for (size_t i = 0; i < o->npolicies; i++)
            if (strcmp(o->label[i], label) == 0)
                return cli_usage_error(CMP_CMD, "policy '%s' listed twice",
                                       label);
        if (o->npolicies == CMP_MAX_POLICIES)
            return cli_usage_error(CMP_CMD, "at most %d policies",
                                   CMP_MAX_POLICIES);
        o->label[o->npolicies] = label;
        o->policy[o->npolicies++] = p;
    }
    return 0;
}

/* Checks the options passed to the runs, so that misuse exits 2 here
 * before anything runs. */
static int check_passed(const struct cmp_options *o)
{
    static struct run_config cfg;
    if (o->estimates && cli_parse_estimates(CMP_CMD, o->estimates, &cfg))
        return CLI_USAGE;
    enum trace_format f;
    struct trace_options topt = {0};
    if (o->format && cli_trace_option(CMP_CMD, 'f', o->format, &f, &topt))
        return CLI_USAGE;
    if (o->seed && (!o->seed[0] || strspn(o->seed, "0123456789") !=
                                       strlen(o->seed)))
        return cli_usage_error(CMP_CMD, "--seed wants a whole number >= 0, "
                               "got '%s'", o->seed);
    return 0;
}

static int parse_compare_args(int argc, char **argv, struct cmp_options *o)
{
    static const struct option long_options[] = {
        {"trace", required_argument, NULL, 't'},
        {"cluster", required_argument, NULL, 'c'},
        {"policies", required_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'o'},
        {"estimates", required_argument, NULL, 'E'},
        {"throughputs", required_argument, NULL, 'T'},
        {"format", required_argument, NULL, 'f'},
        {"seed", required_argument, NULL, 's'},
        {"jobs", required_argument, NULL, 'j'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        /* passed to every `hetsim run` as given (passopt.h) */
        CLI_PASS_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->argc = argc;
    o->argv = argv;
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":t:c:p:o:E:T:f:s:j:h",
                              long_options, NULL)) != -1) {
        switch (opt) {
        case 't': o->trace = optarg; break;
        case 'c': o->cluster = optarg; break;
        case 'o': o->out = optarg; break;
        case 'E': o->estimates = optarg; break;
        case 'T': o->throughputs = optarg; break;
        case 'f': o->format = optarg; break;
        case 's': o->seed = optarg; break;
        case 'p':
            if ((rc = add_policies(o, optarg)) != 0)
                return rc;
            break;
        case 'j':
            if (cli_pool_parse_jobs(CMP_CMD, optarg, &o->jobs))
                return CLI_USAGE;
            break;
        case 'J': o->json = 1; break;
        case 'h': compare_usage(); return -1;
        case '?':
        case ':': return cli_option_error_in(CMP_CMD, opt, argv, long_options);
        default:
            if ((rc = cli_pass_option(CMP_CMD, opt, optarg, o->pass, &o->npass,
                                      CMP_MAX_PASS)) != 0)
                return rc == 1 ? cli_option_error_in(CMP_CMD, opt, argv,
                                                     long_options)
                               : rc;
        }
    }
    if (optind < argc)
        return cli_usage_error(CMP_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!o->trace)
        return cli_usage_error(CMP_CMD, "missing --trace FILE");
    if (!o->cluster)
        return cli_usage_error(CMP_CMD, "missing --cluster FILE|NAME");
    if (!o->npolicies)
        return cli_usage_error(CMP_CMD, "missing --policies A,B,...");
    if (!o->out)
        return cli_usage_error(CMP_CMD, "missing --out DIR");
    return check_passed(o);
}

/* ---- Running the children ----------------------------------------------- */

void cmp_run_args(const struct cmp_options *o, size_t k, int dry, char *out,
                  size_t out_cap, const char **args)
{
    snprintf(out, out_cap, "%s/%s", o->out, o->label[k]);
    const char *head[] = {"hetsim", "run", dry ? "--dry-run" : "-q",
                          "--trace", o->trace_file ? o->trace_file : o->trace,
                          "--cluster", o->cluster,
                          "--policy", o->policy[k], "--out", out};
    size_t n = sizeof head / sizeof head[0];
    memcpy(args, head, sizeof head);
    const char *opt[] = {"--estimates", o->estimates, "--throughputs",
                         o->throughputs, "--format", o->format, "--seed",
                         o->seed};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i += 2)
        if (opt[i + 1]) {
            args[n++] = opt[i];
            args[n++] = opt[i + 1];
        }
    for (size_t i = 0; i < o->npass; i++)
        if (o->pass[i])
            args[n++] = o->pass[i];
    args[n] = NULL;
}

struct run_ctx {
    const struct cmp_options *o;
    struct cmp_policy *res;
    size_t done;
    double t0;
};

/* A run ended: marked as ran, or its failure said. */
static int ran(void *ctx, const struct cli_pool_done *d)
{
    struct run_ctx *x = ctx;
    const struct cmp_options *o = x->o;
    if (!cli_pool_ok(d)) {
        char what[256];
        snprintf(what, sizeof what, "policy %s", o->label[d->tag]);
        cli_pool_report(what, "run", d);
        return CLI_FAILURE;
    }
    x->res[d->tag].ran = 1;
    fprintf(stderr, "hetsim compare: %zu of %zu runs done (%s), %.1f s\n",
            ++x->done, o->npolicies, o->label[d->tag], cli_clock() - x->t0);
    return CLI_OK;
}

/* Runs every policy, at most o->jobs at a time; CLI_OK when all ran. */
static int run_all(const struct cmp_options *o, struct cmp_policy *res)
{
    struct run_ctx x = {o, res, 0, cli_clock()};
    return cmp_run_each(o, 0, ran, &x);
}

/* ---- Reading what they wrote -------------------------------------------- */

/* The whole of DIR/NAME, NUL-terminated, or NULL after a message. */
static char *slurp(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
        fread(buf, 1, (size_t)len, f) == (size_t)len)
        buf[len] = '\0';
    else {
        cli_error("%s: cannot read: %s", path,
                  buf || !f || len < 0 ? strerror(errno) : "out of memory");
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

static char *slurp(const char *dir, const char *name);

/* summary.json's text field KEY into BUF ("" when absent). */
static void summary_text(const cJSON *root, const char *key, char *buf,
                         size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    snprintf(buf, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static int read_summary(const char *dir, struct cmp_policy *r)
{
    static const char *const more[] = {"total_gpus", "jobs_total",
                                       "jobs_unschedulable", "jobs_failed",
                                       "avg_slowdown"};
    double v[5];
    int rc = cli_read_summary(dir, cmp_keys, CMP_NKEYS, 0.0, r->v);
    if (!rc)
        rc = cli_read_summary(dir, more, 5, 0.0, v);
    if (rc)
        return rc;
    r->total_gpus = v[0];
    r->jobs_total = v[1];
    r->jobs_unschedulable = v[2];
    r->jobs_failed = v[3];
    r->avg_slowdown = v[4];
    char *text = slurp(dir, "summary.json");
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    summary_text(root, "cluster", r->cluster, sizeof r->cluster);
    summary_text(root, "placement", r->placement, sizeof r->placement);
    cJSON_Delete(root);
    free(text);
    return CLI_OK;
}

/* Appends X to *A (length *N, room *CAP); -1 when out of memory. */
static int push(double **a, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        double *p = realloc(*a, c * sizeof *p);
        if (!p)
            return -1;
        *a = p;
        *cap = c;
    }
    (*a)[(*n)++] = x;
    return 0;
}

/* Field K (from 0) of the comma-separated LINE, counted from the end when
 * FROM_END; NULL when the line has too few. */
static const char *field(const char *line, size_t len, size_t k,
                         int from_end)
{
    if (!from_end) {
        const char *p = line;
        for (size_t i = 0; i < k; i++) {
            const char *c = memchr(p, ',', len - (size_t)(p - line));
            if (!c)
                return NULL;
            p = c + 1;
        }
        return p;
    }
    size_t seen = 0;
    for (size_t i = len; i > 0; i--)
        if (line[i - 1] == ',' && seen++ == k)
            return line + i;
    return NULL;
}

/* jobs.csv: the jct of completed jobs (the job id may hold commas, so the
 * column is counted from the end: jct is the 7th field from the end; the
 * reason, last, holds no commas). */
static int read_jobs(const char *dir, struct cmp_policy *r)
{
    char *text = slurp(dir, "jobs.csv");
    if (!text)
        return CLI_FAILURE;
    size_t cap = 0;
    int rc = CLI_OK;
    char *line = strchr(text, '\n');
    while (line && *++line && rc == CLI_OK) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *f = field(line, len, 6, 1);
        if (!f) {
            cli_error("%s/jobs.csv: a row lacks the jct column", dir);
            rc = CLI_FAILURE;
        } else if (*f != ',' && push(&r->jct, &r->njct, &cap,
                                     strtod(f, NULL)) != 0) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
        }
        line = eol;
    }
    free(text);
    return rc;
}

/* timeline.csv: columns time and busy_gpus (the 1st and 3rd). */
static int read_timeline(const char *dir, struct cmp_policy *r)
{
    char *text = slurp(dir, "timeline.csv");
    if (!text)
        return CLI_FAILURE;
    size_t cap_t = 0, cap_b = 0, nb = 0;
    int rc = CLI_OK;
    char *line = strchr(text, '\n');
    while (line && *++line && rc == CLI_OK) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *busy = field(line, len, 2, 0);
        if (!busy) {
            cli_error("%s/timeline.csv: a row lacks busy_gpus", dir);
            rc = CLI_FAILURE;
        } else if (push(&r->tl_time, &r->ntl, &cap_t, strtod(line, NULL)) ||
                   push(&r->tl_busy, &nb, &cap_b, strtod(busy, NULL))) {
            cli_error("out of memory");
            rc = CLI_FAILURE;
        }
        line = eol;
    }
    free(text);
    return rc;
}

static int read_results(const struct cmp_options *o, struct cmp_policy *r)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", o->out, r->name);
    int rc = read_summary(dir, r);
    if (!rc)
        rc = read_jobs(dir, r);
    if (!rc)
        rc = read_timeline(dir, r);
    r->read = rc == CLI_OK;
    return rc;
}

/* The command, with standard input copied into TMP (its size) for
 * --trace -, which the caller removes. */
static int compare_in(int argc, char **argv, char *tmp, size_t cap)
{
    static struct cmp_options o; /* large: keep it off the stack */
    int rc = parse_compare_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    if (strcmp(o.trace, "-") == 0) { /* copied once for every run to read */
        if (cli_spool_stdin(tmp, cap) != 0)
            return CLI_FAILURE;
        o.trace_file = tmp;
    }
    if ((rc = cmp_check_all(&o)) != CLI_OK)
        return rc;
    /* One result set: the runs, compare.csv, charts and report are written
     * into a temporary folder that replaces --out whole when all ran. */
    struct exp_set *set;
    char err[EXP_PATH_MAX + 256];
    if (exp_set_begin(&set, o.out, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_FAILURE;
    }
    const char *target = o.out;
    o.out = exp_set_dir(set);
    struct cmp_policy res[CMP_MAX_POLICIES];
    memset(res, 0, sizeof res);
    for (size_t k = 0; k < o.npolicies; k++)
        res[k].name = o.label[k];
    rc = run_all(&o, res);
    int nread = 0;
    for (size_t k = 0; k < o.npolicies; k++)
        if (res[k].ran) {
            if (read_results(&o, &res[k]) != CLI_OK)
                rc = CLI_FAILURE;
            nread += res[k].read;
        }
    if (nread && cmp_write_csv(o.out, res, o.npolicies) != CLI_OK)
        rc = CLI_FAILURE;
    if (nread && cmp_draw_charts(o.out, res, o.npolicies) != 0)
        rc = CLI_FAILURE;
    if (nread && cmp_write_report(&o, res) != 0)
        rc = CLI_FAILURE;
    o.out = target;
    if (rc != CLI_OK)
        exp_set_abort(set);
    else if (exp_set_commit(set, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = CLI_FAILURE;
    }
    if (nread && rc == CLI_OK && o.json)
        cmp_print_json(&o, res);
    else if (nread && rc == CLI_OK)
        cmp_print_table(res, o.npolicies);
    if (nread && rc == CLI_OK)
        fprintf(stderr, "hetsim compare: report %s/report.html (open it in "
                "a browser), table %s/compare.csv, runs %s/POLICY/\n",
                o.out, o.out, o.out);
    for (size_t k = 0; k < o.npolicies; k++) {
        free(res[k].jct);
        free(res[k].tl_time);
        free(res[k].tl_busy);
    }
    return rc;
}


int cli_compare(int argc, char **argv)
{
    char tmp[4096] = "";
    int rc = compare_in(argc, argv, tmp, sizeof tmp);
    if (tmp[0])
        unlink(tmp);
    return rc;
}
