/* report.c -- `hetsim run --report`: DIR/report.html, one self-contained
 * page (inline CSS, the charts' SVG files inlined, no script, no network)
 * with the inputs, the key figures of summary.json, every chart with a
 * caption, and the command that reproduces the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "policy.h"

/* Writes S with & < > " ' escaped. */
static void put_html(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Writes ARG quoted for a POSIX shell (bare when it is safe), HTML-escaped. */
static void put_shell_arg(FILE *f, const char *arg)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR"
                               "STUVWXYZ0123456789_./:=@%+,-";
    if (arg[0] && strspn(arg, safe) == strlen(arg)) {
        put_html(f, arg);
        return;
    }
    fputs("&#39;", f);
    for (const char *p = arg; *p; p++) {
        char one[2] = {*p, '\0'};
        if (*p == '\'')
            fputs("&#39;\\&#39;&#39;", f);
        else
            put_html(f, one);
    }
    fputs("&#39;", f);
}

/* X with at most two decimals, trailing zeros dropped: 170, 77.5, 0.33. */
static const char *num(char *buf, size_t cap, double x)
{
    snprintf(buf, cap, "%.2f", x);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
    return buf;
}

static void row_text(FILE *f, const char *key, const char *value)
{
    fprintf(f, "<tr><th>%s</th><td>", key);
    put_html(f, value);
    fputs("</td></tr>\n", f);
}

static void row_seconds(FILE *f, const char *key, double s)
{
    char a[64], b[64];
    fprintf(f, "<tr><th>%s</th><td>%s s", key, num(a, sizeof a, s));
    if (s >= 3600)
        fprintf(f, " (%s h)", num(b, sizeof b, s / 3600));
    fputs("</td></tr>\n", f);
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,"
    "sans-serif;color:#222;max-width:960px;margin:2em auto;padding:0 1em;"
    "line-height:1.45}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:"
    "1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}\n"
    "table{border-collapse:collapse;margin:.5em 0}th,td{text-align:left;"
    "padding:.25em .9em .25em 0;vertical-align:top;border-bottom:1px solid "
    "#eee}th{font-weight:600;white-space:nowrap}\n"
    "h3{font-size:1.02em;margin:.2em 0 .4em}\n"
    "figure{margin:1.2em 0;padding:0}figure svg{display:block;max-width:100%;"
    "height:auto;border:1px solid #eee}\n"
    "figcaption{font-size:.92em;color:#444;margin-top:.3em}\n"
    ".missing{padding:1em;background:#fff7e0;border:1px solid #f0d890}\n"
    "pre{background:#f5f5f5;padding:.8em;overflow-x:auto;white-space:"
    "pre-wrap;word-break:break-all}\n"
    ".sub{color:#666}\n";

static void write_inputs(FILE *f, const struct run_config *cfg,
                         const struct cluster *c, const struct trace *t)
{
    char buf[64];
    fputs("<h2>Inputs</h2>\n<table>\n", f);
    row_text(f, "trace", cfg->trace);
    row_text(f, "trace format", trace_format_name(t->format));
    fputs("<tr><th>cluster</th><td>", f);
    put_html(f, c->name);
    fprintf(f, ": %d GPUs (", (int)c->total_gpus);
    for (int32_t g = 0; g < c->ntypes; g++) {
        fputs(g ? ", " : "", f);
        fprintf(f, "%d &times; ", (int)c->types[g].gpus);
        put_html(f, c->types[g].name);
    }
    fputs(")</td></tr>\n", f);
    fputs("<tr><th>policy</th><td>", f);
    put_html(f, cfg->policy);
    for (size_t i = 0; i < cfg->nopts; i++) {
        fputs(i ? ", " : " (", f);
        put_html(f, cfg->opt_keys[i]);
        fputc('=', f);
        put_html(f, cfg->opt_values[i]);
    }
    fputs(cfg->nopts ? ")</td></tr>\n" : "</td></tr>\n", f);
    row_text(f, "placement",
             pol_placement_name((enum pol_placement)cfg->placement));
    static const char *const backfills[] = {"none", "easy", "conservative"};
    row_text(f, "backfill", backfills[cfg->backfill]);
    row_text(f, "estimates", cfg->estimates_text);
    row_seconds(f, "restart overhead", cfg->restart_overhead_s);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)cfg->seed);
    row_text(f, "seed", buf);
    row_text(f, "hetsim version", HETSIM_VERSION);
    fputs("</table>\n", f);
}

static void write_summary(FILE *f, const struct cluster *c,
                          const struct sim_summary *m)
{
    char a[64];
    fputs("<h2>Summary</h2>\n<p class=\"sub\">Key figures of summary.json "
          "(times in simulated seconds; averages over completed jobs).</p>\n"
          "<table>\n", f);
    fprintf(f, "<tr><th>jobs completed</th><td>%zu of %zu", m->jobs_completed,
            m->jobs_total);
    if (m->jobs_failed || m->jobs_unschedulable)
        fprintf(f, " (%zu unschedulable, %zu failed)", m->jobs_unschedulable,
                m->jobs_failed);
    fputs("</td></tr>\n", f);
    row_seconds(f, "makespan", m->makespan_s);
    row_seconds(f, "average JCT", m->avg_jct_s);
    row_seconds(f, "median JCT", m->median_jct_s);
    row_seconds(f, "p95 JCT", m->p95_jct_s);
    row_seconds(f, "p99 JCT", m->p99_jct_s);
    row_seconds(f, "average wait", m->avg_wait_s);
    fprintf(f, "<tr><th>average slowdown</th><td>%s</td></tr>\n",
            num(a, sizeof a, m->avg_slowdown));
    fprintf(f, "<tr><th>GPU utilization</th><td>%s %%",
            num(a, sizeof a, 100 * m->gpu_utilization));
    for (int32_t g = 0; g < c->ntypes; g++) {
        fputs(g ? ", " : " (", f);
        put_html(f, c->types[g].name);
        fprintf(f, " %s %%", num(a, sizeof a, 100 * m->utilization_by_type[g]));
    }
    fputs(c->ntypes ? ")</td></tr>\n" : "</td></tr>\n", f);
    fprintf(f, "<tr><th>preemptions</th><td>%llu</td></tr>\n",
            (unsigned long long)m->preemptions_total);
    fputs("</table>\n", f);
}

