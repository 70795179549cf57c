/* csv.c -- a streaming RFC 4180 tokenizer and the number syntax of cells.
 *
 * The file is read in large blocks into one buffer and each record is split
 * in place: fields point into the buffer, so a record costs no malloc. A
 * record that runs past the buffered bytes is moved to the front, the rest
 * of the buffer is refilled and the record is scanned again from its start;
 * the buffer doubles only when one record fills half of it, so memory
 * follows the longest record, not the file.
 *
 * Scanning never writes, which is what makes the rescan safe; only a record
 * known to be complete is unescaped and NUL-terminated. */
#define _GNU_SOURCE /* F_SETPIPE_SZ (Linux) */
#include "traces_internal.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_BLOCK ((size_t)1 << 18)
#define CSV_PIPE ((size_t)1 << 20)
#define CSV_FIRST_FIELDS 32

struct trace_csv {
    FILE *file;
    const char *path;
    char *buf;       /* (cap + 1): buf[len] is always a NUL sentinel */
    size_t cap, len;
    size_t pos;      /* where the next record starts */
    int eof;         /* the file has no bytes beyond buf[len] */
    long line;       /* line where the record at pos starts */
    struct trace_csv_field *fields; /* (fcap) */
    size_t fcap;
};

/* Bytes that end a run of ordinary text outside and inside quotes. The NUL
 * sentinel at buf[len] is among them, so the inner loops need no bounds
 * check; a NUL met before the end is a NUL byte in the file. */
static const unsigned char stop_plain[256] = {
    [0] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1};
static const unsigned char stop_quoted[256] = {
    [0] = 1, ['"'] = 1, ['\n'] = 1};

enum scan_result { SCAN_DONE, SCAN_MORE, SCAN_UNTERMINATED, SCAN_NOMEM };

/* What one scan found out about the record at pos. */
struct scan {
    size_t nfields;
    long newlines;    /* line ends in the record, its own included */
    char *next;       /* first byte after the record */
    const char *bad;  /* the first problem found, NULL if none */
    size_t bad_field;
};

static void mark_bad(struct scan *s, const char *why)
{
    if (!s->bad) {
        s->bad = why;
        s->bad_field = s->nfields - 1;
    }
}

/* Advances over unquoted text; returns the byte that ends the field: the
 * end of the buffer, ',', '\n', or a '\r' that is followed by '\n' or by
 * the end of the buffer. Any other '\r' is part of the text. */
static char *scan_plain(char *p, const char *end, struct scan *s)
{
    for (;;) {
        while (!stop_plain[(unsigned char)*p])
            p++;
        if (p == end || *p == ',' || *p == '\n')
            return p;
        if (*p == '\r') {
            if (p + 1 == end || p[1] == '\n')
                return p;
        } else {
            mark_bad(s, "field contains a NUL byte");
        }
        p++;
    }
}

/* Advances over a quoted field whose opening quote is at p; returns the byte
 * after the closing quote, or NULL when the buffer ends first. A quote that
 * is the last buffered byte may yet be half of a "" escape, but it is taken
 * as closing: the record then ends at the end of the buffer, and unless the
 * file ends there too, scan_record asks for more and scans again. */
static char *scan_quoted(char *p, const char *end, struct scan *s,
                         struct trace_csv_field *f)
{
    f->text = ++p;
    f->quoted = 1;
    f->escaped = 0;
    for (;;) {
        while (!stop_quoted[(unsigned char)*p])
            p++;
        if (p == end)
            return NULL;
        if (*p == '"') {
            if (p[1] != '"')
                break;
            f->escaped = 1;
            p += 2;
            continue;
        }
        if (*p == '\n')
            s->newlines++;
        else
            mark_bad(s, "field contains a NUL byte");
        p++;
    }
    f->len = (size_t)(p - f->text);
    return p + 1;
}

static int ends_field(const char *p, const char *end)
{
    return p == end || *p == ',' || *p == '\n' ||
           (*p == '\r' && (p + 1 == end || p[1] == '\n'));
}

