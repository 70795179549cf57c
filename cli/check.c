/* check.c -- `hetsim check`: compares the figures of a summary.json or a
 * sweep.csv with a golden file, for CI pipelines; `--write-baseline`
 * makes the golden file. Exit 0 within tolerance, 1 regressed, 3 bad
 * input. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "check_internal.h"
#include "sweep_internal.h"

#define CHECK_CMD "hetsim check"

static void check_usage(void)
{
    printf(
        "Usage: hetsim check --baseline GOLDEN.json --result FILE "
        "[--tolerance T]\n"
        "                    [--keys K,...]\n"
        "       hetsim check --write-baseline GOLDEN.json --result FILE "
        "[--keys K,...]\n"
        "Compares the figures of FILE (a summary.json of `hetsim run` or a "
        "sweep.csv of\n`hetsim sweep`) with those kept in GOLDEN.json, so "
        "that a change to simulated\nresults is noticed (README, "
        "\"Regression check\").\n\n"
        "  -b, --baseline F        the golden file to compare with (- reads "
        "stdin)\n"
        "  -w, --write-baseline F  write FILE's figures as a golden file "
        "instead\n"
        "  -r, --result FILE       summary.json, or sweep.csv (by its .csv "
        "name); -\n"
        "                          reads a summary.json from standard input\n"
        "  -t, --tolerance T       largest relative change allowed, "
        "|result - golden| <=\n"
        "                          T |golden| (T itself when golden is 0); "
        "default: the\n"
        "                          golden file's \"tolerance\", else 0.001\n"
        "  -k, --keys K,...        only these figures (summary.json keys, "
        "or sweep.csv\n"
        "                          columns such as avg_jct_s_mean); "
        "default: all numbers\n"
        "  -q, --quiet             print nothing when within tolerance\n"
        "      --json              print the comparison as JSON on stdout "
        "(each golden\n"
        "                          figure, its result, whether within "
        "tolerance); with\n"
        "                          --write-baseline, the figures written\n"
        "  -h, --help              show this help\n\n"
        "A figure is named KEY in a summary.json, and\n"
        "TRACE|LOAD|CLUSTER|POLICY|ESTIMATES:COLUMN in a sweep.csv.\n\n"
        "Exit codes: 0 every figure of GOLDEN.json is within tolerance, 1 "
        "some moved or\nare missing (a table on stdout says which, and by "
        "how much), 2 usage, 3 a file\nis missing or malformed.\n\n"
        "Example:\n"
        "  hetsim check --write-baseline golden.json --result "
        "results/fifo/summary.json\n"
        "  hetsim check --baseline golden.json --result "
        "results/fifo/summary.json\n");
}

/* ---- The golden file ---------------------------------------------------- */

static int golden_error(const char *path, const struct cli_json_lines *m,
                        const cJSON *item, const char *text)
{
    cli_error_at(path, item ? cli_json_line(m, item) : 0, 0, text);
    return CLI_BAD_INPUT;
}

/* The figures of GOLDEN.json (those in --keys) and its tolerance. */
static int parse_golden(const char *path, const cJSON *root,
                        const struct cli_json_lines *m,
                        const struct check_args *a, struct figures *f,
                        double *tolerance)
{
    const cJSON *figs = NULL, *version = NULL;
    if (!cJSON_IsObject(root))
        return golden_error(path, m, root, "a golden file is a JSON object "
                            "(`hetsim check --write-baseline`)");
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcmp(c->string, "hetsim_baseline") == 0)
            version = c;
        else if (strcmp(c->string, "figures") == 0)
            figs = c;
        else if (strcmp(c->string, "tolerance") == 0) {
            if (!cJSON_IsNumber(c) || !(c->valuedouble >= 0))
                return golden_error(path, m, c, "\"tolerance\" must be a "
                                    "number >= 0");
            *tolerance = c->valuedouble;
        } else if (strcmp(c->string, "result") != 0 &&
                   strcmp(c->string, "comment") != 0)
            return golden_error(path, m, c, "unknown key (known: "
                                "hetsim_baseline, result, comment, "
                                "tolerance, figures)");
        else if (!cJSON_IsString(c))
            return golden_error(path, m, c, "must be a string");
    }
    if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        return golden_error(path, m, version ? version : root,
                            "\"hetsim_baseline\": 1 is missing (not a "
                            "golden file, or a newer one)");
    if (!cJSON_IsObject(figs) || !figs->child)
        return golden_error(path, m, figs ? figs : root, "\"figures\" must "
                            "be a non-empty object of name: number");
    for (const cJSON *c = figs->child; c; c = c->next) {
        if (!cJSON_IsNumber(c) && !cJSON_IsNull(c))
            return golden_error(path, m, c, "a figure must be a number or "
                                "null");
        if (check_wanted(a, c->string) &&
            check_fig_add(f, c->string, cJSON_IsNumber(c) ? c->valuedouble : NAN))
            return check_oom();
    }
    if (f->n == 0)
        return golden_error(path, m, figs, "no figures of the --keys given");
    return CLI_OK;
}

