/* json_lines.c -- where each value of a JSON text starts, so that strict
 * checkers (the sweep SPEC, golden files) can name FILE:LINE. cJSON keeps
 * no positions; but it keeps members in document order, so the K-th value
 * met by a pre-order walk of the tree is the K-th value start in the text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep_internal.h"

/* Past the string that starts at P (on its opening quote). */
static const char *skip_string(const char *p, long *line)
{
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '\n')
            (*line)++;
    }
    return *p ? p + 1 : p;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Calls the line of every value start of TEXT, in order, into LINES (room
 * for CAP); returns how many there are (more than CAP: not all stored). */
static size_t value_lines(const char *text, long *lines, size_t cap)
{
    size_t n = 0;
    long line = 1;
    for (const char *p = text; *p;) {
        char c = *p;
        if (c == '\n') {
            line++;
            p++;
        } else if (is_blank(c) || c == ',' || c == ':' || c == '}' ||
                   c == ']') {
            p++;
        } else if (c == '"') {
            long at = line;
            p = skip_string(p, &line);
            const char *q = p;
            while (is_blank(*q))
                q++;
            if (*q == ':') /* a key, not a value */
                continue;
            if (n < cap)
                lines[n] = at;
            n++;
        } else {
            if (n < cap)
                lines[n] = line;
            n++;
            if (c == '{' || c == '[')
                p++;
            else
                while (*p && !is_blank(*p) && *p != ',' && *p != '}' &&
                       *p != ']')
                    p++;
        }
    }
    return n;
}

static void walk(const cJSON *item, struct cli_json_lines *m, size_t *k,
                 const long *lines, size_t nlines)
{
    if (*k < nlines) {
        m->item[*k] = item;
        m->line[*k] = lines[*k];
    }
    (*k)++;
    for (const cJSON *c = item->child; c; c = c->next)
        walk(c, m, k, lines, nlines);
}

int cli_json_lines_build(struct cli_json_lines *m, const char *text,
                         const cJSON *root)
{
    memset(m, 0, sizeof *m);
    size_t n = value_lines(text, NULL, 0);
    m->item = calloc(n + 1, sizeof *m->item);
    m->line = calloc(n + 1, sizeof *m->line);
    if (!m->item || !m->line) {
        cli_json_lines_free(m);
        return -1;
    }
    value_lines(text, m->line, n);
    size_t k = 0;
    walk(root, m, &k, m->line, n);
    m->n = k < n ? k : n;
    return 0;
}

long cli_json_line(const struct cli_json_lines *m, const cJSON *item)
{
    for (size_t k = 0; k < m->n; k++)
        if (m->item[k] == item)
            return m->line[k];
    return 0;
}

void cli_json_lines_free(struct cli_json_lines *m)
{
    free(m->item);
    free(m->line);
    memset(m, 0, sizeof *m);
}

char *cli_read_text(const char *path, size_t max)
{
    int in = strcmp(path, "-") == 0; /* standard input */
    FILE *f = in ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = ferror(f);
    if (!in)
        fclose(f);
    if (!buf || bad || n > max) {
        free(buf);
        errno = !buf ? ENOMEM : bad ? EIO : EFBIG;
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}