static int add_field(struct trace_csv *c, struct scan *s)
{
    if (s->nfields == c->fcap) {
        struct trace_csv_field *f;
        if (c->fcap > SIZE_MAX / 2 / sizeof *f)
            return -1;
        f = realloc(c->fields, 2 * c->fcap * sizeof *f);
        if (!f)
            return -1;
        c->fields = f;
        c->fcap *= 2;
    }
    s->nfields++;
    return 0;
}

/* Splits the record at pos into c->fields without writing to the buffer. */
static enum scan_result scan_record(struct trace_csv *c, struct scan *s)
{
    char *p = c->buf + c->pos;
    const char *end = c->buf + c->len;
    s->nfields = 0;
    s->newlines = 0;
    s->bad = NULL;
    s->bad_field = 0;
    for (;;) {
        struct trace_csv_field *f;
        if (add_field(c, s))
            return SCAN_NOMEM;
        f = &c->fields[s->nfields - 1];
        if (*p == '"') {
            p = scan_quoted(p, end, s, f);
            if (!p)
                return c->eof ? SCAN_UNTERMINATED : SCAN_MORE;
            if (!ends_field(p, end)) {
                mark_bad(s, "quoted field must end at a comma or line end");
                p = scan_plain(p, end, s);
            }
        } else {
            f->text = p;
            p = scan_plain(p, end, s);
            f->len = (size_t)(p - f->text);
            f->quoted = 0;
            f->escaped = 0;
        }
        if (*p == ',' && p != end) {
            p++;
            continue;
        }
        /* The end of the buffer, a "\r" before it, or a line end: the record
         * ends there unless more bytes may follow in the file. */
        if ((p == end || p + 1 == end) && *p != '\n' && !c->eof)
            return SCAN_MORE;
        if (p != end && *p == '\r')
            p++;
        if (p != end) {
            s->newlines++;
            p++;
        }
        s->next = p;
        return SCAN_DONE;
    }
}

/* Removes the "" escapes of the fields and NUL-terminates them in place; the
 * byte after a field is its delimiter or closing quote, or the sentinel. */
static void finish_fields(struct trace_csv *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct trace_csv_field *f = &c->fields[i];
        if (f->escaped) {
            char *r = f->text, *w = f->text, *e = f->text + f->len;
            while (r < e) {
                *w++ = *r;
                r += *r == '"' ? 2 : 1;
            }
            f->len = (size_t)(w - f->text);
        }
        f->text[f->len] = '\0';
    }
}

/* Moves the unfinished record to the front and reads more bytes behind it,
 * doubling the buffer when the record already fills half of it. */
static int refill(struct trace_csv *c, struct trace_error *err)
{
    size_t keep = c->len - c->pos, want, got;
    memmove(c->buf, c->buf + c->pos, keep);
    c->pos = 0;
    c->len = keep;
    if (c->cap - keep < c->cap / 2) {
        char *buf = NULL;
        if (c->cap <= SIZE_MAX / 4)
            buf = realloc(c->buf, 2 * c->cap + 1);
        if (!buf) {
            trace_error_set(err, c->path, c->line, 0, "out of memory");
            return TRACE_ENOMEM;
        }
        c->buf = buf;
        c->cap *= 2;
    }
    want = c->cap - keep;
    errno = 0;
    got = fread(c->buf + keep, 1, want, c->file);
    c->len = keep + got;
    c->buf[c->len] = '\0';
    if (got < want) {
        if (ferror(c->file)) {
            trace_error_set(err, c->path, c->line, 0, "%s",
                            strerror(errno ? errno : EIO));
            return TRACE_EIO;
        }
        c->eof = 1;
    }
    return 0;
}