static int read_golden(const struct check_args *a, struct figures *f,
                       double *tolerance)
{
    char *text = cli_read_text(a->baseline, CHECK_MAX_FILE);
    if (!text) {
        cli_error("%s: %s", a->baseline, strerror(errno));
        return errno == ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    struct cli_json_lines m = {0};
    int rc;
    if (!root) {
        long line, col;
        char why[128];
        sim_json_failure(text, end ? (size_t)(end - text) : 0, &line, &col,
                         why, sizeof why);
        cli_error_at(a->baseline, line, col, why);
        rc = CLI_BAD_INPUT;
    } else if (cli_json_lines_build(&m, text, root) != 0)
        rc = check_oom();
    else
        rc = parse_golden(a->baseline, root, &m, a, f, tolerance);
    cli_json_lines_free(&m);
    cJSON_Delete(root);
    free(text);
    return rc;
}

static int write_golden(const struct check_args *a, const struct figures *f)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *figs = NULL;
    if (root) {
        cJSON_AddNumberToObject(root, "hetsim_baseline", 1);
        cJSON_AddStringToObject(root, "result", a->result);
        cli_json_number(root, "tolerance",
                        isnan(a->tolerance) ? 0.001 : a->tolerance);
        figs = cJSON_AddObjectToObject(root, "figures");
    }
    for (size_t i = 0; figs && i < f->n; i++)
        cli_json_number(figs, f->name[i], f->value[i]);
    if (!figs) {
        cJSON_Delete(root);
        return check_oom();
    }
    /* Beside the golden file, under a temporary name, then renamed. */
    char dir[4096];
    const char *slash = strrchr(a->write, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->write) : 1,
             slash ? a->write : ".");
    struct cli_atomic at;
    if (cli_atomic_open(&at, dir[0] ? dir : "/", slash ? slash + 1
                                                        : a->write) != 0) {
        cJSON_Delete(root);
        cli_error("%s: %s", a->write, strerror(errno));
        return CLI_FAILURE;
    }
    if (cli_write_json(at.f, root) != 0) {
        cli_atomic_abort(&at);
        return check_oom();
    }
    if (cli_atomic_commit(&at) != 0) {
        cli_error("%s: %s", a->write, strerror(errno));
        return CLI_FAILURE;
    }
    if (!a->quiet)
        fprintf(stderr, "hetsim check: wrote %zu figures of %s to %s\n", f->n,
               a->result, a->write);
    if (a->json) {
        cJSON *o = cJSON_CreateObject(), *fo = NULL;
        if (o && (fo = cJSON_AddObjectToObject(o, "figures")))
            for (size_t i = 0; i < f->n; i++)
                cli_json_number(fo, f->name[i], f->value[i]);
        if (!fo || cli_write_json(stdout, o) != 0)
            return check_oom();
    }
    return CLI_OK;
}

/* ---- Comparing ---------------------------------------------------------- */

static int within(double golden, double result, double tol)
{
    /* A null figure (a NaN, or a sum that overflowed) is never a pass,
     * not even against a null golden value. */
    if (isnan(golden) || isnan(result))
        return 0;
    double allowed = golden == 0 ? tol : tol * fabs(golden);
    return fabs(result - golden) <= allowed;
}

static void print_moved(int width, const char *name, double golden,
                        int found, double result)
{
    char g[32], r[32] = "missing", change[48] = "";
    if (isnan(golden))
        snprintf(g, sizeof g, "null");
    else
        cli_fmt_double(g, golden);
    if (found && isnan(result))
        snprintf(r, sizeof r, "null");
    else if (found) {
        cli_fmt_double(r, result);
        if (golden != 0 && isfinite(golden) && isfinite(result))
            snprintf(change, sizeof change, "%+.4g%%",
                     100 * (result - golden) / fabs(golden));
        else if (isfinite(golden) && isfinite(result))
            snprintf(change, sizeof change, "%+.4g", result - golden);
    }
    printf("%-*s %22s %22s %12s\n", width, name, g, r, change);
}

/* Where golden figure I stands among the results, or RES->n. */
static size_t find(const struct figures *golden, size_t i,
                   const struct figures *res)
{
    size_t j = 0;
    while (j < res->n && strcmp(res->name[j], golden->name[i]) != 0)
        j++;
    return j;
}

/* The comparison as JSON on stdout: every golden figure, its result
 * (null when missing or null) and whether it is within tolerance. */
