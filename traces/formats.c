/* formats.c -- trace format names, detection, the trace_read dispatcher and
 * the header handling that the CSV readers share.
 *
 * Detection looks at the extension and at the first non-blank line only, so
 * it costs one line whatever the file's size. The extension decides first
 * (.trace gavel, .swf swf); then the first line, first match wins:
 *   7 or 10 tab-separated fields                             gavel
 *   a ';' (an SWF header comment) or 18 blank-separated
 *   numbers                                                  swf
 *   header timestamp,duration,num_gpus,gpu_time,cluster      philly
 *   header starting name,cpu_milli,memory_mib,num_gpu,
 *   gpu_milli,gpu_spec                                       alibaba2023
 *   header holding job_id,num_gpu,submit_time,iterations,
 *   model_name,duration,interval (any order)                 tiresias
 *   header holding job_id,submit_time,num_gpus,duration      native */
#include "traces_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[TRACE_FMT_COUNT] = {
    [TRACE_FMT_AUTO] = "auto",
    [TRACE_FMT_NATIVE] = "native",
    [TRACE_FMT_GAVEL] = "gavel",
    [TRACE_FMT_PHILLY] = "philly",
    [TRACE_FMT_ALIBABA2023] = "alibaba2023",
    [TRACE_FMT_SWF] = "swf",
    [TRACE_FMT_TIRESIAS] = "tiresias",
};

#define FORMAT_LIST "native, gavel, philly, alibaba2023, swf, tiresias"

const char *trace_format_name(enum trace_format f)
{
    if ((int)f < 0 || (int)f >= TRACE_FMT_COUNT)
        return "unknown";
    return format_names[f];
}

int trace_format_parse(const char *name)
{
    for (int f = 0; name && f < TRACE_FMT_COUNT; f++)
        if (strcmp(format_names[f], name) == 0)
            return f;
    return -1;
}

/* ---- detection --------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The names of a CSV header line, split in place at commas; blanks and one
 * pair of quotes around each name are dropped. Returns the count (at most
 * max; further names are ignored). */