int trace_csv_next(struct trace_csv *c, struct trace_csv_row *row,
                   struct trace_error *err)
{
    struct scan s;
    for (;;) {
        enum scan_result r;
        if (c->pos == c->len) {
            if (c->eof)
                return TRACE_CSV_END;
            r = SCAN_MORE;
        } else {
            r = scan_record(c, &s);
        }
        if (r == SCAN_MORE) {
            int rc = refill(c, err);
            if (rc)
                return rc;
            continue;
        }
        if (r == SCAN_NOMEM) {
            trace_error_set(err, c->path, c->line, 0, "out of memory");
            return TRACE_ENOMEM;
        }
        if (r == SCAN_UNTERMINATED) {
            trace_error_set(err, c->path, c->line, (long)s.nfields,
                            "unterminated quoted field");
            return TRACE_EPARSE;
        }
        row->line = c->line;
        c->line += s.newlines;
        c->pos = (size_t)(s.next - c->buf);
        if (s.nfields == 1 && c->fields[0].len == 0 && !c->fields[0].quoted)
            continue; /* a blank line */
        finish_fields(c, s.nfields);
        row->fields = c->fields;
        row->nfields = s.nfields;
        row->bad = s.bad;
        row->bad_field = s.bad_field;
        return s.bad ? TRACE_CSV_BAD_ROW : TRACE_CSV_ROW;
    }
}

char *trace_csv_peek(struct trace_csv *c, long *line)
{
    *line = c->line;
    return c->buf + c->pos;
}

void trace_csv_take_line(struct trace_csv *c, const char *next)
{
    c->pos = (size_t)(next - c->buf);
    c->line++;
}

int trace_csv_open(const char *path, struct trace_csv **out,
                   struct trace_error *err)
{
    struct trace_csv *c = calloc(1, sizeof *c);
    int rc = TRACE_ENOMEM;
    *out = NULL;
    if (!c)
        goto nomem;
    c->path = path;
    c->cap = CSV_BLOCK;
    c->fcap = CSV_FIRST_FIELDS;
    c->buf = malloc(c->cap + 1);
    c->fields = malloc(c->fcap * sizeof *c->fields);
    if (!c->buf || !c->fields)
        goto nomem;
    c->buf[0] = '\0';
    c->file = fopen(path, "rb");
    if (!c->file) {
        trace_error_set(err, path, 0, 0, "%s", strerror(errno));
        rc = TRACE_EIO;
        goto fail;
    }
    /* Blocks go straight from read(2) into our buffer, not through stdio's. */
    setvbuf(c->file, NULL, _IONBF, 0);
    /* A pipe holds 64 KB by default: the writer and this reader then take
     * turns every 64 KB. A block's worth lets both run at once (Linux's
     * unprivileged limit is 1 MB; a refusal leaves the pipe as it was). */
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fileno(c->file), &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(fileno(c->file), F_SETPIPE_SZ, (int)CSV_PIPE);
#endif
    rc = refill(c, err); /* at line 0: an error here concerns the file */
    if (rc)
        goto fail;
    c->line = 1;
    if (c->len >= 3 && memcmp(c->buf, "\xef\xbb\xbf", 3) == 0)
        c->pos = 3;
    *out = c;
    return 0;
nomem:
    trace_error_set(err, path, 0, 0, "out of memory");
fail:
    trace_csv_close(c);
    return rc;
}

double trace_csv_fraction(const struct trace_csv *c)
{
    struct stat st;
    off_t at = ftello(c->file);
    if (fstat(fileno(c->file), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size <= 0 || at < 0)
        return -1;
    return (double)(at - (off_t)(c->len - c->pos)) / (double)st.st_size;
}

void trace_csv_close(struct trace_csv *c)
{
    if (!c)
        return;
    if (c->file)
        fclose(c->file);
    free(c->buf);
    free(c->fields);
    free(c);
}

/* ---- numbers in cells -------------------------------------------------- */

/* Every integer up to 2^53 and every power of ten up to 10^22 is exact in a
 * double, so m * 10^k and m / 10^k are then one correctly rounded operation:
 * the same double strtod returns (Clinger's fast path). */
#define EXACT_MANTISSA ((uint64_t)1 << 53)
static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char ch) { return (unsigned)(ch - '0') < 10; }
static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

