/* traces_internal.h -- what the files of the traces module share.
 *
 * Nothing here is part of the public face (traces.h); other modules must not
 * include this header. */
#ifndef HETSIM_TRACES_INTERNAL_H
#define HETSIM_TRACES_INTERNAL_H

#include "traces.h"

#include <stddef.h>
#include <stdint.h>

/* ---- string pool (strpool.c) -------------------------------------------
 * Every string lives once in one growing block and is named by its byte
 * offset; offset 0 is "" (TRACE_NOSTR). Strings must not contain NUL bytes.
 * The block is limited to 4 GiB because offsets are 32-bit. */

struct trace_strpool *trace_strpool_create(void);
void trace_strpool_destroy(struct trace_strpool *pool);

/* Stores s[0..len) once and sets *out to its offset; an equal string
 * interned before gives the same offset. Returns 0 or TRACE_ENOMEM. */
int trace_strpool_intern(struct trace_strpool *pool, const char *s,
                         size_t len, uint32_t *out);

/* Stores s[0..len) without looking for an equal string (for values the
 * caller knows to be unique, such as job ids). Returns 0 or TRACE_ENOMEM. */
int trace_strpool_append(struct trace_strpool *pool, const char *s,
                         size_t len, uint32_t *out);

/* The string at offset s; "" when s is out of range. */
const char *trace_strpool_get(const struct trace_strpool *pool, uint32_t s);

/* Ends interning: frees the lookup table and trims the block to its size.
 * Only trace_strpool_get may be used afterwards. */
void trace_strpool_seal(struct trace_strpool *pool);

/* A 32-bit hash of s[0..len), the same for equal strings. */
uint32_t trace_hash(const char *s, size_t len);

/* ---- CSV tokenizer (csv.c) --------------------------------------------- */

/* One field of a record. text points into the tokenizer's buffer, is
 * NUL-terminated at text[len], holds no quotes or "" escapes any more, and
 * stays valid until the next call of trace_csv_next. */
struct trace_csv_field {
    char *text;
    size_t len;
    unsigned char quoted;  /* the field was written in quotes */
    unsigned char escaped; /* it held "" escapes (before unescaping) */
};

struct trace_csv_row {
    struct trace_csv_field *fields; /* (nfields) */
    size_t nfields;
    long line;           /* line where the record starts */
    const char *bad;     /* why the record is malformed; NULL if it is not */
    size_t bad_field;    /* 0-based field the problem is in */
};

enum trace_csv_status {
    TRACE_CSV_END = 0,     /* no more records */
    TRACE_CSV_ROW = 1,     /* *row holds a record */
    TRACE_CSV_BAD_ROW = 2, /* *row holds a malformed record (row->bad) that
                              was consumed, so reading can go on after it */
};

struct trace_csv;

/* Opens path for reading (a UTF-8 BOM at the start is skipped). path is
 * borrowed and must outlive the tokenizer. Returns 0 or TRACE_EIO /
 * TRACE_ENOMEM with *err filled (line 0 when the file cannot be opened). */
int trace_csv_open(const char *path, struct trace_csv **out,
                   struct trace_error *err);

/* Reads the next non-blank record. Returns a trace_csv_status, or a negative
 * TRACE_E* code with *err filled for errors reading cannot go on after (an
 * unterminated quote, a read error, no memory). */
int trace_csv_next(struct trace_csv *csv, struct trace_csv_row *row,
                   struct trace_error *err);

void trace_csv_close(struct trace_csv *csv);
/* The share of a regular file's bytes read past (0 to 1), or -1 for a
 * pipe or other input whose size is not known. */
double trace_csv_fraction(const struct trace_csv *csv);

/* The fast path of plain rows (native_fast.c): the buffered bytes from the
 * next record on, up to the NUL sentinel after the last buffered byte
 * (none may be buffered: then it points at the sentinel), and the line the
 * record starts on. The bytes may be read, not written, until
 * trace_csv_take_line consumes one record of one line that ends before
 * NEXT (after its line end); the caller then owns that record's bytes
 * (fields may be NUL-terminated in place) until the next call. */
char *trace_csv_peek(struct trace_csv *csv, long *line);
void trace_csv_take_line(struct trace_csv *csv, const char *next);

/* Numbers in cells: blanks (space, tab) around the number are allowed. */
enum trace_num_status {
    TRACE_NUM_OK = 0,
    TRACE_NUM_EMPTY, /* the cell is empty or only blanks */
    TRACE_NUM_BAD,   /* not a number of the wanted syntax */
    TRACE_NUM_RANGE, /* a number, but too large to store */
};

/* Decimal floating point: [sign] digits [. digits] [e [sign] digits], or the
 * same with digits only after the point. The result equals strtod's in the
 * "C" locale. s[len] must be NUL (fields are). */
int trace_csv_double(const char *s, size_t len, double *out);

/* Integer: [sign] digits, optionally followed by a point and zeros only
 * ("2.0"), within int64_t. */
int trace_csv_int(const char *s, size_t len, int64_t *out);

