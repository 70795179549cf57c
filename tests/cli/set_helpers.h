/* set_helpers.h -- what the fault-injection tests look at on disk: a
 * fingerprint of a folder's files, and the temporaries left in a tree. */
#ifndef HETSIM_TESTS_CLI_SET_HELPERS_H
#define HETSIM_TESTS_CLI_SET_HELPERS_H

/* "relative/path size fnv1a\n" for every file under DIR, sorted; files
 * whose content holds wall-clock times (perf.json, report.html) count by
 * name only. A missing DIR is "". The caller frees. */
char *settest_fingerprint(const char *dir);

/* How many temporaries (.NAME.tmp.PID, .NAME.old.PID, .NAME.lock) are
 * under DIR; the first one's path into FIRST (256 bytes). Those of a
 * process listed in KEEP (NKEEP pids; 0 stands for lock files) are
 * counted in *KEPT instead. */
int settest_temps(const char *dir, const int *keep, int nkeep, int *kept,
                  char *first);

/* Runs `hetsim ARGS` with HETSIM_FAULT=FAULT (NULL: none); its exit
 * code, stderr in ERR (64 KiB). */
int settest_run(const char *fault, const char *args, char *err);

#endif