static void trim(const char **b, const char **e)
{
    while (*b < *e && is_blank(**b))
        (*b)++;
    while (*e > *b && is_blank((*e)[-1]))
        (*e)--;
}

/* Reads decimal digits into *m; returns the end of the run. Past 19 digits
 * *m wraps (harmlessly: unsigned), and callers then do not use it. */
static const char *scan_digits(const char *p, const char *e, uint64_t *m)
{
    for (; p < e && is_digit(*p); p++)
        *m = *m * 10 + (uint64_t)(*p - '0');
    return p;
}

/* Reads the digits of an exponent after 'e'; huge ones are clamped, which
 * strtod then turns into overflow or underflow. Returns NULL if none. */
static const char *scan_exponent(const char *p, const char *e, long *x)
{
    int neg = 0;
    const char *first;
    *x = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    for (first = p; p < e && is_digit(*p); p++)
        if (*x < 100000)
            *x = *x * 10 + (*p - '0');
    if (p == first)
        return NULL;
    if (neg)
        *x = -*x;
    return p;
}

static int parse_with_strtod(const char *num, const char *e, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(num, &end);
    if (end != e)
        return TRACE_NUM_BAD;
    /* ERANGE also flags underflow; only overflow makes a number unusable. */
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return TRACE_NUM_RANGE;
    *out = v;
    return TRACE_NUM_OK;
}

int trace_csv_double(const char *s, size_t len, double *out)
{
    const char *p = s, *e = s + len, *num, *first;
    uint64_t m = 0;
    int neg = 0, exact;
    long exp10 = 0, x;
    size_t ndigits;
    trim(&p, &e);
    if (p == e)
        return TRACE_NUM_EMPTY;
    num = p;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    first = p;
    p = scan_digits(p, e, &m);
    ndigits = (size_t)(p - first);
    if (p < e && *p == '.') {
        first = ++p;
        p = scan_digits(p, e, &m);
        exp10 = -(long)(p - first);
        ndigits += (size_t)(p - first);
    }
    if (ndigits == 0)
        return TRACE_NUM_BAD;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p = scan_exponent(p + 1, e, &x);
        if (!p)
            return TRACE_NUM_BAD;
        exp10 += x;
    }
    if (p != e)
        return TRACE_NUM_BAD;
    exact = ndigits <= 19 && m <= EXACT_MANTISSA;
    if (exact && (m == 0 || exp10 == 0)) {
        *out = neg ? -(double)m : (double)m;
        return TRACE_NUM_OK;
    }
#if FLT_EVAL_METHOD == 0
    if (exact && exp10 >= -22 && exp10 <= 22) {
        double v = exp10 > 0 ? (double)m * exact_pow10[exp10]
                             : (double)m / exact_pow10[-exp10];
        *out = neg ? -v : v;
        return TRACE_NUM_OK;
    }
#endif
    return parse_with_strtod(num, e, out);
}

int trace_csv_int(const char *s, size_t len, int64_t *out)
{
    const char *p = s, *e = s + len, *first;
    uint64_t m = 0, limit;
    int neg = 0, any;
    trim(&p, &e);
    if (p == e)
        return TRACE_NUM_EMPTY;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    any = p < e && is_digit(*p);
    while (p < e && *p == '0') /* so that only significant digits count */
        p++;
    first = p;
    p = scan_digits(p, e, &m);
    if (!any)
        return TRACE_NUM_BAD;
    if (p < e && *p == '.') /* "2.0" as written by tools that float ints */
        for (p++; p < e && *p == '0'; p++)
            ;
    if (p != e)
        return TRACE_NUM_BAD;
    /* 19 digits always fit in uint64_t; 20 or more exceed INT64_MAX. */
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (p - first > 19 || m > limit)
        return TRACE_NUM_RANGE;
    *out = neg && m ? -(int64_t)(m - 1) - 1 : (int64_t)m;
    return TRACE_NUM_OK;
}
