/* sweep_spec_internal.h -- what the two files that read a sweep SPEC share
 * (sweep_spec.c, sweep_policies.c). */
#ifndef HETSIM_CLI_SWEEP_SPEC_INTERNAL_H
#define HETSIM_CLI_SWEEP_SPEC_INTERNAL_H

#include <stddef.h>

#include "sweep_internal.h"

struct cJSON;

struct spec_ctx {
    const char *source;
    struct cli_json_lines lines;
    struct sweep_spec *s;
};

/* `hetsim: error: SPEC:LINE: ...` for ITEM (NULL: no line); returns
 * CLI_BAD_INPUT. */
int spec_bad(const struct spec_ctx *x, const struct cJSON *item,
             const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* strdup that sets *OOM when out of memory. */
char *spec_dup(const char *text, int *oom);
/* PATH as opened from here: relative paths are relative to SPEC. */
char *spec_beside(const char *spec, const char *path, int *oom);
/* ITEM's value as option text into BUF: a string, or a number in its
 * shortest exact form; 0, or CLI_BAD_INPUT after a message naming WHERE. */
int spec_option_text(const struct spec_ctx *x, const struct cJSON *item,
                     const char *where, char *buf, size_t cap);
/* The "generator" object OBJ checked as `hetsim trace generate` checks its
 * options (sweep_generator.c); 0, or CLI_BAD_INPUT after a message. */
int spec_check_generator(const struct spec_ctx *x, const struct cJSON *obj);
/* "policies": names or {name, options, placement, backfill, label}. */
int spec_parse_policies(struct spec_ctx *x, const struct cJSON *arr,
                        int *oom);

#endif
