/* traces.h -- reading job traces into one flat array of job records.
 *
 * The traces module depends on nothing else of hetsim. A reader streams its
 * input (memory grows with the number of jobs kept, not with the file size)
 * and fills a struct trace: one array of struct trace_job plus a string pool
 * that holds every text field once (job ids, job types, users, ...). */
#ifndef HETSIM_TRACES_H
#define HETSIM_TRACES_H

#include <stddef.h>
#include <stdint.h>

/* Error codes of this module: 0 is success, every failure is negative. */
#define TRACE_ERRNO_MAP(X)                                   \
    X(TRACE_EIO, -1, "cannot read file")                     \
    X(TRACE_EPARSE, -2, "malformed trace")                   \
    X(TRACE_ENOMEM, -3, "out of memory")                     \
    X(TRACE_EFORMAT, -4, "unknown trace format")

enum trace_errno {
#define TRACE_ERRNO_ENUM(name, value, text) name = value,
    TRACE_ERRNO_MAP(TRACE_ERRNO_ENUM)
#undef TRACE_ERRNO_ENUM
};

/* Text of an error code; never NULL. */
const char *trace_strerror(int code);

/* Where and why a read failed; the first error wins. line and column count
 * from 1; 0 means "not known" (e.g. a file that cannot be opened). */
struct trace_error {
    char source[256];
    long line;
    long column;
    char text[256];
};

/* Index into the string pool; TRACE_NOSTR means "column absent or empty". */
#define TRACE_NOSTR 0u

/* One job as the trace describes it. Missing optional numbers are NAN
 * (floating) or -1 (integers); missing strings are TRACE_NOSTR. */
struct trace_job {
    double submit_time;   /* s since the trace start */
    double duration;      /* s of run time on the reference GPU */
    double gpu_mem_mb;    /* true peak GPU memory need, NAN if absent */
    double params_m;      /* model parameters, millions */
    double learning_rate;
    int64_t iterations;
    int32_t num_gpus;     /* >= 1 */
    int32_t gpu_milli;    /* thousandths of one GPU; 1000 = whole (default) */
    int32_t priority;
    int32_t batch_size;
    int32_t layers;
    int32_t input_dim;
    uint32_t id;          /* job_id text */
    uint32_t job_type;
    uint32_t gpu_types;   /* allowed GPU types, '|'-separated, as in the file */
    uint32_t user;
    uint32_t vc;
    uint32_t model;
    uint32_t precision;
    uint32_t optimizer;
    uint32_t line;        /* line of the source file the job came from */
};

/* A trace: jobs in file order (readers do not sort). */
struct trace {
    struct trace_job *jobs; /* (njobs) */
    size_t njobs;
    size_t rows_skipped;    /* rows dropped under TRACE_SKIP_BAD_ROWS */
    struct trace_strpool *pool;
};

enum trace_flags {
    TRACE_SKIP_BAD_ROWS = 1 << 0, /* count bad rows instead of failing */
};

/* Reads a native hetsim CSV trace (see README, "Trace format"): a header row,
 * columns by name in any order; required job_id, submit_time, num_gpus,
 * duration; optional columns listed in README; unknown columns are ignored.
 * Accepts a UTF-8 BOM, CRLF line ends and RFC 4180 quoted fields.
 * On success returns 0 and *out owns a new trace (free with trace_destroy);
 * *err, when non-NULL, then describes the first row skipped under
 * TRACE_SKIP_BAD_ROWS (line 0 and empty text when none was).
 * On failure returns a negative TRACE_E* code, fills *err when non-NULL and
 * leaves *out NULL. */
int trace_read_native(const char *path, int flags, struct trace **out,
                      struct trace_error *err);

/* Frees a trace; NULL is a no-op. */
void trace_destroy(struct trace *t);

/* Text of a pooled string; "" for TRACE_NOSTR. The pointer lives as long as
 * the trace. */
const char *trace_str(const struct trace *t, uint32_t s);

#endif
