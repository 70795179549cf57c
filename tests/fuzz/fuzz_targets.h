/* fuzz_targets.h -- one function per trace-reader fuzz target, shared by
 * the libFuzzer harnesses (tests/fuzz/fuzz_<target>.c) and the replay test
 * of the traces suite (tests/traces/test_fuzz_replay.c), so that both do
 * the same thing with an input.
 *
 * fuzz_trace_input() writes the input to this process's file (with the
 * extension of the target; for `detect`, bits 0-1 of the last byte pick
 * it, none for a line end) and hands the path to the target's reader. The
 * first byte of an input also picks the options: bit 0 TRACE_SKIP_BAD_ROWS,
 * bits 1-3 the SWF procs_per_gpu (fuzz_options). The checks on what a
 * reader returns are in fuzz_trace_check.h and fuzz_tp_check.h. The cluster
 * target is in fuzz_cluster.h (the sim suite does not see traces.h). */
#ifndef HETSIM_FUZZ_TARGETS_H
#define HETSIM_FUZZ_TARGETS_H

#include "fuzz_tp_check.h"

enum fuzz_trace_target {
    FUZZ_NATIVE,
    FUZZ_GAVEL,
    FUZZ_PHILLY,
    FUZZ_ALIBABA2023,
    FUZZ_ALIBABA_NODES,
    FUZZ_SWF,
    FUZZ_TIRESIAS,
    FUZZ_DETECT,
    FUZZ_THROUGHPUTS,
    FUZZ_TRACE_TARGETS
};

/* A target: the file of an input is PATH, its bytes data[0..size). */
typedef int (*fuzz_run_fn)(const char *path, const uint8_t *data, size_t size,
                           char *why);

typedef int (*fuzz_reader_fn)(const char *path, const struct trace_options *opt,
                              struct trace **out, struct trace_error *err);

static inline struct trace_options fuzz_options(const uint8_t *data,
                                                size_t size)
{
    static const double procs[8] = {1, 2, 4, 8, 0.5, 3, 16, 1.5};
    uint8_t sel = size ? data[0] : 0;
    struct trace_options o;
    o.flags = sel & 1 ? TRACE_SKIP_BAD_ROWS : 0;
    o.procs_per_gpu = procs[(sel >> 1) & 7];
    return o;
}

static inline int fuzz_native(const char *path, const uint8_t *data,
                              size_t size, char *why)
{
    struct trace_error err;
    struct trace *t = fuzz_trace_sentinel();
    int flags = fuzz_options(data, size).flags;
    memset(&err, 0, sizeof err);
    int rc = trace_read_native(path, flags, &t, &err);
    return fuzz_trace_done(rc, t, &err, TRACE_FMT_NATIVE, flags, why);
}

/* The readers that take struct trace_options. */
static inline int fuzz_reader(fuzz_reader_fn read, enum trace_format want,
                              const char *path, const uint8_t *data,
                              size_t size, char *why)
{
    struct trace_error err;
    struct trace *t = fuzz_trace_sentinel();
    struct trace_options o = fuzz_options(data, size);
    memset(&err, 0, sizeof err);
    int rc = read(path, &o, &t, &err);
    return fuzz_trace_done(rc, t, &err, want, o.flags, why);
}

#define FUZZ_READER(fn, reader, format)                                        \
    static inline int fn(const char *path, const uint8_t *data, size_t size,   \
                         char *why)                                            \
    {                                                                          \
        return fuzz_reader(reader, format, path, data, size, why);             \
    }
FUZZ_READER(fuzz_gavel, trace_read_gavel, TRACE_FMT_GAVEL)
FUZZ_READER(fuzz_philly, trace_read_philly, TRACE_FMT_PHILLY)
FUZZ_READER(fuzz_alibaba2023, trace_read_alibaba2023, TRACE_FMT_ALIBABA2023)
FUZZ_READER(fuzz_swf, trace_read_swf, TRACE_FMT_SWF)
FUZZ_READER(fuzz_tiresias, trace_read_tiresias, TRACE_FMT_TIRESIAS)
#undef FUZZ_READER

/* trace_read with TRACE_FMT_AUTO; what it reads must be what
 * trace_detect_format says the file is. */
