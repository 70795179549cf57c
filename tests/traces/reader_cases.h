/* reader_cases.h -- reader cases as data, for the readers of the traces suite.
 *
 * A case is tests/data/<format>/{valid,invalid}/<case>.<ext> with
 * <case>.expect beside it, written by hand from the input file. Either kind
 * of .expect may start with "flags skip" (read with TRACE_SKIP_BAD_ROWS).
 * invalid: one line "L:C: TEXT": err.line, err.column, and TEXT is a
 * substring of err.text; the reader must return TRACE_EPARSE, leave *out
 * NULL and name the file in err.source.
 * valid: one statement a line, '#' for comments:
 *   jobs N | skipped N | notes N | ids A B C...  (every job id, in order)
 *   num I FIELD VALUE   job I (from 0; -1 is the last) equals strtod(VALUE)
 *                       bit for bit ("nan" for NAN), strtoll(VALUE) for
 *                       integer fields
 *   str I FIELD TEXT    TEXT = rest of line, with \n \r \t \\ escapes
 *   sum FIELD VALUE     the sum of a numeric field over all jobs (relative
 *                       error 1e-12)
 *   note COUNT TEXT     a note whose text holds TEXT counted COUNT rows
 *   first_skipped L:C: TEXT   *err after a successful read */
#ifndef HETSIM_TESTS_READER_CASES_H
#define HETSIM_TESTS_READER_CASES_H

#include "traces.h"

#include <stddef.h>

#ifndef HETSIM_TEST_DATA
#define HETSIM_TEST_DATA "tests/data"
#endif

typedef int (*tcase_reader)(const char *path, const struct trace_options *opt,
                            struct trace **out, struct trace_error *err);

/* Names (without ".EXT") of the files of dir ending in ".EXT", sorted, each
 * malloc'd; returns the count. */
size_t tcase_list(const char *dir, const char *ext, char **names, size_t max);

/* Checks "L:C: TEXT" against an error record. */
void tcase_expect_error(const struct trace_error *e, const char *spec,
                        const char *where);

/* Reads the one line of an invalid case's .expect (after "flags" lines)
 * into spec; returns the flags. */
int tcase_read_invalid(const char *expect_path, char *spec, size_t size);

/* Checks every valid and invalid case of tests/data/FORMAT, whose inputs end
 * in ".EXT", with READ; each kind must have at least min cases. */
void tcase_run(const char *format, const char *ext, tcase_reader read,
               size_t min_valid, size_t min_invalid);

#endif
