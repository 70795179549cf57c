/* cases.h -- reader cases as data, shared by the format suites of
 * tests/traces/ (see cases.c for the .expect language). */
#ifndef HETSIM_TEST_TRACES_CASES_H
#define HETSIM_TEST_TRACES_CASES_H

#include "traces.h"

#include <stddef.h>

#ifndef HETSIM_TEST_DATA
#define HETSIM_TEST_DATA "tests/data"
#endif
#ifndef HETSIM_SOURCE_DIR
#define HETSIM_SOURCE_DIR "."
#endif

/* Runs every case of HETSIM_TEST_DATA/<dir>/valid and .../invalid: the files
 * ending in .<ext>, each read with trace_read(path, f, ...) and checked
 * against <case>.expect beside it. At least min_valid and min_invalid cases
 * must be there. */
void case_run_all(const char *dir, const char *ext, enum trace_format f,
                  size_t min_valid, size_t min_invalid);

/* Reads path in format f with options opt (NULL: defaults); the read must
 * succeed. */
struct trace *case_read_ok(const char *path, enum trace_format f,
                           const struct trace_options *opt);

/* The sum of num_gpus * duration over the jobs. */
double case_total_gpu_seconds(const struct trace *t);

/* The count of note what, or 0 when the trace has no such note. */
size_t case_note_count(const struct trace *t, const char *what);

#endif