static int compare_json(const struct figures *golden,
                        const struct figures *res, double tol)
{
    cJSON *root = cJSON_CreateObject(), *rows = NULL;
    size_t moved = 0;
    if (root) {
        cli_json_number(root, "tolerance", tol);
        rows = cJSON_AddArrayToObject(root, "figures");
    }
    for (size_t i = 0; rows && i < golden->n; i++) {
        size_t j = find(golden, i, res);
        double r = j < res->n ? res->value[j] : NAN;
        int ok = j < res->n && within(golden->value[i], r, tol);
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(rows, o))
            break;
        cJSON_AddStringToObject(o, "figure", golden->name[i]);
        cli_json_number(o, "golden", golden->value[i]);
        cli_json_number(o, "result", r);
        cJSON_AddBoolToObject(o, "found", j < res->n);
        cJSON_AddBoolToObject(o, "within", ok);
        moved += !ok;
    }
    if (root) {
        cJSON_AddNumberToObject(root, "moved", (double)moved);
        cJSON_AddBoolToObject(root, "ok", moved == 0);
    }
    if (!rows || cli_write_json(stdout, root) != 0)
        return check_oom();
    if (moved)
        fprintf(stderr, "hetsim check: %zu of %zu figures moved beyond "
                "tolerance %g\n", moved, golden->n, tol);
    return moved ? CLI_FAILURE : CLI_OK;
}

static int compare(const struct figures *golden, const struct figures *res,
                   double tol, int quiet)
{
    size_t moved = 0;
    int width = 6; /* "figure" */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < golden->n; i++) {
            size_t j = find(golden, i, res);
            double r = j < res->n ? res->value[j] : NAN;
            if (j < res->n && within(golden->value[i], r, tol))
                continue;
            if (pass == 0) {
                moved++;
                if ((int)strlen(golden->name[i]) > width)
                    width = (int)strlen(golden->name[i]);
            } else
                print_moved(width, golden->name[i], golden->value[i],
                            j < res->n, r);
        }
        if (pass == 0 && moved)
            printf("%-*s %22s %22s %12s\n", width, "figure", "golden",
                   "result", "change");
    }
    if (moved) {
        printf("hetsim check: %zu of %zu figures moved beyond tolerance "
               "%g\n", moved, golden->n, tol);
        return CLI_FAILURE;
    }
    if (!quiet)
        printf("hetsim check: %zu figures within tolerance %g\n", golden->n,
               tol);
    return CLI_OK;
}

/* ---- The command -------------------------------------------------------- */

static int split_keys(struct check_args *a, const char *arg)
{
    if (strlen(arg) >= sizeof a->keybuf)
        return cli_usage_error(CHECK_CMD, "--keys: list too long");
    snprintf(a->keybuf, sizeof a->keybuf, "%s", arg);
    a->nkeys = 0;
    for (char *p = strtok(a->keybuf, ","); p; p = strtok(NULL, ",")) {
        if (a->nkeys == CHECK_MAX_KEYS)
            return cli_usage_error(CHECK_CMD, "--keys: at most %d",
                                   CHECK_MAX_KEYS);
        a->keys[a->nkeys++] = p;
    }
    return a->nkeys ? 0 : cli_usage_error(CHECK_CMD, "--keys is empty");
}

static int parse_check_args(int argc, char **argv, struct check_args *a)
{
    static const struct option long_options[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"write-baseline", required_argument, NULL, 'w'},
        {"result", required_argument, NULL, 'r'},
        {"tolerance", required_argument, NULL, 't'},
        {"keys", required_argument, NULL, 'k'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->tolerance = NAN;
    int opt, rc;
    char *end;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":b:w:r:t:k:qh", long_options,
                              NULL)) != -1) {
        switch (opt) {
        case 'b': a->baseline = optarg; break;
        case 'w': a->write = optarg; break;
        case 'r': a->result = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'J': a->json = 1; break;
        case 't':
            a->tolerance = strtod(optarg, &end);
            if (end == optarg || *end || !(a->tolerance >= 0) ||
                !isfinite(a->tolerance))
                return cli_usage_error(CHECK_CMD, "--tolerance wants a "
                                       "number >= 0, got '%s'", optarg);
            break;
        case 'k':
            if ((rc = split_keys(a, optarg)) != 0)
                return rc;
            break;
        case 'h': check_usage(); return -1;
        default: return cli_option_error_in(CHECK_CMD, opt, argv, long_options);
        }
    }
    if (optind < argc)
        return cli_usage_error(CHECK_CMD, "unexpected argument '%s'",
                               argv[optind]);
    if (!a->baseline == !a->write)
        return cli_usage_error(CHECK_CMD, "give one of --baseline GOLDEN.json "
                               "or --write-baseline GOLDEN.json");
    if (!a->result)
        return cli_usage_error(CHECK_CMD, "missing --result FILE");
    return 0;
}

int cli_check(int argc, char **argv)
{
    static struct check_args a;
    int rc = parse_check_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    struct figures golden = {0}, res = {0};
    double tol = 0.001;
    rc = a.baseline ? read_golden(&a, &golden, &tol) : CLI_OK;
    if (!rc)
        rc = check_read_result(&a, &res);
    if (!rc && a.write)
        rc = write_golden(&a, &res);
    else if (!rc && a.json)
        rc = compare_json(&golden, &res, isnan(a.tolerance) ? tol : a.tolerance);
    else if (!rc)
        rc = compare(&golden, &res, isnan(a.tolerance) ? tol : a.tolerance,
                     a.quiet);
    check_fig_free(&golden);
    check_fig_free(&res);
    return rc;
}
