/* native_fast.c -- plain rows of a streamed native trace in one pass.
 *
 * A streamed trace (trace_native_next) is mostly rows such as
 * "b17,2.158,1,21141.809": no quotes, no blanks, numbers in plain decimal.
 * Such a row is split and its numbers converted straight from the
 * tokenizer's buffer, in one pass over its bytes, where the general path
 * splits it (csv.c), then walks the fields (native.c, check_row) and
 * parses each number (trace_csv_double). Anything else -- a quote, a
 * blank, a sign, an exponent, an empty required cell, a value outside its
 * column's rule, a row that runs past the buffered bytes -- leaves the row
 * unread, and the general path reads it: the same values, or the same
 * error. The numbers are the general path's (and strtod's): a decimal of
 * at most 19 digits whose integer m is at most 2^53 and has at most 22
 * fraction digits is m / 10^k, one correctly rounded division of two exact
 * doubles (Clinger's fast path, as trace_csv_double); others are left to
 * the general path. */
#include "traces_internal.h"

#include <float.h>
#include <string.h>

#define EXACT_MANTISSA ((uint64_t)1 << 53)
static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Bytes that end a field of text here, or make the row not plain. The NUL
 * sentinel after the buffered bytes is one of them. */
static const unsigned char stop_text[256] = {
    [0] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1};

static int is_digit(char ch)
{
    return (unsigned)(ch - '0') < 10;
}

/* Where the field ending at Q ends its record (LAST) or is followed by
 * another: the byte after its delimiter, or NULL when Q is no such end. */
static char *after_delimiter(char *q, int last)
{
    if (!last)
        return *q == ',' ? q + 1 : NULL;
    if (*q == '\n')
        return q + 1;
    return *q == '\r' && q[1] == '\n' ? q + 2 : NULL;
}

/* A number of field F at Q into JOB; the end of its digits, or NULL when
 * the cell is not plain or breaks the column's rule. An empty optional
 * cell keeps the default, as the general path does. */
static char *plain_number(const struct trace_fast_field *f, char *q,
                          struct trace_job *job)
{
    char *b = q, *dst = (char *)job + f->offset;
    uint64_t m = 0;
    while (is_digit(*q))
        m = m * 10 + (uint64_t)(*q++ - '0');
    size_t ndigits = (size_t)(q - b), frac = 0;
    if (f->kind == TRACE_FAST_INT) {
        if (ndigits == 0) /* empty, if a delimiter follows */
            return f->required ? NULL : q;
        int64_t v = (int64_t)m;
        if (ndigits > 18 || v < f->min || v > f->max)
            return NULL;
        if (f->i32) {
            int32_t w = (int32_t)v;
            memcpy(dst, &w, sizeof w);
        } else {
            memcpy(dst, &v, sizeof v);
        }
        return q;
    }
    if (*q == '.') {
        char *fb = ++q;
        while (is_digit(*q))
            m = m * 10 + (uint64_t)(*q++ - '0');
        frac = (size_t)(q - fb);
        ndigits += frac;
    }
    if (ndigits == 0) /* empty, if no point and a delimiter follow */
        return f->required || q != b ? NULL : q;
    if (ndigits > 19 || m > EXACT_MANTISSA || frac > 22)
        return NULL;
    double d = (double)m;
#if FLT_EVAL_METHOD == 0
    if (frac && m)
        d = (double)m / exact_pow10[frac];
#else
    if (frac && m)
        return NULL;
#endif
    /* Beyond TRACE_MAX_TIME_S a time is refused (trace_check_times):
     * other columns may have such values, but not on this path. */
    if ((f->positive ? !(d > 0) : !(d >= 0)) || d > TRACE_MAX_TIME_S)
        return NULL;
    memcpy(dst, &d, sizeof d);
    return q;
}

int trace_fast_row(const struct trace_fast *fast, struct trace_csv *csv,
                   struct trace_job *job, struct trace_csv_row *row)
{
    long line;
    char *q = trace_csv_peek(csv, &line);
    size_t n = fast->nfields;
    for (size_t i = 0; i < n; i++) {
        const struct trace_fast_field *f = &fast->f[i];
        char *b = q;
        if (f->kind == TRACE_FAST_TEXT || f->kind == TRACE_FAST_ID) {
            while (!stop_text[(unsigned char)*q])
                q++;
            if (q == b && f->kind == TRACE_FAST_ID)
                return 0;
        } else if (!(q = plain_number(f, q, job))) {
            return 0;
        }
        fast->fields[i] = (struct trace_csv_field){b, (size_t)(q - b), 0, 0};
        if (!(q = after_delimiter(q, i + 1 == n)))
            return 0;
    }
    for (size_t i = 0; i < n; i++) /* the row is ours now */
        fast->fields[i].text[fast->fields[i].len] = '\0';
    trace_csv_take_line(csv, q);
    row->fields = fast->fields;
    row->nfields = n;
    row->line = line;
    row->bad = NULL;
    row->bad_field = 0;
    return 1;
}
