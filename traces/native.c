/* native.c -- the reader of hetsim's own CSV trace format.
 *
 * Columns are found by name in the header, so the order in the file is free.
 * Every cell of a data row is checked before anything of the row is kept, so
 * a row skipped under TRACE_SKIP_BAD_ROWS leaves nothing behind -- except for
 * the duplicate-id check, which runs on batches of rows (see settle_ids): a
 * duplicate is dropped from the jobs, but its strings stay in the pool. */
#include "traces_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

enum col_kind { KIND_STR, KIND_F64, KIND_I32, KIND_I64 };

struct col_spec {
    const char *name;
    enum col_kind kind;
    int required;
    size_t offset;      /* of the member in struct trace_job */
    int positive;       /* KIND_F64: must be > 0 rather than >= 0 */
    int64_t min, max;   /* integer kinds: the allowed values */
    const char *rule;   /* what a valid value is, for error texts */
};

#define OFF(member) offsetof(struct trace_job, member)
#define STR(name, req) {#name, KIND_STR, req, OFF(name), 0, 0, 0, NULL}
#define F64(name, req, pos, rule) \
    {#name, KIND_F64, req, OFF(name), pos, 0, 0, rule}
#define I32(name, req, min, max, rule) \
    {#name, KIND_I32, req, OFF(name), 0, min, max, rule}

/* The first four are the required columns; COL_JOB_ID must stay first. */
static const struct col_spec cols[] = {
    {"job_id", KIND_STR, 1, OFF(id), 0, 0, 0, NULL},
    F64(submit_time, 1, 0, "a number >= 0"),
    I32(num_gpus, 1, 1, INT32_MAX, "an integer >= 1"),
    F64(duration, 1, 1, "a number > 0"),
    STR(job_type, 0),
    {"gpu_type", KIND_STR, 0, OFF(gpu_types), 0, 0, 0, NULL},
    F64(gpu_mem_mb, 0, 1, "a number > 0"),
    I32(gpu_milli, 0, 1, 1000, "an integer from 1 to 1000"),
    STR(user, 0),
    STR(vc, 0),
    I32(priority, 0, INT32_MIN, INT32_MAX, "an integer"),
    STR(model, 0),
    F64(params_m, 0, 0, "a number >= 0"),
    I32(batch_size, 0, 1, INT32_MAX, "an integer >= 1"),
    I32(layers, 0, 1, INT32_MAX, "an integer >= 1"),
    I32(input_dim, 0, 1, INT32_MAX, "an integer >= 1"),
    {"iterations", KIND_I64, 0, OFF(iterations), 0, 1, INT64_MAX,
     "an integer >= 1"},
    STR(precision, 0),
    STR(optimizer, 0),
    F64(learning_rate, 0, 1, "a number > 0"),
    F64(est_duration, 0, 1, "a number > 0"),
    F64(deadline, 0, 0, "a number >= 0"),
    F64(weight, 0, 1, "a number > 0"),
    I32(cpu_milli, 0, 0, INT32_MAX, "an integer >= 0"),
    F64(host_mem_mb, 0, 1, "a number > 0"),
    STR(qos, 0),
    STR(status, 0),
#define USE(name, r)                                                       \
    {#name "_peak", KIND_F64, 0, OFF(use_peak[r]), 0, 0, 0, "a number >= 0"}, \
    {#name "_burst", KIND_F64, 0, OFF(use_burst[r]), 1, 0, 0, "a number > 0"}
    USE(gpu_util, TRACE_USE_GPU_UTIL),
    USE(gpu_mem_util, TRACE_USE_GPU_MEM_UTIL),
    USE(gpu_mem, TRACE_USE_GPU_MEM),
    USE(cpu_util, TRACE_USE_CPU_UTIL),
#undef USE
};
#define NCOLS (sizeof cols / sizeof cols[0])
#define COL_JOB_ID 0
#define NREQUIRED 4

/* Job ids seen so far: open addressing over job indices. A slot keeps the
 * hash beside the index so that a probe reads one cache line and touches the
 * job itself only when the hashes agree. */
struct id_slot {
    uint32_t job1; /* job index + 1; 0 marks a free slot */
    uint32_t hash;
};

struct id_index {
    struct id_slot *slots; /* (mask + 1) */
    size_t mask, count;
};

/* Rows whose ids are checked together; see settle_ids. */
#define ID_BATCH 32

struct reader {
    const char *path;
    int flags;
    struct trace_csv *csv;
    struct trace *trace;
    size_t cap;                   /* of trace->jobs */
    size_t nfields;               /* fields per row, as in the header */
    size_t ncols;                 /* known columns present */
    size_t field_of[NCOLS];       /* (ncols) 0-based field, in file order */
    unsigned char col_of[NCOLS];  /* (ncols) column in cols[] */
    size_t id_field;
    struct id_index ids;
    size_t settled;               /* jobs before this one are in ids */
    uint32_t batch_hash[ID_BATCH]; /* (njobs - settled) hashes of their ids */
    size_t batch_len[ID_BATCH];   /* (njobs - settled) lengths of their ids */
    struct trace_error skipped;   /* the first row skipped */
};

/* ---- the id index ------------------------------------------------------ */

/* Returns job index + 1 of a job with this id, or 0. */
static uint32_t id_find(const struct reader *r, const char *id, size_t len,
                        uint32_t h)
{
    const struct id_index *ix = &r->ids;
    if (!ix->slots)
        return 0;
    for (size_t i = h & ix->mask; ix->slots[i].job1; i = (i + 1) & ix->mask) {
        const struct id_slot *slot = &ix->slots[i];
        const char *s;
        if (slot->hash != h)
            continue;
        s = trace_str(r->trace, r->trace->jobs[slot->job1 - 1].id);
        if (strncmp(s, id, len) == 0 && s[len] == '\0')
            return slot->job1;
    }
    return 0;
}

static void id_place(struct id_index *ix, struct id_slot slot)
{
    size_t i = slot.hash & ix->mask;
    while (ix->slots[i].job1)
        i = (i + 1) & ix->mask;
    ix->slots[i] = slot;
}

/* Makes room for n more ids, keeping the table at most half full. Done
 * between batches only, so that slots prefetched for a batch stay put. */
static int id_reserve(struct id_index *ix, size_t n)
{
    struct id_index big = {NULL, ix->slots ? ix->mask : 1023, ix->count};
    if (ix->slots && (ix->count + n) * 2 <= ix->mask + 1)
        return 0;
    while ((ix->count + n) * 2 > big.mask + 1)
        big.mask = 2 * big.mask + 1;
    big.slots = calloc(big.mask + 1, sizeof *big.slots);
    if (!big.slots)
        return TRACE_ENOMEM;
    for (size_t i = 0; ix->slots && i <= ix->mask; i++)
        if (ix->slots[i].job1)
            id_place(&big, ix->slots[i]);
    free(ix->slots);
    *ix = big;
    return 0;
}

/* ---- the header -------------------------------------------------------- */

static int find_column(const char *name, size_t len)
{
    for (size_t c = 0; c < NCOLS; c++)
        if (strlen(cols[c].name) == len && memcmp(cols[c].name, name, len) == 0)
            return (int)c;
    return -1;
}

/* Names of cols[], for trace_nearest_name. */
static const char *const *col_names(void)
{
    static const char *names[NCOLS];
    for (size_t c = 0; c < NCOLS; c++)
        names[c] = cols[c].name;
    return names;
}

/* An unknown column I of the header: an error under TRACE_STRICT, else a
 * warning kept in the trace; both name the nearest known column. */
static int unknown_column(struct reader *r, const struct trace_csv_row *row,
                          size_t i, const char *b, size_t len,
                          struct trace_error *e)
{
    const char *near = trace_nearest_name(b, len, col_names(), NCOLS);
    char text[200];
    snprintf(text, sizeof text, "unknown column \"%.*s\"%s%s%s", (int)len,
             b, near ? " (did you mean \"" : "", near ? near : "",
             near ? "\"?)" : "");
    if (r->flags & TRACE_STRICT) {
        trace_error_set(e, r->path, row->line, (long)i + 1,
                        "%s; known columns: docs/formats.md", text);
        return TRACE_EPARSE;
    }
    struct trace *t = r->trace;
    if (t->nwarnings < TRACE_MAX_WARNINGS)
        trace_error_set(&t->warnings[t->nwarnings], r->path, row->line,
                        (long)i + 1, "%s; ignored", text);
    t->nwarnings++;
    return 0;
}

/* Maps known column names to fields; unknown names are warned about
 * (unknown_column). */
static int map_columns(struct reader *r, const struct trace_csv_row *row,
                       long *field_of_col, struct trace_error *e)
{
    for (size_t i = 0; i < row->nfields; i++) {
        const char *b = row->fields[i].text, *end = b + row->fields[i].len;
        int c;
        while (b < end && *b == ' ')
            b++;
        while (end > b && end[-1] == ' ')
            end--;
        c = find_column(b, (size_t)(end - b));
        if (c < 0 && end > b) {
            int rc = unknown_column(r, row, i, b, (size_t)(end - b), e);
            if (rc)
                return rc;
        }
        if (c < 0)
            continue;
        if (field_of_col[c] >= 0) {
            trace_error_set(e, r->path, row->line, (long)i + 1,
                            "duplicate column \"%s\"", cols[c].name);
            return TRACE_EPARSE;
        }
        field_of_col[c] = (long)i;
        r->field_of[r->ncols] = i;
        r->col_of[r->ncols++] = (unsigned char)c;
    }
    return 0;
}

static int read_header(struct reader *r, struct trace_error *e)
{
    struct trace_csv_row row;
    long field_of_col[NCOLS];
    int rc = trace_csv_next(r->csv, &row, e);
    if (rc < 0)
        return rc;
    if (rc == TRACE_CSV_END) {
        trace_error_set(e, r->path, 0, 0, "trace has no jobs");
        return TRACE_EPARSE;
    }
    if (rc == TRACE_CSV_BAD_ROW) {
        trace_error_set(e, r->path, row.line, (long)row.bad_field + 1, "%s",
                        row.bad);
        return TRACE_EPARSE;
    }
    for (size_t c = 0; c < NCOLS; c++)
        field_of_col[c] = -1;
    rc = map_columns(r, &row, field_of_col, e);
    if (rc)
        return rc;
    for (size_t c = 0; c < NREQUIRED; c++) {
        if (field_of_col[c] < 0) {
            trace_missing_column(e, r->path, &row, cols[c].name);
            return TRACE_EPARSE;
        }
    }
    r->nfields = row.nfields;
    r->id_field = (size_t)field_of_col[COL_JOB_ID];
    if (id_reserve(&r->ids, ID_BATCH)) {
        trace_error_set(e, r->path, row.line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    return 0;
}

/* ---- data rows --------------------------------------------------------- */

/* Parses one numeric cell into job; returns a trace_num_status, with
 * TRACE_NUM_BAD also for numbers outside the column's rule. */
static int parse_number(const struct col_spec *cs,
                        const struct trace_csv_field *f, struct trace_job *job)
{
    char *dst = (char *)job + cs->offset;
    double d;
    int64_t v;
    int rc = cs->kind == KIND_F64 ? trace_csv_double(f->text, f->len, &d)
                                  : trace_csv_int(f->text, f->len, &v);
    if (rc == TRACE_NUM_EMPTY && !cs->required)
        return TRACE_NUM_OK; /* the default stays */
    if (rc)
        return rc;
    if (cs->kind == KIND_F64) {
        if (cs->positive ? !(d > 0) : !(d >= 0))
            return TRACE_NUM_BAD;
        d += 0.0; /* "-0" is stored as +0, so that it never prints as -0 */
        memcpy(dst, &d, sizeof d);
        return TRACE_NUM_OK;
    }
    if (cs->kind == KIND_I32 && (v < INT32_MIN || v > INT32_MAX))
        return TRACE_NUM_RANGE;
    if (v < cs->min || v > cs->max)
        return TRACE_NUM_BAD;
    if (cs->kind == KIND_I32) {
        int32_t w = (int32_t)v;
        memcpy(dst, &w, sizeof w);
    } else {
        memcpy(dst, &v, sizeof v);
    }
    return TRACE_NUM_OK;
}

static int cell_error(struct reader *r, const struct trace_csv_row *row,
                      size_t k, int status, struct trace_error *e)
{
    const struct col_spec *cs = &cols[r->col_of[k]];
    const struct trace_csv_field *f = &row->fields[r->field_of[k]];
    long column = (long)r->field_of[k] + 1;
    char buf[TRACE_SHOWN_SIZE];
    if (status == TRACE_NUM_EMPTY)
        trace_error_set(e, r->path, row->line, column, "%s is empty", cs->name);
    else if (status == TRACE_NUM_RANGE)
        trace_error_set(e, r->path, row->line, column,
                        "%s \"%s\" is out of range", cs->name,
                        trace_shown(buf, f->text, f->len));
    else
        trace_error_set(e, r->path, row->line, column,
                        "%s must be %s, got \"%s\"", cs->name, cs->rule,
                        trace_shown(buf, f->text, f->len));
    return TRACE_EPARSE;
}

/* Checks every known cell of row and fills *job with the numbers. */
static int check_row(struct reader *r, const struct trace_csv_row *row,
                     struct trace_job *job, struct trace_error *e)
{
    if (row->nfields != r->nfields) {
        trace_error_set(e, r->path, row->line, 0,
                        "expected %zu fields, got %zu", r->nfields,
                        row->nfields);
        return TRACE_EPARSE;
    }
    for (size_t k = 0; k < r->ncols; k++) {
        const struct col_spec *cs = &cols[r->col_of[k]];
        const struct trace_csv_field *f = &row->fields[r->field_of[k]];
        int rc;
        if (cs->kind == KIND_STR)
            rc = cs->required && f->len == 0 ? TRACE_NUM_EMPTY : TRACE_NUM_OK;
        else
            rc = parse_number(cs, f, job);
        if (rc)
            return cell_error(r, row, k, rc, e);
    }
    return trace_check_times(job, r->path, row->line, e);
}

/* Appends a checked row to the jobs; its id joins the batch to be settled,
 * and the slot it will probe starts loading now: the index is far larger
 * than the caches, and settle_ids comes up to ID_BATCH rows later. */
static int add_row(struct reader *r, const struct trace_csv_row *row,
                   struct trace_job *job, struct trace_error *e)
{
    const struct trace_csv_field *id = &row->fields[r->id_field];
    struct trace *t = r->trace;
    size_t k;
    for (k = 0; k < r->ncols; k++) {
        const struct col_spec *cs = &cols[r->col_of[k]];
        const struct trace_csv_field *f = &row->fields[r->field_of[k]];
        uint32_t s;
        if (cs->kind != KIND_STR || r->col_of[k] == COL_JOB_ID)
            continue;
        if (trace_strpool_intern(t->pool, f->text, f->len, &s))
            goto nomem;
        memcpy((char *)job + cs->offset, &s, sizeof s);
    }
    /* Ids are unique once settled, so they skip the intern table. */
    if (trace_strpool_append(t->pool, id->text, id->len, &job->id))
        goto nomem;
    job->line = row->line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)row->line;
    if (trace_push_job(t, &r->cap, job))
        goto nomem;
    k = t->njobs - 1 - r->settled;
    r->batch_hash[k] = trace_hash(id->text, id->len);
    r->batch_len[k] = id->len;
    PREFETCH(&r->ids.slots[r->batch_hash[k] & r->ids.mask]);
    return 0;
nomem:
    trace_error_set(e, r->path, row->line, 0, "out of memory");
    return TRACE_ENOMEM;
}

/* Decides about a row that failed with rc: under TRACE_SKIP_BAD_ROWS a parse
 * error is counted and 0 returned; anything else is copied to *e. */
static int row_failed(struct reader *r, int rc, const struct trace_error *why,
                      struct trace_error *e)
{
    if (rc == TRACE_EPARSE && (r->flags & TRACE_SKIP_BAD_ROWS)) {
        if (r->trace->rows_skipped++ == 0)
            r->skipped = *why;
        return 0;
    }
    *e = *why;
    return rc;
}

/* Checks the ids of the jobs pushed since the last call against all ids
 * before them. Their slots were prefetched as the jobs were pushed, so the
 * cache misses of a batch overlap instead of costing one row each. A
 * duplicate is dropped (later jobs move up) and reported via row_failed. */
static int settle_ids(struct reader *r, struct trace_error *e)
{
    struct trace *t = r->trace;
    size_t w = r->settled, n = t->njobs - r->settled;
    for (size_t k = 0; k < n; k++) {
        const struct trace_job *job = &t->jobs[r->settled + k];
        const char *id = trace_str(t, job->id);
        uint32_t first = id_find(r, id, r->batch_len[k], r->batch_hash[k]);
        if (first) {
            struct trace_error why;
            char buf[TRACE_SHOWN_SIZE];
            int rc;
            trace_error_set(&why, r->path, job->line, (long)r->id_field + 1,
                            "duplicate job_id \"%s\" (first on line %lu)",
                            trace_shown(buf, id, r->batch_len[k]),
                            (unsigned long)t->jobs[first - 1].line);
            if ((rc = row_failed(r, TRACE_EPARSE, &why, e)) != 0)
                return rc;
            continue;
        }
        t->jobs[w++] = *job;
        id_place(&r->ids, (struct id_slot){(uint32_t)w, r->batch_hash[k]});
        r->ids.count++;
    }
    t->njobs = r->settled = w;
    if (!id_reserve(&r->ids, ID_BATCH))
        return 0;
    trace_error_set(e, r->path, 0, 0, "out of memory");
    return TRACE_ENOMEM;
}

/* Reads all data rows. The batch of ids is settled before any other error
 * is acted on, so that errors still come in file order. */
static int read_rows(struct reader *r, struct trace_error *e)
{
    struct trace_error row_err;
    for (;;) {
        struct trace_csv_row row;
        struct trace_job job = trace_job_defaults;
        int got = trace_csv_next(r->csv, &row, &row_err), rc = 0, id_rc;
        if (got == TRACE_CSV_BAD_ROW) {
            trace_error_set(&row_err, r->path, row.line,
                            (long)row.bad_field + 1, "%s", row.bad);
            rc = TRACE_EPARSE;
        } else if (got == TRACE_CSV_ROW) {
            rc = check_row(r, &row, &job, &row_err);
        }
        if ((got != TRACE_CSV_ROW || rc) && (id_rc = settle_ids(r, e)) != 0)
            return id_rc;
        if (got < 0) { /* the tokenizer cannot go on: never skipped */
            *e = row_err;
            return got;
        }
        if (got == TRACE_CSV_END)
            return 0;
        if (!rc)
            rc = add_row(r, &row, &job, &row_err);
        if (rc && (rc = row_failed(r, rc, &row_err, e)) != 0)
            return rc;
        if (r->trace->njobs - r->settled == ID_BATCH &&
            (rc = settle_ids(r, e)) != 0)
            return rc;
    }
}

/* ---- whole traces and streams -------------------------------------------- */

/* A native trace opened with its header read: trace_read_native reads the
 * rest whole; a streaming run reads it row by row (trace_native_next). */
struct trace_native {
    struct reader r;
    struct trace_idset *seen; /* ids of the rows streamed so far */
    double last_submit;
    struct trace_csv_row row; /* the row just streamed */
    struct trace_fast fast;   /* plain rows (native_fast.c); f NULL: none */
};

/* The fast path's plan of the header's fields; 0 or TRACE_ENOMEM. */
static int plan_fast(struct trace_native *n)
{
    struct reader *r = &n->r;
    struct trace_fast *fast = &n->fast;
    fast->f = calloc(r->nfields, sizeof *fast->f);
    fast->fields = calloc(r->nfields, sizeof *fast->fields);
    if (!fast->f || !fast->fields)
        return TRACE_ENOMEM;
    fast->nfields = r->nfields; /* unknown columns: TRACE_FAST_TEXT */
    for (size_t k = 0; k < r->ncols; k++) {
        const struct col_spec *cs = &cols[r->col_of[k]];
        struct trace_fast_field *f = &fast->f[r->field_of[k]];
        f->required = (unsigned char)cs->required;
        f->offset = cs->offset;
        if (cs->kind == KIND_STR) {
            f->kind =
                r->col_of[k] == COL_JOB_ID ? TRACE_FAST_ID : TRACE_FAST_TEXT;
        } else if (cs->kind == KIND_F64) {
            f->kind = TRACE_FAST_F64;
            f->positive = (unsigned char)cs->positive;
        } else {
            f->kind = TRACE_FAST_INT;
            f->i32 = cs->kind == KIND_I32;
            f->min = cs->min;
            f->max = cs->max;
        }
    }
    return 0;
}

int trace_native_open(const char *path, int flags, struct trace_native **out,
                      struct trace_error *err)
{
    struct trace_error e;
    int rc;
    memset(&e, 0, sizeof e);
    struct trace_native *n = calloc(1, sizeof *n);
    *out = NULL;
    if (!n || !(n->r.trace = trace_create())) {
        free(n);
        trace_error_set(&e, path, 0, 0, "out of memory");
        rc = TRACE_ENOMEM;
        goto done;
    }
    n->r.path = path;
    n->r.flags = flags;
    n->r.trace->format = TRACE_FMT_NATIVE;
    rc = trace_csv_open(path, &n->r.csv, &e);
    if (!rc)
        rc = read_header(&n->r, &e);
    if (!rc && (rc = plan_fast(n)) != 0)
        trace_error_set(&e, path, 0, 0, "out of memory");
    if (rc)
        trace_native_close(n);
    else
        *out = n;
done:
    if (err)
        *err = e;
    return rc;
}

double trace_native_fraction(const struct trace_native *n)
{
    return trace_csv_fraction(n->r.csv);
}

void trace_native_close(struct trace_native *n)
{
    if (!n)
        return;
    trace_csv_close(n->r.csv);
    free(n->r.ids.slots);
    trace_destroy(n->r.trace);
    trace_idset_destroy(n->seen);
    free(n->fast.f);
    free(n->fast.fields);
    free(n);
}

int trace_native_has_column(const struct trace_native *n, const char *name)
{
    for (size_t k = 0; k < n->r.ncols; k++)
        if (strcmp(cols[n->r.col_of[k]].name, name) == 0)
            return 1;
    return 0;
}

const struct trace *trace_native_trace(const struct trace_native *n)
{
    return n->r.trace;
}

int trace_native_read_all(struct trace_native *n, struct trace **out,
                          struct trace_error *err)
{
    struct reader *r = &n->r;
    struct trace_error e;
    memset(&e, 0, sizeof e);
    *out = NULL;
    int rc = read_rows(r, &e);
    if (!rc && r->trace->njobs == 0) {
        trace_error_set(&e, r->path, 0, 0, "trace has no jobs");
        rc = TRACE_EPARSE;
    }
    if (!rc) {
        trace_finish(r->trace);
        *out = r->trace;
        r->trace = NULL;
        e = r->skipped; /* success: describe the first skipped row, if any */
    }
    trace_native_close(n);
    if (err)
        *err = e;
    return rc;
}

/* Checks a streamed row's id against the ids before it. */
static int stream_id(struct trace_native *n, struct trace_error *e)
{
    const struct trace_csv_field *id = &n->row.fields[n->r.id_field];
    char buf[TRACE_SHOWN_SIZE];
    if (!n->seen && !(n->seen = trace_idset_create()))
        return TRACE_ENOMEM;
    int rc = trace_idset_add(n->seen, id->text, id->len);
    if (rc <= 0)
        return rc;
    trace_error_set(e, n->r.path, n->row.line, (long)n->r.id_field + 1,
                    "duplicate job_id \"%s\" (%s)",
                    trace_shown(buf, id->text, id->len),
                    rc == 1 ? "an earlier row has it"
                            : "an earlier row has it, or an id with the "
                              "same 64-bit hash: docs/streaming.md");
    return TRACE_EPARSE;
}

int trace_native_next(struct trace_native *n, struct trace_job *job,
                      struct trace_error *err)
{
    struct reader *r = &n->r;
    for (;;) {
        struct trace_error why;
        *job = trace_job_defaults;
        int plain = trace_fast_row(&n->fast, r->csv, job, &n->row);
        int got = TRACE_CSV_ROW;
        if (!plain) { /* the general path, from the defaults again */
            *job = trace_job_defaults;
            got = trace_csv_next(r->csv, &n->row, &why);
        }
        int rc = 0;
        if (got < 0) { /* the tokenizer cannot go on: never skipped */
            *err = why;
            return got;
        }
        if (got == TRACE_CSV_END) {
            *err = r->skipped; /* as read_all: the first row skipped */
            if (r->trace->njobs > 0)
                return 0;
            trace_error_set(err, r->path, 0, 0, "trace has no jobs");
            return TRACE_EPARSE;
        }
        if (got == TRACE_CSV_BAD_ROW) {
            trace_error_set(&why, r->path, n->row.line,
                            (long)n->row.bad_field + 1, "%s", n->row.bad);
            rc = TRACE_EPARSE;
        } else if (!plain) /* a plain row's cells are checked */
            rc = check_row(r, &n->row, job, &why);
        if (!rc)
            rc = stream_id(n, &why);
        if (rc == TRACE_ENOMEM) {
            trace_error_set(err, r->path, n->row.line, 0, "out of memory");
            return rc;
        }
        if (rc) { /* skipped under TRACE_SKIP_BAD_ROWS, or an error */
            if ((rc = row_failed(r, rc, &why, err)) != 0)
                return rc;
            continue;
        }
        if (r->trace->njobs > 0 && job->submit_time < n->last_submit) {
            trace_error_set(err, r->path, n->row.line, 0,
                            "submit_time %.17g is before the previous row's "
                            "(%.17g): a trace read from a pipe must be sorted "
                            "by submit_time (sort it, or pass a file)",
                            job->submit_time, n->last_submit);
            return TRACE_EUNSORTED;
        }
        n->last_submit = job->submit_time;
        r->trace->njobs++; /* counted, not kept */
        job->line =
            n->row.line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)n->row.line;
        return 1;
    }
}

const char *trace_native_id(const struct trace_native *n, size_t *len)
{
    const struct trace_csv_field *f = &n->row.fields[n->r.id_field];
    *len = f->len;
    return f->text;
}

const char *trace_native_text(const struct trace_native *n, const char *name,
                              char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t k = 0; k < n->r.ncols; k++) {
        if (strcmp(cols[n->r.col_of[k]].name, name) != 0)
            continue;
        const struct trace_csv_field *f = &n->row.fields[n->r.field_of[k]];
        size_t len = f->len < cap - 1 ? f->len : cap - 1;
        memcpy(buf, f->text, len);
        buf[len] = '\0';
    }
    return buf;
}

int trace_read_native(const char *path, int flags, struct trace **out,
                      struct trace_error *err)
{
    struct trace_native *n;
    *out = NULL;
    int rc = trace_native_open(path, flags, &n, err);
    return rc ? rc : trace_native_read_all(n, out, err);
}
