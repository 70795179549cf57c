/* html.h -- writing the self-contained report.html pages of the CLI
 * (html.c): `hetsim run --report` (report.c) and `hetsim compare`
 * (compare_report.c) share the page, its style, the inlined charts and the
 * command that reproduces them. */
#ifndef HETSIM_CLI_HTML_H
#define HETSIM_CLI_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* Writes S with & < > " ' escaped. */
void cli_html_text(FILE *f, const char *s);
/* X with at most two decimals, trailing zeros dropped: 170, 77.5, 0.33;
 * written into BUF (CAP bytes), which is returned. */
const char *cli_html_num(char *buf, size_t cap, double x);
/* Table rows: <th>KEY</th> and VALUE escaped, or S seconds (and hours
 * from one hour on). KEY is HTML already. */
void cli_html_row_text(FILE *f, const char *key, const char *value);
/* The git commit hetsim was built from, set by main ("": unknown), and the
 * "hetsim version" row of a report's inputs: the version and that commit. */
extern const char *cli_build_commit;
void cli_html_row_version(FILE *f);
void cli_html_row_seconds(FILE *f, const char *key, double s);

/* Opens DIR/report.html (atomically; cli_html_close commits it) and writes
 * the head, the style and an <h1> of TITLE. 0, or -1 after a message. */
int cli_html_open(struct cli_atomic *a, const char *dir, const char *title);

/* One chart of a page. heading and caption are HTML; skipped, when not
 * NULL, is an HTML note shown instead of the chart (why it was not drawn). */
struct cli_html_chart {
    const char *name, *heading, *caption, *skipped;
};

/* A "Charts" section: each chart's DIR/NAME.svg inlined (from "<svg" on)
 * when it is newer than its .gp and than DIR/RESULTS (so that a stale
 * image of an earlier run is never shown), else a note; then its caption. */
void cli_html_charts(FILE *f, const char *dir, const char *results,
                     const struct cli_html_chart *charts, size_t n);

/* Writes the "Reproduce" section (COMMAND, then ARGV shell-quoted), ends
 * the page and commits it. 0, or -1 after a message. */
int cli_html_close(struct cli_atomic *a, const char *command, int argc,
                   char **argv);

#endif
