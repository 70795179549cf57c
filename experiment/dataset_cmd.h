/* dataset_cmd.h -- what the files of `hetsim dataset` and `hetsim
 * predictor` (dataset_cmd.c, dataset_gavel.c, predictor_*.c) share. */
#ifndef HETSIM_DATASET_CMD_H
#define HETSIM_DATASET_CMD_H

#include <stdio.h>

#include "cli.h"
#include "predictor.h"

/* ---- Gavel dataset (dataset_gavel.c) ---------------------------------- */

/* Writes the dataset of M (read from PATH) to F: one row per measured
 * (job type, GPU type, GPU count), consolidated placement. Returns an exit
 * code, having printed why when it is not CLI_OK. */
int gavel_write_rows(FILE *f, const struct trace_throughputs *m,
                     const char *path, int physics, size_t *nrows,
                     size_t *nflagged);

/* The utilization dataset of M (dataset_util.c): one row per (job type,
 * GPU type) with a measured pair, target gpu_util. An exit code. */
int gavel_write_util_rows(FILE *f, const struct trace_throughputs *m,
                          const char *path, size_t *nrows);

/* ---- Shared by the predictor commands (predictor_cmd.c) -------------- */

/* Prints E as `hetsim: error: FILE:LINE: text`; returns CLI_BAD_INPUT. */
int cli_pred_error(const struct pred_error *e);

/* Parses a whole unsigned number; 0, or -1. */
int cli_parse_ulong(const char *s, unsigned long *out);

#endif