/* Modification time of DIR/NAME in nanoseconds, or -1. */
static long long mtime_ns(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0)
        return -1;
    return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* The whole of DIR/NAME.svg from "<svg" on (no XML prolog), NUL-ended, if
 * it was drawn by this run (not older than summary.json nor its script);
 * NULL otherwise. Freed by the caller. */
static char *read_svg(const char *dir, const char *name)
{
    char file[256];
    snprintf(file, sizeof file, "%s.svg", name);
    long long svg = mtime_ns(dir, file);
    snprintf(file, sizeof file, "%s.gp", name);
    if (svg < 0 || svg < mtime_ns(dir, file) ||
        svg < mtime_ns(dir, "summary.json"))
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, in);
        n += got;
        if (got == 0)
            break;
    }
    fclose(in);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    char *start = strstr(buf, "<svg");
    if (!start || !strstr(start, "</svg>")) {
        free(buf);
        return NULL;
    }
    memmove(buf, start, strlen(start) + 1);
    return buf;
}

struct chart_info {
    const char *name, *heading, *caption;
};

static const struct chart_info charts[] = {
    {"jct_cdf", "Job completion times",
     "Cumulative distribution of job completion time (finish &minus; "
     "submit) over completed jobs: at each time x (log scale) the curve "
     "gives the fraction of jobs done within x; further left is better."},
    {"queue", "Queue length over time",
     "Jobs waiting to start at each moment of simulated time; long or "
     "rising plateaus mean the cluster could not keep up with arrivals."},
    {"busy_gpus", "Busy GPUs per type over time",
     "GPUs of each type running jobs at each moment; the gap between a "
     "curve and that type's GPU count (see Inputs) is idle capacity."},
    {"utilization", "Utilization per GPU type",
     "Busy GPU-time as a percentage of the GPU-time available over the "
     "makespan, per GPU type and for the whole cluster (all); higher means "
     "less idle hardware."},
};

static void write_charts(FILE *f, const char *dir)
{
    fputs("<h2>Charts</h2>\n", f);
    for (size_t i = 0; i < sizeof charts / sizeof charts[0]; i++) {
        const struct chart_info *ch = &charts[i];
        fprintf(f, "<figure id=\"%s\">\n<h3>%s</h3>\n", ch->name, ch->heading);
        char *svg = read_svg(dir, ch->name);
        if (svg) {
            fputs(svg, f);
            fputc('\n', f);
        } else
            fprintf(f, "<div class=\"missing\">This chart was not drawn "
                    "(gnuplot not found, or the run had nothing to show). If "
                    "%s.gp exists, <code>gnuplot %s.gp</code> in the results "
                    "folder draws it.</div>\n", ch->name, ch->name);
        free(svg);
        fprintf(f, "<figcaption>%s</figcaption>\n</figure>\n", ch->caption);
    }
}

int cli_write_report(const struct run_config *cfg, const struct cluster *c,
                     const struct trace *t, const struct sim_summary *m)
{
    struct cli_atomic a = {0};
    if (cli_atomic_open(&a, cfg->out, "report.html")) {
        cli_error("%s: %s", a.tmp, strerror(errno));
        return -1;
    }
    FILE *f = a.f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8"
          "\">\n<title>hetsim: ", f);
    put_html(f, cfg->policy);
    fputs(" on ", f);
    put_html(f, c->name);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>hetsim "
            "run: ", css);
    put_html(f, cfg->policy);
    fputs(" on ", f);
    put_html(f, c->name);
    fputs("</h1>\n<p class=\"sub\">Trace ", f);
    put_html(f, cfg->trace);
    fputs(". Result files beside this page: summary.json, jobs.csv, "
          "timeline.csv, perf.json, and each chart as .png, .svg and .gp.</p>"
          "\n", f);
    write_inputs(f, cfg, c, t);
    write_summary(f, c, m);
    write_charts(f, cfg->out);
    fputs("<h2>Reproduce</h2>\n<p class=\"sub\">From the folder the run was "
          "started in:</p>\n<pre id=\"reproduce\">hetsim", f);
    for (int i = 0; i < cfg->argc; i++) {
        fputc(' ', f);
        put_shell_arg(f, cfg->argv[i]);
    }
    fputs("</pre>\n</body>\n</html>\n", f);
    if (ferror(f) || cli_atomic_commit(&a) != 0) {
        cli_error("%s: %s", a.path, strerror(errno ? errno : EIO));
        cli_atomic_abort(&a);
        return -1;
    }
    return 0;
}