static size_t split_header(char *line, char **names, size_t max)
{
    size_t n = 0;
    for (char *p = line; p && n < max;) {
        char *comma = strchr(p, ','), *end;
        if (comma)
            *comma = '\0';
        end = p + strlen(p);
        while (*p == ' ' || *p == '\t')
            p++;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end - p >= 2 && *p == '"' && end[-1] == '"')
            p++, end--;
        *end = '\0';
        names[n++] = p;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

/* Whether every one of want[0..nwant) is among names[0..n). */
static int has_all(char **names, size_t n, const char *const *want,
                   size_t nwant)
{
    for (size_t w = 0; w < nwant; w++) {
        size_t i = 0;
        while (i < n && strcmp(names[i], want[w]) != 0)
            i++;
        if (i == n)
            return 0;
    }
    return 1;
}

/* Whether names starts with want[0..nwant), in that order. */
static int starts_with(char **names, size_t n, const char *const *want,
                       size_t nwant)
{
    for (size_t w = 0; w < nwant; w++)
        if (w >= n || strcmp(names[w], want[w]) != 0)
            return 0;
    return 1;
}

static size_t count_fields(const char *line, int sep)
{
    size_t n = 1;
    for (; *line; line++)
        n += *line == sep;
    return n;
}

/* Whether line holds exactly 18 blank-separated numbers (an SWF job). */
static int is_swf_job(const char *line)
{
    size_t n = 0;
    for (const char *p = line; *p;) {
        char *end;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        (void)strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t'))
            return 0;
        n++;
        p = end;
    }
    return n == 18;
}

/* How many of want[0..nwant) are among names[0..n), exactly or as a typo
 * (trace_nearest_name); 0 when none is there exactly. */
static size_t count_near(char **names, size_t n, const char *const *want,
                         size_t nwant)
{
    size_t exact = 0, near = 0;
    for (size_t w = 0; w < nwant; w++) {
        if (has_all(names, n, &want[w], 1)) {
            exact++;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (trace_nearest_name(names[i], strlen(names[i]), &want[w], 1)) {
                near++;
                break;
            }
    }
    return exact ? exact + near : 0;
}

/* The format of a first line; TRACE_FMT_AUTO when none fits. */
static enum trace_format detect_line(char *line)
{
    static const char *const philly[] = {"timestamp", "duration", "num_gpus",
                                         "gpu_time", "cluster"};
    static const char *const alibaba[] = {"name",    "cpu_milli", "memory_mib",
                                          "num_gpu", "gpu_milli", "gpu_spec"};
    static const char *const tiresias[] = {
        "job_id",     "num_gpu",  "submit_time", "iterations",
        "model_name", "duration", "interval"};
    static const char *const native[] = {"job_id", "submit_time", "num_gpus",
                                         "duration"};
    char *names[64];
    size_t tabs = count_fields(line, '\t'), n;
    if (tabs == 7 || tabs == 10)
        return TRACE_FMT_GAVEL;
    if (line[0] == ';' || is_swf_job(line))
        return TRACE_FMT_SWF;
    n = split_header(line, names, sizeof names / sizeof names[0]);
    if (n == 5 && starts_with(names, n, philly, 5))
        return TRACE_FMT_PHILLY;
    if (starts_with(names, n, alibaba, 6))
        return TRACE_FMT_ALIBABA2023;
    if (has_all(names, n, tiresias, 7))
        return TRACE_FMT_TIRESIAS;
    if (has_all(names, n, native, 4))
        return TRACE_FMT_NATIVE;
    /* A typo in a required column: the format whose required columns are
     * all there, exactly or nearly, so that its reader names the column. */
    if (count_near(names, n, tiresias, 7) == 7)
        return TRACE_FMT_TIRESIAS;
    if (count_near(names, n, native, 4) == 4)
        return TRACE_FMT_NATIVE;
    return TRACE_FMT_AUTO;
}

/* Reads the first non-blank line of path into *buf (getline's buffer, to
 * free); *text is where it starts, past a UTF-8 BOM and without its line
 * end, or NULL with *lineno 0 when the file has none. 0, or TRACE_EIO with
 * *e filled. */
static int first_line(const char *path, char **buf, char **text, long *lineno,
                      struct trace_error *e)
{
    size_t size = 0;
    ssize_t len;
    FILE *f = fopen(path, "rb");
    *text = NULL;
    *lineno = 0;
    if (!f) {
        trace_error_set(e, path, 0, 0, "%s", strerror(errno));
        return TRACE_EIO;
    }
    errno = 0;
    while (!*text && (len = getline(buf, &size, f)) >= 0) {
        char *p = *buf;
        if (++*lineno == 1 && len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
            p += 3;
        p[strcspn(p, "\r\n")] = '\0';
        if (p[strspn(p, " \t")] != '\0')
            *text = p;
    }
    if (!*text)
        *lineno = 0;
    if (ferror(f)) {
        trace_error_set(e, path, 0, 0, "%s", strerror(errno ? errno : EIO));
        fclose(f);
        return TRACE_EIO;
    }
    fclose(f);
    return 0;
}

int trace_detect_format(const char *path, enum trace_format *out,
                        struct trace_error *err)
{
    struct trace_error e;
    char *buf = NULL, *text;
    long lineno;
    int rc;
    memset(&e, 0, sizeof e);
    *out = TRACE_FMT_AUTO;
    rc = first_line(path, &buf, &text, &lineno, &e);
    if (!rc && ends_with(path, ".trace"))
        *out = TRACE_FMT_GAVEL;
    else if (!rc && ends_with(path, ".swf"))
        *out = TRACE_FMT_SWF;
    else if (!rc && text)
        *out = detect_line(text);
    free(buf);
    if (!rc && *out == TRACE_FMT_AUTO) {
        trace_error_set(
            &e, path, lineno, 0,
            "cannot tell the trace format from %s; formats: " FORMAT_LIST
            "; pass --format NAME",
            lineno ? "its first line" : "an empty file");
        rc = TRACE_EFORMAT;
    }
    if (err)
        *err = e;
    return rc;
}

/* ---- the dispatcher ---------------------------------------------------- */

int trace_read(const char *path, enum trace_format f,
               const struct trace_options *opt, struct trace **out,
               struct trace_error *err)
{
    struct trace_options o = {0, 1.0};
    int rc;
    *out = NULL;
    if (opt)
        o = *opt;
    if (o.procs_per_gpu == 0)
        o.procs_per_gpu = 1.0;
    if (!(o.procs_per_gpu > 0) || isinf(o.procs_per_gpu)) {
        if (err)
            trace_error_set(err, path, 0, 0,
                            "procs_per_gpu must be a number > 0, got %g",
                            o.procs_per_gpu);
        return TRACE_EPARSE;
    }
    if (f == TRACE_FMT_AUTO && (rc = trace_detect_format(path, &f, err)) != 0)
        return rc;
    switch (f) {
    case TRACE_FMT_NATIVE: return trace_read_native(path, o.flags, out, err);
    case TRACE_FMT_GAVEL: return trace_read_gavel(path, &o, out, err);
    case TRACE_FMT_PHILLY: return trace_read_philly(path, &o, out, err);
    case TRACE_FMT_ALIBABA2023:
        return trace_read_alibaba2023(path, &o, out, err);
    case TRACE_FMT_SWF: return trace_read_swf(path, &o, out, err);
    case TRACE_FMT_TIRESIAS: return trace_read_tiresias(path, &o, out, err);
    default:
        if (err)
            trace_error_set(err, path, 0, 0,
                            "unknown trace format %d; formats: " FORMAT_LIST,
                            (int)f);
        return TRACE_EFORMAT;
    }
}

/* ---- CSV headers ------------------------------------------------------- */

/* Field I of HEADER names no column of the format: a warning kept in B's
 * trace naming the nearest known column, or under TRACE_STRICT an error. */
static int unknown_name(struct trace_build *b, const struct trace_csv_row *row,
                        size_t i, const char *text, size_t len,
                        const char *const *names, size_t n,
                        struct trace_error *e)
{
    const char *near = trace_nearest_name(text, len, names, n);
    char what[200];
    snprintf(what, sizeof what, "unknown column \"%.*s\"%s%s%s",
             (int)(len < 80 ? len : 80), text,
             near ? " (did you mean \"" : "", near ? near : "",
             near ? "\"?)" : "");
    if (b->flags & TRACE_STRICT) {
        trace_error_set(e, b->path, row->line, (long)i + 1,
                        "%s; known columns: docs/formats.md", what);
        return TRACE_EPARSE;
    }
    struct trace *t = b->trace;
    if (t->nwarnings < TRACE_MAX_WARNINGS)
        trace_error_set(&t->warnings[t->nwarnings], b->path, row->line,
                        (long)i + 1, "%s; ignored", what);
    t->nwarnings++;
    return 0;
}

static int map_names(const char *path, const struct trace_csv_row *row,
                     const char *const *names, size_t n, long *field_of,
                     struct trace_build *b, struct trace_error *e)
{
    for (size_t i = 0; i < row->nfields; i++) {
        const char *t = row->fields[i].text, *end = t + row->fields[i].len;
        while (t < end && (*t == ' ' || *t == '\t'))
            t++;
        while (end > t && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        int known = 0;
        for (size_t c = 0; c < n; c++) {
            if (strlen(names[c]) != (size_t)(end - t) ||
                memcmp(names[c], t, (size_t)(end - t)) != 0)
                continue;
            if (field_of[c] >= 0) {
                trace_error_set(e, path, row->line, (long)i + 1,
                                "duplicate column \"%s\"", names[c]);
                return TRACE_EPARSE;
            }
            field_of[c] = (long)i;
            known = 1;
        }
        int rc;
        if (!known && b && end > t &&
            (rc = unknown_name(b, row, i, t, (size_t)(end - t), names, n, e)))
            return rc;
    }
    return 0;
}

int trace_csv_header(struct trace_csv *csv, const char *path,
                     const char *const *names, size_t n, size_t nrequired,
                     long *field_of, size_t *nfields, struct trace_build *b,
                     struct trace_error *e)
{
    struct trace_csv_row row;
    int rc = trace_csv_next(csv, &row, e);
    if (rc < 0)
        return rc;
    if (rc == TRACE_CSV_END) {
        trace_error_set(e, path, 0, 0, "trace has no jobs");
        return TRACE_EPARSE;
    }
    if ((rc = trace_csv_check_row(path, rc, &row, row.nfields, e)) != 0)
        return rc;
    for (size_t c = 0; c < n; c++)
        field_of[c] = -1;
    if ((rc = map_names(path, &row, names, n, field_of, b, e)) != 0)
        return rc;
    for (size_t c = 0; c < nrequired; c++) {
        if (field_of[c] < 0) {
            trace_missing_column(e, path, &row, names[c]);
            return TRACE_EPARSE;
        }
    }
    *nfields = row.nfields;
    return 0;
}

int trace_csv_check_row(const char *path, int got,
                        const struct trace_csv_row *row, size_t nfields,
                        struct trace_error *e)
{
    if (got == TRACE_CSV_BAD_ROW) {
        trace_error_set(e, path, row->line, (long)row->bad_field + 1, "%s",
                        row->bad);
        return TRACE_EPARSE;
    }
    if (row->nfields != nfields) {
        trace_error_set(e, path, row->line, 0, "expected %zu fields, got %zu",
                        nfields, row->nfields);
        return TRACE_EPARSE;
    }
    return 0;
}

void trace_missing_column(struct trace_error *e, const char *path,
                          const struct trace_csv_row *header,
                          const char *name)
{
    /* the header field nearest to NAME: likely a typo of it */
    long col = 0;
    size_t best = 4, nlen = strlen(name);
    const char *text = NULL;
    int len = 0;
    for (size_t i = 0; i < header->nfields; i++) {
        const char *b = header->fields[i].text;
        size_t flen = header->fields[i].len;
        size_t d = trace_edit_distance(b, flen, name);
        if (d > 0 && d < best && d <= (nlen >= 9 ? 3u : nlen >= 5 ? 2u : 1u)) {
            best = d;
            col = (long)i + 1;
            text = b;
            len = (int)flen;
        }
    }
    if (text)
        trace_error_set(e, path, header->line, col,
                        "missing required column \"%s\" (is \"%.*s\" a "
                        "typo of it?)", name, len, text);
    else
        trace_error_set(e, path, header->line, 0,
                        "missing required column \"%s\"", name);
}
