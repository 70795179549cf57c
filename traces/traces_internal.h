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

#endif