static inline int fuzz_detect(const char *path, const uint8_t *data,
                              size_t size, char *why)
{
    struct trace_error err, derr;
    struct trace *t = fuzz_trace_sentinel();
    struct trace_options o = fuzz_options(data, size);
    enum trace_format f = TRACE_FMT_COUNT;
    memset(&err, 0, sizeof err);
    memset(&derr, 0, sizeof derr);
    int drc = trace_detect_format(path, &f, &derr);
    int rc = trace_read(path, TRACE_FMT_AUTO, &o, &t, &err);
    int bad = 0;
    if (drc != 0 && !fuzz_text_ok(derr.text, sizeof derr.text))
        bad = fuzz_fail(why,
                        "trace_detect_format failed with %d and an "
                        "empty err.text",
                        drc);
    else if (drc == 0 && (f <= TRACE_FMT_AUTO || f >= TRACE_FMT_COUNT))
        bad = fuzz_fail(why, "trace_detect_format gave format %d", (int)f);
    else if (rc == 0 && t && t != fuzz_trace_sentinel() &&
             (drc != 0 || t->format != f))
        bad =
            fuzz_fail(why, "detected %s (%d) but read %s", trace_format_name(f),
                      drc, trace_format_name(t->format));
    if (bad) {
        if (rc == 0 && t != fuzz_trace_sentinel())
            trace_destroy(t);
        return bad;
    }
    return fuzz_trace_done(rc, t, &err, TRACE_FMT_AUTO, o.flags, why);
}

static inline int fuzz_alibaba_nodes(const char *path, const uint8_t *data,
                                     size_t size, char *why)
{
    struct trace_error err;
    struct trace_nodes *n = fuzz_nodes_sentinel();
    (void)data;
    (void)size;
    memset(&err, 0, sizeof err);
    int rc = trace_read_alibaba_nodes(path, &n, &err);
    int bad = fuzz_check_nodes(rc, n, &err, why);
    if (rc == 0 && n != fuzz_nodes_sentinel())
        trace_nodes_destroy(n);
    return bad;
}

static inline int fuzz_throughputs(const char *path, const uint8_t *data,
                                   size_t size, char *why)
{
    struct trace_error err;
    struct trace_throughputs *m = fuzz_throughputs_sentinel();
    memset(&err, 0, sizeof err);
    int rc = trace_throughputs_load(path, &m, &err);
    if (rc != 0)
        return fuzz_check_failure(rc, m != NULL, &err, why);
    if (m == NULL || m == fuzz_throughputs_sentinel())
        return fuzz_fail(why, "returned 0 without a matrix in *out");
    int bad = fuzz_check_throughputs(m, data, size, why);
    trace_throughputs_destroy(m);
    return bad;
}

struct fuzz_trace_target_def {
    const char *name; /* the folder under tests/fuzz/corpus, crashes */
    const char *ext;  /* of the input file */
    fuzz_run_fn run;
};

static const struct fuzz_trace_target_def
    fuzz_trace_targets[FUZZ_TRACE_TARGETS] = {
        [FUZZ_NATIVE] = {"native", ".csv", fuzz_native},
        [FUZZ_GAVEL] = {"gavel", ".trace", fuzz_gavel},
        [FUZZ_PHILLY] = {"philly", ".csv", fuzz_philly},
        [FUZZ_ALIBABA2023] = {"alibaba2023", ".csv", fuzz_alibaba2023},
        [FUZZ_ALIBABA_NODES] = {"alibaba_nodes", ".csv", fuzz_alibaba_nodes},
        [FUZZ_SWF] = {"swf", ".swf", fuzz_swf},
        [FUZZ_TIRESIAS] = {"tiresias", ".csv", fuzz_tiresias},
        [FUZZ_DETECT] = {"detect", NULL, fuzz_detect},
        [FUZZ_THROUGHPUTS] = {"throughputs", ".json", fuzz_throughputs},
};

/* Runs target ID on data[0..size): 0, or -1 with the broken invariant in
 * why (FUZZ_WHY_SIZE bytes). `detect` gets the extension that the last
 * byte picks, since detection looks at it: none for '\n' (0x0a), so that
 * text files are told apart by their first line. */
static inline int fuzz_trace_input(enum fuzz_trace_target id,
                                   const uint8_t *data, size_t size, char *why)
{
    static const char *const detect_ext[4] = {".csv", ".trace", "", ".swf"};
    const char *ext = fuzz_trace_targets[id].ext;
    if (!ext)
        ext = detect_ext[(size ? data[size - 1] : 2) & 3];
    const char *path = fuzz_input_path(ext);
    if (fuzz_write_file(path, data, size) != 0)
        return fuzz_fail(why, "cannot write %s: %s", path, strerror(errno));
    return fuzz_trace_targets[id].run(path, data, size, why);
}

#endif
