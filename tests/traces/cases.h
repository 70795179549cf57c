/* cases.h -- reader cases as data, and the helpers the traces suite shares
 * (tests/test_traces.c and the files of tests/traces/).
 *
 * A case is HETSIM_TEST_DATA/<dir>/{valid,invalid}/<case>.<ext> with
 * <case>.expect beside it, written by hand (or with awk) from the input,
 * never by running the reader. In an .expect, '#' starts a comment line and
 * blank lines are skipped. Option lines come first:
 *   flags skip            read with TRACE_SKIP_BAD_ROWS
 *   procs_per_gpu X       trace_options.procs_per_gpu (default 1)
 * invalid: then exactly one line "L:C: TEXT": err.line, err.column, and TEXT
 * a substring of err.text. The read must return TRACE_EPARSE, leave *out
 * NULL and name the input in err.source.
 * valid: the read must succeed (a trace must be in the format of the run);
 * then one statement a line. I counts records from 0, -1 is the last.
 *   num I FIELD VALUE     field of record I equals strtod(VALUE) bit for bit
 *                         ("nan" for NAN; so -0 is not 0), strtoll(VALUE)
 *                         for integer fields
 *   str I FIELD TEXT      TEXT = rest of line, with \n \r \t \\ escapes
 *   sum FIELD VALUE       sum of a numeric field over all records: exact for
 *                         integer fields, within a relative 1e-12 otherwise
 * traces (records are jobs; FIELD a struct trace_job member, job_id,
 * job_type or gpu_type):
 *   jobs N | skipped N | notes N | format NAME
 *   ids A B C...          every job id, in order
 *   total_gpu_seconds X   sum of num_gpus * duration, within a relative 1e-12
 *   note COUNT TEXT       the note TEXT (or else the first whose text holds
 *                         TEXT) is there and counts COUNT rows
 *   first_skipped L:C: TEXT   *err after the read, as for invalid cases
 * node lists (trace_read_alibaba_nodes; FIELD name, model, gpus, cpu_milli
 * or memory_mib):
 *   nodes N
 *   model_gpus MODEL N    the GPUs of all nodes of MODEL
 * Throughput tables (trace_throughputs_load) have invalid cases only. */
#ifndef HETSIM_TEST_TRACES_CASES_H
#define HETSIM_TEST_TRACES_CASES_H

#include "traces.h"

#include <stddef.h>
#include <stdio.h>

#ifndef HETSIM_TEST_DATA
#define HETSIM_TEST_DATA "tests/data"
#endif
#ifndef HETSIM_SOURCE_DIR
#define HETSIM_SOURCE_DIR "."
#endif

/* A trace reader with trace_read_gavel's signature. */
typedef int (*case_reader)(const char *path, const struct trace_options *opt,
                           struct trace **out, struct trace_error *err);

enum case_kind { CASE_TRACE, CASE_NODES, CASE_THROUGHPUTS };

/* What the cases of a folder are read with. */
struct case_target {
    enum case_kind kind;
    enum trace_format format; /* CASE_TRACE: the format of every trace */
    case_reader read;         /* CASE_TRACE: NULL for trace_read(format) */
};

/* Checks every case of HETSIM_TEST_DATA/<dir>/<kind> (kind "valid" or
 * "invalid"), the files ending in .<ext>, read with *target; there must be
 * at least min cases. */
void case_run(const char *dir, const char *kind, const char *ext,
              const struct case_target *target, size_t min);

/* case_run of the valid and the invalid cases of dir for trace format f,
 * read with read (NULL: trace_read). */
void case_run_all(const char *dir, const char *ext, enum trace_format f,
                  case_reader read, size_t min_valid, size_t min_invalid);

/* Reads path in format f with options opt (NULL: defaults); the read must
 * succeed. The caller owns the trace. */
struct trace *case_read_ok(const char *path, enum trace_format f,
                           const struct trace_options *opt);

/* As case_read_ok with default options, for a generated file: it is deleted
 * before anything can fail, so that no large file is left behind. */
struct trace *case_read_temp(const char *path, enum trace_format f);

/* A new temporary file, open for writing; its name goes to path. */
FILE *case_temp_file(char *path, size_t size);

/* The sum of num_gpus * duration over the jobs. */
double case_total_gpu_seconds(const struct trace *t);

/* The count of note what, or 0 when the trace has no such note. */
size_t case_note_count(const struct trace *t, const char *what);

#endif