/* ---- trace object and errors (trace.c) --------------------------------- */

/* An empty trace with an empty pool, or NULL when out of memory. */
struct trace *trace_create(void);

/* Appends *job; *cap is the capacity of t->jobs, kept by the builder.
 * Returns 0 or TRACE_ENOMEM. */
int trace_push_job(struct trace *t, size_t *cap, const struct trace_job *job);

/* Trims the jobs array and seals the pool once a reader is done. */
void trace_finish(struct trace *t);

/* Fills *e (which must not be NULL) with a formatted message. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void trace_error_set(struct trace_error *e, const char *source, long line,
                     long column, const char *fmt, ...);

/* ---- shared by the readers (trace.c) ------------------------------------ */

/* A job before a reader fills it: NAN doubles, -1 integers (but gpu_milli
 * 1000, priority 0), TRACE_NOSTR strings. */
extern const struct trace_job trace_job_defaults;

/* Counts a row under note WHAT (static text, told apart by strcmp), adding
 * the note if new. 0, or -1 when TRACE_MAX_NOTES notes are taken. */
int trace_note(struct trace *t, const char *what);

/* A value for an error text, as native.c shows it: at most 40 bytes, control
 * bytes as '?', "..." when cut. buf has TRACE_SHOWN_SIZE bytes; returns it. */
#define TRACE_SHOWN_SIZE 48
const char *trace_shown(char *buf, const char *text, size_t len);

/* A cell (s[len] NUL) holding a finite number >= 0 (> 0 if positive; -0
 * read as +0), or an integer in [min, max]. A trace_num_status, BAD also
 * for a number outside the rule. */
int trace_cell_double(const char *s, size_t len, int positive, double *out);
int trace_cell_int(const char *s, size_t len, int64_t min, int64_t max,
                   int64_t *out);

/* Fills *e for a cell that got status: "NAME is empty", "NAME "V" is out of
 * range" or "NAME must be RULE, got "V"". Returns TRACE_EPARSE. */
int trace_cell_error(struct trace_error *e, const char *path, long line,
                     long column, const char *name, const char *rule,
                     int status, const char *text, size_t len);

/* A trace being read: the jobs array's capacity, the first row skipped and
 * the ids seen. Zero it, then trace_build_start. */
struct trace_build {
    const char *path;
    int flags;                  /* enum trace_flags */
    struct trace *trace;
    size_t cap;                 /* of trace->jobs */
    struct trace_error skipped; /* the first row skipped, if any */
    uint64_t *ids;              /* (ids_mask + 1) hash << 32 | (job + 1) */
    size_t ids_mask;
};

/* Creates the trace; 0 or TRACE_ENOMEM with *e filled. */
int trace_build_start(struct trace_build *b, const char *path, int flags,
                      enum trace_format format, struct trace_error *e);

/* A row failed with rc because of *why: under TRACE_SKIP_BAD_ROWS a parse
 * error is counted and 0 returned; otherwise *e = *why and rc returned. */
int trace_build_skip(struct trace_build *b, int rc,
                     const struct trace_error *why, struct trace_error *e);

/* TRACE_EPARSE with *e filled (at LINE:COLUMN, naming the first line) when a
 * job pushed with check_ids has the id text[0..len); else 0. */
int trace_build_check_id(const struct trace_build *b, const char *text,
                         size_t len, long line, long column,
                         struct trace_error *e);

/* Appends *job with id text[0..len) and LINE; 0 or TRACE_ENOMEM. */
/* Times and durations beyond TRACE_MAX_TIME_S (or inf) refused with
 * PATH:LINE; 0 or TRACE_EPARSE. */
#define TRACE_MAX_TIME_S 1e15
int trace_check_times(const struct trace_job *job, const char *path,
                      long line, struct trace_error *e);
int trace_build_push(struct trace_build *b, struct trace_job *job,
                     const char *text, size_t len, long line, int check_ids,
                     struct trace_error *e);

/* The record loop of a CSV reader: calls ROW(CTX, row, why) on every
 * record of CSV that has NFIELDS fields; a malformed record, or a row ROW
 * refuses, is skipped or ends the read through trace_build_skip. 0 at the
 * end of the file, else the code that ended it with *e filled. */
typedef int (*trace_row_fn)(void *ctx, const struct trace_csv_row *row,
                            struct trace_error *why);
int trace_csv_rows(struct trace_csv *csv, struct trace_build *b,
                   size_t nfields, trace_row_fn row, void *ctx,
                   struct trace_error *e);

/* Ends a read that came to rc (no jobs is an error): on success *out owns
 * the finished trace and *err describes the first row skipped; on failure
 * *out is NULL and *err = *e. Returns the final code. */
int trace_build_end(struct trace_build *b, int rc, const struct trace_error *e,
                    struct trace **out, struct trace_error *err);

/* ---- CSV headers (formats.c) -------------------------------------------- */

