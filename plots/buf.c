/* buf.c -- the text buffer scripts are built in, and the two ways user
 * input enters a script: numbers and quoted strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots_internal.h"

void plot_buf_free(struct plot_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int buf_reserve(struct plot_buf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1) {
        if (cap > (size_t)-1 / 2)
            goto fail;
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p)
        goto fail;
    b->data = p;
    b->cap = cap;
    return 0;
fail:
    b->failed = 1;
    return -1;
}

static void buf_putn(struct plot_buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void plot_buf_puts(struct plot_buf *b, const char *s)
{
    buf_putn(b, s, strlen(s));
}

void plot_buf_size(struct plot_buf *b, size_t v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%zu", v);
    buf_putn(b, tmp, (size_t)n);
}

void plot_buf_number(struct plot_buf *b, double v)
{
    /* Shortest round-trip rather than a fixed %.17g: the script stays
     * readable (0.1, not 0.10000000000000001) and still holds v exactly. */
    char tmp[40];
    int n = 0;
    if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
        /* Whole numbers in full: 130, not 1.3e+02. */
        n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
        buf_putn(b, tmp, (size_t)n);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    buf_putn(b, tmp, (size_t)n);
}

void plot_buf_text(struct plot_buf *b, const char *s)
{
    /* Single quotes: gnuplot reads backslashes in them literally, so only
     * the quote itself needs doubling. Callers mark the string noenhanced
     * rather than backslash-escaping ^ _ @ & ~ { }: gnuplot 5.4's svg
     * terminal writes an escaped \& as a bare '&', which is malformed XML,
     * and the octal form \046 shows up literally in pngcairo. */
    plot_buf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\'')
            plot_buf_puts(b, "''");
        else if (c < 0x20 || c == 0x7f)
            plot_buf_puts(b, " "); /* a newline would end the command */
        else
            buf_putn(b, p, 1);
    }
    plot_buf_puts(b, "'");
}

void plot_buf_series_title(struct plot_buf *b, const struct plot_series *s,
                           size_t k)
{
    if (s->name) {
        plot_buf_text(b, s->name);
    } else {
        plot_buf_puts(b, "'series ");
        plot_buf_size(b, k);
        plot_buf_puts(b, "'");
    }
    plot_buf_puts(b, " noenhanced");
}

void plot_buf_name(struct plot_buf *b, const char *s, size_t k)
{
    if (s) {
        plot_buf_text(b, s);
    } else {
        plot_buf_puts(b, "'");
        plot_buf_size(b, k);
        plot_buf_puts(b, "'");
    }
}
