/* run_helpers.h -- running the built hetsim binary from the tests of the cli
 * suite (test_cli.c, tests/cli), and the temporary folders they use. */
#ifndef HETSIM_TESTS_CLI_RUN_HELPERS_H
#define HETSIM_TESTS_CLI_RUN_HELPERS_H

#include <stddef.h>

/* The whole of PATH into BUF (at most CAP - 1 bytes, NUL-terminated); an
 * unreadable file reads as "". */
void clitest_read_file(const char *path, char *buf, size_t cap);

/* Runs `hetsim ARGS` (a shell fragment) in folder CWD (NULL: here);
 * returns its exit code, with its stdout and stderr in OUT and ERR. */
int clitest_run(const char *cwd, const char *args, char *out, size_t out_cap,
                char *err, size_t err_cap);

/* A new empty folder /tmp/PREFIX-XXXXXX into DIR (64 bytes), and its
 * removal with everything in it. */
void clitest_make_dir(char *dir, const char *prefix);
void clitest_remove_dir(const char *dir);

/* Writes TEXT into DIR/NAME (a new file, or replaced). */
void clitest_write_file(const char *dir, const char *name, const char *text);

/* Entries of DIR, hidden files included, "." and ".." not; -1 if none. */
int clitest_count_entries(const char *dir);

#endif