/* Reads the header record and finds names[0..n) in it (blanks around a name
 * ignored; a name twice is an error): field_of[i] is the field of names[i]
 * or -1, *nfields the header's width; the first nrequired must be there. A
 * name not among names[] is a warning in B's trace naming the nearest one
 * (an error under B's TRACE_STRICT); B NULL: ignored. 0 or a TRACE_E* code
 * with *e filled. */
int trace_csv_header(struct trace_csv *csv, const char *path,
                     const char *const *names, size_t n, size_t nrequired,
                     long *field_of, size_t *nfields, struct trace_build *b,
                     struct trace_error *e);

/* Fills *e with "missing required column NAME" at HEADER's line, naming
 * the header field that looks like a typo of it, if one does. */
void trace_missing_column(struct trace_error *e, const char *path,
                          const struct trace_csv_row *header,
                          const char *name);

/* TRACE_EPARSE with *e filled for a record trace_csv_next returned as GOT
 * that is malformed or has other than nfields fields; else 0. */
int trace_csv_check_row(const char *path, int got,
                        const struct trace_csv_row *row, size_t nfields,
                        struct trace_error *e);


/* ==== Gavel throughputs (throughputs.c, throughputs_lookup.c) ============
 * Appended by the Gavel/Alibaba readers; nothing above depends on it. */

struct trace_tp_names {
    uint32_t *str;  /* (n) pool offsets */
    uint32_t *hash; /* (n) trace_hash of each name */
    size_t n, cap;
};

/* A measured pair: key (worker, spread, cell a, cell b), cell = job type *
 * nsf + GPU-count index; a, b: steps/s of the first and the second job. */
struct trace_tp_pair {
    uint64_t key;
    double a, b;
};

struct trace_throughputs {
    struct trace_strpool *pool;         /* worker and job type names */
    struct trace_tp_names workers, types;
    int32_t *sfs;                       /* (nsf) GPU counts, ascending */
    size_t nsf, sfcap;
    double *alone;         /* (nworkers, 2, ntypes, nsf) NAN: no entry */
    struct trace_tp_pair *pairs;        /* (npairs) sorted by key */
    size_t npairs, pcap;
};

/* Index of a job type, worker type (ASCII case ignored) or GPU count; -1
 * when absent. */
long trace_tp_find_type(const struct trace_throughputs *m, const char *s,
                        size_t len);
long trace_tp_find_worker(const struct trace_throughputs *m, const char *s,
                          size_t len);
long trace_tp_find_sf(const struct trace_throughputs *m, int32_t sf);

/* The nsf single-job values of (worker, spread, type). */
double *trace_tp_alone_row(const struct trace_throughputs *m, size_t w,
                           int spread, size_t type);
uint64_t trace_tp_pair_key(const struct trace_throughputs *m, size_t w,
                           int spread, size_t a, size_t b);
int trace_tp_compare_pairs(const void *x, const void *y);

/* ---- Ids seen by a streamed trace (idset.c) ---------------------------- */

struct trace_idset;
struct trace_idset *trace_idset_create(void); /* NULL: out of memory */
void trace_idset_destroy(struct trace_idset *s);
/* Adds ID: 0 when new, 1 when seen before, 2 when an id with the same
 * 64-bit hash was seen (see idset.c), or TRACE_ENOMEM. */
int trace_idset_add(struct trace_idset *s, const char *id, size_t len);

/* ---- Plain rows of a streamed native trace (native_fast.c) ------------- */

/* What the fast path does with one field of the header, in file order. */
enum trace_fast_kind {
    TRACE_FAST_TEXT, /* kept as text: an optional or unknown column */
    TRACE_FAST_ID,   /* text that must not be empty (job_id) */
    TRACE_FAST_F64,  /* a number: digits [. digits] only */
    TRACE_FAST_INT,  /* an integer: digits only */
};

struct trace_fast_field {
    unsigned char kind;     /* enum trace_fast_kind */
    unsigned char required; /* numbers: an empty cell is not the default */
    unsigned char positive; /* F64: > 0 rather than >= 0 */
    unsigned char i32;      /* INT: stored as int32_t, else int64_t */
    size_t offset;          /* numbers: of the member in struct trace_job */
    int64_t min, max;       /* INT: the allowed values */
};

struct trace_fast {
    size_t nfields;
    struct trace_fast_field *f;     /* (nfields) */
    struct trace_csv_field *fields; /* (nfields) the row just read */
};

/* Reads the next record of CSV when it is a plain row: one line, complete
 * in the buffer, of exactly fast->nfields fields without quotes, CR (but
 * for a CRLF line end) or NUL bytes, every number in the plain forms above
 * and within its column's rule, and times as trace_check_times wants. Then
 * fills *job's numbers (the other members stay) and *row, consumes the row
 * and returns 1. Else returns 0, having consumed nothing (but maybe
 * written some of *job's numbers): trace_csv_next and the full checks then
 * give the same row, or its error. */
int trace_fast_row(const struct trace_fast *fast, struct trace_csv *csv,
                   struct trace_job *job, struct trace_csv_row *row);

#endif
