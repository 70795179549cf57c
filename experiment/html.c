/* html.c -- the self-contained HTML pages of `hetsim run --report` and
 * `hetsim compare`: inline CSS, the charts' SVG files inlined, no script,
 * no network. report.c and compare_report.c fill in what differs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "html.h"

/* Writes S with & < > " ' escaped. */
void cli_html_text(FILE *f, const char *s)
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
        cli_html_text(f, arg);
        return;
    }
    fputs("&#39;", f);
    for (const char *p = arg; *p; p++) {
        char one[2] = {*p, '\0'};
        if (*p == '\'')
            fputs("&#39;\\&#39;&#39;", f);
        else
            cli_html_text(f, one);
    }
    fputs("&#39;", f);
}

/* X with at most two decimals, trailing zeros dropped: 170, 77.5, 0.33. */
const char *cli_html_num(char *buf, size_t cap, double x)
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

void cli_html_row_text(FILE *f, const char *key, const char *value)
{
    fprintf(f, "<tr><th>%s</th><td>", key);
    cli_html_text(f, value);
    fputs("</td></tr>\n", f);
}

void cli_html_row_seconds(FILE *f, const char *key, double s)
{
    char a[64], b[64];
    fprintf(f, "<tr><th>%s</th><td>%s s", key, cli_html_num(a, sizeof a, s));
    if (s >= 3600)
        fprintf(f, " (%s h)", cli_html_num(b, sizeof b, s / 3600));
    fputs("</td></tr>\n", f);
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,"
    "sans-serif;color:#222;max-width:1140px;margin:2em auto;padding:0 1em;"
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
    "pre-wrap;overflow-wrap:anywhere}\n"
    ".sub{color:#666}p,figcaption,pre{max-width:960px}\n"
    ".wide{overflow-x:auto}.grid{font-size:.9em}.nowrap td{white-space:nowrap}"
    ".grid small{color:#666}\n"
    ".grid td{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".grid tr:first-child th{white-space:normal;text-align:right;"
    "vertical-align:bottom}.grid tr:first-child th:first-child{text-align:"
    "left}\n";

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
 * it was drawn by this run (not older than its script nor the file RESULTS);
 * NULL otherwise. Freed by the caller. */
static char *read_svg(const char *dir, const char *name,
                      const char *results)
{
    char file[256];
    snprintf(file, sizeof file, "%s.svg", name);
    long long svg = mtime_ns(dir, file);
    snprintf(file, sizeof file, "%s.gp", name);
    if (svg < 0 || svg < mtime_ns(dir, file) ||
        svg < mtime_ns(dir, results))
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

int cli_html_open(struct cli_atomic *a, const char *dir, const char *title)
{
    if (cli_atomic_open(a, dir, "report.html")) {
        cli_error("%s: %s", a->tmp, strerror(errno));
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8"
          "\">\n<title>hetsim ", a->f);
    cli_html_text(a->f, title);
    fprintf(a->f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>hetsim "
            "", css);
    cli_html_text(a->f, title);
    fputs("</h1>\n", a->f);
    return 0;
}

void cli_html_charts(FILE *f, const char *dir, const char *results,
                     const struct cli_html_chart *charts, size_t n)
{
    fputs("<h2>Charts</h2>\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct cli_html_chart *ch = &charts[i];
        fprintf(f, "<figure id=\"%s\">\n<h3>%s</h3>\n", ch->name, ch->heading);
        char *svg = ch->skipped ? NULL : read_svg(dir, ch->name, results);
        if (svg) {
            fputs(svg, f);
            fputc('\n', f);
        } else if (ch->skipped)
            fprintf(f, "<div class=\"missing\">%s</div>\n", ch->skipped);
        else
            fprintf(f, "<div class=\"missing\">This chart was not drawn "
                    "(gnuplot not found, or the run had nothing to show). If "
                    "%s.gp exists, <code>gnuplot %s.gp</code> in the results "
                    "folder draws it.</div>\n", ch->name, ch->name);
        free(svg);
        fprintf(f, "<figcaption>%s</figcaption>\n</figure>\n", ch->caption);
    }
}

int cli_html_close(struct cli_atomic *a, const char *command, int argc,
                   char **argv)
{
    FILE *f = a->f;
    fputs("<h2>Reproduce</h2>\n<p class=\"sub\">From the folder the command "
          "was started in:</p>\n<pre id=\"reproduce\">", f);
    cli_html_text(f, command);
    for (int i = 0; i < argc; i++) {
        fputc(' ', f);
        put_shell_arg(f, argv[i]);
    }
    fputs("</pre>\n</body>\n</html>\n", f);
    if (ferror(f) || cli_atomic_commit(a) != 0) {
        cli_error("%s: %s", a->path, strerror(errno ? errno : EIO));
        cli_atomic_abort(a);
        return -1;
    }
    return 0;
}

const char *cli_build_commit = "";

void cli_html_row_version(FILE *f)
{
    char text[160];
    snprintf(text, sizeof text, "%s%s%.100s%s", HETSIM_VERSION,
             cli_build_commit[0] ? " (commit " : "", cli_build_commit,
             cli_build_commit[0] ? ")" : "");
    cli_html_row_text(f, "hetsim version", text);
}
